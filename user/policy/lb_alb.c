/*
 * "alb": paper 001's Average Load Balancer (Sharma and Agrawal), on the
 * weights of the nice values (Linux CFS's table, <fulcrum/weight.h>).
 *
 *   W   = weight of a core: the sum of its runnable threads' weights
 *   avg = sum of W over the eligible cores / their number (the paper's
 *         "Average Weight"; the rootserver's core is left out unless
 *         include_root, as for the other policies)
 *
 * Placement ("assign the tasks to each core until the sum of weight ...
 * is less than the average weight", taking the new thread's weight w
 * into the average): the first eligible core, in id order, that the
 * thread fills without passing the average (W + w <= avg'); if it fits
 * nowhere, of the cores below avg' (there is one: they cannot all be at
 * or above their own average), the one with the fewest runnable threads
 * (ties: the least weighted, then the lowest id): it ends above avg' by
 * less than w, as any of them would, and the weights cannot tell them
 * apart by more than a thread, so the threads are spread
 * (docs/policy-alb.md, "Interpretation choices", item 8).
 *
 * Rebalance: while some core is below the average, the least weighted
 * one (dst) takes a thread from the heaviest core above the average that
 * has one to give (src; sources tried from the heaviest down):
 *   - the heaviest movable runnable thread with w <= min(avg - W(dst),
 *     W(src) - avg): it fills the gap without passing the average on
 *     either side ("fill");
 *   - else the lightest that brings both cores strictly closer to the
 *     average, w < 2 min(avg - W(dst), W(src) - avg) ("overshoot": it
 *     passes the average on one side, by less than it was off on that
 *     side): Linux 4.4's detach_tasks, which paper 001 modified, skips
 *     a task whose load is more than twice the imbalance. A destination
 *     with nothing runnable takes the lightest with W(dst) + w < W(src)
 *     instead (it would idle otherwise: work conservation). Either way
 *     dst ends above the average by less than w and below what src had,
 *     so the sum of squared weights drops and rounds never undo each
 *     other.
 * A core at or above the average is never a destination. Up to
 * max_moves moves per round, the figures updated after each, a thread
 * moved at most once per round. threshold_pct (default 0, the paper has
 * none): a round runs only if some core's weight lies outside
 * avg * (1 +- T). Interpretation choices: docs/policy-alb.md,
 * "Interpretation choices".
 *
 * "count", its baseline, is here too (below): both share the round of
 * moves on a metric (weight or runnable count) and the placement
 * helpers, kept static so that they inline.
 */
#include <string.h>

#include "lb.h"
#include "lb_index.h"

/* A rebalance round of a policy that balances a metric other than the
 * load (alb: weight, count: runnable threads), with the figures predicted
 * after each move (below). */
struct lb_mround {
	struct lb_snap *s;
	ful_cpus_t mask;               /* eligible cores */
	unsigned n;                    /* how many */
	unsigned long sum;             /* of m over them (it never changes) */
	unsigned least, most;          /* lb_mround_least / _most of the
					* eligible cores, as of the last scan */
	/* The figures: alb reads the decision's own weights and runnable
	 * counts until its first move is applied with more to come, then
	 * predicted copies (lb_mround_apply): a one-move round copies
	 * nothing. count always works on copies (mbuf). */
	unsigned long *m;
	unsigned *nrun;
	unsigned long mbuf[FUL_LOAD_CPUS];
	unsigned nbuf[FUL_LOAD_CPUS];
	unsigned moved[LB_MAX_MOVES];  /* tids moved this round */
	unsigned nmoved;
};

static void lb_mround_scan(struct lb_mround *r);

/**
 * Start round @r on the figures of @d in @metric (LB_METRIC_WEIGHT:
 * each core's weight, whose total, least and most weighted core the
 * snapshot found while reading; LB_METRIC_NRUN: its runnable count),
 * with their sum over the eligible cores, which @d keeps as msum.
 */
