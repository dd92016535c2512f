/*
 * lb_set_in_flight: THREAD_SET(SLICE) of a thread just moved while it
 * runs. FUL_SYS_MIGRATE returns once the old core has marked the thread
 * MIGRATING and handed its ownership to the new core, but the old core
 * still counts the thread (slice, weight) until it switches it out.
 * A slice change aimed at the new owner in that window must leave
 * every core's sums exact: checked by the "loadcheck" tick of the user
 * suites, and here by every core's figures returning to where they were.
 */
#include <stdatomic.h>
#include <string.h>

#include <fulcrum/bootinfo.h>
#include <ful/load.h>

#include "utest.h"

#define IF_ROUNDS 300

static _Atomic int if_stop;

static void if_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&if_stop))
		;
}

static bool if_back(const struct ful_load_cpu *base, unsigned n)
{
	for (unsigned c = 0; c < n; c++) {
		struct ful_load_cpu r;
		ful_load_read_cpu(ful_load_area(), c, &r);
		if (r.load != base[c].load || r.nrunnable != base[c].nrunnable ||
		    r.weight != base[c].weight)
			return false;
	}
	return true;
}

/** Move the spinner between two cores, re-slicing it right after each
 *  move; every call must succeed (or ask to be retried). */
static void if_body(struct ut *ut, struct ful_thread *th)
{
	unsigned a = 1, b = 2; /* not ours: the spinner must run alone */
	struct ful_thread_args args = {.fn = if_spin, .pool = FUL_SLOT_POOL,
				       .vs = FUL_SLOT_SELF_VS, .prio = 100,
				       .cpu = a, .slice_ms = 5,
				       .name = "inflight"};
	UT_CHECK_EQ(ful_thread_spawn(&args, th), 0);
	for (unsigned k = 0; k < IF_ROUNDS; k++) {
		struct ful_move mv = {(unsigned)th->tid, k & 1 ? a : b, 99, 0};
		long done = ful_migrate(FUL_SLOT_SCHED, &mv, 1);
		UT_CHECK(done == 1 || mv.result == FUL_MOVE_ALREADY ||
			 mv.result == -FUL_EAGAIN);
		long rc = ful_thread_set(FUL_SLOT_SCHED, (unsigned)th->tid,
					 FUL_TA_SLICE, 1 + k % 7);
		UT_CHECK(rc == 0 || rc == -FUL_EAGAIN);
	}
}

UTEST(lb_set_in_flight, 3)
{
	struct ful_load_cpu base[FUL_LOAD_CPUS];
	unsigned n = ut_ncpus();
	for (unsigned c = 0; c < n; c++)
		ful_load_read_cpu(ful_load_area(), c, &base[c]);
	static struct ful_thread th;
	memset(&th, 0, sizeof(th));
	atomic_store(&if_stop, 0);
	if_body(ut, &th);
	atomic_store(&if_stop, 1);
	if (th.tid > 0) {
		UT_WAIT(ful_thread_dead(th.slot));
		ful_thread_reap(&th, UT_TIMEOUT_US);
	}
	UT_WAIT(if_back(base, n));
}
