/*
 * Queueing a thread on an IPC wait queue: inline, for the endpoint and
 * notification code and the IPC fastpath (ipc.h has the protocol).
 */
#ifndef KERNEL_IPCQ_H
#define KERNEL_IPCQ_H

#include "ipc.h"
#include "thread.h"

/** Queue the current thread @t on @q (object lock @lock held) as waiting
 *  for @w. The generic calls hold a reference on the object meanwhile
 *  (t->sys_hold, which a kill drops: uthread.c); the fastpath does not
 *  need one (fastpath.c). */
static inline void ipc_enqueue(struct thread *t, struct ipc_queue *q,
			       spinlock_t *lock, enum ipc_wait w)
{
	t->ipc_seq++;
	t->ipc_lock = lock;
	t->ipc_link.prev = q->head.prev;
	t->ipc_link.next = &q->head;
	q->head.prev->next = &t->ipc_link;
	q->head.prev = &t->ipc_link;
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, w),
			      memory_order_relaxed);
}

#endif
