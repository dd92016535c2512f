/*
 * The balancer demo (part of `make run`): paper 000's Table I replayed
 * live on cores 1..3 with the mginkgo policy, each decision printed as a
 * sentence, then the decision log as the JSON lines the tests read.
 * Needs 4 cores; the lb_table_i test asserts the same sequence.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "../balancer/balancer.h"
#include "root.h"

#define DL_WORK 6

static _Atomic int dl_stop;
static struct ful_thread dl_w[DL_WORK];

static void dl_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&dl_stop))
		;
}

static unsigned long dl_load(unsigned cpu)
{
	struct ful_load_cpu c;
	ful_load_read_cpu(ful_load_area(), cpu, &c);
	return c.load;
}

static void dl_print_loads(void)
{
	printf("loads cpu1..3: %lu %lu %lu\n", dl_load(1), dl_load(2),
	       dl_load(3));
}

/** The worker name of @tid, for the sentences. */
static const char *dl_name(unsigned tid)
{
	static const char *const names[DL_WORK] = {"work1", "work2", "work3",
						   "work4", "work5", "work6"};
	for (unsigned i = 0; i < DL_WORK; i++)
		if (dl_w[i].tid == (long)tid)
			return names[i];
	return "?";
}

/** Wait (bounded) until @cond holds; false on timeout. */
#define DL_WAIT(cond)                                                     \
	({                                                                \
		unsigned long dl_ = ful_counter() +                       \
				    ful_us_to_ticks(ROOT_TIMEOUT_US);        \
		while (!(cond) && ful_counter() < dl_)                    \
			ful_yield();                                      \
		(bool)(cond);                                             \
	})

/** One demand rebalance, told as a sentence. */
static void dl_rebalance(void)
{
	unsigned long seq = bal_log_next();
	bal_rebalance(LB_TRIG_DEMAND);
	const struct lb_decision *d = lb_log_get(bal_log(), seq);
	if (!d)
		return;
	printf("  rebalance: A = %lu.%02lu, heavy above %lu.%02lu, light below "
	       "%lu.%02lu; ", lb_avg100(d) / 100, lb_avg100(d) % 100,
	       lb_hi100(d) / 100, lb_hi100(d) % 100, lb_lo100(d) / 100,
	       lb_lo100(d) % 100);
	if (!d->nmoves) {
		printf("no move (%s)\n", lb_reason_name(d->reason));
		return;
	}
	const struct lb_dmove *m = &d->move[0];
	printf("cpu%u %s, cpu%u %s:\n    move %s (slice %u ms) cpu%u -> cpu%u, "
	       "predicted %lu / %lu\n", m->from,
	       lb_state_name(lb_state(d, m->from)), m->to,
	       lb_state_name(lb_state(d, m->to)), dl_name(m->tid), m->slice,
	       m->from, m->to, m->from_after, m->to_after);
}

/** Place and start the six workers of Table I; false on an error. */
static bool dl_place_all(void)
{
	static const unsigned slice[DL_WORK] = {100, 50, 50, 50, 50, 50};
	for (unsigned i = 0; i < DL_WORK; i++) {
		struct ful_thread_args a = {.fn = dl_spin, .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS, .prio = 100,
					    .slice_ms = slice[i], .name = "work"};
		int err = bal_thread_spawn(&a, &dl_w[i]);
		if (err) {
			printf("  spawn of work%u: error %d\n", i + 1, err);
			return false;
		}
		const struct lb_decision *d =
			lb_log_get(bal_log(), bal_log_next() - 1);
		printf("  work%u, slice %3u ms -> cpu%u   ", i + 1, slice[i],
		       d ? d->move[0].to : LB_NO_CPU);
		dl_print_loads();
	}
	return true;
}

/** Stop the workers that were started and free what they used. */
static void dl_stop_all(void)
{
	atomic_store(&dl_stop, 1);
	for (unsigned i = 0; i < DL_WORK; i++)
		ful_thread_reap(&dl_w[i], ROOT_TIMEOUT_US);
}

int root_demo_balancer(void)
{
	if (ful_bootinfo()->ncpus < 4) {
		printf("rootserver: balancer demo needs 4 cores (make run CPUS=4)\n");
		return 0;
	}
	printf("rootserver: balancer demo, paper 000 Table I (policy mginkgo, "
	       "rootserver on cpu0, T = 20 %%)\n");
	atomic_store(&dl_stop, 0);
	int bad = bal_init("mginkgo") != 0 ||
		  !DL_WAIT(dl_load(1) + dl_load(2) + dl_load(3) == 0);
	unsigned long first = bal_log_next();
	if (!bad && (bad = !dl_place_all()) == 0) {
		ful_thread_kill(dl_w[2].slot);
		bad = !DL_WAIT(dl_load(3) == 50);
		printf("  work3 ends                  ");
		dl_print_loads();
		dl_rebalance();
		bad |= !DL_WAIT(dl_load(1) == 100 && dl_load(3) == 100);
		printf("  after the move              ");
		dl_print_loads();
		dl_rebalance();
		printf("  the decision log, as JSON lines:\n");
		bal_log_dump(first);
	}
	dl_stop_all();
	printf("rootserver: balancer demo %s\n", bad ? "FAILED" : "done");
	return bad;
}

/** The system balancer with policy @name, from boot argument lb_policy=
 *  (after the demo, whose own rounds used mginkgo): its thread runs the
 *  timer rounds from now on. */
void root_balancer_start(const char *name)
{
	int err = bal_init(name);
	if (err) {
		printf("DEMO-FAIL lb-policy-%s :: no such policy (mginkgo, "
		       "fulcrum, alb, count, opzone)\n", name);
		return;
	}
	err = bal_start();
	if (err) {
		printf("DEMO-FAIL lb-policy-%s :: balancer thread: %d\n", name,
		       err);
		return;
	}
	printf("DEMO-OK lb-policy-%s: the balancer runs %s (placement on "
	       "create, timer rounds)\n", name, name);
}
