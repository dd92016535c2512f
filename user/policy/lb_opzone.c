/*
 * "opzone": the operation-zone balancer of paper 004 (Lim, Min, Eom),
 * on the utilization windows of the load area (version 3).
 *
 * Figure: each core's utilization over the short sliding window (the
 * snapshot's util[] of LB_NEED_ALL, read more cheaply: oz_cpu_util).
 * cpus_avg = 0 (default) compares the busiest eligible core's figure,
 * cpus_avg = 1 the average over the eligible cores (paper 3.2).
 *
 * Zone (tunable zone, spot): balance only if figure > bound, with
 *   cold  bound 30 %   (0-30 % is cold: never balance there)
 *   warm  bound = the spot: low 30 %, mid 50 %, high 80 %
 *   hot   bound 79.9 % (80-100 % is hot: balance only in it)
 * Move: one per decision, the task with the highest score of the
 * busiest core (its running task, then the first OZ_PROBE runnable
 * movable ones of the (slice, tid) index) to the least utilized eligible
 * core; in the warm zone only if that score is above the spot too (the
 * paper's "if CPU usage of a task is higher than the configured spot").
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
 * reason "timer_declined". Interpretation choices: docs/design.md,
 * "opzone (paper 004)".
 */
#include "lb.h"

enum {
	OZ_T_ZONE = LB_T_COMMON, /* 0 cold, 1 warm, 2 hot */
	OZ_T_SPOT,               /* warm: 0 low, 1 mid, 2 high */
	OZ_T_AVG,                /* cpus_avg */
	OZ_T_PRIZE,              /* prize_ms */
	OZ_T_PUNISH,             /* punish_ms */
	OZ_T_COUNT
};

enum { OZ_COLD, OZ_WARM, OZ_HOT };

#define OZ_LOW 300u   /* permille: low spot, top of the cold zone */
#define OZ_MID 500u
#define OZ_HIGH 800u  /* high spot, bottom of the hot zone */
#define OZ_STEP 50    /* a prize or a punishment: 5 % */
#define OZ_ADJ_MAX 500
/* Tasks of the busiest core weighed besides its running one: the
 * decision stays O(1) in the number of threads (a constant, not a
 * tunable: lb.h has room for LB_MAX_TUNABLES). */
#define OZ_PROBE 4

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

/* A task's score, by thread slot. */
struct oz_task {
	unsigned tid;          /* 0: unused */
	short adj;             /* permille, multiple of OZ_STEP */
	bool high;             /* in a high stretch */
	bool punished;         /* punished during it */
	unsigned long since;   /* its start (snapshot clock, counter ticks) */
	unsigned long seen;    /* time of the last look (0: never) */
	unsigned long runtime; /* its runtime then */
};

/* One table per program (one balancer per task, as the balancer runs
 * one policy): lb_opzone_init clears it. */
static struct oz_task oz_table[FUL_LOAD_THREADS];

/* What one decision works with. */
struct oz_ctx {
	struct lb_policy *p;
	struct lb_snap *s;
	struct lb_decision *d;
	unsigned bound;        /* balance only above it */
	unsigned long prize, punish; /* counter ticks */
	const struct ful_win_par *par; /* the window parameters (oz_win) */
	unsigned long win;     /* par->win */
	unsigned long idx, ws; /* the window of s->now and its start */
	unsigned long e, tail; /* now - ws (at most a window), win - e */
};

/* The window parameters and the window of the last decision, kept
 * across decisions (oz_clock): read again only when hdr.util_seq moves,
 * the window index computed again only when `now` left that window. */
static struct {
	unsigned seq;          /* hdr.util_seq they were read at; odd: none */
	struct ful_win_par par;
	unsigned long idx, ws; /* a window and its start */
} oz_win = {.seq = 1};

/* Per core: the task its last decision picked (kept: its rank then, eff
 * and u, stand for it until it is weighed again), and where the next
 * probe of its thread index starts. The probes of successive decisions
 * walk every task of the core (oz_candidate). */
static struct {
	unsigned best;         /* tid, 0: none */
	unsigned eff, u;       /* its rank when it was last weighed */
	unsigned cursor;
} oz_core[FUL_LOAD_CPUS];

