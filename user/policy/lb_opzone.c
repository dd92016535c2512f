/*
 * "opzone": the operation-zone balancer of paper 004 (Lim, Min, Eom),
 * on the utilization windows of the load area (version 3).
 *
 * Figure: each core's utilization over the short sliding window: a
 * busy core's util_now word (the figure at its last tick, load area
 * version 6), an idle core's rolled to `now` as the snapshot's util[]
 * of LB_NEED_ALL is (oz_cpu_exact).
 * cpus_avg = 0 (default) compares the busiest eligible core's figure,
 * cpus_avg = 1 the average over the eligible cores (paper 3.2).
 *
 * Zone (tunable zone, spot): balance only if figure > bound, with
 *   cold  bound 30 %   (0-30 % is cold: never balance there)
 *   warm  bound = the spot: low 30 %, mid 50 %, high 80 %
 *   hot   bound 79.9 % (80-100 % is hot: balance only in it)
 * Move: one per decision, from the busiest core to the least utilized
 * eligible core, the higher ranked (score, then usage) of two tasks of
 * the busiest core (oz_candidate): the first candidate a cursor finds as
 * it walks the core's (slice or weight, tid) index round robin, looking
 * at up to OZ_PROBE entries in all, and the core's kept task, the best
 * its walk has weighed; in the warm zone only if that score is above the
 * spot too (the paper's "if CPU usage of a task is higher than the
 * configured spot").
 *
 * Score: a task's usage u (its run time in the last complete window, or
 * in the current one so far if more, over the window length) plus an
 * adjustment kept per task in a fixed table indexed by thread slot
 * (tid checked: a reused slot starts over). A task is "high" while its
 * last complete window was at or above the bound and, since the policy
 * last looked at it, its average usage was too (run time delta / time
 * delta: the policy is not called every window). A high stretch seen to
 * last punish_ms earns -5 % (and again every punish_ms); one that ends
 * having lasted punish_ms also -5 %, one that ends before prize_ms
 * without a punishment +5 % (oz_score). The adjustment stays within +-50 % and the
 * adjusted figure never crosses the high spot upwards nor the low spot
 * downwards (the paper's bounds). Scores change only for tasks the
 * policy examines, i.e. at decisions.
 *
 * Triggers: create (placement: least utilized eligible core), wake (a
 * core woke from idle), busiest (the running task is on the busiest
 * core), idle and demand. The blind periodic timer is declined with
 * reason "timer_declined". Interpretation choices: docs/policy-opzone.md,
 * "How it maps to paper 004".
 */
#include <string.h>

#include "lb_opzone.h"

static const struct lb_tunable opzone_tunables[OZ_T_COUNT] = {
	[LB_T_PERIOD] = {"period_ms", 100, 1, 10000},
	[LB_T_THRESHOLD] = {"threshold_pct", 20, 0, 100},
	[LB_T_INCLUDE_ROOT] = {"include_root", 0, 0, 1},
	[OZ_T_ZONE] = {"zone", OZ_WARM, OZ_COLD, OZ_HOT},
	[OZ_T_SPOT] = {"zone_spot", 1, 0, 2},
	[OZ_T_AVG] = {"cpus_avg", 0, 0, 1},
	[OZ_T_PRIZE] = {"prize_ms", 5000, 10, 600000},
	[OZ_T_PUNISH] = {"punish_ms", 5000, 10, 600000},
};

/* One table per program (one balancer per task, as the balancer runs
 * one policy): lb_opzone_init clears it. */
static struct oz_task oz_table[FUL_LOAD_THREADS];

struct oz_state oz = {.tun = {.gen = ~0ul}, .win = {.seq = 1}};

/** Whether oz.tun must be derived again for @p's tunables: they
 *  changed (a new p->gen) or the counter frequency did. */
