/*
 * A fabricated load area, written the way the kernel writes the real one
 * (seq odd while a record changes, hdr.tgen bumped on thread creation,
 * exit, move, slice, nice and affinity changes, per-core figures derived from
 * the thread records). For the host tests and the rootserver's decision
 * benchmarks, which need a deterministic area with no other core active.
 * Thread slot = FUL_TID_SLOT(tid).
 */
#ifndef LB_FAKE_H
#define LB_FAKE_H

#include <ful/load.h>

void lb_fake_init(struct ful_load_page *a, unsigned ncpus);
/** Add thread @tid on @cpu (affinity: every core). false if its slot is
 *  out of range or taken. */
bool lb_fake_add(struct ful_load_page *a, unsigned tid, unsigned cpu,
		 unsigned slice_ms, unsigned state);
void lb_fake_set_state(struct ful_load_page *a, unsigned tid, unsigned state);
void lb_fake_set_affinity(struct ful_load_page *a, unsigned tid,
			  unsigned mask);
/** Set @tid's nice value and its weight (the kernel's table). */
void lb_fake_set_nice(struct ful_load_page *a, unsigned tid, int nice);
void lb_fake_set_flags(struct ful_load_page *a, unsigned tid, unsigned flags);
void lb_fake_move(struct ful_load_page *a, unsigned tid, unsigned cpu);
void lb_fake_kill(struct ful_load_page *a, unsigned tid);
/** Set the window parameters (windows of @win ticks from counter value
 *  @epoch, index @idx0 there; a multiple of FUL_UTIL_LONG_WINS). */
void lb_fake_util_par(struct ful_load_page *a, unsigned long epoch,
		      unsigned long win, unsigned long idx0);
/** Core @cpu's window figures as the kernel publishes them: up to
 *  @stamp, in the window of @stamp, @cur busy ticks in it so far, the
 *  last short and long windows at @short_pm / @long_pm permille, @lcur
 *  busy ticks in the complete windows of its long window; @idle_open:
 *  idle since @stamp. util_now as a tick at @stamp leaves it: the
 *  figure at @stamp if busy, none (0) if idle. */
void lb_fake_cpu_util(struct ful_load_page *a, unsigned cpu,
		      unsigned long stamp, int idle_open, unsigned long cur,
		      unsigned long lcur, unsigned short_pm, unsigned long_pm);
/** Thread @tid's window figures: run time @cur in window @idx, @last in
 *  the one before (its runtime is set to base + @cur). */
void lb_fake_thread_util(struct ful_load_page *a, unsigned tid,
			 unsigned long idx, unsigned long cur,
			 unsigned long last);
/** Carry out @n moves as FUL_SYS_MIGRATE would; returns moves done. */
unsigned lb_fake_apply(struct ful_load_page *a, struct ful_move *moves,
		       unsigned n);
/** The thread record of @tid (NULL if not live). */
const struct ful_load_thread *lb_fake_thread(const struct ful_load_page *a,
					     unsigned tid);

#endif
