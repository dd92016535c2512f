/*
 * The trace rings from user space (<fulcrum/trace.h>, docs/tracing.md
 * "Reading the rings from user space"): the three calls, and reading a
 * ring through the read-only mapping without a system call.
 */
#ifndef FUL_TRACE_H
#define FUL_TRACE_H

#include <ful/sys.h>
#include <fulcrum/syscall.h>
#include <fulcrum/trace.h>

/** Record the classes @mask (FUL_TRC_*) on every core; @flags
 *  FUL_TRACE_RESTART starts each ring anew. Returns the previous mask. */
static inline long ful_trace_set(unsigned sched, unsigned long mask,
				 unsigned long flags)
{
	return FUL__SC(FUL_SYS_TRACE_SET, sched, mask, flags, 0, 0, 0, 0).x0;
}

/** A READ frame capability of the trace area in slot @dst. */
static inline long ful_trace_frame(unsigned sched, unsigned dst)
{
	return FUL__SC(FUL_SYS_TRACE_FRAME, sched, dst, 0, 0, 0, 0, 0).x0;
}

/** Print the rings on the console (tracing must be off). */
static inline long ful_trace_dump(unsigned sched)
{
	return FUL__SC(FUL_SYS_TRACE_DUMP, sched, 0, 0, 0, 0, 0, 0).x0;
}

/** Ring @cpu of the trace area at @h. */
static inline const struct ful_trace_rec *
ful_trace_ring(const struct ful_trace_hdr *h, unsigned cpu)
{
	return (const struct ful_trace_rec *)((const char *)h + h->ring_offset +
					      (unsigned long)cpu * h->ring_recs *
						      h->rec_size);
}

/** Copy record @index of ring @cpu into @out; false if it is no longer
 *  (or not yet) in the ring, or may have been overwritten while copied:
 *  the oldest slot (index head - ring_recs) is the one the core's next
 *  record goes to, so it counts as gone. */
static inline bool ful_trace_get(const struct ful_trace_hdr *h, unsigned cpu,
				 unsigned long index, struct ful_trace_rec *out)
{
	const struct ful_trace_ring_hdr *r = &h->ring[cpu];
	unsigned long head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	if (index >= head || index < r->start ||
	    (head > h->ring_recs && index < head - h->ring_recs))
		return false;
	*out = ful_trace_ring(h, cpu)[index & (h->ring_recs - 1)];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	return head < h->ring_recs || index > head - h->ring_recs;
}

#endif
