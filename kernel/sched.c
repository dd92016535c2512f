/*
 * Per-core scheduling. Each core schedules only the threads it owns; a
 * thread reaches another core's run queue only through that core's
 * mailbox (TASK_IN), so no code ever holds two run queues.
 */
#include "sched.h"
#include "kernel.h"
#include "ktime.h"
#include "lbevent.h"
#include "load.h"
#include "race.h"
#include "trace.h"
#include "vspace.h"

static inline struct thread *rq_thread(struct rq_link *l)
{
	return container_of(l, struct thread, rq_link);
}

/* Boot argument "loadcheck": every tick checks the core's published
 * load record against its threads and panics on a mismatch (a debugging
 * aid: it walks the thread table, so it is off by default). */
bool load_check_ticks;

void sched_init_cpu(struct cpu *c)
{
	rq_init(&c->rq);
	c->sleepers.next = c->sleepers.prev = &c->sleepers;
	c->tick_interval = arch_counter_freq() / SCHED_HZ;
	c->last_switch = arch_counter();
}

/** Does @t outrank what o.cpu runs now? */
static bool sched_should_preempt(struct cpu *c, struct thread *t)
{
	if (atomic_load_explicit(&c->parked, memory_order_relaxed))
		return false;
	return c->current == c->idle || t->prio > c->current->prio;
}

void sched_make_ready(struct owner o, struct thread *t)
{
	struct cpu *c = o.cpu;
	atomic_store_explicit(&t->state, T_READY, memory_order_relaxed);
	trace_wake(c, t);
	/* An idle core runs the thread next anyway: skip the queue (the
	 * wake-up path of a cross-core IPC or a migration to an idle core).
	 * The switch to it counts it in the load and publishes it RUNNING
	 * (load_switch): a reader never sees it READY and uncounted. */
	if (c->current == c->idle && !c->handoff && !c->rq.nr &&
	    !atomic_load_explicit(&c->parked, memory_order_relaxed)) {
		c->handoff = t;
		c->need_resched = true;
		return;
	}
	rq_push_tail(&c->rq, &t->rq_link, t->prio);
	load_enter(o, t);
	if (sched_should_preempt(c, t))
		c->need_resched = true;
}

void sched_unqueue(struct owner o, struct thread *t)
{
	if (o.cpu->handoff == t)
		o.cpu->handoff = NULL;
	else
		rq_remove(&o.cpu->rq, &t->rq_link, t->prio);
}

/** Put the preempted current thread back: the head keeps its turn if it
 *  still has slice left, the tail starts a fresh slice otherwise. */
static void sched_requeue_current(struct cpu *c, struct thread *prev)
{
	atomic_store_explicit(&prev->state, T_READY, memory_order_relaxed);
	if (prev->slice_left == 0 || prev->yielding) {
		prev->slice_left = prev->slice_ticks;
		prev->yielding = false;
		rq_push_tail(&c->rq, &prev->rq_link, prev->prio);
	} else {
		rq_push_head(&c->rq, &prev->rq_link, prev->prio);
	}
}

static struct thread *sched_pick(struct cpu *c)
{
	unsigned prio;
	struct thread *h = c->handoff;
	if (h) {
		/* The hand-off skipped the queue only because nothing was
		 * queued then; a thread of a higher priority made ready
		 * after it (in the same burst of mailbox requests) still
		 * runs first: it goes to the queue, in its turn. */
		c->handoff = NULL;
		if (!atomic_load_explicit(&c->parked, memory_order_relaxed) &&
		    rq_top_prio(&c->rq) <= (int)h->prio)
			return h;
		rq_push_tail(&c->rq, &h->rq_link, h->prio); /* parked, outranked */
		load_enter((struct owner){c}, h);
	}
	if (atomic_load_explicit(&c->parked, memory_order_relaxed))
		return c->idle;
	struct rq_link *l = rq_pop(&c->rq, &prio);
	return l ? rq_thread(l) : c->idle;
}

