/*
 * The snapshot: per-core figures copied from the load area, and a
 * per-core index of movable threads ordered by (slice_ms, tid).
 *
 * Costs. lb_snap_refresh reads the header and, per core, the load (one
 * atomic word) or load and nrunnable (one seqcount read): O(ncpus),
 * independent of the thread count. The index
 * is rebuilt only when hdr.tgen changed (a thread was created, freed,
 * moved, or changed slice, nice or affinity): one pass over the thread records and a heap
 * sort, O(T log T) for T threads, done lazily by the first lb_snap_pick
 * that needs it, so placement never pays for it. Runnable/blocked
 * changes do not bump tgen, so lb_snap_pick checks each entry's live
 * record: it stops at the first runnable, movable thread whose affinity
 * allows the destination. Usually that is the first entry (O(1)); the
 * worst case is O(T_c), T_c = indexed threads of that core, when every
 * thread with a smaller slice is blocked or excluded by affinity.
 *
 * A policy that balances weights (alb) asks for the index ordered by
 * (weight, tid) instead (lb_snap_pick_weight); the snapshot keeps one
 * index, in the order its last user asked for (one policy at a time, so
 * it is rebuilt only when the policy changes or tgen moves). With it, a
 * per-core table of where each of the 40 weights of the nice table
 * starts, so the heaviest thread not above a given weight is found from
 * the count of the table's weights below the power of two under it and
 * at most four steps up (level_of, lb_index.h), whatever the thread
 * count.
 */
#include <stdint.h>

#include "lb_index.h"


void lb_snap_init(struct lb_snap *s, const struct ful_load_page *area,
		  unsigned root_cpu)
{
	*s = (struct lb_snap){.area = area, .root_cpu = root_cpu,
			      .conf_key = ~0u};
}

/** Copy the rest of core @c's record, and its utilization at s->now
 *  (LB_NEED_ALL; s->upar read first). */
static void snap_read_ext(struct lb_snap *s, unsigned c)
{
	struct ful_load_cpu r;
	ful_load_read_cpu(s->area, c, &r);
	s->ext[c] = (struct lb_cpu_ext){.nblocked = r.nblocked,
					.running = r.running,
					.weight = r.weight, .busy = r.busy,
					.idle = r.idle, .stamp = r.stamp};
	ful_util_cpu(&r, &s->upar, s->now, &s->util[c].short_pm,
		     &s->util[c].long_pm);
}

/** Every online core's record, weight (into @into) and utilization,
 *  and their average. Out of line: placement's path stays as it was. */
static __attribute__((noinline)) void
snap_read_all(struct lb_snap *s, unsigned n, struct lb_loads *into)
{
	unsigned us[FUL_LOAD_CPUS], ul[FUL_LOAD_CPUS];
	ful_load_util_par(s->area, &s->upar);
	for (unsigned c = 0; c < n; c++) {
		snap_read_ext(s, c);
		into->weight[c] = s->ext[c].weight;
		us[c] = s->util[c].short_pm;
		ul[c] = s->util[c].long_pm;
	}
	s->util_avg_short = ful_util_avg(us, n);
	s->util_avg_long = ful_util_avg(ul, n);
}

bool lb_snap_thread_util(const struct lb_snap *s, unsigned tid,
			 unsigned long *cur, unsigned long *last)
{
	struct ful_load_thread t;
	*cur = *last = 0;
	if (!tid || FUL_TID_SLOT(tid) >= FUL_LOAD_THREADS || !s->upar.win)
		return false;
	ful_load_read_thread(s->area, FUL_TID_SLOT(tid), &t);
	if (t.tid != tid)
		return false;
	ful_util_thread(&t, &s->upar, s->now, cur, last);
	return true;
}

/** Run @p: step 0's load record and decision-record offset, so that
 *  step k is core first + k - skip (addresses: they may point before
 *  the arrays; only the steps from skip on are taken). */
