/*
 * Thread objects: slots, creation, the owner-core state machine behind
 * migration and kill, and park/unpark (the cross-core wake path).
 *
 * Ownership: t->cpu names the one core allowed to change t's scheduling
 * state. It changes only in thread_migrate_local(), run by the owner,
 * which stores the destination (release) before handing the thread over
 * with a TASK_IN record; the destination owns it from that store on, even
 * while the record is in flight (state T_MIGRATING). A request that
 * reaches a core no longer owning the thread is forwarded to t->cpu; one
 * that reaches the new owner before the TASK_IN record is deferred in
 * kill_pending / pending_dest and applied on arrival.
 *
 * Wake-ups (TASK_IPC) use a record embedded in the slot, wake_req, posted
 * only by whoever flips wake_inflight from 0 to 1, so it is on at most one
 * mailbox. It and the token survive slot reuse: a late wake-up of a dead
 * thread reaches the slot's next occupant as a spurious wake-up, which
 * every blocking loop tolerates (they re-check their condition).
 */
#include <fulcrum/weight.h>

#include "thread.h"
#include "kernel.h"
#include "kport.h"
#include "ktime.h"
#include "load.h"
#include "page.h"
#include "race.h"
#include "sched.h"
#include "trace.h"

struct thread threads[MAX_THREADS];
static struct thread idle_threads[MAX_CPUS];
static _Atomic uint32_t alloc_hint;

/** The weight of @nice: Linux CFS's sched_prio_to_weight table
 *  (<fulcrum/weight.h>, shared with the user-level policies). */
uint32_t nice_to_weight(int nice)
{
	return ful_weight_of_nice(nice);
}

uint32_t slice_ticks_of(uint32_t slice_ms, uint32_t weight)
{
	/* ticks = slice_ms * weight / 1024 ms at SCHED_HZ, rounded, at
	 * least 1 and at most the longest slice (FUL max 10000 ms) */
	uint64_t t = ((uint64_t)slice_ms * SCHED_HZ * weight + 512000) /
		     (1000 * 1024);
	uint64_t max = 10000ull * SCHED_HZ / 1000;
	return (uint32_t)(t < 1 ? 1 : t > max ? max : t);
}

void thread_init(void)
{
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[i];
		t->tid = i;
		t->mig_req.kind = ICC_TASK_IN;
		t->mig_req.pool_cpu = 0xff;
		t->wake_req.kind = ICC_TASK_IPC;
		t->wake_req.pool_cpu = 0xff;
	}
}

struct thread *thread_init_idle(unsigned cpu)
{
	struct thread *t = &idle_threads[cpu];
	t->state = T_RUNNING;
	t->cpu = cpu;
	t->on_cpu = 1;
	t->prio = 0;
	t->weight = nice_to_weight(0);
	t->win_idx = ~0ull; /* no record: never rolled (load_win_enter) */
	ksnprintf(t->name, sizeof(t->name), "idle%u", cpu);
	return t;
}

static struct thread *thread_alloc(void)
{
	uint32_t hint = atomic_load_explicit(&alloc_hint, memory_order_relaxed);
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[(hint + i) % MAX_THREADS];
		uint32_t expect = T_FREE;
		if (atomic_compare_exchange_strong(&t->state, &expect,
						   T_EMBRYO)) {
			atomic_store_explicit(&alloc_hint, hint + i + 1,
					      memory_order_relaxed);
			return t;
		}
	}
	return NULL;
}

static bool thread_attr_valid(const struct thread_attr *a)
{
	return a->prio <= 255 && a->slice_ms >= 1 && a->slice_ms <= 10000 &&
	       a->nice >= -20 && a->nice <= 19 && cpu_is_online(a->cpu);
}

