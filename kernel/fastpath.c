/*
 * The IPC fastpath: FUL_SYS_CALL and FUL_SYS_REPLY_RECV to a partner
 * that waits for the message, on this core or another.
 *
 * Taken only when all of this holds, checked in one sequence before
 * anything changes (otherwise the call runs the generic path in
 * syscall.c/endpoint.c as if the fastpath did not exist):
 *   - no reserved info bits, a length that fits the IPC buffer (a
 *     non-zero length needs the caller's buffer and the partner's);
 *     the timeout is "forever";
 *   - the capability, read without the vspace lock (cap_read_unlocked:
 *     the table's sequence count), is an endpoint with the right;
 *   - under the endpoint's lock the table's sequence is still the one
 *     read (so the capability was still there once the lock was held:
 *     the endpoint cannot have been orphaned, destroyed or reused), the
 *     endpoint is alive, and (call) a receiver waits or (reply-recv) no
 *     sender waits and the caller still waits for this reply;
 *   - a partner owned by this core is BLOCKED, not on the sleepers
 *     list, blocked where its continuation is only "fill x0..x6 and
 *     return" (t->fp_uregs), and no ready thread outranks it; no switch
 *     is pending on this core. A partner another core owns is completed
 *     here and woken by the generic wake-up (FP_REMOTE).
 * Then the partner's wait is claimed (dequeue, or CAS of the reply
 * state), the message goes straight into its user frame, and the core
 * switches to it at EL0 (sched_fastpath_switch): its kernel stack is
 * abandoned, as when a blocked thread is killed. The caller blocks with
 * fp_uregs set, so the next fastpath can resume it the same way; if the
 * generic path completes it instead, it resumes below, in C.
 *
 * Why no lock and no reference for the capability: a slot's content is
 * read consistently or not at all (sequence count, odd while written).
 * The endpoint pointer may be stale by the time its lock is taken, but
 * endpoints live in a static table whose locks are never re-initialised,
 * so taking it is harmless; once taken, an unchanged sequence means the
 * slot still held the capability, the endpoint had a capability and so
 * had not been orphaned (orphaning takes the same lock after the slot's
 * write, whose sequence bump this core would then see), destroyed or
 * reused. Everything after that happens under the lock or on this core
 * with IRQs masked. docs/ipc.md "Why the capability needs no lock and no
 * reference" has the argument.
 */
#include "endpoint.h"
#include "fastpath.h"
#include "ipc.h"
#include "ipcq.h"
#include "kernel.h"
#include "ntfn.h"
#include "sched.h"
#include "syscall.h"
#include "trace.h"

bool fastpath_on = true; /* [I] boot argument fastpath=0 turns it off */

/** Copy slot @slot of @vs without its lock. false if a writer was busy
 *  (then the caller takes the generic path); *@seq: the sequence the
 *  copy is consistent with. IRQs masked. */
static inline bool cap_read_unlocked(struct vspace *vs, uint64_t slot,
				     struct cap *out, uint32_t *seq)
{
	uint32_t s = atomic_load_explicit(&vs->cap_seq, memory_order_acquire);
	const volatile struct cap *p = &vs->slots[slot];
	out->type = p->type;
	out->rights = p->rights;
	out->data = p->data;
	out->obj = p->obj;
	atomic_thread_fence(memory_order_acquire);
	*seq = s;
	return !(s & 1) &&
	       atomic_load_explicit(&vs->cap_seq, memory_order_relaxed) == s;
}

/** Is @info a message the fastpath carries (no reserved bits, a length
 *  that fits @t's IPC buffer, which it has if the length is not 0) and
 *  @timeout forever? */
static inline bool fp_msg_ok(const struct thread *t, uint64_t info,
			     uint64_t timeout)
{
	return !(info & ~(0xffffffffull << 16 | 0x3ffull)) &&
	       FUL_MSG_LEN(info) <= FUL_IPCBUF_SIZE &&
	       (t->ipcbuf || !FUL_MSG_LEN(info)) &&
	       ipc_timeout_forever(timeout);
}

/** The object of capability @slot of @t if it has @type and @rights,
 *  read without the vspace lock; its badge and the table's sequence the
 *  copy is consistent with (for fp_cap_still). NULL if not plainly so. */
