/*
 * Readers for the kernel's load area (<fulcrum/load.h>): consistent
 * copies of one core's or one thread's record under the seqcount
 * protocol. Plain C with GCC atomics and no system call, so the same
 * code runs in the rootserver and in the host unit tests.
 *
 * Protocol (reader side of a seqlock): load seq with acquire; if odd, a
 * writer is inside, try again; otherwise copy the fields with relaxed
 * atomic loads, issue an acquire fence and load seq again; the copy is
 * good if seq did not change. A torn copy is simply retried: the writer
 * is a core with IRQs masked for a few stores, so it always finishes.
 * The retry count is not bounded (a reader can only be starved by a
 * writer that updates the same record back to back forever).
 *
 * ful_load_try_* make one attempt and say whether it was consistent
 * (for callers that want to do something else meanwhile, and for tests).
 */
#ifndef FUL_LOAD_H
#define FUL_LOAD_H

#include <stdbool.h>

#include <fulcrum/load.h>
#include <fulcrum/loadwin.h>
#include <fulcrum/syscall.h> /* enum ful_thread_state */

/* A relaxed load of one aligned field. Written as a volatile read, not
 * __atomic_load_n(RELAXED): GCC does not fold the field offset into
 * atomic loads (one more instruction per field), and an aligned
 * volatile load of up to 8 bytes is one single-copy-atomic LDR on
 * AArch64 (and one MOV on x86-64), the same access. */
#define FUL_LOAD_RLX(p) (*(const volatile __typeof__(*(p)) *)(p))

/** The area mapped by the kernel at FUL_LOAD_VADDR. */
static inline const struct ful_load_page *ful_load_area(void)
{
	return (const struct ful_load_page *)FUL_LOAD_VADDR;
}

/** hdr.tgen with acquire: records read after it are at least as new. */
static inline unsigned long ful_load_tgen(const struct ful_load_page *pg)
{
	return __atomic_load_n(&pg->hdr.tgen, __ATOMIC_ACQUIRE);
}

/** Cores online, clamped to FUL_LOAD_CPUS. */
static inline unsigned ful_load_ncpus(const struct ful_load_page *pg)
{
	unsigned n = FUL_LOAD_RLX(&pg->hdr.ncpus);
	return n < FUL_LOAD_CPUS ? n : FUL_LOAD_CPUS;
}

/** Thread records in use, clamped to FUL_LOAD_THREADS. */
static inline unsigned ful_load_nthreads(const struct ful_load_page *pg)
{
	unsigned n = FUL_LOAD_RLX(&pg->hdr.nthreads);
	return n < FUL_LOAD_THREADS ? n : FUL_LOAD_THREADS;
}

/** The opening half of a read: seq, acquire (odd: a writer is inside). */
static inline unsigned ful_load_seq_begin(const unsigned *seq)
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

/** The closing half: true if nothing was written since @begin (even). */
static inline bool ful_load_seq_ok(const unsigned *seq, unsigned begin)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(begin & 1u) && FUL_LOAD_RLX(seq) == begin;
}

/** One attempt to copy core @cpu's record (the pad is not copied). */
static inline bool ful_load_try_cpu(const struct ful_load_page *pg,
				    unsigned cpu, struct ful_load_cpu *out)
{
	const struct ful_load_cpu *c = &pg->cpu[cpu];
	unsigned s = ful_load_seq_begin(&c->seq);
	if (s & 1u)
		return false;
	out->seq = s;
	out->nrunnable = FUL_LOAD_RLX(&c->nrunnable);
	out->nblocked = FUL_LOAD_RLX(&c->nblocked);
	out->running = FUL_LOAD_RLX(&c->running);
	out->load = FUL_LOAD_RLX(&c->load);
	out->weight = FUL_LOAD_RLX(&c->weight);
	out->busy = FUL_LOAD_RLX(&c->busy);
	out->idle = FUL_LOAD_RLX(&c->idle);
	out->stamp = FUL_LOAD_RLX(&c->stamp);
	out->mig_in = FUL_LOAD_RLX(&c->mig_in);
	out->mig_out = FUL_LOAD_RLX(&c->mig_out);
	out->switches = FUL_LOAD_RLX(&c->switches);
	out->awake = FUL_LOAD_RLX(&c->awake);
	out->idle_open = FUL_LOAD_RLX(&c->idle_open);
	out->win_idx = FUL_LOAD_RLX(&c->win_idx);
	out->win_base = FUL_LOAD_RLX(&c->win_base);
	out->lwin_base = FUL_LOAD_RLX(&c->lwin_base);
	out->util_short = FUL_LOAD_RLX(&c->util_short);
	out->util_long = FUL_LOAD_RLX(&c->util_long);
	return ful_load_seq_ok(&c->seq, s);
}

