/*
 * ubench=alb: paper 001's experiments (Tables I to VI) with Fulcrum's own
 * CPU-bound workloads, each a program of its own (user/workloads), under
 * the "count" policy (runnable counts, the paper's original kernel) and
 * "alb" (average weight of tasks), under multi-threaded TCG.
 *
 *   single workload   one program at a time, wl_threads threads (default
 *                     5) of nice 0 (Tables I, II, V)
 *   multiple          the sets of Table III, two programs of wl_threads
 *                     threads each, the first at nice 0, the second at
 *                     nice 5: set1 matmul + crc (timed compilation +
 *                     flac), set2 lz77 + queens (gzip + sunflow), set3
 *                     crc + queens (flac + sunflow) (Tables III, IV, VI)
 *
 * This program runs the policy under test in a balancer of its own
 * (bal_init, bal_start: timer rounds at the policy's default period) and
 * serves its placements to the programs it starts (bal_serve_start: the
 * placement capability they get in FUL_SLOT_PLACE), so each of their
 * threads is placed by the policy with its nice value when the program
 * creates it. A program starts on core 0 (this program's, which the
 * policies do not place on), sets its inputs up there, starts its
 * threads and sleeps until they end. The second program of a set starts
 * once the first one's threads are all placed, so that the placements
 * come in the same order in every run. This program samples every
 * 5 ms the spread of the per-core weights (max - min over cores
 * 1..n-1; the load area's weight) until both programs have ended.
 * Figures of a run:
 *   completion   the last program's end minus the first placement, ms
 *   migrations   threads that arrived at some core (load area mig_in)
 *   imbalance    mean of the sampled max - min weight
 *   completion_vs_busy  completion over the cores' busy time in the run
 *                (load area, cores 1..n-1) / their number, permille:
 *                1000 when no core idles before the end; the host's
 *                varying speed cancels out of it (as in ub_matmul.c)
 * Each repetition runs every set under both policies, the order of the
 * two alternating from one repetition to the next. Every program must
 * exit 0: each of its threads computed the same checksum, which its
 * workload checks itself (a round trip, a known answer, a second
 * algorithm); each program also runs once alone before the runs.
 * Boot arguments: wl_repeat=1..9 (default 3), wl_threads=1..8,
 * wl_scale=percent of the default work (default 100; bench_quick: one
 * repetition at 1 %); diagnostics, not
 * for make bench: wl_log=1 prints each run's decisions (LBLOG lines,
 * the last LB_LOG_SIZE of the run), wl_sets_only=1 runs the sets only
 * (and reports them only).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/ful.h>
#include <ful/posix.h>

#include "../balancer/balancer.h"
#include "tests/user/tests/utest.h"
#include "ub.h"

#define AL_MAX_REPEAT	9
#define AL_REPEAT	3
#define AL_THREADS	5
#define AL_MAX_THREADS	8
#define AL_NICE_B	5
#define AL_SAMPLE_US	5000
#define AL_RUN_TIMEOUT	120000000UL
#define AL_POOL_KIB	256

enum { AL_LZ77, AL_CRC, AL_QUEENS, AL_MATMUL, AL_MEMCPY, AL_NWL };
enum { AL_COUNT, AL_ALB, AL_NPOL };

static const char *const al_wl[AL_NWL] = {"lz77", "crc", "queens",
					  "matmul", "memcpy"};
static const char *const al_pol[AL_NPOL] = {"count", "alb"};

/* The sets: one workload (b < 0) or a pair of Table III. */
static const struct al_set {
	const char *name;
	int a, b;
} al_sets[] = {
	{"lz77", AL_LZ77, -1},	   {"crc", AL_CRC, -1},
	{"queens", AL_QUEENS, -1}, {"matmul", AL_MATMUL, -1},
	{"memcpy", AL_MEMCPY, -1}, {"set1", AL_MATMUL, AL_CRC},
	{"set2", AL_LZ77, AL_QUEENS}, {"set3", AL_CRC, AL_QUEENS},
};
#define AL_NSETS (sizeof(al_sets) / sizeof(al_sets[0]))