/** The bound of the configured zone and spot, permille. */
static unsigned oz_bound(const struct lb_policy *p)
{
	static const unsigned spot[3] = {OZ_LOW, OZ_MID, OZ_HIGH};
	long z = p->tun[OZ_T_ZONE].value;
	if (z == OZ_COLD)
		return OZ_LOW;
	if (z == OZ_HOT)
		return OZ_HIGH - 1; /* 80 % is already hot */
	return spot[p->tun[OZ_T_SPOT].value];
}

/** prize_ms and punish_ms in counter ticks of the area into @x (kept
 *  across decisions while the tunables and the frequency stay). */
static void oz_periods(struct oz_ctx *x)
{
	static struct {
		long prize_ms, punish_ms;
		unsigned long freq, prize, punish;
	} c;
	long pz = x->p->tun[OZ_T_PRIZE].value, pn = x->p->tun[OZ_T_PUNISH].value;
	unsigned long f = x->s->area->hdr.counter_freq;
	if (__builtin_expect(pz != c.prize_ms || pn != c.punish_ms ||
				     f != c.freq,
			     0)) {
		c.prize_ms = pz, c.punish_ms = pn, c.freq = f;
		c.prize = (unsigned long)pz * f / 1000;
		c.punish = (unsigned long)pn * f / 1000;
	}
	x->prize = c.prize;
	x->punish = c.punish;
}

/**
 * Core record @r's utilization over the short sliding window at x->s->now,
 * permille, by the general rule of the snapshot's LB_NEED_ALL reader
 * (ful_util_cpu), for a record whose window is not the decision's (an
 * idle core that has not rolled over, a record from before a change of
 * the window length or stamped after `now`). Out of line: oz_cpu_util
 * handles the common case.
 */
static __attribute__((noinline)) unsigned
oz_cpu_util_slow(const struct oz_ctx *x, const struct ful_load_cpu *r,
		 unsigned long stamp, unsigned long idle, unsigned long widx,
		 unsigned long cur, unsigned pm)
{
	unsigned long now = x->s->now, win = x->win;
	if (!win)
		return 0;
	if (widx < x->par->idx0 || stamp > now || widx > x->idx) {
		struct ful_load_cpu c;
		ful_load_read_cpu(x->s->area, (unsigned)(r - x->s->area->cpu), &c);
		ful_util_cpu(&c, x->par, now, &pm, NULL);
		return pm;
	}
	pm = widx + 1 == x->idx
		     ? ful_win_permille(cur + (idle ? 0 : x->ws - stamp), win)
		     : (idle ? 0 : 1000);
	cur = idle ? 0 : now - x->ws;
	return ful_win_sliding(cur, pm, now, x->ws, win);
}

/** The window of the decision (oz_clock), as values: passed by value
 *  into the core pass so that they stay in registers across the stores
 *  into the decision record (a pointer to them could alias those). */
struct oz_clk {
	unsigned long now, idx, e, tail, win;
};

/** oz_clock's rare case: the window parameters changed (read them
 *  again), or `now` left the last window (compute its index again). */
static __attribute__((noinline)) void oz_clock_roll(const struct oz_ctx *x,
						    unsigned seq)
{
	unsigned long now = x->s->now;
	if (seq != oz_win.seq) {
		ful_load_util_par(x->s->area, &oz_win.par);
		oz_win.seq = seq & 1 ? 1 : seq; /* odd: read again next time */
	}
	unsigned long win = oz_win.par.win;
	oz_win.idx = win ? ful_win_index(&oz_win.par, now) : 0;
	oz_win.ws = win ? ful_win_start(&oz_win.par, oz_win.idx) : now;
}

/** The window parameters and the window of the decision (oz_win: read
 *  again only when they changed or `now` left the last window). */
static inline __attribute__((always_inline)) void oz_clock(struct oz_ctx *x)
{
	unsigned long now = x->s->now;
	unsigned seq = __atomic_load_n(&x->s->area->hdr.util_seq,
				       __ATOMIC_ACQUIRE);
	if (__builtin_expect(seq != oz_win.seq || now < oz_win.ws ||
				     now - oz_win.ws >= oz_win.par.win,
			     0))
		oz_clock_roll(x, seq);
	x->par = &oz_win.par;
	unsigned long win = x->win = oz_win.par.win;
	x->idx = win ? oz_win.idx : ~0ul; /* no window: the general reader */
	x->ws = oz_win.ws;
	x->e = now > x->ws ? now - x->ws : 0;
	x->e = x->e > win ? win : x->e;
	x->tail = win - x->e;
}

