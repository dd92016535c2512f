/*
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
#include "lb.h"

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
	unsigned cores = lb_place_cores(s, t, d), best = LB_NO_CPU, sum = 0;
	for (unsigned c = 0; c < s->conf.ncpus; c++) {
		if ((s->conf.mask >> c) & 1)
			sum += d->v.nrun[c];
		if (((cores >> c) & 1) &&
		    (best == LB_NO_CPU || d->v.nrun[c] < d->v.nrun[best]))
			best = c;
	}
	d->metric = LB_METRIC_NRUN;
	d->msum = sum;
	lb_place_log(d, t, best, d->v.nrun[best] + 1u, LB_W_FEWEST);
	return best;
}

/** One move to @dst from the core with the most runnable threads, at
 *  least two more than @dst, that has a candidate. LB_R_MOVED with *@m
 *  filled; LB_R_BALANCED if no core has two more; LB_R_NO_CANDIDATE. */
static unsigned count_step(struct lb_mround *r, unsigned dst,
			   struct lb_dmove *m)
{
	unsigned tried = 1u << dst, why = LB_R_BALANCED;
	for (;;) {
		unsigned src = lb_mround_most(r, r->mask & ~tried);
		if (src == LB_NO_CPU || r->m[src] < r->m[dst] + 2)
			return why;
		tried |= 1u << src;
		struct lb_cand c;
		if (!lb_snap_pick(r->s, src, dst, r->moved, r->nmoved, &c)) {
			why = LB_R_NO_CANDIDATE;
			continue;
		}
		*m = (struct lb_dmove){
			.tid = c.tid, .slice = c.slice,
			.from = (unsigned char)src, .to = (unsigned char)dst,
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
	lb_mround_init(&r, s, d, LB_METRIC_NRUN);
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
	unsigned limit = (unsigned)p->tun[CNT_T_MAX_MOVES].value;
	limit = limit < max ? limit : max;
	unsigned why = LB_R_MAX_MOVES;
	while (r.nmoved < limit) {
		struct lb_dmove m;
		why = count_step(&r, lb_mround_least(&r, r.mask), &m);
		if (why != LB_R_MOVED)
			break;
		lb_mround_apply(&r, &m, 1, moves, d);
		why = LB_R_MAX_MOVES;
	}
	d->reason = (unsigned char)why;
	return r.nmoved;
}

void lb_count_init(struct lb_policy *p)
{
	*p = (struct lb_policy){.name = "count", .needs = LB_NEED_NRUN,
				.ntunables = CNT_T_COUNT,
				.place = count_place,
				.rebalance = count_rebalance};
	for (unsigned i = 0; i < CNT_T_COUNT; i++)
		p->tun[i] = count_tunables[i];
}
