/*
 * Notification tests, and what deleting an IPC object does to its
 * waiters:
 *   ntfn_signal_wait  bits returned, accumulated (OR), polled and cleared;
 *                     timeouts
 *   ntfn_wake_cores   a waiter task on every core is woken by a signal
 *                     from this program and from a task on another core
 *   ntfn_badges       badged notification caps deliver their badge bits
 *   ipc_delete_wakes  deleting the last cap of a notification or an
 *                     endpoint wakes its waiters with -FUL_ECANCELED
 */
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "t_ipc.h"

#define NTFN_TMO_US 20000UL

/** Signal and wait in one task: the semantics of the bits. */
static void signal_wait_body(struct ut *ut, struct it_fix *f)
{
	long n = it_ntfn(f);
	unsigned long bits = 0xdead;
	IT_OK(n);
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, 0), -FUL_ETIMEOUT);
	UT_CHECK_EQ(ful_ntfn_poll((unsigned)n, &bits), 0);
	UT_CHECK_EQ(bits, 0);
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 0x5), 0);
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, IT_TMO), 0);
	UT_CHECK_EQ(bits, 0x5);
	/* Several signals before a wait: the bits accumulate. */
	static const unsigned long sigs[] = {0x1, 0x2, 0x100, 0x1, 1UL << 63};
	for (unsigned i = 0; i < 5; i++)
		UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, sigs[i]), 0);
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, IT_TMO), 0);
	UT_CHECK_EQ(bits, 0x103 | 1UL << 63);
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, 0), -FUL_ETIMEOUT);
	/* Poll takes and clears. */
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 0x40), 0);
	UT_CHECK_EQ(ful_ntfn_poll((unsigned)n, &bits), 0);
	UT_CHECK_EQ(bits, 0x40);
	UT_CHECK_EQ(ful_ntfn_poll((unsigned)n, &bits), 0);
	UT_CHECK_EQ(bits, 0);
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 0), -FUL_EINVAL); /* no bits */
	/* Timed waits: pending bits return at once, else after the timeout. */
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 0x8), 0);
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, NTFN_TMO_US), 0);
	UT_CHECK_EQ(bits, 0x8);
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, NTFN_TMO_US), -FUL_ETIMEOUT);
	unsigned long took = it_elapsed_us(t0);
	if (took < NTFN_TMO_US) {
		ut_fail(ut, __FILE__, __LINE__, "wait timed out after %lu us, "
			"asked for %lu us", took, NTFN_TMO_US);
		return;
	}
}

UTEST(ntfn_signal_wait, 1)
{
	IT_RUN(signal_wait_body);
}

/** A waiter task on @cpu, blocked on @n (READ copy). */
static struct ful_task *blocked_waiter(struct ut *ut, struct it_fix *f,
				       unsigned cpu, unsigned n,
				       unsigned long timeout)
{
	long err = 0;
	struct ful_task *t = it_peer(f, cpu, IT_ARG0(IT_NTFN_WAIT, 0), timeout,
				     n, FUL_R_READ, 0, &err);
	if (err < 0) {
		ut_fail(ut, __FILE__, __LINE__, "spawn: %ld", err);
		return NULL;
	}
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	while (it_state(t->thread) != FUL_TS_BLOCKED) {
		if (ful_counter() > dl) {
			ut_fail(ut, __FILE__, __LINE__, "waiter never blocked");
			return NULL;
		}
		ful_yield();
	}
	return t;
}

/** Check the IT_R_NTFN report of a waiter: woken with @bits on @cpu. */
static void waiter_woken(struct ut *ut, struct it_fix *f, unsigned long bits,
			 unsigned cpu)
{
	struct ful_msg m;
	IT_REPORT(f, &m, IT_R_NTFN);
	UT_CHECK_EQ(m.mr[0], 0);
	UT_CHECK_EQ(m.mr[1], bits);
	UT_CHECK_EQ(m.mr[2], cpu);
}

