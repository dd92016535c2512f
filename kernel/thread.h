/*
 * Threads: the schedulable kernel object. Every thread is owned by
 * exactly one core, t->cpu. Only the owner changes its scheduling state,
 * with IRQs masked; other cores ask the owner through its mailbox.
 *
 * Field guards: [O] written only by the owner core with IRQs masked
 * (others may read racily, for statistics); [I] set at creation, stable
 * while the thread lives; [A] atomic, any core (protocol in thread.c).
 */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include "arch.h"
#include "icc.h"
#include "ipc.h"
#include "runqueue.h"
#include "spinlock.h"

#define MAX_THREADS 512
#define TID_SLOT_BITS 12
#define TID_SLOT(tid) ((tid) & ((1u << TID_SLOT_BITS) - 1))
#define KSTACK_SIZE 16384

enum thread_state {
	T_FREE = 0,  /* slot unused */
	T_EMBRYO,    /* allocated, being set up by its creator */
	T_READY,     /* on its owner's run queue */
	T_RUNNING,   /* its owner's current thread */
	T_BLOCKED,   /* on no queue; woken by TASK_IPC */
	T_MIGRATING, /* in flight to t->cpu, its TASK_IN record posted or owed */
	T_DEAD,      /* killed while running; freed once switched out */
	T_INACTIVE,  /* created by a task, not started yet; owned by t->cpu */
	T_STARTING,  /* INACTIVE, claimed by a start checking its id: a few
		      * instructions, IRQs masked (thread_activate) */
};

struct kport;
struct vspace;
struct frame;
struct pool;

struct thread {
	struct arch_context ctx; /* [O] valid while switched out */
	struct rq_link rq_link;  /* [O] */
	_Atomic uint32_t state;  /* [O] enum thread_state */
	_Atomic uint32_t cpu;    /* [O] owner; release-stored on hand-over */
	_Atomic uint32_t on_cpu; /* [A] 1 while its registers are live */
	_Atomic tid_t tid;       /* [I] generation-tagged; read racily */
	uint8_t prio;            /* [O] 0..255, higher runs first */
	int8_t nice;             /* [O] -20..19 */
	bool kill_pending;       /* [O] KILL arrived while MIGRATING here */
	bool yielding;           /* [O] go to the tail on the next switch */
	int16_t pending_dest;    /* [O] TASK_OUT arrived while MIGRATING */
	uint32_t weight;         /* [O] CFS table of nice (fulcrum/weight.h) */
	uint32_t slice_ms;       /* [O] time slice size */
	uint32_t slice_ticks;    /* [O] slice in scheduler ticks */
	uint32_t slice_left;     /* [O] ticks left in the current slice */
	uint64_t runtime;        /* [O] counter ticks spent running */
	uint64_t win_idx;        /* [O] utilization window of win_base */
	uint64_t win_base;       /* [O] runtime at its start (or first run) */
	uint64_t win_last;       /* [O] ticks run in window win_idx - 1 */
	uint64_t sleep_until;    /* [O] deadline while on the sleepers list */
	struct rq_link sleep_link; /* [O] on its owner's sleepers list */
	bool sleeping;           /* [O] on the sleepers list */
	uint32_t migrations;     /* [O] completed moves */
	uint32_t trace_dec;      /* [O] decision id of its last traced move */
	uint32_t trace_mig;      /* [O] migrations at that move (trace.c) */
	uint8_t trace_from;      /* [O] the core it left then */
	_Atomic uint32_t irq_bound; /* [A] SPIs it bound (irq.c): they
				     * follow it when it migrates */
	uint64_t affinity;       /* [O] cores it may be moved to (syscalls),
				  * bit per core */
	struct ful_load_thread *lrec; /* [I] its record in the load area */
	bool load_counted;       /* [O] in its core's load sums (load.c) */
	bool blocked_counted;    /* [O] in its core's blocked count (load.c) */
	struct icc_req mig_req;  /* [O] TASK_IN, in flight only if MIGRATING */
	struct icc_req wake_req; /* [A] TASK_IPC, survives slot reuse */
	_Atomic uint32_t wake_token;    /* [A] a wake-up not yet consumed */
	_Atomic uint32_t wake_inflight; /* [A] wake_req is on a mailbox */
	_Atomic(struct kport *) blocked_on; /* port it waits on (kport.c) */
	uint64_t msg[4];                /* kport hand-off payload */
	void (*fn)(void *);             /* [I] */
	void *arg;                      /* [I] */
	uintptr_t kstack;               /* [I] base of KSTACK_SIZE bytes */
	char name[16];                  /* [I] */
	/* User threads (uthread.c); NULL/0 for kernel threads. */
	struct vspace *vs;              /* [I] its task (holds a reference) */
	uintptr_t ipcbuf;               /* [I] kernel address of its IPC buffer */
	struct frame *ipcbuf_frame;     /* [I] pinned while the thread lives */
	struct pool *pool;              /* [I] charged thread_charge, credited
					 * at release */
	/* IPC (ipc.c): ipc_state is [A] by the claim protocol; the message
	 * fields belong to whoever holds the claim, then to the thread. */
	_Atomic uint64_t ipc_state;     /* IPC_STATE(seq, enum ipc_wait) */
	uint32_t ipc_seq;               /* [O] wait counter, survives slot reuse */
	bool ipc_is_call;               /* staged send is a call */
	int32_t ipc_result;
	spinlock_t *ipc_lock;           /* lock of the queue it waits on */
	struct kobj *sys_hold;          /* [O] object a blocking call holds */
	struct rq_link ipc_link;        /* on that queue */
	struct ipc_msg ipc_msg;         /* staged (sender) or delivered */
	uint64_t reply_to;              /* [O] token of the caller awaiting our reply */
	/* Set by the thread itself while it blocks in a call, a receive or
	 * a reply-and-receive with no timeout: its frame, whose x0..x6 are
	 * all that is left to fill once its wait is complete. A fastpath
	 * that claims that wait fills them and resumes it at EL0 from the
	 * frame, dropping its sys_hold; its kernel stack below the frame
	 * is abandoned (fastpath.c). NULL otherwise. [O] */
	struct arch_uregs *fp_uregs;
};

