/*
 * Kernel ports: a one-receiver rendezvous that hands a four-word
 * message to a blocked thread, on any core. The cross-core wake-up is
 * the TASK_IPC request (paper 003's IPC hand-off); user-level IPC
 * endpoints build on the same path.
 */
#ifndef KERNEL_KPORT_H
#define KERNEL_KPORT_H

#include "spinlock.h"
#include "types.h"

struct thread;

struct kport {
	spinlock_t lock;          /* guards receiver */
	struct thread *receiver;  /* blocked in kport_recv, or NULL */
};

/** Block until a message arrives; copy it to @out. Thread context.
 *  -FUL_ESTATE if another thread is already receiving. */
int kport_recv(struct kport *p, uint64_t out[4]);
/** Hand @msg to the waiting receiver and wake it (TASK_IPC if it is on
 *  another core). -FUL_EAGAIN when nobody is receiving. Any context. */
int kport_send(struct kport *p, const uint64_t msg[4]);
/** Owner core, IRQs masked: @t is being killed; forget it. */
void kport_cancel(struct thread *t);

#endif