static void run_set(struct lb_run *p, const struct ful_load_page *area,
		    unsigned first, unsigned cnt)
{
#if FUL_LOAD_CPUS <= LB_SCAN_STEPS
	unsigned skip = LB_SCAN_STEPS - cnt;
#else /* rolled (scan_run): step k is core first + k */
	unsigned skip = 0;
#endif
	long step0 = (long)first - (long)skip;
	p->rb = (uintptr_t)&area->cpu[0] + step0 * (long)sizeof(area->cpu[0]);
	p->ob = step0 * (long)sizeof(unsigned long);
	p->skip = skip;
	p->first = first;
	p->cnt = cnt;
}

/**
 * Derive s->conf for @n online cores and the tunables in @key (conf_key
 * layout): the rootserver's core if it is online, and the eligible cores,
 * every online core without the rootserver's unless include_root. Runs
 * only when @key changed.
 */
static void snap_configure(struct lb_snap *s, unsigned n, unsigned key)
{
	bool include_root = key & 0xff, root_online = s->root_cpu < n;
	ful_cpus_t mask = ful_cpus_first(n);
	if (!include_root && root_online)
		mask = ful_cpus_andnot(mask, ful_cpus_one(s->root_cpu));
	s->conf = (union lb_conf){
		.ncpus = (lb_cpu_t)n,
		.root_cpu = (lb_cpu_t)(root_online ? s->root_cpu : LB_NO_CPU),
		.include_root = include_root,
		.threshold_pct = (unsigned char)(key >> 8),
		.mask = mask,
		.neligible = (lb_cpu_t)ful_cpus_count(mask)};
	s->conf_key = key;
}

/* Load monitoring over the eligible cores, accumulated while reading. */
struct acc {
	ful_cpus_t mask;
	unsigned min, max;
	unsigned long sum, lmin;
	long lmax; /* loads are far below 2^63 */
};

static inline void acc_add(struct acc *a, unsigned c, unsigned long load)
{
	if (!ful_cpus_has(a->mask, c))
		return;
	a->sum += load;
	a->min = load < a->lmin ? c : a->min;
	a->lmin = load < a->lmin ? load : a->lmin;
	a->max = (long)load > a->lmax ? c : a->max;
	a->lmax = (long)load > a->lmax ? (long)load : a->lmax;
}

/*
 * Up to 8 online cores, the loads are read by the loops below: a
 * constant bound, which GCC unrolls completely (one early-exit test per
 * core, the code of the 8-core ABI: rolled, the loop cost about 20
 * instructions more at 4 cores).
 * Above 8 cores the loads are read by snap_read_loads_min / _max (a
 * core costs 4 instructions in a placement, 7 in a rebalance, against
 * 10 to 12: no mask test, no loop, branches for the extremes; their
 * fixed cost is higher, so the few-core loops stay). Telling the two
 * apart costs 4 cores about 4 instructions.
 */
#define LB_UNROLL (FUL_LOAD_CPUS < 8 ? FUL_LOAD_CPUS : 8)

static inline __attribute__((always_inline)) void
read_load(const struct ful_load_cpu *r, unsigned c, struct acc *a,
	  struct lb_loads *v)
{
	unsigned long load = FUL_LOAD_RLX(&r[c].load);
	v->load[c] = load;
	acc_add(a, c, load);
}

/** Up to 8 cores (LB_UNROLL), each core's load: one atomic 8-byte
 *  read, no seqcount needed; the eligible ones into @a. */
static void snap_read_few(struct lb_snap *s, unsigned n, struct acc *a,
			  struct lb_loads *v)
{
	const struct ful_load_cpu *r = s->area->cpu;
#pragma GCC unroll 8
	for (unsigned c = 0; c < LB_UNROLL; c++) {
		if (c >= n)
			return;
		read_load(r, c, a, v);
	}
}