struct thread_attr {
	const char *name;
	unsigned prio;     /* 0..255 */
	unsigned slice_ms; /* 1..10000 */
	int nice;          /* -20..19 */
	unsigned cpu;      /* initial core */
};

extern struct thread threads[MAX_THREADS];

void thread_init(void);
/** Create a thread like thread_create() but leave it T_EMBRYO, invisible
 *  to every other core, for its creator to finish and then publish with
 *  thread_publish(); its kernel stack ends at @stack_top_off bytes below
 *  the top (room for user registers). Returns the thread or NULL with
 *  *@err set. */
struct thread *thread_create_inactive(const struct thread_attr *attr,
				      void (*fn)(void *), void *arg,
				      unsigned stack_top_off, int *err);
/** Publish a finished EMBRYO: its load record, then T_INACTIVE (owned by
 *  its attr->cpu, on no queue) until thread_activate(). Its creator. */
void thread_publish(struct thread *t);
/** Start INACTIVE @t if it still is thread @tid (its slot may have been
 *  reused since @tid was looked up). 0, -FUL_ESTATE if it is not
 *  INACTIVE, -FUL_EDEAD if the slot holds another thread now. */
int thread_activate(struct thread *t, tid_t tid);
/** THREAD_START of @tid: look it up and activate it. 0 or -FUL_E*. */
int thread_start_tid(tid_t tid);
/** The idle thread of this core, adopting the boot stack. Once per core. */
struct thread *thread_init_idle(unsigned cpu);
/** Create a thread running fn(arg) on attr->cpu. Thread or IRQ-masked
 *  context, any core. Returns its tid or -FUL_EINVAL / -FUL_ENOMEM. */
int thread_create(const struct thread_attr *attr, void (*fn)(void *),
		  void *arg);
/** The live thread named @tid, or NULL. The result may die at any time
 *  unless the caller is its owner core with IRQs masked. */
struct thread *thread_lookup(tid_t tid);
/**
 * The owner of slot @t, and in *@st a state read while it was that
 * owner's: the owner (acquire), the state (acquire), then the owner
 * again, until the two reads agree. A FREE slot keeps its last owner,
 * and another core may fill it, set its new owner and start it between
 * a read of the owner and a read of the state; read once, a stale owner
 * "here" could pair with a state of the new occupant, which another
 * core owns. Any core, no lock.
 */
static inline unsigned thread_owner_stable(struct thread *t, uint32_t *st)
{
	unsigned owner = atomic_load_explicit(&t->cpu, memory_order_acquire);
	for (;;) {
		*st = atomic_load_explicit(&t->state, memory_order_acquire);
		unsigned again =
		    atomic_load_explicit(&t->cpu, memory_order_relaxed);
		if (again == owner)
			return owner;
		owner = again;
	}
}
/**
 * Is @t, found by thread_lookup(@tid) and then seen owned by this core
 * (an acquire read of t->cpu), still thread @tid? Its slot may have been
 * freed and filled by a thread created for this core since the lookup.
 * The state (acquire: a creator publishes INACTIVE with release after
 * the tid), then the tid. Once this says yes, neither can change while
 * the owner keeps IRQs masked.
 */
