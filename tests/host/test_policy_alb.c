/* Host tests for the policies of paper 001: alb (average weight of
 * tasks) and count (its baseline, the number of runnable tasks); the
 * weight table they share with the kernel; the index by weight. */
#define HTEST_MAIN
#include "host_test.h"

#include "policy_fixture.h"

/** Add a READY thread @tid of @nice on @cpu (slice 10 ms). */
static void addn(unsigned tid, unsigned cpu, int nice)
{
	lb_fake_add(&area, tid, cpu, 10, FUL_TS_READY);
	if (nice)
		lb_fake_set_nice(&area, tid, nice);
}

static unsigned place_nice(int nice)
{
	struct lb_new_thread t = {.slice_ms = 10, .nice = nice};
	return lb_place(&pol, &snap, 0, &t, &dec);
}

static unsigned long weight_of(unsigned c)
{
	return area.cpu[c].weight;
}

/** Rebalance and apply until a round moves nothing (at most @rounds);
 *  returns the moves made, or ~0u if it never settled. */
static unsigned settle(unsigned rounds)
{
	unsigned total = 0;
	for (unsigned i = 0; i < rounds; i++) {
		unsigned n = rebalance();
		if (!n)
			return total;
		total += lb_fake_apply(&area, mv, n);
	}
	return ~0u;
}

/* ---- the weight table ------------------------------------------------ */

HTEST(weight_table_is_cfs)
{
	CHECK_EQ(ful_weight_of_nice(0), 1024);
	CHECK_EQ(ful_weight_of_nice(-20), 88761);
	CHECK_EQ(ful_weight_of_nice(19), 15);
	CHECK_EQ(ful_weight_of_nice(-5), 3121);
	CHECK_EQ(ful_weight_of_nice(5), 335);
	CHECK_EQ(ful_weight_of_nice(-21), 88761); /* clamped */
	CHECK_EQ(ful_weight_of_nice(40), 15);
	/* Each nice step is about 1.25x (CFS: "10 % CPU per level"). */
	for (int n = -20; n < 19; n++) {
		unsigned a = ful_weight_of_nice(n), b = ful_weight_of_nice(n + 1);
		CHECK(a > b);
		CHECK(a * 100 >= b * 120 && a * 100 <= b * 131);
	}
	lb_fake_init(&area, 2);
	addn(1, 1, -5);
	CHECK_EQ(area.thread[1].weight, 3121);
	CHECK_EQ(weight_of(1), 3121);
}

/* ---- alb placement ------------------------------------------------- */

/* One nice -5 thread (3121) on core 1, then five nice 0 threads (1024)
 * placed one by one: alb fills cores 2 and 3 up to the average and
 * leaves core 1 with its one heavy thread; count spreads the number of
 * threads and stacks a nice 0 thread on the heavy one. */
HTEST(alb_place_fills_to_average)
{
	static const unsigned want[5] = {2, 3, 2, 3, 2};
	static const unsigned why[5] = {LB_W_FILL, LB_W_FILL, LB_W_FILL,
					LB_W_FILL, LB_W_OVERSHOOT};
	setup(4, "alb");
	addn(1, 1, -5);
	for (unsigned i = 0; i < 5; i++) {
		unsigned c = place_nice(0);
		CHECK_EQ(c, want[i]);
		CHECK_EQ(dec.reason, LB_R_PLACED);
		CHECK_EQ(dec.metric, LB_METRIC_WEIGHT);
		CHECK_EQ(dec.move[0].why, why[i]);
		CHECK_EQ(dec.move[0].weight, 1024);
		CHECK_EQ(dec.move[0].to_after, weight_of(c) + 1024);
		addn(i + 2, c, 0);
	}
	CHECK(weight_of(1) == 3121 && weight_of(2) == 3072 &&
	      weight_of(3) == 2048);
	/* The last one overshoots the average (8241 / 3) by less than its
	 * weight. */
	CHECK(weight_of(2) * 3 - 8241 < 1024 * 3);
	setup(4, "count");
	addn(1, 1, -5);
	for (unsigned i = 0; i < 5; i++)
		addn(i + 2, place_nice(0), 0);
	CHECK(weight_of(1) == 4145 && weight_of(2) == 2048 &&
	      weight_of(3) == 2048);
	CHECK(area.cpu[1].nrunnable == 2 && area.cpu[3].nrunnable == 2);
}

