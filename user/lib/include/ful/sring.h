/*
 * Both sides of a storage ring (<fulcrum/sring.h>): the request path of
 * each side inline here, the rest in user/lib/sring.c, the server's
 * loop in <ful/serve.h>. One client thread at a time uses a ring (the
 * caller serializes); one server thread takes its requests, and the
 * server serializes its replies (D answers from its interrupt thread,
 * under D's lock).
 */
#ifndef FUL_SRING_H
#define FUL_SRING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <fulcrum/sring.h>
#include <ful/ful.h>

struct ful_sring {
	struct ful_sring_ctl *ctl; /* the shared page; NULL: no ring */
	unsigned mine;             /* client: its notification (READ);
				    * server: unused (the doorbell is the
				    * serve set's, <ful/serve.h>) */
	unsigned peer;             /* client: the server's doorbell (WRITE);
				    * server: the client's notification
				    * (WRITE) */
	unsigned spins;            /* client: polls of the reply before it
				    * sleeps */
	unsigned taken;            /* server: requests taken, not answered */
	unsigned data_size;        /* client: bytes of the data area (0:
				    * none) */
	bool bell_ntfn;            /* client: the doorbell is a notification
				    * (F's), not an endpoint (B's, D's) */
};

/** The data area of ring @s (the pages after its control block). */
static inline unsigned char *ful_sring_data(const struct ful_sring *s)
{
	return (unsigned char *)s->ctl + FUL_SRING_CTL_SIZE;
}

/* The client's request path is inline (a call: publish, ring the
 * doorbell if the server sleeps, take the reply), so that each hop's
 * caller pays no call of its own for it; what waits (a doorbell's
 * system call, sleeping for a reply) is out of line, in sring.c. */
#define FUL_SRING_INLINE static inline __attribute__((always_inline))

/** Ring the doorbell of server @s, which said it sleeps: a notification
 *  doorbell, a signal; an endpoint, with @wait a CALL, else a SEND
 *  (sring.c). */
void ful_sring_bell_send(struct ful_sring *s, bool wait);
/** Wait for a reply that is not there yet (sring.c): false if the
 *  server is gone. */
bool ful_sring_wait_slow(struct ful_sring *s);

/** Is a reply waiting on ring @c? */
FUL_SRING_INLINE bool ful_sring_replied(struct ful_sring_ctl *c)
{
	return atomic_load_explicit(&c->rep_head, memory_order_acquire) !=
	       atomic_load_explicit(&c->rep_tail, memory_order_relaxed);
}

/** Is the server of ring @c gone (server_dead, set by whoever noticed)? */
FUL_SRING_INLINE bool ful_sring_dead(struct ful_sring_ctl *c)
{
	return atomic_load_explicit(&c->server_dead, memory_order_acquire);
}

/** Client: put request @op (m->mr, @len bytes at the data area's start)
 *  in slot @head, the request ring's head, and publish it. */
FUL_SRING_INLINE void ful_sring_publish(struct ful_sring_ctl *c,
					unsigned head, unsigned op,
					const struct ful_msg *m, size_t len)
{
	struct ful_sring_req *q = &c->req[head % FUL_SRING_SLOTS];
	q->op = op;
	q->id = head;
	for (unsigned i = 0; i < 4; i++)
		q->a[i] = m->mr[i];
	q->len = (unsigned)len;
	q->data_off = 0;
	atomic_store_explicit(&c->req_head, head + 1, memory_order_release);
}

/** Client, after publishing on ring @c of @s: ring the server's
 *  doorbell if it said it sleeps (the full fence orders our req_head
 *  before the look at its flag; Dekker's pattern with its sleep). */
FUL_SRING_INLINE void ful_sring_ring(struct ful_sring *s,
				     struct ful_sring_ctl *c, bool wait)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&c->server_sleeping))
		ful_sring_bell_send(s, wait);
}

/** Client: take the oldest reply of ring @c, which is there, into @m
 *  (its words, and its data's length in m->info with label @op): its
 *  request's id. */
FUL_SRING_INLINE unsigned ful_sring_take_reply(struct ful_sring_ctl *c,
					       unsigned op, struct ful_msg *m)
{
	unsigned tail = atomic_load_explicit(&c->rep_tail, memory_order_relaxed);
	const struct ful_sring_rep *p = &c->rep[tail % FUL_SRING_SLOTS];
	for (unsigned i = 0; i < 4; i++)
		m->mr[i] = (unsigned long)p->r[i];
	m->info = FUL_MSG(op, p->len);
	unsigned id = p->id;
	atomic_store_explicit(&c->rep_tail, tail + 1, memory_order_release);
	return id;
}