static inline bool thread_still(struct thread *t, tid_t tid)
{
	uint32_t st = atomic_load_explicit(&t->state, memory_order_acquire);
	return st != T_FREE && st != T_EMBRYO &&
	       atomic_load_explicit(&t->tid, memory_order_relaxed) == tid;
}
/** End the calling thread. */
void thread_exit(void) __attribute__((noreturn));
/** Block the calling thread until a wake-up token is available. */
void thread_park(void);
/** Give @tid a wake-up token, waking it if parked. Any core.
 *  Returns 0 or -FUL_ENOTHREAD. */
int thread_unpark(tid_t tid);
/** thread_wake() without the flush: the IPI is owed until this core's
 *  kernel exit. IRQs masked. */
void thread_wake_owed(struct thread *t);
/** Wake @t if blocked (as thread_unpark, by pointer). Any core, any
 *  context: it never switches; thread callers follow with
 *  sched_preempt_point(). */
void thread_wake(struct thread *t);
/**
 * Ask @tid's owner core for TASK_OUT (move to @dest, whatever the
 * thread's state) or TASK_KILL. Done inline when this core owns the
 * thread. With @wait, returns the handler's result; without, the record
 * frees itself and the call returns 0 once posted. -FUL_EAGAIN if this
 * core's request pool is exhausted. Thread context.
 */
int thread_request(enum icc_kind kind, tid_t tid, unsigned dest, bool wait);
static inline int thread_migrate(tid_t tid, unsigned dest)
{
	return thread_request(ICC_TASK_OUT, tid, dest, true);
}
static inline int thread_kill(tid_t tid)
{
	return thread_request(ICC_TASK_KILL, tid, 0, true);
}
/** Block the calling thread for at least @ms milliseconds. */
void thread_sleep_ms(uint64_t ms);
/** Give up the rest of this slice to equal-priority threads. */
void thread_yield(void);
struct thread *thread_current(void);
/** Number of slots in use (not FREE). */
unsigned thread_count_live(void);
uint32_t nice_to_weight(int nice);
/** A thread's time slice in scheduler ticks: @slice_ms scaled by its
 *  @weight over nice 0's (1024), rounded, 1 tick at least, 10 s at
 *  most. Equal-priority threads share a core round robin, so their CPU
 *  shares follow their weights, as under Linux CFS (paper 001's
 *  premise: a nice value sets a task's share). */
uint32_t slice_ticks_of(uint32_t slice_ms, uint32_t weight);

/** The ABI name (enum ful_thread_state) of a kernel thread state. */
static inline unsigned thread_state_abi(uint32_t st)
{
	switch (st) {
	case T_READY: return FUL_TS_READY;
	case T_RUNNING: return FUL_TS_RUNNING;
	case T_BLOCKED: return FUL_TS_BLOCKED;
	case T_MIGRATING: return FUL_TS_MIGRATING;
	case T_INACTIVE:
	case T_STARTING: return FUL_TS_INACTIVE;
	default: return FUL_TS_DEAD;
	}
}

/* Owner-core operations, IRQs masked (called by ICC handlers and the
 * local fast paths). Each returns 0 or -FUL_E*. */
struct owner;
int thread_migrate_local(struct owner o, struct thread *t, unsigned dest);
/* -FUL_ENOTHREAD for a thread already DEAD (killed, not switched out
 * yet) or FREE: two kills close together give 0 and ENOTHREAD. */
int thread_kill_local(struct owner o, struct thread *t);
void thread_accept(struct owner o, struct thread *t);
void thread_wake_handle(struct owner o, struct thread *t);
/** Idling in place (sched.c): if @t's own TASK_IPC record is the only
 *  request in this core's mailbox, take it and handle it as
 *  thread_wake_handle() does, except that a woken @t is left BLOCKED,
 *  neither queued nor handed off: the caller switches to it at once.
 *  @t is BLOCKED and owned by this core. True if that woke @t; false if
 *  the mailbox holds nothing or anything else (left untouched), or the
 *  record was late (spurious). */
bool thread_wake_take_own(struct owner o, struct thread *t);
/** Free a dead thread's slot. Owner, after it is switched out. */
void thread_release(struct thread *t);

#endif
