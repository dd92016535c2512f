/*
 * Per-core run queue (portable, host-tested): 256 priorities, higher
 * number runs first, FIFO within a priority. A two-level bitmap gives an
 * O(1) pick: summary bit w is set iff bitmap[w] != 0, and bit p of the
 * bitmap is set iff queue p is non-empty (the invariant rq_check tests).
 * Not thread-safe: the owning core uses it with IRQs masked.
 */
#ifndef KERNEL_RUNQUEUE_H
#define KERNEL_RUNQUEUE_H

#include "types.h"

#define RQ_NPRIO 256

struct rq_link {
	struct rq_link *next, *prev;
};

struct runqueue {
	uint64_t bitmap[RQ_NPRIO / 64];
	uint32_t summary;
	uint32_t nr;
	struct rq_link head[RQ_NPRIO];
};

void rq_init(struct runqueue *rq);
void rq_push_tail(struct runqueue *rq, struct rq_link *l, unsigned prio);
void rq_push_head(struct runqueue *rq, struct rq_link *l, unsigned prio);
void rq_remove(struct runqueue *rq, struct rq_link *l, unsigned prio);
/** Highest non-empty priority, or -1 when empty. O(1). */
static inline int rq_top_prio(const struct runqueue *rq)
{
	if (!rq->summary)
		return -1;
	unsigned w = 31 - __builtin_clz(rq->summary);
	return (int)(w * 64 + 63 - __builtin_clzll(rq->bitmap[w]));
}
/** Remove and return the first link of the highest priority, or NULL. */
struct rq_link *rq_pop(struct runqueue *rq, unsigned *prio_out);
/** True iff the bitmaps agree with the lists and nr with their lengths. */
bool rq_check(const struct runqueue *rq);

#endif
