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
/** Count a thread leaving (@in false) or arriving at o.cpu (through a
 *  TASK_IN; a thread moved blocked is counted by load_blocked_moved). */
void load_count_migration(struct owner o, bool in);
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

/** Publish @c's time figures (kept in c->stats by sched_account).
 *  Inside a window of @l. */
static inline void lcpu_times(struct cpu *c, struct ful_load_cpu *l)
{
	l->busy = c->stats.busy;
	l->idle = c->stats.idle;
	l->stamp = c->last_switch;
	l->switches = c->stats.switches;
}

/** Core switch from @prev to @next; publishes prev's state and run
 *  time and the sums that change. */
/*
 * A switch changes the sums only by what leaves with @prev and comes in
 * with @next. In the common thread-to-thread cases (preemption, and an
 * IPC hand-off between threads of equal slice and weight) nothing
 * changes, and no window is opened: only the flags, the two state
 * bytes and `running` (a single-copy-atomic field outside the window)
 * are written. The time figures are published at idle transitions and
 * ticks, not at every switch.
 */
static inline void load_switch(struct owner o, struct thread *prev,
			       struct thread *next)
{
	struct cpu *c = o.cpu;
	struct ful_load_cpu *l = lcpu(c);
	long dl = 0, dw = 0;
	int dn = 0, db = 0;
	if (prev != c->idle) {
		uint32_t st = atomic_load_explicit(&prev->state,
						   memory_order_relaxed);
		prev->lrec->runtime = prev->runtime;
		prev->lrec->state = (uint8_t)thread_state_abi(st);
		if (st != T_READY && prev->load_counted) {
			prev->load_counted = false;
			dl -= prev->slice_ms, dw -= prev->weight, dn--;
		}
		if (st == T_BLOCKED && !prev->blocked_counted) {
			prev->blocked_counted = true;
			db++;
		}
	}
	if (next != c->idle) {
		next->lrec->state = FUL_TS_RUNNING;
		if (next->blocked_counted) { /* direct switch to a blocked one */
			next->blocked_counted = false;
			db--;
		}
		if (!next->load_counted) {
			next->load_counted = true;
			dl += next->slice_ms, dw += next->weight, dn++;
		}
	}
	bool idle_edge = prev == c->idle || next == c->idle;
	if (dl | dw | dn | db || idle_edge) {
		seq_begin(&l->seq);
		l->load += (unsigned long)dl;
		l->weight += (unsigned long)dw;
		l->nrunnable += (unsigned)dn;
		l->nblocked += (unsigned)db;
		if (idle_edge)
			lcpu_times(c, l);
		seq_end(&l->seq);
	}
	l->running = next == c->idle ? 0
				     : atomic_load_explicit(&next->tid,
							    memory_order_relaxed);
}

#endif