/** Fill a freshly allocated slot. Leaves wake_req/wake_inflight alone. */
static void thread_setup(struct thread *t, const struct thread_attr *a,
			 void (*fn)(void *), void *arg)
{
	tid_t old = atomic_load_explicit(&t->tid, memory_order_relaxed);
	unsigned slot = (unsigned)(t - threads);
	atomic_store_explicit(&t->tid,
			      ((old >> TID_SLOT_BITS) + 1) << TID_SLOT_BITS | slot,
			      memory_order_relaxed);
	t->prio = (uint8_t)a->prio;
	t->nice = (int8_t)a->nice;
	t->weight = nice_to_weight(a->nice);
	t->slice_ms = a->slice_ms;
	t->slice_ticks = slice_ticks_of(a->slice_ms, t->weight);
	t->slice_left = t->slice_ticks;
	t->runtime = 0;
	t->win_idx = t->win_base = t->win_last = 0;
	t->migrations = 0;
	atomic_store_explicit(&t->irq_bound, 0, memory_order_relaxed);
	t->affinity = ~0ull;
	t->lrec = &load_area.thread[slot];
	t->load_counted = false;
	t->blocked_counted = false;
	t->kill_pending = false;
	t->yielding = false;
	t->pending_dest = -1;
	atomic_store_explicit(&t->wake_token, 0, memory_order_relaxed);
	atomic_store_explicit(&t->blocked_on, NULL, memory_order_relaxed);
	t->fn = fn;
	t->arg = arg;
	t->vs = NULL;
	t->ipcbuf = 0;
	t->ipcbuf_frame = NULL;
	t->pool = NULL;
	t->sys_hold = NULL;
	t->fp_uregs = NULL;
	t->reply_to = 0;
	atomic_store_explicit(&t->ipc_state, IPC_STATE(t->ipc_seq, IPC_NONE),
			      memory_order_relaxed);
	ksnprintf(t->name, sizeof(t->name), "%s", a->name ? a->name : "thread");
}

struct thread *thread_create_inactive(const struct thread_attr *a,
				      void (*fn)(void *), void *arg,
				      unsigned stack_top_off, int *err)
{
	*err = -FUL_EINVAL;
	if (!thread_attr_valid(a) || stack_top_off >= KSTACK_SIZE / 2)
		return NULL;
	*err = -FUL_ENOMEM;
	struct thread *t = thread_alloc();
	if (!t)
		return NULL;
	if (!t->kstack) {
		void *stack = page_alloc(KSTACK_SIZE / PAGE_SIZE);
		if (!stack) {
			atomic_store(&t->state, T_FREE);
			return NULL;
		}
		t->kstack = (uintptr_t)stack;
	}
	thread_setup(t, a, fn, arg);
	arch_context_init(&t->ctx, t->kstack + KSTACK_SIZE - stack_top_off,
			  fn, arg);
	atomic_store_explicit(&t->cpu, a->cpu, memory_order_relaxed);
	*err = 0;
	return t;
}

/**
 * One writer per thread record: the load record of a thread (and its
 * sequence counter) is written by its creator only here, while the slot
 * is still EMBRYO and no core can name the thread, then only by its
 * owner core, IRQs masked (a move publishes the new core before the new
 * owner sees the thread). Two cores incrementing the same plain counter
 * could leave it odd, and every reader would retry forever. So the
 * creator finishes @t (task, IPC buffer: the kernel flag depends on
 * them) before it publishes it.
 */
void thread_publish(struct thread *t)
{
	load_thread_static(t, atomic_load_explicit(&t->cpu,
						   memory_order_relaxed));
	lthread_state(t, FUL_TS_INACTIVE);
	trace_create(this_cpu(), t);
	atomic_store_explicit(&t->state, T_INACTIVE, memory_order_release);
}

/**
 * Claim INACTIVE @t for a start, if it still is thread @tid. Between a
 * caller's lookup of @tid and this claim, the thread may have been
 * killed and its slot reused by another INACTIVE thread: a CAS on the
 * state alone cannot tell the two apart. So the state goes INACTIVE ->
 * STARTING first, which pins the occupant (its owner, the only core
 * that frees an INACTIVE thread, waits while it is STARTING), and the
 * id is checked after the claim; a wrong claim is given back at once.
 * 0, -FUL_ESTATE or -FUL_EDEAD. IRQs masked: the claim lasts a few
 * instructions.
 */
static int thread_claim_start(struct thread *t, tid_t tid)
{
	uint32_t st = T_INACTIVE;
	while (!atomic_compare_exchange_strong(&t->state, &st, T_STARTING)) {
		if (st != T_STARTING) /* another start won, or a kill */
			return atomic_load(&t->tid) == tid ? -FUL_ESTATE
							   : -FUL_EDEAD;
		arch_cpu_relax(); /* another start is checking its id */
		st = T_INACTIVE;
	}
	/* The CAS read the INACTIVE its creator stored (release) after the
	 * tid: this is the occupant's tid. */
	if (atomic_load_explicit(&t->tid, memory_order_relaxed) != tid) {
		atomic_store_explicit(&t->state, T_INACTIVE,
				      memory_order_release);
		return -FUL_EDEAD;
	}
	return 0;
}

