/*
 * The load area and the balancer's system calls, black box:
 *   load_area_header     version, sizes, offsets, cores, counter rate
 *   load_tracks_threads  the figures of a core follow its threads as
 *                        they block, run, migrate (batch, running and
 *                        blocked) and exit; per-thread records agree
 *   load_thread_set      slice, nice and affinity through THREAD_SET;
 *                        a pinned thread refuses other cores
 *   load_idle_time_advances  an idle (tickless) core's idle time grows
 *                        by the whole interval, read at read time
 *   load_runtime_advances    a thread running without a switch: its
 *                        THREAD_INFO run time and its core's busy time grow
 *   load_nice_share      two spinners of equal priority on one core,
 *                        nice 0 and nice 5: their CPU shares follow their
 *                        weights (1024 : 335), as the balancing policies
 *                        of paper 001 assume
 * The kernel tests additionally check the area against the thread table
 * after every kernel test (tests/kernel/ktest.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/bootinfo.h>
#include <fulcrum/load.h>

#include <ful/load.h>

#include "utest.h"

#define LW_N 3

static const volatile struct ful_load_page *la(void)
{
	return (const volatile struct ful_load_page *)FUL_LOAD_VADDR;
}

/** A consistent copy of core @cpu's record. */
static struct ful_load_cpu lcpu(unsigned cpu)
{
	const volatile struct ful_load_cpu *r = &la()->cpu[cpu];
	struct ful_load_cpu c;
	for (;;) {
		unsigned s0 = atomic_load_explicit((_Atomic unsigned *)&r->seq,
						   memory_order_acquire);
		memcpy(&c, (const void *)r, sizeof(c));
		atomic_thread_fence(memory_order_acquire);
		if (!(s0 & 1) && s0 == r->seq)
			return c;
	}
}

/** A consistent copy of the record of thread @tid. */
static struct ful_load_thread lthread(unsigned tid)
{
	const volatile struct ful_load_thread *r =
		&la()->thread[FUL_TID_SLOT(tid)];
	struct ful_load_thread t;
	for (;;) {
		unsigned s0 = atomic_load_explicit((_Atomic unsigned *)&r->seq,
						   memory_order_acquire);
		memcpy(&t, (const void *)r, sizeof(t));
		atomic_thread_fence(memory_order_acquire);
		if (!(s0 & 1) && s0 == r->seq)
			return t;
	}
}

struct lw {
	long ntfn;
	_Atomic int phase, quit, spinning;
	struct ful_thread th;
};

/** Block on the notification; when signalled, spin until the phase
 *  changes; exit when told to. */
static void lw_main(void *arg)
{
	struct lw *w = arg;
	unsigned long bits;
	for (;;) {
		ful_ntfn_wait((unsigned)w->ntfn, &bits, FUL_FOREVER);
		if (atomic_load(&w->quit))
			return;
		int ph = atomic_load(&w->phase);
		atomic_fetch_add(&w->spinning, 1);
		while (atomic_load(&w->phase) == ph)
			;
		atomic_fetch_sub(&w->spinning, 1);
	}
}

static int lw_start(struct lw *w, unsigned cpu, unsigned slice)
{
	w->ntfn = ut_ntfn_new();
	if (w->ntfn < 0)
		return (int)w->ntfn;
	struct ful_thread_args a = {.fn = lw_main, .arg = w,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = cpu, .slice_ms = slice,
				    .name = "loadw"};
	return ful_thread_spawn(&a, &w->th);
}

static void lw_free(struct lw *w)
{
	ful_slot_drop(w->th.slot);
	ful_slot_drop((unsigned)w->ntfn);
	free(w->th.mem);
}