static inline __attribute__((always_inline)) bool
oz_stale(const struct lb_policy *p, const struct lb_snap *s)
{
	unsigned long f = FUL_LOAD_RLX(&s->area->hdr.counter_freq);
	return p->gen != oz.tun.gen || f != oz.tun.freq;
}

/** oz.tun for @p's tunables: derived again only when oz_stale. */
static inline __attribute__((always_inline)) void
oz_derive(const struct lb_policy *p, const struct lb_snap *s)
{
	if (__builtin_expect(oz_stale(p, s), 0))
		oz_derive_all(p, FUL_LOAD_RLX(&s->area->hdr.counter_freq));
}

/* oz_record's running figures: the eligible cores' total load, and the
 * rank keys (utilization << 40 | load: a load, the sum of the slices in
 * ms, is far below 2^40) of the most utilized (kh, core h; -1: none yet,
 * compared signed) and the least utilized allowed one (kl, core l; ~0:
 * none yet); strict compares keep ties on the lower id. */
struct oz_acc {
	unsigned long lsum, kl;
	long kh;
	unsigned l, h;
	bool miss; /* a core without util_now, not read exactly (!exact) */
};

/**
 * oz_record's work for core @c, eligible (@elig) or not, allowed as a
 * placement's destination (@allow): its load into d->v.load; if
 * eligible, its utilization over the short sliding window into
 * d->ut.util[c], and its rank. A busy core's figure is its util_now
 * word, one load: what the kernel's last tick of the core computed (the
 * sliding figure at its `stamp`, at most a tick old: <fulcrum/load.h>),
 * with the load read as a separate word. A core without one (idle, or
 * not ticked since it left idle) is read and rolled to @now exactly
 * (oz_cpu_exact), or with @exact false not read: false (the pass
 * stops; its caller starts over with @exact).
 */
static inline __attribute__((always_inline)) bool
oz_record_cpu(const struct ful_load_page *ar, unsigned c, bool elig,
	      bool allow, unsigned long now, struct lb_decision *d,
	      struct oz_acc *a, bool exact)
{
	const struct ful_load_cpu *r = &ar->cpu[c];
	if (!elig) {
		d->v.load[c] = FUL_LOAD_RLX(&r->load);
		d->ut.util[c] = LB_UTIL_NONE;
		return true;
	}
	unsigned long w = FUL_LOAD_RLX(&r->util_now), load;
	if (__builtin_expect(w & FUL_UTIL_NOW_OK, 1)) {
		/* the flag, bit 31, leaves the key with the shift; bits 16
		 * to 30 are 0: the key's top bits are the figure alone */
		load = FUL_LOAD_RLX(&r->load);
	} else if (!exact) {
		return false;
	} else {
		w = oz_cpu_exact(ar, c, now, &load);
	}
	d->v.load[c] = load;
	memcpy(&d->ut.util[c], &w, 2); /* its low half: the figure */
	a->lsum += load;
	unsigned long key = w << 40 | load;
	if ((long)key > a->kh)
		a->h = c, a->kh = (long)key;
	if (allow && key < a->kl)
		a->l = c, a->kl = key;
	return true;
}

/**
 * Read the cores, in one pass: each online core's load into d->v.load
 * (with LB_NEED_SELF the snapshot leaves them to the policy), and each
 * eligible core's utilization into d->ut.util (oz_record_cpu; the others
 * are LB_UTIL_NONE, not read); the eligible cores' total load in d->sum;
 * the zone, and the figure the zone is judged on (the highest eligible
 * utilization, or with cpus_avg their average). Returns, in .l, the
 * least utilized eligible core of @allowed, in .h the most utilized
 * eligible core, LB_NO_CPU if none, with their keys; ties to the lower
 * load, for the most to the higher, then to the lower id (strict
 * compares of one key per core). O(cores). oz.tun must be derived.
 * With @exact false, a core without util_now stops the pass with .miss
 * set (no call in the pass: its caller needs no frame).
 */