static void lb_mround_init(struct lb_mround *r, struct lb_snap *s,
		    struct lb_decision *d, unsigned metric)
{
	r->s = s;
	r->mask = lb_record(s, d);
	r->n = s->conf.neligible;
	r->nmoved = 0;
	d->metric = (unsigned char)metric;
	r->nrun = d->v.nrun;
	r->sum = d->msum = s->msum;
	r->least = s->mmin;
	r->most = s->mmax;
	/* LB_METRIC_NRUN: the snapshot (LB_NEED_COUNT) left the runnable
	 * counts as unsigned long in v.weight, as it does the weights. */
	(void)metric;
	r->m = d->v.weight;
}

/** One pass over the eligible cores: r->sum, r->least, r->most. */
static void lb_mround_scan(struct lb_mround *r)
{
	unsigned least = LB_NO_CPU, most = LB_NO_CPU;
	unsigned long sum = 0;
	ful_cpus_t mask = r->mask;
	for (unsigned c = 0; !ful_cpus_empty(mask);
	     c++, mask = ful_cpus_shr1(mask)) {
		if (!ful_cpus_low(mask))
			continue;
		unsigned long v = r->m[c];
		sum += v;
		if (least == LB_NO_CPU || v < r->m[least] ||
		    (v == r->m[least] && r->nrun[c] < r->nrun[least]))
			least = c;
		if (most == LB_NO_CPU || v > r->m[most])
			most = c;
	}
	r->sum = sum;
	r->least = least;
	r->most = most;
}

/** Whether the eligible cores lie outside average * (1 +- T), as a
 *  gate: LB_GATE_HEAVY_LIGHT (some above and some below), LB_GATE_HEAVY,
 *  LB_GATE_LIGHT, or LB_GATE_NONE; looks at the least and the most only.
 *  With T = 0: whether they are not all equal. Exact, in integers. */
static inline unsigned lb_mround_gate(const struct lb_mround *r,
				      unsigned threshold_pct)
{
	if (r->least == LB_NO_CPU)
		return LB_GATE_NONE;
	/* T = 0 (the default): above and below iff not all equal, which
	 * the least core alone tells. */
	if (!threshold_pct)
		return r->m[r->least] * r->n < r->sum ? LB_GATE_HEAVY_LIGHT
						      : LB_GATE_NONE;
	unsigned long n100 = r->n * 100UL;
	bool heavy = r->m[r->most] * n100 > r->sum * (100 + threshold_pct);
	bool light = r->m[r->least] * n100 < r->sum * (100 - threshold_pct);
	if (heavy)
		return light ? LB_GATE_HEAVY_LIGHT : LB_GATE_HEAVY;
	return light ? LB_GATE_LIGHT : LB_GATE_NONE;
}

/** The core of @mask with the least m; ties to fewer runnable threads,
 *  then to the lowest id. LB_NO_CPU if @mask is empty. */
static unsigned lb_mround_least(const struct lb_mround *r, ful_cpus_t mask)
{
	unsigned best = LB_NO_CPU;
	for (unsigned c = 0; !ful_cpus_empty(mask);
	     c++, mask = ful_cpus_shr1(mask)) {
		if (!ful_cpus_low(mask))
			continue;
		if (best == LB_NO_CPU || r->m[c] < r->m[best] ||
		    (r->m[c] == r->m[best] && r->nrun[c] < r->nrun[best]))
			best = c;
	}
	return best;
}

/** The core of @mask with the most m, ties to the lowest id. */
static unsigned lb_mround_most(const struct lb_mround *r, ful_cpus_t mask)
{
	return lb_most_loaded(r->m, mask);
}

/** Commit the move the policy wrote in d->move[r->nmoved] (its thread
 *  counts @delta in the metric) to the moves for FUL_SYS_MIGRATE and,
 *  unless it is the @last of the round, to the predicted figures (copied
 *  from the decision's on the first change). Inlined: a one-move round
 *  (the common case) then pays no call for its bookkeeping. */
