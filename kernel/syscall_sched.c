/*
 * System calls of the scheduling capability that carry the balancer's
 * decisions: batch migration (FUL_SYS_MIGRATE) and per-thread scheduling
 * attributes (FUL_SYS_THREAD_SET). Threads are named by tid: the SCHED
 * capability is the authority over every user thread's placement, as in
 * the papers' rootserver. Kernel threads are never moved from EL0.
 */
#include "kernel.h"
#include "ipc.h"
#include "lbevent.h"
#include "load.h"
#include "syscall.h"
#include "vspace.h"
#include <fulcrum/load.h>

/** A user thread named @tid that may run on @cpu, or an error. */
static int sched_target(tid_t tid, uint64_t cpu, struct thread **out)
{
	if (cpu >= MAX_CPUS || !cpu_is_online((unsigned)cpu))
		return -FUL_EINVAL;
	struct thread *t = thread_lookup(tid);
	if (!t)
		return -FUL_ENOTHREAD;
	if (!t->vs || !(t->affinity >> cpu & 1))
		return -FUL_ESTATE;
	*out = t;
	return 0;
}

/**
 * Start one move: done here if this core owns the thread, else a
 * TASK_OUT record is posted to the owner (the IPI is owed, sent once for
 * the whole batch) and returned in *@req to be waited for. IRQs masked.
 */
static int migrate_start(struct owner o, const struct ful_move *m,
			 struct icc_req **req)
{
	struct thread *t;
	*req = NULL;
	int err = sched_target(m->tid, m->cpu, &t);
	if (err)
		return err;
	unsigned owner = atomic_load_explicit(&t->cpu, memory_order_acquire);
	if (owner == m->cpu &&
	    atomic_load_explicit(&t->state, memory_order_relaxed) != T_MIGRATING)
		return FUL_MOVE_ALREADY;
	if (owner == o.cpu->id) {
		if (!thread_still(t, m->tid)) /* its slot was reused */
			return -FUL_ENOTHREAD;
		o.cpu->trace_dec = m->decision; /* for its trace */
		err = thread_migrate_local(o, t, m->cpu);
		o.cpu->trace_dec = 0;
		return err == -FUL_EDEAD ? -FUL_ENOTHREAD : err;
	}
	struct icc_req *r = icc_req_alloc(ICC_TASK_OUT);
	if (!r)
		return -FUL_EAGAIN;
	r->tid = m->tid;
	r->dest = m->cpu;
	r->decision = m->decision;
	r->flags = 0;
	icc_post(owner, r);
	*req = r;
	return 0;
}

int64_t sys_migrate(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	uint64_t n = ARG(2);
	if (n > FUL_MIGRATE_MAX)
		return -FUL_ERANGE;
	struct ful_move mv[FUL_MIGRATE_MAX];
	struct icc_req *req[FUL_MIGRATE_MAX]; /* [0, n) set by migrate_start */
	size_t len = n * sizeof(mv[0]);
	if ((err = vspace_copy_in_rw(t->vs, mv, ARG(1), len)))
		return err;
	uint64_t flags;
	struct owner o = owner_enter(&flags);
	for (uint64_t i = 0; i < n; i++)
		mv[i].result = migrate_start(o, &mv[i], &req[i]);
	icc_flush(); /* one SGI per core for the whole batch */
	arch_irq_restore(flags);
	int64_t done = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (req[i]) {
			int res = icc_wait(req[i], 10000);
			mv[i].result = res == -FUL_EDEAD ? -FUL_ENOTHREAD : res;
		}
		done += mv[i].result == FUL_MOVE_DONE;
	}
	if ((err = vspace_copy_out(t->vs, ARG(1), mv, len)))
		return err;
	return done;
}

struct thread_set_req {
	tid_t tid;
	unsigned attr;
	int64_t value;
	int result;
};

/** Set @t's affinity to @mask on its owner o.cpu; a thread outside it
 *  moves to its first allowed core. The record is published once, with
 *  the new affinity and a core inside it: a reader must never see the
 *  new affinity with the core being left. A thread not started yet
 *  cannot move (MIGRATE's ESTATE): a mask without its core is refused
 *  and changes nothing, else it would start outside its affinity. */