static inline __attribute__((always_inline)) struct oz_acc
oz_record(const struct lb_snap *s, struct lb_decision *d, ful_cpus_t mask,
	  ful_cpus_t allowed, bool exact)
{
	const struct ful_load_page *ar = s->area;
	struct oz_acc a = {.kl = ~0ul, .kh = -1, .l = LB_NO_CPU,
			   .h = LB_NO_CPU, .miss = false};
	unsigned n = s->conf.ncpus;
	unsigned long now = s->now;
	memcpy(&d->ut, &oz.tun.head, 8); /* zone, spot, cpus_avg, bound */
	d->has_util = true;
	d->ut.tid = 0;
	/* The first 8 cores with a constant bound, unrolled completely,
	 * then the rest (as lb_snap.c's reading loops) */
#pragma GCC unroll 8
	for (unsigned c = 0; c < (FUL_LOAD_CPUS < 8 ? FUL_LOAD_CPUS : 8); c++) {
		if (c >= n)
			break;
		if (!oz_record_cpu(ar, c, ful_cpus_has(mask, c),
				   ful_cpus_has(allowed, c), now, d, &a,
				   exact))
			goto miss;
	}
	for (unsigned c = 8; c < n; c++)
		if (!oz_record_cpu(ar, c, ful_cpus_has(mask, c),
				   ful_cpus_has(allowed, c), now, d, &a,
				   exact))
			goto miss;
	d->sum = a.lsum;
	d->ut.busiest = (lb_cpu_t)a.h;
	if (__builtin_expect(oz.tun.head.cpus_avg != 0, 0)) {
		unsigned long sum = 0;
		unsigned e = 0;
		for (unsigned c = 0; c < n; c++)
			if (ful_cpus_has(mask, c))
				sum += d->ut.util[c], e++;
		d->ut.figure = (unsigned short)(e ? sum / e : 0);
	} else if (a.h != LB_NO_CPU) {
		d->ut.figure = (unsigned short)((unsigned long)a.kh >> 40);
	}
	return a;
miss:
	a.miss = true;
	return a;
}

/** lb_record without the total load, which oz_record writes (the
 *  snapshot has none for a policy that reads the cores itself). */
static inline ful_cpus_t oz_conf(const struct lb_snap *s,
				 struct lb_decision *d)
{
	d->conf = s->conf;
	return s->conf.mask;
}

/** Placement: the least utilized eligible core @t may run on (ties to
 *  the lower load, then the lowest id); else as lb_place_least. */
static unsigned opzone_place(struct lb_policy *p, const struct lb_snap *s,
			     const struct lb_new_thread *t,
			     struct lb_decision *d)
{
	oz_derive(p, s);
	ful_cpus_t mask = oz_conf(s, d);
	ful_cpus_t online = ful_cpus_first(s->conf.ncpus);
	ful_cpus_t allowed = !ful_cpus_empty(t->affinity)
				     ? ful_cpus_and(t->affinity, online) : online;
	unsigned to = oz_record(s, d, mask, allowed, true).l;
	if (to == LB_NO_CPU) /* no eligible core allowed: the shared rule */
		return lb_place_least(s, t, d, false);
	d->reason = LB_R_PLACED;
	struct lb_dmove *m = &d->move[0];
	m->tid = 0;
	m->slice = t->slice_ms;
	m->from = LB_NO_CPU;
	m->to = (lb_cpu_t)to;
	m->from_after = 0;
	m->to_after = d->v.load[to] + t->slice_ms;
	d->nmoves = 1;
	return to;
}

/* A task weighed: what ranks it and what its score update needs. */
struct oz_best {
	unsigned tid, u, eff;
	int adj;
	unsigned long runtime, last; /* its run time, and in the last window */
	ful_cpus_t aff;              /* its affinity (empty: all cores) */
};