static inline __attribute__((always_inline)) void
lb_mround_apply(struct lb_mround *r, unsigned long delta,
		struct ful_move *moves, struct lb_decision *d, bool last)
{
	const struct lb_dmove *m = &d->move[r->nmoved];
	moves[r->nmoved] = (struct ful_move){.tid = m->tid, .cpu = m->to};
	r->moved[r->nmoved++] = m->tid;
	d->nmoves = (unsigned char)r->nmoved;
	if (last)
		return;
	if (r->nrun != r->nbuf) {
		unsigned n = r->s->conf.ncpus; /* the online cores only */
		if (r->m != r->mbuf)
			memcpy(r->mbuf, r->m, n * sizeof(r->mbuf[0]));
		memcpy(r->nbuf, r->nrun, n * sizeof(r->nbuf[0]));
		r->m = r->mbuf;
		r->nrun = r->nbuf;
	}
	r->m[m->from] -= delta;
	r->m[m->to] += delta;
	r->nrun[m->from] -= r->nrun[m->from] > 0;
	r->nrun[m->to]++;
}

/**
 * The cores a placement may choose from: the eligible cores @t's affinity
 * allows (d->reason LB_R_PLACED); if there is none, every online core
 * it allows (LB_R_NO_ELIGIBLE, or LB_R_TOO_FEW_CORES with no eligible
 * core at all). Never empty.
 */
static ful_cpus_t lb_place_cores(const struct lb_snap *s,
			const struct lb_new_thread *t, struct lb_decision *d)
{
	ful_cpus_t mask = lb_record(s, d);
	ful_cpus_t online = ful_cpus_first(s->conf.ncpus);
	ful_cpus_t allowed = !ful_cpus_empty(t->affinity)
				     ? ful_cpus_and(t->affinity, online) : online;
	d->reason = LB_R_PLACED;
	if (!ful_cpus_empty(ful_cpus_and(mask, allowed)))
		return ful_cpus_and(mask, allowed);
	d->reason = !ful_cpus_empty(mask) ? LB_R_NO_ELIGIBLE
					  : LB_R_TOO_FEW_CORES;
	return !ful_cpus_empty(allowed) ? allowed : online;
}

/** Log a placement on @to as move[0] (no tid yet), @to_after in the
 *  decision's metric. Field by field: the padding is never read. */
static void lb_place_log(struct lb_decision *d, const struct lb_new_thread *t,
		  unsigned to, unsigned long to_after, unsigned why)
{
	struct lb_dmove *m = &d->move[0];
	m->tid = 0;
	m->slice = t->slice_ms;
	m->from = LB_NO_CPU;
	m->to = (lb_cpu_t)to;
	m->from_after = 0;
	m->to_after = to_after;
	m->weight = ful_weight_of_nice(t->nice);
	m->why = (unsigned char)why;
	d->nmoves = 1;
}

/* ---- alb ---------------------------------------------------------------- */

enum { ALB_T_MAX_MOVES = LB_T_COMMON, ALB_T_COUNT };

static const struct lb_tunable alb_tunables[ALB_T_COUNT] = {
	[LB_T_PERIOD] = {"period_ms", 100, 1, 10000},
	[LB_T_THRESHOLD] = {"threshold_pct", 0, 0, 100},
	[LB_T_INCLUDE_ROOT] = {"include_root", 0, 0, 1},
	[ALB_T_MAX_MOVES] = {"max_moves", 8, 0, LB_MAX_MOVES},
};

/** The first core of @cores (id order) that a thread of weight @w fills
 *  without passing the average; LB_NO_CPU if none. @sum and @n: the
 *  eligible cores' total weight and number, before the thread. */