static inline void *fp_cap(struct vspace *vs, uint64_t slot, unsigned type,
			   unsigned rights, uint64_t *badge, uint32_t *seq)
{
	if (slot - 1 >= FUL_CSLOTS - 1) /* slot 0 and out of range */
		return NULL;
	struct cap c;
	if (!cap_read_unlocked(vs, slot, &c, seq) || c.type != type ||
	    (c.rights & rights) != rights)
		return NULL;
	*badge = c.data;
	return c.obj;
}

/** With the object's lock held: was the capability still in its slot
 *  (the table unchanged since fp_cap)? Then the object is alive. */
static inline bool fp_cap_still(struct vspace *vs, uint32_t seq)
{
	return atomic_load_explicit(&vs->cap_seq, memory_order_relaxed) == seq;
}

/** Look up endpoint capability @slot of @t with @rights and lock the
 *  endpoint; NULL (nothing held) if that is not plainly possible. */
static inline struct endpoint *fp_ep_lock(struct thread *t, uint64_t slot,
					  unsigned rights, uint64_t *badge)
{
	uint32_t seq;
	struct vspace *vs = t->vs;
	struct endpoint *ep = fp_cap(vs, slot, FUL_CAP_ENDPOINT, rights, badge,
				     &seq);
	if (!ep)
		return NULL;
	spin_lock_raw(&ep->lock);
	if (!fp_cap_still(vs, seq) || ep->dead) {
		spin_unlock_raw(&ep->lock);
		return NULL;
	}
	return ep;
}

enum fp_partner {
	FP_NO,     /* the generic path handles it */
	FP_HERE,   /* switch to it at EL0 from its frame */
	FP_REMOTE, /* another core owns it: complete and wake it */
};

/** How may @p, which the caller found waiting for its message, be
 *  completed from this core? Remote partners take the generic wake-up
 *  (their continuation is the generic one); a local one must be
 *  resumable from its frame and outrank every ready thread. A partner
 *  without an IPC buffer cannot take a buffer message (the generic path
 *  truncates it). Owner, IRQs masked. */
/** Is @p, owned by this core, blocked without a timeout in a wait the
 *  fastpath may complete for it (t->fp_uregs)? Owner, IRQs masked. */
static inline bool fp_resumable(const struct thread *p)
{
	return atomic_load_explicit(&p->state, memory_order_relaxed) ==
		       T_BLOCKED &&
	       p->fp_uregs && !p->sleeping;
}

static inline enum fp_partner fp_partner(struct cpu *c, struct thread *p,
					 uint64_t info)
{
	if (FUL_MSG_LEN(info) && !p->ipcbuf)
		return FP_NO;
	if (atomic_load_explicit(&p->cpu, memory_order_acquire) != c->id)
		return FP_REMOTE;
	return fp_resumable(p) && rq_top_prio(&c->rq) <= (int)p->prio
		       ? FP_HERE
		       : FP_NO;
}

/** Put the message in @u (info x1, MRs x2..x5) with @badge into claimed
 *  @p: the IPC buffer, then its frame (@here: x0..x6 as its syscall exit
 *  would write them; its wait word is already NONE) or its ipc_msg (its
 *  own continuation returns it).
 *  Takes no lock: callable under the endpoint's. Before the sender can
 *  be seen waiting anywhere (its buffer is read here). */
static inline void fp_deliver(struct thread *t, struct thread *p,
			      uint64_t badge, uint64_t info,
			      const struct arch_uregs *u, bool here)
{
	if (FUL_MSG_LEN(info))
		memcpy((void *)p->ipcbuf, (const void *)t->ipcbuf,
		       FUL_MSG_LEN(info));
	if (!here) {
		p->ipc_msg = (struct ipc_msg){.badge = badge, .info = info,
					      .mr = {ARG(2), ARG(3), ARG(4),
						     ARG(5)}};
		return;
	}
	struct arch_uregs *pu = p->fp_uregs;
	p->fp_uregs = NULL;
	arch_uregs_set(pu, 0, 0);
	arch_uregs_set(pu, 1, badge);
	arch_uregs_set(pu, 2, ARG(2));
	arch_uregs_set(pu, 3, ARG(3));
	arch_uregs_set(pu, 4, ARG(4));
	arch_uregs_set(pu, 5, ARG(5));
	arch_uregs_set(pu, 6, info);
}

