/*
 * Balancer events (FUL_SYS_LBE_BIND, FUL_SYS_LBE_ARM), the mechanism
 * alone, without a balancer:
 *   lbe_events  binding rules (one notification at a time, ESTATE for
 *               another, EINVAL for unknown kinds or offline cores, a
 *               deleted notification unbinds); each kind signalled once
 *               per arm with its own bit and counted in the load area's
 *               ev[] of the core where it happened: a thread started
 *               (create), a tick of a watched core with a thread running
 *               (busy, not counted while unwatched), a core leaving idle
 *               (wake, counted while bound for the cores of the last ARM,
 *               signalled only if armed)
 */
#include <stdatomic.h>
#include <string.h>

#include <stddef.h>

#include <ful/load.h>

#include "utest.h"

static _Atomic int lbe_stop;
static long lbe_nap; /* the napping thread's notification */

static void lbe_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&lbe_stop))
		;
}

/** Leaves idle every millisecond or so: asleep 1 ms, then back. */
static void lbe_napper(void *arg)
{
	(void)arg;
	while (!atomic_load(&lbe_stop)) {
		unsigned long bits;
		ful_ntfn_wait((unsigned)lbe_nap, &bits, 1000);
	}
}

static const volatile struct ful_load_ev *ev(unsigned c)
{
	return &ful_load_area()->ev[c];
}

static int spawn_on(struct ful_thread *th, void (*fn)(void *), unsigned cpu)
{
	struct ful_thread_args a = {.fn = fn, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = cpu, .slice_ms = 10, .name = "lbe"};
	return (int)ful_thread_spawn(&a, th);
}

/** Bits that arrive on @n within the test's timeout (0: none). */
static unsigned long wait_bits(unsigned n)
{
	unsigned long bits = 0;
	return ful_ntfn_wait(n, &bits, UT_TIMEOUT_US) == 0 ? bits : 0;
}

/** Bits pending on @n now (0: none). */
static unsigned long poll_bits(unsigned n)
{
	unsigned long bits = 0;
	ful_ntfn_poll(n, &bits);
	return bits;
}

/** Wait until core @c's record shows @ticks more scheduler ticks of time
 *  (its stamp moves at ticks while a thread runs there). */
static bool ticks_pass(unsigned c, unsigned ticks)
{
	struct ful_load_cpu r;
	ful_load_read_cpu(ful_load_area(), c, &r);
	unsigned long want = r.stamp + ticks * (ful_load_area()->hdr.counter_freq / 1000);
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	do {
		ful_yield();
		ful_load_read_cpu(ful_load_area(), c, &r);
		if (r.stamp >= want)
			return true;
	} while (ful_counter() < dl);
	return false;
}

