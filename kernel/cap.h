/*
 * Capabilities (cap.c). A task's capability table is an array of
 * FUL_CSLOTS slots inside its vspace object, guarded by the vspace lock.
 * A capability names an object and carries rights and one word of data:
 * the badge (endpoint, notification), the thread id (thread), or the
 * caller's reply token (reply). Object kinds without a reference count
 * (thread, sched, reply) are named by value and checked on use.
 */
#ifndef KERNEL_CAP_H
#define KERNEL_CAP_H

#include "types.h"
#include <fulcrum/syscall.h>

struct vspace;

struct cap {
	uint8_t type;   /* FUL_CAP_* */
	uint8_t rights; /* FUL_R_* */
	uint64_t data;  /* badge / tid / reply token */
	void *obj;      /* struct vspace/frame/endpoint/ntfn/pool, or NULL */
};

/**
 * Copy the capability in @slot of @vs to @out if it has @type (0: any)
 * and every right in @rights, taking a transient reference on its object
 * (release with cap_release). Returns 0, -FUL_EBADCAP, -FUL_ETYPE or
 * -FUL_ERIGHTS (then @out is empty: releasing it does nothing). Takes and
 * releases the vspace lock.
 */
int cap_lookup(struct vspace *vs, uint64_t slot, unsigned type,
	       unsigned rights, struct cap *out);
/** cap_lookup, and under the same lock the check of destination @dst
 *  (cap_slot_free): the lookup's error; else -FUL_EBADCAP (@dst out of
 *  range, @out released); else 1 if @dst is occupied (its ESTATE comes
 *  after the caller's other checks), 0 if empty. */
int cap_lookup_dst(struct vspace *vs, uint64_t slot, unsigned type,
		   unsigned rights, struct cap *out, uint64_t dst);
/** Drop the transient reference cap_lookup took. */
void cap_release(struct cap *c);
/** Store a new capability in empty @slot of @vs (takes a capability
 *  reference on its object). -FUL_EBADCAP if out of range, -FUL_ESTATE
 *  if in use. */
int cap_insert(struct vspace *vs, uint64_t slot, const struct cap *c);
/** Empty @slot of @vs, dropping its object's capability reference.
 *  -FUL_EBADCAP if out of range or empty. */
int cap_delete(struct vspace *vs, uint64_t slot);

/**
 * Delete every capability in @vs's table that names @vs itself (a task
 * holding one would otherwise outlive every other holder: TASK_KILL
 * drops them, so that a task killed whole can be destroyed). Takes and
 * releases @vs->lock per slot. Returns how many it deleted.
 */
unsigned cap_delete_self(struct vspace *vs);
/** Delete every capability of a table being destroyed (no lock). */
void cap_table_clear(struct cap *slots);
/** 0 if @slot of @vs is in range and empty, else -FUL_EBADCAP (range)
 *  or -FUL_ESTATE (in use). A check only: a racing thread may fill it. */
int cap_slot_free(struct vspace *vs, uint64_t slot);
/** Remove and return the capability in @slot if it has @type and
 *  @rights, without dropping it (for single-use capabilities: reply).
 *  For uncounted types only. */
int cap_take(struct vspace *vs, uint64_t slot, unsigned type,
	     unsigned rights, struct cap *out);

#endif
