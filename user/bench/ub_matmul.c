/*
 * ubench=matmul: the matrix-multiplication experiment of paper 000
 * (section IV.D, Tables IV and V), under multi-threaded TCG.
 *
 * C = AB with N x N integer matrices split into 2 x 2 blocks of h = N/2;
 * task k computes block k of C (C11, C12, C21, C22: h^2 N multiply-adds,
 * N^3/4), reps(N) times over (mm_sizes). The tasks are threads of the
 * bench program placed directly on their cores (no creation-time placement,
 * as in the paper), slice 10 ms, priority 100:
 *   4 cores (3 workers)  core 1: 5 x task1 + 5 x task2, core 2: 7 x
 *                        task3, core 3: 7 x task4 (the paper's 10/7/7)
 *   3 cores (2 workers)  core 1: 5 x task1 + 5 x task2, core 2: 3 x
 *                        task3 + 3 x task4 (10/6)
 * Core 0 runs this program and, when balancing is on, the balancer
 * thread (timer rounds every 100 ms, the only trigger, as in the paper).
 * Each repetition runs every size three times back to back: balancing
 * off, on with "mginkgo", on with "fulcrum"; ratios are taken within a
 * repetition.
 *
 * One run: spawn the tasks, wait until all block at the gate (a
 * notification), read their runtimes and every core's busy/idle
 * counters, start the balancer, open the gate (t0). The last task to
 * finish signals this program; the makespan is the latest finish time
 * minus t0. The tasks then block again, so the kernel has charged their
 * runtime, and are read before they are released to exit.
 *   ideal     sum of the tasks' runtimes in this run (kernel per-thread
 *             runtime, THREAD_INFO, delta over the run) / workers: the
 *             makespan of a perfectly even schedule of the same work
 *   vs_off    makespan on / makespan off, same repetition
 *   norm      (makespan / ideal) on over the same off: the host gives
 *             the vCPUs more or less time from run to run, and the two
 *             ideals measure that; this ratio cancels it
 *   util      per core, busy counter ticks (load area, extrapolated to
 *             the reading instant from the record's stamp) over the
 *             window from t0 to this program's wake-up
 *   balancer  the balancer thread's runtime over the same window
 * Boot arguments: mm_repeat=<1..9> repetitions (default 5; one, and
 * each block computed once, under bench_quick); mm_even
 * places 8 tasks per worker instead (a check of the ideal).
 * mm_n=<32|64|128|256> and mm_mode=<off|mginkgo|fulcrum> run only that
 * size and mode, print every decision of the balancer (LBLOG lines) and
 * one task's work measured alone on core 0 first, and report no BENCH
 * line: the scenario the simulator is validated against, under -icount
 * (tools/sim_validate.py; docs/simulator.md, "Validation against the
 * emulator").
 * Every task checks its block against a reference (checksums of the
 * blocks computed by the textbook i-j-k loop before the runs) and every
 * repetition of it against its first; a mismatch fails the benchmark.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/ful.h>

#include "../balancer/balancer.h"
#include "tests/user/tests/utest.h"
#include "ub.h"

#define MM_MAXN		   256
#define MM_NSIZES	   4
#define MM_MAX_TASKS	   24
#define MM_MAX_REPEAT	   9
#define MM_REPEAT	   5
#define MM_PRIO		   100
#define MM_SLICE_MS	   10
#define MM_DONE_TIMEOUT_US 300000000UL
#define MM_FNV_SEED	   0xcbf29ce484222325UL
#define MM_FNV_PRIME	   0x100000001b3UL

enum { MM_OFF, MM_MGINKGO, MM_FULCRUM, MM_NMODES };

static const char *const mm_mode_name[MM_NMODES] = {"off", "mginkgo",
						    "fulcrum"};

/* Sizes and how often each task computes its block (see docs). */
static const struct {
	unsigned n, reps;
} mm_sizes[MM_NSIZES] = {{32, 32}, {64, 32}, {128, 20}, {256, 8}};

/** How often each task of size @s computes its block: once under
 *  bench_quick. */
static unsigned mm_reps(unsigned s)
{
	return ub_count(mm_sizes[s].reps, 1);
}

