/*
 * The balance-quality suite and the speed measurement (docs/simulator.md,
 * "The quality suite"; docs/bench-sim.md, "Balance quality").
 *
 * Quality: for each core count, `sets` random sets of independent
 * CPU-bound tasks, all released at time 0 (set i: sizes from
 * distribution i mod 3 -- uniform, bimodal, heavy-tailed -- and
 * cores * (2 + a uniform 0..6) tasks), each run under every policy on
 * the same set. Per run: makespan / lower bound, where the bound is
 * max(longest task, total work / cores), the makespan over ideal
 * processor sharing's on the same set ("vs_ps"), and migrations per task;
 * per set also the ratio to the lower bound of four yardsticks computed
 * in closed form: LPT (clairvoyant), ideal processor sharing, and list
 * scheduling in release order and in a random order drawn per set from
 * the set's own seed stream (the last three non-clairvoyant; sim_out.c).
 * Output: one JSON document with every per-set figure
 * (tools/sim_bench.py turns it into results).
 *
 * Speed: simulated scheduling events per second of host time on a mixed
 * workload (threads that run and sleep in turns: releases, bursts,
 * slice ends, wake-ups, idle-triggered rounds and moves).
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static unsigned long mix(unsigned long a, unsigned long b, unsigned long c)
{
	unsigned long s = a * 0x9e3779b97f4a7c15UL ^ b * 0xbf58476d1ce4e5b9UL ^
			  c * 0x94d049bb133111ebUL;
	sim_rand(&s);
	return s ? s : 1;
}

/** The policy's own triggers: opzone declines the timer and balances when
 *  an idle core wakes; the others on the timer and on a core going idle. */
static void conf_for(struct sim_conf *c, const struct sim_conf *base,
		     const char *policy)
{
	*c = *base;
	c->policy = policy;
	c->keep_log = false;
	c->sample = 0;
	c->trig_timer = c->trig_idle = true;
	c->trig_wake = !strcmp(policy, "opzone");
}

struct qrow {
	double *ratio, *vs_ps, *mig;
};

/* The yardsticks, in the order of their rows. */
enum { REF_LPT, REF_PS, REF_LIST, REF_LIST_RANDOM, NREF };
static const char *const ref_name[NREF] = {"lpt", "ps", "list",
					   "list_random"};

static void print_list(FILE *f, const char *key, const double *v, unsigned n)
{
	fprintf(f, ",\"%s\":[", key);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%.5f", i ? "," : "", v[i]);
	fprintf(f, "]");
}

/* One core count's figures, per set: every policy's and every
 * yardstick's (all arrays of `sets`). */
struct qcell {
	const struct sim_conf *base;
	const char *const *pols;
	unsigned npol, ncpus, sets;
	struct qrow *row;          /* npol */
	double *ref[NREF];         /* makespan / lower bound */
	unsigned long events;
	double cpu;
};

/** Set @i (generated from @s) under every policy and yardstick; 0 or 1. */
static int quality_set(struct qcell *q, struct sim_workload *w, unsigned i,
		       unsigned long s)
{
	unsigned n = q->ncpus * (2 + (unsigned)(sim_rand(&s) % 7));
	n = n < SIM_MAX_THREADS ? n : SIM_MAX_THREADS;
	sim_work_gen(w, q->ncpus, n, (enum sim_dist)(i % DIST_COUNT), &s);
	double lb = (double)sim_lower_bound(w);
	double ps = (double)sim_ps(w);
	q->ref[REF_LPT][i] = (double)sim_lpt(w) / lb;
	q->ref[REF_PS][i] = ps / lb;
	q->ref[REF_LIST][i] = (double)sim_list(w) / lb;
	/* s goes on from the set's sizes: the order is the set's own */
	q->ref[REF_LIST_RANDOM][i] = (double)sim_list_random(w, &s) / lb;
	for (unsigned p = 0; p < q->npol; p++) {
		struct sim_conf c;
		struct sim_result r;
		conf_for(&c, q->base, q->pols[p]);
		if (sim_run(w, &c, &r))
			return 1;
		if (r.unfinished) {
			fprintf(stderr, "fulsim: %s, %u cores, set %u: "
				"unfinished\n", q->pols[p], q->ncpus, i);
			return 1;
		}
		q->row[p].ratio[i] = (double)r.makespan / lb;
		q->row[p].vs_ps[i] = (double)r.makespan / ps;
		q->row[p].mig[i] = (double)r.migrations / n;
		q->events += r.events;
		q->cpu += r.cpu_s;
		sim_result_free(&r);
	}
	return 0;
}

