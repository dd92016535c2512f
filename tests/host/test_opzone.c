/* Host tests of the opzone policy (paper 004): zones and spots at every
 * boundary, per-CPU and averaged figures, the Figure 4 case, the task
 * scores (prize / punish), triggers, tunables, the decision log. */
#define HTEST_MAIN
#include "host_test.h"

#include <string.h>

#include "lb.h"
#include "lb_fake.h"

static struct ful_load_page area;
static struct lb_snap snap;
static struct lb_policy pol;
static struct lb_decision dec;
static struct ful_move mv[LB_MAX_MOVES];
static char json[LB_JSON_MAX];

#define W 6250000ul        /* 100 ms at the fake area's 62.5 MHz */
#define SEC (10 * W)
#define T0 (1000 * W)      /* the start of window 1000 */

static unsigned long now = T0;

/* Checks in helpers (the CHECK macros return from a test function):
 * the first failed line, checked at the end of every test. */
static int helper_bad;
#define HCHECK(c)                                                          \
	do {                                                               \
		if (!(c) && !helper_bad)                                   \
			helper_bad = __LINE__;                             \
	} while (0)
#define HCHECK_EQ(a, b) HCHECK((long long)(a) == (long long)(b))
#define OZTEST(name)                                                       \
	static void oz_##name(struct htest_ctx *htest_ctx_);               \
	HTEST(name)                                                        \
	{                                                                  \
		helper_bad = 0;                                            \
		oz_##name(htest_ctx_);                                     \
		CHECK_EQ(helper_bad, 0);                                   \
	}                                                                  \
	static void oz_##name(                                             \
		struct htest_ctx *htest_ctx_ __attribute__((unused)))

/** @ncpus cores, every one eligible (paper 004 counts all CPUs). */
static void setup(unsigned ncpus)
{
	lb_fake_init(&area, ncpus);
	lb_fake_util_par(&area, 0, W, 0);
	lb_snap_init(&snap, &area, 0);
	HCHECK_EQ(lb_policy_init(&pol, "opzone"), 0);
	HCHECK_EQ(lb_tunable_set(&pol, "include_root", 1), 0);
	memset(&dec, 0, sizeof(dec));
	now = T0;
}

/** Core @c's short sliding figure at `now` (a window start) is @pm. */
static void cpu_util(unsigned c, unsigned pm)
{
	lb_fake_cpu_util(&area, c, now, 0, 0, 0, pm, pm);
}

/** Thread @tid on @c used @pm of the last window; runtime grows by
 *  @run ticks first (what it ran since the last look). */
static void task(unsigned tid, unsigned c, unsigned pm, unsigned long run)
{
	if (!lb_fake_thread(&area, tid))
		HCHECK(lb_fake_add(&area, tid, c, 10, FUL_TS_READY));
	area.thread[FUL_TID_SLOT(tid)].runtime += run;
	lb_fake_thread_util(&area, tid, now / W, 0, pm * W / 1000);
}

static void running(unsigned c, unsigned tid)
{
	area.cpu[c].running = tid;
	lb_fake_set_state(&area, tid, FUL_TS_RUNNING);
}

static unsigned rebalance_on(enum lb_trigger trig)
{
	return lb_rebalance(&pol, &snap, now, trig, mv, LB_MAX_MOVES, &dec);
}

static unsigned rebalance(void)
{
	return rebalance_on(LB_TRIG_BUSIEST);
}

/** Figure 4 of the paper: 50/85/25/55 %; CPU1 runs a 60 % task and has
 *  a 25 % one. */
static void figure4(void)
{
	static const unsigned pm[4] = {500, 850, 250, 550};
	setup(4);
	for (unsigned c = 0; c < 4; c++)
		cpu_util(c, pm[c]);
	task(10, 1, 600, 0);
	task(11, 1, 250, 0);
	task(20, 0, 500, 0);
	task(30, 2, 250, 0);
	task(40, 3, 550, 0);
	running(1, 11);
}