/* oz_record's running figures: the sums of the eligible cores'
 * utilizations and loads, and the rank keys (utilization << 40 | load,
 * plus one so that 0 means "none yet"; a load, the sum of the slices in
 * ms, is far below 2^40) of the most utilized (kh, core h) and the
 * least utilized allowed one (kl, core l); strict compares keep ties on
 * the lower id. */
struct oz_acc {
	unsigned long sum, lsum, kl, kh;
	unsigned l, h;
};

/**
 * oz_record's work for core @c, eligible (@elig) or not, allowed as a
 * placement's destination (@allow): its load into d->v.load; if
 * eligible, its utilization over the short sliding window at k.now,
 * permille, into d->ut.util, exactly what ful_util_cpu gives (a host
 * test compares the two on 2,000 random core states), and its rank.
 * One seqcount copy of 7 fields. A record in the decision's window (a
 * core that ran, or went idle, since the window began) is the common
 * case, straight-line: the window's busy time so far (with the open
 * stretch since `stamp` if busy), at most e, plus the last window's rate
 * over the rest (ful_win_sliding's formula); any other goes to
 * oz_cpu_util_slow.
 */
static inline __attribute__((always_inline)) void
oz_record_cpu(const struct oz_ctx *x, const struct ful_load_cpu *r,
	      unsigned c, bool elig, bool allow, const struct oz_clk k,
	      struct lb_decision *d, struct oz_acc *a)
{
	if (!elig) {
		d->v.load[c] = FUL_LOAD_RLX(&r->load);
		d->ut.util[c] = LB_UTIL_NONE;
		return;
	}
	unsigned long load, stamp, idle, widx, busy, base, pm;
	unsigned seq;
	do {
		seq = ful_load_seq_begin(&r->seq);
		load = FUL_LOAD_RLX(&r->load);
		stamp = FUL_LOAD_RLX(&r->stamp);
		idle = FUL_LOAD_RLX(&r->idle_open);
		widx = FUL_LOAD_RLX(&r->win_idx);
		busy = FUL_LOAD_RLX(&r->busy);
		base = FUL_LOAD_RLX(&r->win_base);
		pm = FUL_LOAD_RLX(&r->util_short);
	} while (!ful_load_seq_ok(&r->seq, seq));
	unsigned long cur = busy >= base ? busy - base : 0;
	if (__builtin_expect(widx != k.idx || stamp > k.now, 0)) {
		pm = oz_cpu_util_slow(x, r, stamp, idle, widx, cur,
				      (unsigned)pm);
	} else {
		cur += idle ? 0 : k.now - stamp;
		cur = (cur > k.e ? k.e : cur) + pm * k.tail / 1000;
		/* ful_win_permille, win != 0 here (oz_clock) */
		pm = cur >= k.win ? 1000 : cur * 1000 / k.win;
	}
	d->v.load[c] = load;
	d->ut.util[c] = (unsigned short)pm;
	a->sum += pm;
	a->lsum += load;
	unsigned long key = (pm << 40 | load) + 1;
	if (key > a->kh)
		a->h = c, a->kh = key;
	if (allow && key < a->kl)
		a->l = c, a->kl = key;
}

/**
 * Read the cores, in one pass: each online core's load into d->v.load
 * (with LB_NEED_SELF the snapshot leaves them to the policy), and each
 * eligible core's utilization into d->ut.util (with its load, under the
 * record's seqcount; the others are LB_UTIL_NONE, not read); the
 * eligible cores' total load in d->sum; the zone, and the figure the
 * zone is judged on (the highest eligible utilization, or with cpus_avg
 * their average). *@lo: the least utilized eligible core of @allowed,
 * *@hi: the most utilized eligible core, LB_NO_CPU if none; ties to the
 * lower load, for the most to the higher, then to the lower id (strict
 * compares of one key per core). O(cores).
 */
