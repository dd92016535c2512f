/*
 * The balancer in the running system:
 *   lb_table_i  Table I of paper 000, exactly: six threads created from
 *               core 0 with slices 100, 50, 50, 50, 50, 50 ms are placed
 *               on CPU1, 2, 3, 2, 3, 1; work3 is killed; the next
 *               rebalance moves work6 from CPU1 to CPU3; a second one
 *               moves nothing. Asserted from the decision log and from
 *               where the threads really are (load area, THREAD_INFO).
 *   lb_timer    the balancer thread's periodic round finds an imbalance
 *               made behind its back and fixes it (trigger "timer")
 *   lb_opzone   paper 004's policy on the live utilization windows: a
 *               thread spinning alone on core 1 (above the mid spot)
 *               moves to an idle core on trigger "busiest"; the blind
 *               timer is declined
 *   lb_opzone_events  the same policy run by the balancer thread alone,
 *               on the kernel's events (FUL_SYS_LBE_*), in a situation
 *               like paper 004's Figure 4: core 1 busy (a spinner),
 *               core 3 about half busy (a thread that spins and sleeps),
 *               core 2 idle; a kernel event (a core waking from idle,
 *               or a tick of the watched busiest core) opens a round
 *               that moves the spinner from core 1 to core 2, with no
 *               timer round and no call of bal_rebalance
 * Each runs its own instance of the balancer (user/balancer) in this
 * task, over threads of this task. (The demo of `make run` is checked by
 * the expect suite demo4 of `make test`.)
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/bootinfo.h>
#include <fulcrum/loadwin.h>

#include "user/balancer/balancer.h"
#include "utest.h"

#define NWORK 6

static _Atomic int lb_stop;

static void spin_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&lb_stop))
		;
}

static struct ful_load_thread rec(long tid)
{
	struct ful_load_thread t;
	ful_load_read_thread(ful_load_area(), FUL_TID_SLOT((unsigned)tid), &t);
	return t;
}

static unsigned long core_load(unsigned cpu)
{
	struct ful_load_cpu c;
	ful_load_read_cpu(ful_load_area(), cpu, &c);
	return c.load;
}

static int spawn_worker(struct ful_thread *th, unsigned slice, const char *name)
{
	struct ful_thread_args a = {.fn = spin_main, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .slice_ms = slice, .name = name};
	return bal_thread_spawn(&a, th);
}

static void stop_workers(struct ful_thread *w, unsigned n)
{
	atomic_store(&lb_stop, 1);
	for (unsigned i = 0; i < n; i++)
		ful_thread_reap(&w[i], UT_TIMEOUT_US);
}

static void table_i_body(struct ut *ut, struct ful_thread *w)
{
	static const unsigned slice[NWORK] = {100, 50, 50, 50, 50, 50};
	static const unsigned where[NWORK] = {1, 2, 3, 2, 3, 1};
	static const char *const names[NWORK] = {"work1", "work2", "work3",
						  "work4", "work5", "work6"};
	UT_CHECK_EQ(bal_init("mginkgo"), 0);
	/* Table I starts from idle cores: threads of earlier tests may
	 * still be on their way out. */
	UT_WAIT(core_load(1) == 0 && core_load(2) == 0 && core_load(3) == 0);
	unsigned long first = bal_log_next();
	for (unsigned i = 0; i < NWORK; i++) {
		UT_CHECK_EQ(spawn_worker(&w[i], slice[i], names[i]), 0);
		const struct lb_decision *d = lb_log_get(bal_log(), first + i);
		UT_CHECK(d && d->kind == LB_KIND_PLACE && d->nmoves == 1);
		UT_CHECK_EQ(d->move[0].to, where[i]);
		UT_CHECK_EQ(rec(w[i].tid).cpu, where[i]);
	}
	UT_CHECK_EQ(core_load(1), 150);
	UT_CHECK_EQ(core_load(2), 100);
	UT_CHECK_EQ(core_load(3), 100);
	/* work3 ends: CPU3 drops to 50 (heavy CPU1 150, light CPU3 50). */
	UT_CHECK_EQ(ful_thread_kill(w[2].slot), 0);
	UT_WAIT(core_load(3) == 50);
	unsigned long r1 = bal_log_next();
	UT_CHECK_EQ(bal_rebalance(LB_TRIG_DEMAND), 1);
	const struct lb_decision *d = lb_log_get(bal_log(), r1);
	UT_CHECK(d && d->kind == LB_KIND_REBALANCE && d->nmoves == 1);
	UT_CHECK_EQ(d->reason, LB_R_MOVED);
	UT_CHECK_EQ(d->move[0].tid, (unsigned)w[5].tid);
	UT_CHECK_EQ(d->move[0].from, 1);
	UT_CHECK_EQ(d->move[0].to, 3);
	UT_CHECK_EQ(d->move[0].from_after, 100);
	UT_CHECK_EQ(d->move[0].to_after, 100);
	UT_CHECK_EQ(lb_state(d, 1), LB_ST_HEAVY);
	UT_CHECK_EQ(lb_state(d, 3), LB_ST_LIGHT);
	/* The round returned only once the move had landed: work6 is on
	 * CPU3 and counted there, not in flight. */
	UT_CHECK_EQ(rec(w[5].tid).cpu, 3);
	UT_CHECK(rec(w[5].tid).state != FUL_TS_MIGRATING);
	UT_CHECK_EQ(core_load(3), 100);
	UT_CHECK_EQ(core_load(1), 100);
	struct ful_thread_info info;
	UT_CHECK_EQ(ful_thread_info(w[5].slot, &info), 0);
	UT_CHECK_EQ(info.cpu, 3);
	/* Balanced: the second round moves nothing. */
	unsigned long r2 = bal_log_next();
	UT_CHECK_EQ(bal_rebalance(LB_TRIG_DEMAND), 0);
	d = lb_log_get(bal_log(), r2);
	UT_CHECK(d && d->nmoves == 0);
	UT_CHECK_EQ(d->reason, LB_R_BALANCED);
	bal_log_dump(first);
}

