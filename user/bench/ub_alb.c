/*
 * ubench=alb: paper 001's experiments (Tables I to VI) with Fulcrum's own
 * CPU-bound workloads (wl_*.c) under the "count" policy (runnable counts,
 * the paper's original kernel) and "alb" (average weight of tasks), under
 * multi-threaded TCG.
 *
 *   single workload   one workload at a time, wl_threads threads (default
 *                     5) of nice 0 (Tables I, II, V)
 *   multiple          the sets of Table III, two workloads of wl_threads
 *                     threads each, the first at nice 0, the second at
 *                     nice 5: set1 matmul + crc (timed compilation +
 *                     flac), set2 lz77 + queens (gzip + sunflow), set3
 *                     crc + queens (flac + sunflow) (Tables III, IV, VI)
 *
 * One run: bal_init(policy), bal_start (timer rounds, the policy's
 * default period), spawn every thread through bal_thread_spawn (the
 * policy places it, with its nice), each does its fixed share of work
 * and ends. This program (core 0) samples every 10 ms the spread of the
 * per-core weights (max - min over the cores the policies place on,
 * 1..n-1; the load area's weight) until the last thread ends, then stops
 * the balancer. Figures of a run:
 *   completion   last thread's end minus the first spawn, ms
 *   migrations   threads that arrived at some core (load area mig_in)
 *   imbalance    mean of the sampled max - min weight
 *   completion_vs_busy  completion over the cores' busy time in the run
 *                (load area, cores 1..n-1) / their number, permille:
 *                1000 when no core idles before the end; the host's
 *                varying speed cancels out of it (as in ub_matmul.c)
 * Each repetition runs every set under both policies, the order of the
 * two alternating from one repetition to the next. Every thread's
 * checksum must equal its workload's reference (computed once, on core
 * 0, before the runs), or the benchmark fails.
 * Boot arguments: wl_repeat=1..9 (default 3), wl_threads=1..8,
 * wl_scale=percent of the default work (default 100).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/ful.h>

#include "../balancer/balancer.h"
#include "../tests/utest.h"
#include "wl.h"

#define AL_MAX_REPEAT	9
#define AL_REPEAT	3
#define AL_THREADS	5
#define AL_NICE_B	5
#define AL_PRIO		100
#define AL_SLICE_MS	10
#define AL_SAMPLE_US	10000
#define AL_RUN_TIMEOUT	120000000UL
#define AL_MAX_PER_RUN	(2 * WL_MAX_THREADS)

enum { AL_LZ77, AL_CRC, AL_QUEENS, AL_MATMUL, AL_MEMCPY, AL_NWL };
enum { AL_COUNT, AL_ALB, AL_NPOL };

static const struct wl_def *const al_wl[AL_NWL] = {
	&wl_lz77, &wl_crc, &wl_queens, &wl_matmul, &wl_memcpy};
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

struct al_thread {
	const struct wl_def *w;
	unsigned slot;
	uint64_t sum;
	unsigned long end;
	struct ful_thread th;
};

struct al_run {
	unsigned long completion_ms, migrations, imbalance;
	unsigned long vs_busy; /* permille: completion over busy / cores */
};

static struct {
	long done; /* notification: the last thread ended */
	_Atomic unsigned left;
	unsigned ncpus, threads, repeat, scale;
	uint64_t ref[AL_NWL];
	struct al_thread t[AL_MAX_PER_RUN];
	struct al_run run[AL_NSETS][AL_NPOL][AL_MAX_REPEAT];
} al;

static void al_thread_main(void *arg)
{
	struct al_thread *t = arg;
	t->sum = t->w->work(t->slot);
	t->end = ful_counter();
	if (atomic_fetch_sub(&al.left, 1) == 1)
		ful_ntfn_signal((unsigned)al.done, 1);
}

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

/** Spawn the threads of workload @wl at @nice from index @at. */
static int al_spawn(int wl, int nice, unsigned at)
{
	for (unsigned i = 0; i < al.threads; i++) {
		struct al_thread *t = &al.t[at + i];
		*t = (struct al_thread){.w = al_wl[wl], .slot = i};
		struct ful_thread_args a = {.fn = al_thread_main,
					    .arg = t,
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS,
					    .prio = AL_PRIO,
					    .slice_ms = AL_SLICE_MS,
					    .nice = nice,
					    .name = al_wl[wl]->name};
		int err = bal_thread_spawn(&a, &t->th);
		if (err)
			return err;
	}
	return 0;
}