UTEST(load_area_header, 1)
{
	const volatile struct ful_load_page *p = la();
	UT_CHECK_EQ(p->hdr.version, FUL_LOAD_VERSION);
	UT_CHECK_EQ(p->hdr.ncpus, ut_ncpus());
	UT_CHECK_EQ(p->hdr.nthreads, FUL_LOAD_THREADS);
	UT_CHECK_EQ(p->hdr.cpu_offset, 128);
	UT_CHECK_EQ(p->hdr.thread_offset, 20480); /* version 5: 64 cores */
	UT_CHECK_EQ(p->hdr.ev_offset, 8320);
	UT_CHECK_EQ(p->hdr.counter_freq, ful_counter_freq());
	/* This task's thread: a user thread, running. */
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	struct ful_load_thread me = lthread(si.tid);
	UT_CHECK_EQ(me.tid, si.tid);
	UT_CHECK_EQ(me.cpu, si.cpu);
	UT_CHECK_EQ(me.state, FUL_TS_RUNNING);
	UT_CHECK_EQ(me.flags & FUL_LT_KERNEL, 0);
	/* Read-only: the kernel refuses a writable mapping of it. */
	long s = ful_slot_alloc();
	UT_CHECK(s > 0);
	UT_CHECK_EQ(ful_cap_info(FUL_SLOT_LOAD) & 0xff, FUL_CAP_FRAME);
	UT_CHECK_EQ(ful_map(FUL_SLOT_SELF_VS, FUL_SLOT_LOAD, 0x60000000UL,
			    FUL_R_READ | FUL_R_WRITE),
		    -FUL_ERIGHTS);
	ful_slot_free((unsigned)s);
}

/** Wait until core @cpu's record satisfies @cond (c is the copy). */
#define WAIT_CPU(cpu, cond)                                                \
	do {                                                               \
		struct ful_load_cpu c;                                     \
		UT_WAIT((c = lcpu(cpu), (cond)));                          \
	} while (0)

static void lw_signal_all(struct lw *w)
{
	for (unsigned i = 0; i < LW_N; i++)
		ful_ntfn_signal((unsigned)w[i].ntfn, 1);
}

/** Every worker's record: on @cpu, in one of the states in @states. */
static bool lw_records(struct lw *w, unsigned cpu, unsigned states)
{
	for (unsigned i = 0; i < LW_N; i++) {
		struct ful_load_thread t = lthread((unsigned)w[i].th.tid);
		if (t.tid != (unsigned)w[i].th.tid || t.cpu != cpu ||
		    !(states >> t.state & 1))
			return false;
	}
	return true;
}

#define ST(s) (1u << FUL_TS_##s)

static void tracks_body(struct ut *ut, struct lw *w, unsigned x, unsigned y)
{
	static const unsigned slices[LW_N] = {7, 11, 13};
	struct ful_load_cpu bx = lcpu(x), by = lcpu(y);
	for (unsigned i = 0; i < LW_N; i++)
		UT_CHECK_EQ(lw_start(&w[i], x, slices[i]), 0);
	/* Blocked in their first wait: counted as blocked, not as load. */
	WAIT_CPU(x, c.nblocked == bx.nblocked + LW_N && c.load == bx.load);
	UT_CHECK(lw_records(w, x, ST(BLOCKED)));
	UT_CHECK_EQ(lthread((unsigned)w[1].th.tid).slice_ms, 11);
	/* Running: L is the sum of their slices. */
	lw_signal_all(w);
	UT_WAIT(atomic_load(&w[0].spinning) + atomic_load(&w[1].spinning) +
			atomic_load(&w[2].spinning) == LW_N);
	WAIT_CPU(x, c.load == bx.load + 31 && c.nrunnable == bx.nrunnable + LW_N &&
			    c.nblocked == bx.nblocked);
	UT_CHECK(lw_records(w, x, ST(READY) | ST(RUNNING)));
	/* One batch: three running threads, one already there, one bogus. */
	struct ful_move mv[5] = {
		{(unsigned)w[0].th.tid, y, 99, 0}, {(unsigned)w[1].th.tid, y, 99, 0},
		{(unsigned)w[2].th.tid, y, 99, 0}, {(unsigned)w[2].th.tid, y, 99, 0},
		{0xffffffu, y, 99, 0}};
	/* The repeated move finds the first in flight (DONE: it lands on
	 * y anyway) or already done (ALREADY). */
	long done = ful_migrate(FUL_SLOT_SCHED, mv, 5);
	for (unsigned i = 0; i < 3; i++)
		UT_CHECK_EQ(mv[i].result, FUL_MOVE_DONE);
	UT_CHECK(mv[3].result == FUL_MOVE_ALREADY || mv[3].result == FUL_MOVE_DONE);
	UT_CHECK_EQ(done, 3 + (mv[3].result == FUL_MOVE_DONE));
	UT_CHECK_EQ(mv[4].result, -FUL_ENOTHREAD);
	WAIT_CPU(y, c.load == by.load + 31 && c.nrunnable == by.nrunnable + LW_N);
	WAIT_CPU(x, c.load == bx.load && c.nrunnable == bx.nrunnable &&
			    c.mig_out >= bx.mig_out + LW_N);
	UT_CHECK(lw_records(w, y, ST(READY) | ST(RUNNING)));
	UT_CHECK(lcpu(y).mig_in >= by.mig_in + LW_N);
	/* Blocked on y, then moved back while blocked. */
	atomic_fetch_add(&w[0].phase, 1);
	atomic_fetch_add(&w[1].phase, 1);
	atomic_fetch_add(&w[2].phase, 1);
	WAIT_CPU(y, c.load == by.load && c.nblocked == by.nblocked + LW_N);
	for (unsigned i = 0; i < 3; i++)
		mv[i] = (struct ful_move){(unsigned)w[i].th.tid, x, 99, 0};
	UT_CHECK_EQ(ful_migrate(FUL_SLOT_SCHED, mv, 3), 3);
	/* y stops counting them; x counts them from their next block on. */
	WAIT_CPU(y, c.nblocked == by.nblocked && c.load == by.load);
	UT_CHECK_EQ(lcpu(x).load, bx.load);
	UT_CHECK(lw_records(w, x, ST(BLOCKED)));
	/* Woken where they now belong; blocked there again; then gone. */
	lw_signal_all(w);
	WAIT_CPU(x, c.load == bx.load + 31 && c.nblocked == bx.nblocked);
	UT_WAIT(atomic_load(&w[0].spinning) + atomic_load(&w[1].spinning) +
			atomic_load(&w[2].spinning) == LW_N);
	atomic_fetch_add(&w[0].phase, 1);
	atomic_fetch_add(&w[1].phase, 1);
	atomic_fetch_add(&w[2].phase, 1);
	UT_WAIT(lw_records(w, x, ST(BLOCKED)));
	struct ful_load_cpu cx = lcpu(x);
	if (cx.load != bx.load || cx.nblocked != bx.nblocked + LW_N)
		ut_fail(ut, __FILE__, __LINE__, "cpu%u load %lu (base %lu), "
			"blocked %u (base %u)", x, cx.load, bx.load,
			cx.nblocked, bx.nblocked);
}

