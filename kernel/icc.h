/*
 * Inter-core communication (paper 003, improved): signals on SGIs plus a
 * per-core mailbox of request records. See docs/icc.md.
 *
 * A request is a struct icc_req that the sender owns until it posts it.
 * Records come from the sender core's pool (icc_req_alloc), or are
 * embedded in a thread (its TASK_IN and TASK_IPC records, which can be in
 * flight at most once each). Posting pushes the record on the target's
 * mailbox and, if the mailbox was empty, owes the target one IPI_ICC,
 * sent at the next icc_flush (once per kernel exit, all targets in one
 * GIC write). The handler completes a pool record by storing its result
 * and state DONE (release), or FREE when the record is fire-and-forget.
 */
#ifndef KERNEL_ICC_H
#define KERNEL_ICC_H

#include "mbox.h"
#include "types.h"

enum icc_kind {
	ICC_TASK_IN = 1, /* accept a migrating (or newly created) thread */
	ICC_TASK_OUT,    /* send thread tid to core dest */
	ICC_TASK_KILL,   /* end thread tid */
	ICC_CALL_FUNC,   /* run fn(arg) on the target core, in IRQ context */
	ICC_TASK_IPC,    /* deliver an IPC hand-off: wake the blocked thread */
	ICC_NKINDS
};

enum icc_state {
	REQ_FREE = 0, /* in the pool, allocatable by its owner core */
	REQ_OWNED,    /* allocated, being filled or read by its sender */
	REQ_POSTED,   /* on some core's mailbox or being handled */
	REQ_DONE,     /* handled; result valid; sender must free */
	REQ_ABANDONED, /* POSTED, its waiter timed out: the handler frees it */
};

#define ICC_F_AUTOFREE 1u /* handler frees the record after handling */
#define ICC_POOL_SIZE 64
#define ICC_CALL_DATA 32  /* bytes of CALL_FUNC argument a record carries */

struct icc_req {
	struct mbox_node node;
	uint8_t kind;
	uint8_t flags;
	uint8_t pool_cpu; /* pool the record belongs to (0xff: embedded) */
	_Atomic uint32_t state;
	int32_t result;   /* 0 or -FUL_E*, valid once DONE */
	tid_t tid;        /* TASK_OUT / TASK_KILL */
	uint32_t dest;    /* TASK_OUT */
	uint32_t decision; /* TASK_OUT: balancer decision id, 0 none (trace) */
	void (*fn)(void *);
	void *arg;
	/* CALL_FUNC by copy (icc_call_copy): the argument lives here, so it
	 * lives as long as the record, past an abandoned wait. */
	uint64_t data[ICC_CALL_DATA / 8];
};

struct cpu;

/** Allocate a record from this core's pool. Pre: IRQs masked (or the
 *  caller cannot migrate). Returns NULL when all ICC_POOL_SIZE records of
 *  this core are still outstanding: the caller gets -FUL_EAGAIN. */
struct icc_req *icc_req_alloc(enum icc_kind kind);
/** Return a DONE (or never posted) record to its pool. Any core. */
void icc_req_free(struct icc_req *r);
/** Push @r to @cpu's mailbox; IPI owed if it was empty. IRQs masked. */
void icc_post(unsigned cpu, struct icc_req *r);
/** Pass on @r, already counted as posted, to @cpu's mailbox (a request
 *  that reached a core no longer owning its thread); IPI owed if the
 *  mailbox was empty. IRQs masked. */
void icc_forward(unsigned cpu, struct icc_req *r);
/** Deliver @r to @cpu: handled right here when @cpu is this core, else
 *  posted. Counted as posted either way. IRQs masked. */
void icc_send(unsigned cpu, struct icc_req *r);
/** Send the IPI_ICC owed by this core, one GIC write. IRQs masked.
 *  (Inline in percpu.h: most calls find nothing owed.) */
static inline void icc_flush(void);
void icc_flush_owed(struct cpu *c);
/** Handle every request in this core's mailbox (IPI_ICC handler). */
void icc_drain(void);
/** Handle one request addressed to this core, without the mailbox. */
void icc_handle(struct icc_req *r);
/** Mark @r handled with @result (counts it, frees if AUTOFREE). */
void icc_complete(struct icc_req *r, int result);
/** Spin until @r (posted, not AUTOFREE) is DONE or @timeout_ms passes,
 *  then give it up: freed if DONE, else marked ABANDONED so that
 *  icc_complete frees it whenever its handler gets to it. The caller
 *  must not touch @r afterwards. Returns its result or -FUL_ETIMEOUT.
 *  Thread context. */
int icc_wait(struct icc_req *r, uint64_t timeout_ms);

/*
 * CALL_FUNC argument ownership. A wait that times out abandons its
 * record to the handler, which may run much later: whatever @fn touches
 * must outlive the wait, not just the call. Two ways:
 *
 * icc_call_sync(): @arg is passed as is, and must be NULL, a value, or
 * storage that outlives any wait (static). Never the caller's stack:
 * checked, it panics.
 *
 * icc_call_copy(): the @size bytes at @arg (at most ICC_CALL_DATA) are
 * copied into the record and @fn gets the record's copy; when the call
 * completes in time, the copy, as @fn left it, is copied back to @arg.
 * On a timeout nothing is copied back and @arg may go at once: the
 * handler only ever touches the record, freed by whichever of it and
 * the waiter comes second. For arguments on the caller's stack.
 *
 * Both wait icc_call_timeout_ms (10 s; tests shorten it) and return 0,
 * -FUL_EINVAL (core offline), -FUL_EAGAIN (pool empty) or
 * -FUL_ETIMEOUT. Thread context.
 */
extern uint64_t icc_call_timeout_ms;
int icc_call_sync(unsigned cpu, void (*fn)(void *), void *arg);
int icc_call_copy(unsigned cpu, void (*fn)(void *), void *arg, size_t size);
/** Inter-core signals without data (paper 003's sleep/wake): 0, or
 *  -FUL_EINVAL if @cpu is offline (nothing sent). */
int icc_signal(unsigned cpu, int ipi_kind);

#endif