/** Charge the time from the last switch to @now to @prev and its core; at the
 *  first switch or tick in a new utilization window, roll the windows
 *  over (load_win_roll: one compare here otherwise; @tick: load_tick
 *  publishes right after, so the roll does not). */
static inline __attribute__((always_inline)) void
sched_account_at(struct cpu *c, struct thread *prev, uint64_t now, bool tick,
		 bool busy)
{
	uint64_t t0 = c->last_switch;
	uint64_t delta = now - t0;
	c->last_switch = now;
	if (tick) /* a constant: none on the switch paths */
		race_point(RACE_ACCOUNT_TICK, prev);
	prev->runtime += delta;
	if (!busy && prev == c->idle) /* @busy: known not the idle thread */
		c->stats.idle += delta;
	else
		c->stats.busy += delta;
	if (__builtin_expect(now >= c->win_end, 0))
		load_win_roll((struct owner){c}, prev, t0, !tick);
}

/** sched_account_at() now. */
static inline __attribute__((always_inline)) uint64_t
sched_account(struct cpu *c, struct thread *prev, bool tick, bool busy)
{
	uint64_t now = arch_counter();
	sched_account_at(c, prev, now, tick, busy);
	return now;
}

static inline struct thread *sleep_thread(struct rq_link *l)
{
	return container_of(l, struct thread, sleep_link);
}

/**
 * Arm @c's timeout timer for its earliest sleeper's deadline, or stop
 * it if none sleeps: a timeout ends at its deadline on a busy core as on
 * an idle one, not at the next tick. A deadline beyond the timer's range
 * (34 s at 62.5 MHz) is armed in steps: the timer fires early, wakes
 * nobody, and sched_timeout() re-arms it here for the rest
 * (ktime_timer_delta). Owner, IRQs masked.
 */
static void sched_timeout_arm(struct cpu *c)
{
	if (c->sleepers.next == &c->sleepers) {
		arch_timeout_stop();
		return;
	}
	arch_timeout_arm(ktime_timer_delta(
		arch_counter(), sleep_thread(c->sleepers.next)->sleep_until,
		ARCH_TIMER_MAX_TICKS));
}

/**
 * Tickless idle: the periodic tick runs only while a real thread runs
 * (the timeout timer runs apart, for the sleepers).
 * @now: the counter at this switch (sched_account's).
 */
static inline __attribute__((always_inline)) void
sched_update_tick(struct cpu *c, struct thread *next, bool user, uint64_t now)
{
	if (user || next != c->idle) { /* @user: known not the idle thread */
		if (!c->tick_on) {
			c->tick_due = now + c->tick_interval;
			c->tick_on = true;
			/* The timer counts from the write, a little after
			 * @now: it never fires before tick_due. */
			arch_timer_arm(c->tick_interval);
		}
		return;
	}
	c->tick_on = false;
	arch_timer_stop();
}

void sched_unsleep(struct owner o, struct thread *t)
{
	(void)o;
	if (!t->sleeping)
		return;
	t->sleep_link.prev->next = t->sleep_link.next;
	t->sleep_link.next->prev = t->sleep_link.prev;
	t->sleeping = false;
}

void sched_wake_blocked(struct owner o, struct thread *t)
{
	sched_unsleep(o, t);
	sched_make_ready(o, t);
}

/** Put the current thread of @c on the sleepers list until @deadline,
 *  BLOCKED. */
static void sched_sleeper_add(struct cpu *c, uint64_t deadline)
{
	struct thread *t = c->current;
	struct rq_link *pos = c->sleepers.next;
	while (pos != &c->sleepers && sleep_thread(pos)->sleep_until <= deadline)
		pos = pos->next;
	t->sleep_until = deadline;
	t->sleep_link.next = pos;
	t->sleep_link.prev = pos->prev;
	pos->prev->next = &t->sleep_link;
	pos->prev = &t->sleep_link;
	t->sleeping = true;
	atomic_store_explicit(&t->state, T_BLOCKED, memory_order_relaxed);
	/* The new first deadline: fire for it. */
	if (c->sleepers.next == &t->sleep_link)
		sched_timeout_arm(c);
}

