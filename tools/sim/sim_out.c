/*
 * fulsim's output: one JSON document per run (docs/simulator.md,
 * "Output"), and the yardsticks of a schedule of independent tasks:
 * the lower bound max(longest task, total work / cores) and the makespan
 * of LPT (longest processing time first, within 4/3 - 1/(3m) of optimal).
 */
#include <stdlib.h>

#include "sim.h"

/** CPU time of thread @d over its whole program (calls' server time not
 *  included: it is the server's). */
static unsigned long task_work(const struct sim_tdesc *d)
{
	unsigned long ns = 0;
	for (unsigned i = 0; i < d->nph; i++)
		if (d->ph[i].kind == PH_RUN)
			ns += d->ph[i].ns;
	return ns * d->loops;
}

/** All the CPU time of @w: the threads' runs and the servers' calls. */
static unsigned long total_work(const struct sim_workload *w,
				unsigned long *longest)
{
	unsigned long sum = 0;
	*longest = 0;
	for (unsigned i = 0; i < w->nthreads; i++) {
		const struct sim_tdesc *d = &w->t[i];
		unsigned long x = task_work(d);
		for (unsigned k = 0; k < d->nph; k++)
			if (d->ph[k].kind == PH_CALL && d->ph[k].server >= 0)
				sum += d->ph[k].ns * d->loops;
		sum += x;
		*longest = x > *longest ? x : *longest;
	}
	return sum;
}

unsigned long sim_lower_bound(const struct sim_workload *w)
{
	unsigned long longest, sum = total_work(w, &longest);
	unsigned long avg = (sum + w->ncpus - 1) / w->ncpus;
	return longest > avg ? longest : avg;
}