OZTEST(figure4_mid_spot_moves_cpu1_to_cpu2)
{
	figure4();
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(dec.reason, LB_R_MOVED);
	CHECK_EQ(mv[0].tid, 10); /* the highest usage, not the running one */
	CHECK_EQ(mv[0].cpu, 2);
	CHECK_EQ(dec.move[0].from, 1);
	CHECK(dec.has_util);
	CHECK_EQ(dec.ut.figure, 850);
	CHECK_EQ(dec.ut.bound, 500);
	CHECK_EQ(dec.ut.task_util, 600);
	CHECK_EQ(dec.ut.score, 0);
	/* averaged: (50 + 85 + 25 + 55) / 4 = 53.75 % > 50 %: the same move */
	CHECK_EQ(lb_tunable_set(&pol, "cpus_avg", 1), 0);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(dec.ut.figure, 537);
	CHECK_EQ(mv[0].tid, 10);
	CHECK_EQ(mv[0].cpu, 2);
}

/* The decision's `now` is in window i, but CPU1's tick rolled task 10's
 * record into window i + 1 before the policy read it (the record is read
 * after the snapshot's clock): its last window is window i, 60 %, and it
 * is still the candidate; read as 0, the 25 % task was, below the spot,
 * and nothing moved. */
OZTEST(record_rolled_past_now_still_counts)
{
	figure4();
	lb_fake_thread_util(&area, 10, now / W + 1, 10, 600 * W / 1000);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(mv[0].tid, 10);
	CHECK_EQ(dec.ut.task_util, 600);
}

OZTEST(figure4_high_spot)
{
	figure4();
	CHECK_EQ(lb_tunable_set(&pol, "zone_spot", 2), 0);
	/* per CPU: CPU1 is above 80 %, but no task of it is */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_TASK_BELOW_SPOT);
	CHECK(dec.has_reject);
	CHECK_EQ(dec.reject.tid, 10);
	/* averaged: 53.75 % is below the high spot */
	CHECK_EQ(lb_tunable_set(&pol, "cpus_avg", 1), 0);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BELOW_ZONE);
}

/** Busiest core 1 at @pm, core 2 idle, a 100 % task on core 1. */
static void two_cores(unsigned pm)
{
	setup(3);
	cpu_util(0, 100); /* the least utilized is core 2 */
	cpu_util(1, pm);
	cpu_util(2, 0);
	task(5, 1, 1000, 0);
	task(6, 1, 0, 0);
}

/** The zone @zone (spot @spot) balances above @bound, not at it. */
static void check_bound(long zone, long spot, unsigned bound)
{
	two_cores(bound);
	HCHECK_EQ(lb_tunable_set(&pol, "zone", zone), 0);
	HCHECK_EQ(lb_tunable_set(&pol, "zone_spot", spot), 0);
	HCHECK_EQ(rebalance(), 0);
	HCHECK_EQ(dec.reason, LB_R_BELOW_ZONE);
	HCHECK_EQ(dec.ut.figure, bound);
	two_cores(bound + 1);
	HCHECK_EQ(lb_tunable_set(&pol, "zone", zone), 0);
	HCHECK_EQ(lb_tunable_set(&pol, "zone_spot", spot), 0);
	HCHECK_EQ(rebalance(), 1);
	HCHECK_EQ(mv[0].tid, 5);
	HCHECK_EQ(mv[0].cpu, 2);
}

OZTEST(zone_boundaries)
{
	check_bound(0, 1, 300);  /* cold: 0-30 % never; 30.1 % balances */
	check_bound(0, 2, 300);  /* the spot does not matter there */
	check_bound(1, 0, 300);  /* warm, low spot */
	check_bound(1, 1, 500);  /* warm, mid spot */
	check_bound(1, 2, 800);  /* warm, high spot: above 80 % */
	check_bound(2, 0, 799);  /* hot: 80 % is hot, 79.9 % is not */
	check_bound(2, 2, 799);
}

OZTEST(cold_zone_never_balances)
{
	two_cores(0);
	CHECK_EQ(lb_tunable_set(&pol, "zone", 0), 0);
	for (unsigned pm = 0; pm <= 300; pm += 50) {
		cpu_util(1, pm);
		CHECK_EQ(rebalance(), 0);
		CHECK_EQ(dec.reason, LB_R_BELOW_ZONE);
	}
}