/** Client: request @op with m->mr[0..3] and the first @len bytes of the
 *  data area (0 without one), wait for its reply (polling up to
 *  s->spins passes first): its words in m->mr, FUL_MSG(@op, bytes the
 *  server put in the data area) in m->info. 0, -FUL_ESTATE if the reply
 *  was not the request's (a broken ring) or posted requests are not
 *  collected yet, or -FUL_EDEAD if the server is gone (the request may
 *  or may not have run). */
FUL_SRING_INLINE int ful_sring_call(struct ful_sring *s, unsigned op,
				    struct ful_msg *m, size_t len)
{
	struct ful_sring_ctl *c = s->ctl;
	if (ful_sring_dead(c))
		return -FUL_EDEAD;
	unsigned head = atomic_load_explicit(&c->req_head, memory_order_relaxed);
	/* requests posted before: their replies come first, collect them */
	if (head != atomic_load_explicit(&c->rep_tail, memory_order_relaxed))
		return -FUL_ESTATE;
	ful_sring_publish(c, head, op, m, len);
	ful_sring_ring(s, c, true);
	if (!ful_sring_replied(c) && !ful_sring_wait_slow(s))
		return -FUL_EDEAD;
	return ful_sring_take_reply(c, op, m) == head ? 0 : -FUL_ESTATE;
}

/** Client: put request @op with m->mr[0..3] on the ring and go on
 *  without its reply (write-behind); with @bell, wake the server if it
 *  sleeps, else leave that to a later ful_sring_bell or collect. Its
 *  id, -FUL_EAGAIN if FUL_SRING_SLOTS requests are posted and not
 *  collected, or -FUL_EDEAD. Replies come back in order; collect each
 *  (ful_sring_collect) before the next call. */
long ful_sring_post(struct ful_sring *s, unsigned op, const struct ful_msg *m,
		    bool bell);
/** Client: wake the server if it sleeps with posted requests not taken. */
void ful_sring_bell(struct ful_sring *s);
/** Client: requests posted (or called) whose replies are not collected. */
unsigned ful_sring_posted(const struct ful_sring *s);
/** Client: wait for the oldest uncollected reply, its words into
 *  m->mr and its request's id into @id. 0, -FUL_ESTATE if nothing is
 *  posted, or -FUL_EDEAD if the server is gone. */
int ful_sring_collect(struct ful_sring *s, struct ful_msg *m, unsigned *id);

/** Server: take the next request off the ring into @q (copied out of
 *  the shared page: check it there); false if none, if the client
 *  broke the ring (more requests than slots), or if the replies of the
 *  requests taken so far would not fit the reply ring. */
static inline bool ful_sring_take(struct ful_sring *s, struct ful_sring_req *q)
{
	struct ful_sring_ctl *c = s->ctl;
	unsigned tail = atomic_load_explicit(&c->req_tail, memory_order_relaxed);
	unsigned head = atomic_load_explicit(&c->req_head, memory_order_acquire);
	unsigned unread = atomic_load(&c->rep_head) - atomic_load(&c->rep_tail);
	if (tail == head || head - tail > FUL_SRING_SLOTS ||
	    unread + s->taken >= FUL_SRING_SLOTS)
		return false;
	*q = c->req[tail % FUL_SRING_SLOTS];
	/* the slot is the client's again: the request is copied out */
	atomic_store_explicit(&c->req_tail, tail + 1, memory_order_release);
	s->taken++;
	return true;
}

/** Server: publish @p, the reply to a taken request, without waking
 *  the client (ful_sring_wake does, once for a batch). */
static inline void ful_sring_put(struct ful_sring *s,
				 const struct ful_sring_rep *p)
{
	struct ful_sring_ctl *c = s->ctl;
	unsigned rh = atomic_load_explicit(&c->rep_head, memory_order_relaxed);
	c->rep[rh % FUL_SRING_SLOTS] = *p;
	atomic_store_explicit(&c->rep_head, rh + 1, memory_order_release);
	s->taken--;
}

/** Server, after publishing replies: wake the client if it said it
 *  sleeps (the full fence orders our rep_head before its flag). */
static inline void ful_sring_wake(struct ful_sring *s)
{
	struct ful_sring_ctl *c = s->ctl;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&c->client_sleeping)) {
		c->server_signals++;
		ful_ntfn_signal(s->peer, 1);
	}
}

/** Server: answer taken request @id with @r and wake the client if it
 *  sleeps. */
static inline void ful_sring_reply(struct ful_sring *s, unsigned id,
				   const long r[4])
{
	const struct ful_sring_rep p = {.r = {r[0], r[1], r[2], r[3]},
					.id = id};
	ful_sring_put(s, &p);
	ful_sring_wake(s);
}

/** Server: run @fn on every waiting request, answering each as it is
 *  done (ful_sring_reply). The number served. */
unsigned ful_sring_serve(struct ful_sring *s,
			 void (*fn)(unsigned op, const unsigned long a[4],
				    long r[4]));

#endif
