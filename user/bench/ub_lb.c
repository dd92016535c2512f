/*
 * Balancing decision benchmarks (ubench=lb): instructions per decision,
 * read with ful_cycles() (PMCCNTR_EL0, one count per instruction under
 * -icount shift=0), 50 runs each after two warm-up runs.
 *
 * The load area is fabricated in this program's memory with the exact ABI
 * layout (struct ful_load_page, written by lb_fake like the kernel writes
 * the real one), not the live area: the benchmark must be deterministic,
 * and under -icount the other cores must stay idle, so no thread may run
 * and change the figures while we measure. The runs do not apply their
 * moves, so each run sees the same area.
 *
 *   get_free_core             mginkgo placement, 4 cores, 64 threads
 *   get_transfer_task         mginkgo rebalance (one move), same area
 *   get_free_core_c<C>_t<T>   the same on C = 2, 4, 8, 16, 32 cores and
 *   get_transfer_task_c<C>_t<T>  T = 8, 64, 256 threads
 *   get_free_core_c<C>,       the same as get_free_core on C = 16, 32
 *   get_transfer_task_c<C>    cores (64 threads; issue 16's names)
 *   lb_index_rebuild_c4_t<T>  rebuilding the thread index after a tgen
 *                             change (the cost the two above skip)
 *   fulcrum_rebalance         the refinement, 4 cores, 64 threads (it
 *                             makes several moves in one round)
 *   lb_place_<p>, lb_rebalance_<p>   alb and count (paper 001), 4 cores,
 *                             64 threads, nice values -5..5 mixed in:
 *                             a placement, and a rebalance of one move
 *                             (max_moves 1: the cost per move, as
 *                             get_transfer_task's); also _c4_t<T> for
 *                             T = 8, 64, 256
 *   lb_round_<p>              a whole round of up to 8 moves (max_moves
 *                             8, the default), 4 cores, 64 threads
 *   lb_place_opzone           opzone (paper 004) placement and rebalance
 *   lb_rebalance_opzone       (trigger "busiest", one move), 4 cores,
 *   lb_{place,rebalance}_opzone_c4_t<T>   64 threads; and T = 8, 64, 256
 *                             (utilization figures in the area: below)
 *   balancer_round            a whole timer-triggered round of the live
 *   balancer_share            balancer, and its share of a core (below)
 *
 * Each figure includes taking a log record, reading the per-core figures
 * from the area (seqcount reads) and filling the decision record. The
 * balancer is on core 0 and is excluded, as in the paper; with 2 cores
 * that would leave one worker and nothing to decide, so there the
 * balancer's core (core 0) takes part (include_root = 1).
 *
 * Area: 2/3 of the threads on core 1, the rest spread over the other
 * cores; slices 10 + (7 i mod 41) ms; every fourth thread blocked.
 */
#include <stdio.h>
#include <string.h>

#include <ful/ful.h>

#include "../policy/lb.h"
#include "../policy/lb_fake.h"
#include "../balancer/balancer.h"
#include "tests/user/tests/utest.h"

#define LB_RUNS 50
#define LB_WARMUP 2

static unsigned bench_round(void);

static struct ful_load_page fake_area __attribute__((aligned(4096)));
static struct lb_snap snap;
static struct lb_policy pol;
static struct lb_log dlog;
static struct ful_move moves[LB_MAX_MOVES];
static unsigned long samples[LB_RUNS];
static unsigned long read_cost;
/* opzone's clock: a time that matches the fabricated windows (the
 * other policies' decisions take the time read at the start of a run). */
static unsigned long bench_now;

/** Fill the fabricated area: @ncpus cores, @nthreads threads. */
static void fabricate(unsigned ncpus, unsigned nthreads)
{
	unsigned first = ncpus > 2 ? 1 : 0, heavy = nthreads * 2 / 3;
	unsigned others = ncpus - first - 1;
	lb_fake_init(&fake_area, ncpus);
	for (unsigned i = 0; i < nthreads; i++) {
		unsigned cpu = i < heavy ? first + 0
					 : first + 1 + (i - heavy) % others;
		unsigned state = i % 4 == 3 ? FUL_TS_BLOCKED : FUL_TS_READY;
		lb_fake_add(&fake_area, i + 1, cpu, 10 + (7 * i) % 41, state);
	}
	fake_area.hdr.nthreads = FUL_LOAD_THREADS; /* as the kernel does */
	lb_snap_init(&snap, &fake_area, 0);
}

