/*
 * Synchronous endpoints: send, receive, call, reply-and-receive.
 * A message meets its partner under the endpoint's lock: a sender takes
 * the first waiting receiver (or queues with its message staged in its
 * thread and IPC buffer), a receiver takes the first waiting sender (or
 * queues). The copy happens after the claim, outside the lock (ipc.h).
 */
#include "endpoint.h"
#include "ipc.h"
#include "ipcq.h"
#include "kernel.h"
#include "obj.h"
#include "pool.h"
#include "thread.h"
#include "trace.h"

/* The backing store: a full table is -FUL_ENOMEM like an empty pool. */
#define ENDPOINT_MAX 256

const uint64_t ep_charge = sizeof(struct endpoint);

static struct endpoint endpoints[ENDPOINT_MAX];
static spinlock_t endpoints_lock = SPINLOCK_INIT;

struct thread *ipc_reply_deliver(struct thread *t, uint64_t token,
				 const struct ipc_msg *m, bool switch_to,
				 int *err);

int endpoint_create(struct pool *p, struct endpoint **out)
{
	if (!pool_charge(p, ep_charge))
		return -FUL_ENOMEM;
	uint64_t flags = spin_lock_irqsave(&endpoints_lock);
	for (unsigned i = 0; i < ENDPOINT_MAX; i++) {
		struct endpoint *ep = &endpoints[i];
		if (ep->used)
			continue;
		ep->used = true;
		spin_unlock_irqrestore(&endpoints_lock, flags);
		obj_init(&ep->obj, KOBJ_ENDPOINT);
		/* ep->lock is not re-initialised: it is unlocked, and the
		 * fastpath may still take it through a stale capability
		 * (fastpath.c), which must find a working lock. */
		ep->dead = false;
		ipc_queue_init(&ep->recvq);
		ipc_queue_init(&ep->sendq);
		ep->pool = p;
		*out = ep;
		return 0;
	}
	spin_unlock_irqrestore(&endpoints_lock, flags);
	pool_credit(p, ep_charge);
	return -FUL_ENOMEM;
}

void endpoint_destroy(struct kobj *o)
{
	struct endpoint *ep = container_of(o, struct endpoint, obj);
	struct pool *p = ep->pool;
	uint64_t flags = spin_lock_irqsave(&endpoints_lock);
	ep->used = false;
	spin_unlock_irqrestore(&endpoints_lock, flags);
	pool_uncharge_obj(p, ep_charge);
}

/** The last capability is gone: fail every waiter with ECANCELED. */
void endpoint_orphan(struct kobj *o)
{
	struct endpoint *ep = container_of(o, struct endpoint, obj);
	uint64_t flags = spin_lock_irqsave(&ep->lock);
	ep->dead = true;
	struct thread *t;
	while ((t = ipc_dequeue_claim(&ep->recvq)) ||
	       (t = ipc_dequeue_claim(&ep->sendq))) {
		t->ipc_msg = (struct ipc_msg){0};
		ipc_complete(t, -FUL_ECANCELED, true);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	icc_flush();
}

/** Take the message of claimed sender @s into @r; the sender then waits
 *  for the reply (call) or is released. */
static void ep_take_from_sender(struct thread *r, struct thread *s)
{
	ipc_copy_msg(r, &s->ipc_msg, s->ipcbuf);
	if (s->ipc_is_call) {
		trace_call(this_cpu(), s, r, s->ipc_msg.info);
		r->reply_to = REPLY_TOKEN(s->tid, s->ipc_seq);
		atomic_store_explicit(&s->ipc_state,
				      IPC_STATE(s->ipc_seq, IPC_REPLY),
				      memory_order_release);
	} else {
		ipc_complete(s, 0, true);
	}
}

/** A new message is about to land in @t: a reply it never sent or saved
 *  cannot be sent any more. */
static void ep_drop_stale_reply(struct thread *t)
{
	if (t->reply_to) {
		ipc_reply_abort(t->reply_to, -FUL_ECANCELED);
		t->reply_to = 0;
	}
}

int ep_send(struct endpoint *ep, struct thread *t, const struct ipc_msg *m,
	    bool call, uint64_t deadline)
{
	spin_lock_raw(&ep->lock);
	if (ep->dead) {
		spin_unlock_raw(&ep->lock);
		return -FUL_ECANCELED;
	}
	struct thread *r = ipc_dequeue_claim(&ep->recvq);
	if (!r) {
		if (deadline == 0) {
			spin_unlock_raw(&ep->lock);
			return -FUL_ETIMEOUT;
		}
		t->ipc_msg = *m;
		t->ipc_is_call = call;
		ipc_enqueue(t, &ep->sendq, &ep->lock, IPC_SEND);
		spin_unlock_raw(&ep->lock);
		return ipc_wait(t, deadline);
	}
	spin_unlock_raw(&ep->lock);
	ep_drop_stale_reply(r);
	ipc_copy_msg(r, m, t->ipcbuf);
	if (!call) {
		r->reply_to = 0;
		ipc_complete(r, 0, true);
		return 0;
	}
	trace_call(this_cpu(), t, r, m->info);
	t->ipc_seq++;
	r->reply_to = REPLY_TOKEN(t->tid, t->ipc_seq);
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, IPC_REPLY),
			      memory_order_relaxed);
	/* Acquire: see ipc_reply_deliver (a receiver seen owned here is
	 * seen BLOCKED as handed over, not in a stale state). */
	bool local = atomic_load_explicit(&r->cpu, memory_order_acquire) ==
		     this_cpu()->id;
	ipc_complete(r, 0, !local);
	if (local)
		return ipc_block_switch(t, r, deadline);
	return ipc_wait(t, deadline);
}

/** Receive half: take a waiting sender's message, or queue. With @next
 *  (a caller this core just completed), hand the core to it. */
static int ep_recv_switch(struct endpoint *ep, struct thread *t,
			  uint64_t deadline, struct thread *next)
{
	spin_lock_raw(&ep->lock);
	struct thread *s = ep->dead ? NULL : ipc_dequeue_claim(&ep->sendq);
	if (s || ep->dead || deadline == 0) {
		bool dead = ep->dead;
		spin_unlock_raw(&ep->lock);
		if (next) /* we are not blocking: the caller just runs later */
			thread_wake_owed(next);
		if (!s)
			return dead ? -FUL_ECANCELED : -FUL_ETIMEOUT;
		ep_drop_stale_reply(t);
		ep_take_from_sender(t, s);
		return 0;
	}
	ep_drop_stale_reply(t);
	ipc_enqueue(t, &ep->recvq, &ep->lock, IPC_RECV);
	spin_unlock_raw(&ep->lock);
	if (next)
		return ipc_block_switch(t, next, deadline);
	return ipc_wait(t, deadline);
}

int ep_recv(struct endpoint *ep, struct thread *t, uint64_t deadline)
{
	return ep_recv_switch(ep, t, deadline, NULL);
}

int ep_reply_recv(struct endpoint *ep, struct thread *t,
		  const struct ipc_msg *m, uint64_t deadline)
{
	struct thread *next = NULL;
	if (t->reply_to) {
		int err;
		next = ipc_reply_deliver(t, t->reply_to, m, true, &err);
		t->reply_to = 0;
	}
	return ep_recv_switch(ep, t, deadline, next);
}
