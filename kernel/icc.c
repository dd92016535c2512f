/*
 * Inter-core mailbox protocol: request pools, posting, batched IPIs,
 * draining and dispatch. The protocol and its memory ordering are
 * described in docs/icc.md.
 */
#include "icc.h"
#include "lbevent.h"
#include "kernel.h"
#include "ktime.h"
#include "percpu.h"
#include "race.h"
#include "sched.h"
#include "thread.h"
#include "trace.h"

struct icc_req *icc_req_alloc(enum icc_kind kind)
{
	struct cpu *c = this_cpu();
	for (unsigned i = 0; i < ICC_POOL_SIZE; i++) {
		unsigned k = (c->pool_next + i) % ICC_POOL_SIZE;
		struct icc_req *r = &c->pool[k];
		if (atomic_load_explicit(&r->state, memory_order_acquire) ==
		    REQ_FREE) {
			atomic_store_explicit(&r->state, REQ_OWNED,
					      memory_order_relaxed);
			c->pool_next = k + 1;
			r->kind = (uint8_t)kind;
			r->flags = 0;
			r->pool_cpu = (uint8_t)c->id;
			return r;
		}
	}
	return NULL;
}

void icc_req_free(struct icc_req *r)
{
	atomic_store_explicit(&r->state, REQ_FREE, memory_order_release);
}

static inline void icc_push_now(struct cpu *self, unsigned cpu,
				struct icc_req *r)
{
	if (mbox_push(&cpus[cpu].mbox, &r->node))
		self->ipi_owed |= 1ull << cpu;
}

/** icc_push_from() with a race hook installed: the point, then the
 *  push. Out of line and reached by a tail call, so that the usual path
 *  of a post needs no stack frame for the hook's call. */
static __attribute__((noinline, cold)) void
icc_push_hooked(race_hook_fn h, struct cpu *self, unsigned cpu,
		struct icc_req *r)
{
	h(RACE_MBOX_PUSH, r);
	icc_push_now(self, cpu, r);
}

/** Push @r to @cpu's mailbox from @self, without counting it as a new
 *  request (posts and forwards). Race point RACE_MBOX_PUSH (a delay
 *  point): one load and a branch without a hook. */
static inline void icc_push_from(struct cpu *self, unsigned cpu,
				 struct icc_req *r)
{
	race_hook_fn h = race_hook_of(self);
	if (unlikely(h)) {
		icc_push_hooked(h, self, cpu, r);
		return;
	}
	icc_push_now(self, cpu, r);
}

void icc_forward(unsigned cpu, struct icc_req *r)
{
	icc_push_from(this_cpu(), cpu, r);
}

/** icc_post() from @self, inline for icc_send(). */
static inline void icc_post_from(struct cpu *self, unsigned cpu,
				 struct icc_req *r)
{
	self->stats.icc_posted[r->kind]++;
	atomic_store_explicit(&r->state, REQ_POSTED, memory_order_relaxed);
	trace_post(self, cpu, r);
	icc_push_from(self, cpu, r);
}

void icc_post(unsigned cpu, struct icc_req *r)
{
	icc_post_from(this_cpu(), cpu, r);
}

void icc_send(unsigned cpu, struct icc_req *r)
{
	struct cpu *self = this_cpu();
	if (cpu != self->id) {
		icc_post_from(self, cpu, r);
		return;
	}
	self->stats.icc_posted[r->kind]++;
	atomic_store_explicit(&r->state, REQ_POSTED, memory_order_relaxed);
	icc_handle(r);
}

/** The IPIs @c owes, sent: the books first, then the SGI as a tail call
 *  (IRQs masked: nothing can owe more meanwhile). */
static inline void icc_send_owed(struct cpu *c)
{
	uint64_t owed = c->ipi_owed;
	trace_sgi_send(c, owed);
	c->ipi_owed = 0;
	c->stats.ipi_out++;
	arch_send_ipi(owed, IPI_ICC);
}

