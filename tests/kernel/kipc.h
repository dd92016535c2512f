/*
 * Kernel threads as IPC clients (tests): the kernel halves of the IPC
 * system calls, called the way syscall.c calls them (IRQs masked, the
 * calling thread as the party), followed by what the kernel exit of a
 * system call does (switch if asked, send the owed SGIs). Timeouts in
 * microseconds, FUL_FOREVER waits without limit (ipc_deadline).
 */
#ifndef KERNEL_TESTS_KIPC_H
#define KERNEL_TESTS_KIPC_H

#include "ipc.h"

/** SEND or CALL on @ep; a call's reply replaces *@m. */
int kipc_send(struct endpoint *ep, struct ipc_msg *m, bool call,
	      uint64_t timeout_us);
/** RECV on @ep: the message, and the reply token of a call (0 if none),
 *  which the caller then owns (kipc_reply). */
int kipc_recv(struct endpoint *ep, uint64_t timeout_us, struct ipc_msg *m,
	      uint64_t *token);
/** REPLY_RECV on @ep: answer the pending call taken by the last receive
 *  (if any), then receive as kipc_recv. */
int kipc_reply_recv(struct endpoint *ep, uint64_t token,
		    const struct ipc_msg *reply, uint64_t timeout_us,
		    struct ipc_msg *m, uint64_t *new_token);
/** REPLY to the call of @token: 0, or -FUL_EDEAD if its caller stopped
 *  waiting. */
int kipc_reply(uint64_t token, const struct ipc_msg *m);
/** NTFN_WAIT on @n; the bits taken in *@bits (may be NULL). */
int kipc_wait(struct ntfn *n, uint64_t timeout_us, uint64_t *bits);
/** NTFN_SIGNAL @bits on @n. */
void kipc_signal(struct ntfn *n, uint64_t bits);
/** A new endpoint / notification for a kernel test, charged to the root
 *  pool as a task's would be (the object holds a reference to its pool,
 *  as EP_CREATE's does). Dropped with obj_put. 0 or -FUL_ENOMEM. */
int kipc_endpoint_create(struct endpoint **out);
int kipc_ntfn_create(struct ntfn **out);

#endif
