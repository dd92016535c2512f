/*
 * IPC between threads: synchronous endpoints (endpoint.c), notifications
 * (ntfn.c) and replies, on one core or across cores (ipc.c). The
 * protocol and its two paths are in docs/ipc.md.
 *
 * A waiting thread publishes what it waits for in t->ipc_state:
 * (seq << 8) | enum ipc_wait, where seq is the thread's wait counter.
 * Exactly one party completes a wait: a deliverer claims it (state ->
 * CLAIMED, under the queue's lock for queued waits or by CAS for reply
 * waits), fills the thread's ipc_msg and IPC buffer with IRQs masked,
 * then stores DONE (release) and wakes it. A canceller (timeout, kill,
 * object deletion) takes the same lock or CAS; if it finds CLAIMED it
 * waits the few instructions until DONE. The seq makes reply tokens
 * single use: a reply for an old wait finds a different state word.
 */
#ifndef KERNEL_IPC_H
#define KERNEL_IPC_H

#include "percpu.h"
#include "runqueue.h"
#include "spinlock.h"
#include <fulcrum/syscall.h>

struct thread;
struct kobj;

enum ipc_wait {
	IPC_NONE = 0,
	IPC_RECV,    /* queued on an endpoint's receive queue */
	IPC_SEND,    /* queued on an endpoint's send queue (message staged) */
	IPC_REPLY,   /* waiting for the reply to a call */
	IPC_NTFN,    /* queued on a notification */
	IPC_CLAIMED, /* a deliverer is filling in the message */
	IPC_DONE,    /* delivered: ipc_msg / ipc_result are valid */
};

/* The whole 32-bit wait sequence is kept, so a reply token (which
 * carries it) can only be mistaken for a current one 2^32 waits later. */
#define IPC_STATE(seq, w) (((uint64_t)(uint32_t)(seq) << 8) | (uint64_t)(w))
#define IPC_WAIT(st) ((st) & 0xffu)
/* reply token: tid << 32 | seq of the caller's IPC_REPLY wait */
#define REPLY_TOKEN(tid, seq) ((uint64_t)(tid) << 32 | (uint32_t)(seq))

struct ipc_msg {
	uint64_t badge, info, mr[4];
};

/* A wait queue of threads, FIFO, under its object's lock. */
struct ipc_queue {
	struct rq_link head;
};

static inline void ipc_queue_init(struct ipc_queue *q)
{
	q->head.next = q->head.prev = &q->head;
}

static inline bool ipc_queue_empty(const struct ipc_queue *q)
{
	return q->head.next == &q->head;
}

/** Take @l off its wait queue (its queue's lock held). */
static inline void ipc_unlink_link(struct rq_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
}
#define ipc_unlink(t) ipc_unlink_link(&(t)->ipc_link)

/** Dequeue and claim the first waiter of @q (lock held), or NULL. */
struct thread *ipc_dequeue_claim(struct ipc_queue *q);
/** Finish a delivery to claimed @t: result, DONE, and a wake-up unless
 *  the caller switches to it directly (@wake false). IRQs masked. */
void ipc_complete(struct thread *t, int result, bool wake);
/** Block the current thread until its wait is DONE or @deadline (counter
 *  ticks, ~0 forever) passes; returns its result or -FUL_ETIMEOUT.
 *  IRQs masked; may return on another core. */
int ipc_wait(struct thread *t, uint64_t deadline);
/** Cancel @t's wait if it is still pending (timeout, kill, deletion):
 *  true if cancelled, false if it was (or is being) delivered. */
bool ipc_cancel(struct thread *t);
/** Copy a message into claimed @to: registers, and @len bytes of the
 *  sender's IPC buffer @buf (0 if none) into @to's. */
void ipc_copy_msg(struct thread *to, const struct ipc_msg *m,
		  uintptr_t buf);
/** Does a timeout of @timeout_us microseconds mean "forever" (FUL_FOREVER,
 *  or so long that the counter would wrap)? ipc_deadline() gives ~0 then. */
static inline bool ipc_timeout_forever(uint64_t timeout_us)
{
	return timeout_us == FUL_FOREVER || timeout_us > (1ull << 40);
}

/** Absolute deadline for a timeout in microseconds (FUL_FOREVER: ~0). */
uint64_t ipc_deadline(uint64_t timeout_us);
/**
 * Hand the core from the current thread, which has just become a waiter,
 * to @next, which this core owns and just completed without a wake-up:
 * directly if @next may run now, else through the run queue. Then wait.
 * Returns the current thread's wait result (ipc_wait).
 */
int ipc_block_switch(struct thread *cur, struct thread *next,
		     uint64_t deadline);

/* endpoint.c / ntfn.c / replies, called by syscall.c with IRQs masked */
struct endpoint;
struct ntfn;
struct pool;
/** A new endpoint / notification charged to @p (EP_CHARGE /
 *  NTFN_CHARGE bytes, credited when it is destroyed). -FUL_ENOMEM if
 *  the pool's budget or the object table is exhausted. On success the
 *  object takes over the caller's reference to @p (pool.h). */
int endpoint_create(struct pool *p, struct endpoint **out);
int ep_send(struct endpoint *ep, struct thread *t, const struct ipc_msg *m,
	    bool call, uint64_t deadline);
int ep_recv(struct endpoint *ep, struct thread *t, uint64_t deadline);
int ep_reply_recv(struct endpoint *ep, struct thread *t,
		  const struct ipc_msg *m, uint64_t deadline);
int ipc_reply(struct thread *t, uint64_t token, const struct ipc_msg *m);
void ipc_reply_abort(uint64_t token, int err);
int ntfn_create(struct pool *p, struct ntfn **out);
/** Bytes an endpoint / a notification costs its pool (its record). */
extern const uint64_t ep_charge, ntfn_charge;
int ntfn_signal(struct ntfn *n, uint64_t bits);
int ntfn_wait(struct ntfn *n, struct thread *t, uint64_t deadline,
	      uint64_t *bits);
uint64_t ntfn_poll(struct ntfn *n);
/** Has @n lost its last capability (orphaned: nobody can wait on it)? */
bool ntfn_dead(struct ntfn *n);
/** The reference-counted object of @n (obj_get / obj_put). */
struct kobj *ntfn_kobj(struct ntfn *n);
/** A user thread ends: cancel its wait, answer its pending caller. */
void ipc_thread_exit(struct thread *t);

#endif