static inline __attribute__((always_inline)) void
read_load_min(const struct ful_load_cpu *r, unsigned c, struct acc *a,
	      struct lb_loads *v)
{
	unsigned long load = FUL_LOAD_RLX(&r[c].load);
	v->load[c] = load;
	if (!ful_cpus_has(a->mask, c))
		return;
	a->sum += load;
	a->min = load < a->lmin ? c : a->min;
	a->lmin = load < a->lmin ? load : a->lmin;
}

/** snap_read_few() for a placement: the total and the least loaded
 *  eligible core only (the most loaded one is left LB_NO_CPU). */
static void snap_read_few_min(struct lb_snap *s, unsigned n,
			      struct acc *a, struct lb_loads *v)
{
	const struct ful_load_cpu *r = s->area->cpu;
#pragma GCC unroll 8
	for (unsigned c = 0; c < LB_UNROLL; c++) {
		if (c >= n)
			return;
		read_load_min(r, c, a, v);
	}
}

/*
 * Reading the loads (placement and the rebalances that need no more):
 * the eligible cores are every online core but, unless include_root,
 * the rootserver's, so they are at most two runs of consecutive cores,
 * [0, root) and (root, n), described by s->run[] with the configuration
 * (snap_configure). Each run is read by scan_run(): a switch into a
 * completely unrolled sequence of LB_SCAN_STEPS steps, entered at the
 * step that leaves exactly the run's length (Duff's device), from bases
 * such that every step reads and writes at a constant offset. A core
 * costs its load, the store into the decision record, the sum if wanted
 * and one compare and branch per extreme looked for: no loop counter,
 * no mask test. A branch is taken only when a core beats the best so far
 * (strictly: ties stay with the lower id), at most once per core, for a
 * few instructions more (loads falling with the id, for the least). The
 * first core of a run starts as the best so far.
 */
struct scan {
	unsigned long sum, lmin;
	long lmax;     /* loads are far below 2^63 */
	unsigned min, max;
};

/* Step k: the core k - skip of the run, at rb[k] and ob[k]. */
#define SCAN_CORE(k)                                                      \
	do {                                                              \
		unsigned long l_ = FUL_LOAD_RLX(&rb[k].load);             \
		ob[k] = l_;                                               \
		if (want_sum)                                             \
			a.sum += l_;                                      \
		if (__builtin_expect(l_ < a.lmin, 0)) {                   \
			a.lmin = l_;                                      \
			a.min = (k) - skip;                               \
		}                                                         \
		if (want_max && __builtin_expect((long)l_ > a.lmax, 0)) { \
			a.lmax = (long)l_;                                \
			a.max = (k) - skip;                               \
		}                                                         \
	} while (0)
#define SCAN_CASE(k)                                                      \
	case (k):                                                         \
		SCAN_CORE(k);                                             \
		__attribute__((fallthrough));
#define SCAN_4(b) SCAN_CASE(b) SCAN_CASE((b) + 1) SCAN_CASE((b) + 2)      \
	SCAN_CASE((b) + 3)
#define SCAN_16(b) SCAN_4(b) SCAN_4((b) + 4) SCAN_4((b) + 8) SCAN_4((b) + 12)
#define SCAN_64(b) SCAN_16(b) SCAN_16((b) + 16) SCAN_16((b) + 32)          \
	SCAN_16((b) + 48)

/** The eligible cores of s->conf as runs: [0, root) and (root, n), or
 *  [0, n) with run_root LB_NO_CPU if every online core is eligible.
 *  Derived when conf changed (out of the decision's path). */
static __attribute__((noinline)) void snap_runs(struct lb_snap *s)
{
	unsigned n = s->conf.ncpus, root = s->conf.root_cpu;
	bool split = !s->conf.include_root && root < n;
	s->run_root = split ? root : LB_NO_CPU;
	run_set(&s->run[0], s->area, 0, split ? root : 0);
	run_set(&s->run[1], s->area, split ? root + 1 : 0,
		split ? n - root - 1 : n);
	s->run_key = s->conf_key;
}