static void thread_set_affinity(struct owner o, struct thread *t,
				uint64_t mask, int *result)
{
	uint32_t st = atomic_load_explicit(&t->state, memory_order_relaxed);
	if (!(mask >> o.cpu->id & 1) && (st == T_INACTIVE || st == T_STARTING)) {
		*result = -FUL_ESTATE;
		return;
	}
	t->affinity = mask;
	*result = 0;
	if (!(mask >> o.cpu->id & 1)) {
		int err = thread_migrate_local(o, t,
					       (unsigned)__builtin_ctzll(mask));
		/* Killed while running (DEAD until switched out): no live
		 * thread, as FUL_SYS_MIGRATE says; EDEAD is not THREAD_SET's. */
		*result = err == -FUL_EDEAD ? -FUL_ENOTHREAD : err;
	}
	/* Moved: thread_migrate_local published it with its new core.
	 * Still here (in flight to here, or not started): publish. */
	if (atomic_load_explicit(&t->cpu, memory_order_relaxed) == o.cpu->id)
		load_thread_static(t, o.cpu->id);
}

/** Is @t, owned here, on its way in? A thread moved while running
 *  stays in the sums of the core it leaves until it is switched out
 *  there, with its slice and weight: they must not change meanwhile. */
static bool thread_in_flight(struct thread *t)
{
	return atomic_load_explicit(&t->state, memory_order_relaxed) ==
	       T_MIGRATING;
}

/** Apply a THREAD_SET on the owner core: the slice, nice value and
 *  affinity are owner fields. -FUL_EAGAIN if the thread moved away, or
 *  (slice, nice) has not arrived yet. */
static void thread_set_here(void *arg)
{
	struct thread_set_req *r = arg;
	uint64_t flags;
	struct owner o = owner_enter(&flags);
	struct thread *t = thread_lookup(r->tid);
	r->result = -FUL_ENOTHREAD;
	bool here = t && atomic_load_explicit(&t->cpu, memory_order_acquire) ==
				 o.cpu->id;
	if (here && !thread_still(t, r->tid)) { /* its slot was reused */
		t = NULL;
	} else if (t && (!here ||
			 (r->attr != FUL_TA_AFFINITY && thread_in_flight(t)))) {
		r->result = -FUL_EAGAIN;
	} else if (t && r->attr == FUL_TA_SLICE) {
		load_set_slice(o, t, (uint32_t)r->value);
		r->result = 0;
	} else if (t && r->attr == FUL_TA_NICE) {
		load_set_nice(o, t, (int)r->value);
		r->result = 0;
	} else if (t) {
		thread_set_affinity(o, t, (uint64_t)r->value, &r->result);
	}
	arch_irq_restore(flags);
}

/** Check a THREAD_SET attribute and value; the value to store. */
static int thread_set_check(uint64_t attr, uint64_t v, int64_t *out)
{
	uint64_t online = atomic_load(&cpus_online_mask);
	switch (attr) {
	case FUL_TA_AFFINITY: /* a set of cores: bit c, up to MAX_CPUS */
		*out = v ? (int64_t)(v & online) : (int64_t)~0ull;
		return v && !(v & online) ? -FUL_EINVAL : 0;
	case FUL_TA_SLICE:
		*out = (int64_t)v;
		return v >= 1 && v <= 10000 ? 0 : -FUL_EINVAL;
	case FUL_TA_NICE:
		*out = (int64_t)v;
		return *out >= -20 && *out <= 19 ? 0 : -FUL_EINVAL;
	default:
		return -FUL_EINVAL;
	}
}

/** The live user thread @arg names, in *@out: -FUL_ENOTHREAD if none
 *  (or @arg is no tid), -FUL_ESTATE for a kernel thread. A live user
 *  thread stays one: its tid never names a kernel thread (a reused slot
 *  has another generation). The result may die at any time. */
static int sched_user_thread(uint64_t arg, struct thread **out)
{
	if (arg > 0xffffffffu)
		return -FUL_ENOTHREAD;
	struct thread *k = thread_lookup((tid_t)arg);
	if (!k)
		return -FUL_ENOTHREAD;
	*out = k;
	return k->vs ? 0 : -FUL_ESTATE;
}

