/*
 * The notification object (ntfn.c), shared with the IPC fastpath
 * (fastpath.c), which signals under its lock.
 */
#ifndef KERNEL_NTFN_H
#define KERNEL_NTFN_H

#include "ipc.h"
#include "obj.h"

struct ntfn {
	struct kobj obj;
	spinlock_t lock;        /* guards word, waiters, dead; a leaf lock.
				 * Never re-initialised: notifications live in
				 * a static table, and a lock taken through a
				 * stale pointer must still work. */
	bool dead;
	bool used;              /* [ntfns_lock] */
	uint64_t word;          /* pending bits */
	struct ipc_queue waiters;
	struct pool *pool;      /* [I] charged ntfn_charge, credited on destroy */
};

#endif
