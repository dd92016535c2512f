/*
 * Owner-core operations on threads (migration, kill, accept, wake) and
 * the requests that reach them. See thread.c for the ownership rules.
 */
#include "irq.h"
#include "kernel.h"
#include "kport.h"
#include "load.h"
#include "race.h"
#include "sched.h"
#include "thread.h"
#include "trace.h"

static uint32_t thread_state(struct thread *t)
{
	return atomic_load_explicit(&t->state, memory_order_relaxed);
}

/** thread_migrate_local() of @t in state @st, neither READY, RUNNING
 *  nor BLOCKED: in flight here, not started, or gone. */
static int thread_migrate_other(struct thread *t, uint32_t st, unsigned dest)
{
	if (st == T_MIGRATING) { /* still in flight here: apply on arrival */
		t->pending_dest = (int16_t)dest;
		return 0;
	}
	if (st == T_INACTIVE || st == T_STARTING) /* not started */
		return -FUL_ESTATE;
	return -FUL_EDEAD;
}

/** Count a move of @t (in state @st, owned here) to @dest. */
static void thread_move_count(struct owner o, struct thread *t, unsigned dest,
			      uint32_t st)
{
	t->migrations++;
	trace_mig_out(o.cpu, t, dest, st);
	o.cpu->stats.migrations_out++;
	load_count_migration(o, false);
}

/** Give @t, off this core's queue and books, to @dest: its record with
 *  the new core first, then the owner; its interrupts follow it. The
 *  caller then posts its TASK_IN (or wakes it there). */
static void thread_move_handover(struct cpu *c, struct thread *t,
				 unsigned dest)
{
	load_thread_static(t, dest);
	atomic_store_explicit(&t->cpu, dest, memory_order_release);
	if (atomic_load_explicit(&t->irq_bound, memory_order_relaxed))
		irq_thread_moved(t, dest); /* its interrupts follow it */
	race_point_cpu(c, RACE_MIG_HANDOVER, t); /* a delay point */
}

int thread_migrate_local(struct owner o, struct thread *t, unsigned dest)
{
	struct cpu *c = o.cpu;
	uint32_t st = thread_state(t);
	if (!cpu_is_online(dest))
		return -FUL_EINVAL;
	/* Checked here, by the owner, who alone changes the affinity: a
	 * caller's check may be stale by the time its request arrives. */
	if (!(t->affinity >> dest & 1))
		return -FUL_ESTATE;
	if (st != T_READY && st != T_RUNNING && st != T_BLOCKED)
		return thread_migrate_other(t, st, dest);
	if (dest == c->id)
		return 0;
	thread_move_count(o, t, dest, st);
	if (st == T_READY)
		sched_unqueue(o, t);
	if (st != T_BLOCKED) /* a blocked thread just changes owner */
		atomic_store_explicit(&t->state, T_MIGRATING,
				      memory_order_relaxed);
	/* Settle the load accounting before the new owner can see the
	 * thread: a blocked one may be woken there at once. A running one
	 * is published MIGRATING before its new core, as a ready one is by
	 * load_leave: no reader may see it RUNNING on a core it has not
	 * reached (it stays in this core's sums until its switch-out). */
	if (st == T_READY)
		load_leave(o, t);
	else if (st == T_RUNNING)
		load_thread_state(t);
	else
		load_blocked_moved(o, t, dest);
	thread_move_handover(c, t, dest);
	if (st == T_READY) {
		icc_post(dest, &t->mig_req);
	} else if (st == T_RUNNING) { /* posted once switched out */
		c->need_resched = true;
	} else if (t->sleeping) { /* re-sleeps on dest after a wake-up */
		sched_unsleep(o, t);
		thread_wake(t);
	}
	return 0;
}

int thread_kill_local(struct owner o, struct thread *t)
{
	struct cpu *c = o.cpu;
	switch (thread_state(t)) {
	case T_READY:
		sched_unqueue(o, t);
		thread_release(t);
		return 0;
	case T_RUNNING:
		atomic_store_explicit(&t->state, T_DEAD, memory_order_relaxed);
		c->need_resched = true;
		return 0;
	case T_BLOCKED:
		kport_cancel(t);
		sched_unsleep(o, t);
		thread_release(t);
		return 0;
	case T_STARTING: /* a start on another core checks its id */
		while (thread_state(t) == T_STARTING)
			arch_cpu_relax();
		return thread_kill_local(o, t);
	case T_INACTIVE: {
		uint32_t expect = T_INACTIVE; /* thread_activate may race */
		if (!atomic_compare_exchange_strong(&t->state, &expect,
						    T_EMBRYO))
			return thread_kill_local(o, t);
		thread_release(t);
		return 0;
	}
	case T_MIGRATING:
		t->kill_pending = true;
		return 0;
	default: /* DEAD (killed, not yet switched out) or FREE: no live
		  * thread, as if the kill had come a moment later */
		return -FUL_ENOTHREAD;
	}
}

