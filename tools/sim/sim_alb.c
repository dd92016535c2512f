/*
 * Paper 001's experiment as `ubench=alb` runs it (user/bench/ub_alb.c),
 * on the simulator: each workload set under count and alb, many seeded
 * runs (docs/bench-sim.md, "Paper 001 on the simulator").
 *
 * The machine: 4 cores, core 0 the rootserver's (placed on by neither
 * policy), the policy's own timer rounds only (100 ms for both; no idle
 * or wake trigger, as the benchmark's balancer), moves at the emulator's
 * cost (migrate_ready / migrate_running), slices of 10 ms scaled by
 * weight as the kernel's (nice 0: 10 ticks, nice 5: 3).
 *
 * A set is one program (a single workload) or two (paper 001 Table
 * III's pairs), each AL_THREADS threads of equal CPU work, CPU-bound,
 * placed by the policy as the program creates them, AL_SPAWN apart: the
 * first program at nice 0; the second at nice 5, its first thread
 * AL_SECOND after the first program's last (ub_alb.c starts it once
 * the first one's threads are all placed; then it sets its inputs up).
 * A thread's work is its workload's one-thread time in the emulator
 * (al_wl below).
 *
 * Run r of a set has the seed hash(base seed, set, r), which draws the
 * cores' speeds (--jitter: sim_clock.c) and the phase of the first
 * release against the timer (uniform in one period: in the emulator the
 * programs start at no fixed point of the balancer's period); count and
 * alb run with the same seed, so each run is a pair. Figures per run and
 * policy: completion (the first placement to the last thread's exit),
 * moves (migrations carried out) and imbalance (the time average over
 * the completion of max over cores 1..3 of |weight - average| /
 * average, from fulsim's integral: sim_core.c, imb_figure).
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define AL_THREADS 5
#define AL_NICE_B 5
#define AL_SPAWN (500 * SIM_US)
#define AL_SECOND (20 * SIM_MS)
#define AL_CPUS 4
#define AL_PERIOD (100 * SIM_MS) /* both policies' default period_ms */

/* One thread's CPU time per workload, ms: lz77, crc, queens, matmul as
 * ubench=alb measured them alone ("alb: W alone, one thread"); memcpy
 * estimated from its runs' completion against the others' (0.8-1.3 s
 * against 1.1-1.7 s). */
static const struct al_wl {
	const char *name;
	unsigned ms;
} al_wl[] = {{"lz77", 616}, {"crc", 560}, {"queens", 590},
	     {"matmul", 510}, {"memcpy", 430}};

/* The sets of ub_alb.c, in its order: a workload alone (b < 0) or a
 * pair of Table III. */
static const struct al_set {
	const char *name;
	int a, b;
} al_sets[] = {{"lz77", 0, -1},	 {"crc", 1, -1},   {"queens", 2, -1},
	       {"matmul", 3, -1}, {"memcpy", 4, -1}, {"set1", 3, 1},
	       {"set2", 0, 2},	 {"set3", 1, 2}};
#define AL_NSETS (sizeof(al_sets) / sizeof(al_sets[0]))

static const char *const al_pol[] = {"count", "alb"};

/* Per run of one set under one policy. */
struct al_row {
	double *completion_ms, *imbalance;
	unsigned long *moves;
};

static unsigned long al_mix(unsigned long a, unsigned long b,
			    unsigned long c)
{
	unsigned long s = a * 0x9e3779b97f4a7c15UL ^ b * 0xbf58476d1ce4e5b9UL ^
			  c * 0x94d049bb133111ebUL;
	sim_rand(&s);
	return s ? s : 1;
}

/** A program of workload @wl at @nice, its threads released from @t0
 *  on, appended to @w; when its last thread is released. */
static unsigned long al_program(struct sim_workload *w, int wl, int nice,
				unsigned long t0)
{
	for (unsigned i = 0; i < AL_THREADS; i++) {
		struct sim_tdesc *d = &w->t[w->nthreads++];
		*d = (struct sim_tdesc){.nice = nice, .slice_ms = 10,
					.start = t0 + i * AL_SPAWN, .loops = 1,
					.cpu = -1, .nph = 1};
		d->ph[0] = (struct sim_phase){PH_RUN,
					      al_wl[wl].ms * SIM_MS, -1};
		snprintf(d->name, sizeof(d->name), "%s.%u", al_wl[wl].name, i);
	}
	return t0 + (AL_THREADS - 1) * AL_SPAWN;
}