UTEST(load_tracks_threads, 2)
{
	static struct lw w[LW_N];
	memset(w, 0, sizeof(w));
	unsigned x = ut_ncpus() - 1, y = ut_ncpus() > 2 ? 1 : 0;
	struct ful_load_cpu bx = lcpu(x);
	tracks_body(ut, w, x, y);
	for (unsigned i = 0; i < LW_N; i++) {
		atomic_store(&w[i].quit, 1);
		atomic_fetch_add(&w[i].phase, 1);
		if (w[i].ntfn > 0)
			ful_ntfn_signal((unsigned)w[i].ntfn, 1);
	}
	for (unsigned i = 0; i < LW_N; i++)
		if (w[i].th.tid > 0)
			UT_WAIT(ful_thread_dead(w[i].th.slot));
	if (ut->failed)
		return;
	WAIT_CPU(x, c.load == bx.load && c.nblocked == bx.nblocked &&
			    c.nrunnable == bx.nrunnable);
	for (unsigned i = 0; i < LW_N; i++) {
		UT_CHECK(lthread((unsigned)w[i].th.tid).tid !=
			 (unsigned)w[i].th.tid);
		lw_free(&w[i]);
	}
}

UTEST(load_thread_set, 2)
{
	static struct lw w;
	memset(&w, 0, sizeof(w));
	unsigned x = ut_ncpus() - 1, y = 0;
	UT_CHECK_EQ(lw_start(&w, x, 10), 0);
	unsigned tid = (unsigned)w.th.tid;
	UT_WAIT(lthread(tid).state == FUL_TS_BLOCKED);
	unsigned long gen = la()->hdr.tgen;
	struct ful_load_cpu bx = lcpu(x);
	/* Slice and nice: the record and, while it runs, the core's sums. */
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, tid, FUL_TA_SLICE, 25), 0);
	UT_CHECK_EQ(lthread(tid).slice_ms, 25);
	UT_CHECK(la()->hdr.tgen > gen);
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, tid, FUL_TA_NICE, -5), 0);
	UT_CHECK_EQ(lthread(tid).nice, -5);
	UT_CHECK_EQ(lthread(tid).weight, 3121); /* CFS: nice -5 */
	ful_ntfn_signal((unsigned)w.ntfn, 1);
	WAIT_CPU(x, c.load == bx.load + 25);
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, tid, FUL_TA_SLICE, 40), 0);
	WAIT_CPU(x, c.load == bx.load + 40);
	/* Pinned to x: moves elsewhere are refused, the flag is set. */
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, tid, FUL_TA_AFFINITY,
				   1L << x), 0);
	UT_CHECK(lthread(tid).flags & FUL_LT_PINNED);
	UT_CHECK_EQ(lthread(tid).affinity, 1u << x);
	struct ful_move mv = {tid, y, 99, 0};
	UT_CHECK_EQ(ful_migrate(FUL_SLOT_SCHED, &mv, 1), 0);
	UT_CHECK_EQ(mv.result, -FUL_ESTATE);
	UT_CHECK_EQ(ful_thread_migrate(FUL_SLOT_SCHED, w.th.slot, y), -FUL_ESTATE);
	/* Re-pinned to y: the kernel moves it there. */
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, tid, FUL_TA_AFFINITY,
				   1L << y), 0);
	UT_WAIT(lthread(tid).cpu == y);
	WAIT_CPU(x, c.load == bx.load);
	/* Unpinned: every core again. */
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, tid, FUL_TA_AFFINITY, 0), 0);
	UT_CHECK_EQ(lthread(tid).flags & FUL_LT_PINNED, 0);
	/* Kernel threads cannot be changed from EL0; no such thread. */
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, 0xfff, FUL_TA_SLICE, 5),
		    -FUL_ENOTHREAD);
	atomic_store(&w.quit, 1);
	atomic_fetch_add(&w.phase, 1);
	ful_ntfn_signal((unsigned)w.ntfn, 1);
	UT_WAIT(ful_thread_dead(w.th.slot));
	lw_free(&w);
}