/** @t, just landed here in flight, has a move on waiting (pending_dest,
 *  a TASK_OUT or an affinity change that came while it flew): pass it
 *  on still MIGRATING, never made ready here, so that no reader of its
 *  record sees it READY on a core its affinity may exclude, and this
 *  core's sums never count it. False (the move dropped) if the move is
 *  no longer allowed: the caller makes it ready here. */
static bool thread_pass_on(struct owner o, struct thread *t)
{
	int dest = t->pending_dest;
	t->pending_dest = -1;
	if (dest < 0 || (unsigned)dest == o.cpu->id ||
	    !cpu_is_online((unsigned)dest) || !(t->affinity >> dest & 1))
		return false;
	thread_move_count(o, t, (unsigned)dest, T_MIGRATING);
	thread_move_handover(o.cpu, t, (unsigned)dest);
	icc_post((unsigned)dest, &t->mig_req);
	return true;
}

void thread_accept(struct owner o, struct thread *t)
{
	struct cpu *c = o.cpu;
	if (thread_state(t) != T_MIGRATING ||
	    atomic_load_explicit(&t->cpu, memory_order_relaxed) != c->id)
		panic("TASK_IN of %s in state %u for cpu %u", t->name,
		      thread_state(t), atomic_load(&t->cpu));
	/* No move yet: this is its start on a core other than its
	 * creator's (thread_activate), not a migration. */
	if (t->migrations) {
		trace_mig_in(c, t);
		c->stats.migrations_in++;
		load_count_migration(o, true);
	}
	load_thread_landed(o, t);
	race_point_cpu(c, RACE_MIG_LANDED, t);
	if (t->kill_pending) {
		t->kill_pending = false;
		sched_make_ready(o, t);
		thread_kill_local(o, t);
	} else if (!thread_pass_on(o, t)) {
		sched_make_ready(o, t);
	}
}

/** Release @t's TASK_IPC record; true if @t (in state @st) is BLOCKED
 *  and held a wake token, which this takes: it is to be woken. Owner. */
static inline bool thread_wake_consume(struct thread *t, uint32_t st)
{
	icc_complete(&t->wake_req, 0);
	atomic_exchange(&t->wake_inflight, 0);
	return st == T_BLOCKED && atomic_exchange(&t->wake_token, 0);
}

/** The owner's half of a TASK_IPC for @t, owned here, in state @st:
 *  release the record, then wake @t if it is blocked and holds a token.
 *  Returns whether it woke @t. */
static bool thread_wake_apply(struct owner o, struct thread *t, uint32_t st)
{
	if (!thread_wake_consume(t, st))
		return false;
	sched_wake_blocked(o, t);
	return true;
}

/**
 * TASK_IPC for @t reached this core: forward it to @t's owner, or
 * release the record and wake @t if it is blocked here with a token.
 * Owner first (acquire), then the state, as load_owned_here() does: a
 * core hands a thread over by storing its new owner (release) after its
 * state, so a thread seen owned here is seen in a state no older than
 * the hand-over, never in one it had on the core it left. Read the other
 * way round, RUNNING read while another core owned @t can be stale when
 * the owner then reads "here": @t blocked and moved here in between, a
 * second waker saw wake_inflight set and posted nothing, and the wake-up
 * was lost (issue 19, finding 2; test wake_reads_owner_first). IRQs
 * masked, on this core's drain or inline from thread_wake().
 */
void thread_wake_handle(struct owner o, struct thread *t)
{
	struct cpu *c = o.cpu;
	race_point(RACE_WAKE_ENTRY, t);
	unsigned owner = atomic_load_explicit(&t->cpu, memory_order_acquire);
	race_point(RACE_WAKE_READS, t);
	uint32_t st = atomic_load_explicit(&t->state, memory_order_acquire);
	/* The owner again: the slot may have been freed, filled and started
	 * on another core between the two reads (test
	 * wake_owner_after_reuse). */
	if (atomic_load_explicit(&t->cpu, memory_order_relaxed) != owner)
		owner = thread_owner_stable(t, &st);
	if (owner != c->id && st != T_FREE && st != T_EMBRYO) {
		c->stats.icc_forwarded++;
		icc_forward(owner, &t->wake_req);
		return;
	}
	thread_wake_apply(o, t, st);
}