/** @adj moved by @step, within +-OZ_ADJ_MAX. */
static short oz_step(short adj, int step)
{
	int v = adj + step;
	return (short)(v > OZ_ADJ_MAX ? OZ_ADJ_MAX
				      : v < -OZ_ADJ_MAX ? -OZ_ADJ_MAX : v);
}

/**
 * Update the score of the task of @r, seen at the decision's time @now
 * (in the window of oz.win) with r->last ticks in the last complete window. High: that window at
 * or above the bound, and the average since the last look too. A
 * stretch starts at the start of that window; seen high for punish_ms,
 * -5 (and the stretch counts anew); when it ends, it lasted until the
 * last window if the average since the last look was high, else until
 * the last look: -5 if that is punish_ms or more, +5 if shorter than
 * prize_ms and never punished. Returns its entry.
 */
static inline __attribute__((always_inline)) struct oz_task *
oz_score(unsigned long now, const struct oz_best *r)
{
	struct oz_task *e = &oz_table[FUL_TID_SLOT(r->tid)];
	unsigned long win = oz.win.par.win, bound = oz.tun.bound;
	unsigned long lws = oz.win.idx > oz.win.par.idx0 ? oz.win.ws - win
							 : now;
	if (e->tid != r->tid)
		*e = (struct oz_task){.tid = r->tid};
	bool lhigh = r->last * 1000 >= bound * win;
	bool ahigh = !e->seen || now <= e->seen ||
		     (r->runtime - e->runtime) * 1000 >=
			     bound * (now - e->seen);
	if (e->high && !(lhigh && ahigh)) { /* the stretch ended */
		unsigned long end = ahigh ? lws : e->seen;
		unsigned long len = end > e->since ? end - e->since : 0;
		if (len >= oz.tun.punish)
			e->adj = oz_step(e->adj, -OZ_STEP);
		else if (len < oz.tun.prize && !e->punished)
			e->adj = oz_step(e->adj, OZ_STEP);
		e->high = false;
	}
	if (lhigh && !e->high) {
		/* a new stretch: tid and adj stay, seen and runtime are
		 * written below */
		e->high = true;
		e->punished = false;
		e->since = lws;
	} else if (lhigh && now - e->since >= oz.tun.punish) {
		e->adj = oz_step(e->adj, -OZ_STEP);
		e->since = now;
		e->punished = true;
	}
	e->seen = now;
	e->runtime = r->runtime;
	return e;
}

/** Usage @u with adjustment @adj: never raised past the high spot nor
 *  lowered past the low spot by the score. */
static inline unsigned oz_eff(unsigned u, int adj)
{
	if (!adj) /* the common case: no score yet */
		return u;
	int e = (int)u + adj;
	int hi = u > OZ_HIGH ? (int)u : (int)OZ_HIGH;
	int lo = u < OZ_LOW ? (int)u : (int)OZ_LOW;
	if (adj > 0 && e > hi)
		e = hi;
	if (adj < 0 && e < lo)
		e = lo;
	return (unsigned)e;
}

/** ful_win_permille, with one division whatever @ticks: at or above
 *  @len, len * 1000 / len is its 1000. */
static inline unsigned oz_permille(unsigned long ticks, unsigned long len)
{
	if (!len)
		return 0;
	return (unsigned)((ticks < len ? ticks : len) * 1000 / len);
}

/* A thread record's cpu, state, flags and nice bytes, read as one word
 * (one load instead of three byte loads and their extensions). */
typedef unsigned oz_word __attribute__((may_alias));
_Static_assert(offsetof(struct ful_load_thread, cpu) % 4 == 0 &&
		       offsetof(struct ful_load_thread, state) ==
			       offsetof(struct ful_load_thread, cpu) + 1 &&
		       offsetof(struct ful_load_thread, flags) ==
			       offsetof(struct ful_load_thread, cpu) + 2 &&
		       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "oz_weigh reads cpu, state and flags as one word");