void sched_sleep_until(struct owner o, uint64_t deadline)
{
	sched_sleeper_add(o.cpu, deadline);
	schedule(o);
}

/** Wake every sleeper whose deadline has passed. */
static void sched_wake_sleepers(struct cpu *c)
{
	uint64_t now = arch_counter();
	while (c->sleepers.next != &c->sleepers) {
		struct thread *t = sleep_thread(c->sleepers.next);
		if (t->sleep_until > now)
			break;
		sched_wake_blocked(owner_irq(), t);
	}
}

/* The two halves of sched_switch(), inlined into it (below). */
#define SCHED_SWITCH_HALF static inline __attribute__((always_inline)) void
SCHED_SWITCH_HALF sched_switch_books_at(struct cpu *c, struct thread *prev,
					struct thread *next,
					enum load_hint hint, uint64_t now,
					bool traced);
SCHED_SWITCH_HALF sched_switch_books(struct cpu *c, struct thread *prev,
				     struct thread *next, enum load_hint hint)
{
	sched_switch_books_at(c, prev, next, hint, arch_counter(), false);
}
SCHED_SWITCH_HALF sched_switch_regs(struct cpu *c, struct thread *prev,
				    struct thread *next);
static void sched_switch(struct cpu *c, struct thread *prev,
			 struct thread *next);

/** Wait for an interrupt, counting the cycles since the last wait in
 *  c->stats.awake (IRQs masked). */
static inline void sched_wfi(struct cpu *c)
{
	c->stats.awake += arch_cycles() - c->stats.awake_since;
	arch_wait_for_interrupt();
	c->stats.awake_since = arch_cycles();
}

/**
 * @prev, blocked at @since while its core idled in place, runs again
 * now, its own wake-up taken: charge [@since, now] to the core as idle
 * time and not to @prev, as the two switches it replaced would have
 * done. Within one utilization window the shift of last_switch is all
 * it takes (busy + idle still adds up to the time since start, and
 * prev's busy interval keeps its length on the window's side of the
 * roll); if a window ended meanwhile, the two switches' books run, the
 * first dated @since, so the roll sees the idle stretch where it was.
 * Owner, IRQs masked.
 */
static inline __attribute__((always_inline)) void
sched_idle_charge(struct cpu *c, struct thread *prev, uint64_t since)
{
	uint64_t now = arch_counter();
	if (__builtin_expect(now >= c->win_end, 0)) {
		sched_switch_books_at(c, prev, c->idle, SW_TO_IDLE, since,
				      true);
		sched_switch_books_at(c, c->idle, prev, SW_FROM_IDLE, now,
				      true);
		return;
	}
	c->stats.idle += now - since;
	c->last_switch += now - since;
	atomic_store_explicit(&prev->state, T_RUNNING, memory_order_relaxed);
}

/** May @c, about to switch from blocked @prev to idle, idle in place? */
static bool sched_may_idle_in_place(struct cpu *c, struct thread *prev)
{
	return c->idle_poll &&
	       !atomic_load_explicit(&c->parked, memory_order_relaxed) &&
	       atomic_load_explicit(&prev->state, memory_order_relaxed) ==
		       T_BLOCKED;
}

/**
 * Idle in place, a lazy switch to idle: @prev has just blocked and
 * nothing else can run. Keep prev's registers, stack and address space
 * loaded, keep even the scheduler's books as they are (c->current is
 * prev, its load record says RUNNING, the tick stays armed), note the
 * moment (@since), and wait right here with IRQs masked. If what
 * arrives is prev's own wake-up, alone, it is applied as its handler
 * would, and prev runs on: the wait is charged to the core as idle
 * (sched_idle_charge), and nothing else was ever switched. Otherwise the
 * switch to idle is completed first, its books dated @since, so every
 * handler runs with prev switched out, and the utilization figures are
 * as exact as with an eager switch. So the published load record lags
 * a blocked thread by at most the time to the core's next interrupt
 * (its tick at the latest): docs/load-area.md, "Lag of a wait in place",
 * for the contract. Invariant: a core idling in place runs nothing but
 * this wait, so nothing that could move or free prev, or read this
 * core's books, runs meanwhile. Owner, IRQs masked; returns in prev's
 * context: true if prev came back in place with nothing left to do (no
 * switch pending, no IPI owed), false if it went through a real switch
 * or schedule().
 */