/** Yield until the counter has advanced by @us (waits on the counter,
 *  not for a fixed time: the caller measures what happened meanwhile). */
static void lt_pass(unsigned long us)
{
	unsigned long end = ful_counter() + ful_us_to_ticks(us);
	while (ful_counter() < end)
		ful_yield();
}

/*
 * An idle core is tickless: its published busy/idle figures stand still
 * from the moment it goes idle. ful_load_cpu_times adds the stretch since
 * `stamp` to the side `idle_open` names, so over any interval an idle
 * core's idle time grows by the whole interval and its busy time not at
 * all. (With the figures as published, idle grew by 0: issue 19, 8.)
 */
UTEST(load_idle_time_advances, 2)
{
	unsigned cpu = ut_ncpus() - 1;
	WAIT_CPU(cpu, c.nrunnable == 0 && c.idle_open);
	struct ful_load_cpu a = lcpu(cpu);
	unsigned long t0 = ful_counter(), b0, i0, b1, i1;
	ful_load_cpu_times(&a, t0, &b0, &i0);
	lt_pass(50000);
	struct ful_load_cpu b = lcpu(cpu);
	unsigned long t1 = ful_counter();
	ful_load_cpu_times(&b, t1, &b1, &i1);
	UT_CHECK(b.nrunnable == 0 && b.idle_open);
	UT_CHECK_EQ(b1, b0);
	UT_CHECK(i1 - i0 >= (t1 - t0) * 9 / 10);
	UT_CHECK(i1 - i0 <= t1 - t0);
}

static _Atomic int lt_spin_stop;

static void lt_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&lt_spin_stop))
		;
}

/*
 * A thread alone on its core: a busy core accounts at its 1 ms tick, so
 * run time read from the figures alone lags by up to a tick. THREAD_INFO
 * adds the running stretch: over each of 10 intervals (2.3 ms apart, out
 * of step with the tick) the run time grows by the interval, within the
 * cost of the call. Without the stretch, most intervals are off by a
 * tick's fraction. Its core's busy time, read through the load area,
 * grows with it.
 */
#define LT_SAMPLES 10
#define LT_SLACK_US 300