/* A Table III set as ubench=alb spawns it: five nice 0 threads (1024),
 * then five nice 5 (335), on cores 1..3. The first three nice 5 threads
 * fill core 3; the last two fit nowhere (each would pass the average
 * avg' on every core) and go to the core below avg' with the fewest
 * runnable threads: 2383 / 2383 / 2029 and 3 / 3 / 4 threads. By the
 * least weighted core (the rule before) the fourth went to core 3
 * (2029 against 2048): 2383 / 2048 / 2364 and 3 / 2 / 5 threads, half of
 * the set's work on one core, which took 5 to 6 moves to spread. */
HTEST(alb_place_table3_set)
{
	static const unsigned want[10] = {1, 2, 3, 1, 2, 3, 3, 3, 1, 2};
	setup(4, "alb");
	for (unsigned i = 0; i < 10; i++) {
		int nice = i < 5 ? 0 : 5;
		unsigned c = place_nice(nice);
		CHECK_EQ(c, want[i]);
		bool fits = (weight_of(c) + ful_weight_of_nice(nice)) * 3 <=
			    dec.msum + ful_weight_of_nice(nice);
		CHECK_EQ(dec.move[0].why, fits ? LB_W_FILL : LB_W_OVERSHOOT);
		/* never above avg' by as much as the thread's weight */
		CHECK(weight_of(c) * 3 < dec.msum + ful_weight_of_nice(nice));
		addn(i + 1, c, nice);
	}
	CHECK(weight_of(1) == 2383 && weight_of(2) == 2383 &&
	      weight_of(3) == 2029);
	CHECK(area.cpu[1].nrunnable == 3 && area.cpu[2].nrunnable == 3 &&
	      area.cpu[3].nrunnable == 4);
	/* and nothing to rebalance: every core holds its fill */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_WITHIN_FILL);
}

/* The overshoot's core: among the cores below avg' the fewest runnable,
 * then the least weighted. A nice 4 thread (423) alone on core 1: a
 * nice 0 thread fits nowhere (avg' 482) and goes to an idle core, not to
 * core 1 below avg'. */
HTEST(alb_place_overshoot_core)
{
	setup(4, "alb");
	addn(1, 1, 4);
	CHECK_EQ(place_nice(0), 2);
	CHECK_EQ(dec.move[0].why, LB_W_OVERSHOOT);
	/* The fourth nice 5 thread of alb_place_table3_set with the cores
	 * in another order: 2029 (four threads) / 2048 (two) / 2048 (two),
	 * avg' 2153.3: core 2, not the least weighted core 1. */
	setup(4, "alb");
	addn(1, 1, 0);
	for (unsigned t = 2; t <= 4; t++)
		addn(t, 1, 5);
	addn(5, 2, 0);
	addn(6, 2, 0);
	addn(7, 3, 0);
	addn(8, 3, 0);
	CHECK_EQ(place_nice(5), 2);
	CHECK_EQ(dec.move[0].why, LB_W_OVERSHOOT);
	CHECK_EQ(dec.move[0].to_after, 2383);
	/* Equal counts: the least weighted. 2554 (two nice -1) / 2048 (two
	 * nice 0) / 2383 (three), avg' 2669.7, every core below it and
	 * none that a nice 0 thread fits: core 2. */
	setup(4, "alb");
	addn(1, 1, -1);
	addn(2, 1, -1);
	addn(3, 2, 0);
	addn(4, 2, 0);
	addn(5, 3, 0);
	addn(6, 3, 0);
	addn(7, 3, 5);
	CHECK_EQ(weight_of(1), 2554);
	CHECK_EQ(place_nice(0), 2);
	CHECK_EQ(dec.move[0].why, LB_W_OVERSHOOT);
}