/** Busy and idle time of the consistent copy @c up to counter value
 *  @now: the published figures plus the open stretch since c->stamp,
 *  which an idle core (no tick) has not published. @now is a counter
 *  value read after the copy was made. */
static inline void ful_load_cpu_times(const struct ful_load_cpu *c,
				      unsigned long now, unsigned long *busy,
				      unsigned long *idle)
{
	unsigned long open = now > c->stamp ? now - c->stamp : 0;
	*busy = c->busy + (c->idle_open ? 0 : open);
	*idle = c->idle + (c->idle_open ? open : 0);
}

/** Copy core @cpu's record consistently, retrying torn copies. */
static inline void ful_load_read_cpu(const struct ful_load_page *pg,
				     unsigned cpu, struct ful_load_cpu *out)
{
	while (!ful_load_try_cpu(pg, cpu, out))
		;
}

/** One attempt to copy only the figures a balancer reads every round:
 *  nrunnable and load (the cheap path of placement). */
static inline bool ful_load_try_cpu_load(const struct ful_load_page *pg,
					 unsigned cpu, unsigned *nrunnable,
					 unsigned long *load)
{
	const struct ful_load_cpu *c = &pg->cpu[cpu];
	unsigned s = ful_load_seq_begin(&c->seq);
	if (s & 1u)
		return false;
	*nrunnable = FUL_LOAD_RLX(&c->nrunnable);
	*load = FUL_LOAD_RLX(&c->load);
	return ful_load_seq_ok(&c->seq, s);
}

/** One attempt to copy thread slot @slot's record. */
static inline bool ful_load_try_thread(const struct ful_load_page *pg,
				       unsigned slot,
				       struct ful_load_thread *out)
{
	const struct ful_load_thread *t = &pg->thread[slot];
	unsigned s = ful_load_seq_begin(&t->seq);
	if (s & 1u)
		return false;
	out->seq = s;
	out->tid = FUL_LOAD_RLX(&t->tid);
	out->cpu = FUL_LOAD_RLX(&t->cpu);
	out->state = FUL_LOAD_RLX(&t->state);
	out->flags = FUL_LOAD_RLX(&t->flags);
	out->nice = FUL_LOAD_RLX(&t->nice);
	out->slice_ms = FUL_LOAD_RLX(&t->slice_ms);
	out->weight = FUL_LOAD_RLX(&t->weight);
	out->affinity = FUL_LOAD_RLX(&t->affinity);
	out->runtime = FUL_LOAD_RLX(&t->runtime);
	out->win_idx = FUL_LOAD_RLX(&t->win_idx);
	out->win_base = FUL_LOAD_RLX(&t->win_base);
	out->win_last = FUL_LOAD_RLX(&t->win_last);
	return ful_load_seq_ok(&t->seq, s);
}

/** Copy thread slot @slot's record consistently, retrying torn copies. */
static inline void ful_load_read_thread(const struct ful_load_page *pg,
					unsigned slot,
					struct ful_load_thread *out)
{
	while (!ful_load_try_thread(pg, slot, out))
		;
}

/*
 * Utilization (version 3; windows in <fulcrum/load.h>). With the window
 * parameters below and a record copied above, the pure readers of
 * <fulcrum/loadwin.h> give a core's sliding utilization at a time `now`
 * (ful_util_cpu, corrected for a tickless core), the average over cores
 * (ful_util_avg) and a thread's run time in the current and the last
 * window (ful_util_thread).
 */

/** Copy the window parameters consistently (hdr.util_seq); p->win is 0
 *  on an area older than version 3 (the readers then give 0). */
static inline void ful_load_util_par(const struct ful_load_page *pg,
				     struct ful_win_par *p)
{
	const struct ful_load_hdr *h = &pg->hdr;
	for (;;) {
		unsigned s = ful_load_seq_begin(&h->util_seq);
		p->epoch = FUL_LOAD_RLX(&h->util_epoch);
		p->win = FUL_LOAD_RLX(&h->util_win);
		p->idx0 = FUL_LOAD_RLX(&h->util_idx0);
		if (ful_load_seq_ok(&h->util_seq, s))
			return;
	}
}

#endif
