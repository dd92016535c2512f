/* O(1) bitmap run queue. See runqueue.h for the invariant. */
#include "runqueue.h"

void rq_init(struct runqueue *rq)
{
	for (unsigned w = 0; w < RQ_NPRIO / 64; w++)
		rq->bitmap[w] = 0;
	rq->summary = 0;
	rq->nr = 0;
	for (unsigned p = 0; p < RQ_NPRIO; p++)
		rq->head[p].next = rq->head[p].prev = &rq->head[p];
}

static void rq_mark(struct runqueue *rq, unsigned prio)
{
	rq->bitmap[prio / 64] |= 1ull << (prio % 64);
	rq->summary |= 1u << (prio / 64);
}

void rq_push_tail(struct runqueue *rq, struct rq_link *l, unsigned prio)
{
	struct rq_link *h = &rq->head[prio];
	l->next = h;
	l->prev = h->prev;
	h->prev->next = l;
	h->prev = l;
	rq_mark(rq, prio);
	rq->nr++;
}

void rq_push_head(struct runqueue *rq, struct rq_link *l, unsigned prio)
{
	struct rq_link *h = &rq->head[prio];
	l->prev = h;
	l->next = h->next;
	h->next->prev = l;
	h->next = l;
	rq_mark(rq, prio);
	rq->nr++;
}

void rq_remove(struct runqueue *rq, struct rq_link *l, unsigned prio)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->next = l->prev = l;
	rq->nr--;
	if (rq->head[prio].next == &rq->head[prio]) {
		unsigned w = prio / 64;
		rq->bitmap[w] &= ~(1ull << (prio % 64));
		if (!rq->bitmap[w])
			rq->summary &= ~(1u << w);
	}
}

struct rq_link *rq_pop(struct runqueue *rq, unsigned *prio_out)
{
	int p = rq_top_prio(rq);
	if (p < 0)
		return NULL;
	struct rq_link *l = rq->head[p].next;
	rq_remove(rq, l, (unsigned)p);
	*prio_out = (unsigned)p;
	return l;
}

bool rq_check(const struct runqueue *rq)
{
	uint32_t total = 0;
	for (unsigned p = 0; p < RQ_NPRIO; p++) {
		const struct rq_link *h = &rq->head[p];
		uint32_t n = 0;
		if (h->next->prev != h)
			return false;
		for (const struct rq_link *l = h->next; l != h; l = l->next) {
			if (l->next->prev != l || n > 1u << 20)
				return false;
			n++;
		}
		bool bit = rq->bitmap[p / 64] >> (p % 64) & 1;
		if (bit != (n > 0))
			return false;
		total += n;
	}
	for (unsigned w = 0; w < RQ_NPRIO / 64; w++)
		if (((rq->summary >> w) & 1) != (rq->bitmap[w] != 0))
			return false;
	return total == rq->nr;
}
