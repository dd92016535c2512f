/*
 * "fulcrum": a refinement of paper 000's balancer, same load L, average
 * A and threshold T.
 *
 * Gate (when a round may move anything): a core is idle (no runnable
 * thread) while another has two or more (idle_trigger), or some core is
 * heavy, or some core is light. The paper needs heavy AND light, so with
 * loads 10/7/7 (A = 8) it never moves: no core is light.
 *
 * Round: up to max_moves moves. Each move goes to the lightest core
 * (ties: fewer runnable threads, then lowest id). Sources are tried from
 * the heaviest down; from each, the runnable movable thread with the
 * smallest slice s. A move is made only if
 *     L(dst) + s <= L(src) - s
 * i.e. the destination ends no heavier than the source: no new overload
 * (the heaviest load never grows, no core is pushed past the source) and
 * the sum of squared loads drops by at least 2 s^2, so rounds converge
 * and two rounds never undo each other on unchanged loads. Loads are
 * updated after each move; threads moved in this round are not picked
 * again. With equal slices it reaches the most even split: 10/6 -> 8/8,
 * 10/7/7 -> 8/8/8.
 *
 * Share pass (share_ms > 0; issue 16): when the round above ends short
 * of max_moves, the threads that share a core with one thread more than
 * another core has are those that fall behind: round robin gives each
 * 1/n of its core. Sharing should fall on the threads that have already
 * run most (processor sharing: every thread at the same rate), which
 * nobody can tell from slices. So, from each core's runnable threads'
 * run time (the load area's per-thread `runtime`): the core of n + 1
 * threads whose threads have run least on average gives its most-run
 * thread to the core of n threads whose threads have run most on
 * average, if those averages differ by more than share_ms (averages
 * over the threads that may leave their core: a pinned one's run time
 * is not read). Loads move by one slice and no core ends heavier than
 * the source was; right after
 * the move the source's average is at most the destination's, so on
 * unchanged figures the next round cannot move it back. Each core gives
 * at most one thread per round; a source whose best partner is within
 * the margin gives none. Cost: one pass over the index of every
 * eligible core (O(T) records), only in rounds that reach it.
 *
 * Placement: least loaded eligible core; ties to fewer runnable threads,
 * then to the lowest id.
 */
#include "lb_index.h"

#define SHARE_MS 3   /* share pass margin (0: off) */
#define PERIOD_MS 10 /* timer rounds: the share pass acts while no core
		      * goes idle (docs/bench-sim.md, "Balance quality") */

enum { FU_T_MAX_MOVES = LB_T_COMMON, FU_T_IDLE, FU_T_SHARE, FU_T_COUNT };

static const struct lb_tunable fulcrum_tunables[FU_T_COUNT] = {
	[LB_T_PERIOD] = {"period_ms", PERIOD_MS, 1, 10000},
	[LB_T_THRESHOLD] = {"threshold_pct", 20, 0, 100},
	[LB_T_INCLUDE_ROOT] = {"include_root", 0, 0, 1},
	[FU_T_MAX_MOVES] = {"max_moves", 8, 0, LB_MAX_MOVES},
	[FU_T_IDLE] = {"idle_trigger", 1, 0, 1},
	[FU_T_SHARE] = {"share_ms", SHARE_MS, 0, 10000},
};

/* The working state of one round: predicted figures after each move. */
struct round {
	struct lb_snap *s;
	ful_cpus_t mask;
	unsigned long load[FUL_LOAD_CPUS];
	unsigned nrun[FUL_LOAD_CPUS];
	unsigned moved[LB_MAX_MOVES];
	unsigned nmoved;
	/* The share pass: per core, its runnable threads' run time (sum,
	 * counter ticks) and its most-run thread (tid 0: none, or it has
	 * given one this round). */
	unsigned long att[FUL_LOAD_CPUS];
	unsigned natt[FUL_LOAD_CPUS]; /* how many: those that may leave */
	unsigned long top[FUL_LOAD_CPUS];
	unsigned toptid[FUL_LOAD_CPUS];
	unsigned topslice[FUL_LOAD_CPUS];
};

static unsigned fulcrum_place(struct lb_policy *p, const struct lb_snap *s,
			      const struct lb_new_thread *t,
			      struct lb_decision *d)
{
	(void)p; /* the interface passes it; no tunable needed */
	return lb_place_least(s, t, d, true);
}