/** icc_flush_owed() with a balancer event owed: out of line, so that
 *  the usual flush needs no stack frame. */
static __attribute__((noinline, cold)) void icc_flush_lbe(struct cpu *c)
{
	c->lbe_owed = false;
	lbe_fire(c, FUL_LBE_WAKE); /* may owe IPIs in turn */
	if (c->ipi_owed)
		icc_send_owed(c);
}

void icc_flush_owed(struct cpu *c)
{
	if (unlikely(c->lbe_owed)) {
		icc_flush_lbe(c);
		return;
	}
	icc_send_owed(c);
}

void icc_complete(struct icc_req *r, int result)
{
	struct cpu *c = this_cpu();
	c->stats.icc_handled[r->kind]++;
	if (r->pool_cpu == 0xff)
		return; /* embedded record: nobody waits on it */
	r->result = result;
	if (r->flags & ICC_F_AUTOFREE) {
		atomic_store_explicit(&r->state, REQ_FREE,
				      memory_order_release);
		return;
	}
	/* Its waiter may have given up (icc_wait): then nobody will free
	 * it but us. */
	uint32_t prev = atomic_exchange_explicit(&r->state, REQ_DONE,
						 memory_order_acq_rel);
	if (prev == REQ_ABANDONED)
		icc_req_free(r);
}

/** A request about thread @r->tid reached this core. If the thread has
 *  moved on, pass the request to its owner; returns the thread if this
 *  core owns it, else NULL (the request was forwarded or completed). */
static struct thread *icc_owned_target(struct icc_req *r)
{
	struct cpu *c = this_cpu();
	struct thread *t = thread_lookup(r->tid);
	if (!t) {
		icc_complete(r, -FUL_ENOTHREAD);
		return NULL;
	}
	unsigned owner = atomic_load_explicit(&t->cpu, memory_order_acquire);
	if (owner != c->id) {
		c->stats.icc_forwarded++;
		icc_push_from(c, owner, r);
		return NULL;
	}
	/* Owned here now, but maybe by another thread than the one looked
	 * up: its slot may have been reused for a thread of this core. */
	if (!thread_still(t, r->tid)) {
		icc_complete(r, -FUL_ENOTHREAD);
		return NULL;
	}
	return t;
}

void icc_handle(struct icc_req *r)
{
	struct owner o = owner_irq();
	struct thread *t;

	trace_accept(o.cpu, r);
	switch (r->kind) {
	case ICC_TASK_IN:
		thread_accept(o, container_of(r, struct thread, mig_req));
		icc_complete(r, 0);
		break;
	case ICC_TASK_OUT:
		if ((t = icc_owned_target(r))) {
			o.cpu->trace_dec = r->decision; /* for its trace */
			icc_complete(r, thread_migrate_local(o, t, r->dest));
			o.cpu->trace_dec = 0;
		}
		break;
	case ICC_TASK_KILL:
		if ((t = icc_owned_target(r)))
			icc_complete(r, thread_kill_local(o, t));
		break;
	case ICC_CALL_FUNC:
		r->fn(r->arg);
		icc_complete(r, 0);
		break;
	case ICC_TASK_IPC:
		thread_wake_handle(o, container_of(r, struct thread, wake_req));
		break;
	default:
		panic("icc: bad request kind %u", r->kind);
	}
}

/** Take this core's mailbox and handle each request, oldest first,
 *  after race point RACE_MBOX_DRAIN (a delay point) when @hooked. */
static inline void icc_drain_list(struct cpu *c, bool hooked)
{
	struct mbox_node *n = mbox_take_all(&c->mbox);
	while (n) {
		struct mbox_node *next = n->next; /* handlers may re-push n */
		struct icc_req *r = container_of(n, struct icc_req, node);
		if (hooked)
			race_point(RACE_MBOX_DRAIN, r);
		icc_handle(r);
		n = next;
	}
}

/** icc_drain() with a race hook installed: out of line, so that the
 *  usual drain pays one load and a branch for its race point. */
