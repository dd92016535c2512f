/*
 * Notifications: a word of pending bits and a queue of waiters. Signal
 * ORs bits in, or hands them straight to the first waiter; wait and poll
 * take every pending bit at once. Signalling never blocks.
 */
#include "coninput.h"
#include "lbevent.h"
#include "ipc.h"
#include "ipcq.h"
#include "ntfn.h"
#include "kernel.h"
#include "obj.h"
#include "pool.h"
#include "thread.h"

/* The backing store: a full table is -FUL_ENOMEM like an empty pool. */
#define NTFN_MAX 256

const uint64_t ntfn_charge = sizeof(struct ntfn);

static struct ntfn ntfns[NTFN_MAX];
static spinlock_t ntfns_lock = SPINLOCK_INIT;

int ntfn_create(struct pool *p, struct ntfn **out)
{
	if (!pool_charge(p, ntfn_charge))
		return -FUL_ENOMEM;
	uint64_t flags = spin_lock_irqsave(&ntfns_lock);
	for (unsigned i = 0; i < NTFN_MAX; i++) {
		struct ntfn *n = &ntfns[i];
		if (n->used)
			continue;
		n->used = true;
		spin_unlock_irqrestore(&ntfns_lock, flags);
		obj_init(&n->obj, KOBJ_NTFN);
		/* n->lock is not re-initialised: see ntfn.h */
		n->dead = false;
		n->word = 0;
		ipc_queue_init(&n->waiters);
		n->pool = p;
		*out = n;
		return 0;
	}
	spin_unlock_irqrestore(&ntfns_lock, flags);
	pool_credit(p, ntfn_charge);
	return -FUL_ENOMEM;
}

void ntfn_destroy(struct kobj *o)
{
	struct ntfn *n = container_of(o, struct ntfn, obj);
	struct pool *p = n->pool;
	uint64_t flags = spin_lock_irqsave(&ntfns_lock);
	n->used = false;
	spin_unlock_irqrestore(&ntfns_lock, flags);
	pool_uncharge_obj(p, ntfn_charge);
}

void ntfn_orphan(struct kobj *o)
{
	struct ntfn *n = container_of(o, struct ntfn, obj);
	uint64_t flags = spin_lock_irqsave(&n->lock);
	n->dead = true;
	struct thread *t;
	while ((t = ipc_dequeue_claim(&n->waiters))) {
		t->ipc_msg = (struct ipc_msg){0};
		ipc_complete(t, -FUL_ECANCELED, true);
	}
	spin_unlock_irqrestore(&n->lock, flags);
	icc_flush();
	coninput_forget(n); /* a console binding ends with its holder */
	lbe_forget(n);      /* so does a balancer-event binding */
}

int ntfn_signal(struct ntfn *n, uint64_t bits)
{
	spin_lock_raw(&n->lock);
	struct thread *w = ipc_dequeue_claim(&n->waiters);
	if (!w) {
		n->word |= bits;
		spin_unlock_raw(&n->lock);
		return 0;
	}
	spin_unlock_raw(&n->lock);
	w->ipc_msg = (struct ipc_msg){.badge = bits};
	ipc_complete(w, 0, true);
	return 0;
}

int ntfn_wait(struct ntfn *n, struct thread *t, uint64_t deadline,
	      uint64_t *bits)
{
	spin_lock_raw(&n->lock);
	if (n->word || n->dead || deadline == 0) {
		*bits = n->word;
		n->word = 0;
		bool dead = n->dead;
		spin_unlock_raw(&n->lock);
		return *bits ? 0 : dead ? -FUL_ECANCELED : -FUL_ETIMEOUT;
	}
	ipc_enqueue(t, &n->waiters, &n->lock, IPC_NTFN);
	spin_unlock_raw(&n->lock);
	int err = ipc_wait(t, deadline);
	*bits = err ? 0 : t->ipc_msg.badge;
	return err;
}

uint64_t ntfn_poll(struct ntfn *n)
{
	uint64_t flags = spin_lock_irqsave(&n->lock);
	uint64_t bits = n->word;
	n->word = 0;
	spin_unlock_irqrestore(&n->lock, flags);
	return bits;
}

bool ntfn_dead(struct ntfn *n)
{
	uint64_t flags = spin_lock_irqsave(&n->lock);
	bool dead = n->dead;
	spin_unlock_irqrestore(&n->lock, flags);
	return dead;
}

struct kobj *ntfn_kobj(struct ntfn *n)
{
	return &n->obj;
}