static int cmp_desc(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/** Push @v down the min-heap @h of @n. */
static void heap_down(unsigned long *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i;
		if (l < n && h[l] < h[m])
			m = l;
		if (l + 1 < n && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return;
		unsigned long t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

unsigned long sim_lpt(const struct sim_workload *w)
{
	unsigned long *x = malloc(w->nthreads * sizeof(*x));
	unsigned long *h = calloc(w->ncpus, sizeof(*h)), span = 0;
	for (unsigned i = 0; i < w->nthreads; i++)
		x[i] = task_work(&w->t[i]);
	qsort(x, w->nthreads, sizeof(*x), cmp_desc);
	for (unsigned i = 0; i < w->nthreads; i++) {
		h[0] += x[i]; /* the least loaded core takes the next longest */
		span = h[0] > span ? h[0] : span;
		heap_down(h, w->ncpus, 0);
	}
	free(x);
	free(h);
	return span;
}

/** Per sample: each core's busy fraction, and max - min over the cores. */
static void out_series(FILE *f, const struct sim_workload *w,
		       const struct sim_conf *c, const struct sim_result *r)
{
	const struct sim_series *u = &r->util;
	fprintf(f, ",\n\"sample_ms\":%.3f,\n\"util\":[", (double)c->sample / SIM_MS);
	for (unsigned k = 0; k < w->ncpus; k++) {
		fprintf(f, "%s\n [", k ? "," : "");
		for (unsigned long b = 0; b < u->n; b++)
			fprintf(f, "%s%.3f", b ? "," : "",
				(double)u->busy[b * w->ncpus + k] / (double)c->sample);
		fprintf(f, "]");
	}
	fprintf(f, "],\n\"imbalance\":[");
	for (unsigned long b = 0; b < u->n; b++) {
		unsigned long lo = ~0UL, hi = 0;
		for (unsigned k = 0; k < w->ncpus; k++) {
			unsigned long v = u->busy[b * w->ncpus + k];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		fprintf(f, "%s%.3f", b ? "," : "", (double)(hi - lo) / (double)c->sample);
	}
	fprintf(f, "]");
}

void sim_out_json(FILE *f, const struct sim_workload *w,
		  const struct sim_conf *c, const struct sim_result *r)
{
	fprintf(f, "{\"policy\":\"%s\",\"cores\":%u,\"threads\":%u,\n",
		c->policy, w->ncpus, w->nthreads);
	fprintf(f, "\"ns_per_insn\":%g,\"migrate_ready_ns\":%.0f,"
		"\"migrate_running_ns\":%.0f,\"tick_ms\":%.3f,\n",
		c->ns_per_insn, c->ns_per_insn * (double)c->mig_ready,
		c->ns_per_insn * (double)c->mig_running, (double)c->tick / SIM_MS);
	if (c->jitter > 0) /* only then: other runs' output is unchanged */
		fprintf(f, "\"jitter\":%g,\"jitter_ms\":%g,\"jitter_seed\":%lu,\n",
			c->jitter, (double)c->jitter_epoch / SIM_MS,
			c->jitter_seed);
	fprintf(f, "\"makespan_ms\":%.3f,\"lower_bound_ms\":%.3f,\"lpt_ms\":%.3f,\n",
		(double)r->makespan / SIM_MS, (double)sim_lower_bound(w) / SIM_MS,
		(double)sim_lpt(w) / SIM_MS);
	fprintf(f, "\"unfinished\":%lu,\"migrations\":%lu,\"rounds\":%lu,"
		"\"placements\":%lu,\"switches\":%lu,\"events\":%lu,"
		"\"cpu_s\":%.6f,\"events_per_s\":%.0f",
		r->unfinished, r->migrations, r->rounds, r->places, r->switches,
		r->events, r->cpu_s,
		r->cpu_s > 0 ? (double)r->events / r->cpu_s : 0.0);
	if (c->sample)
		out_series(f, w, c, r);
	fprintf(f, ",\n\"decisions\":[");
	if (r->log) {
		const char *p = r->log;
		for (unsigned long i = 0; i < r->log_lines; i++) {
			const char *e = p;
			while (*e != '\n')
				e++;
			fprintf(f, "%s\n %.*s", i ? "," : "", (int)(e - p), p);
			p = e + 1;
		}
	}
	fprintf(f, "]}\n");
}

static int cmp_asc(const void *a, const void *b)
{
	return -cmp_desc(a, b);
}

unsigned long sim_ps(const struct sim_workload *w)
{
	unsigned long *x = malloc(w->nthreads * sizeof(*x));
	for (unsigned i = 0; i < w->nthreads; i++)
		x[i] = task_work(&w->t[i]);
	qsort(x, w->nthreads, sizeof(*x), cmp_asc);
	double t = 0, done = 0; /* service every remaining task has had */
	for (unsigned i = 0; i < w->nthreads; i++) {
		unsigned k = w->nthreads - i; /* tasks left, sharing the cores */
		double rate = k > w->ncpus ? (double)w->ncpus / k : 1.0;
		t += ((double)x[i] - done) / rate;
		done = (double)x[i];
	}
	free(x);
	return (unsigned long)(t + 0.5);
}

/** Makespan of list scheduling of the @n task lengths @x in their order:
 *  each, run to completion, on the first core free (the least loaded one:
 *  every core's finishing time is kept in a min-heap). */
static unsigned long list_of(const unsigned long *x, unsigned n,
			     unsigned ncpus)
{
	unsigned long *h = calloc(ncpus, sizeof(*h)), span = 0;
	for (unsigned i = 0; i < n; i++) {
		h[0] += x[i]; /* the next task, the first free core */
		span = h[0] > span ? h[0] : span;
		heap_down(h, ncpus, 0);
	}
	free(h);
	return span;
}

unsigned long sim_list(const struct sim_workload *w)
{
	unsigned long *x = malloc(w->nthreads * sizeof(*x));
	for (unsigned i = 0; i < w->nthreads; i++)
		x[i] = task_work(&w->t[i]);
	unsigned long span = list_of(x, w->nthreads, w->ncpus);
	free(x);
	return span;
}

unsigned long sim_list_random(const struct sim_workload *w,
			      unsigned long *seed)
{
	unsigned long *x = malloc(w->nthreads * sizeof(*x));
	for (unsigned i = 0; i < w->nthreads; i++)
		x[i] = task_work(&w->t[i]);
	for (unsigned i = w->nthreads; i > 1; i--) { /* Fisher-Yates */
		unsigned j = (unsigned)(sim_rand(seed) % i);
		unsigned long v = x[i - 1];
		x[i - 1] = x[j];
		x[j] = v;
	}
	unsigned long span = list_of(x, w->nthreads, w->ncpus);
	free(x);
	return span;
}
