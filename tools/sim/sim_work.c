/*
 * Workloads: read from a JSON file (rt-app style, docs/simulator.md
 * "Workload files") with every field checked, or generated as independent
 * CPU-bound task sets.
 *
 *   {"cores": 16,
 *    "threads": [
 *      {"name": "w", "count": 4, "nice": 0, "slice_ms": 10,
 *       "start_us": 0, "loop": 3,
 *       "phases": [{"run": 5000}, {"sleep": 2000}, {"call": 800, "to": "srv"}]},
 *      {"name": "srv", "server": true}]}
 *
 * Optional, for replaying a scenario of the emulator (docs/simulator.md,
 * "Validation against the emulator"): "root_cpu" at the top (the
 * rootserver's core, left out of the eligible cores as on Fulcrum),
 * "demand_us" at the top (times of rebalances asked for, trigger
 * "demand", ascending), and "cpu" in a thread (released straight onto
 * that core, no placement decision: how paper 000's matmul tasks are
 * started).
 *
 * Durations in microseconds, > 0. A "call" blocks the caller until the
 * server named by "to" (a thread with "server": true and count 1) has
 * run the call's CPU time for it; without "to" it is a wait of that
 * long on an outside service. A bad file is reported as
 * "FILE:LINE: FIELD: what is wrong" (sim_work_load returns -1).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_json.h"

const char *const sim_dist_names[DIST_COUNT] = {"uniform", "bimodal",
						"heavy"};

struct wctx {
	const char *path;
	long ncpus;              /* the document's cores (a thread's cpu) */
	char field[128];
	int failed;
};

