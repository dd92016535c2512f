/*
 * The endpoint object (endpoint.c), shared with the IPC fastpath
 * (fastpath.c), which reads its queues under its lock.
 */
#ifndef KERNEL_ENDPOINT_H
#define KERNEL_ENDPOINT_H

#include "ipc.h"
#include "obj.h"

struct endpoint {
	struct kobj obj;
	spinlock_t lock;        /* guards the queues and dead; a leaf lock.
				 * Never re-initialised: endpoints live in a
				 * static table, and a lock taken through a
				 * stale pointer must still work. */
	bool dead;              /* no capability left: waiters were cancelled */
	bool used;              /* [endpoints_lock] slot taken */
	struct ipc_queue recvq; /* receivers waiting */
	struct ipc_queue sendq; /* senders waiting, message staged */
	struct pool *pool;      /* [I] charged ep_charge, credited on destroy */
};

#endif