struct mm_task {
	unsigned n, reps, blk; /* blk 0..3: C11, C12, C21, C22 */
	unsigned cpu;	       /* where it is placed */
	unsigned long end;     /* ful_counter() when it finished */
	uint64_t sum;	       /* checksum of its block (first repetition) */
	bool bad;	       /* a later repetition gave another sum */
	unsigned long rt0_us;  /* kernel runtime at the gate */
	struct ful_thread th;
};

/* The figures of one run. */
struct mm_run {
	unsigned long makespan_us, ideal_us, moves;
	unsigned long bal_ppm; /* the balancer thread's runtime */
	unsigned long util_ppm[FUL_LOAD_CPUS];
	unsigned where[FUL_LOAD_CPUS]; /* tasks per core at the end */
};

static int32_t mat_a[MM_MAXN * MM_MAXN], mat_b[MM_MAXN * MM_MAXN];

static struct {
	long gate, done, park; /* notifications */
	_Atomic unsigned left; /* tasks still computing */
	unsigned ntasks, ncpus, workers, repeat;
	bool even;	 /* boot arg mm_even: place 8 per worker */
	int only_n, only_mode; /* mm_n=, mm_mode=: -1 for all */
	uint64_t ref[4]; /* reference checksums of the four blocks */
	struct mm_task task[MM_MAX_TASKS];
	struct mm_run run[MM_NSIZES][MM_NMODES][MM_MAX_REPEAT];
} mm;

static inline uint64_t mm_mix(uint64_t sum, int32_t v)
{
	return (sum ^ (uint32_t)v) * MM_FNV_PRIME;
}

/** Fill A and B (stride @n) with small integers, -8..7. */
static void mm_fill(unsigned n)
{
	uint32_t x = 12345;
	for (unsigned i = 0; i < n * n; i++) {
		x = x * 1103515245u + 12345u;
		mat_a[i] = (int32_t)((x >> 16) & 15) - 8;
		x = x * 1103515245u + 12345u;
		mat_b[i] = (int32_t)((x >> 16) & 15) - 8;
	}
}

/** The reference: block @blk of AB, element by element (i-j-k). */
static uint64_t mm_ref_block(unsigned n, unsigned blk)
{
	unsigned h = n / 2, r0 = (blk >> 1) * h, c0 = (blk & 1) * h;
	uint64_t sum = MM_FNV_SEED;
	for (unsigned i = r0; i < r0 + h; i++)
		for (unsigned j = c0; j < c0 + h; j++) {
			int32_t s = 0;
			for (unsigned k = 0; k < n; k++)
				s += mat_a[i * n + k] * mat_b[k * n + j];
			sum = mm_mix(sum, s);
		}
	return sum;
}

/** A task's work: block @blk of AB, row by row (i-k-j), as a checksum. */
static uint64_t mm_block(unsigned n, unsigned blk)
{
	unsigned h = n / 2, r0 = (blk >> 1) * h, c0 = (blk & 1) * h;
	int32_t row[MM_MAXN / 2];
	uint64_t sum = MM_FNV_SEED;
	for (unsigned i = r0; i < r0 + h; i++) {
		for (unsigned j = 0; j < h; j++)
			row[j] = 0;
		const int32_t *a = &mat_a[i * n];
		for (unsigned k = 0; k < n; k++) {
			const int32_t *b = &mat_b[k * n + c0];
			int32_t aik = a[k];
			for (unsigned j = 0; j < h; j++)
				row[j] += aik * b[j];
		}
		for (unsigned j = 0; j < h; j++)
			sum = mm_mix(sum, row[j]);
	}
	return sum;
}

/** A task: wait at the gate, compute, report, wait to be released. */
static void mm_task_main(void *arg)
{
	struct mm_task *t = arg;
	unsigned long bits;
	ful_ntfn_wait((unsigned)mm.gate, &bits, FUL_FOREVER);
	t->sum = mm_block(t->n, t->blk);
	for (unsigned r = 1; r < t->reps; r++) {
		__asm__ volatile("" ::: "memory"); /* recompute, re-read A, B */
		t->bad |= mm_block(t->n, t->blk) != t->sum;
	}
	t->end = ful_counter();
	if (atomic_fetch_sub(&mm.left, 1) == 1)
		ful_ntfn_signal((unsigned)mm.done, 1);
	ful_ntfn_wait((unsigned)mm.park, &bits, FUL_FOREVER);
}