static unsigned alb_first_fit(const unsigned long *wt, ful_cpus_t cores,
			      unsigned long w, unsigned long sum, unsigned n)
{
	for (unsigned c = 0; !ful_cpus_empty(cores);
	     c++, cores = ful_cpus_shr1(cores))
		if (ful_cpus_low(cores) && (wt[c] + w) * n <= sum + w)
			return c;
	return LB_NO_CPU;
}

/** Of the cores of @cores below the average @sum / @n, the one with the
 *  fewest runnable threads (ties: the least weighted, then the lowest
 *  id); LB_NO_CPU if none is below it. */
static unsigned alb_below_fewest(const unsigned long *wt, const unsigned *nrun,
				 ful_cpus_t cores, unsigned long sum,
				 unsigned n)
{
	unsigned best = LB_NO_CPU;
	for (unsigned c = 0; !ful_cpus_empty(cores);
	     c++, cores = ful_cpus_shr1(cores)) {
		if (!ful_cpus_low(cores) || wt[c] * n >= sum)
			continue;
		if (best == LB_NO_CPU || nrun[c] < nrun[best] ||
		    (nrun[c] == nrun[best] && wt[c] < wt[best]))
			best = c;
	}
	return best;
}

/** Placement: fill cores up to the average weight (see the top). */
static unsigned alb_place(struct lb_policy *p, const struct lb_snap *s,
			  const struct lb_new_thread *t, struct lb_decision *d)
{
	(void)p; /* the interface passes it; no tunable needed */
	ful_cpus_t cores = lb_place_cores(s, t, d);
	unsigned long w = ful_weight_of_nice(t->nice), sum = s->msum;
	d->metric = LB_METRIC_WEIGHT;
	d->msum = sum;
	unsigned n = s->conf.neligible ? s->conf.neligible : 1;
	unsigned to = alb_first_fit(d->v.weight, cores, w, sum, n);
	unsigned why = LB_W_FILL;
	if (to == LB_NO_CPU) {
		to = alb_below_fewest(d->v.weight, d->v.nrun, cores, sum + w, n);
		why = LB_W_OVERSHOOT;
	}
	if (to == LB_NO_CPU) { /* an affinity with no core below avg' */
		struct lb_mround r = {.mask = cores, .m = d->v.weight,
				      .nrun = d->v.nrun};
		to = lb_mround_least(&r, cores);
	}
	lb_place_log(d, t, to, d->v.weight[to] + w, why);
	return to;
}

/* Index entries alb_top looks at, from the top, for a runnable one. */
#define ALB_TOP_PROBES 4

/**
 * The weight of core @src's heaviest runnable thread of the weight
 * index (not moved this round), from the top of its index: the index
 * gives the weight (exact while hdr.tgen stays, and the index is
 * rebuilt when it moves), the thread record's state byte (one word, no
 * seqcount: a hint) whether it is runnable. 0 if none of the top
 * ALB_TOP_PROBES entries is: unknown, the source is taken as overfull.
 */
static __attribute__((noinline)) unsigned long
alb_top(struct lb_snap *s, unsigned src, const unsigned *skip, unsigned nskip)
{
	unsigned lo = s->first[src], i = s->first[src + 1];
	for (unsigned k = 0; k < ALB_TOP_PROBES && i > lo; k++) {
		unsigned long key = s->key[--i];
		unsigned tid = (unsigned)(key & KEY_TID_MASK);
		if (nskip && tid_in(tid, skip, nskip))
			continue;
		unsigned st = FUL_LOAD_RLX(
			&s->area->thread[FUL_TID_SLOT(tid)].state);
		if (st == FUL_TS_READY || st == FUL_TS_RUNNING)
			return key_mid(key);
	}
	return 0;
}

/**
 * Whether core @src (above the average by @excess / n) holds more than
 * paper 001's fill: at or above the average without its heaviest
 * runnable thread. Without a look at any record when its excess is at
 * least the heaviest weight its index holds (the common case of a
 * core that needs balancing). The index is ready.
 */