/** Warm zone at @spot, busiest core at 100 %, a task of usage @pm. */
static unsigned task_at(long spot, unsigned pm)
{
	setup(3);
	cpu_util(0, 0);
	cpu_util(1, 1000);
	cpu_util(2, 0);
	task(5, 1, pm, 0);
	HCHECK_EQ(lb_tunable_set(&pol, "zone_spot", spot), 0);
	return rebalance();
}

OZTEST(warm_task_must_be_above_the_spot)
{
	static const unsigned spot[3] = {300, 500, 800};
	for (long s = 0; s < 3; s++) {
		CHECK_EQ(task_at(s, spot[s]), 0);
		CHECK_EQ(dec.reason, LB_R_TASK_BELOW_SPOT);
		CHECK_EQ(dec.ut.eff, spot[s]);
		CHECK_EQ(task_at(s, spot[s] + 1), 1);
		CHECK_EQ(dec.reason, LB_R_MOVED);
	}
	/* the hot and cold zones weigh tasks only to rank them */
	setup(3);
	cpu_util(0, 0);
	cpu_util(1, 1000);
	cpu_util(2, 0);
	task(5, 1, 100, 0);
	CHECK_EQ(lb_tunable_set(&pol, "zone", 2), 0);
	CHECK_EQ(rebalance(), 1);
}

OZTEST(per_cpu_against_average)
{
	/* one core at 90 %, two idle: per CPU it balances at the mid spot,
	 * averaged (30 %) it does not */
	two_cores(900);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(lb_tunable_set(&pol, "cpus_avg", 1), 0);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BELOW_ZONE);
	CHECK_EQ(dec.ut.figure, 333);
	/* the rootserver's core left out (include_root 0): 45 % */
	CHECK_EQ(lb_tunable_set(&pol, "include_root", 0), 0);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.ut.figure, 450);
}

OZTEST(triggers_and_the_blind_timer)
{
	two_cores(900);
	CHECK_EQ(rebalance_on(LB_TRIG_TIMER), 0);
	CHECK_EQ(dec.reason, LB_R_TIMER_DECLINED);
	CHECK(dec.has_util);
	CHECK_EQ(dec.ut.util[1], 900);
	CHECK_EQ(dec.ut.figure, 900); /* logged even when declined */
	static const enum lb_trigger ok[] = {LB_TRIG_WAKE, LB_TRIG_BUSIEST,
					     LB_TRIG_IDLE, LB_TRIG_DEMAND};
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ(rebalance_on(ok[i]), 1);
		CHECK_EQ(dec.trigger, ok[i]);
	}
	/* one eligible core: nothing to decide */
	CHECK_EQ(lb_tunable_set(&pol, "include_root", 0), 0);
	area.hdr.ncpus = 2;
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_TOO_FEW_CORES);
}

OZTEST(balanced_and_no_candidate)
{
	two_cores(900);
	cpu_util(2, 900);
	cpu_util(0, 900);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BALANCED);
	two_cores(900);
	lb_fake_set_state(&area, 5, FUL_TS_BLOCKED);
	lb_fake_set_state(&area, 6, FUL_TS_BLOCKED);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_NO_CANDIDATE);
	/* affinity: the 100 % task may not go to core 2 */
	two_cores(900);
	task(6, 1, 600, 0);
	lb_fake_set_affinity(&area, 5, 0x3);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(mv[0].tid, 6);
}

/** Task 5 on core 1 (busy; core 2 idle) at @pm in the last window,
 *  having run @run ticks in the @dt since the last look. As look(). */
static int look_run(unsigned pm, unsigned long dt, unsigned long run)
{
	now += dt;
	for (unsigned c = 0; c < 3; c++)
		cpu_util(c, c == 1 ? 1000 : 0);
	task(5, 1, pm, run);
	rebalance();
	return dec.ut.tid == 5 ? dec.ut.score : 9999; /* 9999: not weighed */
}