/* A program of a run. */
struct al_prog {
	struct ful_proc p;
	bool live;
	int status;
	unsigned long end; /* counter when its end was seen */
};

struct al_run {
	unsigned long completion_ms, migrations, imbalance;
	unsigned long vs_busy; /* permille: completion over busy / cores */
};

static struct {
	unsigned ncpus, threads, repeat, scale;
	unsigned log;      /* wl_log=1: each run's decisions as LBLOG lines */
	unsigned sets_only; /* wl_sets_only=1: the Table III sets only */
	long place; /* the placement capability the programs get */
	struct al_prog prog[2];
	unsigned long b0_at, b0; /* al_busy() when the first thread came */
	struct al_run run[AL_NSETS][AL_NPOL][AL_MAX_REPEAT];
} al;

/** Threads that arrived at some core so far. */
static unsigned long al_mig_in(void)
{
	unsigned long sum = 0;
	for (unsigned c = 0; c < al.ncpus; c++) {
		struct ful_load_cpu r;
		ful_load_read_cpu(ful_load_area(), c, &r);
		sum += r.mig_in;
	}
	return sum;
}

/** max - min of the per-core weights, cores 1..n-1. */
static unsigned long al_spread(void)
{
	unsigned long lo = ~0UL, hi = 0;
	for (unsigned c = 1; c < al.ncpus; c++) {
		struct ful_load_cpu r;
		ful_load_read_cpu(ful_load_area(), c, &r);
		lo = r.weight < lo ? r.weight : lo;
		hi = r.weight > hi ? r.weight : hi;
	}
	return hi - lo;
}

/** Busy ticks of cores 1..n-1 together, extrapolated to @now. */
static unsigned long al_busy(unsigned long now)
{
	unsigned long sum = 0;
	for (unsigned c = 1; c < al.ncpus; c++) {
		struct ful_load_cpu r;
		unsigned long busy, idle;
		ful_load_read_cpu(ful_load_area(), c, &r);
		ful_load_cpu_times(&r, now, &busy, &idle);
		sum += busy;
	}
	return sum;
}

/** Start program @wl with @threads threads at @nice as @g; 0 or -FUL_E*. */
static int al_spawn(int wl, unsigned threads, int nice, bool verbose,
		    struct al_prog *g)
{
	char th[16], ni[16], sc[16];
	snprintf(th, sizeof(th), "threads=%u", threads);
	snprintf(ni, sizeof(ni), "nice=%d", nice);
	snprintf(sc, sizeof(sc), "scale=%u", al.scale);
	char *argv[] = {(char *)al_wl[wl], th, ni, sc,
			verbose ? "-v" : NULL, NULL};
	struct ful_proc_attr a = {.cpu = 0,
				  .pool_kib = AL_POOL_KIB,
				  .place = (unsigned)al.place};
	*g = (struct al_prog){0};
	int err = ful_proc_spawn(al_wl[wl], argv, &a, &g->p);
	g->live = !err;
	return err;
}

/** Look for @g's end for up to @us; true once it has ended. */
static bool al_poll(struct al_prog *g, unsigned long us)
{
	if (g->live && ful_proc_wait(&g->p, &g->status, us) == 0) {
		g->live = false;
		g->end = ful_counter();
	}
	return !g->live;
}

/** Wait until the served count of placements (or, with @settled, of
 *  settled threads) reaches @target, or @g ended; false after the run's
 *  timeout. */
static bool al_wait_served(bool settled, unsigned long target,
			   struct al_prog *g)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(AL_RUN_TIMEOUT);
	for (;;) {
		struct bal_serve_stats st;
		bal_serve_stats(&st, false);
		if ((settled ? st.settled : st.places) >= target ||
		    al_poll(g, 1000))
			return true;
		if (ful_counter() > dl)
			return false;
	}
}

/** Wait for the @n programs' ends, sampling the spread: its mean, or
 *  ~0UL after the run's timeout (the programs are killed). */
