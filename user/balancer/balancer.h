/*
 * The balancer: runs a policy (user/policy) on the kernel's load area and
 * carries its decisions out with FUL_SYS_MIGRATE. A library: the
 * rootserver runs the system's instance; the tests and benchmarks of the
 * balancer run their own, in their own task, over their own threads
 * (they need FUL_SLOT_SCHED, FUL_SLOT_POOL and the load area mapped).
 *   placement  bal_place() when a thread is created (bal_thread_spawn
 *              places, creates, starts and waits until the kernel
 *              counts the thread, so the next decision sees it)
 *   rebalance  bal_rebalance(): on the timer (the balancer thread, every
 *              period_ms), on demand (bal_demand() wakes that thread,
 *              or a direct call), or when the caller saw a core go idle;
 *              for a policy that asks for kernel events (lb_policy
 *              events: opzone), the balancer thread binds them
 *              (FUL_SYS_LBE_BIND) and runs its rounds on them instead of
 *              the timer: a core leaving idle (wake), a thread started
 *              (create), a tick of the busiest core (busiest)
 * Every decision goes to the log (lb_log), dumped as JSON lines with the
 * prefix "LBLOG ". One balancer per task; calls are serialised by its
 * lock, so any thread of the task may use it.
 */
#ifndef BAL_BALANCER_H
#define BAL_BALANCER_H

#include <ful/ful.h>

#include "../policy/lb.h"

/** Set up with policy @name (default tunables): mginkgo, fulcrum, alb,
 *  count or opzone. 0 or LB_E_NAME. */
int bal_init(const char *name);
/** Set a tunable of the current policy. 0, LB_E_NAME or LB_E_RANGE.
 *  Like bal_switch, under the lock every round and placement holds: it
 *  takes effect at the next decision, never in the middle of one. */
int bal_tune(const char *name, long value);
/** Switch to policy @name with its default tunables (the snapshot and
 *  the log stay). 0, or LB_E_NAME with nothing changed; LB_E_NAME also
 *  before bal_init. */
int bal_switch(const char *name);
/** A copy of the current policy's name (@n bytes, NUL-terminated) and
 *  of up to @max tunables into @out; returns how many tunables it has
 *  (0 before bal_init). */
unsigned bal_tunables(char *name, unsigned n, struct lb_tunable *out,
		      unsigned max);
/** The core for a new thread of @slice_ms (affinity 0: any, nice 0);
 *  logged. bal_thread_spawn places with the thread's own nice value. */
unsigned bal_place(unsigned slice_ms, unsigned affinity);
/** The core for a thread of @nice that a client is about to create
 *  (FUL_BAL_PLACE), logged as decision *@seq. */
unsigned bal_place_nice(unsigned slice_ms, int nice, unsigned long *seq);
/** The client created thread @tid where decision @seq placed it
 *  (FUL_BAL_SETTLE): wait until the kernel counts it (false after a
 *  generous timeout), and name it in the decision's record. */
bool bal_placed(unsigned long seq, unsigned tid);
/** Place, then ful_thread_spawn @a there (a->cpu is ignored); waits
 *  until the kernel counts the new thread. 0 or -FUL_E*. */
int bal_thread_spawn(const struct ful_thread_args *a, struct ful_thread *out);
/** Wait until thread @tid has arrived on its core (its record is neither
 *  INACTIVE nor MIGRATING). false after a generous timeout. */
bool bal_wait_settled(unsigned tid);
/** One rebalance round now; returns the moves the kernel made. */
unsigned bal_rebalance(enum lb_trigger trigger);
/** Start / stop the balancer thread on the rootserver's core. bal_stop:
 *  0, or -FUL_ETIMEOUT if the thread did not end within 20 s and was
 *  killed (-FUL_ESTATE: not even then). */
int bal_start(void);
int bal_stop(void);
/** Wake the balancer thread for a round now (trigger "demand"). */
void bal_demand(void);
/** THREAD_INFO of the balancer thread (its runtime: what balancing
 *  costs its core). 0, or -FUL_ESTATE if it is not running. */
int bal_thread_info(struct ful_thread_info *info);
/** Rounds the balancer thread has run. */
unsigned long bal_rounds(void);
/** Of those, the rounds the kernel's events opened (FUL_SYS_LBE_*: a
 *  policy with `events`, e.g. opzone: no timer rounds then). */
unsigned long bal_event_rounds(void);
/** Moves the kernel made in rounds of @trigger, since boot (unlike the
 *  log, this never wraps). */
unsigned long bal_moves(enum lb_trigger trigger);
/** The policy's score of each of the @n threads @tids into @out (@none
 *  where it has none: a policy without scores, a kernel thread, a slot
 *  that does not hold that thread); how many it scored. Under the lock. */
unsigned bal_scores(const unsigned *tids, int *out, unsigned n, int none);
/** The log (records with seq >= since are lb_log_get(bal_log(), seq)). */
const struct lb_log *bal_log(void);
/** The seq the next decision will get. */
unsigned long bal_log_next(void);
/** Print records [from, bal_log_next()) as "LBLOG {...}" lines. */
void bal_log_dump(unsigned long from);

/** Answer balancer-control request @m (<fulcrum/balctl.h>) into @r as
 *  its badge allows: FUL_ROOT_BADGE_BAL every request, _PLACE only
 *  PLACE and SETTLE, any other -FUL_BAL_EPERM (balctl.c). */
void bal_ctl_request(const struct ful_msg *m, struct ful_msg *r);
/** Serve balancer control for this task's balancer on an endpoint of
 *  its own, from a thread on the caller's core (balserve.c): the slot
 *  of a placement capability to that endpoint (a WRITE copy badged
 *  FUL_ROOT_BADGE_PLACE), for the processes this task starts
 *  (ful_proc_attr.place); -FUL_E*. Once per task: later calls return
 *  the same slot. */
long bal_serve_start(void);

/* What bal_serve_start's thread has answered. */
struct bal_serve_stats {
	unsigned long places;      /* FUL_BAL_PLACE answered with a core */
	unsigned long settled;     /* FUL_BAL_SETTLE answered 0 */
	unsigned long first_place; /* counter at the first PLACE since the
				    * last reset, 0: none */
};
/** A copy of the figures; with @reset, forget the first PLACE's time. */
void bal_serve_stats(struct bal_serve_stats *out, bool reset);

#endif