static inline __attribute__((always_inline)) void
oz_record(struct oz_ctx *x, ful_cpus_t mask, ful_cpus_t allowed, unsigned *lo,
	  unsigned *hi)
{
	struct lb_decision *d = x->d;
	struct lb_dutil *u = &d->ut;
	const struct lb_policy *p = x->p;
	const struct ful_load_cpu *r = x->s->area->cpu;
	struct oz_acc a = {.kl = ~0ul, .l = LB_NO_CPU, .h = LB_NO_CPU};
	unsigned n = x->s->conf.ncpus;
	oz_clock(x);
	const struct oz_clk k = {.now = x->s->now, .idx = x->idx, .e = x->e,
				 .tail = x->tail, .win = x->win};
	d->has_util = true;
	u->zone = (unsigned char)p->tun[OZ_T_ZONE].value;
	u->spot = (unsigned char)p->tun[OZ_T_SPOT].value;
	u->cpus_avg = (unsigned char)p->tun[OZ_T_AVG].value;
	u->bound = (unsigned short)x->bound;
	u->tid = 0;
	/* The first 8 cores with a constant bound, unrolled completely,
	 * then the rest (as lb_snap.c's reading loops) */
#pragma GCC unroll 8
	for (unsigned c = 0; c < (FUL_LOAD_CPUS < 8 ? FUL_LOAD_CPUS : 8); c++) {
		if (c >= n)
			break;
		oz_record_cpu(x, &r[c], c, ful_cpus_has(mask, c),
			      ful_cpus_has(allowed, c), k, d, &a);
	}
	for (unsigned c = 8; c < n; c++)
		oz_record_cpu(x, &r[c], c, ful_cpus_has(mask, c),
			      ful_cpus_has(allowed, c), k, d, &a);
	d->sum = a.lsum;
	u->busiest = (lb_cpu_t)a.h;
	if (__builtin_expect(p->tun[OZ_T_AVG].value != 0, 0)) {
		unsigned e = ful_cpus_count(mask);
		u->figure = (unsigned short)(e ? a.sum / e : 0);
	} else {
		u->figure = (unsigned short)(a.kh ? (a.kh - 1) >> 40 : 0);
	}
	*lo = a.l;
	*hi = a.h;
}

/** Placement: the least utilized eligible core @t may run on (ties to
 *  the lower load, then the lowest id); else as lb_place_least. */
static unsigned opzone_place(struct lb_policy *p, const struct lb_snap *s,
			     const struct lb_new_thread *t,
			     struct lb_decision *d)
{
	struct oz_ctx x; /* what oz_record reads, set field by field */
	x.p = p, x.s = (struct lb_snap *)s, x.d = d, x.bound = oz_bound(p);
	ful_cpus_t mask = lb_record(s, d);
	ful_cpus_t online = ful_cpus_first(s->conf.ncpus);
	ful_cpus_t allowed = !ful_cpus_empty(t->affinity)
				     ? ful_cpus_and(t->affinity, online) : online;
	unsigned to, hi;
	oz_record(&x, mask, allowed, &to, &hi);
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
};

/** @adj moved by @step, within +-OZ_ADJ_MAX. */
static short oz_step(short adj, int step)
{
	int v = adj + step;
	return (short)(v > OZ_ADJ_MAX ? OZ_ADJ_MAX
				      : v < -OZ_ADJ_MAX ? -OZ_ADJ_MAX : v);
}

/**
 * Update the score of the task of @r, seen at the snapshot's time (in
 * window @idx) with @last ticks in the last complete window. High: that
 * window at or above the bound, and the average since the last look
 * too. A stretch starts at the start of that window; seen high for
 * punish_ms, -5 (and the stretch counts anew); when it ends, it lasted
 * until the last window if the average since the last look was high,
 * else until the last look: -5 if that is punish_ms or more, +5 if
 * shorter than prize_ms and never punished. Returns its entry.
 */
