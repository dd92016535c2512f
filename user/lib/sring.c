/*
 * Server-to-server rings (<ful/sring.h>): the client posts and waits
 * for the reply, the server takes requests in order. Indices are free
 * running; the producer of a ring publishes its head with release, the
 * consumer reads it with acquire.
 */
#include <stdatomic.h>

#include <ful/ful.h>
#include <ful/sring.h>

/** Yield the core every this many polls (a server on the same core). */
#define SRING_POLL_YIELD 64

static bool sring_replied(struct ful_sring_ctl *c)
{
	return atomic_load_explicit(&c->rep_head, memory_order_acquire) !=
	       atomic_load_explicit(&c->rep_tail, memory_order_relaxed);
}

static bool sring_dead(struct ful_sring_ctl *c)
{
	return atomic_load_explicit(&c->server_dead, memory_order_acquire);
}

/** Wait for a reply: poll, then sleep on my notification; false if the
 *  server is gone. */
static bool sring_wait(struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	for (unsigned i = 1; i <= s->spins && !sring_replied(c); i++)
		if (i % SRING_POLL_YIELD == 0)
			ful_yield();
	while (!sring_replied(c)) {
		if (sring_dead(c))
			return false;
		atomic_store(&c->client_sleeping, 1);
		atomic_thread_fence(memory_order_seq_cst);
		if (!sring_replied(c) && !sring_dead(c))
			ful_ntfn_wait(s->mine, NULL, FUL_FOREVER);
		atomic_store(&c->client_sleeping, 0);
	}
	return true;
}

/** Ring a sleeping server's doorbell: with @wait a CALL, back once the
 *  server took the request (and, for a server that answers at once,
 *  with its reply); else a SEND, which a server already waiting takes
 *  without holding us (write-behind). */
static void sring_ring(struct ful_sring *s, bool wait)
{
	struct ful_sring_ctl *c = s->ctl;
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&c->server_sleeping))
		return;
	struct ful_msg m = {.info = FUL_MSG(wait ? FUL_SRING_BELL_CALL
						 : FUL_SRING_BELL_POST, 0)};
	c->client_signals++;
	if (wait)
		ful_call(s->peer, &m, FUL_FOREVER); /* EDEAD: see callers */
	else
		ful_send(s->peer, &m, FUL_FOREVER);
}

/** Put request @op, @a at the ring's head: its id. */
static unsigned sring_publish(struct ful_sring *s, unsigned op,
			      const unsigned long a[4])
{
	struct ful_sring_ctl *c = s->ctl;
	unsigned head = atomic_load_explicit(&c->req_head, memory_order_relaxed);
	struct ful_sring_req *q = &c->req[head % FUL_SRING_SLOTS];
	q->op = op;
	q->id = head;
	for (unsigned i = 0; i < 4; i++)
		q->a[i] = a[i];
	atomic_store_explicit(&c->req_head, head + 1, memory_order_release);
	return head;
}

/** Take the oldest reply into @r; false if the server is gone. */
static bool sring_take_reply(struct ful_sring *s, long r[4], unsigned *id)
{
	struct ful_sring_ctl *c = s->ctl;
	if (!sring_wait(s))
		return false;
	unsigned tail = atomic_load_explicit(&c->rep_tail, memory_order_relaxed);
	const struct ful_sring_rep *p = &c->rep[tail % FUL_SRING_SLOTS];
	for (unsigned i = 0; i < 4; i++)
		r[i] = p->r[i];
	*id = p->id;
	atomic_store_explicit(&c->rep_tail, tail + 1, memory_order_release);
	return true;
}

int ful_sring_call(struct ful_sring *s, unsigned op, const unsigned long a[4],
		   long r[4])
{
	struct ful_sring_ctl *c = s->ctl;
	if (sring_dead(c))
		return -FUL_EDEAD;
	if (ful_sring_posted(s)) /* their replies come first: collect them */
		return -FUL_ESTATE;
	unsigned head = sring_publish(s, op, a), id;
	sring_ring(s, true);
	if (!sring_take_reply(s, r, &id))
		return -FUL_EDEAD;
	return id == head ? 0 : -FUL_ESTATE;
}

