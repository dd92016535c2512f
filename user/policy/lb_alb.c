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
 * nowhere, the least weighted core (ties: fewer runnable, lowest id),
 * which is below avg' and so ends above it by less than w.
 *
 * Rebalance: while some core is below the average, the least weighted
 * one (dst) takes a thread from the heaviest core above the average that
 * has one to give (src; sources tried from the heaviest down):
 *   - the heaviest movable runnable thread with w <= min(avg - W(dst),
 *     W(src) - avg): it fills the gap without passing the average on
 *     either side ("fill");
 *   - else the lightest with W(dst) + w < W(src) ("overshoot"): dst was
 *     below the average, so it ends above it by less than w (never by
 *     more than the moved thread's weight), and below what src had, so
 *     the sum of squared weights drops by at least 2w and rounds never
 *     undo each other.
 * A core at or above the average is never a destination. Up to
 * max_moves moves per round, the figures updated after each, a thread
 * moved at most once per round. threshold_pct (default 0, the paper has
 * none): a round runs only if some core's weight lies outside
 * avg * (1 +- T). Interpretation choices: docs/design.md, "alb".
 */
#include "lb.h"

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
static unsigned alb_first_fit(const unsigned long *wt, unsigned cores,
			      unsigned long w, unsigned long sum, unsigned n)
{
	for (unsigned c = 0; cores; c++, cores >>= 1)
		if ((cores & 1) && (wt[c] + w) * n <= sum + w)
			return c;
	return LB_NO_CPU;
}

/** Placement: fill cores up to the average weight (see the top). */
static unsigned alb_place(struct lb_policy *p, const struct lb_snap *s,
			  const struct lb_new_thread *t, struct lb_decision *d)
{
	(void)p; /* the interface passes it; no tunable needed */
	unsigned cores = lb_place_cores(s, t, d), mask = s->conf.mask;
	unsigned long w = ful_weight_of_nice(t->nice), sum = 0;
	for (unsigned c = 0; c < s->conf.ncpus; c++)
		if ((mask >> c) & 1)
			sum += d->v.weight[c];
	d->metric = LB_METRIC_WEIGHT;
	d->msum = sum;
	unsigned n = s->conf.neligible ? s->conf.neligible : 1;
	unsigned to = alb_first_fit(d->v.weight, cores, w, sum, n);
	unsigned why = LB_W_FILL;
	if (to == LB_NO_CPU) {
		struct lb_mround r = {.mask = cores};
		for (unsigned c = 0; c < s->conf.ncpus; c++) {
			r.m[c] = d->v.weight[c];
			r.nrun[c] = d->v.nrun[c];
		}
		to = lb_mround_least(&r, cores);
		why = LB_W_OVERSHOOT;
	}
	lb_place_log(d, t, to, d->v.weight[to] + w, why);
	return to;
}

/**
 * One move to @dst (below the average) from the heaviest source above
 * it that has a candidate. LB_R_MOVED with *@m filled, or why not
 * (LB_R_NO_GAIN if a source had only threads too heavy to gain, the
 * first of them in d->reject; LB_R_NO_CANDIDATE if none had any).
 */
static unsigned alb_step(struct lb_mround *r, unsigned dst,
			 struct lb_dmove *m, struct lb_decision *d)
{
	unsigned tried = 1u << dst, why = LB_R_NO_CANDIDATE;
	unsigned long need = r->sum - r->m[dst] * r->n; /* > 0, times n */
	for (;;) {
		unsigned src = lb_mround_most(r, r->mask & ~tried);
		if (src == LB_NO_CPU || r->m[src] * r->n <= r->sum)
			return why;
		tried |= 1u << src;
		unsigned long excess = r->m[src] * r->n - r->sum;
		unsigned long fit = (need < excess ? need : excess) / r->n;
		unsigned long gain = r->m[src] - r->m[dst]; /* w < gain */
		struct lb_cand c;
		if (lb_snap_pick_weight(r->s, src, dst, fit, gain, r->moved,
					r->nmoved, &c)) {
			*m = (struct lb_dmove){
				.tid = c.tid, .slice = c.slice,
				.from = (unsigned char)src,
				.to = (unsigned char)dst,
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
				.from = (unsigned char)src,
				.to = (unsigned char)dst,
				.from_after = r->m[src] - c.weight,
				.to_after = r->m[dst] + c.weight,
				.weight = c.weight, .why = LB_W_OVERSHOOT};
			d->has_reject = true;
		}
	}
}

/** Up to max_moves moves from cores above the average weight to cores
 *  below it (see the top). */
static unsigned alb_rebalance(struct lb_policy *p, struct lb_snap *s,
			      struct ful_move *moves, unsigned max,
			      struct lb_decision *d)
{
	struct lb_mround r;
	lb_mround_init(&r, s, d, LB_METRIC_WEIGHT);
	if (!(r.mask & (r.mask - 1))) {
		d->reason = LB_R_TOO_FEW_CORES;
		return 0;
	}
	d->gate = (unsigned char)lb_mround_gate(
		&r, (unsigned)p->tun[LB_T_THRESHOLD].value);
	if (d->gate == LB_GATE_NONE) {
		d->reason = LB_R_BALANCED;
		return 0;
	}
	unsigned limit = (unsigned)p->tun[ALB_T_MAX_MOVES].value;
	limit = limit < max ? limit : max;
	unsigned why = LB_R_MAX_MOVES;
	while (r.nmoved < limit) {
		unsigned dst = lb_mround_least(&r, r.mask);
		if (r.m[dst] * r.n >= r.sum) {
			why = LB_R_BALANCED; /* no core below the average */
			break;
		}
		struct lb_dmove m;
		why = alb_step(&r, dst, &m, d);
		if (why != LB_R_MOVED)
			break;
		lb_mround_apply(&r, &m, m.weight, moves, d);
		why = LB_R_MAX_MOVES;
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
