/*
 * Load accounting: the kernel side of <fulcrum/load.h>. Each core keeps
 * its own record of the load area (load L, runnable and blocked counts,
 * weights, busy/idle time, migrations) and the records of the threads it
 * owns, and publishes both to the rootserver's read-only mapping.
 *
 * Every hook runs on the owner core with IRQs masked (the owner token),
 * except load_thread_static() for a thread not yet published (see
 * there).
 *
 * Invariant: t->load_counted is true exactly while @t is READY or
 * RUNNING on its owner core, and then its slice and weight are in that
 * core's load and weight sums. The idle threads are never counted.
 */
#ifndef KERNEL_LOAD_H
#define KERNEL_LOAD_H

#include "lbevent.h"
#include "percpu.h"
#include "thread.h"
#include <fulcrum/load.h>

extern struct ful_load_page load_area;
/** Boot argument "loadcheck": verify each core's record at every tick. */
extern bool load_check_ticks;

/** Fill the header; once, at boot, before any thread is created. */
void load_init(void);
/** The frame object wrapping the load area (for the rootserver). */
struct frame *load_frame(void);

/** @t became READY or RUNNING on o.cpu (from blocked, arriving, new). */
void load_enter(struct owner o, struct thread *t);
/** @t stopped being runnable on o.cpu (blocked, migrating, dead). */
void load_leave(struct owner o, struct thread *t);
/** Scheduler tick: publish the time figures (after sched_account). */
void load_tick(struct owner o);
/** Blocked @t of o.cpu is about to belong to @dest: o.cpu stops
 *  counting it, and counts its arrival in @dest's mig_in (it never
 *  passes through TASK_IN). The new owner counts it blocked from its
 *  next block on: moving
 *  the count would make the blocked count a field two cores write, and
 *  the owner-only record is what keeps the hot paths to one window.
 *  Call before t->cpu changes. */
void load_blocked_moved(struct owner o, struct thread *t, unsigned dest);
/** Publish @t's state and owner core (after a state change that neither
 *  enters nor leaves the runnable set, e.g. MIGRATING in flight). */
void load_thread_state(struct thread *t);
/** Publish @t's static fields (tid, owner @cpu, slice, nice, weight,
 *  affinity, flags) under its sequence counter and bump the thread
 *  generation. One writer per record: the creator while the thread is
 *  still EMBRYO (thread_publish), then only the owner, IRQs masked (a
 *  migrating thread is published by the core it leaves, before the new
 *  owner sees it). The state byte is not touched: the owner keeps it
 *  current. */
void load_thread_static(struct thread *t, unsigned cpu);
/** @t landed on o.cpu (its TASK_IN): publish its run time and windows,
 *  which the core it left rolled at its switch-out but did not publish
 *  (lthread_mine). Owner, IRQs masked. */
void load_thread_landed(struct owner o, struct thread *t);
/** Clear @t's record: its slot is being freed. Owner core. */
void load_thread_free(struct owner o, struct thread *t);
/** Change a thread's slice on its owner core, keeping the sums exact. */
void load_set_slice(struct owner o, struct thread *t, uint32_t slice_ms);
/** Change a thread's nice value (and weight) on its owner core. */
void load_set_nice(struct owner o, struct thread *t, int nice);
/** Count a thread leaving (@in false) or arriving at o.cpu (through a
 *  TASK_IN; a thread moved blocked is counted by load_blocked_moved). */
void load_count_migration(struct owner o, bool in);
/** Set up the utilization windows' parameters: @win_ms long windows
 *  from now on (load_init; then load_win_set). */
void load_win_init(uint64_t win_ms);
/** FUL_SYS_UTIL_SET: windows of @win_ms (FUL_UTIL_WIN_MS_MIN..MAX, else
 *  -FUL_EINVAL) from now on; every core restarts its windows at the new
 *  epoch at its next tick (an idle core's record is corrected by its
 *  readers). Any core, thread context. */
int load_win_set(uint64_t win_ms);
/** o.cpu reached the end of its window (sched_account, c->last_switch
 *  >= c->win_end): roll its windows and @prev's (which ran, or idled,
 *  from @t0 to c->last_switch) over and publish them (if @publish; else
 *  load_tick does, with the time figures). Owner, IRQs masked. */
void load_win_roll(struct owner o, struct thread *prev, uint64_t t0,
		   bool publish);
/** @t, about to run on @c, last ran in a window before c->win.idx: roll
 *  its windows over (sched_switch_books; a thread whose index is ahead,
 *  from a core that took new window parameters first, keeps it until
 *  this core does). Not for the idle thread. Owner, IRQs masked. */
