/*
 * The balancer (see balancer.h). The policy, the snapshot
 * and the log are shared by the balancer thread and whoever places
 * threads, under one lock; the lock is never held across a blocking
 * wait, only across a decision and its system calls.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/bootinfo.h>

#include "balancer.h"

#define BAL_PRIO 200 /* above every worker: a round is never delayed */
#define BAL_SETTLE_US 20000000UL
#define BAL_PLACED_US 2000000UL /* FUL_BAL_SETTLE's wait */

static struct {
	atomic_flag lock;
	struct lb_policy pol;
	struct lb_snap snap;
	struct lb_log log;
	long ntfn;          /* wakes the balancer thread (BAL_BIT_*, and the
			     * kernel's FUL_LBE_* while bound) */
	struct ful_thread th;
	_Atomic bool running;
	_Atomic unsigned long rounds;
	_Atomic unsigned long moves[LB_TRIG_COUNT]; /* per trigger */
	bool ready;
	/* Kernel events (the balancer thread's; watch under the lock): */
	unsigned bound;     /* FUL_LBE_* bound to ntfn, 0: none (written by
			     * the balancer thread, under the lock too) */
	ful_cpus_t watch;   /* [lock] the core the last decision found
			     * busiest, as a mask */
	_Atomic unsigned long ev_rounds; /* rounds the kernel's events opened */
} bal = {.lock = ATOMIC_FLAG_INIT};

/* Bits of bal.ntfn besides the kernel's FUL_LBE_* */
#define BAL_BIT_DEMAND 1ul
#define BAL_BIT_STOP 2ul
#define BAL_BIT_RECONF 4ul /* the policy changed: bind or unbind events */

static void bal_lock(void)
{
	ful_flag_lock(&bal.lock);
}

static void bal_unlock(void)
{
	ful_flag_unlock(&bal.lock);
}

/** The decisions' clock: the system counter, in the units of the load
 *  area (stamp, windows), which the utilization readers roll the
 *  published figures up to (a time in microseconds there would read as
 *  long before every stamp) and the log's "t" documents. */
static unsigned long bal_now(void)
{
	return ful_counter();
}

int bal_init(const char *name)
{
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	bal_lock();
	int err = lb_policy_init(&bal.pol, name);
	if (!err) {
		lb_snap_init(&bal.snap, ful_load_area(), si.cpu);
		bal.ready = true;
	}
	bal_unlock();
	return err;
}

int bal_tune(const char *name, long value)
{
	bal_lock();
	int err = lb_tunable_set(&bal.pol, name, value);
	bal_unlock();
	return err;
}

int bal_switch(const char *name)
{
	struct lb_policy p;
	bal_lock();
	int err = bal.ready ? lb_policy_init(&p, name) : LB_E_NAME;
	if (!err)
		bal.pol = p;
	bal_unlock();
	if (!err && atomic_load(&bal.running)) /* it may wait on events */
		ful_ntfn_signal((unsigned)bal.ntfn, BAL_BIT_RECONF);
	return err;
}

unsigned bal_tunables(char *name, unsigned n, struct lb_tunable *out,
		      unsigned max)
{
	bal_lock();
	unsigned k = bal.ready ? bal.pol.ntunables : 0;
	if (n)
		snprintf(name, n, "%s", bal.ready ? bal.pol.name : "");
	for (unsigned i = 0; i < k && i < max; i++)
		out[i] = bal.pol.tun[i];
	bal_unlock();
	return k;
}

/** Is @tid a live user thread in the load area (a policy may score it)? */
static bool bal_user_thread(unsigned tid)
{
	if (!tid || FUL_TID_SLOT(tid) >= FUL_LOAD_THREADS)
		return false;
	const struct ful_load_thread *t =
		&ful_load_area()->thread[FUL_TID_SLOT(tid)];
	return FUL_LOAD_RLX(&t->tid) == tid &&
	       !(FUL_LOAD_RLX(&t->flags) & FUL_LT_KERNEL);
}

unsigned bal_scores(const unsigned *tids, int *out, unsigned n, int none)
{
	unsigned k = 0;
	bal_lock();
	bool has = bal.ready && bal.pol.score;
	for (unsigned i = 0; i < n; i++) {
		int v;
		if (has && bal_user_thread(tids[i]) &&
		    bal.pol.score(&bal.pol, tids[i], &v))
			out[i] = v, k++;
		else
			out[i] = none;
	}
	bal_unlock();
	return k;
}