static bool sched_idle_in_place(struct owner o, struct thread *prev)
{
	struct cpu *c = o.cpu;
	uint64_t since = arch_counter();
	trace_switch(c, prev, c->idle);
	icc_flush(); /* owed IPIs (the wake-up just posted) leave now */
	sched_wfi(c);
	if (!thread_wake_take_own(o, prev)) {
		sched_switch_books_at(c, prev, c->idle, SW_TO_IDLE, since,
				      true);
		sched_switch_regs(c, prev, c->idle);
		return false;
	}
	/* Woken, and nothing else can have been queued (no handler ran):
	 * prev runs again, with no run queue or hand-off in between. */
	c->need_resched = false;
	sched_idle_charge(c, prev, since);
	trace_switch(c, c->idle, prev);
	/* Take the IPI_ICC that announced the wake-up (its drain handles
	 * whatever was posted since), as an IRQ would. */
	arch_irq_poll_one();
	icc_flush();
	if (!c->need_resched)
		return true;
	schedule(o);
	return false;
}

bool sched_block_wait(struct owner o, struct thread *t)
{
	struct cpu *c = o.cpu;
	/* schedule()'s choice when @t blocks, without its pick: nothing is
	 * pending, queued or handed off, so it would idle in place. */
	if (c->need_resched || c->handoff || c->rq.nr ||
	    !sched_may_idle_in_place(c, t)) {
		schedule(o);
		return false;
	}
	return sched_idle_in_place(o, t);
}

void schedule(struct owner o)
{
	struct cpu *c = o.cpu;
	struct thread *prev = c->current;

	c->need_resched = false;
	if (prev != c->idle &&
	    atomic_load_explicit(&prev->state, memory_order_relaxed) ==
		    T_RUNNING)
		sched_requeue_current(c, prev);
	struct thread *next = sched_pick(c);
	if (next == prev) {
		atomic_store_explicit(&prev->state, T_RUNNING,
				      memory_order_relaxed);
		if (prev != c->idle)
			load_thread_state(prev);
		return;
	}
	if (next == c->idle && sched_may_idle_in_place(c, prev)) {
		sched_idle_in_place(o, prev);
		return;
	}
	sched_switch(c, prev, next);
}

/** The scheduler's half of a switch of @c from @prev to @next:
 *  accounting, tick, states, c->current. @hint (a constant) names the
 *  likely kind of switch (load_switch). Owner, IRQs masked. */
SCHED_SWITCH_HALF sched_switch_books_at(struct cpu *c, struct thread *prev,
					struct thread *next,
					enum load_hint hint, uint64_t now,
					bool traced)
{
	bool fast = hint == SW_FAST; /* a constant: folds */
	sched_account_at(c, prev, now, false, fast);
	if (__builtin_expect(next->win_idx < c->win.idx, 0))
		load_win_enter(c, next); /* its first run in this window (the
					  * idle thread's index is ~0: never) */
	sched_update_tick(c, next, fast, now);
	if (fast || next != c->idle) {
		atomic_store_explicit(&next->state, T_RUNNING,
				      memory_order_relaxed);
		if (!fast &&
		    atomic_load_explicit(&c->parked, memory_order_relaxed))
			c->stats.nonidle_while_parked++;
	}
	if (!traced) /* a constant: the lazy idle edges trace their own */
		trace_switch(c, prev, next);
	c->current = next;
	c->stats.switches++;
	load_switch_edge((struct owner){c}, prev, next, hint);
}

/** Switch @c from @prev (already requeued, blocked, dead or migrating)
 *  to @next (picked, off every queue). Returns in prev's context later. */
static void sched_switch(struct cpu *c, struct thread *prev,
			 struct thread *next)
{
	sched_switch_books(c, prev, next, SW_ANY);
	sched_switch_regs(c, prev, next);
}