/**
 * The cores of run @p (not empty): their loads into @out[] (a decision
 * record's), their sum (@want_sum), the least (and with @want_max the
 * most) loaded, as offsets in the run, ties to the lowest.
 */
static inline __attribute__((always_inline)) struct scan
scan_run(const struct lb_run *p, unsigned long *out, bool want_max,
	 bool want_sum)
{
	const struct ful_load_cpu *rb = (const struct ful_load_cpu *)p->rb;
	unsigned long *ob = (unsigned long *)((uintptr_t)out + p->ob);
	unsigned skip = p->skip;
	unsigned long l0 = FUL_LOAD_RLX(&rb[skip].load);
	struct scan a = {.lmin = l0, .lmax = (long)l0, .min = 0, .max = 0};
#if FUL_LOAD_CPUS <= LB_SCAN_STEPS
	switch (skip) {
		SCAN_64(0)
	default:
		break;
	}
#else /* host builds with more cores: the same order, rolled */
	for (unsigned k = 0; k < p->cnt; k++)
		SCAN_CORE(k);
#endif
	return a;
}

/**
 * Each core's load (one atomic 8-byte read, no seqcount needed) into
 * @v; over the eligible cores the least (with @want_max also the most)
 * loaded core into s->min, s->max (LB_NO_CPU: none, or not looked for),
 * ties to the lowest id, and with @want_sum their total load into
 * s->sum (else LB_SUM_LAZY: the decision record derives it, lb_dsum).
 */
static inline __attribute__((always_inline)) void
snap_read_loads(struct lb_snap *s, struct lb_loads *v, bool want_max,
		bool want_sum)
{
	if (__builtin_expect(s->run_key != s->conf_key, 0))
		snap_runs(s);
	unsigned root = s->run_root;
	struct scan lo = {.lmin = ~0UL, .lmax = -1, .min = LB_NO_CPU,
			  .max = LB_NO_CPU}, hi = lo;
	if (root != LB_NO_CPU)
		v->load[root] = FUL_LOAD_RLX(&s->area->cpu[root].load);
	if (__builtin_expect(s->run[0].cnt != 0, 0)) /* [0, root) */
		lo = scan_run(&s->run[0], v->load, want_max, want_sum);
	if (__builtin_expect(s->run[1].cnt != 0, 1))
		hi = scan_run(&s->run[1], v->load, want_max, want_sum);
	unsigned first = s->run[1].first;
	s->sum = want_sum ? lo.sum + hi.sum : LB_SUM_LAZY;
	/* the lower run wins ties; an empty run has min / max LB_NO_CPU */
	s->min = hi.min == LB_NO_CPU || lo.lmin <= hi.lmin ? lo.min
							    : first + hi.min;
	s->max = !want_max ? LB_NO_CPU
	       : hi.max == LB_NO_CPU || lo.lmax >= hi.lmax ? lo.max
							  : first + hi.max;
}

/* snap_read_loads() as two functions, each with constant options: out
 * of line, so that only they save the registers the scan uses. A
 * placement leaves the total to the record (it decides on the least
 * loaded core alone); a rebalance needs it (the states). */
static __attribute__((noinline)) void
snap_read_loads_min(struct lb_snap *s, struct lb_loads *v)
{
	snap_read_loads(s, v, false, false);
}

static __attribute__((noinline)) void
snap_read_loads_max(struct lb_snap *s, struct lb_loads *v)
{
	snap_read_loads(s, v, true, true);
}

/**
 * Each core's load, nrunnable and (LB_NEED_WEIGHT) weight: what alb and
 * count read, without LB_NEED_ALL's whole records. Like the load alone,
 * each is one single-copy-atomic word read without the seqcount: a
 * decision uses one of them (weight, or runnable count with
 * LB_NEED_COUNT), each exact at some instant; the others are there for
 * the log and for ties. Over the eligible cores: the total load
 * (s->sum), and the balanced figure's (weight, or runnable count if
 * @by_nrun) total, least (ties: fewer runnable, then lowest id) and
 * largest core (ties: lowest id) into s->msum, s->mmin, s->mmax.
 * Unrolled, as the load reading is.
 */
