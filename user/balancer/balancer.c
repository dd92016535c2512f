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

static struct {
	atomic_flag lock;
	struct lb_policy pol;
	struct lb_snap snap;
	struct lb_log log;
	long ntfn;          /* wakes the balancer thread (bit 0: demand, bit 1: stop) */
	struct ful_thread th;
	_Atomic bool running;
	_Atomic unsigned long rounds;
	_Atomic unsigned long moves[LB_TRIG_IDLE + 1]; /* per trigger */
	bool ready;
} bal = {.lock = ATOMIC_FLAG_INIT};

static void bal_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&bal.lock, memory_order_acquire))
		ful_yield();
}

static void bal_unlock(void)
{
	atomic_flag_clear_explicit(&bal.lock, memory_order_release);
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

bool bal_wait_settled(unsigned tid)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(BAL_SETTLE_US);
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

int bal_thread_spawn(const struct ful_thread_args *a, struct ful_thread *out)
{
	struct ful_thread_args pa = *a;
	bal_lock();
	unsigned long seq = bal.log.next;
	pa.cpu = bal_place_locked(a->slice_ms ? a->slice_ms : 10, 0, a->nice);
	int err = ful_thread_spawn(&pa, out);
	struct lb_decision *d = (struct lb_decision *)lb_log_get(&bal.log, seq);
	if (!err && d && d->nmoves) /* the record names the new thread */
		d->move[0].tid = (unsigned)out->tid;
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
	long done = n ? ful_migrate(FUL_SLOT_SCHED, mv, n) : 0;
	/* A moved thread is counted on neither core until it lands: the
	 * next decision, whoever makes it, must see it where it went. */
	for (unsigned i = 0; i < n; i++)
		if (mv[i].result == FUL_MOVE_DONE && !bal_wait_settled(mv[i].tid))
			printf("balancer: move of %u to cpu%u did not land\n",
			       mv[i].tid, mv[i].cpu);
	bal_unlock();
	if (done > 0 && (unsigned)trigger <= LB_TRIG_IDLE)
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

/** The balancer thread: a round per period, or when woken on demand. */
static void bal_main(void *arg)
{
	(void)arg;
	long period = 100;
	while (atomic_load(&bal.running)) {
		/* The policy may be switched or tuned (bal_switch): read it
		 * under the lock, which this thread never waits for. */
		if (!atomic_flag_test_and_set_explicit(&bal.lock,
						       memory_order_acquire)) {
			lb_tunable_get(&bal.pol, "period_ms", &period);
			bal_unlock();
		}
		unsigned long bits = 0;
		long r = ful_ntfn_wait((unsigned)bal.ntfn, &bits,
				       (unsigned long)period * 1000);
		if (!atomic_load(&bal.running))
			break;
		/* Never wait for the lock here: this thread outranks every
		 * holder on its core, which would then never run. A busy
		 * balancer skips the round. */
		if (atomic_flag_test_and_set_explicit(&bal.lock,
						      memory_order_acquire))
			continue;
		bal_round_unlock(r == -FUL_ETIMEOUT ? LB_TRIG_TIMER
						    : LB_TRIG_DEMAND);
		atomic_fetch_add(&bal.rounds, 1);
	}
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

void bal_stop(void)
{
	if (!atomic_exchange(&bal.running, false))
		return;
	ful_ntfn_signal((unsigned)bal.ntfn, 2);
	struct ful_thread_info info;
	while (ful_thread_info(bal.th.slot, &info) == 0)
		ful_yield(); /* until EDEAD */
	ful_cap_delete(bal.th.slot);
	ful_slot_free(bal.th.slot);
	free(bal.th.mem); /* its stack, TLS and IPC buffer */
	bal.th.mem = NULL;
	ful_cap_delete((unsigned)bal.ntfn);
	ful_slot_free((unsigned)bal.ntfn);
}

void bal_demand(void)
{
	if (atomic_load(&bal.running))
		ful_ntfn_signal((unsigned)bal.ntfn, 1);
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

unsigned long bal_moves(enum lb_trigger trigger)
{
	return (unsigned)trigger <= LB_TRIG_IDLE
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