/** sched_switch() for the IPC hand-off (sched_block_switch). */
static void sched_switch_ipc(struct cpu *c, struct thread *prev,
			     struct thread *next)
{
	sched_switch_books(c, prev, next, SW_IPC);
	sched_switch_regs(c, prev, next);
}

/** The machine's half of a switch, after the books: save prev's
 *  registers, load next's. Returns in prev's context later. */
SCHED_SWITCH_HALF sched_switch_regs(struct cpu *c, struct thread *prev,
				    struct thread *next)
{
	if (atomic_exchange_explicit(&next->on_cpu, 1, memory_order_acquire))
		c->stats.overlap++;
	arch_context_switch_out(&prev->ctx);
	vspace_switch(next->vs);
	prev = arch_context_switch(&prev->ctx, &next->ctx, prev);
	sched_finish_switch(prev);
}

void sched_block_switch(struct owner o, struct thread *next,
			uint64_t deadline)
{
	struct cpu *c = o.cpu;
	struct thread *cur = c->current;
	if (deadline != ~0ull)
		sched_sleeper_add(c, deadline);
	else
		atomic_store_explicit(&cur->state, T_BLOCKED,
				      memory_order_relaxed);
	if (atomic_load_explicit(&next->state, memory_order_relaxed) !=
	    T_BLOCKED) { /* already ready (spurious wake-up) or arriving */
		schedule(o);
		return;
	}
	sched_unsleep(o, next);
	if (atomic_load_explicit(&c->parked, memory_order_relaxed) ||
	    rq_top_prio(&c->rq) > (int)next->prio) {
		sched_make_ready(o, next);
		schedule(o);
		return;
	}
	c->need_resched = false;
	sched_switch_ipc(c, cur, next); /* its books count next in */
}

/** The fastpath's switch from the current thread to @next (both user
 *  threads): books for @hint, then the arch's switch to @next's frame. */
static inline __attribute__((always_inline)) struct thread *
sched_fastpath_go(struct owner o, struct thread *next, enum load_hint hint)
{
	struct cpu *c = o.cpu;
	struct thread *prev = c->current;
	sched_switch_books(c, prev, next, hint);
	if (atomic_exchange_explicit(&next->on_cpu, 1, memory_order_acquire))
		c->stats.overlap++;
	arch_context_switch_out(&prev->ctx);
	if (c->vs_active != next->vs) { /* a user thread: vs is set */
		c->vs_active = next->vs;
		arch_vspace_activate(&next->vs->arch);
	}
	return arch_fastpath_switch(&prev->ctx,
				    arch_uregs_of(next->kstack + KSTACK_SIZE),
				    prev, arch_context_tpidr(&next->ctx));
}

struct thread *sched_fastpath_switch(struct owner o, struct thread *next)
{
	return sched_fastpath_go(o, next, SW_FAST);
}

struct thread *sched_fastpath_preempt(struct owner o, struct thread *next)
{
	/* prev stays runnable: the general load_switch books it */
	sched_requeue_current(o.cpu, o.cpu->current);
	return sched_fastpath_go(o, next, SW_ANY);
}

void sched_fastpath_finish(struct thread *prev)
{
	/* prev was made BLOCKED, or READY and queued, by the fastpath just
	 * before the books; only this core, IRQs masked, could have changed
	 * that since: nothing to hand over or free (sched_finish_switch's
	 * other cases). */
	atomic_store_explicit(&prev->on_cpu, 0, memory_order_release);
	icc_flush();
}

void sched_finish_switch(struct thread *prev)
{
	/* The registers of prev are saved: another core may now run it. */
	atomic_store_explicit(&prev->on_cpu, 0, memory_order_release);
	uint32_t st = atomic_load_explicit(&prev->state, memory_order_relaxed);
	if (st == T_MIGRATING) {
		race_point(RACE_MIG_HANDOVER, prev); /* a delay point */
		icc_post(atomic_load_explicit(&prev->cpu, memory_order_relaxed),
			 &prev->mig_req);
	}
	else if (st == T_DEAD)
		thread_release(prev);
	icc_flush(); /* also a balancer event the books noted (lbevent.h) */
}

