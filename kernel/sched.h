/* Per-core scheduler: O(1) priority pick, round robin by time slice,
 * tick preemption, tickless idle, parking (IPI_RUN_IDLE). */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "percpu.h"
#include "thread.h"

#define SCHED_HZ 1000 /* scheduler tick, per second */

void sched_init_cpu(struct cpu *c);
/** Make @t (owned by o.cpu, not on any queue) READY on o.cpu's run
 *  queue, requesting preemption if it outranks the current thread. */
void sched_make_ready(struct owner o, struct thread *t);
/** Make a BLOCKED thread owned by o.cpu READY (leaving the sleepers
 *  list if it was sleeping). */
void sched_wake_blocked(struct owner o, struct thread *t);
/** Put the current thread on o.cpu's sleepers list until @deadline and
 *  block it. Consumes @o. */
void sched_sleep_until(struct owner o, uint64_t deadline);
/** Take a BLOCKED thread off o.cpu's sleepers list, if it is on it. */
void sched_unsleep(struct owner o, struct thread *t);
/** Take a READY thread off o.cpu's run queue. */
void sched_unqueue(struct owner o, struct thread *t);
/** Switch to the best thread of o.cpu. Consumes @o: on return the caller
 *  may be on another core. IRQs masked. */
void schedule(struct owner o);
/** Block the current thread (until @deadline in counter ticks if not ~0,
 *  on the sleepers list) and switch straight to @next, a BLOCKED thread
 *  o.cpu owns, unless a higher-priority thread is ready (then @next is
 *  made ready and the best thread runs). Consumes @o. */
void sched_block_switch(struct owner o, struct thread *next,
			uint64_t deadline);
/**
 * The IPC fastpath's hand-off (fastpath.c): the current thread of o.cpu,
 * already BLOCKED, gives the core to @next, a BLOCKED thread o.cpu owns
 * whose wait the fastpath completed, which it resumes at EL0 straight
 * from its user frame. Pre: no ready thread outranks @next, the core is
 * not parked, no switch pending. Returns in the blocked thread's context,
 * when a later switch resumes it, the thread that switched to it (for
 * sched_finish_switch). Consumes @o.
 */
struct thread *sched_fastpath_switch(struct owner o, struct thread *next);
/** sched_fastpath_switch(), but the current thread stays runnable: it
 *  is queued as a preempted thread (a signal woke a higher-priority
 *  thread). Same pre- and postconditions otherwise. */
struct thread *sched_fastpath_preempt(struct owner o, struct thread *next);
/**
 * The IPC fastpath's wait for a partner on another core: the current
 * thread @t of o.cpu, just made BLOCKED (its wake token checked), gives
 * up the core as schedule() would. If nothing else can run here, the
 * core idles in place (sched.c) and this returns true when @t is back by
 * its own wake-up alone, with no switch pending: the caller may then
 * finish @t's system call at once. false: @t is running again after
 * schedule() (or a real switch), and its caller re-checks its wait.
 * Consumes @o.
 */
bool sched_block_wait(struct owner o, struct thread *t);
/** sched_finish_switch() for the fastpath's switch (called by
 *  arch_fastpath_switch on the next thread's stack): @prev is BLOCKED,
 *  or READY on this core's run queue. */
void sched_fastpath_finish(struct thread *prev);
/** Second half of a switch, in the new thread's context: release the
 *  previous thread (post its TASK_IN if migrating, free it if dead). */
void sched_finish_switch(struct thread *prev);
/** Thread context: switch now if a switch was requested. */
void sched_preempt_point(void);
/** A preemption point inside a long system call. Pre: IRQs masked, and
 *  the caller holds nothing that a kill here would leak (what it holds
 *  hangs on t->sys_hold, which the thread's release drops). Takes the
 *  pending interrupts, and switches if one asked for it. Post: IRQs
 *  masked; the caller may now be on another core, or never return (if
 *  it was killed). */
void sched_preempt_window(void);
/** This core's idle loop. Never returns. */
void sched_idle_loop(void) __attribute__((noreturn));
/** Busy and idle ticks of core @c up to now, the stretch since its last
 *  switch included (an idle core has no tick). Any core, no lock. */
void sched_cpu_times(struct cpu *c, uint64_t *busy, uint64_t *idle);
/** Run time of @t up to now, in ticks, its running stretch included. */
uint64_t sched_thread_runtime(struct thread *t);

#endif
