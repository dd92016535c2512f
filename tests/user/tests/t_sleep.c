/*
 * SLEEP (57) and the waits of user-level locks (ful_backoff).
 *
 * sleep_us: a sleep lasts at least its time, 0 returns at once, forever
 * is refused, and a sleeper moved to another core while it sleeps
 * sleeps out its time there.
 *
 * lock_inversion: a thread of priority 150 waits for a lock that a
 * thread of priority 100 holds on the same core. YIELD passes the core
 * only to threads of the caller's priority, so a waiter that only
 * yields spins there for ever, and the holder never runs to release
 * the lock: what lb_stress's mover did with the balancer's lock (its
 * test thread held it at priority 100), a hang of user2 about once in
 * 35 runs on a loaded host. With ful_backoff the waiter sleeps
 * after a few yields and the holder finishes.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/bootinfo.h>

#include "utest.h"

/** Microseconds since @t0 (a ful_counter() value). */
static unsigned long us_since(unsigned long t0)
{
	return ful_ticks_to_us(ful_counter() - t0);
}

static unsigned this_cpu_id(void)
{
	struct ful_sysinfo si;
	return ful_sysinfo(&si) == 0 ? si.cpu : ~0u;
}

#define SL_LONG_US 200000ul /* long enough to be moved in the middle */

static struct {
	_Atomic int asleep, done;
	unsigned long slept_us;
	unsigned cpu_after;
	long rc;
} sl;

static void sl_sleeper(void *arg)
{
	(void)arg;
	unsigned long t0 = ful_counter();
	atomic_store(&sl.asleep, 1);
	sl.rc = ful_sleep_us(SL_LONG_US);
	sl.slept_us = us_since(t0);
	sl.cpu_after = this_cpu_id();
	atomic_store(&sl.done, 1);
}

UTEST(sleep_us, 2)
{
	UT_CHECK_EQ(ful_sleep_us(0), 0);
	UT_CHECK_EQ(ful_sleep_us(FUL_FOREVER), -FUL_EINVAL);
	UT_CHECK_EQ(ful_sleep_us((1ul << 40) + 1), -FUL_EINVAL);
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_sleep_us(2000), 0);
	UT_CHECK(us_since(t0) >= 2000);

	/* Moved while it sleeps: it wakes on the new core, and sleeps on
	 * there until its deadline. */
	unsigned a = ut_ncpus() - 1, b = ut_ncpus() - 2;
	memset(&sl, 0, sizeof(sl));
	static struct ful_thread th;
	struct ful_thread_args args = {.fn = sl_sleeper, .pool = FUL_SLOT_POOL,
				       .vs = FUL_SLOT_SELF_VS, .prio = 100,
				       .cpu = a, .name = "sleeper"};
	UT_CHECK_EQ(ful_thread_spawn(&args, &th), 0);
	UT_WAIT(atomic_load(&sl.asleep) == 1);
	struct ful_thread_info info;
	UT_WAIT(ful_thread_info(th.slot, &info) == 0 &&
		info.state == FUL_TS_BLOCKED);
	struct ful_move mv = {(unsigned)th.tid, b, 0, 0};
	UT_CHECK_EQ(ful_migrate(FUL_SLOT_SCHED, &mv, 1), 1);
	UT_WAIT(atomic_load(&sl.done) == 1);
	UT_CHECK_EQ(sl.rc, 0);
	UT_CHECK(sl.slept_us >= SL_LONG_US);
	UT_CHECK_EQ(sl.cpu_after, b);
	UT_CHECK(ful_thread_reap(&th, UT_TIMEOUT_US));
}

static struct {
	atomic_flag lock;
	_Atomic int holding, trying, got, released;
	unsigned low_cpu, high_cpu;
} li;

static void li_take(void)
{
	unsigned n = 0;
	while (atomic_flag_test_and_set_explicit(&li.lock,
						 memory_order_acquire))
		ful_backoff(&n);
}

static void li_drop(void)
{
	atomic_flag_clear_explicit(&li.lock, memory_order_release);
}

/** Priority 100: holds the lock until the high thread waits for it. */
static void li_low(void *arg)
{
	(void)arg;
	li_take();
	atomic_store(&li.holding, 1);
	while (!atomic_load(&li.trying))
		ful_yield();
	li.low_cpu = this_cpu_id();
	li_drop();
	atomic_store(&li.released, 1);
}

/** Priority 150, on the low thread's core: waits for the lock. */
static void li_high(void *arg)
{
	(void)arg;
	li.high_cpu = this_cpu_id();
	atomic_store(&li.trying, 1);
	li_take();
	atomic_store(&li.got, 1);
	li_drop();
}

static long li_spawn(void (*fn)(void *), unsigned cpu, unsigned prio,
		     struct ful_thread *th)
{
	struct ful_thread_args a = {.fn = fn, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = prio,
				    .cpu = cpu, .name = "lockinv"};
	return ful_thread_spawn(&a, th);
}

UTEST(lock_inversion, 2)
{
	unsigned x = (this_cpu_id() + 1) % ut_ncpus();
	memset(&li, 0, sizeof(li));
	atomic_flag_clear(&li.lock);
	static struct ful_thread lo, hi;
	UT_CHECK_EQ(li_spawn(li_low, x, 100, &lo), 0);
	UT_WAIT(atomic_load(&li.holding) == 1);
	UT_CHECK_EQ(li_spawn(li_high, x, 150, &hi), 0);
	/* Without the sleeps the high thread spins on x for ever: kill it
	 * then, so that the low one can end. */
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	while (!atomic_load(&li.got) && ful_counter() < dl)
		ful_yield();
	bool got = atomic_load(&li.got);
	if (!got)
		ful_thread_kill(hi.slot);
	UT_CHECK(ful_thread_reap(&hi, UT_TIMEOUT_US));
	UT_WAIT(atomic_load(&li.released) == 1);
	UT_CHECK(ful_thread_reap(&lo, UT_TIMEOUT_US));
	UT_CHECK(got);
	/* The case at issue: both on one core, the holder below. */
	UT_CHECK_EQ(li.high_cpu, x);
	UT_CHECK_EQ(li.low_cpu, x);
}