/* snap_read_fast's loop goes over the online cores in two parts: the
 * first LB_UNROLL as snap_read_few's, then the rest, if any, rolled. */

/* snap_read_fast's running figures over the eligible cores. */
struct fast_acc {
	unsigned mmin, mmax;
	unsigned long sum, msum, lo;
	long hi;
};

static inline __attribute__((always_inline)) void
read_fast(const struct ful_load_cpu *r, unsigned c, ful_cpus_t mask,
	  struct fast_acc *f, struct lb_loads *v, bool by_nrun)
{
	unsigned nrun = FUL_LOAD_RLX(&r[c].nrunnable);
	unsigned long load = FUL_LOAD_RLX(&r[c].load), m = nrun;
	v->load[c] = load;
	v->nrun[c] = nrun;
	if (!by_nrun)
		m = FUL_LOAD_RLX(&r[c].weight);
	v->weight[c] = m; /* by_nrun: the count, as the balanced figure */
	if (!ful_cpus_has(mask, c))
		return;
	f->sum += load;
	f->msum += m;
	/* the figure, then the runnable count, as one key: weights stay far
	 * below 2^40 and counts below 2^24 */
	unsigned long key = by_nrun ? m : m << 24 | (nrun & 0xffffffu);
	f->mmin = key < f->lo ? c : f->mmin;
	f->lo = key < f->lo ? key : f->lo;
	f->mmax = (long)m > f->hi ? c : f->mmax;
	f->hi = (long)m > f->hi ? (long)m : f->hi;
}

static inline __attribute__((always_inline)) void
snap_read_fast(struct lb_snap *s, unsigned n, struct lb_loads *v,
	       bool by_nrun)
{
	const struct ful_load_cpu *r = s->area->cpu;
	ful_cpus_t mask = s->conf.mask;
	struct fast_acc f = {.mmin = LB_NO_CPU, .mmax = LB_NO_CPU,
			     .lo = ~0UL, .hi = -1};
	/* in two parts, as snap_read_loads */
#pragma GCC unroll 8
	for (unsigned c = 0; c < LB_UNROLL; c++) {
		if (c >= n)
			break;
		read_fast(r, c, mask, &f, v, by_nrun);
	}
	for (unsigned c = LB_UNROLL; c < n; c++)
		read_fast(r, c, mask, &f, v, by_nrun);
	v->has_nrun = true;
	v->has_weight = !by_nrun;
	s->sum = f.sum;
	s->min = s->max = LB_NO_CPU; /* by load: not looked for */
	s->msum = f.msum;
	s->mmin = f.mmin;
	s->mmax = f.mmax;
}

static inline __attribute__((always_inline)) void
snap_read_weights(struct lb_snap *s, unsigned n, struct lb_loads *v)
{
	snap_read_fast(s, n, v, false);
}

static __attribute__((noinline)) void
snap_read_counts(struct lb_snap *s, unsigned n, struct lb_loads *v)
{
	snap_read_fast(s, n, v, true);
}

/** Each core's load and nrunnable, a consistent pair (seqcount). */
static void snap_read_pairs(struct lb_snap *s, unsigned n, struct acc *a,
			    struct lb_loads *v)
{
	const struct ful_load_cpu *r = s->area->cpu;
	for (unsigned c = 0; c < n; c++, r++) {
		unsigned seq, nrun;
		unsigned long load;
		do {
			seq = ful_load_seq_begin(&r->seq);
			nrun = FUL_LOAD_RLX(&r->nrunnable);
			load = FUL_LOAD_RLX(&r->load);
		} while (__builtin_expect(!ful_load_seq_ok(&r->seq, seq), 0));
		v->load[c] = load;
		v->nrun[c] = nrun;
		acc_add(a, c, load);
	}
}