bool thread_wake_take_own(struct owner o, struct thread *t)
{
	if (!mbox_take_only(&o.cpu->mbox, &t->wake_req.node))
		return false;
	/* thread_wake_apply(), except that @t is neither queued nor handed
	 * off: the caller switches to it at once. The record is embedded
	 * (pool_cpu 0xff): icc_complete() would only count it. */
	o.cpu->stats.icc_handled[ICC_TASK_IPC]++;
	atomic_exchange(&t->wake_inflight, 0);
	if (thread_state(t) != T_BLOCKED || !atomic_exchange(&t->wake_token, 0))
		return false;
	if (t->sleeping)
		sched_unsleep(o, t);
	return true;
}

/** Wake @t if parked (token semantics, see thread.c). Any core. */
void thread_wake(struct thread *t)
{
	uint64_t flags = arch_irq_save();
	thread_wake_owed(t);
	icc_flush();
	arch_irq_restore(flags);
}

/** The second half of thread_wake_owed(): post @t's record unless one
 *  is on its way already (it will see the token). */
static inline void thread_wake_post(struct thread *t)
{
	if (atomic_exchange(&t->wake_inflight, 1))
		return;
	icc_send(atomic_load_explicit(&t->cpu, memory_order_acquire),
		 &t->wake_req);
}

/** thread_wake_owed() with a race hook installed: the point between
 *  the two halves, out of line and reached by a tail call, so that the
 *  usual path needs no stack frame for the hook's call. */
static __attribute__((noinline, cold)) void
thread_wake_owed_hooked(race_hook_fn h, struct thread *t)
{
	h(RACE_WAKE_POST, t);
	thread_wake_post(t);
}

/** thread_wake() for callers that flush at their kernel exit (system
 *  calls): the IPI, if any, is only owed. IRQs masked. Race point
 *  RACE_WAKE_POST (a delay point) between the token and the claim of
 *  the record: the waker's half of the Dekker pair. */
void thread_wake_owed(struct thread *t)
{
	atomic_exchange(&t->wake_token, 1);
	race_hook_fn h = race_hook_now();
	if (unlikely(h)) {
		thread_wake_owed_hooked(h, t);
		return;
	}
	thread_wake_post(t);
}

int thread_unpark(tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	if (!t)
		return -FUL_ENOTHREAD;
	thread_wake(t);
	sched_preempt_point();
	return 0;
}

void thread_park(void)
{
	uint64_t flags = arch_irq_save();
	struct thread *t = this_cpu()->current;
	if (!atomic_exchange(&t->wake_token, 0)) {
		atomic_store_explicit(&t->state, T_BLOCKED,
				      memory_order_relaxed);
		schedule(owner_irq());
	}
	arch_irq_restore(flags);
}

/** Run a TASK_OUT/TASK_KILL on this core (the owner) without a record. */
static int thread_request_local(struct owner o, enum icc_kind kind,
				struct thread *t, unsigned dest)
{
	return kind == ICC_TASK_OUT ? thread_migrate_local(o, t, dest)
				    : thread_kill_local(o, t);
}

int thread_request(enum icc_kind kind, tid_t tid, unsigned dest, bool wait)
{
	if (kind != ICC_TASK_OUT && kind != ICC_TASK_KILL)
		return -FUL_EINVAL;
	if (kind == ICC_TASK_OUT && !cpu_is_online(dest))
		return -FUL_EINVAL;
	uint64_t flags;
	struct owner o = owner_enter(&flags);
	struct thread *t = thread_lookup(tid);
	int res = -FUL_ENOTHREAD;
	struct icc_req *r = NULL;
	if (t && atomic_load_explicit(&t->cpu, memory_order_acquire) ==
			 o.cpu->id) { /* the slot may hold a new thread */
		res = thread_still(t, tid)
			      ? thread_request_local(o, kind, t, dest)
			      : -FUL_ENOTHREAD;
	} else if (t && !(r = icc_req_alloc(kind))) {
		res = -FUL_EAGAIN;
	} else if (t) {
		r->tid = tid;
		r->dest = dest;
		r->decision = 0;
		r->flags = wait ? 0 : ICC_F_AUTOFREE;
		icc_post(atomic_load_explicit(&t->cpu, memory_order_acquire), r);
		res = 0;
	}
	icc_flush(); /* the local path may have handed a thread over too */
	arch_irq_restore(flags);
	sched_preempt_point();
	if (!r || !wait)
		return res;
	return icc_wait(r, 10000);
}