/** Placement with the lock held (@nice: the weight policies use it). */
static unsigned bal_place_locked(unsigned slice_ms, unsigned affinity,
				 int nice)
{
	struct lb_new_thread nt = {.slice_ms = slice_ms, .affinity = affinity,
				   .nice = nice};
	struct lb_decision *d = lb_log_next(&bal.log);
	return lb_place(&bal.pol, &bal.snap, bal_now(), &nt, d);
}

unsigned bal_place(unsigned slice_ms, unsigned affinity)
{
	bal_lock();
	unsigned cpu = bal_place_locked(slice_ms, affinity, 0);
	bal_unlock();
	return cpu;
}

unsigned bal_place_nice(unsigned slice_ms, int nice, unsigned long *seq)
{
	bal_lock();
	*seq = bal.log.next;
	unsigned cpu = bal_place_locked(slice_ms, 0, nice);
	bal_unlock();
	return cpu;
}

/** bal_wait_settled with a timeout of @us. */
static bool bal_wait_settled_us(unsigned tid, unsigned long us)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(us);
	struct ful_load_thread t;
	for (;;) {
		ful_load_read_thread(ful_load_area(), FUL_TID_SLOT(tid), &t);
		if (t.tid != tid || (t.state != FUL_TS_INACTIVE &&
				     t.state != FUL_TS_MIGRATING))
			return true;
		if (ful_counter() > dl)
			return false;
		ful_yield();
	}
}

bool bal_wait_settled(unsigned tid)
{
	return bal_wait_settled_us(tid, BAL_SETTLE_US);
}

/** Name thread @tid in placement record @seq, if that record is still
 *  in the log and names no thread yet. Balancer lock held. */
static void bal_log_name_locked(unsigned long seq, unsigned tid)
{
	struct lb_decision *d = (struct lb_decision *)lb_log_get(&bal.log, seq);
	if (d && d->kind == LB_KIND_PLACE && d->nmoves && !d->move[0].tid)
		d->move[0].tid = tid;
}

bool bal_placed(unsigned long seq, unsigned tid)
{
	/* A client's thread that was started arrives within milliseconds;
	 * one created and never started would hold whoever serves the
	 * client (every other client with it) for the whole wait. */
	bool ok = bal_wait_settled_us(tid, BAL_PLACED_US);
	bal_lock();
	bal_log_name_locked(seq, tid);
	bal_unlock();
	return ok;
}

int bal_thread_spawn(const struct ful_thread_args *a, struct ful_thread *out)
{
	struct ful_thread_args pa = *a;
	bal_lock();
	unsigned long seq = bal.log.next;
	pa.cpu = bal_place_locked(a->slice_ms ? a->slice_ms : 10, 0, a->nice);
	int err = ful_thread_spawn(&pa, out);
	if (!err) /* the record names the new thread */
		bal_log_name_locked(seq, (unsigned)out->tid);
	/* The next decision must see this thread in its core's load. */
	if (!err && !bal_wait_settled((unsigned)out->tid))
		err = -FUL_ETIMEOUT;
	bal_unlock();
	return err;
}