/** The rows of @q: each policy's, then each yardstick's. */
static void quality_print(const struct qcell *q, FILE *f, bool *first)
{
	for (unsigned p = 0; p < q->npol + NREF; p++) {
		bool pol = p < q->npol;
		fprintf(f, "%s\n {\"policy\":\"%s\",\"cores\":%u",
			*first ? "" : ",",
			pol ? q->pols[p] : ref_name[p - q->npol], q->ncpus);
		*first = false;
		print_list(f, "ratio", pol ? q->row[p].ratio : q->ref[p - q->npol],
			   q->sets);
		if (pol) {
			print_list(f, "vs_ps", q->row[p].vs_ps, q->sets);
			print_list(f, "mig_per_task", q->row[p].mig, q->sets);
		}
		fprintf(f, "}");
		fflush(f);
	}
}

/** All sets on @ncpus cores under every policy; rows printed to @f. */
static int quality_cores(const struct sim_conf *base, const char *const *pols,
			 unsigned npol, unsigned ncpus, unsigned sets,
			 unsigned long seed, FILE *f, bool *first,
			 unsigned long *events, double *cpu)
{
	struct qcell q = {.base = base, .pols = pols, .npol = npol,
			  .ncpus = ncpus, .sets = sets};
	struct sim_workload w = {0};
	int rc = 0;
	q.row = calloc(npol, sizeof(*q.row));
	for (unsigned k = 0; k < NREF; k++)
		q.ref[k] = calloc(sets, sizeof(double));
	for (unsigned p = 0; p < npol; p++) {
		q.row[p].ratio = calloc(sets, sizeof(double));
		q.row[p].vs_ps = calloc(sets, sizeof(double));
		q.row[p].mig = calloc(sets, sizeof(double));
	}
	for (unsigned i = 0; i < sets && !rc; i++)
		rc = quality_set(&q, &w, i, mix(seed, ncpus, i));
	if (!rc)
		quality_print(&q, f, first);
	*events += q.events;
	*cpu += q.cpu;
	for (unsigned p = 0; p < npol; p++) {
		free(q.row[p].ratio);
		free(q.row[p].vs_ps);
		free(q.row[p].mig);
	}
	free(q.row);
	for (unsigned k = 0; k < NREF; k++)
		free(q.ref[k]);
	sim_work_free(&w);
	return rc;
}

int sim_quality(const struct sim_conf *base, const char *const *pols,
		unsigned npol, const unsigned *cores, unsigned ncores,
		unsigned sets, unsigned long seed, FILE *f)
{
	bool first = true;
	unsigned long events = 0;
	double cpu = 0;
	fprintf(f, "{\"sets\":%u,\"seed\":%lu,\"rows\":[", sets, seed);
	for (unsigned k = 0; k < ncores; k++)
		if (quality_cores(base, pols, npol, cores[k], sets, seed, f,
				  &first, &events, &cpu))
			return 1;
	fprintf(f, "],\n\"events\":%lu,\"sim_cpu_s\":%.3f}\n", events, cpu);
	return 0;
}

/** The speed workload: @n threads on @ncpus cores, each 100 rounds of a
 *  run and a sleep of 1 to 20 ms. */
static void speed_work(struct sim_workload *w, unsigned ncpus, unsigned n,
		       unsigned long seed)
{
	w->t = calloc(SIM_MAX_THREADS, sizeof(*w->t));
	w->ncpus = ncpus;
	w->nthreads = n;
	for (unsigned i = 0; i < n; i++) {
		struct sim_tdesc *d = &w->t[i];
		*d = (struct sim_tdesc){.slice_ms = 10, .loops = 100, .nph = 2,
					.nice = (int)(sim_rand(&seed) % 40) - 20};
		d->ph[0] = (struct sim_phase){PH_RUN,
			(1 + sim_rand(&seed) % 20) * SIM_MS, -1};
		d->ph[1] = (struct sim_phase){PH_SLEEP,
			(1 + sim_rand(&seed) % 20) * SIM_MS, -1};
		snprintf(d->name, sizeof(d->name), "rs%u", i);
	}
}

int sim_speed(const struct sim_conf *base, unsigned repeat, FILE *f)
{
	struct sim_workload w = {0};
	speed_work(&w, 64, 2048, 7);
	fprintf(f, "{\"workload\":\"64 cores, 2048 threads x 100 (run, sleep "
		"1-20 ms), fulcrum, timer+idle\",\"runs\":[");
	for (unsigned i = 0; i < repeat; i++) {
		struct sim_conf c;
		struct sim_result r;
		conf_for(&c, base, "fulcrum");
		if (sim_run(&w, &c, &r))
			return 1;
		fprintf(f, "%s{\"events\":%lu,\"cpu_s\":%.6f,\"events_per_s\":%.0f,"
			"\"migrations\":%lu,\"rounds\":%lu}", i ? "," : "",
			r.events, r.cpu_s, (double)r.events / r.cpu_s,
			r.migrations, r.rounds);
		sim_result_free(&r);
	}
	fprintf(f, "]}\n");
	sim_work_free(&w);
	return 0;
}