/**
 * Read every core's figures, as much as @needs (LB_NEED_*) asks for,
 * into @into (a decision record's, s->cur until the next refresh), and
 * over the eligible cores their total and the least and (if
 * LB_NEED_MAX or LB_NEED_NRUN) the most loaded one (ties to the lowest
 * id). @tunables (LB_SNAP_TUNABLES) are the policy's, from which and the
 * online cores s->conf follows. @now is the caller's clock, kept for the
 * decision log. The thread index is checked against hdr.tgen only when
 * a rebalance needs it (lb_snap_pick).
 */
void lb_snap_refresh(struct lb_snap *s, unsigned long now, unsigned needs,
		     unsigned tunables, struct lb_loads *into)
{
	unsigned n = ful_load_ncpus(s->area);
	unsigned key = tunables | n << 16;
	if (__builtin_expect(key != s->conf_key, 0))
		snap_configure(s, n, key);
	s->now = now;
	s->cur = into;
	if (needs & LB_NEED_SELF) { /* the policy reads the cores */
		into->has_nrun = false;
		s->min = s->max = LB_NO_CPU;
		return;
	}
	if (__builtin_expect(needs & (LB_NEED_WEIGHT | LB_NEED_COUNT), 0)) {
		if (needs & LB_NEED_WEIGHT)
			snap_read_weights(s, n, into);
		else
			snap_read_counts(s, n, into);
		return;
	}
	into->has_nrun = (needs & (LB_NEED_NRUN | LB_NEED_ALL)) != 0;
	if (__builtin_expect(!into->has_nrun && n > LB_UNROLL, 0)) {
		if (needs & LB_NEED_MAX)
			snap_read_loads_max(s, into);
		else
			snap_read_loads_min(s, into);
		return;
	}
	struct acc a = {.mask = s->conf.mask, .min = LB_NO_CPU,
			.max = LB_NO_CPU, .lmin = ~0UL, .lmax = -1};
	if (into->has_nrun)
		snap_read_pairs(s, n, &a, into);
	else if (needs & LB_NEED_MAX)
		snap_read_few(s, n, &a, into);
	else
		snap_read_few_min(s, n, &a, into);
	s->sum = a.sum;
	s->min = a.min;
	s->max = a.max;
	/* has_weight is read only where has_nrun is set (the JSON line of
	 * a policy that reads weights); the load-only path leaves it. */
	if (into->has_nrun) {
		into->has_weight = (needs & LB_NEED_ALL) != 0;
		if (needs & LB_NEED_ALL)
			snap_read_all(s, n, into);
	}
}

/** Move key[i] down the max-heap key[0..n). */
static void heap_sift(unsigned long *key, unsigned i, unsigned n)
{
	for (;;) {
		unsigned big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && key[l] > key[big])
			big = l;
		if (r < n && key[r] > key[big])
			big = r;
		if (big == i)
			return;
		unsigned long t = key[i];
		key[i] = key[big];
		key[big] = t;
		i = big;
	}
}

/** Heap sort, ascending: O(n log n), no recursion, no extra memory. */
static void keys_sort(unsigned long *key, unsigned n)
{
	for (unsigned i = n / 2; i-- > 0;)
		heap_sift(key, i, n);
	for (unsigned end = n; end-- > 1;) {
		unsigned long t = key[0];
		key[0] = key[end];
		key[end] = t;
		heap_sift(key, 0, end);
	}
}

/** Cores a thread may run on: none in the record means every core. */
static ful_cpus_t thread_affinity(const struct cand_rec *t)
{
	return !ful_cpus_empty(t->affinity) ? t->affinity : ful_cpus_all();
}

/** Whether the thread could ever be moved by a policy: alive, not a
 *  kernel thread, on an online core, allowed on some other core. */
