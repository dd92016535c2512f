/* Kernel object lifetime (see obj.h). */
#include "obj.h"
#include "kernel.h"
#include "spinlock.h"

static spinlock_t reap_lock = SPINLOCK_INIT; /* leaf lock */
static struct kobj *reap_list;
static bool reaping; /* a core is draining reap_list; guarded by reap_lock */

void obj_init(struct kobj *o, enum kobj_type type)
{
	atomic_store_explicit(&o->refs, 1, memory_order_relaxed);
	atomic_store_explicit(&o->caps, 0, memory_order_relaxed);
	o->type = (uint8_t)type;
	o->reap_next = NULL;
}

static void obj_destroy(struct kobj *o)
{
	switch (o->type) {
	case KOBJ_VSPACE:
		vspace_destroy(o);
		break;
	case KOBJ_FRAME:
		frame_destroy(o);
		break;
	case KOBJ_ENDPOINT:
		endpoint_destroy(o);
		break;
	case KOBJ_NTFN:
		ntfn_destroy(o);
		break;
	case KOBJ_POOL:
		pool_destroy(o);
		break;
	case KOBJ_IRQ:
		irq_destroy(o);
		break;
	case KOBJ_PWIN:
		pwin_destroy(o);
		break;
	default:
		panic("obj: destroying object of type %u", o->type);
	}
}

/**
 * Queue @o for destruction and, unless some core is already draining
 * the list, drain it: destroying one object may queue others.
 */
static void obj_reap(struct kobj *o)
{
	uint64_t flags = spin_lock_irqsave(&reap_lock);
	o->reap_next = reap_list;
	reap_list = o;
	if (reaping) {
		spin_unlock_irqrestore(&reap_lock, flags);
		return;
	}
	reaping = true;
	while ((o = reap_list)) {
		reap_list = o->reap_next;
		spin_unlock_raw(&reap_lock);
		obj_destroy(o);
		spin_lock_raw(&reap_lock);
	}
	reaping = false;
	spin_unlock_irqrestore(&reap_lock, flags);
}

void obj_put(struct kobj *o)
{
	uint32_t old = atomic_fetch_sub_explicit(&o->refs, 1,
						 memory_order_acq_rel);
	if (old == 0)
		panic("obj: reference count underflow (type %u)", o->type);
	if (old == 1)
		obj_reap(o);
}

void obj_cap_get(struct kobj *o)
{
	obj_get(o);
	atomic_fetch_add_explicit(&o->caps, 1, memory_order_relaxed);
}

void obj_cap_put(struct kobj *o)
{
	if (atomic_fetch_sub_explicit(&o->caps, 1, memory_order_acq_rel) == 1) {
		if (o->type == KOBJ_ENDPOINT)
			endpoint_orphan(o);
		else if (o->type == KOBJ_NTFN)
			ntfn_orphan(o);
		else if (o->type == KOBJ_IRQ)
			irq_orphan(o);
	}
	obj_put(o);
}
