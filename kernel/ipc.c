/*
 * The IPC wait/claim protocol shared by endpoints, notifications and
 * replies (see ipc.h), message copying, and the direct hand-off of a core
 * from a thread that starts waiting to the thread it just served.
 *
 * Same core: the sender completes the receiver and, since it blocks
 * itself (call, reply-and-receive), switches straight to it: no run
 * queue, no wake-up record. Cross core: the sender completes the
 * receiver and wakes it with its TASK_IPC record (thread_wake_owed); the
 * SGI leaves once, at this core's kernel exit.
 */
#include "ipc.h"
#include "kernel.h"
#include "ktime.h"
#include "obj.h"
#include "sched.h"
#include "thread.h"
#include "trace.h"

uint64_t ipc_deadline(uint64_t timeout_us)
{
	if (!timeout_us)
		return 0; /* never block: the callers' fast paths test for 0 */
	if (ipc_timeout_forever(timeout_us))
		return ~0ull;
	/* Rounded up: a timeout never ends early. 62.5 MHz on QEMU is not
	 * a whole number of ticks per microsecond. */
	return ktime_deadline(arch_counter(),
			      ktime_to_ticks(timeout_us, 1000000,
					     arch_counter_freq(), 1));
}

struct thread *ipc_dequeue_claim(struct ipc_queue *q)
{
	if (ipc_queue_empty(q))
		return NULL;
	struct thread *t = container_of(q->head.next, struct thread, ipc_link);
	ipc_unlink(t);
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, IPC_CLAIMED),
			      memory_order_relaxed);
	return t;
}

void ipc_copy_msg(struct thread *to, const struct ipc_msg *m, uintptr_t buf)
{
	to->ipc_msg = *m;
	uint64_t len = FUL_MSG_LEN(m->info);
	if (!len)
		return;
	if (!buf || !to->ipcbuf) { /* nothing to send or nowhere to put it */
		to->ipc_msg.info &= ~0x3ffull;
		return;
	}
	memcpy((void *)to->ipcbuf, (const void *)buf, len);
}

void ipc_complete(struct thread *t, int result, bool wake)
{
	t->ipc_result = result;
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, IPC_DONE),
			      memory_order_release);
	if (wake)
		thread_wake_owed(t);
}

bool ipc_cancel(struct thread *t)
{
	for (;;) {
		uint64_t st = atomic_load_explicit(&t->ipc_state,
						   memory_order_acquire);
		switch (IPC_WAIT(st)) {
		case IPC_NONE:
		case IPC_DONE:
			return false;
		case IPC_CLAIMED: /* the deliverer has IRQs masked: brief */
			arch_cpu_relax();
			continue;
		case IPC_REPLY:
			if (atomic_compare_exchange_strong(
				    &t->ipc_state, &st,
				    IPC_STATE(t->ipc_seq, IPC_NONE)))
				return true;
			continue;
		default: { /* queued: the queue's lock decides */
			spinlock_t *lock = t->ipc_lock;
			spin_lock_raw(lock);
			bool queued = atomic_load_explicit(&t->ipc_state,
							   memory_order_relaxed) == st;
			if (queued) {
				ipc_unlink(t);
				atomic_store_explicit(
					&t->ipc_state,
					IPC_STATE(t->ipc_seq, IPC_NONE),
					memory_order_relaxed);
			}
			spin_unlock_raw(lock);
			if (queued)
				return true;
		}
		}
	}
}

int ipc_wait(struct thread *t, uint64_t deadline)
{
	for (;;) {
		uint64_t st = atomic_load_explicit(&t->ipc_state,
						   memory_order_acquire);
		if (IPC_WAIT(st) == IPC_DONE) {
			atomic_store_explicit(&t->ipc_state,
					      IPC_STATE(t->ipc_seq, IPC_NONE),
					      memory_order_relaxed);
			return t->ipc_result;
		}
		if (IPC_WAIT(st) == IPC_CLAIMED) {
			arch_cpu_relax();
			continue;
		}
		if (deadline != ~0ull && arch_counter() >= deadline) {
			if (ipc_cancel(t))
				return -FUL_ETIMEOUT;
			continue;
		}
		if (atomic_exchange(&t->wake_token, 0))
			continue; /* a wake-up (maybe spurious): look again */
		struct owner o = owner_irq();
		if (deadline == ~0ull) {
			atomic_store_explicit(&t->state, T_BLOCKED,
					      memory_order_relaxed);
			schedule(o);
		} else {
			sched_sleep_until(o, deadline);
		}
	}
}

int ipc_block_switch(struct thread *cur, struct thread *next,
		     uint64_t deadline)
{
	sched_block_switch(owner_irq(), next, deadline);
	return ipc_wait(cur, deadline);
}

/** Complete claimed @t with a bare result (abort paths). */
static void ipc_abort_claimed(struct thread *t, int err)
{
	t->ipc_msg = (struct ipc_msg){0};
	ipc_complete(t, err, true);
}

/** Claim the caller waiting on reply @token. NULL if it is gone or no
 *  longer waiting for this reply. */
static inline struct thread *ipc_claim_caller(uint64_t token)
{
	struct thread *c = thread_lookup((tid_t)(token >> 32));
	uint64_t expect = IPC_STATE(token, IPC_REPLY);
	if (!c || !atomic_compare_exchange_strong(&c->ipc_state, &expect,
						  IPC_STATE(token, IPC_CLAIMED)))
		return NULL;
	return c;
}

void ipc_reply_abort(uint64_t token, int err)
{
	struct thread *c = ipc_claim_caller(token);
	if (c)
		ipc_abort_claimed(c, err);
}

/**
 * Deliver reply @m from @t to the caller waiting on @token. With
 * @switch_to set, the caller is left for the caller of this function to
 * switch to (returned), if it is owned by this core; otherwise it is
 * woken. Returns the claimed caller or NULL (-FUL_EDEAD in *@err).
 */
struct thread *ipc_reply_deliver(struct thread *t, uint64_t token,
				 const struct ipc_msg *m, bool switch_to,
				 int *err)
{
	struct thread *c = ipc_claim_caller(token);
	if (!c) {
		*err = -FUL_EDEAD;
		return NULL;
	}
	ipc_copy_msg(c, m, t->ipcbuf);
	trace_reply(this_cpu(), t, c, m->info);
	c->ipc_msg.badge = 0;
	/* Acquire, paired with the release store of c->cpu when its old
	 * owner hands c over (thread_migrate_local): a caller seen owned
	 * here is seen in the state it was handed over in, which the
	 * hand-off (sched_block_switch) then reads. */
	bool local = switch_to &&
		     atomic_load_explicit(&c->cpu, memory_order_acquire) ==
			     this_cpu()->id;
	ipc_complete(c, 0, !local);
	*err = 0;
	return local ? c : NULL;
}

int ipc_reply(struct thread *t, uint64_t token, const struct ipc_msg *m)
{
	int err;
	ipc_reply_deliver(t, token, m, false, &err);
	return err;
}

void ipc_thread_exit(struct thread *t)
{
	ipc_cancel(t);
	if (t->reply_to) {
		ipc_reply_abort(t->reply_to, -FUL_EDEAD);
		t->reply_to = 0;
	}
}