static bool thread_indexable(const struct cand_rec *t, unsigned ncpus)
{
	ful_cpus_t online = ful_cpus_first(ncpus);
	if (!t->tid || t->state == FUL_TS_DEAD || (t->flags & FUL_LT_KERNEL) ||
	    t->cpu >= ncpus)
		return false;
	return !ful_cpus_empty(ful_cpus_andnot(
		ful_cpus_and(thread_affinity(t), online),
		ful_cpus_one(t->cpu)));
}

/** Fill s->wlvl from the sorted keys: one merge pass per core. */
static void index_levels(struct lb_snap *s, unsigned ncpus)
{
	for (unsigned c = 0; c < ncpus; c++) {
		unsigned i = s->first[c], end = s->first[c + 1];
		for (unsigned l = 0; l < FUL_NICE_LEVELS; l++) {
			while (i < end && key_mid(s->key[i]) < level_weight(l))
				i++;
			s->wlvl[c][l] = (unsigned short)i;
		}
		s->wlvl[c][FUL_NICE_LEVELS] = (unsigned short)end;
		s->wtop[c] = end > s->first[c]
				     ? (unsigned)key_mid(s->key[end - 1]) : 0;
	}
}

/**
 * Rebuild the thread index from the thread records. tgen is read first:
 * if the kernel changes anything during the pass, tgen moves on and the
 * next lb_snap_pick rebuilds again, so no retry loop is needed.
 */
void lb_snap_index(struct lb_snap *s)
{
	unsigned long gen = ful_load_tgen(s->area);
	unsigned n = ful_load_nthreads(s->area), k = 0;
	unsigned ncpus = ful_load_ncpus(s->area);
	for (unsigned slot = 0; slot < n; slot++) {
		struct cand_rec t; /* only what the index needs (lb_index.h) */
		read_cand(s->area, slot, &t);
		if (!thread_indexable(&t, ncpus))
			continue;
		unsigned long mid = s->index_key == LB_KEY_WEIGHT ? t.weight
								  : t.slice;
		s->key[k++] = (unsigned long)t.cpu << KEY_CPU_SHIFT |
			      (mid & KEY_SLICE_MASK) << KEY_SLICE_SHIFT |
			      t.tid;
	}
	keys_sort(s->key, k);
	unsigned i = 0;
	/* Only the online cores hold indexed threads (thread_indexable);
	 * the first of every core beyond is the end. */
	for (unsigned c = 0; c <= ncpus; c++) {
		while (i < k && (s->key[i] >> KEY_CPU_SHIFT) < c)
			i++;
		s->first[c] = (unsigned short)i;
	}
	for (unsigned c = ncpus + 1; c <= FUL_LOAD_CPUS; c++)
		s->first[c] = (unsigned short)k;
	if (s->index_key == LB_KEY_WEIGHT)
		index_levels(s, ncpus);
	s->tgen = gen;
	s->index_ok = true;
	s->builds++;
}

/**
 * The runnable thread of core @from with the smallest (slice_ms, tid)
 * that may move to core @to: not a kernel thread, @to in its affinity,
 * not in @skip (threads already moved this round). Rebuilds the index
 * first if hdr.tgen moved. false if there is none.
 */
bool lb_snap_pick(struct lb_snap *s, unsigned from, unsigned to,
		  const unsigned *skip, unsigned nskip, struct lb_cand *out)
{
	index_ready(s, LB_KEY_SLICE);
	if (from >= FUL_LOAD_CPUS || to >= LB_AFFINITY_BITS)
		return false;
	for (unsigned i = s->first[from]; i < s->first[from + 1]; i++)
		if (cand_ok(s, i, from, to, skip, nskip, out))
			return true;
	return false;
}

/** lb_index_pick_weight() (lb_index.h), for callers outside alb. */
bool lb_snap_pick_weight(struct lb_snap *s, unsigned from, unsigned to,
			 unsigned long fit, unsigned long limit,
			 const unsigned *skip, unsigned nskip,
			 struct lb_cand *out)
{
	return lb_index_pick_weight(s, from, to, fit, limit, skip, nskip, out);
}