static unsigned long al_wait(unsigned n)
{
	unsigned long sum = 0, k = 0;
	unsigned long dl = ful_counter() + ful_us_to_ticks(AL_RUN_TIMEOUT);
	for (;;) {
		bool all = true;
		sum += al_spread();
		k++;
		for (unsigned i = 0; i < n; i++)
			all &= al_poll(&al.prog[i], AL_SAMPLE_US / n);
		if (all)
			return k ? sum / k : 0;
		if (ful_counter() > dl)
			break;
	}
	for (unsigned i = 0; i < n; i++)
		if (al.prog[i].live)
			ful_proc_kill(&al.prog[i].p);
	return ~0UL;
}

/** Start the programs of set @set; 0 or -FUL_E*. */
static int al_start(const struct al_set *set)
{
	struct bal_serve_stats st;
	bal_serve_stats(&st, true);
	int err = al_spawn(set->a, al.threads, 0, false, &al.prog[0]);
	/* The cores' busy time from when the first thread comes (within a
	 * poll, 1 ms, of its placement): completion_vs_busy's base. */
	if (!err && !al_wait_served(false, st.places + 1, &al.prog[0]))
		err = -FUL_ETIMEOUT;
	al.b0_at = ful_counter();
	al.b0 = al_busy(al.b0_at);
	if (!err && set->b >= 0) {
		if (!al_wait_served(true, st.settled + al.threads,
				    &al.prog[0]))
			err = -FUL_ETIMEOUT;
		if (!err)
			err = al_spawn(set->b, al.threads, AL_NICE_B, false,
				       &al.prog[1]);
	}
	return err;
}

/** The programs' exit statuses: 0, or -FUL_EINVAL if one failed. */
static int al_finish(unsigned n, const struct al_set *s)
{
	int err = 0;
	for (unsigned i = 0; i < n; i++)
		if (al.prog[i].status) {
			printf("alb: %s: %s exited with status %#x\n", s->name,
			       al_wl[i ? s->b : s->a], al.prog[i].status);
			err = -FUL_EINVAL;
		}
	return err;
}

/** One run of set @s under policy @p; 0 or -FUL_E*. */
static int al_run_one(unsigned s, unsigned p, struct al_run *out)
{
	const struct al_set *set = &al_sets[s];
	unsigned n = set->b < 0 ? 1 : 2;
	int err = bal_init(al_pol[p]);
	err = err ? err : bal_start();
	if (err)
		return err;
	unsigned long m0 = al_mig_in(), seq0 = bal_log_next();
	err = al_start(set);
	unsigned long imb = al_wait(err ? (al.prog[0].live ? 1 : 0) : n);
	bal_stop();
	out->migrations = al_mig_in() - m0;
	if (al.log) { /* the ring keeps the last LB_LOG_SIZE */
		unsigned long next = bal_log_next();
		printf("alb: log %s %s from %lu to %lu\n", set->name,
		       al_pol[p], seq0, next);
		bal_log_dump(next - seq0 > LB_LOG_SIZE ? next - LB_LOG_SIZE
						       : seq0);
	}
	if (err || imb == ~0UL)
		return err ? err : -FUL_ETIMEOUT;
	struct bal_serve_stats st;
	bal_serve_stats(&st, false);
	unsigned long t0 = st.first_place, end = t0;
	for (unsigned i = 0; i < n; i++)
		end = al.prog[i].end > end ? al.prog[i].end : end;
	if (!t0)
		return -FUL_ESTATE; /* no thread was placed */
	out->completion_ms = ful_ticks_to_us(end - t0) / 1000;
	unsigned long ideal = (al_busy(end) - al.b0) / (al.ncpus - 1);
	out->vs_busy = (end - al.b0_at) * 1000 / (ideal | 1);
	out->imbalance = imb;
	return al_finish(n, set);
}

/** Every repetition of every set under both policies. */
static int al_run_all(void)
{
	for (unsigned rep = 0; rep < al.repeat; rep++)
		for (unsigned s = 0; s < AL_NSETS; s++)
			for (unsigned k = 0; k < AL_NPOL; k++) {
				if (al.sets_only && al_sets[s].b < 0)
					continue;
				unsigned p = (k + rep + s) % AL_NPOL;
				struct al_run *r = &al.run[s][p][rep];
				int err = al_run_one(s, p, r);
				if (err) {
					printf("alb: %s %s failed: %d\n",
					       al_sets[s].name, al_pol[p], err);
					return err;
				}
				printf("alb: rep %u %-6s %-5s completion %lu ms "
				       "(%lu permille of busy / cores), "
				       "migrations %lu, imbalance %lu\n",
				       rep, al_sets[s].name, al_pol[p],
				       r->completion_ms, r->vs_busy,
				       r->migrations, r->imbalance);
			}
	return 0;
}

