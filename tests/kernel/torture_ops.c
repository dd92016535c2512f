/*
 * Torture stressors (torture.h): each claims request numbers until
 * torture_ops are issued, and for each picks a kind, a worker and a core
 * at random: any worker in any state (M workers also dead ones), any
 * core, its own included, now and then an offline one or a parked one.
 * Every request's result is checked against what the documentation
 * allows and counted exactly once (tort_account).
 */
#include "syscall.h"
#include "torture.h"
#include <fulcrum/load.h>

#define B(oc) (1u << (oc))
#define ERRS (B(OC_ENOTHREAD) | B(OC_EDEAD) | B(OC_EAGAIN))

/* The documented outcomes of each request (thread.h, icc.h, load.h). */
static const uint16_t tort_allowed[TOP_N] = {
	[TOP_MIGRATE] = B(OC_DONE) | B(OC_EINVAL) | B(OC_ESTATE) | ERRS,
	[TOP_MIGRATE_ASYNC] = B(OC_POSTED) | B(OC_EINVAL) | B(OC_ESTATE) | ERRS,
	[TOP_KILL] = B(OC_DONE) | ERRS,
	[TOP_KILL_ASYNC] = B(OC_POSTED) | ERRS,
	[TOP_CALL] = B(OC_DONE) | B(OC_EINVAL) | B(OC_EAGAIN),
	[TOP_CALL_ASYNC] = B(OC_POSTED) | B(OC_EINVAL) | B(OC_EAGAIN),
	[TOP_WAKE] = B(OC_DONE) | B(OC_ENOTHREAD),
	[TOP_PING] = B(OC_DONE),
	[TOP_SIGNAL] = B(OC_DONE),
	[TOP_SET] = B(OC_DONE) | B(OC_ESTATE) | ERRS,
	[TOP_START] = B(OC_DONE) | B(OC_ESTATE) | B(OC_EDEAD),
};

static enum tort_oc tort_class(enum tort_op op, int res)
{
	switch (res) {
	case 0:
		return op == TOP_MIGRATE_ASYNC || op == TOP_KILL_ASYNC ||
			       op == TOP_CALL_ASYNC
		       ? OC_POSTED
		       : OC_DONE;
	case -FUL_EINVAL: return OC_EINVAL;
	case -FUL_ESTATE: return OC_ESTATE;
	case -FUL_ENOTHREAD: return OC_ENOTHREAD;
	case -FUL_EDEAD: return OC_EDEAD;
	case -FUL_EAGAIN: return OC_EAGAIN;
	case -FUL_ETIMEOUT: return OC_LOST;
	default: return OC_BAD;
	}
}

/** Does the thread @tid, which request @op found gone (ENOTHREAD; for a
 *  start, EDEAD) or dying (EDEAD), live on? A thread never comes back:
 *  its slot's next occupant has another tid. */
static bool tort_alive_after(struct tort_stats *s, enum tort_op op,
			     int res, tid_t tid)
{
	if (res != -FUL_ENOTHREAD && res != -FUL_EDEAD)
		return false;
	struct thread *t = thread_lookup(tid);
	if (!t)
		return false;
	uint32_t st = atomic_load(&t->state);
	/* thread_lookup read the tid, then the state: by then the slot
	 * may hold a new thread. Its state is its own if the tid, read
	 * after it, is still @tid (a new occupant's tid is stored before
	 * its first state). */
	if (atomic_load(&t->tid) != tid || st == T_FREE || st == T_EMBRYO)
		return false;
	/* Killed while running, DEAD until switched out: no live thread.
	 * A request may say so as EDEAD, or as ENOTHREAD (THREAD_SET maps
	 * the migration's EDEAD to it, as FUL_SYS_MIGRATE does). */
	if ((res == -FUL_EDEAD || res == -FUL_ENOTHREAD) && op != TOP_START &&
	    st == T_DEAD)
		return false;
	if (!s->bad_res) { /* for the report */
		s->bad_tid = tid;
		s->bad_state = st;
	}
	return true;
}

