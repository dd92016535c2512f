/*
 * Reference-counted kernel objects (vspace, frame, endpoint,
 * notification, pool). refs counts every holder: capabilities, mappings,
 * threads, pinned IPC buffers and transient holds during a system call.
 * caps counts capabilities only: when it reaches zero the object is
 * "orphaned" (an endpoint cancels its waiters, nobody can reach it
 * again); when refs reaches zero it is destroyed. Destruction can drop
 * further references (a task's capability table), so it runs from a
 * work list, iteratively, never recursively.
 */
#ifndef KERNEL_OBJ_H
#define KERNEL_OBJ_H

#include "types.h"

enum kobj_type {
	KOBJ_VSPACE = 2, /* values match FUL_CAP_* */
	KOBJ_FRAME = 3,
	KOBJ_ENDPOINT = 4,
	KOBJ_NTFN = 5,
	KOBJ_POOL = 7,
	KOBJ_IRQ = 12, /* an SPI's handler record (irq.c) */
	KOBJ_PWIN = 13, /* a page window (pwin.c) */
};

struct kobj {
	_Atomic uint32_t refs;
	_Atomic uint32_t caps;
	uint8_t type;
	struct kobj *reap_next; /* on the destruction work list */
};

/** A new object: one reference (the creator's), no capabilities. */
void obj_init(struct kobj *o, enum kobj_type type);
static inline void obj_get(struct kobj *o)
{
	atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}
/** Drop a reference; the last one destroys the object (any context,
 *  IRQs masked or not, no lock held). */
void obj_put(struct kobj *o);
/** A capability to @o was made / deleted (each also takes / drops a
 *  reference). */
void obj_cap_get(struct kobj *o);
void obj_cap_put(struct kobj *o);

/* Per type, called by obj.c. */
void vspace_destroy(struct kobj *o);
void frame_destroy(struct kobj *o);
void endpoint_destroy(struct kobj *o);
void endpoint_orphan(struct kobj *o);
void ntfn_destroy(struct kobj *o);
void ntfn_orphan(struct kobj *o);
void pool_destroy(struct kobj *o);
void irq_destroy(struct kobj *o);
void irq_orphan(struct kobj *o);
void pwin_destroy(struct kobj *o);

#endif