/** A task at @pm on busy core 1; a look after @dt with run time in
 *  proportion. Returns its adjustment, permille (9999 if the policy
 *  did not weigh it). */
static int look(unsigned pm, unsigned long dt)
{
	return look_run(pm, dt, dt * pm / 1000);
}

OZTEST(punish_a_task_that_stays_high)
{
	two_cores(1000);
	lb_fake_kill(&area, 6);
	CHECK_EQ(look(900, 0), 0);           /* high from the last window */
	CHECK_EQ(look(900, 48 * W), 0);      /* high for 4.9 s: not yet */
	CHECK_EQ(look(900, W), -50);         /* 5 s: -5 */
	CHECK_EQ(dec.ut.eff, 850);
	CHECK_EQ(look(900, 49 * W), -50);
	CHECK_EQ(look(900, W), -100);        /* another 5 s */
	CHECK_EQ(dec.ut.eff, 800);
	/* bounded: never below the low spot by the score, -50 % at most */
	for (unsigned i = 0; i < 20; i++)
		look(900, 5 * SEC);
	CHECK_EQ(dec.ut.score, -500);
	CHECK_EQ(dec.ut.eff, 400);
	/* the score the policy serves (balancer control's FUL_BAL_SCORES,
	 * top's score column): the same; 0 for a task never weighed */
	int sc = 1;
	CHECK(pol.score && pol.score(&pol, 5, &sc));
	CHECK_EQ(sc, -500);
	CHECK(pol.score(&pol, 77, &sc));
	CHECK_EQ(sc, 0);
	CHECK_EQ(dec.reason, LB_R_TASK_BELOW_SPOT); /* now it stays */
	/* a shorter punish window punishes sooner */
	two_cores(1000);
	lb_fake_kill(&area, 6);
	CHECK_EQ(lb_tunable_set(&pol, "punish_ms", 1000), 0);
	look(900, 0);
	CHECK_EQ(look(900, SEC), -50);
}

OZTEST(prize_a_short_high_stretch)
{
	two_cores(1000);
	lb_fake_kill(&area, 6);
	CHECK_EQ(look(900, 0), 0);
	CHECK_EQ(look(100, SEC), 50);        /* high for 1.1 s only: +5 */
	CHECK_EQ(dec.ut.eff, 150);
	CHECK_EQ(look(100, SEC), 50);        /* still low: no change */
	CHECK_EQ(look(700, SEC), 50);
	CHECK_EQ(dec.ut.eff, 750);
	CHECK_EQ(look(200, W), 100);         /* another short one */
	/* the score never lifts a task past the high spot */
	for (unsigned i = 0; i < 12; i++) {
		look(700, W);
		look(100, W);
	}
	CHECK_EQ(look(790, W), 500);
	CHECK_EQ(dec.ut.eff, 800);
	CHECK_EQ(dec.reason, LB_R_MOVED); /* mid spot: 80 % > 50 % */
	/* a stretch that ends after 6 s unseen (high on average since the
	 * last look, low only in the last window) is punished */
	two_cores(1000);
	lb_fake_kill(&area, 6);
	look(900, 0);
	CHECK_EQ(look(900, 3 * SEC), 0);
	CHECK_EQ(look_run(100, 3 * SEC, 3 * SEC * 9 / 10), -50);
	/* one punished, then ending short: no prize */
	two_cores(1000);
	lb_fake_kill(&area, 6);
	look(900, 0);
	CHECK_EQ(look(900, 5 * SEC), -50);
	CHECK_EQ(look(100, W), -50);
}

OZTEST(gap_with_low_average_breaks_the_stretch)
{
	two_cores(1000);
	lb_fake_kill(&area, 6);
	look(900, 0);
	/* high at both ends, but only 20 % on average over the 6 s between:
	 * a new stretch, no punishment */
	/* the old stretch ended short of 5 s */
	CHECK_EQ(look_run(900, 6 * SEC, 6 * SEC / 5), 50);
	/* and a new one started with the last window: 5 s later, -5 */
	CHECK_EQ(look(900, 48 * W), 50);
	CHECK_EQ(look(900, W), 0);
}