void tort_account(struct tort_stats *s, enum tort_op op, int res,
		  bool offline, tid_t tid)
{
	enum tort_oc oc = tort_class(op, res);
	bool allowed = tort_allowed[op] & B(oc) &&
		       !(tid && tort_alive_after(s, op, res, tid));
	/* A request naming an offline core is refused, and only that. */
	if (oc != OC_LOST && (!allowed || (oc == OC_EINVAL) != offline)) {
		if (!s->bad_res)
			s->bad_op = op, s->bad_res = res ? res : 1;
		oc = OC_BAD;
	}
	s->issued[op]++;
	s->oc[op][oc]++;
}

/** A random core: usually an online one (the caller's own included),
 *  one time in 32 an offline one (ncpus, or past MAX_CPUS on 8). */
static unsigned tort_core(struct tort_stats *s)
{
	unsigned r = (unsigned)(rng_next(&s->seed) % 32);
	unsigned cpu = r ? r % T.ncpus : T.ncpus + r % 2;
	if (!cpu_is_online(cpu))
		s->to_offline++;
	else if (atomic_load_explicit(&cpus[cpu].parked, memory_order_relaxed))
		s->to_parked++;
	if (cpu == this_cpu_id())
		s->to_self++;
	return cpu;
}

/** Note @tid's state as the request leaves (racy: for the report). */
static void tort_sample(struct tort_stats *s, tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	uint32_t st = t ? atomic_load_explicit(&t->state, memory_order_relaxed)
			: T_FREE;
	s->target_state[st <= T_STARTING ? st : T_FREE]++;
}

/** M worker @slot's thread, reaping it first if it is gone; while it is
 *  being replaced, the dead one before it. */
static tid_t tort_mtarget(struct tort_stats *s, unsigned slot)
{
	tid_t tid = atomic_load(&T.slot[slot].tid);
	if (tid && !thread_lookup(tid))
		tort_reap(s, slot, tid, &s->seed);
	return tid ? tid : atomic_load(&T.slot[slot].prev);
}

/** Any worker: M (live or just dead), I, or (@any) P, which nothing
 *  but a ping may wake. */
static tid_t tort_target(struct tort_stats *s, bool any)
{
	unsigned n = any ? T.nw : T.nm + T.ni;
	unsigned w = (unsigned)(rng_next(&s->seed) % n);
	tid_t tid = w < T.nm ? tort_mtarget(s, w) : tort_worker(w).tid;
	tort_sample(s, tid);
	return tid;
}

static void tort_migrate(struct tort_stats *s, bool wait)
{
	tid_t tid = tort_target(s, true);
	unsigned cpu = tort_core(s);
	int res = thread_request(ICC_TASK_OUT, tid, cpu, wait);
	tort_account(s, wait ? TOP_MIGRATE : TOP_MIGRATE_ASYNC, res,
		     !cpu_is_online(cpu), tid);
}

/** Kill an M worker (two stressors may kill the same one at once); its
 *  successor is started by whoever finds it gone first. */
static void tort_kill(struct tort_stats *s, bool wait)
{
	unsigned slot = (unsigned)(rng_next(&s->seed) % T.nm);
	tid_t tid = tort_mtarget(s, slot);
	uint32_t inc = atomic_load(&T.slot[slot].inc);
	bool known = atomic_load(&T.slot[slot].tid) == tid; /* inc is tid's */
	tort_sample(s, tid);
	int res = thread_request(ICC_TASK_KILL, tid, 0, wait);
	/* Killed: from now on it must never run (tort_mworker checks). */
	if (wait && res == 0 && known)
		tort_bit_set(tort_inc_killed, inc);
	tort_account(s, wait ? TOP_KILL : TOP_KILL_ASYNC, res, false, tid);
	tort_reap(s, slot, tid, &s->seed);
}

/** CALL_FUNC body, in IRQ context on the target: mark the call's id
 *  (data[0]) once, on the core it was sent to (data[1]). */
static void tort_call_fn(void *arg)
{
	uint64_t *d = arg;
	if (this_cpu()->id != d[1])
		atomic_fetch_add(&T.misrouted, 1);
	if (tort_bit_set(tort_call_bits, (uint32_t)d[0]))
		atomic_fetch_add(&T.dup, 1);
}

/** A fire-and-forget CALL_FUNC, as icc_call_copy checks it: -FUL_EINVAL
 *  offline, -FUL_EAGAIN pool empty, 0 posted (or run here). */