/** After fp_deliver, with no lock held: complete a remote @p's wait
 *  (its wake-up leaves at this core's kernel exit), or drop what a
 *  local @p's call held (it never returns to its syscall's exit). */
static inline void fp_release(struct thread *p, bool here)
{
	if (!here) {
		ipc_complete(p, 0, true);
		return;
	}
	struct kobj *hold = p->sys_hold;
	p->sys_hold = NULL;
	if (hold)
		obj_put(hold);
}

/** @t, blocked by the fastpath, runs again: resumed by the generic path
 *  (a fastpath resumes it at EL0 instead). Its wait's result, and its
 *  message in @u. */
static int64_t __attribute__((noinline)) fp_resumed(struct thread *t,
						    struct arch_uregs *u)
{
	int err = ipc_wait(t, ~0ull);
	t->fp_uregs = NULL;
	if (!err)
		sys_msg_out(u, &t->ipc_msg);
	return err;
}

enum fp_wait {
	FPW_AGAIN,    /* ipc_wait() (fp_resumed) sorts it out */
	FPW_DONE,     /* done before @t blocked: return as usual */
	FPW_IN_PLACE, /* done while the core idled in place: nothing pending */
};

/** The first round of ipc_wait() for @t, the current thread, waiting
 *  forever for a partner on another core: block, and if the core idles
 *  in place until @t's own wake-up (sched_block_wait), see its wait
 *  done. FPW_AGAIN for anything else, which ipc_wait() then sorts out
 *  from the start, as if it had run from the beginning. Owner, IRQs
 *  masked. */
static inline __attribute__((always_inline)) enum fp_wait
fp_wait_remote(struct cpu *c, struct thread *t)
{
	uint64_t st = atomic_load_explicit(&t->ipc_state,
					   memory_order_acquire);
	if (IPC_WAIT(st) == IPC_DONE)
		return FPW_DONE;
	/* ipc_wait()'s "look again" cases are its own */
	if (IPC_WAIT(st) == IPC_CLAIMED || atomic_exchange(&t->wake_token, 0))
		return FPW_AGAIN;
	atomic_store_explicit(&t->state, T_BLOCKED, memory_order_relaxed);
	if (!sched_block_wait((struct owner){c}, t) ||
	    IPC_WAIT(atomic_load_explicit(&t->ipc_state,
					  memory_order_acquire)) != IPC_DONE)
		return FPW_AGAIN;
	return FPW_IN_PLACE;
}

/** @t's wait is DONE (fp_wait_remote): end it as ipc_wait() does and
 *  return its result, its message in @u, as fp_resumed() would. */
static inline __attribute__((always_inline)) int64_t
fp_done(struct thread *t, struct arch_uregs *u)
{
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, IPC_NONE),
			      memory_order_relaxed);
	t->fp_uregs = NULL;
	int err = t->ipc_result;
	if (!err)
		sys_msg_out(u, &t->ipc_msg);
	return err;
}

/** The current thread @t, now waiting (reply or receive, forever),
 *  blocks: with @p set, handing the core to it at EL0. Returns when @t
 *  is resumed by the generic path (fp_resumed), or with its wait done
 *  before it blocked (fp_done). If a partner on another core answered
 *  while this core idled in place, @t leaves for EL0 from its frame @u
 *  at once: its syscall exit (irq_exit) has nothing to do then (no
 *  switch pending, no IPI owed: sched_block_wait), and nothing on this
 *  kernel stack is needed any more. */