static void policy_for(const char *name, unsigned ncpus)
{
	lb_policy_init(&pol, name);
	if (ncpus <= 2)
		lb_tunable_set(&pol, "include_root", 1);
}

static void print_samples(const char *name)
{
	ful_bench_print(name, "instructions", samples, LB_RUNS);
}

/** Time placement decisions; the last decision stays in dlog. */
static void bench_place(const char *name)
{
	struct lb_new_thread nt = {.slice_ms = 20};
	for (int i = -LB_WARMUP; i < LB_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		struct lb_decision *d = lb_log_next(&dlog);
		unsigned cpu = lb_place(&pol, &snap, t0, &nt, d);
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			samples[i] = t1 - t0 - read_cost;
		(void)cpu;
	}
	print_samples(name);
}

/** Time rebalance decisions (moves not applied). Returns the moves of
 *  the last one. */
static unsigned bench_rebalance(const char *name)
{
	unsigned n = 0;
	for (int i = -LB_WARMUP; i < LB_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		struct lb_decision *d = lb_log_next(&dlog);
		n = lb_rebalance(&pol, &snap, t0, LB_TRIG_TIMER, moves,
				 LB_MAX_MOVES, d);
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			samples[i] = t1 - t0 - read_cost;
	}
	print_samples(name);
	return n;
}

/** Time index rebuilds (as after any tgen change). */
static void bench_rebuild(const char *name)
{
	for (int i = -LB_WARMUP; i < LB_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		lb_snap_index(&snap);
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			samples[i] = t1 - t0 - read_cost;
	}
	print_samples(name);
}

/** Print the last decision record as JSON (for the log, not parsed). */
static void show_last(void)
{
	static char buf[LB_JSON_MAX];
	const struct lb_decision *d = lb_log_get(&dlog, dlog.next - 1);
	if (d && lb_decision_json(d, buf, sizeof(buf)) < (int)sizeof(buf))
		printf("lb: %s\n", buf);
}

/** One placement and one rebalance entry on @ncpus x @nthreads. */
static unsigned bench_pair(const char *place, const char *rebal,
			   unsigned ncpus, unsigned nthreads, bool show)
{
	fabricate(ncpus, nthreads);
	policy_for("mginkgo", ncpus);
	bench_place(place);
	if (show)
		show_last();
	if (bench_rebalance(rebal) != 1)
		printf("ub_lb: %s made no move (%s)\n", rebal,
		       lb_reason_name(dlog.rec[(dlog.next - 1) % LB_LOG_SIZE]
					      .reason));
	if (show)
		show_last();
	return 2;
}

/** Nice values -5..5 on the fabricated threads (alb weighs them). */
static void mix_nice(unsigned nthreads)
{
	for (unsigned i = 0; i < nthreads; i++)
		lb_fake_set_nice(&fake_area, i + 1, (int)((7 * i) % 11) - 5);
}

/** Placement and one-move rebalance of @policy (alb, count) on 4 cores
 *  and @nthreads threads, named with @sfx; with @round, also a whole
 *  round of up to 8 moves. Returns the BENCH lines. */
static unsigned bench_metric(const char *policy, unsigned nthreads,
			     const char *sfx, bool round)
{
	char p[48], r[48];
	fabricate(4, nthreads);
	mix_nice(nthreads);
	policy_for(policy, 4);
	lb_tunable_set(&pol, "max_moves", 1);
	snprintf(p, sizeof(p), "lb_place_%s%s", policy, sfx);
	snprintf(r, sizeof(r), "lb_rebalance_%s%s", policy, sfx);
	bench_place(p);
	if (round)
		show_last();
	if (bench_rebalance(r) != 1)
		printf("ub_lb: %s made no move (%s)\n", r,
		       lb_reason_name(dlog.rec[(dlog.next - 1) % LB_LOG_SIZE]
					      .reason));
	if (!round)
		return 2;
	show_last();
	lb_tunable_set(&pol, "max_moves", 8);
	snprintf(r, sizeof(r), "lb_round_%s", policy);
	printf("ub_lb: %s makes %u moves per round here\n", policy,
	       bench_rebalance(r));
	show_last();
	return 3;
}

/**
 * Utilization figures for opzone on the fabricated area, at the start of
 * window 1000 (100 ms windows): cores 0..3 at 10 / 90 / 30 / 20 %
 * (core 1 holds 2/3 of the threads), each thread 60 to 90 % of the last
 * window, core 1 running its first thread. At the mid spot the busiest
 * core is above the spot and its tasks too: every run makes the move.
 */