static inline bool alb_overfull(struct lb_mround *r, unsigned src,
				unsigned long excess)
{
	if (excess >= (unsigned long)r->s->wtop[src] * r->n)
		return true;
	unsigned long top = alb_top(r->s, src, r->moved, r->nmoved);
	return top < r->m[src] && (r->m[src] - top) * r->n >= r->sum;
}

/**
 * One move to @dst (below the average) from the heaviest source above
 * it that has a candidate. LB_R_MOVED with d->move[r->nmoved] filled,
 * or why not
 * (LB_R_NO_GAIN if a source had only threads too heavy to gain, the
 * first of them in d->reject; LB_R_NO_CANDIDATE if none had any).
 */
static unsigned alb_step(struct lb_mround *r, unsigned dst,
			 struct lb_decision *d)
{
	ful_cpus_t tried = ful_cpus_one(dst);
	unsigned why = LB_R_NO_CANDIDATE;
	unsigned long need = r->sum - r->m[dst] * r->n; /* > 0, times n */
	index_ready(r->s, LB_KEY_WEIGHT);
	for (unsigned src = r->most;;
	     src = lb_mround_most(r, ful_cpus_andnot(r->mask, tried))) {
		if (src == LB_NO_CPU || r->m[src] * r->n <= r->sum)
			return why;
		tried = ful_cpus_or(tried, ful_cpus_one(src));
		/* Paper 001's fill: a core is assigned tasks while its
		 * weight is below the average, so the last one it took may
		 * pass it. A core that ran something when the round began
		 * takes a task only from a source that holds more than that
		 * fill: at or above the average even without its heaviest
		 * runnable task (an idle core is filled as a new one is). */
		unsigned long excess = r->m[src] * r->n - r->sum;
		if (d->v.weight[dst] && !alb_overfull(r, src, excess)) {
			if (why == LB_R_NO_CANDIDATE)
				why = LB_R_WITHIN_FILL;
			continue;
		}
		/* fill: w <= min(gap, excess); overshoot: w < 2 min(...)
		 * (w n < 2 imb), or w < W(src) onto an idle core */
		unsigned long imb = need < excess ? need : excess; /* times n */
		unsigned long fit = imb / r->n;
		unsigned long gain = r->m[dst] ? (2 * imb - 1) / r->n + 1
					       : r->m[src];
		struct lb_cand c;
		if (lb_index_pick_weight_ready(r->s, src, dst, fit, gain,
					       r->moved, r->nmoved, &c)) {
			d->move[r->nmoved] = (struct lb_dmove){
				.tid = c.tid, .slice = c.slice,
				.from = (lb_cpu_t)src,
				.to = (lb_cpu_t)dst,
				.from_after = r->m[src] - c.weight,
				.to_after = r->m[dst] + c.weight,
				.weight = c.weight,
				.why = c.weight <= fit ? LB_W_FILL
						       : LB_W_OVERSHOOT};
			return LB_R_MOVED;
		}
		/* Only on the way out: was it weight, or nothing movable? */
		if (!lb_snap_pick_weight(r->s, src, dst, 0, ~0UL, r->moved,
					r->nmoved, &c))
			continue;
		why = LB_R_NO_GAIN;
		if (!d->has_reject) {
			d->reject = (struct lb_dmove){
				.tid = c.tid, .slice = c.slice,
				.from = (lb_cpu_t)src,
				.to = (lb_cpu_t)dst,
				.from_after = r->m[src] - c.weight,
				.to_after = r->m[dst] + c.weight,
				.weight = c.weight, .why = LB_W_OVERSHOOT};
			d->has_reject = true;
		}
	}
}

/**
 * The start both rounds share: the figures in @r (in @metric), the
 * gate at threshold_pct, and the bound on moves (tunable @tmax, at most
 * @max). 0, with the reason in @d, if the round makes no move: fewer
 * than two eligible cores, balanced at the gate, or a bound of 0.
 */