int thread_activate(struct thread *t, tid_t tid)
{
	uint64_t flags;
	struct owner o = owner_enter(&flags);
	int err = thread_claim_start(t, tid);
	if (err) {
		arch_irq_restore(flags);
		return err;
	}
	/* STARTING -> MIGRATING: the thread is on its way to its owner.
	 * The record is not written here: this core need not be the
	 * owner (thread_publish). */
	atomic_store_explicit(&t->state, T_MIGRATING, memory_order_relaxed);
	unsigned cpu = atomic_load_explicit(&t->cpu, memory_order_relaxed);
	if (cpu == o.cpu->id) {
		sched_make_ready(o, t);
	} else {
		icc_post(cpu, &t->mig_req);
		icc_flush();
	}
	arch_irq_restore(flags);
	return 0;
}

int thread_create(const struct thread_attr *a, void (*fn)(void *), void *arg)
{
	int err;
	struct thread *t = thread_create_inactive(a, fn, arg, 0, &err);
	if (!t)
		return err;
	tid_t tid = atomic_load_explicit(&t->tid, memory_order_relaxed);
	thread_publish(t);
	thread_activate(t, tid);
	sched_preempt_point();
	return (int)tid;
}

int thread_start_tid(tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	if (!t)
		return -FUL_EDEAD;
	race_point(RACE_START_LOOKED_UP, t);
	return thread_activate(t, tid);
}

struct thread *thread_lookup(tid_t tid)
{
	if (TID_SLOT(tid) >= MAX_THREADS)
		return NULL;
	struct thread *t = &threads[TID_SLOT(tid)];
	if (atomic_load_explicit(&t->tid, memory_order_acquire) != tid)
		return NULL;
	uint32_t st = atomic_load_explicit(&t->state, memory_order_acquire);
	return (st == T_FREE || st == T_EMBRYO) ? NULL : t;
}

struct thread *thread_current(void)
{
	uint64_t flags = arch_irq_save();
	struct thread *t = this_cpu()->current;
	arch_irq_restore(flags);
	return t;
}

void uthread_release(struct thread *t);

void thread_release(struct thread *t)
{
	if (t->sleeping) /* its core's sleepers list would keep the slot */
		panic("release of %s while on the sleepers list", t->name);
	load_thread_free(owner_irq(), t);
	trace_exit(this_cpu(), t);
	if (t->vs)
		uthread_release(t);
	atomic_store_explicit(&t->blocked_on, NULL, memory_order_relaxed);
	atomic_store_explicit(&t->state, T_FREE, memory_order_release);
}

void thread_exit(void)
{
	arch_irq_disable();
	struct thread *t = this_cpu()->current;
	atomic_store_explicit(&t->state, T_DEAD, memory_order_relaxed);
	schedule(owner_irq());
	panic("thread_exit: dead thread %s resumed", t->name);
}

void thread_start(void *prev, void (*fn)(void *), void *arg)
{
	sched_finish_switch(prev);
	arch_irq_enable();
	fn(arg);
	thread_exit();
}

void thread_sleep_ms(uint64_t ms)
{
	uint64_t deadline = ktime_deadline(arch_counter(), ms_to_ticks(ms));
	uint64_t flags = arch_irq_save();
	/* A wake-up (migration, unpark) may end a sleep early: sleep again. */
	while (arch_counter() < deadline)
		sched_sleep_until(owner_irq(), deadline);
	arch_irq_restore(flags);
}

void thread_yield(void)
{
	uint64_t flags = arch_irq_save();
	struct cpu *c = this_cpu();
	if (c->current != c->idle) {
		c->current->yielding = true;
		schedule(owner_irq());
	}
	arch_irq_restore(flags);
}

unsigned thread_count_live(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < MAX_THREADS; i++)
		n += atomic_load_explicit(&threads[i].state,
					  memory_order_relaxed) != T_FREE;
	return n;
}