OZTEST(a_reused_slot_starts_over)
{
	two_cores(1000);
	lb_fake_kill(&area, 6);
	look(900, 0);
	CHECK_EQ(look(100, SEC), 50);
	lb_fake_kill(&area, 5);
	unsigned tid = 5 + 0x1000; /* same slot (FUL_TID_SLOT) */
	CHECK(lb_fake_add(&area, tid, 1, 10, FUL_TS_READY));
	lb_fake_thread_util(&area, tid, now / W, 0, W / 10);
	rebalance();
	CHECK_EQ(dec.ut.tid, tid);
	CHECK_EQ(dec.ut.score, 0);
}

OZTEST(placement_least_utilized)
{
	setup(4);
	CHECK_EQ(lb_tunable_set(&pol, "include_root", 0), 0);
	cpu_util(1, 700);
	cpu_util(2, 200);
	cpu_util(3, 200);
	lb_fake_add(&area, 9, 2, 30, FUL_TS_READY);
	struct lb_new_thread t = {.slice_ms = 10};
	/* 2 and 3 tie at 20 %: the lower load */
	CHECK_EQ(lb_place(&pol, &snap, now, &t, &dec), 3);
	CHECK_EQ(dec.reason, LB_R_PLACED);
	CHECK_EQ(dec.trigger, LB_TRIG_CREATE);
	CHECK(dec.has_util);
	t.affinity = 0x6;
	cpu_util(3, 100);
	CHECK_EQ(lb_place(&pol, &snap, now, &t, &dec), 2);
	t.affinity = 0x1; /* only the rootserver's core */
	CHECK_EQ(lb_place(&pol, &snap, now, &t, &dec), 0);
	CHECK_EQ(dec.reason, LB_R_NO_ELIGIBLE);
}

OZTEST(tunables)
{
	static const struct {
		const char *name;
		long def, min, max;
	} t[] = {{"zone", 1, 0, 2},          {"zone_spot", 1, 0, 2},
		 {"cpus_avg", 0, 0, 1},      {"prize_ms", 5000, 10, 600000},
		 {"punish_ms", 5000, 10, 600000}};
	setup(2);
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long v;
		CHECK_EQ(lb_tunable_get(&pol, t[i].name, &v), 0);
		CHECK_EQ(v, t[i].def);
		CHECK_EQ(lb_tunable_set(&pol, t[i].name, t[i].min - 1),
			 LB_E_RANGE);
		CHECK_EQ(lb_tunable_set(&pol, t[i].name, t[i].max + 1),
			 LB_E_RANGE);
		CHECK_EQ(lb_tunable_get(&pol, t[i].name, &v), 0);
		CHECK_EQ(v, t[i].def);
		CHECK_EQ(lb_tunable_set(&pol, t[i].name, t[i].max), 0);
		CHECK_EQ(lb_tunable_set(&pol, t[i].name, t[i].min), 0);
	}
	CHECK_EQ(lb_tunable_set(&pol, "warm_spot", 1), LB_E_NAME);
}

OZTEST(decision_log_keys)
{
	figure4();
	CHECK_EQ(rebalance(), 1);
	int n = lb_decision_json(&dec, json, sizeof(json));
	CHECK(n > 0 && n < (int)sizeof(json));
	static const char *const keys[] = {
		"\"policy\":\"opzone\"", "\"trigger\":\"busiest\"",
		"\"load\":[", "\"moves\":[{\"tid\":10",
		"\"reason\":\"moved\"", "\"zone\":\"warm\"", "\"spot\":\"mid\"",
		"\"cpus_avg\":0", "\"bound\":50.0", "\"figure\":85.0",
		"\"util\":[50.0,85.0,25.0,55.0]",
		"\"task\":{\"tid\":10,\"util\":60.0,\"score\":0,\"eff\":60.0}"};
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		CHECK(strstr(json, keys[i]) != NULL);
	CHECK_EQ(json[n - 1], '}');
	rebalance_on(LB_TRIG_TIMER);
	lb_decision_json(&dec, json, sizeof(json));
	CHECK(strstr(json, "\"reason\":\"timer_declined\"") != NULL);
	CHECK(strstr(json, "\"task\":null") != NULL);
	/* other policies' lines are unchanged: no opzone keys */
	lb_policy_init(&pol, "fulcrum");
	rebalance();
	lb_decision_json(&dec, json, sizeof(json));
	CHECK(strstr(json, "\"zone\"") == NULL);
}