/** Wait for the last thread, sampling the spread; its mean or ~0UL. */
static unsigned long al_wait(void)
{
	unsigned long sum = 0, n = 0, bits;
	unsigned long dl = ful_counter() + ful_us_to_ticks(AL_RUN_TIMEOUT);
	while (atomic_load(&al.left)) {
		sum += al_spread();
		n++;
		ful_ntfn_wait((unsigned)al.done, &bits, AL_SAMPLE_US);
		if (ful_counter() > dl)
			return ~0UL;
	}
	return n ? sum / n : 0;
}

/** Reap the @n threads and check their sums; 0 or -FUL_E*. */
static int al_finish(unsigned n, const struct al_set *s)
{
	int err = 0;
	for (unsigned i = 0; i < n; i++) {
		struct al_thread *t = &al.t[i];
		if (t->th.mem)
			ful_thread_reap(&t->th, UT_TIMEOUT_US);
		int wl = t->w == al_wl[s->a] ? s->a : s->b;
		if (t->sum == 0 || t->sum != al.ref[wl]) {
			printf("alb: %s thread %u (%s) computed a wrong "
			       "result\n", s->name, i, t->w->name);
			err = -FUL_EINVAL;
		}
	}
	return err;
}

/** One run of set @s under policy @p; 0 or -FUL_E*. */
static int al_run_one(unsigned s, unsigned p, struct al_run *out)
{
	const struct al_set *set = &al_sets[s];
	unsigned n = al.threads * (set->b < 0 ? 1 : 2);
	int err = bal_init(al_pol[p]);
	err = err ? err : bal_start();
	if (err)
		return err;
	atomic_store(&al.left, n);
	unsigned long m0 = al_mig_in(), t0 = ful_counter(), b0 = al_busy(t0);
	err = al_spawn(set->a, 0, 0);
	if (!err && set->b >= 0)
		err = al_spawn(set->b, AL_NICE_B, al.threads);
	unsigned long imb = err ? 0 : al_wait();
	bal_stop();
	out->migrations = al_mig_in() - m0;
	if (err || imb == ~0UL)
		return err ? err : -FUL_ETIMEOUT;
	unsigned long end = t0;
	for (unsigned i = 0; i < n; i++)
		end = al.t[i].end > end ? al.t[i].end : end;
	out->completion_ms = ful_ticks_to_us(end - t0) / 1000;
	unsigned long ideal = (al_busy(end) - b0) / (al.ncpus - 1);
	out->vs_busy = (end - t0) * 1000 / (ideal | 1);
	out->imbalance = imb;
	return al_finish(n, set);
}

/** Every repetition of every set under both policies. */
static int al_run_all(void)
{
	for (unsigned rep = 0; rep < al.repeat; rep++)
		for (unsigned s = 0; s < AL_NSETS; s++)
			for (unsigned k = 0; k < AL_NPOL; k++) {
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

/** Boot arguments, inputs and references; false on failure. */
static bool al_setup(void)
{
	al.ncpus = ut_ncpus();
	if (al.ncpus < 3) {
		printf("alb: needs at least 3 cores\n");
		return false;
	}
	al.repeat = al_arg("wl_repeat", AL_REPEAT, 1, AL_MAX_REPEAT);
	al.threads = al_arg("wl_threads", AL_THREADS, 1, WL_MAX_THREADS);
	al.scale = al_arg("wl_scale", 100, 1, 10000);
	al.done = ut_ntfn_new();
	if (al.done <= 0)
		return false;
	for (unsigned w = 0; w < AL_NWL; w++) {
		unsigned long t0 = ful_counter();
		al_wl[w]->setup(al.scale);
		al.ref[w] = al_wl[w]->work(0);
		printf("alb: %s (for %s): one thread's share %lu ms on core 0\n",
		       al_wl[w]->name, al_wl[w]->paper,
		       ful_ticks_to_us(ful_counter() - t0) / 1000);
		if (!al.ref[w]) {
			printf("alb: %s fails its own check\n", al_wl[w]->name);
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