HTEST(alb_place_exact_fit_and_ties)
{
	setup(4, "alb");
	CHECK_EQ(place_nice(0), 1); /* all idle: fits nowhere, lowest id */
	CHECK_EQ(dec.move[0].why, LB_W_OVERSHOOT);
	addn(1, 1, 0);
	addn(2, 1, 0); /* 2048 / 0 / 0: a 1024 fills core 2 to 3072 / 3 */
	CHECK_EQ(place_nice(0), 2);
	CHECK_EQ(dec.move[0].why, LB_W_FILL);
	CHECK_EQ(dec.move[0].to_after * 3, dec.msum + 1024);
	/* A nice 19 thread fits the first core under the average. */
	addn(3, 2, 0);
	addn(4, 3, 0); /* 2048 / 1024 / 1024 */
	CHECK_EQ(place_nice(19), 2);
	/* The rootserver's core is never chosen unless include_root. */
	CHECK_EQ(lb_tunable_set(&pol, "include_root", 1), 0);
	CHECK_EQ(place_nice(0), ROOT);
}

HTEST(alb_place_affinity_and_one_core)
{
	setup(4, "alb");
	addn(1, 3, 0);
	struct lb_new_thread t = {.slice_ms = 10, .affinity = 1u << 3};
	CHECK_EQ(lb_place(&pol, &snap, 0, &t, &dec), 3);
	CHECK_EQ(dec.reason, LB_R_PLACED);
	t.affinity = 1u << ROOT;
	CHECK_EQ(lb_place(&pol, &snap, 0, &t, &dec), ROOT);
	CHECK_EQ(dec.reason, LB_R_NO_ELIGIBLE);
	for (unsigned k = 0; k < 2; k++) {
		setup(1, k ? "count" : "alb");
		CHECK_EQ(place_nice(0), 0);
		CHECK_EQ(dec.reason, LB_R_TOO_FEW_CORES);
		addn(1, 0, 0);
		addn(2, 0, -10);
		CHECK_EQ(rebalance(), 0);
		CHECK_EQ(dec.reason, LB_R_TOO_FEW_CORES);
	}
}

/* ---- alb rebalance --------------------------------------------------- */

/* One nice -5 thread and three nice 0 on core 1, cores 2 and 3 idle:
 * average 6193 / 3. Three nice 0 threads move ("fill"); the nice -5 one
 * stays: moving it would leave core 3 no lighter than core 1 was. */
HTEST(alb_mixed_nice_rebalance)
{
	setup(4, "alb");
	addn(1, 1, -5);
	for (unsigned t = 2; t <= 4; t++)
		addn(t, 1, 0);
	CHECK_EQ(rebalance(), 3);
	CHECK_EQ(dec.gate, LB_GATE_HEAVY_LIGHT);
	CHECK_EQ(dec.msum, 6193);
	for (unsigned i = 0; i < 3; i++) {
		CHECK(mv[i].tid >= 2 && mv[i].tid <= 4);
		CHECK_EQ(dec.move[i].why, LB_W_FILL);
		CHECK_EQ(dec.move[i].weight, 1024);
	}
	CHECK(mv[0].cpu == 2 && mv[1].cpu == 3 && mv[2].cpu == 2);
	CHECK_EQ(dec.reason, LB_R_NO_GAIN);
	CHECK(dec.has_reject && dec.reject.tid == 1 && dec.reject.to == 3);
	CHECK_EQ(dec.reject.to_after, 1024 + 3121);
	lb_fake_apply(&area, mv, 3);
	CHECK(weight_of(1) == 3121 && weight_of(2) == 2048 &&
	      weight_of(3) == 1024);
	/* core 1 holds its one task: within paper 001's fill */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_WITHIN_FILL);
}

/* The move rule at its boundaries. A lone thread never moves to an
 * empty core (it would end exactly as heavy as its source: no gain);
 * a thread that leaves its source below the average may go if the
 * destination ends lighter than the source was ("overshoot"). */
HTEST(alb_gain_boundary)
{
	setup(4, "alb");
	addn(1, 1, 0);
	addn(2, 1, 0); /* core 1: 2048 */
	addn(3, 3, -5); /* core 3: 3121 alone; core 2 idle; avg 1723 */
	CHECK_EQ(rebalance(), 1);
	CHECK(dec.has_reject && dec.reject.tid == 3);
	CHECK_EQ(dec.reject.to_after, dec.reject.from_after + 3121);
	CHECK(mv[0].cpu == 2 && (mv[0].tid == 1 || mv[0].tid == 2));
	CHECK_EQ(dec.move[0].why, LB_W_OVERSHOOT); /* 2048 - 1024 < avg */
	CHECK(dec.move[0].to_after < dec.move[0].from_after + 1024);
	/* then core 1 (1024, busy) could take only core 3's lone thread */
	CHECK_EQ(dec.reason, LB_R_WITHIN_FILL);
	lb_fake_apply(&area, mv, 1);
	CHECK_EQ(settle(4), 0);
	/* Two cores, one thread: nothing to gain. */
	setup(3, "alb");
	addn(1, 1, -20);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_NO_GAIN);
	CHECK_EQ(dec.reject.to_after, 88761);
}

