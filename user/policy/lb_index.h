/*
 * The thread index's readers, shared by lb_snap.c and the policy that
 * walks the index by weight (lb_alb.c), which inlines them: finding a
 * candidate is the hot part of its decision. Internal to user/policy.
 *
 * Index keys: core << 56 | field << 32 | tid, field = slice_ms or
 * weight (struct lb_snap index_key), ascending.
 */
#ifndef LB_INDEX_H
#define LB_INDEX_H

#include "lb.h"

#define KEY_CPU_SHIFT 56
#define KEY_SLICE_SHIFT 32
#define KEY_SLICE_MASK 0xffffffUL
#define KEY_TID_MASK 0xffffffffUL
/* Cores an affinity can name: a destination at or beyond is refused. */
#define LB_AFFINITY_BITS (FUL_LOAD_CPUS <= 32 ? 32u : FUL_LOAD_CPUS)

/** The weight field of index key @k. */
static inline unsigned long key_mid(unsigned long k)
{
	return (k >> KEY_SLICE_SHIFT) & KEY_SLICE_MASK;
}

/** The l-th smallest weight of the nice table (l = 0: nice 19). */
static inline unsigned long level_weight(unsigned l)
{
	return ful_nice_weight[FUL_NICE_LEVELS - 1 - l];
}

/* How many weights of the nice table are below 2^k, k = 0..17 (all of
 * them are below 2^17). */
static const unsigned char levels_below_pow2[18] = {
	0, 0, 0, 0, 1, 4, 7, 10, 13, 16, 19, 23, 26, 29, 32, 35, 38, 40};

/** How many weights of the nice table are <= @w: from the count below
 *  the power of two under @w, at most four steps up (the table has at
 *  most four weights per power of two), whatever the thread count. */
static inline unsigned level_of(unsigned long w)
{
	if (w >= 1UL << 17)
		return FUL_NICE_LEVELS;
	if (!w)
		return 0;
	unsigned l = levels_below_pow2[63 - __builtin_clzl(w)];
	while (l < FUL_NICE_LEVELS && level_weight(l) <= w)
		l++;
	return l;
}

static inline bool tid_in(unsigned tid, const unsigned *list, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == tid)
			return true;
	return false;
}

/* What lb_snap_pick needs of a thread record. */
struct cand_rec {
	unsigned tid, slice, weight;
	ful_cpus_t affinity;
	unsigned char cpu, state, flags;
};

/** Copy those fields of thread slot @slot consistently. */
static inline __attribute__((always_inline)) void
read_cand(const struct ful_load_page *a, unsigned slot, struct cand_rec *o)
{
	const struct ful_load_thread *t = &a->thread[slot];
	unsigned seq;
	do {
		seq = ful_load_seq_begin(&t->seq);
		o->tid = FUL_LOAD_RLX(&t->tid);
		o->cpu = FUL_LOAD_RLX(&t->cpu);
		o->state = FUL_LOAD_RLX(&t->state);
		o->flags = FUL_LOAD_RLX(&t->flags);
		o->slice = FUL_LOAD_RLX(&t->slice_ms);
		o->weight = FUL_LOAD_RLX(&t->weight);
		o->affinity = FUL_LOAD_RLX(&t->affinity);
	} while (!ful_load_seq_ok(&t->seq, seq));
}

/** The index ordered by @key and current (rebuilt if hdr.tgen moved or
 *  it was ordered by the other key). */
static inline void index_ready(struct lb_snap *s, unsigned key)
{
	if (!s->index_ok || s->index_key != key ||
	    ful_load_tgen(s->area) != s->tgen) {
		s->index_key = (unsigned char)key;
		lb_snap_index(s);
	}
}

/**
 * Whether index entry @i (of core @from) is a thread a policy may move
 * to @to now: its live record says it is still on @from, READY or
 * RUNNING, not a kernel thread, @to in its affinity, and it is not in
 * @skip. Fills *@out if so.
 */
static inline __attribute__((always_inline)) bool
cand_ok(struct lb_snap *s, unsigned i, unsigned from,
		    unsigned to, const unsigned *skip, unsigned nskip,
		    struct lb_cand *out)
{
	unsigned tid = (unsigned)(s->key[i] & KEY_TID_MASK);
	struct cand_rec t;
	s->probes++;
	if (FUL_TID_SLOT(tid) >= FUL_LOAD_THREADS ||
	    (nskip && tid_in(tid, skip, nskip)))
		return false;
	read_cand(s->area, FUL_TID_SLOT(tid), &t);
	if (t.tid != tid || t.cpu != from || (t.flags & FUL_LT_KERNEL) ||
	    !ful_cpus_has(!ful_cpus_empty(t.affinity) ? t.affinity
						       : ful_cpus_all(), to))
		return false;
	if (t.state != FUL_TS_READY && t.state != FUL_TS_RUNNING)
		return false;
	*out = (struct lb_cand){.tid = tid, .slice = t.slice,
				.weight = t.weight};
	return true;
}

/** The first index entry of core @c whose weight is above @w. */
static unsigned weight_split(const struct lb_snap *s, unsigned c,
			     unsigned long w)
{
	unsigned lo = s->first[c], hi = s->first[c + 1];
	if (hi > lo && key_mid(s->key[hi - 1]) <= w)
		return hi; /* often: the core's heaviest fits */
	unsigned i = s->wlvl[c][level_of(w)];
	/* Only weights outside the table (none from the kernel) move it. */
	while (i > lo && key_mid(s->key[i - 1]) > w)
		i--;
	while (i < hi && key_mid(s->key[i]) <= w)
		i++;
	return i;
}

/**
 * alb's candidate on core @from for core @to: the heaviest movable
 * runnable thread whose weight is <= @fit (it fills the gap without
 * passing it), else the lightest whose weight is < @limit; ties to the
 * higher tid going down, the lower going up. Same checks as lb_snap_pick.
 * The split point comes from the level table in O(1) of the thread
 * count; each entry walked past is a thread that cannot move now.
 */
static inline __attribute__((always_inline)) bool
lb_index_pick_weight_ready(struct lb_snap *s, unsigned from, unsigned to,
			   unsigned long fit, unsigned long limit,
			   const unsigned *skip, unsigned nskip,
			   struct lb_cand *out);

static inline __attribute__((always_inline)) bool
lb_index_pick_weight(struct lb_snap *s, unsigned from, unsigned to,
		     unsigned long fit, unsigned long limit,
		     const unsigned *skip, unsigned nskip, struct lb_cand *out)
{
	index_ready(s, LB_KEY_WEIGHT);
	return lb_index_pick_weight_ready(s, from, to, fit, limit, skip, nskip,
					  out);
}

/** lb_index_pick_weight on an index the caller made ready (index_ready
 *  with LB_KEY_WEIGHT). */
static inline __attribute__((always_inline)) bool
lb_index_pick_weight_ready(struct lb_snap *s, unsigned from, unsigned to,
			   unsigned long fit, unsigned long limit,
			   const unsigned *skip, unsigned nskip,
			   struct lb_cand *out)
{
	if (from >= FUL_LOAD_CPUS || to >= LB_AFFINITY_BITS)
		return false;
	unsigned lo = s->first[from], hi = s->first[from + 1];
	unsigned split = weight_split(s, from, fit);
	for (unsigned i = split; i-- > lo;)
		if (cand_ok(s, i, from, to, skip, nskip, out))
			return true;
	for (unsigned i = split; i < hi && key_mid(s->key[i]) < limit; i++)
		if (cand_ok(s, i, from, to, skip, nskip, out))
			return true;
	return false;
}

#endif
