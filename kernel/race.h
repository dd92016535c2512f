/*
 * Race points: named places in a cross-core protocol where a test may
 * stop the core that reaches them, to force one interleaving every time
 * instead of hoping for it (tests/kernel/test_race.c). Without a hook a
 * race point costs one load and a branch not taken.
 *
 * A hook runs on the core that reaches the point, in whatever context
 * that is (often an IRQ handler, IRQs masked): it may spin on flags that
 * other cores set, always with a timeout, and must not block.
 *
 * The same points widen race windows for the torture test: with boot
 * argument torture_delay=<max ns>, the hook outside tests is race_delay
 * (race.c), which spins a random short time at the mailbox, wake and
 * hand-over points below (docs/testing.md, "The ICC torture test").
 */
#ifndef KERNEL_RACE_H
#define KERNEL_RACE_H

#include <stdint.h>

enum race_point {
	/* thread_wake_handle(), arg the thread: on entry, and between its
	 * reads of the owner and of the state */
	RACE_WAKE_ENTRY,
	RACE_WAKE_READS,
	/* load_thread_static(), arg the thread: inside its record's
	 * sequence window (the counter odd) */
	RACE_LTHREAD_WINDOW,
	/* thread_start_tid(), arg the thread: between the lookup of the
	 * tid and the claim of the slot */
	RACE_START_LOOKED_UP,
	/* icc_push(), arg the record: about to go on a mailbox (a post or
	 * a forward); its target core is already chosen */
	RACE_MBOX_PUSH,
	/* icc_drain(), arg the record: taken off the mailbox, not handled */
	RACE_MBOX_DRAIN,
	/* thread_wake_owed(), arg the thread: between setting the token
	 * and claiming wake_inflight (the waker's half of the Dekker pair) */
	RACE_WAKE_POST,
	/* thread_migrate_local() and sched_finish_switch(), arg the
	 * thread: the new owner is stored, its TASK_IN not yet posted (or,
	 * for a blocked thread, not yet woken on its new core) */
	RACE_MIG_HANDOVER,
	/* thread_accept(), arg the thread: landed here (owned here, its
	 * TASK_IN taken), before a kill or a move on that came while it
	 * flew is applied */
	RACE_MIG_LANDED,
	/* sched_tick()'s accounting, arg the current thread: the core's
	 * last_switch moved to now, its run time and the core's busy time
	 * not yet (sched_read.c reads them on this core, never between) */
	RACE_ACCOUNT_TICK,
	RACE_NPOINTS
};

typedef void (*race_hook_fn)(enum race_point p, void *arg);
/* The hook, and a copy in each struct cpu (race_point_cpu, percpu.h):
 * both written only by race_hook_set (atomic stores), read with one
 * volatile load (an aligned LDR, single-copy atomic; GCC's atomic load
 * would not fold the symbol's offset into it). */
extern race_hook_fn race_hook;

static inline race_hook_fn race_hook_now(void)
{
	return *(race_hook_fn volatile *)&race_hook;
}

/** Install @fn on every core; NULL puts back the boot's default (the
 *  delay injection with torture_delay=, else none). Any thread. */
void race_hook_set(race_hook_fn fn);
/** Boot arguments torture_delay=<ns> and seed=<n>: make race_delay the
 *  default hook. Once, at boot, before other cores run threads. */
void race_delay_init(void);
/** Delays injected so far on @cpu (race_delay). */
uint64_t race_delay_count(unsigned cpu);

static inline void race_point_hook(race_hook_fn h, enum race_point p,
				   void *arg)
{
	if (__builtin_expect(h != 0, 0))
		h(p, arg);
}

static inline void race_point(enum race_point p, void *arg)
{
	race_point_hook(race_hook_now(), p, arg);
}

#endif