UTEST(lb_table_i, 4)
{
	UT_EXACT_CPUS(4);
	static struct ful_thread w[NWORK];
	memset(w, 0, sizeof(w));
	atomic_store(&lb_stop, 0);
	table_i_body(ut, w);
	stop_workers(w, NWORK); /* also after a failed check */
}

/** Three threads made on core 1 behind the balancer's back; the timer
 *  rounds alone must spread them, one move per round (mginkgo). */
static void timer_body(struct ut *ut, struct ful_thread *w)
{
	UT_CHECK_EQ(bal_init("mginkgo"), 0);
	UT_CHECK_EQ(bal_tune("period_ms", 10), 0);
	for (unsigned i = 0; i < 3; i++) {
		struct ful_thread_args a = {.fn = spin_main, .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS, .prio = 100,
					    .cpu = 1, .slice_ms = 30, .name = "lbt"};
		UT_CHECK_EQ(ful_thread_spawn(&a, &w[i]), 0);
	}
	/* A spawn returns before a thread made for another core arrives
	 * there: wait until core 1 counts all three. */
	UT_WAIT(core_load(1) == 90);
	unsigned long moves0 = bal_moves(LB_TRIG_TIMER);
	unsigned long demand0 = bal_moves(LB_TRIG_DEMAND);
	unsigned long first = bal_log_next();
	UT_CHECK_EQ(bal_start(), 0);
	/* (90, 0, 0) -> (60, 30, 0) -> (30, 30, 30), then balanced. */
	UT_WAIT(core_load(1) == 30 && core_load(2) == 30 && core_load(3) == 30);
	bal_stop();
	UT_CHECK(bal_rounds() > 0);
	/* Two moves, no more: a round waits for its moves to land, so the
	 * next one never sees a thread in flight (counted nowhere). */
	UT_CHECK_EQ(bal_moves(LB_TRIG_TIMER) - moves0, 2);
	UT_CHECK_EQ(bal_moves(LB_TRIG_DEMAND), demand0);
	/* The first record of the run is the first move, by the timer. */
	const struct lb_decision *d = lb_log_get(bal_log(), first);
	UT_CHECK(d != NULL);
	UT_CHECK_EQ(d->trigger, LB_TRIG_TIMER);
	UT_CHECK_EQ(d->nmoves, 1);
	UT_CHECK_EQ(d->move[0].from, 1);
	UT_CHECK_EQ(d->move[0].to, 2);
}

UTEST(lb_timer, 4)
{
	static struct ful_thread w[3];
	memset(w, 0, sizeof(w));
	atomic_store(&lb_stop, 0);
	timer_body(ut, w);
	bal_stop(); /* also on a failed check: no round outlives the test */
	stop_workers(w, 3);
}

/** Core @cpu's utilization over the short sliding window now, permille
 *  (what the policies read). */
static unsigned util_now(unsigned cpu)
{
	struct ful_win_par par;
	struct ful_load_cpu c;
	unsigned pm;
	ful_load_util_par(ful_load_area(), &par);
	ful_load_read_cpu(ful_load_area(), cpu, &c);
	ful_util_cpu(&c, &par, ful_counter(), &pm, NULL);
	return pm;
}