/** xorshift, for reproducible random states. */
static unsigned long rnd(unsigned long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

OZTEST(cheap_reader_matches_the_snapshot)
{
	/* opzone reads each core's sliding figure itself (cheaper): a
	 * busy core's is its util_now word, what the kernel's tick at its
	 * stamp computed (the snapshot's reader at the stamp); a core
	 * without one (idle, or busy with the word cleared: left idle and
	 * not ticked since) is rolled to now, as the snapshot's
	 * LB_NEED_ALL reader does. On cores stamped in the window of now,
	 * the one before, long before, idle or busy. */
	unsigned long x = 88172645463325252ul;
	struct lb_snap ref;
	struct lb_loads lv;
	struct ful_win_par par = {0, W, 0};
	for (unsigned i = 0; i < 2000; i++) {
		setup(4);
		now = T0 + rnd(&x) % W;
		unsigned long st[4];
		for (unsigned c = 0; c < 4; c++) {
			unsigned long back = rnd(&x) % (4 * W);
			unsigned long stamp = now - (c == 3 ? 0 : back);
			unsigned long ws = stamp / W * W;
			unsigned long cur = rnd(&x) % (stamp - ws + 1);
			lb_fake_cpu_util(&area, c, stamp, (int)(rnd(&x) & 1), cur,
					 0, (unsigned)(rnd(&x) % 1001), 0);
			st[c] = stamp;
			if (rnd(&x) % 4 == 0) /* left idle, no tick yet */
				area.cpu[c].util_now = 0;
		}
		rebalance();
		lb_snap_init(&ref, &area, 0);
		lb_snap_refresh(&ref, now, LB_NEED_ALL, LB_SNAP_TUNABLES(1, 20),
				&lv);
		for (unsigned c = 0; c < 4; c++) {
			unsigned at = 0;
			ful_util_cpu(&area.cpu[c], &par, st[c], &at, NULL);
			if (area.cpu[c].util_now) {
				CHECK_EQ(area.cpu[c].idle_open, 0);
				CHECK_EQ(area.cpu[c].util_now,
					 FUL_UTIL_NOW_OK | at);
				CHECK_EQ(dec.ut.util[c], at);
			} else {
				CHECK_EQ(dec.ut.util[c], ref.util[c].short_pm);
			}
			CHECK_EQ(dec.v.load[c], lv.load[c]);
		}
	}
}

OZTEST(busy_core_figure_is_its_last_tick)
{
	/* a busy core's figure is the kernel's word, whatever the window
	 * fields would give at now: the figure of its last tick */
	setup(4);
	for (unsigned c = 0; c < 4; c++)
		cpu_util(c, 400);
	now = T0 + W / 2; /* half a window on: 100 % busy since T0 */
	rebalance();
	for (unsigned c = 0; c < 4; c++)
		HCHECK_EQ(dec.ut.util[c], 400);
	/* the tick's word, not the fields */
	area.cpu[2].util_now = FUL_UTIL_NOW_OK | 123;
	rebalance();
	HCHECK_EQ(dec.ut.util[2], 123);
	/* no word (left idle, no tick since): rolled to now, 700 */
	area.cpu[2].util_now = 0;
	rebalance();
	HCHECK_EQ(dec.ut.util[2], 700);
	/* idle since T0: the fake (as the kernel) publishes no word, and
	 * the figure falls with time: 200 half a window on */
	lb_fake_cpu_util(&area, 1, T0, 1, 0, 0, 400, 400);
	HCHECK_EQ(area.cpu[1].util_now, 0);
	rebalance();
	HCHECK_EQ(dec.ut.util[1], 200);
}