/* "No destination above the average by more than the moved thread's
 * weight": a core exactly at the average is full and never takes a
 * thread, even one that would leave it exactly avg + w above. */
HTEST(alb_full_core_is_no_destination)
{
	setup(4, "alb");
	for (unsigned t = 1; t <= 3; t++) {
		addn(t, 1, 0); /* core 1: 3072, pinned to cores 1 and 2 */
		lb_fake_set_affinity(&area, t, 1u << 1 | 1u << 2);
	}
	addn(4, 2, 0);
	addn(5, 2, 0); /* core 2: 2048 = 6144 / 3, the average */
	addn(6, 3, 0); /* core 3: 1024 */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_NO_CANDIDATE);
	lb_fake_set_affinity(&area, 2, 0);
	CHECK_EQ(rebalance(), 1);
	CHECK(mv[0].tid == 2 && mv[0].cpu == 3);
	CHECK_EQ(dec.move[0].why, LB_W_FILL);
	lb_fake_apply(&area, mv, 1);
	CHECK(weight_of(1) == 2048 && weight_of(2) == 2048 &&
	      weight_of(3) == 2048);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BALANCED);
	CHECK_EQ(dec.gate, LB_GATE_NONE);
}

HTEST(alb_kernel_and_blocked_threads)
{
	setup(4, "alb");
	addn(1, 1, 0);
	addn(2, 1, 0);
	addn(3, 1, 0);
	lb_fake_set_flags(&area, 1, FUL_LT_KERNEL);
	lb_fake_set_flags(&area, 2, FUL_LT_KERNEL);
	lb_fake_set_state(&area, 3, FUL_TS_BLOCKED);
	CHECK_EQ(weight_of(1), 2048); /* blocked: not in the weight */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_NO_CANDIDATE);
	lb_fake_set_state(&area, 3, FUL_TS_READY);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(mv[0].tid, 3);
	lb_fake_apply(&area, mv, 1);
	CHECK_EQ(settle(4), 0);
	CHECK(lb_fake_thread(&area, 1)->cpu == 1 &&
	      lb_fake_thread(&area, 2)->cpu == 1);
}

HTEST(alb_all_idle_threshold_and_max_moves)
{
	setup(4, "alb");
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BALANCED);
	CHECK_EQ(dec.msum, 0);
	for (unsigned t = 1; t <= 12; t++)
		addn(t, 1, 0);
	CHECK_EQ(lb_tunable_set(&pol, "max_moves", 3), 0);
	CHECK_EQ(rebalance(), 3);
	CHECK_EQ(dec.reason, LB_R_MAX_MOVES);
	CHECK_EQ(lb_tunable_set(&pol, "max_moves", 16), 0);
	CHECK_EQ(rebalance(), 8);
	lb_fake_apply(&area, mv, 8);
	CHECK(weight_of(1) == 4096 && weight_of(2) == 4096);
	/* 5 / 4 / 3 threads: 5120 vs 4096 average; T = 25 % tolerates it. */
	lb_fake_move(&area, 12, 2);
	lb_fake_move(&area, 11, 1);
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", 25), 0);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.gate, LB_GATE_NONE);
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", 24), 0);
	CHECK_EQ(rebalance(), 1);
}

/* Random areas: every alb move keeps the rules, and rounds settle. */
/** |w n - sum|: n times a core's distance from the average. */
static unsigned long dist(unsigned long w, unsigned long n, unsigned long sum)
{
	return w * n > sum ? w * n - sum : sum - w * n;
}