/** Thread @tid's run time in its last whole window, permille of the
 *  window: below opzone's spot, it is no candidate (a thread that
 *  started late in a window on a core busy before it). */
static unsigned task_last_pm(long tid)
{
	struct ful_win_par par;
	struct ful_load_thread t = rec(tid);
	unsigned long cur, last;
	ful_load_util_par(ful_load_area(), &par);
	ful_util_thread(&t, &par, ful_counter(), &cur, &last);
	return par.win ? (unsigned)(last * 1000 / par.win) : 0;
}

/** Core @cpu's util_now word's figure, 0 if it has none: what opzone
 *  reads for a busy core (the figure at its last tick, load area
 *  version 6). */
static unsigned util_tick(unsigned cpu)
{
	unsigned w = FUL_LOAD_RLX(&ful_load_area()->cpu[cpu].util_now);
	return w & FUL_UTIL_NOW_OK ? FUL_UTIL_NOW_PM(w) : 0;
}

/** One real opzone decision: a spinner alone on core 1, cores 2 and 3
 *  idle; the busiest core's task goes to the least utilized one. */
static void opzone_body(struct ut *ut, struct ful_thread *w)
{
	struct ful_thread_args a = {.fn = spin_main, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = 1, .slice_ms = 10, .name = "ozspin"};
	UT_CHECK_EQ(ful_thread_spawn(&a, w), 0);
	/* a whole window busy on core 1, the others idle (cores 2 and 3
	 * may have been idle since boot: load_cpu_start); core 1's figure
	 * as of its last tick too, which opzone reads (it only rises while
	 * the spinner runs) */
	UT_WAIT(util_now(1) > 900 && util_tick(1) > 900 && util_now(2) < 100 &&
		util_now(3) < 100 && task_last_pm(w->tid) > 900);
	printf("lb_opzone: utilization %u %u %u %u permille\n", util_now(0),
	       util_now(1), util_now(2), util_now(3));
	UT_CHECK_EQ(bal_init("opzone"), 0);
	unsigned long first = bal_log_next();
	UT_CHECK_EQ(bal_rebalance(LB_TRIG_TIMER), 0);
	const struct lb_decision *d = lb_log_get(bal_log(), first);
	UT_CHECK(d && d->has_util);
	UT_CHECK_EQ(d->reason, LB_R_TIMER_DECLINED);
	UT_CHECK(d->ut.util[1] > 900);
	unsigned moved = bal_rebalance(LB_TRIG_BUSIEST);
	bal_log_dump(first); /* both decisions, whatever they were */
	UT_CHECK_EQ(moved, 1);
	d = lb_log_get(bal_log(), first + 1);
	UT_CHECK(d && d->has_util && d->nmoves == 1);
	UT_CHECK_EQ(d->reason, LB_R_MOVED);
	UT_CHECK_EQ(d->trigger, LB_TRIG_BUSIEST);
	UT_CHECK_EQ(d->move[0].tid, (unsigned)w->tid);
	UT_CHECK_EQ(d->move[0].from, 1);
	unsigned to = d->move[0].to;
	UT_CHECK(to == 2 || to == 3);
	UT_CHECK(d->ut.util[to] <= d->ut.util[5 - to]); /* the least */
	UT_CHECK(d->ut.figure > d->ut.bound);
	UT_CHECK_EQ(d->ut.tid, (unsigned)w->tid);
	UT_CHECK(d->ut.task_util > 500); /* above the mid spot */
	/* the round returned once the move had landed */
	UT_CHECK_EQ(rec(w->tid).cpu, to);
}

UTEST(lb_opzone, 4)
{
	UT_EXACT_CPUS(4);
	static struct ful_thread w[1];
	memset(w, 0, sizeof(w));
	atomic_store(&lb_stop, 0);
	opzone_body(ut, &w[0]);
	stop_workers(w, 1);
}

static long oz_sleeper; /* the half-busy thread's notification */

/** Busy for about @ms... then asleep as long, until lb_stop: a core
 *  about half utilized that leaves idle every period (FUL_LBE_WAKE). */
static void half_main(void *arg)
{
	unsigned long ms = (unsigned long)arg;
	while (!atomic_load(&lb_stop)) {
		unsigned long end = ful_counter() + ful_us_to_ticks(ms * 1000);
		while (ful_counter() < end && !atomic_load(&lb_stop))
			;
		unsigned long bits;
		ful_ntfn_wait((unsigned)oz_sleeper, &bits, ms * 1000);
	}
}