void load_win_enter(struct cpu *c, struct thread *t);
/** At a tick: take new window parameters if they changed; true if so,
 *  or if the tick's roll left its figures unpublished (then
 *  load_win_publish in the record's window). Owner, IRQs masked. */
bool load_win_tick(struct owner o);
/** Publish @c's window figures into @l, inside a window of @l. */
void load_win_publish(struct cpu *c, struct ful_load_cpu *l);
/** @c's util_now word at a tick while a thread runs: FUL_UTIL_NOW_OK |
 *  its short sliding figure at c->last_switch, as ful_util_cpu gives it
 *  for the record just published (0 before the windows are set up).
 *  Owner, IRQs masked, after the roll of this tick and its publication. */
uint32_t load_win_now(struct cpu *c);
/** loadcheck: o.cpu's window figures: its index not ahead of its stamp,
 *  busy in the window and the long window within their lengths,
 *  permille <= 1000, the index published. false with a reason. */
bool load_win_verify_cpu(struct owner o, char *why, size_t n);
/** loadcheck: thread @t of o.cpu: its index not ahead of now,
 *  its run time in the window and the last within the length. */
bool load_win_verify_thread(struct owner o, const struct thread *t,
			    char *why, size_t n);
/** Check o.cpu's published records against its threads (tests), and
 *  that o.cpu never switched in a thread live elsewhere (stats.overlap).
 *  false with a reason in @why on a mismatch. */
bool load_verify_cpu(struct owner o, char *why, size_t n);

/* ---- the switch path, inline: it runs on every context switch ---- */

static inline struct ful_load_cpu *lcpu(struct cpu *c)
{
	return &load_area.cpu[c->id];
}

/* Sequence counter protocol: odd while a record is being rewritten. */
static inline void seq_begin(unsigned *seq)
{
	*(volatile unsigned *)seq = *seq + 1;
	atomic_thread_fence(memory_order_release); /* dmb ish: seq first */
}

static inline void seq_end(unsigned *seq)
{
	atomic_thread_fence(memory_order_release); /* fields before seq */
	*(volatile unsigned *)seq = *seq + 1;
}

/** May this core, running or switching out @t, write @t's record? Not
 *  once @t is MIGRATING: a thread moved while it ran has been handed to
 *  its new owner (thread_migrate_local), which alone writes the record
 *  from then on, while this core still switches it out and rolls its
 *  windows. What that core keeps in @t's own fields (run time, windows)
 *  the new owner publishes on arrival (load_thread_landed). */
static inline bool lthread_mine(const struct thread *t)
{
	return atomic_load_explicit(&t->state, memory_order_relaxed) !=
	       T_MIGRATING;
}

/** Publish @t's state byte. After the window that counts the change in
 *  the core's sums (release): a reader that sees the new state (acquire)
 *  then sees sums that include it. */
static inline void lthread_state(struct thread *t, unsigned abi_state)
{
	__atomic_store_n(&t->lrec->state, (uint8_t)abi_state,
			 __ATOMIC_RELEASE);
}

/** Publish @c's time figures (kept in c->stats by sched_account, so up
 *  to c->last_switch), and whether the core idles from then on
 *  (@idle_open): true exactly when its current thread is, or is about to
 *  be, the idle thread; util_now none (only load_tick computes one, after
 *  this). Inside a window of @l. */
static inline void lcpu_times(struct cpu *c, struct ful_load_cpu *l,
			      bool idle_open)
{
	l->idle_open = idle_open;
	l->util_now = 0;
	l->busy = c->stats.busy;
	l->idle = c->stats.idle;
	l->stamp = c->last_switch;
	l->switches = c->stats.switches;
	l->awake = c->stats.awake;
}

void load_cpu_start(struct cpu *c);

/** Core switch from @prev to @next, the general case (load.c): opens
 *  a window when the sums change or at an idle transition. */
void load_switch_slow(struct owner o, struct thread *prev,
		      struct thread *next);

/*
 * The IPC hand-off (call, reply-and-receive on one core): @prev blocks
 * and @next, blocked on this core until now, runs. With equal slices and
 * weights no sum changes: prev's runnable count becomes next's and
 * next's blocked count becomes prev's. Only the per-thread flags, the
 * two state bytes, prev's run time and `running` (single-copy atomic,
 * outside the window) are written. False, and nothing written, if the
 * switch is anything else.
 */