static void fabricate_util(unsigned nthreads)
{
	static const unsigned pm[4] = {100, 900, 300, 200};
	unsigned long win = fake_area.hdr.util_win;
	bench_now = 1000 * win;
	for (unsigned c = 0; c < 4; c++)
		lb_fake_cpu_util(&fake_area, c, bench_now, 0, 0, 0, pm[c],
				 pm[c]);
	for (unsigned i = 0; i < nthreads; i++)
		lb_fake_thread_util(&fake_area, i + 1, 1000, 0,
				    win * (600 + 100 * (i % 4)) / 1000);
	fake_area.cpu[1].running = 1;
}

/** bench_place() for opzone: at bench_now. */
static void bench_place_oz(const char *name)
{
	struct lb_new_thread nt = {.slice_ms = 20};
	for (int i = -LB_WARMUP; i < LB_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		struct lb_decision *d = lb_log_next(&dlog);
		lb_place(&pol, &snap, bench_now, &nt, d);
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			samples[i] = t1 - t0 - read_cost;
	}
	print_samples(name);
}

/** bench_rebalance() for opzone: at bench_now, trigger "busiest" (it
 *  declines the timer). */
static unsigned bench_rebalance_oz(const char *name)
{
	unsigned n = 0;
	for (int i = -LB_WARMUP; i < LB_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		struct lb_decision *d = lb_log_next(&dlog);
		n = lb_rebalance(&pol, &snap, bench_now, LB_TRIG_BUSIEST,
				 moves, LB_MAX_MOVES, d);
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			samples[i] = t1 - t0 - read_cost;
	}
	print_samples(name);
	return n;
}

/** opzone's placement and rebalance on 4 cores x @nthreads. */
static unsigned bench_opzone(const char *place, const char *rebal,
			     unsigned nthreads, bool show)
{
	fabricate(4, nthreads);
	fabricate_util(nthreads);
	policy_for("opzone", 4);
	bench_place_oz(place);
	if (show)
		show_last();
	if (bench_rebalance_oz(rebal) != 1)
		printf("ub_lb: %s made no move (%s)\n", rebal,
		       lb_reason_name(dlog.rec[(dlog.next - 1) % LB_LOG_SIZE]
					      .reason));
	if (show)
		show_last();
	return 2;
}

/** One placement on the kernel's live area, printed (not timed): the
 *  readers and the ABI layout against the real thing. */
static void show_live(void)
{
	const struct ful_load_page *live = ful_load_area();
	struct lb_new_thread nt = {.slice_ms = 10};
	if (live->hdr.version != FUL_LOAD_VERSION) {
		printf("ub_lb: no live load area (version %u)\n",
		       live->hdr.version);
		return;
	}
	lb_snap_init(&snap, live, 0);
	lb_policy_init(&pol, "fulcrum");
	lb_place(&pol, &snap, ful_counter(), &nt, lb_log_next(&dlog));
	show_last();
}

/** All the decision benchmarks; returns how many BENCH lines. */
unsigned ub_lb_run(void)
{
	static const unsigned cpus[] = {2, 4, 8, 16, 32};
	static const unsigned threads[] = {8, 64, 256};
	char p[48], r[48];
	unsigned lines = 0;
	read_cost = ful_cycles_overhead();
	lines += bench_pair("get_free_core", "get_transfer_task", 4, 64, true);
	lines += bench_pair("get_free_core_c16", "get_transfer_task_c16", 16,
			    64, false);
	lines += bench_pair("get_free_core_c32", "get_transfer_task_c32", 32,
			    64, false);
	for (unsigned i = 0; i < 5; i++)
		for (unsigned j = 0; j < 3; j++) {
			snprintf(p, sizeof(p), "get_free_core_c%u_t%u", cpus[i],
				 threads[j]);
			snprintf(r, sizeof(r), "get_transfer_task_c%u_t%u",
				 cpus[i], threads[j]);
			lines += bench_pair(p, r, cpus[i], threads[j], false);
		}
	for (unsigned j = 1; j < 3; j++) {
		fabricate(4, threads[j]);
		snprintf(p, sizeof(p), "lb_index_rebuild_c4_t%u", threads[j]);
		bench_rebuild(p);
		lines++;
	}
	fabricate(4, 64);
	policy_for("fulcrum", 4);
	printf("ub_lb: fulcrum makes %u moves per round here\n",
	       bench_rebalance("fulcrum_rebalance"));
	show_last();
	lines++;
	static const char *const metric[] = {"alb", "count"};
	for (unsigned k = 0; k < 2; k++) {
		lines += bench_metric(metric[k], 64, "", true);
		for (unsigned j = 0; j < 3; j++) {
			snprintf(p, sizeof(p), "_c4_t%u", threads[j]);
			lines += bench_metric(metric[k], threads[j], p, false);
		}
	}
	lines += bench_opzone("lb_place_opzone", "lb_rebalance_opzone", 64,
			      true);
	for (unsigned j = 0; j < 3; j++) {
		snprintf(p, sizeof(p), "lb_place_opzone_c4_t%u", threads[j]);
		snprintf(r, sizeof(r), "lb_rebalance_opzone_c4_t%u", threads[j]);
		lines += bench_opzone(p, r, threads[j], false);
	}
	show_live();
	return lines + bench_round();
}