static int tort_call_async(unsigned cpu, uint64_t id)
{
	if (!cpu_is_online(cpu))
		return -FUL_EINVAL;
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (r) {
		r->fn = tort_call_fn;
		r->arg = r->data;
		r->data[0] = id;
		r->data[1] = cpu;
		r->flags = ICC_F_AUTOFREE;
		icc_send(cpu, r);
		icc_flush();
	}
	arch_irq_restore(flags);
	return r ? 0 : -FUL_EAGAIN;
}

static void tort_call(struct tort_stats *s, bool wait)
{
	uint32_t id = atomic_fetch_add(&T.call_next, 1);
	unsigned cpu = tort_core(s);
	uint64_t d[2] = {id, cpu};
	int res = wait ? icc_call_copy(cpu, tort_call_fn, d, sizeof(d))
		       : tort_call_async(cpu, id);
	s->call_marks_due += res == 0;
	tort_account(s, wait ? TOP_CALL : TOP_CALL_ASYNC, res,
		     !cpu_is_online(cpu), 0);
}

static void tort_wake(struct tort_stats *s)
{
	tid_t tid = tort_target(s, false);
	tort_account(s, TOP_WAKE, thread_unpark(tid), false, tid);
}

/** Ping a P worker with no ping out: the pong count that answers it,
 *  then one wake-up, or two (a second waker finding the first record
 *  still in flight). Skipped if it is busy. */
static void tort_ping(struct tort_stats *s)
{
	struct tort_pw *p = &T.pw[rng_next(&s->seed) % T.np];
	uint32_t idle = 0;
	if (!atomic_compare_exchange_strong(&p->busy, &idle, 1))
		return;
	atomic_store(&p->need, atomic_load(&p->pongs) + 1);
	uint64_t r = rng_next(&s->seed);
	int res = thread_unpark(p->tid);
	if (r & 1) {
		for (volatile unsigned i = (unsigned)(r >> 8) % 1000; i; i--)
			;
		res |= thread_unpark(p->tid);
	}
	tort_account(s, TOP_PING, res, false, p->tid);
}

static void tort_signal_op(struct tort_stats *s)
{
	struct tort_iw *w = &T.iw[rng_next(&s->seed) % T.ni];
	tort_signal(w, 1ull << (s - T.st));
	tort_account(s, TOP_SIGNAL, 0, false, 0);
}

/** THREAD_SET of a random worker: an affinity (a random set of online
 *  cores, or all), a slice or a nice value. */
static void tort_set(struct tort_stats *s)
{
	tid_t tid = tort_target(s, true);
	uint64_t r = rng_next(&s->seed);
	uint64_t online = atomic_load(&cpus_online_mask);
	int res;
	if (r % 3 == 0) {
		uint64_t mask = (r >> 8) & online;
		res = thread_set_attr(tid, FUL_TA_AFFINITY,
				      mask && r % 4 ? mask : ~0ull);
	} else if (r % 3 == 1) {
		res = thread_set_attr(tid, FUL_TA_SLICE, 1 + (r >> 8) % 8);
	} else {
		res = thread_set_attr(tid, FUL_TA_NICE, (int64_t)((r >> 8) % 11) - 5);
	}
	tort_account(s, TOP_SET, res, false, tid);
}

/** One request of a random kind (weights out of 64); a move, kill or
 *  call is waited for with probability torture_sync percent. */
static void tort_request(struct tort_stats *s)
{
	uint64_t r = rng_next(&s->seed);
	unsigned w = (unsigned)(r % 64);
	bool wait = (r >> 8) % 100 < T.sync_pct;
	if (w < 16)
		tort_migrate(s, wait);
	else if (w < 24)
		tort_kill(s, wait);
	else if (w < 46)
		tort_call(s, wait);
	else if (w < 52)
		tort_wake(s);
	else if (w < 56)
		tort_ping(s);
	else if (w < 62)
		tort_signal_op(s);
	else
		tort_set(s);
}

void tort_stressor(void *arg)
{
	struct tort_stats *s = arg;
	for (unsigned n = 1;; n++) {
		if (atomic_fetch_add(&T.ops_next, 1) >= T.ops_total)
			break;
		tort_request(s);
		/* Let this core's workers run and change state. */
		if (n % 32 == 0) {
			if (rng_next(&s->seed) % 4 == 0)
				thread_sleep_ms(1);
			else
				thread_yield();
		}
	}
	atomic_fetch_add(&T.stressors_done, 1);
}