static void wake_cores_body(struct ut *ut, struct it_fix *f)
{
	long n = it_ntfn(f), err = 0;
	IT_OK(n);
	for (unsigned c = 0; c < ut_ncpus(); c++) {
		/* Woken by this program (core 0). */
		if (!blocked_waiter(ut, f, c, (unsigned)n, 0))
			return;
		UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 1UL << c), 0);
		waiter_woken(ut, f, 1UL << c, c);
		it_kill(&f->tasks[f->ntasks - 1]); /* done: free it now */
		if (ut->failed)
			return;
		/* Woken by a task on the next core, before its timeout. */
		if (!blocked_waiter(ut, f, c, (unsigned)n, 10000000))
			return;
		it_peer(f, it_core(c + 1), IT_ARG0(IT_SIGNAL, 0), 0x100UL << c,
			(unsigned)n, FUL_R_WRITE, 0, &err);
		IT_OK(err);
		struct ful_msg m;
		for (unsigned k = 0; k < 2; k++) { /* the signaller's and the waiter's */
			UT_CHECK_EQ(it_report(f, &m), 0);
			UT_CHECK_EQ(m.mr[0], 0);
			if (FUL_MSG_LABEL(m.info) == IT_R_NTFN) {
				UT_CHECK_EQ(m.mr[1], 0x100UL << c);
				UT_CHECK_EQ(m.mr[2], c);
			}
		}
		it_kill(&f->tasks[f->ntasks - 1]);
		it_kill(&f->tasks[f->ntasks - 2]);
	}
	/* A waiter that times out takes nothing: a later signal stays. */
	if (!blocked_waiter(ut, f, it_core(1), (unsigned)n, NTFN_TMO_US))
		return;
	struct ful_msg m;
	IT_REPORT(f, &m, IT_R_NTFN);
	UT_CHECK_EQ(m.mr[0], -FUL_ETIMEOUT);
	unsigned long bits;
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 0x20), 0);
	UT_CHECK_EQ(ful_ntfn_poll((unsigned)n, &bits), 0);
	UT_CHECK_EQ(bits, 0x20);
}

UTEST(ntfn_wake_cores, 1)
{
	IT_RUN(wake_cores_body);
}

static void badges_body(struct ut *ut, struct it_fix *f)
{
	long n = it_ntfn(f), b1 = it_slot(f), b2 = it_slot(f), err = 0;
	unsigned long bits;
	struct ful_msg m;
	IT_OK(n);
	IT_OK(b1);
	IT_OK(b2);
	static const unsigned long badge[3] = {0x100, 0x200, 0x4000};
	static const unsigned long sig[3] = {0x1, 0x2, 0};
	for (unsigned i = 0; i < 3; i++) {
		it_peer(f, it_core(i + 1), IT_ARG0(IT_SIGNAL, 0), sig[i],
			(unsigned)n, FUL_R_WRITE, badge[i], &err);
		IT_OK(err);
		IT_REPORT(f, &m, IT_R_DONE);
		UT_CHECK_EQ(m.mr[0], 0); /* bits 0 with a badge: the badge */
	}
	UT_CHECK_EQ(ful_ntfn_wait((unsigned)n, &bits, IT_TMO), 0);
	UT_CHECK_EQ(bits, 0x4303);
	/* Badged waiter-side copies work the same; no re-badging. */
	IT_OK(ful_cap_copy((unsigned)n, FUL_SLOT_SELF_VS, (unsigned)b1,
			   FUL_R_ALL, 0x10000));
	UT_CHECK_EQ(ful_cap_copy((unsigned)b1, FUL_SLOT_SELF_VS, (unsigned)b2,
				 FUL_R_ALL, 0x20000), -FUL_ESTATE);
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)b1, 0x1), 0);
	UT_CHECK_EQ(ful_ntfn_poll((unsigned)n, &bits), 0);
	UT_CHECK_EQ(bits, 0x10001);
}

UTEST(ntfn_badges, 1)
{
	IT_RUN(badges_body);
}

/* ---- deletion wakes waiters ---- */

enum { W_NTFN, W_RECV, W_SEND, W_CALL, W_KINDS };

struct waiter {
	unsigned slot, kind;
	long rc;
	unsigned long bits;
	atomic_int done;
};

