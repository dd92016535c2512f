/*
 * Balancer events (lbevent.h): per-core counters in the load area and one
 * bound notification, signalled once per arm for each kind.
 *
 * The binding is the notification, as for console input (coninput.c): a
 * second bind with another notification fails (ESTATE) until the bound
 * one is dead; when its last capability goes, ntfn_orphan calls
 * lbe_forget, which unbinds it and drops the kernel's reference.
 *
 * Locks: lbe.lock, then a notification's lock (ntfn_dead). The signal
 * is sent after lbe.lock is dropped, with a reference held.
 */
#include "lbevent.h"
#include "ipc.h"
#include "kernel.h"
#include "obj.h"
#include "spinlock.h"

_Atomic uint32_t lbe_armed;
_Atomic uint64_t lbe_cores;
_Atomic uint64_t lbe_watch;

static struct {
	spinlock_t lock;
	struct ntfn *ntfn; /* [lock] bound, referenced; NULL if none */
} lbe = {.lock = SPINLOCK_INIT};

/** Each core's lbe_wake hint from lbe.ntfn, lbe_armed and lbe_cores.
 *  lbe.lock. */
static void lbe_hints(void)
{
	unsigned on = atomic_load_explicit(&lbe_armed, memory_order_relaxed) &
			      FUL_LBE_WAKE
		      ? LBE_HINT_COUNT | LBE_HINT_SIGNAL
		      : LBE_HINT_COUNT;
	uint64_t cores = lbe.ntfn ? atomic_load_explicit(&lbe_cores,
							 memory_order_relaxed)
				  : 0;
	for (unsigned i = 0; i < machine.ncpus; i++)
		atomic_store_explicit(&cpus[i].lbe_wake,
				      (uint8_t)(cores >> i & 1 ? on : 0),
				      memory_order_relaxed);
}

/** Clear the arming and the watch (unbound: nothing fires). lbe.lock. */
static void lbe_disarm(void)
{
	atomic_store_explicit(&lbe_armed, 0, memory_order_relaxed);
	atomic_store_explicit(&lbe_watch, 0, memory_order_relaxed);
	atomic_store_explicit(&lbe_cores, 0, memory_order_relaxed);
	lbe_hints();
}

int lbe_bind(struct ntfn *n, uint32_t events)
{
	uint64_t flags = spin_lock_irqsave(&lbe.lock);
	struct ntfn *old = lbe.ntfn;
	/* @n may have just lost its last capability (another thread's
	 * delete): then its lbe_forget has run or waits for lbe.lock. */
	if ((old && old != n && !ntfn_dead(old)) || ntfn_dead(n)) {
		spin_unlock_irqrestore(&lbe.lock, flags);
		return -FUL_ESTATE;
	}
	if (old != n)
		obj_get(ntfn_kobj(n));
	else
		old = NULL; /* a rebind of the same one: new kinds only */
	lbe.ntfn = n;
	atomic_store_explicit(&lbe_watch, 0, memory_order_relaxed);
	atomic_store_explicit(&lbe_cores, ~0ull, memory_order_relaxed);
	atomic_store_explicit(&lbe_armed, events, memory_order_release);
	lbe_hints();
	spin_unlock_irqrestore(&lbe.lock, flags);
	if (old)
		obj_put(ntfn_kobj(old));
	return 0;
}

int lbe_unbind(struct ntfn *n)
{
	uint64_t flags = spin_lock_irqsave(&lbe.lock);
	bool bound = lbe.ntfn == n;
	if (bound) {
		lbe.ntfn = NULL;
		lbe_disarm();
	}
	spin_unlock_irqrestore(&lbe.lock, flags);
	if (!bound)
		return -FUL_ESTATE;
	obj_put(ntfn_kobj(n));
	return 0;
}

int lbe_arm(struct ntfn *n, uint32_t events, uint64_t cores, uint64_t watch)
{
	uint64_t flags = spin_lock_irqsave(&lbe.lock);
	bool bound = lbe.ntfn == n;
	if (bound) {
		atomic_store_explicit(&lbe_watch, watch, memory_order_relaxed);
		atomic_store_explicit(&lbe_cores, cores, memory_order_relaxed);
		atomic_fetch_or_explicit(&lbe_armed, events,
					 memory_order_release);
		lbe_hints();
	}
	spin_unlock_irqrestore(&lbe.lock, flags);
	return bound ? 0 : -FUL_ESTATE;
}

void lbe_forget(struct ntfn *n)
{
	uint64_t flags = spin_lock_irqsave(&lbe.lock);
	bool bound = lbe.ntfn == n;
	if (bound) {
		lbe.ntfn = NULL;
		lbe_disarm();
	}
	spin_unlock_irqrestore(&lbe.lock, flags);
	if (bound) /* the caller's capability still holds one: not the last */
		obj_put(ntfn_kobj(n));
}

void lbe_fire(struct cpu *c, uint32_t ev)
{
	if (!(atomic_load_explicit(&lbe_armed, memory_order_relaxed) & ev))
		return;
	/* One event per arm goes on: the one that clears the bit. */
	if (!(atomic_fetch_and_explicit(&lbe_armed, ~ev,
					memory_order_acquire) & ev))
		return;
	spin_lock_raw(&lbe.lock);
	struct ntfn *n = lbe.ntfn;
	if (n)
		obj_get(ntfn_kobj(n));
	if (ev == FUL_LBE_WAKE) /* unless an ARM came first: lbe.lock */
		lbe_hints();
	spin_unlock_raw(&lbe.lock);
	if (!n)
		return;
	load_area.ev[c->id].signals++;
	ntfn_signal(n, ev);
	obj_put(ntfn_kobj(n));
}

void lbe_create(struct cpu *c)
{
	load_area.ev[c->id].create++;
	if (atomic_load_explicit(&lbe_cores, memory_order_relaxed) >> c->id & 1)
		lbe_fire(c, FUL_LBE_CREATE);
}

void lbe_busy(struct cpu *c)
{
	load_area.ev[c->id].busy++;
	lbe_fire(c, FUL_LBE_BUSY);
}