static inline __attribute__((always_inline)) unsigned
mround_begin(struct lb_mround *r, struct lb_policy *p, struct lb_snap *s,
	     struct lb_decision *d, unsigned metric, unsigned tmax,
	     unsigned max)
{
	lb_mround_init(r, s, d, metric);
	if (!ful_cpus_several(r->mask)) {
		d->reason = LB_R_TOO_FEW_CORES;
		return 0;
	}
	d->gate = (unsigned char)lb_mround_gate(
		r, (unsigned)p->tun[LB_T_THRESHOLD].value);
	if (d->gate == LB_GATE_NONE) {
		d->reason = LB_R_BALANCED;
		return 0;
	}
	unsigned limit = (unsigned)p->tun[tmax].value;
	limit = limit < max ? limit : max;
	if (!limit) /* asked for no move */
		d->reason = LB_R_MAX_MOVES;
	return limit;
}

/** Up to max_moves moves from cores above the average weight to cores
 *  below it (see the top). */
static unsigned alb_rebalance(struct lb_policy *p, struct lb_snap *s,
			      struct ful_move *moves, unsigned max,
			      struct lb_decision *d)
{
	struct lb_mround r;
	unsigned limit = mround_begin(&r, p, s, d, LB_METRIC_WEIGHT,
				      ALB_T_MAX_MOVES, max);
	if (!limit)
		return 0;
	/* The first destination is below the average without a look: the
	 * gate passed, so the cores are not all equal (T = 0) or one lies
	 * outside the band, and either way the least is below the average. */
	unsigned why, dst = r.least;
	for (;;) {
		why = alb_step(&r, dst, d);
		if (why != LB_R_MOVED)
			break;
		lb_mround_apply(&r, d->move[r.nmoved].weight, moves, d,
				r.nmoved + 1 >= limit);
		why = LB_R_MAX_MOVES;
		if (r.nmoved >= limit)
			break;
		lb_mround_scan(&r);
		dst = r.least;
		if (r.m[dst] * r.n >= r.sum) {
			why = LB_R_BALANCED; /* no core below the average */
			break;
		}
	}
	d->reason = (unsigned char)why;
	return r.nmoved;
}

void lb_alb_init(struct lb_policy *p)
{
	*p = (struct lb_policy){.name = "alb", .needs = LB_NEED_WEIGHT,
				.ntunables = ALB_T_COUNT,
				.place = alb_place,
				.rebalance = alb_rebalance};
	for (unsigned i = 0; i < ALB_T_COUNT; i++)
		p->tun[i] = alb_tunables[i];
}

/* ---- count ------------------------------------------------------------
 *
 * "count": the baseline paper 001 compares against: balance the number
 * of runnable threads, whatever their weights or slices (Linux's classic
 * behaviour, and the "average number of tasks" method 001 cites).
 *
 * Placement: the eligible core with the fewest runnable threads that the
 * thread's affinity allows, ties to the lowest id.
 * Rebalance: while the core with the most runnable threads has at least
 * two more than the core with the fewest, move one runnable movable
 * thread (the one with the smallest slice: which one does not matter to
 * this policy) from the first to the second; sources tried from the
 * most runnable down if one has nothing it may give; up to max_moves
 * per round, counts updated after each. threshold_pct (default 0): a
 * round runs only if some core's count lies outside avg * (1 +- T).
 */

enum { CNT_T_MAX_MOVES = LB_T_COMMON, CNT_T_COUNT };

static const struct lb_tunable count_tunables[CNT_T_COUNT] = {
	[LB_T_PERIOD] = {"period_ms", 100, 1, 10000},
	[LB_T_THRESHOLD] = {"threshold_pct", 0, 0, 100},
	[LB_T_INCLUDE_ROOT] = {"include_root", 0, 0, 1},
	[CNT_T_MAX_MOVES] = {"max_moves", 8, 0, LB_MAX_MOVES},
};

