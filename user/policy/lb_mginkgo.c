/*
 * "mginkgo": the centralized global dynamic balancer of paper 000
 * (Tan et al.), as published.
 *
 *   L  = sum of the time slices of a core's runnable threads
 *   A  = average L over the cores, without the rootserver's core
 *   heavy if L > A(1+T), light if L < A(1-T), normal otherwise; T = 20 %
 *
 * get_free_core (place): the least loaded eligible core, ties to the
 * lowest id. get_transfer_task (rebalance): if the heaviest core is heavy
 * and the lightest light, take the heaviest core's runnable thread with
 * the smallest slice and move it to the lightest if L(lightest) + slice
 * < L(heaviest); otherwise nothing. At most one move per round.
 * Interpretation choices: docs/policy-mginkgo.md, "Interpretation choices".
 */
#include "lb.h"

static const struct lb_tunable mginkgo_tunables[LB_T_COMMON] = {
	[LB_T_PERIOD] = {"period_ms", 100, 1, 10000},
	[LB_T_THRESHOLD] = {"threshold_pct", 20, 0, 100},
	[LB_T_INCLUDE_ROOT] = {"include_root", 0, 0, 1},
};

/** get_free_core(): the least loaded eligible core allowed by the
 *  thread's affinity, ties to the lowest id. */
static unsigned mginkgo_place(struct lb_policy *p, const struct lb_snap *s,
			      const struct lb_new_thread *t,
			      struct lb_decision *d)
{
	(void)p; /* the interface passes it; no tunable needed */
	return lb_place_least(s, t, d, false);
}

/** Step 4 of the paper on the heaviest (@max) and lightest (@min)
 *  eligible cores found by the snapshot: a move is tried only if the
 *  heaviest is heavy and the lightest light. LB_R_MOVED if it may be. */
static unsigned mginkgo_gate(const struct lb_decision *d, unsigned max,
			     unsigned min)
{
	if (lb_state_sum(d, max, d->sum) != LB_ST_HEAVY)
		return LB_R_BALANCED;
	if (lb_state_sum(d, min, d->sum) != LB_ST_LIGHT)
		return LB_R_NO_LIGHT;
	return LB_R_MOVED;
}

/** get_transfer_task(): at most one move, from the heaviest core to the
 *  lightest, never one that would overload the destination. */
static unsigned mginkgo_rebalance(struct lb_policy *p, struct lb_snap *s,
				  struct ful_move *moves, unsigned max,
				  struct lb_decision *d)
{
	(void)p; /* the interface passes it; no tunable needed */
	ful_cpus_t mask = lb_record(s, d);
	unsigned hi = s->max, lo = s->min;
	if (!ful_cpus_several(mask)) {
		d->reason = LB_R_TOO_FEW_CORES;
		return 0;
	}
	d->reason = (unsigned char)mginkgo_gate(d, hi, lo);
	if (d->reason != LB_R_MOVED)
		return 0;
	d->gate = LB_GATE_HEAVY_LIGHT;
	struct lb_cand c;
	if (!lb_snap_pick(s, hi, lo, NULL, 0, &c)) {
		d->reason = LB_R_NO_CANDIDATE;
		return 0;
	}
	unsigned long lhi = d->v.load[hi];
	struct lb_dmove m = {.tid = c.tid, .slice = c.slice,
			     .from = (lb_cpu_t)hi, .to = (lb_cpu_t)lo,
			     .from_after = lhi > c.slice ? lhi - c.slice : 0,
			     .to_after = d->v.load[lo] + c.slice};
	if (m.to_after >= lhi) /* L(min) + slice < L(max) fails */
		return lb_decline(d, LB_R_NEW_OVERLOAD, &m);
	return lb_move_one(d, moves, max, &m, c.tid);
}

void lb_mginkgo_init(struct lb_policy *p)
{
	*p = (struct lb_policy){.name = "mginkgo", .needs = 0,
				.ntunables = LB_T_COMMON,
				.place = mginkgo_place,
				.rebalance = mginkgo_rebalance};
	for (unsigned i = 0; i < LB_T_COMMON; i++)
		p->tun[i] = mginkgo_tunables[i];
}
