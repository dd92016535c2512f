/*
 * Balancer events (FUL_SYS_LBE_BIND, FUL_SYS_LBE_ARM): mechanism only.
 * The kernel counts three kinds of scheduling events per core in the
 * load area (struct ful_load_ev) and, when the bound notification has
 * the kind armed, signals it once and disarms it:
 *   FUL_LBE_WAKE    a core leaves idle to run a thread
 *   FUL_LBE_CREATE  a thread is started (THREAD_START) on this core's call
 *   FUL_LBE_BUSY    a tick finds a thread running on a core the holder
 *                   asked to watch (paper 004's "the running task is on
 *                   the busiest core": which core is the busiest is the
 *                   balancer's decision, the watch mask it passes to ARM)
 * What any of it means for balancing is the policy's business in user
 * space; the kernel neither decides nor rate-limits beyond "one signal
 * per arm".
 *
 * Locks: lbe.lock (lbevent.c) guards the binding; it is taken by bind,
 * forget and by the one event that clears an armed bit (so at most once
 * per ARM), never on the context-switch path: there the wake is only
 * counted and, if armed, noted in c->lbe_owed,
 * which the icc_flush that ends every switch already tests; it is
 * signalled there (icc_flush_owed), after the switch.
 */
#ifndef KERNEL_LBEVENT_H
#define KERNEL_LBEVENT_H

#include "percpu.h"
#include "types.h"
#include <fulcrum/load.h>
#include <fulcrum/syscall.h>

struct ntfn;
extern struct ful_load_page load_area; /* load.h */

/* c->lbe_owed, beside the cores owed an IPI_ICC (c->ipi_owed): an
 * armed FUL_LBE_WAKE noted in the switch books, signalled by the next
 * icc_flush (icc_flush_owed), which every switch ends with. */

/* c->lbe_wake: count this core's wakes (a notification is bound and the
 * core is in lbe_cores), and signal them (FUL_LBE_WAKE armed too). */
#define LBE_HINT_COUNT 1u
#define LBE_HINT_SIGNAL 2u

/* Armed kinds (FUL_LBE_*), the cores whose wakes and creates signal, the
 * cores whose ticks count and signal FUL_LBE_BUSY; set by ARM (any
 * core, lbe.lock), an armed bit cleared by the event that signals it.
 * Each core's c->lbe_wake mirrors "bound and the core in lbe_cores" and
 * "WAKE armed" (LBE_HINT_*, under lbe.lock), so that an idle exit tests
 * one byte at hand and, with nothing bound, does nothing else. */
extern _Atomic uint32_t lbe_armed;
extern _Atomic uint64_t lbe_cores;
extern _Atomic uint64_t lbe_watch;

/** LBE_BIND: bind @n for the kinds @events (0 < events, no bits outside
 *  FUL_LBE_ALL: else -FUL_EINVAL, checked by the caller); every kind is
 *  armed at once, for every core, the watch mask empty. Rebinding the
 *  bound @n sets new kinds. -FUL_ESTATE if another notification that
 *  still has capabilities is bound. Thread context, IRQs masked. */
int lbe_bind(struct ntfn *n, uint32_t events);
/** LBE_BIND with events 0: unbind @n. -FUL_ESTATE if @n is not bound. */
int lbe_unbind(struct ntfn *n);
/** LBE_ARM: watch @watch, signal wakes and creates of @cores, and arm
 *  @events. -FUL_ESTATE if @n is not the bound notification. */
int lbe_arm(struct ntfn *n, uint32_t events, uint64_t cores,
	    uint64_t watch);
/** @n lost its last capability (ntfn_orphan): unbind it if bound. */
void lbe_forget(struct ntfn *n);
/** Kind @ev happened on @c, counted already: if it is armed, disarm it
 *  and signal the bound notification (the only caller that takes
 *  lbe.lock). Not on the switch path. IRQs masked. */
void lbe_fire(struct cpu *c, uint32_t ev);
/** A thread was started by a call on @c (THREAD_START). IRQs masked. */
void lbe_create(struct cpu *c);
/** A tick of watched core @c found a thread running: count, signal. */
void lbe_busy(struct cpu *c);
/** Tick of @c with a thread running: FUL_LBE_BUSY if @c is watched. */
static inline void lbe_tick(struct cpu *c)
{
	if (__builtin_expect(atomic_load_explicit(&lbe_watch,
						  memory_order_relaxed) >>
				     c->id & 1,
			     0))
		lbe_busy(c);
}

/** The load books of @c's switch from idle to a thread (load.h): while
 *  a notification is bound and @c is in the cores of the last ARM, count
 *  the wake and, if the kind is armed, owe its signal to the next
 *  icc_flush (after the switch). Otherwise one byte tested. Owner, IRQs
 *  masked; no lock. */
static inline void lbe_wake(struct cpu *c)
{
	unsigned h = atomic_load_explicit(&c->lbe_wake, memory_order_relaxed);
	if (__builtin_expect(h, 0)) {
		load_area.ev[c->id].wake++;
		if (h & LBE_HINT_SIGNAL)
			c->lbe_owed = true;
	}
}

#endif