static struct oz_task *oz_score(struct oz_ctx *x, const struct oz_best *r,
				unsigned long last, unsigned long idx)
{
	struct oz_task *e = &oz_table[FUL_TID_SLOT(r->tid)];
	unsigned long now = x->s->now, win = x->win;
	unsigned long lws = idx > x->par->idx0 ? x->ws - win : now;
	if (e->tid != r->tid)
		*e = (struct oz_task){.tid = r->tid};
	bool lhigh = last * 1000 >= (unsigned long)x->bound * win;
	bool ahigh = !e->seen || now <= e->seen ||
		     (r->runtime - e->runtime) * 1000 >=
			     (unsigned long)x->bound * (now - e->seen);
	if (e->high && !(lhigh && ahigh)) { /* the stretch ended */
		unsigned long end = ahigh ? lws : e->seen;
		unsigned long len = end > e->since ? end - e->since : 0;
		if (len >= x->punish)
			e->adj = oz_step(e->adj, -OZ_STEP);
		else if (len < x->prize && !e->punished)
			e->adj = oz_step(e->adj, OZ_STEP);
		e->high = false;
	}
	if (lhigh && !e->high) {
		*e = (struct oz_task){.tid = e->tid, .adj = e->adj,
				      .high = true, .since = lws};
	} else if (lhigh && now - e->since >= x->punish) {
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

/**
 * Weigh thread @tid of core @src for a move to @dst into *@o: false if
 * it is no candidate (not live there, a kernel thread, not allowed on
 * @dst, not runnable). Its usage u is its run time in the last complete
 * window or in the current one so far, if more, over the window length;
 * its rank, u with its score as last updated (oz_eff). One seqcount copy
 * of the record (8 fields); the score is updated only for the task a
 * decision picks (oz_score), so weighing is a read.
 */
static inline __attribute__((always_inline)) bool
oz_weigh(const struct oz_ctx *x, unsigned tid, unsigned src, unsigned dst,
	 struct oz_best *o)
{
	const struct ful_load_thread *t = &x->s->area->thread[FUL_TID_SLOT(tid)];
	unsigned rtid, seq;
	ful_cpus_t aff;
	unsigned cpu, state, flags;
	unsigned long runtime, widx, base, wlast;
	do {
		seq = ful_load_seq_begin(&t->seq);
		rtid = FUL_LOAD_RLX(&t->tid);
		cpu = FUL_LOAD_RLX(&t->cpu);
		state = FUL_LOAD_RLX(&t->state);
		flags = FUL_LOAD_RLX(&t->flags);
		aff = FUL_LOAD_RLX(&t->affinity);
		runtime = FUL_LOAD_RLX(&t->runtime);
		widx = FUL_LOAD_RLX(&t->win_idx);
		base = FUL_LOAD_RLX(&t->win_base);
		wlast = FUL_LOAD_RLX(&t->win_last);
	} while (!ful_load_seq_ok(&t->seq, seq));
	if (rtid != tid || cpu != src || (flags & FUL_LT_KERNEL) ||
	    !ful_cpus_has(!ful_cpus_empty(aff) ? aff : ful_cpus_all(), dst) ||
	    (state != FUL_TS_READY && state != FUL_TS_RUNNING))
		return false;
	/* its windows (ful_util_thread without the general roll) */
	unsigned long in = runtime >= base ? runtime - base : 0;
	unsigned long cur = widx == x->idx ? in : 0;
	unsigned long last = widx == x->idx       ? wlast
			     : widx + 1 == x->idx ? in
						  : 0;
	const struct oz_task *e = &oz_table[FUL_TID_SLOT(tid)];
	o->tid = tid;
	o->u = ful_win_permille(cur > last ? cur : last, x->win);
	o->adj = e->tid == tid ? e->adj : 0;
	o->eff = oz_eff(o->u, o->adj);
	o->runtime = runtime;
	o->last = last;
	return true;
}

/** Whether @a ranks above @b: the higher score, ties to the higher usage
 *  (then @b, the one weighed first). */
static inline bool oz_above(unsigned aeff, unsigned au, unsigned beff,
			    unsigned bu)
{
	return aeff > beff || (aeff == beff && au > bu);
}

/** The slice of thread @tid (for the decision record). */
static unsigned oz_slice(const struct lb_snap *s, unsigned tid)
{
	return FUL_LOAD_RLX(&s->area->thread[FUL_TID_SLOT(tid)].slice_ms);
}

/**
 * The task of core @src to move to @dst, weighed into b[0] (the walk's)
 * or b[1] (the kept one), whichever it returns: the better of the
 * next task of the core's (slice or weight, tid) index, from a cursor
 * that walks its entries round robin (past at most OZ_PROBE entries that
 * are no candidate: blocked, pinned away, gone), and the task the last
 * decision on this core picked, ranked as it was then (oz_core). That
 * one is weighed again only if it ranks first: so a decision weighs one
 * task, two at most, whatever the number of threads, and the walk
 * brings each task of the core to be compared with the kept one within
 * as many decisions as the core has tasks. NULL if none.
 */
static struct oz_best *oz_candidate(struct oz_ctx *x, unsigned src,
				    unsigned dst, struct oz_best b[2])
{
	struct lb_snap *s = x->s;
	if (__builtin_expect(!s->index_ok || ful_load_tgen(s->area) != s->tgen,
			     0))
		lb_snap_index(s);
	unsigned lo = s->first[src], n = s->first[src + 1] - lo;
	unsigned i = oz_core[src].cursor, kept = oz_core[src].best;
	bool found = false;
	for (unsigned probe = n < OZ_PROBE ? n : OZ_PROBE; probe; probe--) {
		i = i < n ? i : 0;
		unsigned tid = (unsigned)(s->key[lo + i++] & 0xffffffffUL);
		s->probes++;
		if (tid != kept && oz_weigh(x, tid, src, dst, &b[0])) {
			found = true;
			break;
		}
	}
	oz_core[src].cursor = i;
	if (kept && (!found || oz_above(oz_core[src].eff, oz_core[src].u,
					b[0].eff, b[0].u)) &&
	    oz_weigh(x, kept, src, dst, &b[1])) /* still a candidate */
		return &b[1];
	return found ? &b[0] : NULL;
}

/** Fill the move of @b from @src to @dst into @d (and d->ut.task). */
static void oz_note(const struct lb_snap *s, struct lb_decision *d,
		    const struct oz_best *b, unsigned src, unsigned dst,
		    struct lb_dmove *m)
{
	d->ut.tid = b->tid;
	d->ut.task_util = (unsigned short)b->u;
	d->ut.score = (short)b->adj;
	d->ut.eff = (unsigned short)b->eff;
	unsigned long ls = d->v.load[src], slice = oz_slice(s, b->tid);
	*m = (struct lb_dmove){.tid = b->tid, .slice = (unsigned)slice,
			       .from = (lb_cpu_t)src,
			       .to = (lb_cpu_t)dst,
			       .from_after = ls > slice ? ls - slice : 0,
			       .to_after = d->v.load[dst] + slice};
}

/** The zone gate: LB_R_MOVED if the figure is in the zone that
 *  balances, with *@src / *@dst the busiest / least utilized. */
static __attribute__((noinline)) unsigned
oz_gate(struct oz_ctx *x, ful_cpus_t mask, unsigned *src, unsigned *dst)
{
	struct lb_decision *d = x->d;
	oz_record(x, mask, ful_cpus_all(), dst, src);
	if (d->ut.figure <= x->bound)
		return LB_R_BELOW_ZONE;
	if (*src == *dst || d->ut.util[*dst] >= d->ut.util[*src])
		return LB_R_BALANCED;
	return LB_R_MOVED;
}

/** At most one move: the busiest core's highest-scored task to the
 *  least utilized core, if the zone (and in warm, the task) allows. */
static unsigned opzone_rebalance(struct lb_policy *p, struct lb_snap *s,
				 struct ful_move *moves, unsigned max,
				 struct lb_decision *d)
{
	struct oz_ctx x; /* the rest is set by oz_clock and oz_periods */
	x.p = p, x.s = s, x.d = d, x.bound = oz_bound(p);
	ful_cpus_t mask = lb_record(s, d);
	unsigned src, dst;
	if (d->trigger == LB_TRIG_TIMER || !ful_cpus_several(mask)) {
		oz_gate(&x, mask, &src, &dst); /* the figures, for the log */
		d->reason = d->trigger == LB_TRIG_TIMER ? LB_R_TIMER_DECLINED
							: LB_R_TOO_FEW_CORES;
		return 0;
	}
	d->reason = (unsigned char)oz_gate(&x, mask, &src, &dst);
	if (d->reason != LB_R_MOVED)
		return 0;
	oz_periods(&x);
	struct oz_best two[2];
	struct oz_best *b = oz_candidate(&x, src, dst, two);
	if (!b) {
		d->reason = LB_R_NO_CANDIDATE;
		return 0;
	}
	/* the pick's score, updated by what this look sees */
	b->adj = oz_score(&x, b, b->last, x.idx)->adj;
	b->eff = oz_eff(b->u, b->adj);
	oz_core[src].best = b->tid; /* moved: it fails the next check there */
	oz_core[src].eff = b->eff;
	oz_core[src].u = b->u;
	/* lb_decline / lb_move_one, with the move written in place */
	bool below = p->tun[OZ_T_ZONE].value == OZ_WARM && b->eff <= x.bound;
	oz_note(s, d, b, src, dst, below ? &d->reject : &d->move[0]);
	if (below) {
		d->has_reject = true;
		d->reason = LB_R_TASK_BELOW_SPOT;
		return 0;
	}
	if (!max) {
		d->reason = LB_R_MAX_MOVES;
		return 0;
	}
	moves[0] = (struct ful_move){.tid = b->tid, .cpu = dst};
	d->nmoves = 1;
	return 1;
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
		oz_core[c].best = oz_core[c].cursor = 0;
	oz_win.seq = 1;
}