/** The core of task @i: task1/task2 on core 1, task3/task4 on core 2
 *  and 3 (3 workers, 10/7/7) or both on core 2 (2 workers, 10/6); with
 *  mm_even, the same tasks 8 per worker (the ideal placement). */
static void mm_place(unsigned i, unsigned *blk, unsigned *cpu)
{
	if (i < 10) {
		*blk = i & 1;
		*cpu = 1;
	} else if (mm.workers == 3) {
		*blk = i < 17 ? 2 : 3;
		*cpu = i < 17 ? 2 : 3;
	} else {
		*blk = 2 + (i & 1);
		*cpu = 2;
	}
	if (mm.even)
		*cpu = 1 + i % mm.workers;
}

static unsigned long mm_us(unsigned long ticks)
{
	return ful_ticks_to_us(ticks);
}

/** Wait until every task is blocked (at the gate or parked). */
static bool mm_wait_blocked(void)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	for (unsigned i = 0; i < mm.ntasks; i++) {
		struct ful_thread_info info;
		for (;;) {
			if (ful_thread_info(mm.task[i].th.slot, &info))
				return false;
			if (info.state == FUL_TS_BLOCKED)
				break;
			if (ful_counter() > dl)
				return false;
			ful_yield();
		}
	}
	return true;
}

/** Spawn the tasks of size @s at their cores; 0 or -FUL_E*. */
static int mm_spawn(unsigned s)
{
	mm.ntasks = mm.workers == 3 ? 24 : 16;
	atomic_store(&mm.left, mm.ntasks);
	for (unsigned i = 0; i < mm.ntasks; i++) {
		struct mm_task *t = &mm.task[i];
		*t = (struct mm_task){.n = mm_sizes[s].n,
				      .reps = mm_reps(s)};
		mm_place(i, &t->blk, &t->cpu);
		struct ful_thread_args a = {.fn = mm_task_main,
					    .arg = t,
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS,
					    .prio = MM_PRIO,
					    .cpu = t->cpu,
					    .slice_ms = MM_SLICE_MS,
					    .name = "mm"};
		int err = ful_thread_spawn(&a, &t->th);
		if (err)
			return err;
	}
	return 0;
}

/** Release the parked tasks and reclaim them. */
static void mm_reap(void)
{
	for (unsigned i = 0; i < mm.ntasks; i++)
		ful_ntfn_signal((unsigned)mm.park, 1);
	for (unsigned i = 0; i < mm.ntasks; i++) {
		struct ful_thread *th = &mm.task[i].th;
		if (th->mem)
			ful_thread_reap(th, UT_TIMEOUT_US);
	}
}

/** Busy ticks of every core, extrapolated to @now. */
static void mm_busy(unsigned long now, unsigned long *busy)
{
	for (unsigned c = 0; c < mm.ncpus; c++) {
		struct ful_load_cpu r;
		ful_load_read_cpu(ful_load_area(), c, &r);
		unsigned long idle;
		ful_load_cpu_times(&r, now, &busy[c], &idle);
	}
}

/** The balancer's moves so far (every trigger). */
static unsigned long mm_moves(void)
{
	return bal_moves(LB_TRIG_TIMER) + bal_moves(LB_TRIG_DEMAND) +
	       bal_moves(LB_TRIG_IDLE);
}

/** After the run: runtimes, where the tasks ended, checksums. */
static int mm_collect(struct mm_run *out)
{
	unsigned long total_us = 0;
	if (!mm_wait_blocked())
		return -FUL_ETIMEOUT;
	for (unsigned i = 0; i < mm.ntasks; i++) {
		struct mm_task *t = &mm.task[i];
		struct ful_thread_info info;
		if (ful_thread_info(t->th.slot, &info))
			return -FUL_EDEAD;
		total_us += info.runtime_us - t->rt0_us;
		if (info.cpu < FUL_LOAD_CPUS)
			out->where[info.cpu]++;
		if (t->bad || t->sum != mm.ref[t->blk]) {
			printf("matmul: task %u (block %u, n %u) computed a "
			       "wrong product\n",
			       i, t->blk, t->n);
			return -FUL_EINVAL;
		}
	}
	out->ideal_us = total_us / mm.workers;
	return 0;
}