static void lbe_body(struct ut *ut, unsigned n1, unsigned n2,
		     struct ful_thread *w)
{
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	unsigned long all = (1ul << si.ncpus) - 1, me = si.cpu, other = me ? 0 : 1;
	UT_CHECK_EQ(ful_load_area()->hdr.version, FUL_LOAD_VERSION);
	UT_CHECK_EQ(ful_load_area()->hdr.ev_offset,
		    offsetof(struct ful_load_page, ev));
	/* binding rules */
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, FUL_LBE_ALL, all, 0), -FUL_ESTATE);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, 1), -FUL_EINVAL);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, 0), -FUL_ESTATE);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, FUL_LBE_CREATE), 0);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n2, FUL_LBE_CREATE), -FUL_ESTATE);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n2, FUL_LBE_CREATE, all, 0), -FUL_ESTATE);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, FUL_LBE_CREATE, 1ul << si.ncpus, 0), -FUL_EINVAL);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, FUL_LBE_CREATE, all, 1ul << si.ncpus), -FUL_EINVAL);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, 0x800, all, 0), -FUL_EINVAL);
	/* create: one signal per arm, every start counted */
	unsigned long c0 = ev(me)->create, s0 = ev(me)->signals;
	UT_CHECK_EQ(spawn_on(&w[0], lbe_spin, other), 0);
	UT_CHECK_EQ(wait_bits(n1), FUL_LBE_CREATE);
	UT_CHECK_EQ(ev(me)->create, c0 + 1);
	UT_CHECK_EQ(ev(me)->signals, s0 + 1);
	UT_CHECK_EQ(spawn_on(&w[1], lbe_napper, other), 0);
	UT_CHECK_EQ(ev(me)->create, c0 + 2);
	UT_CHECK_EQ(poll_bits(n1), 0); /* not armed again */
	ful_thread_kill(w[1].slot);
	ful_thread_reap(&w[1], UT_TIMEOUT_US);
	/* busy: counted only while watched; then signalled */
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, FUL_LBE_BUSY), 0);
	UT_CHECK(ticks_pass(other, 3)); /* the spinner runs there */
	unsigned long b0 = ev(other)->busy;
	UT_CHECK(ticks_pass(other, 5));
	UT_CHECK_EQ(ev(other)->busy, b0);
	UT_CHECK_EQ(poll_bits(n1), 0);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, FUL_LBE_BUSY, 0, 1u << other), 0);
	UT_CHECK_EQ(wait_bits(n1), FUL_LBE_BUSY);
	UT_CHECK(ev(other)->busy > b0);
	atomic_store(&lbe_stop, 1);
	ful_thread_reap(&w[0], UT_TIMEOUT_US);
	atomic_store(&lbe_stop, 0);
	/* wake: counted while bound, for the cores of the last ARM (all
	 * after a bind), signalled only if the kind is armed */
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, FUL_LBE_CREATE), 0);
	poll_bits(n1);
	UT_CHECK_EQ(spawn_on(&w[1], lbe_napper, other), 0);
	UT_CHECK_EQ(wait_bits(n1), FUL_LBE_CREATE);
	unsigned long k0 = ev(other)->wake;
	UT_WAIT(ev(other)->wake > k0 + 3);
	UT_CHECK_EQ(poll_bits(n1), 0); /* WAKE not bound: counted only */
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, 0, 1u << me, 0), 0);
	k0 = ev(other)->wake;
	struct ful_load_cpu r0, r1;
	ful_load_read_cpu(ful_load_area(), other, &r0);
	UT_WAIT((ful_load_read_cpu(ful_load_area(), other, &r1),
		 r1.switches > r0.switches + 8));
	UT_CHECK_EQ(ev(other)->wake, k0); /* not in the cores: not counted */
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, FUL_LBE_WAKE), 0);
	UT_CHECK_EQ(wait_bits(n1), FUL_LBE_WAKE);
	UT_CHECK(ev(other)->wake > k0);
	/* unbind; a deleted notification unbinds itself */
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, 0), 0);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, n1, FUL_LBE_WAKE, all, 0), -FUL_ESTATE);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n2, FUL_LBE_ALL), 0);
	ful_cap_delete(n2);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, FUL_LBE_ALL), 0);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, n1, 0), 0);
}

UTEST(lbe_events, 2)
{
	static struct ful_thread w[2];
	memset(w, 0, sizeof(w));
	atomic_store(&lbe_stop, 0);
	long n1 = ut_ntfn_new(), n2 = ut_ntfn_new();
	lbe_nap = ut_ntfn_new();
	UT_CHECK(n1 > 0 && n2 > 0 && lbe_nap > 0);
	lbe_body(ut, (unsigned)n1, (unsigned)n2, w);
	ful_lbe_bind(FUL_SLOT_SCHED, (unsigned)n1, 0); /* after a failed check */
	atomic_store(&lbe_stop, 1);
	for (unsigned i = 0; i < 2; i++)
		if (w[i].slot)
			ful_thread_reap(&w[i], UT_TIMEOUT_US);
	ful_slot_drop((unsigned)n1);
	ful_slot_drop((unsigned)lbe_nap);
	ful_cap_delete((unsigned)n2); /* deleted already unless a check failed */
	ful_slot_free((unsigned)n2);
}

/* lbe_wake_preempts: W waits on the core, L arrives there. */
static struct {
	_Atomic int stop, w_ran, l_on_x, saw_w;
	_Atomic unsigned l_tid;
	unsigned x;
	long n;
} lw;