/** The BENCH lines; how many. */
static unsigned al_report(void)
{
	static const char *const fig[] = {"completion", "migrations",
					  "imbalance", "completion_vs_busy"};
	static const char *const unit[] = {"ms", "threads", "weight",
					   "permille"};
	unsigned lines = 0;
	for (unsigned s = 0; s < AL_NSETS; s++)
		for (unsigned p = 0; p < AL_NPOL; p++)
			for (unsigned f = 0; f < 4; f++) {
				if (al.sets_only && al_sets[s].b < 0)
					break;
				unsigned long v[AL_MAX_REPEAT];
				for (unsigned r = 0; r < al.repeat; r++) {
					const struct al_run *x =
						&al.run[s][p][r];
					v[r] = f == 0	? x->completion_ms
					       : f == 1 ? x->migrations
					       : f == 2 ? x->imbalance
							: x->vs_busy;
				}
				char name[64];
				snprintf(name, sizeof(name), "%s_%s_%s",
					 fig[f], al_pol[p], al_sets[s].name);
				ful_bench_print(name, unit[f], v, al.repeat);
				lines++;
			}
	return lines;
}

static unsigned al_arg(const char *key, unsigned def, unsigned lo,
		       unsigned hi)
{
	char v[16];
	if (!ut_bootarg(key, v, sizeof(v)))
		return def;
	unsigned long x = strtoul(v, NULL, 10);
	return x >= lo && x <= hi ? (unsigned)x : def;
}

/** Boot arguments, the balancer's server, and each program once alone
 *  (it must pass its own check); false on failure. */
static bool al_setup(void)
{
	al.ncpus = ut_ncpus();
	if (al.ncpus < 3) {
		printf("alb: needs at least 3 cores\n");
		return false;
	}
	al.repeat =
		ub_count(al_arg("wl_repeat", AL_REPEAT, 1, AL_MAX_REPEAT), 1);
	al.threads = al_arg("wl_threads", AL_THREADS, 1, AL_MAX_THREADS);
	al.scale = ub_count(al_arg("wl_scale", 100, 1, 10000), 1);
	al.log = al_arg("wl_log", 0, 0, 1);
	al.sets_only = al_arg("wl_sets_only", 0, 0, 1);
	al.place = bal_init("count") ? -FUL_EINVAL : bal_serve_start();
	if (al.place < 0) {
		printf("alb: no balancer to serve: error %ld\n", al.place);
		return false;
	}
	for (unsigned w = 0; w < AL_NWL; w++) {
		unsigned long t0 = ful_counter();
		struct al_prog *g = &al.prog[0];
		int err = al_spawn((int)w, 1, 0, true, g);
		for (unsigned k = 0; !err && !al_poll(g, 100000); k++)
			if (k == AL_RUN_TIMEOUT / 100000) {
				ful_proc_kill(&g->p);
				err = -FUL_ETIMEOUT;
			}
		printf("alb: %s alone, one thread: %lu ms, status %d\n",
		       al_wl[w], ful_ticks_to_us(g->end - t0) / 1000,
		       err ? err : g->status);
		if (err || g->status) {
			printf("alb: %s fails its own check\n", al_wl[w]);
			return false;
		}
	}
	return true;
}

unsigned ub_alb_run(void)
{
	if (!al_setup())
		return 0;
	unsigned long t0 = ful_counter();
	if (al_run_all())
		return 0;
	printf("alb: %u repetitions, %u threads per workload, scale %u%%, "
	       "took %lu ms\n", al.repeat, al.threads, al.scale,
	       ful_ticks_to_us(ful_counter() - t0) / 1000);
	return al_report();
}
