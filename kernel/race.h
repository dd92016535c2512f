/*
 * Race points: named places in a cross-core protocol where a test may
 * stop the core that reaches them, to force one interleaving every time
 * instead of hoping for it (kernel/tests/test_race.c). Without a hook a
 * race point costs one load and a branch not taken.
 *
 * A hook runs on the core that reaches the point, in whatever context
 * that is (often an IRQ handler, IRQs masked): it may spin on flags that
 * other cores set, always with a timeout, and must not block.
 */
#ifndef KERNEL_RACE_H
#define KERNEL_RACE_H

#include <stdatomic.h>

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
};

typedef void (*race_hook_fn)(enum race_point p, void *arg);
extern _Atomic(race_hook_fn) race_hook;

static inline void race_point(enum race_point p, void *arg)
{
	race_hook_fn h = atomic_load_explicit(&race_hook, memory_order_relaxed);
	if (__builtin_expect(h != 0, 0))
		h(p, arg);
}

#endif