/** The balancer thread's runtime in us (0 while it does not run). */
static unsigned long mm_bal_us(void)
{
	struct ful_thread_info info;
	return bal_thread_info(&info) ? 0 : info.runtime_us;
}

/**
 * Open the gate, wait for the last task. Fills the makespan, each core's
 * utilization and the balancer's share, over the window from opening
 * the gate to this thread's wake-up.
 */
static int mm_measure(struct mm_run *out)
{
	unsigned long b0[FUL_LOAD_CPUS], b1[FUL_LOAD_CPUS], bits;
	unsigned long r0 = mm_bal_us(), t0 = ful_counter();
	mm_busy(t0, b0);
	for (unsigned i = 0; i < mm.ntasks; i++)
		ful_ntfn_signal((unsigned)mm.gate, 1);
	long err = ful_ntfn_wait((unsigned)mm.done, &bits, MM_DONE_TIMEOUT_US);
	unsigned long t1 = ful_counter(), end = t0;
	mm_busy(t1, b1);
	unsigned long r1 = mm_bal_us();
	if (err)
		return (int)err;
	for (unsigned i = 0; i < mm.ntasks; i++)
		end = mm.task[i].end > end ? mm.task[i].end : end;
	out->makespan_us = mm_us(end - t0);
	for (unsigned i = 0; mm.only_n >= 0 && i < mm.ntasks; i++)
		printf("matmul: task %u ended at %lu us\n", i,
		       mm_us(mm.task[i].end - t0));
	for (unsigned c = 0; c < mm.ncpus; c++)
		out->util_ppm[c] = (b1[c] - b0[c]) * 1000000 / (t1 - t0);
	out->bal_ppm = (r1 - r0) * 1000000 / (mm_us(t1 - t0) | 1);
	return 0;
}

/** One run of size @s with balancing @mode; 0 or -FUL_E*. */
static int mm_run_one(unsigned s, unsigned mode, struct mm_run *out)
{
	memset(out, 0, sizeof(*out));
	int err = mm_spawn(s);
	if (!err && !mm_wait_blocked())
		err = -FUL_ETIMEOUT;
	for (unsigned i = 0; !err && i < mm.ntasks; i++) {
		struct ful_thread_info info;
		err = (int)ful_thread_info(mm.task[i].th.slot, &info);
		mm.task[i].rt0_us = info.runtime_us;
	}
	unsigned long m0 = mm_moves();
	if (!err && mode != MM_OFF) {
		err = bal_init(mm_mode_name[mode]);
		err = err ? err : bal_start();
	}
	if (!err)
		err = mm_measure(out);
	if (mode != MM_OFF)
		bal_stop();
	out->moves = mm_moves() - m0;
	if (!err)
		err = mm_collect(out);
	mm_reap();
	return err;
}

/** Print one run for the log (not parsed). */
static void mm_show(unsigned s, unsigned mode, unsigned rep,
		    const struct mm_run *r)
{
	char line[256];
	int len = snprintf(line, sizeof(line),
			   "matmul: w%u n %u %-7s rep %u: makespan %lu us, "
			   "ideal %lu us, moves %lu, tasks/core",
			   mm.workers, mm_sizes[s].n, mm_mode_name[mode], rep,
			   r->makespan_us, r->ideal_us, r->moves);
	for (unsigned c = 1; c < mm.ncpus; c++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, "%s%u",
				c > 1 ? "/" : " ", r->where[c]);
	len += snprintf(line + len, sizeof(line) - (size_t)len,
			", balancer %lu ppm, util ppm", r->bal_ppm);
	for (unsigned c = 0; c < mm.ncpus; c++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %lu",
				r->util_ppm[c]);
	printf("%s\n", line);
}

/** Compute the reference checksums of size @s. */
static void mm_prepare(unsigned s)
{
	mm_fill(mm_sizes[s].n);
	for (unsigned b = 0; b < 4; b++)
		mm.ref[b] = mm_ref_block(mm_sizes[s].n, b);
}

/** One task's work of size @s (its block, reps times) run here, with
 *  the other cores idle: under -icount shift=0, ns are instructions. */
