/*
 * Load accounting: the kernel side of <fulcrum/load.h>. Each core keeps
 * its own record of the load area (load L, runnable and blocked counts,
 * weights, busy/idle time, migrations) and the records of the threads it
 * owns, and publishes both to the rootserver's read-only mapping.
 *
 * Every hook runs on the owner core with IRQs masked (the owner token),
 * except load_thread_static() (see there).
 *
 * Invariant: t->load_counted is true exactly while @t is READY or
 * RUNNING on its owner core, and then its slice and weight are in that
 * core's load and weight sums. The idle threads are never counted.
 */
#ifndef KERNEL_LOAD_H
#define KERNEL_LOAD_H

#include "percpu.h"
#include "thread.h"
#include <fulcrum/load.h>

extern struct ful_load_page load_area;

/** Fill the header; once, at boot, before any thread is created. */
void load_init(void);
/** The frame object wrapping the load area (for the rootserver). */
struct frame *load_frame(void);

/** @t became READY or RUNNING on o.cpu (from blocked, arriving, new). */
void load_enter(struct owner o, struct thread *t);
/** @t stopped being runnable on o.cpu (blocked, migrating, dead). */
void load_leave(struct owner o, struct thread *t);
/** Core switch from @prev to @next at counter @now; @delta since the
 *  last switch was spent in @prev. Publishes prev's state and run time. */
void load_switch(struct owner o, struct thread *prev, struct thread *next,
		 uint64_t delta);
/** Scheduler tick: @delta counter ticks went to the current thread. */
void load_tick(struct owner o, uint64_t delta);
/** Blocked @t of o.cpu is about to belong to @dest: move its blocked
 *  count there. Call before t->cpu changes (dest may wake it at once). */
void load_blocked_moved(struct owner o, struct thread *t, unsigned dest);
/** Publish @t's state and owner core (after a state change that neither
 *  enters nor leaves the runnable set, e.g. MIGRATING in flight). */
void load_thread_state(struct thread *t);
/** Publish @t's static fields (tid, owner @cpu, slice, nice, weight,
 *  affinity, flags) under its sequence counter and bump the thread
 *  generation. Only the one core that may change them calls it: the
 *  creator before the thread starts, then the owner (a migrating thread
 *  is published by the core it leaves, before the new owner sees it).
 *  The state byte is not touched: the owner keeps it current. */
void load_thread_static(struct thread *t, unsigned cpu);
/** Clear @t's record: its slot is being freed. Owner core. */
void load_thread_free(struct owner o, struct thread *t);
/** Change a thread's slice on its owner core, keeping the sums exact. */
void load_set_slice(struct owner o, struct thread *t, uint32_t slice_ms);
/** Change a thread's nice value (and weight) on its owner core. */
void load_set_nice(struct owner o, struct thread *t, int nice);
/** Count a thread leaving (@in false) or arriving at o.cpu. */
void load_count_migration(struct owner o, bool in);
/** Check o.cpu's published records against its threads (tests).
 *  false with a reason in @why on a mismatch. */
bool load_verify_cpu(struct owner o, char *why, size_t n);

#endif