/** Boot argument "loadcheck": check this core's published load record and its
 *  scheduler books against the thread table; panic on a mismatch. */
static void sched_load_check(void)
{
	char why[160];
	if (!load_verify_cpu(owner_irq(), why, sizeof(why)))
		panic("loadcheck: %s", why);
}

void sched_timeout(void)
{
	struct cpu *c = this_cpu();
	c->stats.timeouts++;
	sched_wake_sleepers(c);
	sched_timeout_arm(c);
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct thread *cur = c->current;

	if (!c->tick_on)
		return; /* stopped since it fired (arch_timer_stop) */
	uint64_t at = arch_counter();
	if (at < c->tick_due) { /* a stale firing: not a tick yet */
		arch_timer_arm(c->tick_due - at);
		return;
	}
	c->stats.ticks++;
	c->tick_on = false; /* the timer fired: re-arm below */
	uint64_t now = sched_account(c, cur, true, false);
	load_tick(owner_irq());
	if (load_check_ticks)
		sched_load_check();
	sched_update_tick(c, cur, false, now);
	if (cur == c->idle)
		return;
	lbe_tick(c);
	if (cur->slice_left > 0)
		cur->slice_left--;
	if (cur->slice_left == 0) {
		if (rq_top_prio(&c->rq) >= (int)cur->prio)
			c->need_resched = true;
		else
			cur->slice_left = cur->slice_ticks;
	}
}

/** The switch and the owed IPIs at the end of every IRQ and system
 *  call. A flush can wake a thread of this core (a balancer event's
 *  signal, icc_flush_lbe: inline on its own core) and ask for a switch,
 *  so need_resched is checked again after it: only a clear flag and
 *  nothing owed return. A switch may resume the caller on another core,
 *  hence this_cpu() afresh each round. IRQs masked. */
void irq_exit(void)
{
	for (;;) {
		struct cpu *c = this_cpu();
		if (c->need_resched)
			schedule(owner_irq());
		else if (c->ipi_owed | c->lbe_owed)
			icc_flush_owed(c);
		else
			return;
	}
}

void sched_preempt_point(void)
{
	uint64_t flags = arch_irq_save();
	if (this_cpu()->need_resched)
		schedule(owner_irq());
	arch_irq_restore(flags);
}

void sched_preempt_window(void)
{
	arch_irq_window();
	if (this_cpu()->need_resched)
		schedule(owner_irq());
}

void sched_idle_loop(void)
{
	for (;;) {
		arch_irq_disable();
		struct cpu *c = this_cpu();
		bool parked = atomic_load_explicit(&c->parked,
						   memory_order_relaxed);
		if (c->need_resched || (!parked && c->rq.nr)) {
			schedule(owner_irq());
		} else {
			if (load_check_ticks) /* an idle core has no tick */
				sched_load_check();
			sched_wfi(c);
			/* Woken with IRQs masked: handle what is pending right
			 * here, which spares the exception entry and exit and
			 * lets the next thread start from this loop. */
			if (c->idle_poll && arch_irq_poll()) {
				if (c->need_resched)
					schedule(owner_irq());
				icc_flush();
			}
		}
		arch_irq_enable();
	}
}

void ipi_receive(enum ipi_kind kind)
{
	struct cpu *c = this_cpu();
	c->stats.ipi_in[(kind - IPI_RUN_IDLE) & 3]++;
	switch (kind) {
	case IPI_RUN_IDLE:
		atomic_store_explicit(&c->parked, true, memory_order_relaxed);
		c->need_resched = c->current != c->idle;
		break;
	case IPI_RE_SCHEDULE:
		atomic_store_explicit(&c->parked, false, memory_order_relaxed);
		c->need_resched = true;
		break;
	case IPI_ICC:
		icc_drain();
		break;
	case IPI_STOP:
		arch_halt_cpu();
	}
}