/**
 * Weigh thread @tid of core @src for a move to @dst into *@o: false if
 * it is no candidate (not live there, a kernel thread, not allowed on
 * @dst, not runnable; a thread whose state byte already says blocked is
 * passed over without the copy). Its usage u is its run time in the
 * last complete window or in the current one so far, if more, over the
 * window length; its adjustment as last updated (0 if none). One
 * seqcount copy of the record (8 fields).
 */
static inline __attribute__((always_inline)) bool
oz_weigh(const struct ful_load_page *ar, unsigned tid, unsigned src,
	 unsigned dst, struct oz_best *o)
{
	const struct ful_load_thread *t = &ar->thread[FUL_TID_SLOT(tid)];
	/* the record's address in a register: each field a small offset
	 * from it (else GCC rebuilds an address per field, the array being
	 * more than 4 KiB into the area) */
	__asm__("" : "+r"(t));
	unsigned state = FUL_LOAD_RLX(&t->state);
	if (state != FUL_TS_READY && state != FUL_TS_RUNNING)
		return false;
	unsigned rtid, seq, w;
	ful_cpus_t aff;
	unsigned long runtime, widx, base, wlast;
	do {
		seq = ful_load_seq_begin(&t->seq);
		rtid = FUL_LOAD_RLX(&t->tid);
		w = FUL_LOAD_RLX((const oz_word *)&t->cpu);
		aff = FUL_LOAD_RLX(&t->affinity);
		runtime = FUL_LOAD_RLX(&t->runtime);
		widx = FUL_LOAD_RLX(&t->win_idx);
		base = FUL_LOAD_RLX(&t->win_base);
		wlast = FUL_LOAD_RLX(&t->win_last);
	} while (!ful_load_seq_ok(&t->seq, seq));
	/* cpu, state, flags: bytes 0, 1, 2 of the word (little-endian) */
	unsigned cpu = w & 0xff, flags = (w >> 16) & 0xff;
	state = (w >> 8) & 0xff;
	aff = !ful_cpus_empty(aff) ? aff : ful_cpus_all();
	if (rtid != tid || cpu != src || (flags & FUL_LT_KERNEL) ||
	    !ful_cpus_has(aff, dst) ||
	    (state != FUL_TS_READY && state != FUL_TS_RUNNING))
		return false;
	/* its windows (ful_util_thread without the general roll). A record
	 * one window ahead of `now`'s was rolled by its core's tick after
	 * the snapshot was taken: its last window is `now`'s (read as 0, a
	 * busy thread looked idle and was no candidate). */
	unsigned long in = runtime >= base ? runtime - base : 0;
	unsigned long idx = oz.win.idx; /* ~0 if no window */
	unsigned long cur = widx == idx ? in
			    : idx != ~0ul && widx == idx + 1 ? wlast
							     : 0;
	unsigned long last = widx == idx       ? wlast
			     : widx + 1 == idx ? in
						  : 0;
	const struct oz_task *e = &oz_table[FUL_TID_SLOT(tid)];
	o->tid = tid;
	o->u = oz_permille(cur > last ? cur : last, oz.win.par.win);
	o->adj = e->tid == tid ? e->adj : 0;
	o->runtime = runtime;
	o->last = last;
	o->aff = aff;
	return true;
}

/** Whether core @src's kept task is still a candidate for @dst: the
 *  index's tgen has not moved since it was weighed (so it is the same
 *  thread, on @src, with the affinity it had then, kept with it), that
 *  affinity allows @dst, and its state byte says runnable. */
static inline bool oz_kept_ok(const struct lb_snap *s, unsigned src,
			      unsigned dst)
{
	unsigned tid = oz.core[src].best;
	const struct ful_load_thread *t = &s->area->thread[FUL_TID_SLOT(tid)];
	if (!tid || oz.core[src].tgen != s->tgen ||
	    !ful_cpus_has(oz.core[src].aff, dst))
		return false;
	unsigned state = FUL_LOAD_RLX(&t->state);
	return state == FUL_TS_READY || state == FUL_TS_RUNNING;
}

