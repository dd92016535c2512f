/*
 * The snapshot: per-core figures copied from the load area, and a
 * per-core index of movable threads ordered by (slice_ms, tid).
 *
 * Costs. lb_snap_refresh reads the header and one record per core:
 * O(ncpus), independent of the thread count. The index is rebuilt only
 * when hdr.tgen changed (a thread was created, freed, moved, or changed
 * slice, nice or affinity): one pass over the thread records and a heap
 * sort, O(T log T) for T threads, done lazily by the first lb_snap_pick
 * that needs it, so placement never pays for it. Runnable/blocked
 * changes do not bump tgen, so lb_snap_pick checks each entry's live
 * record: it stops at the first runnable, movable thread whose affinity
 * allows the destination. Usually that is the first entry (O(1)); the
 * worst case is O(T_c), T_c = indexed threads of that core, when every
 * thread with a smaller slice is blocked or excluded by affinity.
 */
#include "lb.h"

#define KEY_CPU_SHIFT 56
#define KEY_SLICE_SHIFT 32
#define KEY_SLICE_MASK 0xffffffUL
#define KEY_TID_MASK 0xffffffffUL

void lb_snap_init(struct lb_snap *s, const struct ful_load_page *area,
		  unsigned root_cpu)
{
	*s = (struct lb_snap){.area = area, .root_cpu = root_cpu};
}

/** Copy core @c's figures (all fields with LB_NEED_ALL). */
static void snap_read_cpu(struct lb_snap *s, unsigned c)
{
	struct lb_cpu *o = &s->cpu[c];
	if (!(s->needs & LB_NEED_ALL)) {
		while (!ful_load_try_cpu_load(s->area, c, &o->nrunnable,
					      &o->load))
			;
		return;
	}
	struct ful_load_cpu r;
	ful_load_read_cpu(s->area, c, &r);
	*o = (struct lb_cpu){.nrunnable = r.nrunnable, .load = r.load,
			     .nblocked = r.nblocked, .running = r.running,
			     .weight = r.weight, .busy = r.busy,
			     .idle = r.idle, .stamp = r.stamp};
}

/**
 * Read the current per-core figures; mark the thread index stale if
 * hdr.tgen moved since it was built. @now is the caller's clock, kept
 * for the decision log.
 */
void lb_snap_refresh(struct lb_snap *s, unsigned long now)
{
	s->now = now;
	s->ncpus = ful_load_ncpus(s->area);
	if (ful_load_tgen(s->area) != s->tgen)
		s->index_ok = false;
	for (unsigned c = 0; c < s->ncpus; c++)
		snap_read_cpu(s, c);
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

/** Cores a thread may run on: 0 in the record means every core. */
static unsigned thread_affinity(const struct ful_load_thread *t)
{
	return t->affinity ? t->affinity : ~0u;
}

/** Whether the thread could ever be moved by a policy: alive, not a
 *  kernel thread, on an online core, allowed on some other core. */
static bool thread_indexable(const struct ful_load_thread *t, unsigned ncpus)
{
	unsigned online = ncpus >= 32 ? ~0u : (1u << ncpus) - 1;
	if (!t->tid || t->state == FUL_TS_DEAD || (t->flags & FUL_LT_KERNEL) ||
	    t->cpu >= ncpus)
		return false;
	return (thread_affinity(t) & online & ~(1u << t->cpu)) != 0;
}

/**
 * Rebuild the thread index from the thread records. tgen is read first:
 * if the kernel changes anything during the pass, tgen moves on and the
 * next refresh marks the index stale again, so no retry loop is needed.
 */
void lb_snap_index(struct lb_snap *s)
{
	unsigned long gen = ful_load_tgen(s->area);
	unsigned n = ful_load_nthreads(s->area), k = 0;
	unsigned ncpus = ful_load_ncpus(s->area);
	for (unsigned slot = 0; slot < n; slot++) {
		struct ful_load_thread t;
		ful_load_read_thread(s->area, slot, &t);
		if (!thread_indexable(&t, ncpus))
			continue;
		s->key[k++] = (unsigned long)t.cpu << KEY_CPU_SHIFT |
			      ((unsigned long)t.slice_ms & KEY_SLICE_MASK)
				      << KEY_SLICE_SHIFT |
			      t.tid;
	}
	keys_sort(s->key, k);
	unsigned i = 0;
	for (unsigned c = 0; c <= FUL_LOAD_CPUS; c++) {
		while (i < k && (s->key[i] >> KEY_CPU_SHIFT) < c)
			i++;
		s->first[c] = (unsigned short)i;
	}
	s->first[FUL_LOAD_CPUS] = (unsigned short)k;
	s->tgen = gen;
	s->index_ok = true;
	s->builds++;
}

static bool tid_in(unsigned tid, const unsigned *list, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == tid)
			return true;
	return false;
}

/**
 * The runnable thread of core @from with the smallest (slice_ms, tid)
 * that may move to core @to: not a kernel thread, @to in its affinity,
 * not in @skip (threads already moved this round). Rebuilds the index
 * first if it is stale. false if there is none.
 */
bool lb_snap_pick(struct lb_snap *s, unsigned from, unsigned to,
		  const unsigned *skip, unsigned nskip, struct lb_cand *out)
{
	if (!s->index_ok)
		lb_snap_index(s);
	if (from >= FUL_LOAD_CPUS || to >= 32)
		return false;
	for (unsigned i = s->first[from]; i < s->first[from + 1]; i++) {
		unsigned tid = (unsigned)(s->key[i] & KEY_TID_MASK);
		struct ful_load_thread t;
		s->probes++;
		if (FUL_TID_SLOT(tid) >= FUL_LOAD_THREADS ||
		    (nskip && tid_in(tid, skip, nskip)))
			continue;
		ful_load_read_thread(s->area, FUL_TID_SLOT(tid), &t);
		if (t.tid != tid || t.cpu != from || (t.flags & FUL_LT_KERNEL) ||
		    !(thread_affinity(&t) & (1u << to)))
			continue;
		if (t.state != FUL_TS_READY && t.state != FUL_TS_RUNNING)
			continue;
		out->tid = tid;
		out->slice = t.slice_ms;
		return true;
	}
	return false;
}