/* A move must bring both cores strictly closer to the average (Linux
 * 4.4's detach_tasks: a task whose load is more than twice the
 * imbalance stays), unless the destination has nothing runnable. Here
 * (weights 2048 / 1005 / 1694, avg 1582.3) the only thread core 1 could
 * give (1024) would take core 2 from 577 below to 447 above and core 1
 * from 466 above to 558 below, and core 3's (335) would take core 3
 * from 112 above to 223 below: no move. The old rule (dst ends below
 * what src had) moved a 1024. Since the fill rule (alb_fill_rule) no
 * source gets that far: cores 1 and 3 are below the average without
 * their heaviest thread. */
HTEST(alb_moves_bring_both_closer)
{
	setup(4, "alb");
	addn(1, 1, 0);
	addn(2, 1, 0);                       /* core 1: 2048 */
	for (unsigned t = 3; t <= 5; t++)
		addn(t, 2, 5);               /* core 2: 1005 */
	addn(6, 3, 0);
	addn(7, 3, 5);
	addn(8, 3, 5);                       /* core 3: 1694 */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_WITHIN_FILL);
	CHECK(!dec.has_reject);
	/* core 2 emptied: an idle core takes a thread all the same */
	for (unsigned t = 3; t <= 5; t++)
		lb_fake_kill(&area, t);
	CHECK(rebalance() >= 1);
	CHECK_EQ(mv[0].cpu, 2);
	CHECK_EQ(dec.move[0].weight, 1024);
}

/* Paper 001's fill: a busy core below the average takes a thread only
 * from a core that is at or above the average even without its
 * heaviest runnable thread (it holds more than the fill gives it); an
 * idle core is filled as a new one. The state of a Table III set after
 * a nice-0 thread ended: 2383 / 1024 / 2364 (2 x 1024 + 335; 1024;
 * 1024 + 4 x 335), average 1923.7: no move (before: two 335 fills). */
HTEST(alb_fill_rule)
{
	setup(4, "alb");
	addn(1, 1, 0);
	addn(2, 1, 0);
	addn(3, 1, 5);
	addn(4, 2, 0);
	addn(5, 3, 0);
	for (unsigned t = 6; t <= 9; t++)
		addn(t, 3, 5);
	CHECK(weight_of(1) == 2383 && weight_of(2) == 1024 &&
	      weight_of(3) == 2364);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_WITHIN_FILL);
	/* a nice-0 thread of core 1 blocked: core 1 weighs 1359, below
	 * the average: nothing to give either */
	lb_fake_set_state(&area, 2, FUL_TS_BLOCKED);
	CHECK_EQ(rebalance(), 0);
	lb_fake_set_state(&area, 2, FUL_TS_READY);
	/* a third nice-0 thread on core 1: 3407 - 1024 >= 2265: overfull,
	 * a 335 fills core 2's gap */
	addn(10, 1, 0);
	CHECK(rebalance() >= 1);
	CHECK(mv[0].cpu == 2 && dec.move[0].from == 1);
	/* an idle core takes threads whatever the fill */
	setup(4, "alb");
	addn(1, 1, 0);
	addn(2, 1, 0);
	addn(3, 3, 0);
	CHECK_EQ(rebalance(), 1);
	CHECK(mv[0].cpu == 2);
}

HTEST(alb_random_areas_keep_the_rules)
{
	uint64_t rng = 12;
	for (unsigned run = 0; run < 300; run++) {
		setup(2 + (unsigned)(htest_rand(&rng) % 7), "alb");
		unsigned ncpu = area.hdr.ncpus, nt = 1 + htest_rand(&rng) % 40;
		for (unsigned t = 1; t <= nt; t++)
			addn(t, (unsigned)(htest_rand(&rng) % ncpu),
			     (int)(htest_rand(&rng) % 40) - 20);
		for (unsigned round = 0;; round++) {
			CHECK(round < 50);
			unsigned n = rebalance();
			unsigned long sum = dec.msum, ne = dec.conf.neligible;
			for (unsigned i = 0; i < n; i++) {
				const struct lb_dmove *m = &dec.move[i];
				unsigned long before = m->to_after - m->weight;
				CHECK(before * ne < sum);          /* below avg */
				CHECK(m->to_after * ne < sum + m->weight * ne);
				CHECK(m->to_after < m->from_after + m->weight);
				/* both closer to the average, unless the
				 * destination had nothing runnable */
				unsigned long fb = m->from_after + m->weight;
				CHECK(!before || (dist(m->to_after, ne, sum) <
						  dist(before, ne, sum) &&
						  dist(m->from_after, ne, sum) <
						  dist(fb, ne, sum)));
			}
			if (!n)
				break;
			lb_fake_apply(&area, mv, n);
		}
	}
}