static void mm_calibrate(unsigned s)
{
	unsigned long t0 = ful_counter();
	for (unsigned r = 0; r < mm_reps(s); r++) {
		__asm__ volatile("" ::: "memory");
		if (mm_block(mm_sizes[s].n, 0) != mm.ref[0])
			printf("matmul: calibration computed a wrong product\n");
	}
	unsigned long ticks = ful_counter() - t0;
	printf("matmul: task n %u alone: %lu us\n", mm_sizes[s].n,
	       mm_us(ticks));
}

/** Every repetition of every size and mode; 0 or -FUL_E*. */
static int mm_run_all(void)
{
	static uint64_t refs[MM_NSIZES][4];
	for (unsigned s = 0; s < MM_NSIZES; s++) {
		mm_prepare(s);
		memcpy(refs[s], mm.ref, sizeof(mm.ref));
	}
	for (unsigned rep = 0; rep < mm.repeat; rep++)
		for (unsigned s = 0; s < MM_NSIZES; s++) {
			if (mm.only_n >= 0 && mm_sizes[s].n != (unsigned)mm.only_n)
				continue;
			mm_fill(mm_sizes[s].n);
			memcpy(mm.ref, refs[s], sizeof(mm.ref));
			if (mm.only_n >= 0 && rep == 0)
				mm_calibrate(s);
			for (unsigned m = 0; m < MM_NMODES; m++) {
				if (mm.only_mode >= 0 && m != (unsigned)mm.only_mode)
					continue;
				struct mm_run *r = &mm.run[s][m][rep];
				unsigned long lf = bal_log_next();
				int err = mm_run_one(s, m, r);
				if (err) {
					printf("matmul: n %u %s failed: %d\n",
					       mm_sizes[s].n, mm_mode_name[m],
					       err);
					return err;
				}
				mm_show(s, m, rep, r);
				if (m != MM_OFF && ((rep == 0 &&
				    s == MM_NSIZES - 1) || mm.only_n >= 0))
					bal_log_dump(lf);
			}
		}
	return 0;
}

/* Which figure of a run a BENCH line reports. */
enum mm_fig {
	MM_F_US,
	MM_F_VS_OFF,
	MM_F_NORM,
	MM_F_MOVES,
	MM_F_VS_IDEAL,
	MM_F_BAL,
	MM_F_UTIL
};

/** Figure @f of run @r (core @c for utilization), in its unit. */
static unsigned long mm_figure(unsigned s, unsigned m, unsigned rep,
			       enum mm_fig f, unsigned c)
{
	const struct mm_run *r = &mm.run[s][m][rep];
	const struct mm_run *off = &mm.run[s][MM_OFF][rep];
	switch (f) {
	case MM_F_US:
		return r->makespan_us;
	case MM_F_VS_OFF:
		return r->makespan_us * 1000 / (off->makespan_us | 1);
	case MM_F_NORM: /* (on / its ideal) / (off / its ideal) */
		return r->makespan_us * off->ideal_us * 1000 /
		       ((r->ideal_us * off->makespan_us) | 1);
	case MM_F_MOVES:
		return r->moves;
	case MM_F_VS_IDEAL:
		return r->makespan_us * 1000 / (r->ideal_us | 1);
	case MM_F_BAL:
		return r->bal_ppm;
	default:
		return r->util_ppm[c];
	}
}

/** One BENCH line: figure @f of size @s, mode @m, every repetition. */
static void mm_bench_line(const char *name, const char *unit, unsigned s,
			  unsigned m, enum mm_fig f, unsigned c)
{
	unsigned long v[MM_MAX_REPEAT];
	for (unsigned rep = 0; rep < mm.repeat; rep++)
		v[rep] = mm_figure(s, m, rep, f, c);
	ful_bench_print(name, unit, v, mm.repeat);
}

/** The BENCH lines of size @s; returns how many. */
static unsigned mm_report_size(unsigned s)
{
	static const struct {
		const char *suffix, *unit;
		enum mm_fig fig;
		unsigned first_mode;
	} figs[] = {{"", "us", MM_F_US, MM_OFF},
		    {"_vs_off", "permille", MM_F_VS_OFF, MM_MGINKGO},
		    {"_vs_off_norm", "permille", MM_F_NORM, MM_MGINKGO},
		    {"_moves", "moves", MM_F_MOVES, MM_MGINKGO},
		    {"_vs_ideal", "permille", MM_F_VS_IDEAL, MM_OFF}};
	char name[64];
	unsigned lines = 0;
	for (unsigned f = 0; f < sizeof(figs) / sizeof(figs[0]); f++)
		for (unsigned m = figs[f].first_mode; m < MM_NMODES; m++) {
			snprintf(name, sizeof(name), "matmul_w%u_%u_%s%s",
				 mm.workers, mm_sizes[s].n, mm_mode_name[m],
				 figs[f].suffix);
			mm_bench_line(name, figs[f].unit, s, m, figs[f].fig, 0);
			lines++;
		}
	return lines;
}