/**
 * The task of core @src to move to @dst, into *@b: the better of the
 * next task of the core's (slice or weight, tid) index, from a cursor
 * that walks its entries round robin (past at most OZ_PROBE entries that
 * are no candidate: blocked, pinned away, gone), and the core's kept
 * task, the best its walk has weighed, ranked as it was then. The walk's
 * task is weighed (a seqcount copy) and looked at: its score is updated
 * (oz_score), and it becomes the kept one if it ranks first (or is the
 * kept one). The kept task is not copied again: while hdr.tgen stays it
 * is the same thread on the same core, and single words of its record
 * say it is still runnable and allowed on @dst (oz_kept_ok); a tgen
 * change (any thread created, moved or re-pinned: a move of the kept
 * task, too) drops it. So a decision weighs one task whatever the
 * number of threads, and the walk brings each task of the core to be
 * weighed, and compared with the kept one, within as many decisions as
 * the core has tasks. false if there is no candidate.
 */
static inline __attribute__((always_inline)) bool
oz_candidate(struct lb_snap *s, unsigned src, unsigned dst, struct oz_best *b)
{
	unsigned lo = s->first[src], n = s->first[src + 1] - lo;
	unsigned i = oz.core[src].cursor;
	bool found = false;
	unsigned probe = n < OZ_PROBE ? n : OZ_PROBE, left = probe;
	for (; left; left--) {
		i = i < n ? i : 0;
		unsigned tid = (unsigned)(s->key[lo + i++] & 0xffffffffUL);
		if (oz_weigh(s->area, tid, src, dst, b)) {
			found = true;
			left--;
			break;
		}
	}
	s->probes += probe - left;
	oz.core[src].cursor = i;
	if (found) {
		b->eff = oz_eff(b->u, b->adj);
		if (oz.core[src].best == b->tid ||
		    (b->eff << 16 | b->u) >= oz.core[src].rank ||
		    !oz_kept_ok(s, src, dst)) {
			/* the pick, weighed now: its score, updated by what
			 * this look sees */
			b->adj = oz_score(s->now, b)->adj;
			b->eff = oz_eff(b->u, b->adj);
			oz.core[src].best = b->tid;
			oz.core[src].rank = b->eff << 16 | b->u;
			oz.core[src].adj = (short)b->adj;
			oz.core[src].tgen = s->tgen;
			oz.core[src].aff = b->aff;
			return true;
		}
	} else if (!oz_kept_ok(s, src, dst)) {
		return false;
	}
	b->tid = oz.core[src].best; /* the kept one ranks first */
	b->eff = oz.core[src].rank >> 16;
	b->u = oz.core[src].rank & 0xffff;
	b->adj = oz.core[src].adj;
	return true;
}

/** Fill the move of @b from @src to @dst into *@m (and d->ut.task). */
static void oz_note(const struct lb_snap *s, struct lb_decision *d,
		    const struct oz_best *b, unsigned src, unsigned dst,
		    struct lb_dmove *m)
{
	d->ut.tid = b->tid;
	d->ut.task_util = (unsigned short)b->u;
	d->ut.score = (short)b->adj;
	d->ut.eff = (unsigned short)b->eff;
	unsigned long ls = d->v.load[src];
	unsigned long slice =
		FUL_LOAD_RLX(&s->area->thread[FUL_TID_SLOT(b->tid)].slice_ms);
	*m = (struct lb_dmove){.tid = b->tid, .slice = (unsigned)slice,
			       .from = (lb_cpu_t)src,
			       .to = (lb_cpu_t)dst,
			       .from_after = ls > slice ? ls - slice : 0,
			       .to_after = d->v.load[dst] + slice};
}

