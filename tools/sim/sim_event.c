/*
 * fulsim's event queue: a binary min-heap on (time, sequence number), so
 * that events due at the same time come out in the order they were
 * pushed and a run is deterministic.
 */
#include <stdlib.h>

#include "sim_int.h"

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void ev_push(struct sim *s, unsigned long t, unsigned kind, unsigned who,
	     unsigned long gen)
{
	if (s->nheap == s->capheap) {
		s->capheap = s->capheap ? s->capheap * 2 : 1024;
		s->heap = realloc(s->heap, s->capheap * sizeof(*s->heap));
	}
	struct event e = {.t = t, .seq = s->evseq++, .kind = kind, .who = who,
			  .gen = gen};
	unsigned long i = s->nheap++;
	while (i && ev_before(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

struct event ev_pop(struct sim *s)
{
	struct event top = s->heap[0], last = s->heap[--s->nheap];
	unsigned long i = 0, n = s->nheap;
	for (;;) {
		unsigned long l = 2 * i + 1, m = i;
		const struct event *best = &last;
		if (l < n && ev_before(&s->heap[l], best))
			m = l, best = &s->heap[l];
		if (l + 1 < n && ev_before(&s->heap[l + 1], best))
			m = l + 1;
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n)
		s->heap[i] = last;
	return top;
}