/** A round with the lock held; the lock is released on return. */
static unsigned bal_round_unlock(enum lb_trigger trigger)
{
	struct ful_move mv[LB_MAX_MOVES];
	struct lb_decision *d = lb_log_next(&bal.log);
	unsigned n = lb_rebalance(&bal.pol, &bal.snap, bal_now(), trigger,
				  mv, LB_MAX_MOVES, d);
	/* A round that repeats the record before it is not kept (the one
	 * before stands for it), so a short period cannot flush the ring;
	 * d stays readable until the next record takes its slot. */
	if (!n && lb_log_repeats(&bal.log, d))
		lb_log_unnext(&bal.log);
	for (unsigned i = 0; i < n; i++) /* the trace rings name the round */
		mv[i].decision = (unsigned)d->seq + 1;
	long done = n ? ful_migrate(FUL_SLOT_SCHED, mv, n) : 0;
	/* The core to watch for FUL_LBE_BUSY (paper 004: the running task
	 * is on the busiest core), as this decision found it. */
	if (bal.bound)
		bal.watch = d->has_util && d->ut.busiest < FUL_LOAD_CPUS
				    ? ful_cpus_one(d->ut.busiest)
				    : ful_cpus_none();
	/* A moved thread is counted on neither core until it lands: the
	 * next decision, whoever makes it, must see it where it went. */
	for (unsigned i = 0; i < n; i++)
		if (mv[i].result == FUL_MOVE_DONE && !bal_wait_settled(mv[i].tid))
			printf("balancer: move of %u to cpu%u did not land\n",
			       mv[i].tid, mv[i].cpu);
	bal_unlock();
	if (done > 0 && (unsigned)trigger < LB_TRIG_COUNT)
		atomic_fetch_add(&bal.moves[trigger], (unsigned long)done);
	for (unsigned i = 0; i < n; i++)
		if (mv[i].result != FUL_MOVE_DONE)
			printf("balancer: move of %u to cpu%u: %d\n", mv[i].tid,
			       mv[i].cpu, mv[i].result);
	return done > 0 ? (unsigned)done : 0;
}

unsigned bal_rebalance(enum lb_trigger trigger)
{
	bal_lock();
	return bal_round_unlock(trigger);
}

/* The kernel's event counters the balancer watches (struct ful_load_ev
 * summed over the cores of a mask). */
struct bal_evsum {
	unsigned long wake, create, busy;
};

static void bal_ev_sum(ful_cpus_t cores, struct bal_evsum *e)
{
	const struct ful_load_page *a = ful_load_area();
	*e = (struct bal_evsum){0};
	for (unsigned c = 0; c < FUL_LOAD_CPUS; c++) {
		if (!ful_cpus_has(cores, c))
			continue;
		e->wake += FUL_LOAD_RLX(&a->ev[c].wake);
		e->create += FUL_LOAD_RLX(&a->ev[c].create);
		e->busy += FUL_LOAD_RLX(&a->ev[c].busy);
	}
}

/** The cores whose events count: the eligible ones of the last decision
 *  (the rootserver's core, where this thread runs, only with
 *  include_root), else every online core but this one. */
static ful_cpus_t bal_ev_cores(void)
{
	ful_cpus_t m = bal.snap.conf.mask;
	if (ful_cpus_empty(m)) {
		const struct ful_load_page *a = ful_load_area();
		m = ful_cpus_andnot(ful_cpus_first(a->hdr.ncpus),
				    ful_cpus_one(bal.snap.root_cpu));
	}
	return m;
}

/** The trigger of the kinds in @bits (busiest first), LB_TRIG_COUNT if
 *  none. */
static enum lb_trigger bal_ev_trigger(unsigned long bits)
{
	return bits & FUL_LBE_BUSY     ? LB_TRIG_BUSIEST
	       : bits & FUL_LBE_WAKE   ? LB_TRIG_WAKE
	       : bits & FUL_LBE_CREATE ? LB_TRIG_CREATE
				       : LB_TRIG_COUNT;
}

/** Events counted since @seen among the kinds bound: their trigger, or
 *  LB_TRIG_COUNT. */
static enum lb_trigger bal_ev_since(const struct bal_evsum *seen,
				    ful_cpus_t cores)
{
	struct bal_evsum now;
	bal_ev_sum(cores, &now);
	unsigned long bits = 0;
	if (now.busy != seen->busy)
		bits |= FUL_LBE_BUSY;
	if (now.wake != seen->wake)
		bits |= FUL_LBE_WAKE;
	if (now.create != seen->create)
		bits |= FUL_LBE_CREATE;
	return bal_ev_trigger(bits & bal.bound);
}

/** Bind the kinds @events to bal.ntfn (0: unbind). */
static void bal_ev_bind(unsigned events)
{
	long err = ful_lbe_bind(FUL_SLOT_SCHED, (unsigned)bal.ntfn, events);
	if (err && events)
		printf("balancer: events not bound: %ld (rounds on the timer)\n",
		       err);
	bal.bound = err ? 0 : events;
}