/** The figures and the zone gate: LB_R_MOVED if the figure is in the
 *  zone that balances, with *@src / *@dst the busiest / least utilized
 *  eligible core; LB_R_COUNT if a core was not read (oz_record's miss,
 *  only without @exact). */
static inline __attribute__((always_inline)) unsigned
oz_gate(const struct lb_snap *s, struct lb_decision *d, ful_cpus_t mask,
	unsigned *src, unsigned *dst, bool exact)
{
	struct oz_acc a = oz_record(s, d, mask, ful_cpus_all(), exact);
	if (!exact && __builtin_expect(a.miss, 0))
		return LB_R_COUNT;
	*src = a.h;
	*dst = a.l;
	if (d->ut.figure <= oz.tun.bound)
		return LB_R_BELOW_ZONE;
	/* util[dst] >= util[src], from the keys (utilization << 40); also
	 * when the busiest core is the least utilized (h == l: one key) */
	if (a.kl >> 40 >= (unsigned long)a.kh >> 40)
		return LB_R_BALANCED;
	return LB_R_MOVED;
}

static unsigned oz_move_prep(struct lb_snap *s, struct ful_move *moves,
			     unsigned max, struct lb_decision *d, unsigned src,
			     unsigned dst);

/**
 * opzone_rebalance's move, once the zone allows one: the candidate of
 * core @src for @dst (oz_candidate), turned down (warm: its score not
 * above the spot) or moved. With @ready, oz.win is the window of `now`
 * and the thread index is valid (oz_move_prep); else the common case is
 * checked for, with no call but the last (no frame): the window
 * parameters unchanged, `now` in the window of the last decision, the
 * index built at the current hdr.tgen; anything else goes through
 * oz_move_prep, which makes them so.
 */
static inline __attribute__((always_inline)) unsigned
oz_move(struct lb_snap *s, struct ful_move *moves, unsigned max,
	struct lb_decision *d, unsigned src, unsigned dst, bool ready)
{
	if (!ready) {
		unsigned seq = __atomic_load_n(&s->area->hdr.util_seq,
					       __ATOMIC_ACQUIRE);
		if (__builtin_expect(seq != oz.win.seq ||
					     s->now - oz.win.ws >=
						     oz.win.par.win ||
					     !s->index_ok ||
					     ful_load_tgen(s->area) != s->tgen,
				     0))
			return oz_move_prep(s, moves, max, d, src, dst);
	}
	struct oz_best b;
	if (!oz_candidate(s, src, dst, &b)) {
		d->reason = LB_R_NO_CANDIDATE;
		return 0;
	}
	/* lb_decline / lb_move_one, with the move written in place */
	bool below = (int)b.eff <= oz.tun.task_bound; /* warm only */
	oz_note(s, d, &b, src, dst, below ? &d->reject : &d->move[0]);
	if (below) {
		d->has_reject = true;
		d->reason = LB_R_TASK_BELOW_SPOT;
		return 0;
	}
	if (!max) {
		d->reason = LB_R_MAX_MOVES;
		return 0;
	}
	moves[0] = (struct ful_move){.tid = b.tid, .cpu = dst};
	d->nmoves = 1;
	return 1;
}

/** oz_move's rare case: the window of `now` (oz_clock) and the thread
 *  index made current, then the move. */
static __attribute__((noinline)) unsigned
oz_move_prep(struct lb_snap *s, struct ful_move *moves, unsigned max,
	     struct lb_decision *d, unsigned src, unsigned dst)
{
	(void)oz_clock(s->area, s->now); /* oz.win: the window of `now` */
	if (!s->index_ok || ful_load_tgen(s->area) != s->tgen)
		lb_snap_index(s);
	return oz_move(s, moves, max, d, src, dst, true);
}