long ful_sring_post(struct ful_sring *s, unsigned op, const unsigned long a[4],
		    bool bell)
{
	struct ful_sring_ctl *c = s->ctl;
	if (sring_dead(c))
		return -FUL_EDEAD;
	if (ful_sring_posted(s) >= FUL_SRING_SLOTS)
		return -FUL_EAGAIN;
	unsigned head = sring_publish(s, op, a);
	if (bell)
		sring_ring(s, false);
	return (long)head;
}

void ful_sring_bell(struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	if (atomic_load_explicit(&c->req_head, memory_order_relaxed) !=
	    atomic_load_explicit(&c->req_tail, memory_order_relaxed))
		sring_ring(s, false);
}

unsigned ful_sring_posted(const struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	return atomic_load_explicit(&c->req_head, memory_order_relaxed) -
	       atomic_load_explicit(&c->rep_tail, memory_order_relaxed);
}

int ful_sring_collect(struct ful_sring *s, long r[4], unsigned *id)
{
	if (!ful_sring_posted(s))
		return -FUL_ESTATE;
	ful_sring_bell(s); /* requests posted without the bell */
	return sring_take_reply(s, r, id) ? 0 : -FUL_EDEAD;
}

bool ful_sring_take(struct ful_sring *s, struct ful_sring_req *q)
{
	struct ful_sring_ctl *c = s->ctl;
	unsigned tail = atomic_load_explicit(&c->req_tail, memory_order_relaxed);
	unsigned head = atomic_load_explicit(&c->req_head, memory_order_acquire);
	unsigned unread = atomic_load(&c->rep_head) - atomic_load(&c->rep_tail);
	/* a client past the ring's size broke it: take nothing */
	if (tail == head || head - tail > FUL_SRING_SLOTS ||
	    unread + s->taken >= FUL_SRING_SLOTS)
		return false;
	*q = c->req[tail % FUL_SRING_SLOTS];
	atomic_store_explicit(&c->req_tail, tail + 1, memory_order_release);
	s->taken++;
	return true;
}

void ful_sring_reply(struct ful_sring *s, unsigned id, const long r[4])
{
	struct ful_sring_ctl *c = s->ctl;
	unsigned rh = atomic_load_explicit(&c->rep_head, memory_order_relaxed);
	struct ful_sring_rep *p = &c->rep[rh % FUL_SRING_SLOTS];
	for (unsigned i = 0; i < 4; i++)
		p->r[i] = r[i];
	p->id = id;
	atomic_store_explicit(&c->rep_head, rh + 1, memory_order_release);
	s->taken--;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&c->client_sleeping)) {
		c->server_signals++;
		ful_ntfn_signal(s->peer, 1);
	}
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

void ful_sring_sleep(struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	atomic_store(&c->server_sleeping, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&c->req_head) == atomic_load(&c->req_tail)) {
		/* a caller still waiting is answered by the same call */
		struct ful_msg m = {.info = FUL_MSG(0, 0)};
		long err = s->caller ? ful_reply_recv(s->mine, &m, FUL_FOREVER)
				     : ful_recv(s->mine, &m, FUL_FOREVER);
		/* a posting client SENT: nobody waits for an answer */
		s->caller = err >= 0 &&
			    FUL_MSG_LABEL(m.info) != FUL_SRING_BELL_POST;
	}
	atomic_store(&c->server_sleeping, 0);
}

void ful_sring_release(struct ful_sring *s)
{
	/* a server that does not poll goes to sleep next: its REPLY_RECV
	 * answers the caller (one call instead of two) */
	if (s->caller && s->spins) {
		struct ful_msg m = {.info = FUL_MSG(0, 0)};
		ful_reply(&m);
		s->caller = false;
	}
}