/* (bench_round below) */

/*
 * balancer_round: one whole timer-triggered round of the balancer thread
 * (timer interrupt, wake-up, snapshot, decision, log record, back to
 * sleep and wfi), as the cycles its core spends outside wfi (the load
 * area's `awake`, PMCCNTR based: one per instruction under -icount).
 * Under -icount the counter is virtual time, which every core advances,
 * so nothing else may run while the balancer's core is awake: the
 * bench program waits on a notification (the rootserver waits for it), and the measuring thread, on
 * another core, wakes half a period after each round, reads the
 * balancer core's `awake` and sleeps a period again. Nothing runnable
 * exists elsewhere (a runnable thread would run and be counted), so the
 * decision is the balanced one; the policy is mginkgo at the paper's
 * 100 ms period. Share of a core: instructions per period over the
 * instructions a core runs in a period (1 per ns under -icount shift=0),
 * in parts per billion (paper: 0.0082 % = 82,000 ppb).
 */
#define ROUND_PERIOD_MS 100

static struct {
	long sleep, done;       /* notifications: never signalled / the end */
	unsigned root;          /* the balancer's core */
	bool failed;
	unsigned long round[LB_RUNS];
} rb;

static void rb_sleep_us(unsigned long us)
{
	unsigned long bits;
	ful_ntfn_wait((unsigned)rb.sleep, &bits, us);
}

static unsigned long rb_awake(void)
{
	struct ful_load_cpu c;
	ful_load_read_cpu(ful_load_area(), rb.root, &c);
	return c.awake;
}

/** The measuring thread: one sample per period, half a period after
 *  each round. */
static void rb_main(void *arg)
{
	(void)arg;
	unsigned long r = bal_rounds();
	while (bal_rounds() == r) /* align with the rounds */
		rb_sleep_us(1000);
	rb_sleep_us(ROUND_PERIOD_MS * 500);
	unsigned long a = rb_awake(), n = bal_rounds();
	for (int i = -LB_WARMUP; i < LB_RUNS && !rb.failed; i++) {
		rb_sleep_us(ROUND_PERIOD_MS * 1000);
		unsigned long a2 = rb_awake(), n2 = bal_rounds();
		if (n2 - n != 1)
			rb.failed = true; /* not exactly one round: no sample */
		else if (i >= 0)
			rb.round[i] = a2 - a;
		a = a2, n = n2;
	}
	ful_ntfn_signal((unsigned)rb.done, 1);
}

/** Run the balancer for LB_RUNS + LB_WARMUP periods; BENCH lines. */
static unsigned bench_round(void)
{
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	rb.root = si.cpu;
	rb.sleep = ut_ntfn_new();
	rb.done = ut_ntfn_new();
	struct ful_thread th;
	struct ful_thread_args a = {.fn = rb_main, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = (si.cpu + 1) % si.ncpus,
				    .name = "lbround"};
	if (rb.sleep < 0 || rb.done < 0 || si.ncpus < 2 ||
	    bal_init("mginkgo") || bal_tune("period_ms", ROUND_PERIOD_MS) ||
	    bal_start() || ful_thread_spawn(&a, &th)) {
		printf("ub_lb: balancer_round: set-up failed\n");
		return 0;
	}
	unsigned long bits;
	ful_ntfn_wait((unsigned)rb.done, &bits, FUL_FOREVER);
	bal_stop();
	if (rb.failed) {
		printf("ub_lb: balancer_round: a period without one round\n");
		return 0;
	}
	memcpy(samples, rb.round, sizeof(samples));
	print_samples("balancer_round");
	for (unsigned i = 0; i < LB_RUNS; i++)
		samples[i] = rb.round[i] * 1000 / ROUND_PERIOD_MS; /* ppb */
	ful_bench_print("balancer_share", "ppb", samples, LB_RUNS);
	return 2;
}