static inline __attribute__((always_inline)) int64_t
fp_block(struct cpu *c, struct thread *t, struct thread *p,
	 struct arch_uregs *u)
{
	t->fp_uregs = u;
	if (p) {
		struct owner o = {c}; /* IRQs masked: this core's */
		atomic_store_explicit(&t->state, T_BLOCKED,
				      memory_order_relaxed);
		sched_finish_switch(sched_fastpath_switch(o, p));
		return fp_resumed(t, u);
	}
	enum fp_wait w = fp_wait_remote(c, t);
	if (w == FPW_AGAIN)
		return fp_resumed(t, u);
	int64_t r = fp_done(t, u);
	if (w == FPW_IN_PLACE) {
		arch_uregs_set(u, 0, (uint64_t)r);
		arch_user_enter(u);
	}
	return r;
}

/** Is this core free of reasons to leave the switch to the scheduler? */
static inline bool fp_core_ok(struct cpu *c)
{
	return !c->need_resched &&
	       !atomic_load_explicit(&c->parked, memory_order_relaxed);
}

static inline __attribute__((always_inline)) int64_t
fp_call(struct cpu *c, struct thread *t, struct arch_uregs *u)
{
	uint64_t badge, info = ARG(1);
	if (!fp_msg_ok(t, info, ARG(6)) || !fp_core_ok(c))
		return FASTPATH_MISS;
	struct endpoint *ep = fp_ep_lock(t, ARG(0), FUL_R_WRITE, &badge);
	if (!ep)
		return FASTPATH_MISS;
	struct thread *r = ipc_queue_empty(&ep->recvq)
				   ? NULL
				   : container_of(ep->recvq.head.next,
						  struct thread, ipc_link);
	enum fp_partner how = r && !r->reply_to ? fp_partner(c, r, info)
						: FP_NO;
	if (how == FP_NO) {
		spin_unlock_raw(&ep->lock);
		return FASTPATH_MISS;
	}
	/* Claimed: off the queue (a canceller that looked before now takes
	 * the lock, then finds it no longer queued). */
	ipc_unlink(r);
	/* A local partner's wait ends here (it never runs ipc_wait again);
	 * a remote one is CLAIMED until fp_release completes it. */
	atomic_store_explicit(&r->ipc_state,
			      IPC_STATE(r->ipc_seq, how == FP_HERE ? IPC_NONE
								 : IPC_CLAIMED),
			      memory_order_relaxed);
	spin_unlock_raw(&ep->lock);
	t->ipc_seq++;
	r->reply_to = REPLY_TOKEN(atomic_load_explicit(&t->tid,
						       memory_order_relaxed),
				  t->ipc_seq);
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, IPC_REPLY),
			      memory_order_relaxed);
	trace_fcall(c, t, r, info);
	fp_deliver(t, r, badge, info, u, how == FP_HERE);
	fp_release(r, how == FP_HERE);
	return fp_block(c, t, how == FP_HERE ? r : NULL, u);
}

static inline __attribute__((always_inline)) int64_t
fp_reply_recv(struct cpu *c, struct thread *t, struct arch_uregs *u)
{
	uint64_t badge, info = ARG(1), token = t->reply_to;
	if (!token || !fp_msg_ok(t, info, ARG(6)) || !fp_core_ok(c))
		return FASTPATH_MISS;
	/* The caller's slot, not checked by tid: the CAS below on its wait
	 * word with the token's sequence, which a slot's next occupant
	 * continues (ipc_seq survives slot reuse), is what identifies it;
	 * the checks before it read whoever is there and change nothing. */
	unsigned slot = TID_SLOT((tid_t)(token >> 32));
	if (slot >= MAX_THREADS)
		return FASTPATH_MISS;
	struct thread *p = &threads[slot];
	enum fp_partner how = fp_partner(c, p, info);
	if (how == FP_NO)
		return FASTPATH_MISS;
	struct endpoint *ep = fp_ep_lock(t, ARG(0), FUL_R_READ, &badge);
	if (!ep)
		return FASTPATH_MISS;
	uint64_t expect = IPC_STATE(token, IPC_REPLY);
	if (!ipc_queue_empty(&ep->sendq) ||
	    !atomic_compare_exchange_strong(
		    &p->ipc_state, &expect,
		    IPC_STATE(token, how == FP_HERE ? IPC_NONE : IPC_CLAIMED))) {
		spin_unlock_raw(&ep->lock);
		return FASTPATH_MISS;
	}
	/* The caller is ours. Its reply is copied before we queue as a
	 * receiver: once queued, a sender on another core may write our
	 * IPC buffer. We then wait on the endpoint; unlike the generic
	 * receive we hold no reference on it: nothing after our wait
	 * touches it, an orphaning dequeues us before it can be destroyed,
	 * and a canceller takes its lock, which stays valid (endpoint.h). */
	fp_deliver(t, p, 0, info, u, how == FP_HERE);
	trace_freply(c, t, p, info);
	t->reply_to = 0;
	ipc_enqueue(t, &ep->recvq, &ep->lock, IPC_RECV);
	spin_unlock_raw(&ep->lock);
	fp_release(p, how == FP_HERE);
	return fp_block(c, t, how == FP_HERE ? p : NULL, u);
}