/** Set @set with its first release at @t0 into @w. */
static void al_work(struct sim_workload *w, const struct al_set *set,
		    unsigned long t0)
{
	if (!w->t)
		w->t = calloc(2 * AL_THREADS, sizeof(*w->t));
	w->ncpus = AL_CPUS;
	w->nthreads = 0;
	w->root_cpu = 0;
	w->ndemand = 0;
	unsigned long last = al_program(w, set->a, 0, t0);
	if (set->b >= 0)
		al_program(w, set->b, AL_NICE_B, last + AL_SECOND);
}

/** Run @r of set @k under policy @p into @row; 0, or 1 on a failure. */
static int al_run(const struct sim_conf *base, unsigned k, unsigned p,
		  unsigned r, unsigned long seed, struct sim_workload *w,
		  struct al_row *row)
{
	unsigned long s = al_mix(seed, k, r);
	unsigned long t0 = sim_rand(&s) % AL_PERIOD;
	struct sim_conf c = *base;
	struct sim_result res;
	al_work(w, &al_sets[k], t0);
	c.policy = al_pol[p];
	c.trig_timer = true;
	c.trig_idle = c.trig_wake = false;
	c.keep_log = false;
	c.sample = 0;
	c.track_imb = true;
	c.jitter_seed = sim_rand(&s);
	if (sim_run(w, &c, &res))
		return 1;
	if (res.unfinished) {
		fprintf(stderr, "fulsim: --alb %s %s run %u: unfinished\n",
			al_sets[k].name, al_pol[p], r);
		sim_result_free(&res);
		return 1;
	}
	double span = (double)(res.makespan - t0);
	row->completion_ms[r] = span / SIM_MS;
	row->moves[r] = res.migrations;
	row->imbalance[r] = res.imb_integral / span;
	sim_result_free(&res);
	return 0;
}

static void al_print(FILE *f, const char *set, const char *pol,
		     const struct al_row *row, unsigned runs, bool first)
{
	fprintf(f, "%s\n {\"set\":\"%s\",\"policy\":\"%s\",\"completion_ms\":[",
		first ? "" : ",", set, pol);
	for (unsigned r = 0; r < runs; r++)
		fprintf(f, "%s%.3f", r ? "," : "", row->completion_ms[r]);
	fprintf(f, "],\"moves\":[");
	for (unsigned r = 0; r < runs; r++)
		fprintf(f, "%s%lu", r ? "," : "", row->moves[r]);
	fprintf(f, "],\"imbalance\":[");
	for (unsigned r = 0; r < runs; r++)
		fprintf(f, "%s%.5f", r ? "," : "", row->imbalance[r]);
	fprintf(f, "]}");
}

int sim_alb(const struct sim_conf *base, unsigned runs, unsigned long seed,
	    FILE *f)
{
	struct sim_workload w = {0};
	struct al_row row = {calloc(runs, sizeof(double)),
			     calloc(runs, sizeof(double)),
			     calloc(runs, sizeof(unsigned long))};
	int rc = 0;
	fprintf(f, "{\"runs\":%u,\"seed\":%lu,\"jitter\":%g,\"jitter_ms\":%g,"
		"\"cores\":%u,\"threads\":%u,\"rows\":[", runs, seed,
		base->jitter, (double)base->jitter_epoch / SIM_MS, AL_CPUS,
		AL_THREADS);
	for (unsigned k = 0; k < AL_NSETS && !rc; k++)
		for (unsigned p = 0; p < 2 && !rc; p++) {
			for (unsigned r = 0; r < runs && !rc; r++)
				rc = al_run(base, k, p, r, seed, &w, &row);
			if (!rc)
				al_print(f, al_sets[k].name, al_pol[p], &row,
					 runs, !k && !p);
		}
	fprintf(f, "]}\n");
	free(row.completion_ms);
	free(row.imbalance);
	free(row.moves);
	sim_work_free(&w);
	return rc;
}