static inline bool load_switch_swap(struct cpu *c, struct thread *prev,
				    struct thread *next, bool blocked)
{
	if ((!blocked && atomic_load_explicit(&prev->state,
					      memory_order_relaxed) !=
				 T_BLOCKED) ||
	    !prev->load_counted || prev->blocked_counted ||
	    next->load_counted || !next->blocked_counted ||
	    prev->slice_ms != next->slice_ms || prev->weight != next->weight)
		return false;
	prev->load_counted = false;
	prev->blocked_counted = true;
	next->load_counted = true;
	next->blocked_counted = false;
	prev->lrec->runtime = prev->runtime;
	prev->lrec->state = FUL_TS_BLOCKED;
	next->lrec->state = FUL_TS_RUNNING;
	lcpu(c)->running = atomic_load_explicit(&next->tid,
						memory_order_relaxed);
	return true;
}

/** The cross-core IPC's two edges, straight-line: @prev, counted
 *  runnable, blocks and the core goes idle. False if it is not that. */
static inline __attribute__((always_inline)) bool
load_switch_to_idle(struct cpu *c, struct thread *prev)
{
	if (atomic_load_explicit(&prev->state, memory_order_relaxed) !=
		    T_BLOCKED ||
	    !prev->load_counted || prev->blocked_counted)
		return false;
	struct ful_load_cpu *l = lcpu(c);
	prev->load_counted = false;
	prev->blocked_counted = true;
	prev->lrec->runtime = prev->runtime;
	seq_begin(&l->seq);
	l->load -= prev->slice_ms;
	l->weight -= prev->weight;
	l->nrunnable--;
	l->nblocked++;
	lcpu_times(c, l, true);
	seq_end(&l->seq);
	lthread_state(prev, FUL_TS_BLOCKED);
	l->running = 0;
	return true;
}

/** The core leaves idle for @next, blocked on it until now (woken by a
 *  hand-off). False if it is not that. */
static inline __attribute__((always_inline)) bool
load_switch_from_idle(struct cpu *c, struct thread *next)
{
	if (next->load_counted || !next->blocked_counted)
		return false;
	struct ful_load_cpu *l = lcpu(c);
	next->load_counted = true;
	next->blocked_counted = false;
	seq_begin(&l->seq);
	l->load += next->slice_ms;
	l->weight += next->weight;
	l->nrunnable++;
	l->nblocked--;
	lcpu_times(c, l, false);
	seq_end(&l->seq);
	lthread_state(next, FUL_TS_RUNNING);
	l->running = atomic_load_explicit(&next->tid, memory_order_relaxed);
	lbe_wake(c);
	return true;
}

/* What a switch most likely is, known to its caller (a constant). */
enum load_hint {
	SW_ANY,       /* preemption, yield, exit, ... */
	SW_IPC,       /* blocking prev to blocked next (IPC hand-off) */
	SW_FAST,      /* the same, from the IPC fastpath: prev BLOCKED,
		       * neither is the idle thread, the core not parked */
	SW_TO_IDLE,   /* blocking prev to idle */
	SW_FROM_IDLE, /* idle to next, blocked on this core until now */
};

/** Core switch from @prev to @next: publishes prev's state and run time,
 *  next's state, and the sums that change. Owner, IRQs masked. The time
 *  figures are published at idle transitions and ticks, not at every
 *  switch. A wrong @hint costs a test, never correctness. */
static inline void load_switch(struct owner o, struct thread *prev,
			       struct thread *next, enum load_hint hint);

/** load_switch() inline at the two idle edges of idling in place
 *  (@hint SW_TO_IDLE or SW_FROM_IDLE, a constant): no call, no
 *  dispatch on the hint. Any other hint: load_switch(). */
static inline __attribute__((always_inline)) void
load_switch_edge(struct owner o, struct thread *prev, struct thread *next,
		 enum load_hint hint)
{
	bool done;
	if (hint == SW_TO_IDLE)
		done = load_switch_to_idle(o.cpu, prev);
	else if (hint == SW_FROM_IDLE)
		done = load_switch_from_idle(o.cpu, next);
	else
		done = false;
	if (!done)
		load_switch(o, prev, next, hint);
}

static inline void load_switch(struct owner o, struct thread *prev,
			       struct thread *next, enum load_hint hint)
{
	struct cpu *c = o.cpu;
	bool done;
	switch (hint) {
	case SW_IPC:
		done = load_switch_swap(c, prev, next, false);
		break;
	case SW_FAST: /* prev is BLOCKED: the fastpath just made it so */
		done = load_switch_swap(c, prev, next, true);
		break;
	case SW_TO_IDLE:
		done = next == c->idle && load_switch_to_idle(c, prev);
		break;
	case SW_FROM_IDLE:
		done = prev == c->idle && load_switch_from_idle(c, next);
		break;
	default:
		done = next == c->idle	 ? load_switch_to_idle(c, prev)
		       : prev == c->idle ? load_switch_from_idle(c, next)
					 : load_switch_swap(c, prev, next, false);
	}
	if (!done)
		load_switch_slow(o, prev, next);
}

#endif