static int bad(struct wctx *x, const struct jval *v, const char *fmt, ...)
{
	if (x->failed++)
		return -1;
	fprintf(stderr, "%s:%u: %s: ", x->path, v ? v->line : 1, x->field);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/** Only the keys in @allowed (NULL-terminated) may appear in @o. */
static int check_keys(struct wctx *x, const struct jval *o,
		      const char *const *allowed, const char *where)
{
	for (unsigned i = 0; i < o->n; i++) {
		const char *const *a = allowed;
		while (*a && strcmp(*a, o->keys[i]))
			a++;
		if (!*a) {
			snprintf(x->field, sizeof(x->field), "%s%s", where,
				 o->keys[i]);
			return bad(x, &o->items[i], "unknown field");
		}
	}
	return 0;
}

/** Integer member @key of @o in [lo, hi] into *@out (@def if absent). */
static int get_int(struct wctx *x, const struct jval *o, const char *key,
		   const char *where, long lo, long hi, long def, long *out)
{
	const struct jval *v = json_get(o, key);
	snprintf(x->field, sizeof(x->field), "%s%s", where, key);
	*out = def;
	if (!v)
		return 0;
	if (v->type != J_NUM || v->num != floor(v->num))
		return bad(x, v, "expected an integer, got %s",
			   v->type == J_NUM ? "a fraction" : json_type_name(v->type));
	if (v->num < (double)lo || v->num > (double)hi)
		return bad(x, v, "%.0f is out of range %ld..%ld", v->num, lo, hi);
	*out = (long)v->num;
	return 0;
}

/** A duration in microseconds, > 0, into ns. */
static int get_dur(struct wctx *x, const struct jval *v, unsigned long *ns)
{
	if (v->type != J_NUM)
		return bad(x, v, "expected a duration in microseconds, got %s",
			   json_type_name(v->type));
	if (!(v->num > 0))
		return bad(x, v, "duration must be > 0 (got %g)", v->num);
	if (v->num > 1e12)
		return bad(x, v, "duration %g us is too long (max 1e12)", v->num);
	*ns = (unsigned long)llround(v->num * 1000.0);
	*ns = *ns ? *ns : 1;
	return 0;
}

static int load_phase(struct wctx *x, const struct jval *p, const char *where,
		      struct sim_phase *ph)
{
	static const char *const keys[] = {"run", "sleep", "call", "to", NULL};
	snprintf(x->field, sizeof(x->field), "%.80s", where);
	if (p->type != J_OBJ)
		return bad(x, p, "a phase must be an object, got %s",
			   json_type_name(p->type));
	if (check_keys(x, p, keys, where))
		return -1;
	static const char *const kinds[] = {"run", "sleep", "call"};
	const struct jval *v = NULL;
	for (unsigned k = 0; k < 3; k++) {
		const struct jval *m = json_get(p, kinds[k]);
		if (!m)
			continue;
		snprintf(x->field, sizeof(x->field), "%s%s", where, kinds[k]);
		if (v)
			return bad(x, m, "a phase has one of run, sleep, call");
		v = m;
		ph->kind = (unsigned char)k;
		if (get_dur(x, m, &ph->ns))
			return -1;
	}
	if (!v) {
		snprintf(x->field, sizeof(x->field), "%.80s", where);
		return bad(x, p, "a phase needs run, sleep or call");
	}
	ph->server = -1;
	if (json_get(p, "to") && ph->kind != PH_CALL) {
		snprintf(x->field, sizeof(x->field), "%sto", where);
		return bad(x, json_get(p, "to"), "only a call goes to a server");
	}
	return 0;
}

/* The desc fields of thread group @g (no count, no phases). */
static int load_group(struct wctx *x, const struct jval *g, const char *w,
		      unsigned idx, struct sim_tdesc *d, long *count)
{
	static const char *const keys[] = {"name", "count", "nice", "slice_ms",
					   "start_us", "loop", "phases",
					   "server", "cpu", NULL};
	long nice, slice, start, loop, cpu;
	snprintf(x->field, sizeof(x->field), "%.80s", w);
	if (g->type != J_OBJ)
		return bad(x, g, "a thread must be an object, got %s",
			   json_type_name(g->type));
	if (check_keys(x, g, keys, w) ||
	    get_int(x, g, "count", w, 1, SIM_MAX_THREADS, 1, count) ||
	    get_int(x, g, "nice", w, -20, 19, 0, &nice) ||
	    get_int(x, g, "slice_ms", w, 1, 10000, 10, &slice) ||
	    get_int(x, g, "start_us", w, 0, 1000000000000L, 0, &start) ||
	    get_int(x, g, "loop", w, 1, 1000000, 1, &loop) ||
	    get_int(x, g, "cpu", w, 0, x->ncpus - 1, -1, &cpu))
		return -1;
	*d = (struct sim_tdesc){.nice = (int)nice, .slice_ms = (unsigned)slice,
				.start = (unsigned long)start * SIM_US,
				.loops = (unsigned)loop, .cpu = (int)cpu};
	const struct jval *v = json_get(g, "name");
	snprintf(x->field, sizeof(x->field), "%sname", w);
	if (v && v->type != J_STR)
		return bad(x, v, "expected a string, got %s",
			   json_type_name(v->type));
	snprintf(d->name, sizeof(d->name), "%.31s", v ? v->str : "");
	if (!v)
		snprintf(d->name, sizeof(d->name), "t%u", idx);
	v = json_get(g, "server");
	snprintf(x->field, sizeof(x->field), "%sserver", w);
	if (v && v->type != J_BOOL)
		return bad(x, v, "expected true or false");
	d->server = v && v->num != 0;
	if (d->server && *count != 1)
		return bad(x, v, "a server is one thread (count 1)");
	return 0;
}

/** The phases of group @g into @d; servers named by "to" are looked up
 *  among the groups @grp[0..ng) (first instance @first[i]). */
static int load_phases(struct wctx *x, const struct jval *g, const char *w,
		       struct sim_tdesc *d, const struct jval *grp,
		       const unsigned *first, unsigned ng,
		       const struct sim_tdesc *descs)
{
	const struct jval *ps = json_get(g, "phases");
	snprintf(x->field, sizeof(x->field), "%sphases", w);
	if (!ps) {
		if (d->server)
			return 0;
		return bad(x, g, "missing (a thread needs phases)");
	}
	if (ps->type != J_ARR || (!ps->n && !d->server))
		return bad(x, ps, "expected a non-empty array of phases");
	if (ps->n > SIM_MAX_PHASES)
		return bad(x, ps, "%u phases, at most %u", ps->n, SIM_MAX_PHASES);
	if (d->server)
		return bad(x, ps, "a server has no phases (it runs the calls)");
	for (unsigned k = 0; k < ps->n; k++) {
		char pw[96];
		snprintf(pw, sizeof(pw), "%sphases[%u].", w, k);
		if (load_phase(x, &ps->items[k], pw, &d->ph[k]))
			return -1;
		const struct jval *to = json_get(&ps->items[k], "to");
		if (!to)
			continue;
		snprintf(x->field, sizeof(x->field), "%sto", pw);
		if (to->type != J_STR)
			return bad(x, to, "expected a server's name");
		unsigned i = 0;
		while (i < ng && !(descs[first[i]].server &&
				   !strcmp(descs[first[i]].name, to->str)))
			i++;
		if (i == ng)
			return bad(x, to, "no server named \"%s\"", to->str);
		d->ph[k].server = (int)first[i];
	}
	d->nph = ps->n;
	(void)grp;
	return 0;
}

/** "demand_us": ascending times of demand rebalances into @w. */
static int load_demand(struct wctx *x, const struct jval *doc,
		       struct sim_workload *w)
{
	const struct jval *a = json_get(doc, "demand_us");
	snprintf(x->field, sizeof(x->field), "demand_us");
	if (!a)
		return 0;
	if (a->type != J_ARR)
		return bad(x, a, "expected an array of times in microseconds");
	if (a->n > SIM_MAX_DEMAND)
		return bad(x, a, "%u rounds, at most %u", a->n, SIM_MAX_DEMAND);
	for (unsigned i = 0; i < a->n; i++) {
		snprintf(x->field, sizeof(x->field), "demand_us[%u]", i);
		if (get_dur(x, &a->items[i], &w->demand[i]))
			return -1;
		if (i && w->demand[i] <= w->demand[i - 1])
			return bad(x, &a->items[i], "times must ascend");
	}
	w->ndemand = a->n;
	return 0;
}

/** Check the document @doc and build @w from it. */
static int load_doc(struct wctx *x, const struct jval *doc,
		    struct sim_workload *w)
{
	static const char *const keys[] = {"cores", "threads", "root_cpu",
					   "demand_us", NULL};
	long ncpus, root;
	snprintf(x->field, sizeof(x->field), "(document)");
	if (doc->type != J_OBJ)
		return bad(x, doc, "expected an object, got %s",
			   json_type_name(doc->type));
	if (check_keys(x, doc, keys, "") ||
	    get_int(x, doc, "cores", "", 1, SIM_MAX_CPUS, 0, &ncpus))
		return -1;
	if (!json_get(doc, "cores"))
		return bad(x, doc, "missing (1..%u)", SIM_MAX_CPUS);
	x->ncpus = ncpus;
	if (get_int(x, doc, "root_cpu", "", 0, ncpus - 1, -1, &root) ||
	    load_demand(x, doc, w))
		return -1;
	w->root_cpu = (int)root;
	const struct jval *th = json_get(doc, "threads");
	snprintf(x->field, sizeof(x->field), "threads");
	if (!th || th->type != J_ARR || !th->n)
		return bad(x, th ? th : doc, "expected a non-empty array");
	unsigned ng = th->n, total = 0;
	unsigned *first = calloc(ng, sizeof(*first));
	w->t = calloc(SIM_MAX_THREADS, sizeof(*w->t));
	w->ncpus = (unsigned)ncpus;
	for (unsigned i = 0; i < ng && !x->failed; i++) {
		char gw[48];
		long count;
		struct sim_tdesc d;
		snprintf(gw, sizeof(gw), "threads[%u].", i);
		if (load_group(x, &th->items[i], gw, i, &d, &count))
			break;
		if (total + (unsigned long)count > SIM_MAX_THREADS) {
			snprintf(x->field, sizeof(x->field), "%scount", gw);
			bad(x, json_get(&th->items[i], "count") ? json_get(&th->items[i], "count") : &th->items[i],
			    "%lu threads in all, at most %u",
			    total + (unsigned long)count, SIM_MAX_THREADS);
			break;
		}
		first[i] = total;
		for (long k = 0; k < count; k++)
			w->t[total++] = d;
	}
	for (unsigned i = 0; i < ng && !x->failed; i++) {
		char gw[48];
		snprintf(gw, sizeof(gw), "threads[%u].", i);
		struct sim_tdesc d = w->t[first[i]];
		if (load_phases(x, &th->items[i], gw, &d, th->items, first, ng,
				w->t))
			break;
		unsigned end = i + 1 < ng ? first[i + 1] : total;
		for (unsigned k = first[i]; k < end; k++) {
			w->t[k] = d;
			if (end - first[i] > 1)
				snprintf(w->t[k].name, sizeof(w->t[k].name),
					 "%.20s.%u", d.name, k - first[i]);
		}
	}
	free(first);
	w->nthreads = total;
	return x->failed ? -1 : 0;
}

int sim_work_load(const char *path, struct sim_workload *w)
{
	*w = (struct sim_workload){0};
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0, k;
	char *text = malloc(cap);
	while ((k = fread(text + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap)
			text = realloc(text, cap *= 2);
	}
	fclose(f);
	text[n] = '\0';
	if (strlen(text) != n) {
		fprintf(stderr, "%s: a NUL byte in the file: not JSON text\n", path);
		free(text);
		return -1;
	}
	char err[160];
	struct jval *doc = json_parse(text, err, sizeof(err));
	free(text);
	if (!doc) {
		fprintf(stderr, "%s:%s (not valid JSON)\n", path, err);
		return -1;
	}
	struct wctx x = {.path = path};
	int r = load_doc(&x, doc, w);
	json_free(doc);
	if (r)
		sim_work_free(w);
	return r;
}

void sim_work_free(struct sim_workload *w)
{
	free(w->t);
	*w = (struct sim_workload){0};
}

unsigned long sim_rand(unsigned long *seed)
{
	/* xorshift64* */
	unsigned long x = *seed ? *seed : 0x9e3779b97f4a7c15UL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*seed = x;
	return x * 0x2545f4914f6cdd1dUL;
}

/** Uniform in [0, 1). */
static double urand(unsigned long *seed)
{
	return (double)(sim_rand(seed) >> 11) * (1.0 / 9007199254740992.0);
}

/** A task's CPU time in ns from @dist (docs/simulator.md, "Workload
 *  files"). */
static unsigned long task_size(enum sim_dist dist, unsigned long *seed)
{
	double ms;
	switch (dist) {
	case DIST_BIMODAL: /* 80 % short, 20 % long */
		ms = urand(seed) < 0.8 ? 1 + 9 * urand(seed)
				       : 100 + 100 * urand(seed);
		break;
	case DIST_HEAVY: /* Pareto, alpha 1.5, from 2 ms, capped at 2 s */
		ms = 2.0 / pow(1.0 - urand(seed), 1.0 / 1.5);
		ms = ms < 2000 ? ms : 2000;
		break;
	default: /* uniform 1..100 ms */
		ms = 1 + 99 * urand(seed);
		break;
	}
	return (unsigned long)(ms * (double)SIM_MS);
}

void sim_work_gen(struct sim_workload *w, unsigned ncpus, unsigned ntasks,
		  enum sim_dist dist, unsigned long *seed)
{
	if (!w->t)
		w->t = calloc(SIM_MAX_THREADS, sizeof(*w->t));
	w->ncpus = ncpus;
	w->nthreads = ntasks;
	w->root_cpu = -1;
	w->ndemand = 0;
	for (unsigned i = 0; i < ntasks; i++) {
		struct sim_tdesc *d = &w->t[i];
		d->nice = 0;
		d->slice_ms = 10;
		d->start = 0;
		d->loops = 1;
		d->server = false;
		d->cpu = -1;
		d->nph = 1;
		d->ph[0] = (struct sim_phase){.kind = PH_RUN,
					      .ns = task_size(dist, seed),
					      .server = -1};
		snprintf(d->name, sizeof(d->name), "task%u", i);
	}
}
