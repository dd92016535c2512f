/*
 * The client side of a storage ring (<ful/sring.h>, <fulcrum/sring.h>)
 * but for the request path, which is inline in <ful/sring.h>: requests
 * posted at the request ring's head, replies taken in order at the
 * reply ring's tail, the server woken only if it said it sleeps, and
 * this thread asleep on its notification only after saying so. Indices
 * are free running; the producer of a ring publishes its head with
 * release, the consumer reads it with acquire. The caller serializes
 * its use of a ring (one client thread at a time).
 */
#include <stdatomic.h>

#include <ful/ful.h>
#include <ful/sring.h>

/** Yield the core every this many polls (a server on the same core). */
#define SRING_POLL_YIELD 64

/** Poll up to s->spins passes (counted, not timed: a vCPU the host
 *  descheduled would find a time budget spent on its return), then say
 *  "sleeping", look again, and sleep on my notification. */
bool ful_sring_wait_slow(struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	for (unsigned i = 1; i <= s->spins && !ful_sring_replied(c); i++)
		if (i % SRING_POLL_YIELD == 0)
			ful_yield();
	while (!ful_sring_replied(c)) {
		if (ful_sring_dead(c))
			return false;
		atomic_store(&c->client_sleeping, 1);
		atomic_thread_fence(memory_order_seq_cst);
		if (!ful_sring_replied(c) && !ful_sring_dead(c))
			ful_ntfn_wait(s->mine, NULL, FUL_FOREVER);
		atomic_store(&c->client_sleeping, 0);
	}
	return true;
}

/** An endpoint doorbell's CALL comes back once the server took the
 *  request (and, for a server that answers at once, with its reply); a
 *  SEND is taken by a server already waiting without holding us
 *  (write-behind). */
void ful_sring_bell_send(struct ful_sring *s, bool wait)
{
	s->ctl->client_signals++;
	if (s->bell_ntfn) {
		ful_ntfn_signal(s->peer, FUL_SRING_BELL_REQUEST);
		return;
	}
	struct ful_msg m = {.info = FUL_MSG(wait ? FUL_SRING_BELL_CALL
						 : FUL_SRING_BELL_POST, 0)};
	if (wait)
		ful_call(s->peer, &m, FUL_FOREVER); /* EDEAD: see callers */
	else
		ful_send(s->peer, &m, FUL_FOREVER);
}

long ful_sring_post(struct ful_sring *s, unsigned op, const struct ful_msg *m,
		    bool bell)
{
	struct ful_sring_ctl *c = s->ctl;
	if (ful_sring_dead(c))
		return -FUL_EDEAD;
	if (ful_sring_posted(s) >= FUL_SRING_SLOTS)
		return -FUL_EAGAIN;
	unsigned head = atomic_load_explicit(&c->req_head, memory_order_relaxed);
	ful_sring_publish(c, head, op, m, 0);
	if (bell)
		ful_sring_ring(s, c, false);
	return (long)head;
}

void ful_sring_bell(struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	if (atomic_load_explicit(&c->req_head, memory_order_relaxed) !=
	    atomic_load_explicit(&c->req_tail, memory_order_relaxed))
		ful_sring_ring(s, c, false);
}

unsigned ful_sring_posted(const struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	return atomic_load_explicit(&c->req_head, memory_order_relaxed) -
	       atomic_load_explicit(&c->rep_tail, memory_order_relaxed);
}

int ful_sring_collect(struct ful_sring *s, struct ful_msg *m, unsigned *id)
{
	if (!ful_sring_posted(s))
		return -FUL_ESTATE;
	ful_sring_bell(s); /* requests posted without the bell */
	if (!ful_sring_replied(s->ctl) && !ful_sring_wait_slow(s))
		return -FUL_EDEAD;
	*id = ful_sring_take_reply(s->ctl, 0, m);
	return 0;
}

unsigned ful_sring_serve(struct ful_sring *s,
			 void (*fn)(unsigned op, const unsigned long a[4],
				    long r[4]))
{
	struct ful_sring_req q;
	unsigned n = 0;
	while (ful_sring_take(s, &q)) {
		long r[4] = {0};
		fn(q.op, q.a, r);
		ful_sring_reply(s, q.id, r);
		n++;
	}
	return n;
}