/** A thread of this program blocked on w->slot in the way w->kind says. */
static void waiter_fn(void *arg)
{
	struct waiter *w = arg;
	struct ful_msg m = {.info = FUL_MSG(1, 0)};
	switch (w->kind) {
	case W_NTFN:
		w->rc = ful_ntfn_wait(w->slot, &w->bits, FUL_FOREVER);
		break;
	case W_RECV:
		w->rc = ful_recv(w->slot, &m, FUL_FOREVER);
		break;
	case W_SEND:
		w->rc = ful_send(w->slot, &m, FUL_FOREVER);
		break;
	default:
		w->rc = ful_call(w->slot, &m, FUL_FOREVER);
	}
	atomic_store(&w->done, 1);
}

/** Start waiter_fn(@w) on @cpu and wait until it is blocked. */
static void waiter_start(struct ut *ut, struct waiter *w, unsigned cpu,
			 struct ful_thread *th)
{
	struct ful_thread_args a = {.fn = waiter_fn, .arg = w,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = cpu, .name = "t-waiter"};
	atomic_store(&w->done, 0);
	IT_OK(ful_thread_spawn(&a, th));
	UT_WAIT(it_state(th->slot) == FUL_TS_BLOCKED || atomic_load(&w->done));
}

/** Wait for the waiter thread to end and free it (kill it on failure). */
static void waiter_reap(struct ut *ut, struct ful_thread *th)
{
	if (ut->failed)
		ful_thread_kill(th->slot);
	UT_WAIT(ful_thread_dead(th->slot));
	ful_thread_reap(th, UT_TIMEOUT_US);
}

/** One waiter of @kind: deleting a copy keeps it waiting (for a
 *  notification, a signal through the other copy still reaches it);
 *  deleting the last cap wakes it with ECANCELED. */
static void delete_one(struct ut *ut, unsigned kind)
{
	long obj = kind == W_NTFN ? ut_ntfn_new() : ut_ep_new();
	long copy = ful_slot_alloc();
	struct waiter w = {.kind = kind};
	struct ful_thread th;
	IT_OK(obj);
	IT_OK(copy);
	IT_OK(ful_cap_copy((unsigned)obj, FUL_SLOT_SELF_VS, (unsigned)copy,
			   FUL_R_ALL, 0));
	w.slot = (unsigned)copy;
	if (kind == W_NTFN) {
		waiter_start(ut, &w, it_core(1), &th);
		if (!ut->failed) {
			UT_CHECK_EQ(ful_cap_delete((unsigned)obj), 0);
			UT_CHECK_EQ(ful_ntfn_signal((unsigned)copy, 0x2), 0);
			UT_WAIT(atomic_load(&w.done));
			UT_CHECK_EQ(w.rc, 0);
			UT_CHECK_EQ(w.bits, 0x2);
		}
		waiter_reap(ut, &th);
		if (ut->failed)
			return;
		ful_slot_free((unsigned)obj);
		obj = copy;
	}
	waiter_start(ut, &w, it_core(1), &th);
	if (!ut->failed) {
		UT_CHECK(!atomic_load(&w.done));
		if (obj != copy)
			UT_CHECK_EQ(ful_cap_delete((unsigned)obj), 0);
		UT_CHECK_EQ(ful_cap_delete((unsigned)copy), 0); /* the last */
		UT_WAIT(atomic_load(&w.done));
		UT_CHECK_EQ(w.rc, -FUL_ECANCELED);
	}
	waiter_reap(ut, &th);
	ful_slot_free((unsigned)copy);
	if (obj != copy)
		ful_slot_free((unsigned)obj);
}

UTEST(ipc_delete_wakes, 1)
{
	static const char *const names[W_KINDS] = {"ntfn wait", "recv",
						   "send", "call"};
	for (unsigned k = 0; k < W_KINDS; k++) {
		delete_one(ut, k);
		if (ut->failed) {
			char why[sizeof ut->why];
			memcpy(why, ut->why, sizeof why);
			snprintf(ut->why, sizeof ut->why, "%s: %.180s", names[k], why);
			return;
		}
	}
}