int64_t sys_thread_set(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	int64_t value;
	if ((err = thread_set_check(ARG(2), ARG(3), &value)))
		return err;
	struct thread *tt;
	if ((err = sched_user_thread(ARG(1), &tt)))
		return err;
	return thread_set_attr((tid_t)ARG(1), (unsigned)ARG(2), value);
}

/** FUL_SYS_SCHED_KILL(sched, tid): kill live user thread @tid, in any
 *  state, on any core (thread_kill: a request to its owner). Sched
 *  ADMIN; checked in the order capability, thread (ENOTHREAD), kind
 *  (a kernel thread: ESTATE), the caller itself (EINVAL). ENOTHREAD too
 *  if it died before the request reached it. Thread context. */
int64_t sys_sched_kill(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	struct thread *k;
	if ((err = sched_user_thread(ARG(1), &k)))
		return err;
	if (k == t)
		return -FUL_EINVAL;
	return thread_kill((tid_t)ARG(1));
}

/** FUL_SYS_UTIL_SET(sched, win_ms): the utilization window length, a
 *  system-wide setting, so the SCHED capability with ADMIN; the range
 *  is checked by load_win_set (-FUL_EINVAL). Thread context. */
int64_t sys_util_set(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	return load_win_set(ARG(1));
}

int thread_set_attr(tid_t tid, unsigned attr, int64_t value)
{
	/* By copy: a timed-out wait must leave the handler nothing on this
	 * stack to write its result into (issue 19, finding 4). */
	struct thread_set_req r = {.tid = tid, .attr = attr, .value = value};
	for (int tries = 0; tries < 100; tries++) {
		struct thread *t = thread_lookup(tid);
		if (!t)
			return -FUL_ENOTHREAD;
		int err = icc_call_copy(atomic_load(&t->cpu), thread_set_here,
					&r, sizeof(r));
		if (err)
			return err;
		if (r.result != -FUL_EAGAIN)
			return r.result;
	}
	return -FUL_EAGAIN;
}

/** A core mask that names only online cores (LBE_ARM). */
static bool lbe_mask_ok(uint64_t mask)
{
	return !(mask & ~(uint64_t)atomic_load_explicit(&cpus_online_mask,
						       memory_order_acquire));
}

/** FUL_SYS_LBE_BIND(sched, ntfn, events): bind (events != 0) or unbind
 *  (events 0) the balancer-event notification (lbevent.h). Sched ADMIN,
 *  ntfn WRITE, events within FUL_LBE_ALL (EINVAL), binding state
 *  (ESTATE). Thread context, IRQs masked. */
int64_t sys_lbe_bind(struct thread *t, struct arch_uregs *u)
{
	struct cap s, n;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_NTFN, FUL_R_WRITE, &n)))
		return err;
	uint64_t ev = ARG(2);
	if (ev & ~(uint64_t)FUL_LBE_ALL)
		err = -FUL_EINVAL;
	else
		err = ev ? lbe_bind(n.obj, (uint32_t)ev) : lbe_unbind(n.obj);
	cap_release(&n);
	return err;
}

/** FUL_SYS_LBE_ARM(sched, ntfn, events, cores, watch): arm @events for
 *  the wakes and creates of @cores and the ticks of @watch. Sched ADMIN,
 *  ntfn WRITE, events within FUL_LBE_ALL and masks of online cores
 *  (EINVAL), ntfn the bound one (ESTATE). */
int64_t sys_lbe_arm(struct thread *t, struct arch_uregs *u)
{
	struct cap s, n;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_NTFN, FUL_R_WRITE, &n)))
		return err;
	uint64_t ev = ARG(2), cores = ARG(3), watch = ARG(4);
	if ((ev & ~(uint64_t)FUL_LBE_ALL) || !lbe_mask_ok(cores) ||
	    !lbe_mask_ok(watch))
		err = -FUL_EINVAL;
	else
		err = lbe_arm(n.obj, (uint32_t)ev, cores, watch);
	cap_release(&n);
	return err;
}