/* ---- count ------------------------------------------------------------ */

HTEST(count_place_and_rebalance)
{
	setup(4, "count");
	CHECK_EQ(place_nice(0), 1);
	CHECK_EQ(dec.metric, LB_METRIC_NRUN);
	CHECK_EQ(dec.move[0].why, LB_W_FEWEST);
	for (unsigned t = 1; t <= 5; t++)
		addn(t, 1, 0);
	addn(6, 2, -20);
	CHECK_EQ(place_nice(0), 3);
	CHECK_EQ(dec.move[0].to_after, 1);
	/* 5 / 1 / 0 -> 4 / 1 / 1 -> 3 / 2 / 1 -> 2 / 2 / 2: three moves. */
	CHECK_EQ(rebalance(), 3);
	CHECK(mv[0].cpu == 3 && mv[1].cpu == 2 && mv[2].cpu == 3);
	CHECK_EQ(dec.move[0].why, LB_W_COUNT_DIFF);
	CHECK_EQ(dec.reason, LB_R_BALANCED);
	lb_fake_apply(&area, mv, 3);
	CHECK(area.cpu[1].nrunnable == 2 && area.cpu[2].nrunnable == 2 &&
	      area.cpu[3].nrunnable == 2);
	/* A difference of one is balanced; T has no say below it. */
	addn(10, 1, 0);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BALANCED);
	CHECK_EQ(dec.gate, LB_GATE_HEAVY_LIGHT);
}

HTEST(count_affinity_kernel_ties)
{
	setup(4, "count");
	for (unsigned t = 1; t <= 4; t++)
		addn(t, 1, 0);
	addn(5, 2, 0);
	addn(6, 2, 0);
	addn(7, 2, 0); /* 4 / 3 / 0 */
	for (unsigned t = 1; t <= 4; t++)
		lb_fake_set_affinity(&area, t, 1u << 1);
	CHECK_EQ(lb_tunable_set(&pol, "max_moves", 1), 0);
	CHECK_EQ(rebalance(), 1); /* core 1 has nothing to give: core 2 */
	CHECK(mv[0].cpu == 3 && mv[0].tid >= 5);
	lb_fake_set_flags(&area, 5, FUL_LT_KERNEL);
	lb_fake_set_flags(&area, 6, FUL_LT_KERNEL);
	lb_fake_set_flags(&area, 7, FUL_LT_KERNEL);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_NO_CANDIDATE);
	/* Ties: equal counts go to the lowest id. */
	setup(4, "count");
	addn(1, 1, 0);
	addn(2, 2, 0);
	addn(3, 3, 0);
	CHECK_EQ(place_nice(0), 1);
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.gate, LB_GATE_NONE);
}

/* A nice -10 thread alone on core 1 and four nice 10 threads on core 2:
 * by weight this is as good as it gets, by count it is not. */
HTEST(count_vs_alb_migrations)
{
	unsigned moves[2];
	for (unsigned k = 0; k < 2; k++) {
		setup(4, k ? "count" : "alb");
		addn(1, 1, -10);
		for (unsigned t = 2; t <= 5; t++)
			addn(t, 2, 10);
		moves[k] = settle(10);
	}
	printf("# mixed nice set: alb %u migrations, count %u\n", moves[0],
	       moves[1]);
	CHECK_EQ(moves[0], 0);
	CHECK_EQ(moves[1], 2);
	/* Placement then one rebalance: the one-heavy-thread set of
	 * alb_place_fills_to_average, where count also stacks weight. */
	for (unsigned k = 0; k < 2; k++) {
		setup(4, k ? "count" : "alb");
		addn(1, 1, -5);
		for (unsigned t = 2; t <= 6; t++)
			addn(t, place_nice(0), 0);
		moves[k] = settle(10);
	}
	CHECK(moves[0] <= moves[1]);
}

/* ---- the index by weight -------------------------------------------- */