static void runtime_body(struct ut *ut, struct ful_thread *th, unsigned cpu)
{
	struct ful_thread_args a = {.fn = lt_spin, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = cpu, .name = "lt_spin"};
	UT_CHECK_EQ(ful_thread_spawn(&a, th), 0);
	struct ful_thread_info i0, i1;
	UT_WAIT(ful_thread_info(th->slot, &i0) == 0 &&
		i0.state == FUL_TS_RUNNING && i0.cpu == cpu);
	unsigned long t0a = ful_counter();
	UT_CHECK_EQ(ful_thread_info(th->slot, &i0), 0);
	unsigned long t0b = ful_counter();
	for (unsigned k = 0; k < LT_SAMPLES; k++) {
		lt_pass(2300);
		unsigned long before = ful_counter();
		UT_CHECK_EQ(ful_thread_info(th->slot, &i1), 0);
		unsigned long after = ful_counter();
		/* Each call reads the run time somewhere inside its own
		 * [before, after] window. */
		long lo = (long)ful_ticks_to_us(before - t0b) - LT_SLACK_US;
		long hi = (long)ful_ticks_to_us(after - t0a) + LT_SLACK_US;
		long grew = (long)(i1.runtime_us - i0.runtime_us);
		if (grew < lo || grew > hi)
			ut_fail(ut, __FILE__, __LINE__,
				"sample %u: run time grew %ld us, expected "
				"%ld..%ld", k, grew, lo, hi);
	}
	struct ful_load_cpu c = lcpu(cpu);
	unsigned long busy, idle;
	ful_load_cpu_times(&c, ful_counter(), &busy, &idle);
	UT_CHECK(!c.idle_open);
	UT_CHECK(ful_ticks_to_us(busy) >= i1.runtime_us * 9 / 10);
}

UTEST(load_runtime_advances, 2)
{
	struct ful_thread th = {0};
	atomic_store(&lt_spin_stop, 0);
	runtime_body(ut, &th, ut_ncpus() - 1);
	atomic_store(&lt_spin_stop, 1);
	if (!ful_thread_reap(&th, UT_TIMEOUT_US))
		ut_fail(ut, __FILE__, __LINE__, "spinner did not end");
}

static _Atomic int ns_stop;

/* What each spinner ran, in counter ticks, counted by the spinner itself
 * between consecutive reads of the counter less than NS_GAP_US apart: a
 * longer gap is time it did not run (the other spinner's slice, or the
 * host stopping the vCPU), and is left out. */
static _Atomic unsigned long ns_ran[2];
#define NS_GAP_US 200

/** Spin until ns_stop, adding the time run to *@arg (one of ns_ran). */
static void ns_spin(void *arg)
{
	_Atomic unsigned long *ran = arg;
	unsigned long gap = ful_us_to_ticks(NS_GAP_US), last = ful_counter();
	while (!atomic_load(&ns_stop)) {
		unsigned long now = ful_counter();
		if (now - last < gap)
			atomic_fetch_add_explicit(ran, now - last,
						  memory_order_relaxed);
		last = now;
	}
}

/** What spinner @i has run so far, in microseconds. */
static unsigned long ns_ran_us(unsigned i)
{
	return ful_ticks_to_us(atomic_load_explicit(&ns_ran[i],
						   memory_order_relaxed));
}

/** One window of 600 ms that the two spinners ran together: does it
 *  show their weights (3.06 : 1, within the ticks' rounding)? Printed.
 *  The spinners' own count, not the kernel's run time, which is wall
 *  time: a host that stops the vCPU for hundreds of milliseconds charges
 *  them to whichever thread it stopped (one window of 800 ms gave
 *  8.38 : 1 with 16 vCPUs per QEMU). A stop here costs the current
 *  spinner at most the rest of its slice. */
static bool nice_share_window(struct ut *ut)
{
	unsigned long a0 = ns_ran_us(0), b0 = ns_ran_us(1);
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	while (ns_ran_us(0) + ns_ran_us(1) <= a0 + b0 + 600000) {
		if (ful_counter() > dl) {
			ut_fail(ut, __FILE__, __LINE__, "the spinners stopped");
			return false;
		}
		ful_yield();
	}
	unsigned long a = ns_ran_us(0) - a0, b = ns_ran_us(1) - b0;
	printf("load_nice_share: nice 0 ran %lu us, nice 5 %lu us (%lu.%02lu : 1; "
	       "weights 3.06 : 1, slices 10 and 3 ticks 3.33 : 1)\n", a, b,
	       a / (b | 1), a % (b | 1) * 100 / (b | 1));
	return a * 10 >= b * 22 && a * 10 <= b * 55;
}