/** Sleep @ms on bal.ntfn, whatever bits arrive, unless stopped. */
static void bal_gap(long ms)
{
	unsigned long end = ful_counter() + ful_us_to_ticks((unsigned long)ms * 1000);
	for (;;) {
		unsigned long now = ful_counter(), bits;
		if (now >= end || !atomic_load(&bal.running))
			return;
		if (ful_ntfn_wait((unsigned)bal.ntfn, &bits,
				  ful_ticks_to_us(end - now) + 1) == 0 &&
		    (bits & BAL_BIT_STOP))
			return;
	}
}

/**
 * What opens the next round. With kernel events bound: arm them (for
 * the eligible cores, watching the busiest), then take what was counted
 * since @seen at once, else wait for a signal; no timer. Otherwise the
 * period's timeout (timer) or a signal (demand). LB_TRIG_COUNT: no round
 * (stopped, or the policy changed).
 */
static __attribute__((noinline)) enum lb_trigger
bal_wait_event(struct bal_evsum *seen)
{
	unsigned long bits = 0;
	ful_cpus_t cores = bal_ev_cores();
	/* bal.watch without the lock: a stale mask only watches the core
	 * the decision before the last found busiest */
	ful_lbe_arm(FUL_SLOT_SCHED, (unsigned)bal.ntfn, bal.bound, cores,
		    *(volatile ful_cpus_t *)&bal.watch & cores);
	enum lb_trigger t = bal_ev_since(seen, cores);
	if (t != LB_TRIG_COUNT)
		return t;
	ful_ntfn_wait((unsigned)bal.ntfn, &bits, FUL_FOREVER);
	t = bal_ev_trigger(bits);
	return t != LB_TRIG_COUNT ? t
	       : bits & BAL_BIT_DEMAND ? LB_TRIG_DEMAND
				       : LB_TRIG_COUNT;
}

/** What opens the next round (see bal_wait_event for the events). */
static inline enum lb_trigger bal_wait_trigger(long period,
					       struct bal_evsum *seen)
{
	unsigned long bits = 0;
	if (__builtin_expect(!bal.bound, 1)) {
		long r = ful_ntfn_wait((unsigned)bal.ntfn, &bits,
				       (unsigned long)period * 1000);
		if (r == -FUL_ETIMEOUT)
			return LB_TRIG_TIMER;
		return bits & BAL_BIT_DEMAND ? LB_TRIG_DEMAND : LB_TRIG_COUNT;
	}
	return bal_wait_event(seen);
}

/**
 * The balancer thread. A policy that asks for kernel events (opzone)
 * gets rounds on them: a signal, or events counted while disarmed, opens
 * a round; after each, the thread waits period_ms before it arms again
 * (at most one event round per period; events meanwhile are counted and
 * open the next round at once). Other policies: a round per period, or
 * on demand.
 */
static void bal_main(void *arg)
{
	(void)arg;
	long period = 100;
	unsigned events = 0, tried = 0; /* asked for; last bind attempted */
	struct bal_evsum seen = {0};
	while (atomic_load(&bal.running)) {
		/* The policy may be switched or tuned (bal_switch): read it
		 * under the lock, which this thread never waits for. */
		if (!atomic_flag_test_and_set_explicit(&bal.lock,
						       memory_order_acquire)) {
			lb_tunable_get(&bal.pol, "period_ms", &period);
			events = bal.pol.events;
			bal_unlock();
		}
		if (__builtin_expect(events != tried, 0)) {
			bal_ev_bind(events); /* a failure: timer rounds */
			tried = events;
			bal_ev_sum(bal_ev_cores(), &seen);
		}
		enum lb_trigger trig = bal_wait_trigger(period, &seen);
		if (!atomic_load(&bal.running))
			break;
		if (trig == LB_TRIG_COUNT)
			continue;
		/* Never wait for the lock here: this thread outranks every
		 * holder on its core, which would then never run. A busy
		 * balancer skips the round (and with events, waits a period
		 * first: the holder may be on this core, below this thread). */
		if (atomic_flag_test_and_set_explicit(&bal.lock,
						      memory_order_acquire)) {
			if (bal.bound)
				bal_gap(period);
			continue;
		}
		if (bal.bound) /* what happens from here on is news */
			bal_ev_sum(bal_ev_cores(), &seen);
		bal_round_unlock(trig);
		atomic_fetch_add(&bal.rounds, 1);
		if (bal.bound && trig != LB_TRIG_DEMAND) {
			atomic_fetch_add(&bal.ev_rounds, 1);
			bal_gap(period);
		}
	}
	if (bal.bound)
		bal_ev_bind(0);
}