HTEST(weight_index_is_o1_and_follows_the_key)
{
	setup(4, "alb");
	for (unsigned t = 1; t <= 200; t++)
		addn(t, 1, (int)(t % 40) - 20);
	CHECK_EQ(rebalance(), 8);
	CHECK_EQ(snap.builds, 1);
	CHECK_EQ(snap.index_key, LB_KEY_WEIGHT);
	printf("# 8 moves from 200 threads: %lu probes\n", snap.probes);
	/* The k-th move walks past at most the k - 1 threads this round
	 * already moved (still indexed on core 1): 1 + 2 + ... + 8, never
	 * a walk over the 200. */
	CHECK(snap.probes <= 36);
	/* A slice pick (mginkgo, count) reorders the index once. */
	struct lb_cand c;
	CHECK(lb_snap_pick(&snap, 1, 2, NULL, 0, &c));
	CHECK_EQ(snap.builds, 2);
	CHECK_EQ(snap.index_key, LB_KEY_SLICE);
	/* Heaviest not above a bound, else lightest below a limit. */
	CHECK(lb_snap_pick_weight(&snap, 1, 2, 1100, 1, NULL, 0, &c));
	CHECK_EQ(snap.builds, 3);
	CHECK_EQ(c.weight, 1024);
	CHECK(lb_snap_pick_weight(&snap, 1, 2, 14, 16, NULL, 0, &c));
	CHECK_EQ(c.weight, 15);
	CHECK(!lb_snap_pick_weight(&snap, 1, 2, 14, 15, NULL, 0, &c));
	CHECK(lb_snap_pick_weight(&snap, 1, 2, 0, ~0UL, NULL, 0, &c));
	CHECK_EQ(c.weight, 15);
	CHECK(lb_snap_pick_weight(&snap, 1, 2, ~0UL, 0, NULL, 0, &c));
	CHECK_EQ(c.weight, 88761);
	/* Blocked heaviest: the next one down. */
	snap.probes = 0;
	for (unsigned t = 1; t <= 200; t++)
		if (area.thread[t].nice == -20)
			lb_fake_set_state(&area, t, FUL_TS_BLOCKED);
	CHECK(lb_snap_pick_weight(&snap, 1, 2, ~0UL, 0, NULL, 0, &c));
	CHECK_EQ(c.weight, 71755);
	CHECK_EQ(snap.probes, 6); /* five blocked, then the one */
}

/* The level table against a linear scan: for many bounds, the heaviest
 * runnable thread not above the bound, else the lightest under a limit. */
HTEST(weight_pick_matches_a_scan)
{
	uint64_t rng = 7;
	setup(4, "alb");
	for (unsigned t = 1; t <= 120; t++) {
		addn(t, 1, (int)(htest_rand(&rng) % 40) - 20);
		if (htest_rand(&rng) % 5 == 0)
			lb_fake_set_state(&area, t, FUL_TS_BLOCKED);
	}
	for (unsigned k = 0; k < 2000; k++) {
		unsigned long fit = htest_rand(&rng) % 100000;
		unsigned long limit = htest_rand(&rng) % 100000;
		if (k < 200)
			fit = ful_nice_weight[k % 40] - (k / 40) % 2;
		unsigned long best = 0, up = ~0UL;
		for (unsigned t = 1; t <= 120; t++) {
			const struct ful_load_thread *r = lb_fake_thread(&area, t);
			if (r->state != FUL_TS_READY)
				continue;
			if (r->weight <= fit && r->weight > best)
				best = r->weight;
			if (r->weight > fit && r->weight < limit && r->weight < up)
				up = r->weight;
		}
		struct lb_cand c;
		bool got = lb_snap_pick_weight(&snap, 1, 2, fit, limit, NULL, 0,
					       &c);
		if (best)
			CHECK(got && c.weight == best);
		else if (up != ~0UL)
			CHECK(got && c.weight == up);
		else
			CHECK(!got);
	}
}

/* ---- decision log ---------------------------------------------------- */