/**
 * NTFN_SIGNAL: bits for a notification with no waiter are ORed in (as
 * ntfn_signal does); a first waiter that this core owns, blocked forever
 * in a resumable wait, of a priority above the signaller's and every
 * ready thread's (and no hand-off pending) gets the bits in its x1 and
 * the core at once, the signaller queued as preempted. Anything else is
 * the generic path's.
 */
static inline __attribute__((always_inline)) int64_t
fp_signal(struct cpu *c, struct thread *t, struct arch_uregs *u)
{
	uint64_t badge;
	uint32_t seq;
	if (!fp_core_ok(c) || c->handoff)
		return FASTPATH_MISS;
	struct vspace *vs = t->vs;
	struct ntfn *n = fp_cap(vs, ARG(0), FUL_CAP_NTFN, FUL_R_WRITE, &badge,
				&seq);
	uint64_t bits = ARG(1) | badge;
	if (!n || !bits)
		return FASTPATH_MISS;
	spin_lock_raw(&n->lock);
	if (!fp_cap_still(vs, seq) || n->dead) {
		spin_unlock_raw(&n->lock);
		return FASTPATH_MISS;
	}
	if (ipc_queue_empty(&n->waiters)) {
		n->word |= bits;
		spin_unlock_raw(&n->lock);
		return 0;
	}
	struct thread *w = container_of(n->waiters.head.next, struct thread,
					ipc_link);
	if (atomic_load_explicit(&w->cpu, memory_order_acquire) != c->id ||
	    !fp_resumable(w) || w->prio <= t->prio ||
	    rq_top_prio(&c->rq) >= (int)w->prio) {
		spin_unlock_raw(&n->lock);
		return FASTPATH_MISS;
	}
	ipc_unlink(w);
	atomic_store_explicit(&w->ipc_state, IPC_STATE(w->ipc_seq, IPC_NONE),
			      memory_order_relaxed);
	spin_unlock_raw(&n->lock);
	struct arch_uregs *wu = w->fp_uregs;
	w->fp_uregs = NULL;
	arch_uregs_set(wu, 0, 0);
	arch_uregs_set(wu, 1, bits);
	fp_release(w, true);
	struct owner o = {c};
	sched_finish_switch(sched_fastpath_preempt(o, w));
	return 0; /* scheduled again: the signal's result */
}

/** Finish a system call the fastpath may have taken: its result in
 *  x0 and the common kernel exit, or the generic path if it missed. */
static inline __attribute__((always_inline)) void
fp_exit(struct arch_uregs *u, int64_t r)
{
	if (r == FASTPATH_MISS) {
		syscall_entry(u);
		return;
	}
	arch_uregs_set(u, 0, (uint64_t)r);
	irq_exit();
}

void fastpath_svc_call(struct arch_uregs *u)
{
	struct cpu *c = this_cpu();
	fp_exit(u, fastpath_on ? fp_call(c, c->current, u) : FASTPATH_MISS);
}

void fastpath_svc_reply_recv(struct arch_uregs *u)
{
	struct cpu *c = this_cpu();
	fp_exit(u, fastpath_on ? fp_reply_recv(c, c->current, u)
			       : FASTPATH_MISS);
}

void fastpath_svc_signal(struct arch_uregs *u)
{
	struct cpu *c = this_cpu();
	fp_exit(u, fastpath_on ? fp_signal(c, c->current, u) : FASTPATH_MISS);
}