/** oz_move in the common case (out of line: called last). */
static __attribute__((noinline)) unsigned
oz_move_now(struct lb_snap *s, struct ful_move *moves, unsigned max,
	    struct lb_decision *d, unsigned src, unsigned dst)
{
	return oz_move(s, moves, max, d, src, dst, false);
}

static unsigned oz_rebalance_exact(struct lb_policy *p, struct lb_snap *s,
				   struct ful_move *moves, unsigned max,
				   struct lb_decision *d);

/**
 * At most one move: the busiest core's highest-scored task to the least
 * utilized core, if the zone (and in warm, the task) allows. Without
 * @exact (the common case) nothing here is a call but the last, so the
 * part before the move needs no frame: the rare cases, tunables to
 * derive or a core without util_now, start over in oz_rebalance_exact.
 */
static inline __attribute__((always_inline)) unsigned
oz_rebalance(struct lb_policy *p, struct lb_snap *s, struct ful_move *moves,
	     unsigned max, struct lb_decision *d, bool exact)
{
	if (exact)
		oz_derive(p, s);
	else if (__builtin_expect(oz_stale(p, s), 0))
		return oz_rebalance_exact(p, s, moves, max, d);
	ful_cpus_t mask = oz_conf(s, d);
	unsigned src, dst;
	unsigned reason = oz_gate(s, d, mask, &src, &dst, exact);
	if (!exact && __builtin_expect(reason == LB_R_COUNT, 0))
		return oz_rebalance_exact(p, s, moves, max, d);
	if (__builtin_expect(d->trigger == LB_TRIG_TIMER ||
				     !ful_cpus_several(mask),
			     0)) /* the figures only, for the log */
		reason = d->trigger == LB_TRIG_TIMER ? LB_R_TIMER_DECLINED
						     : LB_R_TOO_FEW_CORES;
	d->reason = (unsigned char)reason;
	if (reason != LB_R_MOVED)
		return 0;
	return oz_move_now(s, moves, max, d, src, dst);
}

/** oz_rebalance with every core read, exactly if it has no util_now. */
static __attribute__((noinline)) unsigned
oz_rebalance_exact(struct lb_policy *p, struct lb_snap *s,
		   struct ful_move *moves, unsigned max, struct lb_decision *d)
{
	return oz_rebalance(p, s, moves, max, d, true);
}

static unsigned opzone_rebalance(struct lb_policy *p, struct lb_snap *s,
				 struct ful_move *moves, unsigned max,
				 struct lb_decision *d)
{
	return oz_rebalance(p, s, moves, max, d, false);
}

/** The score of thread @tid: its adjustment in permille, as ranking
 *  uses it (0 until a decision has weighed it; oz_weigh). */
static bool opzone_score(const struct lb_policy *p, unsigned tid, int *out)
{
	(void)p;
	if (FUL_TID_SLOT(tid) >= FUL_LOAD_THREADS)
		return false;
	const struct oz_task *e = &oz_table[FUL_TID_SLOT(tid)];
	*out = e->tid == tid ? e->adj : 0;
	return true;
}

void lb_opzone_init(struct lb_policy *p)
{
	*p = (struct lb_policy){.name = "opzone", .needs = LB_NEED_SELF,
				.events = FUL_LBE_ALL,
				.ntunables = OZ_T_COUNT,
				.place = opzone_place,
				.rebalance = opzone_rebalance,
				.state = oz_table, .score = opzone_score};
	_Static_assert(OZ_T_COUNT <= LB_MAX_TUNABLES, "room for the tunables");
	for (unsigned i = 0; i < OZ_T_COUNT; i++)
		p->tun[i] = opzone_tunables[i];
	for (unsigned i = 0; i < FUL_LOAD_THREADS; i++)
		oz_table[i] = (struct oz_task){0};
	for (unsigned c = 0; c < FUL_LOAD_CPUS; c++)
		oz.core[c].best = oz.core[c].cursor = 0;
	oz.win.seq = 1;
	oz.tun.gen = ~0ul;
}