/** Which gate is open, if any (enum lb_gate). */
static unsigned fulcrum_gate(const struct lb_policy *p,
			     const struct lb_decision *d, ful_cpus_t mask)
{
	bool heavy = false, light = false, idle = false, busy = false;
	for (unsigned c = 0; c < d->conf.ncpus; c++) {
		if (!ful_cpus_has(mask, c))
			continue;
		heavy |= lb_state_sum(d, c, d->sum) == LB_ST_HEAVY;
		light |= lb_state_sum(d, c, d->sum) == LB_ST_LIGHT;
		idle |= d->v.nrun[c] == 0;
		busy |= d->v.nrun[c] >= 2;
	}
	if (p->tun[FU_T_IDLE].value && idle && busy)
		return LB_GATE_IDLE;
	if (heavy && light)
		return LB_GATE_HEAVY_LIGHT;
	if (heavy)
		return LB_GATE_HEAVY;
	return light ? LB_GATE_LIGHT : LB_GATE_NONE;
}

/** Lightest core of the round: ties to fewer runnable, then lowest id. */
static unsigned round_dst(const struct round *r)
{
	unsigned best = LB_NO_CPU;
	for (unsigned c = 0; c < r->s->conf.ncpus; c++) {
		if (!ful_cpus_has(r->mask, c))
			continue;
		if (best == LB_NO_CPU || r->load[c] < r->load[best] ||
		    (r->load[c] == r->load[best] && r->nrun[c] < r->nrun[best]))
			best = c;
	}
	return best;
}

/**
 * Find one move: to the lightest core, from the heaviest source that has
 * an acceptable candidate. LB_R_MOVED with *@m filled, or why not (the
 * heaviest source's reason); the first candidate turned down goes to
 * @d->reject.
 */
static unsigned round_step(struct round *r, struct lb_dmove *m,
			   struct lb_decision *d)
{
	unsigned dst = round_dst(r);
	ful_cpus_t tried = ful_cpus_one(dst);
	unsigned why = LB_R_BALANCED;
	for (;;) {
		unsigned src = lb_most_loaded(r->load,
					      ful_cpus_andnot(r->mask, tried));
		if (src == LB_NO_CPU || r->load[src] <= r->load[dst])
			return why;
		tried = ful_cpus_or(tried, ful_cpus_one(src));
		struct lb_cand c;
		if (!lb_snap_pick(r->s, src, dst, r->moved, r->nmoved, &c)) {
			why = why == LB_R_BALANCED ? LB_R_NO_CANDIDATE : why;
			continue;
		}
		*m = (struct lb_dmove){
			.tid = c.tid, .slice = c.slice,
			.from = (lb_cpu_t)src, .to = (lb_cpu_t)dst,
			.from_after = r->load[src] > c.slice
					      ? r->load[src] - c.slice : 0,
			.to_after = r->load[dst] + c.slice};
		if (m->to_after <= m->from_after)
			return LB_R_MOVED;
		why = why == LB_R_BALANCED ? LB_R_NEW_OVERLOAD : why;
		if (!d->has_reject) {
			d->reject = *m;
			d->has_reject = true;
		}
	}
}

/** Each eligible core's runnable threads that may leave it (those the
 *  index holds): their run time, how many, the most run of them. */
static void share_scan(struct round *r)
{
	struct lb_snap *s = r->s;
	for (unsigned c = 0; c < s->conf.ncpus; c++) {
		r->att[c] = r->top[c] = 0;
		r->natt[c] = r->toptid[c] = 0;
		if (!ful_cpus_has(r->mask, c))
			continue;
		for (unsigned i = s->first[c]; i < s->first[c + 1]; i++) {
			struct lb_cand o;
			if (!cand_ok(s, i, c, c, r->moved, r->nmoved, &o))
				continue;
			/* one aligned word: no seqcount needed */
			unsigned long rt = FUL_LOAD_RLX(
				&s->area->thread[FUL_TID_SLOT(o.tid)].runtime);
			r->att[c] += rt;
			r->natt[c]++;
			if (!r->toptid[c] || rt > r->top[c]) {
				r->top[c] = rt;
				r->toptid[c] = o.tid;
				r->topslice[c] = o.slice;
			}
		}
	}
}

/** Does core @a's average run time fall below core @b's (per thread)? */
static bool share_below(const struct round *r, unsigned a, unsigned b)
{
	return r->att[a] * r->natt[b] < r->att[b] * r->natt[a];
}

/** Fill @m: core @src's most-run thread to core @dst; books updated. */
static void share_move(struct round *r, unsigned src, unsigned dst,
		       struct lb_dmove *m)
{
	unsigned slice = r->topslice[src];
	*m = (struct lb_dmove){.tid = r->toptid[src], .slice = slice,
			       .from = (lb_cpu_t)src, .to = (lb_cpu_t)dst,
			       .from_after = r->load[src] > slice
						     ? r->load[src] - slice : 0,
			       .to_after = r->load[dst] + slice};
	r->att[src] -= r->top[src];
	r->att[dst] += r->top[src];
	r->natt[src]--;
	r->natt[dst]++;
	r->toptid[src] = 0;
}