int bal_start(void)
{
	if (!bal.ready || atomic_load(&bal.running))
		return -FUL_ESTATE;
	long s = ful_slot_alloc();
	if (s < 0)
		return (int)s;
	long err = ful_ntfn_create(FUL_SLOT_POOL, (unsigned)s);
	if (err < 0) {
		ful_slot_free((unsigned)s);
		return (int)err;
	}
	bal.ntfn = s;
	atomic_store(&bal.running, true);
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	struct ful_thread_args a = {.fn = bal_main, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = BAL_PRIO,
				    .cpu = si.cpu, .name = "balancer"};
	err = ful_thread_spawn(&a, &bal.th);
	if (err)
		atomic_store(&bal.running, false);
	return (int)err;
}

/* How long bal_stop waits for the balancer thread to end, and then for
 * the kill of a thread that did not: a stop that never comes must not
 * hang its caller (lb_stress hung once in bal_stop, silent for 300 s). */
#define BAL_STOP_US 20000000UL

/** Wait until the balancer thread is gone; it is killed if it has not
 *  ended in BAL_STOP_US. 0 when it ended by itself, -FUL_ETIMEOUT when
 *  it had to be killed (said on the console, with its state and core),
 *  -FUL_ESTATE if even the kill did not end it (its memory is kept). */
static int bal_stop_wait(void)
{
	struct ful_thread_info info;
	unsigned long dl = ful_counter() + ful_us_to_ticks(BAL_STOP_US);
	int err = 0;
	while (ful_thread_info(bal.th.slot, &info) == 0) {
		if (ful_counter() > dl) {
			if (err)
				return -FUL_ESTATE;
			printf("balancer: thread %u did not stop in %lu s: "
			       "state %u on cpu%u, %lu migrations; killed\n",
			       info.tid, BAL_STOP_US / 1000000, info.state,
			       info.cpu, info.migrations);
			ful_thread_kill(bal.th.slot);
			err = -FUL_ETIMEOUT;
			dl = ful_counter() + ful_us_to_ticks(BAL_STOP_US);
		}
		ful_yield();
	}
	return err;
}

int bal_stop(void)
{
	if (!atomic_exchange(&bal.running, false))
		return 0;
	ful_ntfn_signal((unsigned)bal.ntfn, BAL_BIT_STOP);
	int err = bal_stop_wait();
	if (err == -FUL_ESTATE)
		return err; /* alive: its stack stays allocated */
	ful_cap_delete(bal.th.slot);
	ful_slot_free(bal.th.slot);
	free(bal.th.mem); /* its stack, TLS and IPC buffer */
	bal.th.mem = NULL;
	ful_cap_delete((unsigned)bal.ntfn);
	ful_slot_free((unsigned)bal.ntfn);
	return err;
}

void bal_demand(void)
{
	if (atomic_load(&bal.running))
		ful_ntfn_signal((unsigned)bal.ntfn, BAL_BIT_DEMAND);
}

int bal_thread_info(struct ful_thread_info *info)
{
	if (!atomic_load(&bal.running))
		return -FUL_ESTATE;
	return (int)ful_thread_info(bal.th.slot, info);
}

unsigned long bal_rounds(void)
{
	return atomic_load(&bal.rounds);
}

unsigned long bal_event_rounds(void)
{
	return atomic_load(&bal.ev_rounds);
}

unsigned long bal_moves(enum lb_trigger trigger)
{
	return (unsigned)trigger < LB_TRIG_COUNT
		       ? atomic_load(&bal.moves[trigger])
		       : 0;
}

const struct lb_log *bal_log(void)
{
	return &bal.log;
}

unsigned long bal_log_next(void)
{
	return bal.log.next;
}

void bal_log_dump(unsigned long from)
{
	static char line[LB_JSON_MAX];
	for (unsigned long s = from; s < bal.log.next; s++) {
		const struct lb_decision *d = lb_log_get(&bal.log, s);
		if (d && lb_decision_json(d, line, sizeof(line)) > 0)
			printf("LBLOG %s\n", line);
	}
}