/* Up to three windows, one of which must show the weights: equal
 * shares, 1 : 1, fail all three. */
#define NS_WINDOWS 3

static void nice_share_body(struct ut *ut, struct ful_thread *w)
{
	static const int nice[2] = {0, 5};
	for (unsigned i = 0; i < 2; i++) {
		struct ful_thread_args a = {.fn = ns_spin, .arg = &ns_ran[i],
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS, .prio = 100,
					    .cpu = 1, .slice_ms = 10,
					    .nice = nice[i], .name = "nshare"};
		UT_CHECK_EQ(ful_thread_spawn(&a, &w[i]), 0);
	}
	/* both have run a while (from here on, so that the start-up of
	 * the first one alone does not count) */
	UT_WAIT(ns_ran_us(0) > 50000 && ns_ran_us(1) > 20000);
	bool ok = false;
	for (unsigned k = 0; k < NS_WINDOWS && !ok && !ut->failed; k++)
		ok = nice_share_window(ut);
	if (!ut->failed)
		UT_CHECK(ok);
}

UTEST(load_nice_share, 2)
{
	static struct ful_thread w[2];
	memset(w, 0, sizeof(w));
	atomic_store(&ns_stop, 0);
	atomic_store(&ns_ran[0], 0);
	atomic_store(&ns_ran[1], 0);
	nice_share_body(ut, w);
	atomic_store(&ns_stop, 1);
	for (unsigned i = 0; i < 2; i++)
		ful_thread_reap(&w[i], UT_TIMEOUT_US);
}

/** A live kernel thread's tid from the load area, or 0. */
static unsigned sk_kernel_tid(void)
{
	for (unsigned i = 0; i < FUL_LOAD_THREADS; i++) {
		struct ful_load_thread r = lthread(i);
		if (r.tid && (r.flags & FUL_LT_KERNEL) &&
		    FUL_TID_SLOT(r.tid) == i)
			return r.tid;
	}
	return 0;
}

/*
 * SCHED_KILL (the shell's kill): a thread of this task blocked on one
 * core, another spinning on a second core, each killed by its tid with
 * the scheduling control and gone from the load area; a second kill
 * finds no thread; a kernel thread and the caller itself are refused.
 */
UTEST(sched_kill_by_tid, 2)
{
	static struct lw w[2];
	memset(w, 0, sizeof(w));
	unsigned x = ut_ncpus() - 1, y = ut_ncpus() > 2 ? 1 : 0;
	UT_CHECK_EQ(lw_start(&w[0], x, 10), 0);
	UT_CHECK_EQ(lw_start(&w[1], y, 10), 0);
	if (ut->failed)
		return;
	unsigned t0 = (unsigned)w[0].th.tid, t1 = (unsigned)w[1].th.tid;
	UT_WAIT(lthread(t0).state == FUL_TS_BLOCKED);
	ful_ntfn_signal((unsigned)w[1].ntfn, 1); /* w[1] spins on y */
	UT_WAIT(atomic_load(&w[1].spinning) == 1);
	UT_CHECK_EQ(ful_sched_kill(FUL_SLOT_SCHED, t0), 0);
	UT_CHECK_EQ(ful_sched_kill(FUL_SLOT_SCHED, t1), 0);
	UT_WAIT(ful_thread_dead(w[0].th.slot) && ful_thread_dead(w[1].th.slot));
	UT_CHECK(lthread(t0).tid != t0 && lthread(t1).tid != t1);
	UT_CHECK_EQ(ful_sched_kill(FUL_SLOT_SCHED, t0), -FUL_ENOTHREAD);
	/* A kernel thread exists when tracing drains its rings (suite
	 * schedkill2 boots with trace=sched): there it must be found. */
	char v[8];
	unsigned k = sk_kernel_tid();
	if (ut_bootarg("trace", v, sizeof v))
		UT_CHECK(k != 0);
	if (k)
		UT_CHECK_EQ(ful_sched_kill(FUL_SLOT_SCHED, k), -FUL_ESTATE);
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	UT_CHECK_EQ(ful_sched_kill(FUL_SLOT_SCHED, si.tid), -FUL_EINVAL);
	for (unsigned i = 0; i < 2; i++)
		lw_free(&w[i]);
}