/**
 * One move of the share pass (file comment), or false: source, the core
 * of two runnable or more whose threads have run least on average (and
 * that has not been tried yet); destination, of the cores with one
 * runnable fewer, the one whose threads have run most on average. A
 * source with no destination beyond the margin, or whose most-run thread
 * may not go there, is passed over. O(cores) per source tried.
 */
static bool share_step(struct round *r, unsigned long margin,
		       struct lb_dmove *m)
{
	unsigned n = r->s->conf.ncpus;
	for (;;) {
		unsigned src = LB_NO_CPU, dst = LB_NO_CPU;
		for (unsigned c = 0; c < n; c++)
			if (ful_cpus_has(r->mask, c) && r->nrun[c] >= 2 &&
			    r->toptid[c] &&
			    (src == LB_NO_CPU || share_below(r, c, src)))
				src = c;
		if (src == LB_NO_CPU)
			return false;
		for (unsigned c = 0; c < n; c++)
			if (ful_cpus_has(r->mask, c) &&
			    r->nrun[c] + 1 == r->nrun[src] &&
			    (dst == LB_NO_CPU || share_below(r, dst, c)))
				dst = c;
		if (dst == LB_NO_CPU || !r->natt[dst] ||
		    r->att[dst] / r->natt[dst] <=
			    r->att[src] / r->natt[src] + margin) {
			r->toptid[src] = 0;
			continue;
		}
		struct cand_rec t;
		read_cand(r->s->area, FUL_TID_SLOT(r->toptid[src]), &t);
		if (t.tid == r->toptid[src] &&
		    ful_cpus_has(!ful_cpus_empty(t.affinity) ? t.affinity
							 : ful_cpus_all(), dst)) {
			share_move(r, src, dst, m);
			return true;
		}
		r->toptid[src] = 0; /* pinned away from there: next source */
	}
}

/** Commit move @m to the round and to the outputs. */
static void round_apply(struct round *r, const struct lb_dmove *m,
			struct ful_move *moves, struct lb_decision *d)
{
	r->load[m->from] = m->from_after;
	r->load[m->to] = m->to_after;
	r->nrun[m->from] -= r->nrun[m->from] > 0;
	r->nrun[m->to]++;
	moves[r->nmoved] = (struct ful_move){.tid = m->tid, .cpu = m->to};
	d->move[r->nmoved] = *m;
	r->moved[r->nmoved++] = m->tid;
	d->nmoves = (unsigned char)r->nmoved;
}

/** Several moves per round, each one that leaves no new overload. */
static unsigned fulcrum_rebalance(struct lb_policy *p, struct lb_snap *s,
				  struct ful_move *moves, unsigned max,
				  struct lb_decision *d)
{
	/* Not zero-filled: load[] and nrun[] of the online cores are
	 * copied below, and no other core is in the mask. */
	struct round r;
	r.s = s;
	r.mask = lb_record(s, d);
	r.nmoved = 0;
	if (!ful_cpus_several(r.mask)) {
		d->reason = LB_R_TOO_FEW_CORES;
		return 0;
	}
	d->gate = (unsigned char)fulcrum_gate(p, d, r.mask);
	if (d->gate == LB_GATE_NONE) {
		d->reason = LB_R_BALANCED;
		return 0;
	}
	unsigned limit = (unsigned)p->tun[FU_T_MAX_MOVES].value;
	limit = limit < max ? limit : max;
	for (unsigned c = 0; c < s->conf.ncpus; c++) {
		r.load[c] = d->v.load[c];
		r.nrun[c] = d->v.nrun[c];
	}
	unsigned why = LB_R_MAX_MOVES;
	while (r.nmoved < limit) {
		struct lb_dmove m;
		why = round_step(&r, &m, d);
		if (why != LB_R_MOVED)
			break;
		round_apply(&r, &m, moves, d);
		why = LB_R_MAX_MOVES;
	}
	unsigned long share = (unsigned long)p->tun[FU_T_SHARE].value;
	if (share && why != LB_R_MAX_MOVES && r.nmoved < limit) {
		unsigned long margin = share * s->area->hdr.counter_freq / 1000;
		struct lb_dmove m;
		share_scan(&r);
		while (r.nmoved < limit && share_step(&r, margin, &m)) {
			round_apply(&r, &m, moves, d);
			why = LB_R_SHARED;
		}
	}
	d->reason = (unsigned char)why;
	return r.nmoved;
}

void lb_fulcrum_init(struct lb_policy *p)
{
	*p = (struct lb_policy){.name = "fulcrum", .needs = LB_NEED_NRUN,
				.ntunables = FU_T_COUNT,
				.place = fulcrum_place,
				.rebalance = fulcrum_rebalance};
	_Static_assert(FU_T_COUNT <= LB_MAX_TUNABLES, "room for the tunables");
	for (unsigned i = 0; i < FU_T_COUNT; i++)
		p->tun[i] = fulcrum_tunables[i];
}