/** Placement: the fewest runnable threads. */
static unsigned count_place(struct lb_policy *p, const struct lb_snap *s,
			    const struct lb_new_thread *t,
			    struct lb_decision *d)
{
	(void)p; /* the interface passes it; no tunable needed */
	ful_cpus_t cores = lb_place_cores(s, t, d);
	unsigned best = s->mmin;
	if (!ful_cpus_eq(cores, s->conf.mask)) { /* an affinity, or none */
		best = LB_NO_CPU;
		for (unsigned c = 0; c < s->conf.ncpus; c++)
			if (ful_cpus_has(cores, c) &&
			    (best == LB_NO_CPU ||
			     d->v.nrun[c] < d->v.nrun[best]))
				best = c;
	}
	d->metric = LB_METRIC_NRUN;
	d->msum = s->msum;
	lb_place_log(d, t, best, d->v.nrun[best] + 1u, LB_W_FEWEST);
	return best;
}

/** One move to @dst from the core with the most runnable threads, at
 *  least two more than @dst, that has a candidate. LB_R_MOVED with
 *  d->move[r->nmoved] filled; LB_R_BALANCED if no core has two more; LB_R_NO_CANDIDATE. */
static unsigned count_step(struct lb_mround *r, unsigned dst,
			   struct lb_decision *d)
{
	ful_cpus_t tried = ful_cpus_one(dst);
	unsigned why = LB_R_BALANCED;
	for (unsigned src = r->most;;
	     src = lb_mround_most(r, ful_cpus_andnot(r->mask, tried))) {
		if (src == LB_NO_CPU || r->m[src] < r->m[dst] + 2)
			return why;
		tried = ful_cpus_or(tried, ful_cpus_one(src));
		struct lb_cand c;
		if (!lb_snap_pick(r->s, src, dst, r->moved, r->nmoved, &c)) {
			why = LB_R_NO_CANDIDATE;
			continue;
		}
		d->move[r->nmoved] = (struct lb_dmove){
			.tid = c.tid, .slice = c.slice,
			.from = (lb_cpu_t)src, .to = (lb_cpu_t)dst,
			.from_after = r->m[src] - 1, .to_after = r->m[dst] + 1,
			.weight = c.weight, .why = LB_W_COUNT_DIFF};
		return LB_R_MOVED;
	}
}

/** Up to max_moves moves, each from a core with at least two more
 *  runnable threads to the core with the fewest. */
static unsigned count_rebalance(struct lb_policy *p, struct lb_snap *s,
				struct ful_move *moves, unsigned max,
				struct lb_decision *d)
{
	struct lb_mround r;
	unsigned limit = mround_begin(&r, p, s, d, LB_METRIC_NRUN,
				      CNT_T_MAX_MOVES, max);
	if (!limit)
		return 0;
	unsigned why = LB_R_MAX_MOVES;
	while (r.nmoved < limit) {
		if (r.nmoved)
			lb_mround_scan(&r);
		why = count_step(&r, r.least, d);
		if (why != LB_R_MOVED)
			break;
		lb_mround_apply(&r, 1, moves, d, r.nmoved + 1 >= limit);
		why = LB_R_MAX_MOVES;
	}
	d->reason = (unsigned char)why;
	return r.nmoved;
}

void lb_count_init(struct lb_policy *p)
{
	/* LB_NEED_COUNT: the runnable counts as single words, unrolled,
	 * with their least and largest core; cheaper than LB_NEED_NRUN's
	 * seqcount pairs. */
	*p = (struct lb_policy){.name = "count", .needs = LB_NEED_COUNT,
				.ntunables = CNT_T_COUNT,
				.place = count_place,
				.rebalance = count_rebalance};
	for (unsigned i = 0; i < CNT_T_COUNT; i++)
		p->tun[i] = count_tunables[i];
}