/** Per-core utilization of the largest size (Table V), and the
 *  balancer's share of core 0; how many lines. */
static unsigned mm_report_util(void)
{
	char name[64];
	unsigned s = MM_NSIZES - 1, lines = 0;
	for (unsigned m = MM_MGINKGO; m < MM_NMODES; m++) {
		snprintf(name, sizeof(name), "matmul_w%u_%u_%s_balancer",
			 mm.workers, mm_sizes[s].n, mm_mode_name[m]);
		mm_bench_line(name, "ppm", s, m, MM_F_BAL, 0);
		lines++;
	}
	for (unsigned m = 0; m < MM_NMODES; m++)
		for (unsigned c = 0; c < mm.ncpus; c++) {
			snprintf(name, sizeof(name),
				 "matmul_w%u_%u_%s_util_cpu%u", mm.workers,
				 mm_sizes[s].n, mm_mode_name[m], c);
			mm_bench_line(name, "ppm", s, m, MM_F_UTIL, c);
			lines++;
		}
	return lines;
}

/** Set up from the boot arguments; false if this machine cannot run it. */
static bool mm_setup(void)
{
	char v[16];
	mm.ncpus = ut_ncpus();
	mm.workers = mm.ncpus - 1;
	if (mm.ncpus != 3 && mm.ncpus != 4) {
		printf("matmul: needs 3 or 4 cores (2 or 3 workers)\n");
		return false;
	}
	mm.repeat = MM_REPEAT;
	if (ut_bootarg("mm_repeat", v, sizeof(v)))
		mm.repeat = (unsigned)strtoul(v, NULL, 10);
	if (mm.repeat < 1 || mm.repeat > MM_MAX_REPEAT) {
		printf("matmul: mm_repeat must be 1..%u\n", MM_MAX_REPEAT);
		return false;
	}
	mm.repeat = ub_count(mm.repeat, 1);
	mm.even = ut_bootarg("mm_even", v, sizeof(v));
	mm.only_n = mm.only_mode = -1;
	if (ut_bootarg("mm_n", v, sizeof(v))) {
		mm.only_n = (int)strtoul(v, NULL, 10);
		unsigned s = 0;
		while (s < MM_NSIZES && mm_sizes[s].n != (unsigned)mm.only_n)
			s++;
		if (s == MM_NSIZES) {
			printf("matmul: mm_n must be 32, 64, 128 or 256\n");
			return false;
		}
	}
	if (ut_bootarg("mm_mode", v, sizeof(v))) {
		for (unsigned m = 0; m < MM_NMODES; m++)
			if (!strcmp(v, mm_mode_name[m]))
				mm.only_mode = (int)m;
		if (mm.only_mode < 0) {
			printf("matmul: mm_mode must be off, mginkgo or fulcrum\n");
			return false;
		}
	}
	mm.gate = ut_ntfn_new();
	mm.done = ut_ntfn_new();
	mm.park = ut_ntfn_new();
	return mm.gate > 0 && mm.done > 0 && mm.park > 0;
}

/** The whole experiment; returns how many BENCH lines. */
unsigned ub_matmul_run(void)
{
	if (!mm_setup())
		return 0;
	unsigned long t0 = ful_counter();
	if (mm_run_all())
		return 0;
	printf("matmul: %u repetitions took %lu ms\n", mm.repeat,
	       mm_us(ful_counter() - t0) / 1000);
	if (mm.only_n >= 0 || mm.only_mode >= 0)
		return 0; /* a scenario, not the benchmark */
	unsigned lines = 0;
	for (unsigned s = 0; s < MM_NSIZES; s++)
		lines += mm_report_size(s);
	return lines + mm_report_util();
}