HTEST(json_alb_and_count_lines)
{
	static struct lb_log log;
	char buf[LB_JSON_MAX];
	setup(4, "alb");
	addn(1, 1, -5);
	addn(2, 1, 0);
	struct lb_decision *d = lb_log_next(&log);
	CHECK_EQ(lb_rebalance(&pol, &snap, 9, LB_TRIG_TIMER, mv, 4, d), 1);
	lb_decision_json(d, buf, sizeof(buf));
	const char *want =
		",\"state\":[\"excluded\",\"heavy\",\"light\",\"light\"],"
		"\"metric\":\"weight\",\"weight\":[0,4145,0,0],"
		"\"wavg\":1381.66,\"moves\":[{\"tid\":2,\"slice\":10,"
		"\"from\":1,\"to\":2,\"from_after\":3121,\"to_after\":1024,"
		"\"weight\":1024,\"why\":\"fill\"}],\"reject\":{\"tid\":1,"
		"\"slice\":10,\"from\":1,\"to\":3,\"from_after\":0,"
		"\"to_after\":3121,\"weight\":3121,\"why\":\"overshoot\"},"
		"\"reason\":\"no_gain\"}";
	if (!strstr(buf, want))
		HTEST_FAIL_("got %.400s", buf);
	CHECK(strstr(buf, "\"policy\":\"alb\"") != NULL);
	setup(4, "count");
	addn(1, 1, 0);
	d = lb_log_next(&log);
	lb_place(&pol, &snap, 10, &(struct lb_new_thread){.slice_ms = 5}, d);
	lb_decision_json(d, buf, sizeof(buf));
	if (!strstr(buf, "\"nrun\":[0,1,0,0],\"avg\":3.33,\"hi\":3.33,"
			 "\"lo\":3.33,\"state\":[\"excluded\",\"heavy\","
			 "\"light\",\"light\"],\"metric\":\"nrun\","
			 "\"navg\":0.33,\"moves\":[{\"tid\":null,\"slice\":5,"
			 "\"from\":null,\"to\":2,\"from_after\":null,"
			 "\"to_after\":1,\"weight\":1024,\"why\":\"fewest\"}]"))
		HTEST_FAIL_("got %.400s", buf);
}

HTEST(json_worst_case_with_weights)
{
	char big[LB_JSON_MAX];
	struct lb_decision d = {.policy = "alb", .conf.ncpus = 8,
				.kind = LB_KIND_REBALANCE,
				.metric = LB_METRIC_WEIGHT, .msum = ~0UL / 200,
				.nmoves = LB_MAX_MOVES, .has_reject = true};
	for (unsigned c = 0; c < 8; c++) {
		d.v.load[c] = d.v.weight[c] = ~0UL;
		d.v.nrun[c] = ~0u;
	}
	d.seq = d.time = ~0UL;
	d.v.has_nrun = d.v.has_weight = true;
	d.conf.mask = 0xff;
	d.conf.neligible = 1;
	d.sum = ~0UL / 200;
	for (unsigned i = 0; i < LB_MAX_MOVES; i++)
		d.move[i] = (struct lb_dmove){~0u, ~0u, 7, 7, ~0UL, ~0UL, ~0u,
					      LB_W_OVERSHOOT};
	d.reject = d.move[0];
	int n = lb_decision_json(&d, big, sizeof(big));
	printf("# worst-case alb line: %d bytes\n", n);
	CHECK(n > 0 && n < LB_JSON_MAX);
	CHECK_EQ(n, (int)strlen(big));
}

HTEST(tunables_of_alb_and_count)
{
	long v = 0;
	for (unsigned k = 0; k < 2; k++) {
		CHECK_EQ(lb_policy_init(&pol, k ? "count" : "alb"), 0);
		CHECK(!strcmp(pol.name, k ? "count" : "alb"));
		CHECK_EQ(lb_tunable_get(&pol, "max_moves", &v), 0);
		CHECK_EQ(v, 8);
		CHECK_EQ(lb_tunable_get(&pol, "threshold_pct", &v), 0);
		CHECK_EQ(v, 0);
		CHECK_EQ(lb_tunable_get(&pol, "period_ms", &v), 0);
		CHECK_EQ(v, 100);
		CHECK_EQ(lb_tunable_get(&pol, "include_root", &v), 0);
		CHECK_EQ(v, 0);
		CHECK_EQ(lb_tunable_set(&pol, "max_moves", LB_MAX_MOVES + 1),
			 LB_E_RANGE);
		CHECK_EQ(lb_tunable_set(&pol, "idle_trigger", 1), LB_E_NAME);
	}
}