/** Sum of the kernel's event signals over the cores. */
static unsigned long ev_signals(void)
{
	unsigned long n = 0;
	for (unsigned c = 0; c < FUL_LOAD_CPUS; c++)
		n += FUL_LOAD_RLX(&ful_load_area()->ev[c].signals);
	return n;
}

static void opzone_events_body(struct ut *ut, struct ful_thread *w)
{
	struct ful_thread_args a = {.fn = spin_main, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = 1, .slice_ms = 10, .name = "ozhog"};
	UT_CHECK_EQ(ful_thread_spawn(&a, &w[0]), 0);
	a.fn = half_main;
	a.arg = (void *)10ul;
	a.cpu = 3;
	a.name = "ozhalf";
	UT_CHECK_EQ(ful_thread_spawn(&a, &w[1]), 0);
	/* Figure 4's shape: core 1 above the mid spot, core 3 about half,
	 * core 2 the least utilized (bounds wide: TCG stretches time) */
	UT_WAIT(util_now(1) > 850 && util_now(2) < 150 && util_now(3) > 200 &&
		util_now(3) < 850);
	printf("lb_opzone_events: utilization %u %u %u %u permille\n",
	       util_now(0), util_now(1), util_now(2), util_now(3));
	UT_CHECK_EQ(bal_init("opzone"), 0);
	unsigned long first = bal_log_next(), sig0 = ev_signals();
	unsigned long timer0 = bal_moves(LB_TRIG_TIMER);
	unsigned long evr0 = bal_event_rounds();
	UT_CHECK_EQ(bal_start(), 0);
	/* the spinner leaves core 1, by an event: to core 2, the least
	 * utilized, unless a host stall made core 3 look less for a round */
	UT_WAIT(rec(w[0].tid).cpu != 1 && rec(w[0].tid).state != FUL_TS_MIGRATING);
	bal_stop();
	UT_CHECK(ev_signals() > sig0);
	UT_CHECK(bal_event_rounds() > evr0);
	UT_CHECK_EQ(bal_moves(LB_TRIG_TIMER), timer0);
	/* The move of the spinner: by an event, 1 -> 2. A loaded host may
	 * see more rounds before it than the log's ring keeps (LB_LOG_SIZE;
	 * records that repeat the one before are not kept, but the
	 * utilization moves from round to round): the oldest are gone
	 * then, and none of them moved by the timer (above). A host that
	 * stops the half-busy thread's vCPU can make its core look the
	 * busiest for a round: a move of it first is taken if its own
	 * figures name its core the busiest. */
	const struct lb_decision *d = NULL;
	unsigned long end = bal_log_next();
	unsigned long from = end - first > LB_LOG_SIZE ? end - LB_LOG_SIZE : first;
	for (unsigned long q = from; q < end; q++) {
		d = lb_log_get(bal_log(), q);
		UT_CHECK(d != NULL);
		UT_CHECK(d->trigger != LB_TRIG_TIMER);
		if (d->nmoves && d->move[0].tid == (unsigned)w[0].tid)
			break;
		if (d->nmoves)
			UT_CHECK_EQ(d->ut.busiest, d->move[0].from);
		d = NULL;
	}
	UT_CHECK(d && d->nmoves == 1);
	UT_CHECK(d->trigger == LB_TRIG_WAKE || d->trigger == LB_TRIG_BUSIEST ||
		 d->trigger == LB_TRIG_CREATE);
	UT_CHECK_EQ(d->reason, LB_R_MOVED);
	UT_CHECK_EQ(d->move[0].tid, (unsigned)w[0].tid);
	UT_CHECK_EQ(d->move[0].from, 1);
	unsigned to = d->move[0].to;
	UT_CHECK(to == 2 || to == 3);
	UT_CHECK(d->ut.util[to] <= d->ut.util[5 - to]); /* the least */
	UT_CHECK_EQ(d->ut.busiest, 1);
	UT_CHECK(d->ut.figure > d->ut.bound);
	bal_log_dump(first);
}

UTEST(lb_opzone_events, 4)
{
	UT_EXACT_CPUS(4);
	static struct ful_thread w[2];
	memset(w, 0, sizeof(w));
	atomic_store(&lb_stop, 0);
	oz_sleeper = ut_ntfn_new();
	UT_CHECK(oz_sleeper > 0);
	opzone_events_body(ut, w);
	bal_stop(); /* also on a failed check */
	stop_workers(w, 2);
	ful_slot_drop((unsigned)oz_sleeper);
}