/** The published state of thread @tid. */
static unsigned lthread_state_of(unsigned tid)
{
	struct ful_load_thread t;
	ful_load_read_thread(ful_load_area(), FUL_TID_SLOT(tid), &t);
	return t.tid == tid ? t.state : FUL_TS_DEAD;
}

/** W, pinned to x above L: wait for the core's wake signal. */
static void lw_waiter(void *arg)
{
	(void)arg;
	unsigned long bits = 0;
	if (ful_ntfn_wait((unsigned)lw.n, &bits, UT_TIMEOUT_US) == 0 &&
	    (bits & FUL_LBE_WAKE))
		atomic_store(&lw.w_ran, 1);
}

/** L: spin (preempted by IRQs, never blocked) until it runs on x; then
 *  note whether W had run before it. */
static void lw_spinner(void *arg)
{
	(void)arg;
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	atomic_store(&lw.l_tid, si.tid);
	const volatile struct ful_load_cpu *x = &ful_load_area()->cpu[lw.x];
	while (!atomic_load(&lw.stop)) {
		if (!atomic_load(&lw.l_on_x) && x->running == si.tid) {
			atomic_store(&lw.saw_w, atomic_load(&lw.w_ran));
			atomic_store(&lw.l_on_x, 1);
		}
	}
}

/*
 * A core that leaves idle signals the balancer-event waiter; when that
 * waiter lives on the same core, the signal is raised in the switch's
 * flush (icc_flush_lbe), after the IRQ exit checked for a switch. L, a
 * thread preempted by an IRQ on y, is moved to idle x; x's wake signal
 * makes W (above L) ready there: W must run before L's first
 * instruction on x, not at x's next tick.
 */
UTEST(lbe_wake_preempts, 3)
{
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	unsigned me = si.cpu, x = (me + 1) % si.ncpus, y = (me + 2) % si.ncpus;
	memset(&lw, 0, sizeof(lw));
	lw.x = x;
	lw.n = ut_ntfn_new();
	UT_CHECK(lw.n > 0);
	static struct ful_thread w, l;
	memset(&w, 0, sizeof(w));
	memset(&l, 0, sizeof(l));
	struct ful_thread_args wa = {.fn = lw_waiter, .pool = FUL_SLOT_POOL,
				     .vs = FUL_SLOT_SELF_VS, .prio = 200,
				     .cpu = x, .name = "lbe-w"};
	struct ful_thread_args la = wa;
	la.fn = lw_spinner, la.prio = 100, la.cpu = y, la.name = "lbe-l";
	UT_CHECK_EQ(ful_thread_spawn(&wa, &w), 0);
	UT_CHECK_EQ(ful_thread_spawn(&la, &l), 0);
	UT_WAIT(lthread_state_of((unsigned)w.tid) == FUL_TS_BLOCKED &&
		atomic_load(&lw.l_tid) != 0);
	UT_CHECK_EQ(ful_lbe_bind(FUL_SLOT_SCHED, (unsigned)lw.n, FUL_LBE_WAKE), 0);
	UT_CHECK_EQ(ful_lbe_arm(FUL_SLOT_SCHED, (unsigned)lw.n, FUL_LBE_WAKE,
				1ul << x, 0), 0);
	struct ful_move mv = {.tid = atomic_load(&lw.l_tid), .cpu = x};
	UT_CHECK_EQ(ful_migrate(FUL_SLOT_SCHED, &mv, 1), 1);
	UT_WAIT(atomic_load(&lw.l_on_x));
	UT_WAIT(atomic_load(&lw.w_ran));
	UT_CHECK_EQ(atomic_load(&lw.saw_w), 1);
	ful_lbe_bind(FUL_SLOT_SCHED, (unsigned)lw.n, 0);
	atomic_store(&lw.stop, 1);
	ful_thread_reap(&w, UT_TIMEOUT_US);
	ful_thread_reap(&l, UT_TIMEOUT_US);
	ful_slot_drop((unsigned)lw.n);
}