static __attribute__((noinline, cold)) void icc_drain_hooked(struct cpu *c)
{
	icc_drain_list(c, true);
}

void icc_drain(void)
{
	struct cpu *c = this_cpu();
	if (unlikely(race_hook_of(c)))
		icc_drain_hooked(c);
	else
		icc_drain_list(c, false);
}

/** Hand @r over to its handler (POSTED -> ABANDONED). False if it was
 *  completed first: then it is DONE and still ours. */
static bool icc_abandon(struct icc_req *r)
{
	uint32_t posted = REQ_POSTED;
	return atomic_compare_exchange_strong_explicit(
		&r->state, &posted, REQ_ABANDONED, memory_order_acq_rel,
		memory_order_acquire);
}

/** icc_wait(), copying @size bytes of the record's CALL_FUNC data to
 *  @out once it is DONE (not if the wait times out). */
static int icc_wait_out(struct icc_req *r, uint64_t timeout_ms, void *out,
			size_t size)
{
	uint64_t deadline = ktime_deadline(arch_counter(),
					   ms_to_ticks(timeout_ms));
	/* With IRQs masked (a system call), keep serving this core's own
	 * mailbox: the request may have been forwarded back here, to the
	 * thread's new owner, and nobody else will handle it. */
	bool serve = !arch_irq_enabled();
	while (atomic_load_explicit(&r->state, memory_order_acquire) !=
	       REQ_DONE) {
		if (arch_counter() > deadline && icc_abandon(r))
			return -FUL_ETIMEOUT;
		if (serve && !mbox_empty(&this_cpu()->mbox)) {
			icc_drain();
			icc_flush();
		}
		arch_cpu_relax();
	}
	int res = r->result;
	if (size)
		memcpy(out, r->data, size);
	icc_req_free(r);
	return res;
}

int icc_wait(struct icc_req *r, uint64_t timeout_ms)
{
	return icc_wait_out(r, timeout_ms, NULL, 0);
}

uint64_t icc_call_timeout_ms = 10000;

/** Run @fn on @cpu with @arg as is (@size 0) or with a copy of @size
 *  bytes at @arg held in the record (see icc.h), and wait. */
static int icc_call(unsigned cpu, void (*fn)(void *), void *arg, size_t size)
{
	if (!cpu_is_online(cpu))
		return -FUL_EINVAL;
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (!r) {
		arch_irq_restore(flags);
		return -FUL_EAGAIN;
	}
	r->fn = fn;
	r->arg = size ? (void *)r->data : arg;
	if (size)
		memcpy(r->data, arg, size);
	icc_send(cpu, r);
	icc_flush();
	arch_irq_restore(flags);
	return icc_wait_out(r, icc_call_timeout_ms, arg, size);
}

int icc_call_sync(unsigned cpu, void (*fn)(void *), void *arg)
{
	uint64_t flags = arch_irq_save();
	uintptr_t stack = this_cpu()->current->kstack;
	arch_irq_restore(flags);
	/* An abandoned record would leave its handler a pointer into a
	 * stack frame that is gone (issue 19, finding 4). */
	if (stack && (uintptr_t)arg - stack < KSTACK_SIZE)
		panic("icc_call_sync(%p): argument on the caller's stack, "
		      "use icc_call_copy", (void *)fn);
	return icc_call(cpu, fn, arg, 0);
}

int icc_call_copy(unsigned cpu, void (*fn)(void *), void *arg, size_t size)
{
	if (!size || size > ICC_CALL_DATA)
		return -FUL_EINVAL;
	return icc_call(cpu, fn, arg, size);
}

int icc_signal(unsigned cpu, int ipi_kind)
{
	if (!cpu_is_online(cpu)) /* 1u << cpu: no core, or undefined */
		return -FUL_EINVAL;
	uint64_t flags = arch_irq_save();
	this_cpu()->stats.ipi_out++;
	arch_send_ipi(1ull << cpu, (enum ipi_kind)ipi_kind);
	arch_irq_restore(flags);
	return 0;
}
