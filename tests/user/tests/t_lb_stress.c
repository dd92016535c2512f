/*
 * lb_stress: migration under load, with the balancer running. The
 * invariants are those of the kernel's inter-core stress test
 * (tests/kernel/test_stress.c), seen from user level:
 *
 *   24 workers of this program each do exactly LS_ROUNDS rounds of
 *   random work: spin, yield, nap (a notification wait that must time
 *   out), poke a random peer's notification and wait briefly for a poke
 *   of their own. Every LS_IPC_EVERY rounds each worker also makes one
 *   checked call to (or serves one call of) its partner over an
 *   endpoint. Meanwhile the balancer rebalances every 3 ms (mginkgo,
 *   then fulcrum, with this program's core included), and two chaos
 *   threads on other cores race it and each other: the pinner pins and
 *   unpins workers (FUL_TA_AFFINITY) and changes their slices, the
 *   mover asks for rebalances; both issue random FUL_SYS_MIGRATE
 *   batches (with bogus tids and cores mixed in).
 *
 * Checked:
 *   - no thread lost: every worker completes exactly LS_ROUNDS rounds,
 *     and every IPC call is answered with its own reply, in order
 *   - none runs twice at once: a per-worker flag, set with an atomic
 *     exchange at the start of each round, is never found already set
 *   - every move's result is the one the documentation gives for it:
 *     -FUL_EINVAL for a core that is not online, -FUL_ENOTHREAD for a
 *     tid that names no thread, -FUL_ESTATE exactly when the core is
 *     outside the worker's pin (if the pinner, the only one to change
 *     pins, left it alone during the call; either way otherwise),
 *     otherwise DONE, ALREADY or EAGAIN; the call returns the number of
 *     DONE
 *   - pinning holds: once ful_thread_set(AFFINITY) returned, the thread
 *     record says the mask and a core inside it, and the worker, asking
 *     FUL_SYS_SYSINFO, never runs on a core outside it; every consistent
 *     thread record (not in flight) has its core inside its affinity
 *   - notifications: pokes are received, never more than were sent
 *   - counters add up: once quiet, the cores' mig_in and mig_out totals
 *     agree and cover the workers' own migration counts; once the
 *     workers are gone, every core's load, weight, nrunnable and
 *     nblocked are back to their values before the test
 *   - the kernel stays healthy: no user fault, and a fresh thread runs
 *     on every core afterwards
 * The suites boot with "loadcheck": every tick also checks each core's
 * published record against its threads and panics on a mismatch.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/bootinfo.h>

#include "user/balancer/balancer.h"
#include "utest.h"

#define LS_WORKERS 24      /* even: workers 2k and 2k+1 are IPC partners */
#define LS_ROUNDS 300
#define LS_IPC_EVERY 4     /* rounds per IPC exchange */
#define LS_SPIN_MAX 6000   /* loop iterations of a spin step */
#define LS_NAP_MAX_US 600
#define LS_POKE_US 400
#define LS_BATCH_MAX 8     /* real moves per chaos batch */
#define LS_CHAOS_NAP_US 100 /* chaos threads pause 1..2 times this */
#define LS_POKE_BIT 1ul
#define LS_GATE_BIT 2ul
#define LS_BOGUS_TID 0xffffffu
#define LS_NOT_WORKER 0xffu

struct ls_worker {
	struct ful_thread th;
	long ntfn;                 /* pokes from peers, then the exit gate */
	unsigned id, tid;           /* tid: kept after the thread is reaped */
	_Atomic unsigned running;  /* inside a round */
	_Atomic unsigned rounds;   /* rounds completed */
	_Atomic unsigned finished;
	_Atomic unsigned pin_seq;  /* odd while the pinner changes pin_mask */
	_Atomic unsigned pin_mask; /* 0: not pinned */
	_Atomic unsigned errors;
	unsigned err_line;         /* the first error */
	long err_val;
	unsigned long pokes_got, pokes_sent, calls;
};

struct ls_chaos {
	struct ful_thread th;
	_Atomic int stop;
	unsigned long batches, moves, done_moves, already, again, estate,
		enothread, einval, pins, slices, demands;
	unsigned errors, err_line;
	long err_val;
};

static struct {
	struct ls_worker w[LS_WORKERS];
	long ep[LS_WORKERS / 2];
	long nap_ntfn;             /* never signalled: waits on it are naps */
	_Atomic int gate;
	struct ls_chaos chaos[2]; /* the pinner and the mover */
	unsigned ncpus, online;
	struct ful_load_cpu base[FUL_LOAD_CPUS];
} ls;

static uint32_t ls_rand(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void ls_werr(struct ls_worker *w, unsigned line, long val)
{
	if (atomic_fetch_add(&w->errors, 1) == 0) {
		w->err_line = line;
		w->err_val = val;
	}
}

static void ls_cerr(struct ls_chaos *c, unsigned line, long val)
{
	if (c->errors++ == 0) {
		c->err_line = line;
		c->err_val = val;
	}
}

static struct ful_load_thread ls_rec(unsigned tid)
{
	struct ful_load_thread t;
	ful_load_read_thread(ful_load_area(), FUL_TID_SLOT(tid), &t);
	return t;
}

static struct ful_load_cpu ls_cpu(unsigned cpu)
{
	struct ful_load_cpu c;
	ful_load_read_cpu(ful_load_area(), cpu, &c);
	return c;
}

/* ---- the workers ---------------------------------------------------- */

/** A stably pinned worker never runs outside its mask: the core that
 *  ran our SYSINFO is inside it if the pin did not change meanwhile. */
static void ls_check_pin(struct ls_worker *w)
{
	unsigned s0 = atomic_load(&w->pin_seq);
	unsigned mask = atomic_load(&w->pin_mask);
	struct ful_sysinfo si;
	long rc = ful_sysinfo(&si);
	if (rc)
		ls_werr(w, __LINE__, rc);
	else if (!(s0 & 1) && atomic_load(&w->pin_seq) == s0 && mask &&
		 !(mask >> si.cpu & 1))
		ls_werr(w, __LINE__, (long)(si.cpu << 8 | mask));
}

/** Poke a random peer, then wait a little for a poke of our own. */
static void ls_poke(struct ls_worker *w, uint32_t *seed)
{
	unsigned peer = (w->id + 1 + ls_rand(seed) % (LS_WORKERS - 1)) %
			LS_WORKERS;
	long rc = ful_ntfn_signal((unsigned)ls.w[peer].ntfn, LS_POKE_BIT);
	if (rc)
		ls_werr(w, __LINE__, rc);
	w->pokes_sent++;
	unsigned long bits = 0;
	rc = ful_ntfn_wait((unsigned)w->ntfn, &bits, LS_POKE_US);
	if (rc == 0 && bits == LS_POKE_BIT)
		w->pokes_got++;
	else if (rc != -FUL_ETIMEOUT)
		ls_werr(w, __LINE__, rc ? rc : (long)bits);
}

/** One random step of work. */
static void ls_step(struct ls_worker *w, uint32_t *seed)
{
	uint32_t r = ls_rand(seed);
	long rc;
	switch (r % 5) {
	case 0:
	case 1:
		for (volatile unsigned i = 0; i < r % LS_SPIN_MAX; i++)
			;
		break;
	case 2:
		if ((rc = ful_yield()))
			ls_werr(w, __LINE__, rc);
		break;
	case 3: /* nobody signals nap_ntfn: the wait must time out */
		rc = ful_ntfn_wait((unsigned)ls.nap_ntfn, NULL,
				   50 + r % LS_NAP_MAX_US);
		if (rc != -FUL_ETIMEOUT)
			ls_werr(w, __LINE__, rc);
		break;
	default:
		ls_poke(w, seed);
	}
}

/** Exchange @k of the pair: even workers call, odd workers serve. */
static void ls_ipc(struct ls_worker *w, unsigned k)
{
	unsigned ep = (unsigned)ls.ep[w->id / 2];
	struct ful_msg m = {.info = FUL_MSG(0x100 + k, 0),
			    .mr = {w->id, k, ~(unsigned long)k, 7}};
	long rc;
	if (w->id % 2 == 0) {
		rc = ful_call(ep, &m, UT_TIMEOUT_US);
		if (rc || FUL_MSG_LABEL(m.info) != 0x200 + k ||
		    m.mr[0] != 3ul * k + 1 || m.mr[1] != w->id)
			ls_werr(w, __LINE__, rc ? rc : (long)m.mr[0]);
		w->calls++;
		return;
	}
	rc = ful_recv(ep, &m, UT_TIMEOUT_US);
	if (rc || FUL_MSG_LABEL(m.info) != 0x100 + k || m.mr[0] != w->id - 1 ||
	    m.mr[1] != k || m.mr[2] != ~(unsigned long)k) {
		ls_werr(w, __LINE__, rc ? rc : (long)m.mr[1]);
		return;
	}
	m = (struct ful_msg){.info = FUL_MSG(0x200 + k, 0),
			     .mr = {3ul * k + 1, w->id - 1}};
	if ((rc = ful_reply(&m)))
		ls_werr(w, __LINE__, rc);
	w->calls++;
}

static void ls_worker_main(void *arg)
{
	struct ls_worker *w = arg;
	uint32_t seed = w->id * 2654435761u + 0x5eed;
	for (unsigned r = 0; r < LS_ROUNDS; r++) {
		if (atomic_exchange(&w->running, 1))
			ls_werr(w, __LINE__, r);
		ls_check_pin(w);
		ls_step(w, &seed);
		if (r % LS_IPC_EVERY == LS_IPC_EVERY - 1)
			ls_ipc(w, r / LS_IPC_EVERY);
		atomic_store(&w->running, 0);
		atomic_store(&w->rounds, r + 1);
	}
	atomic_store(&w->finished, 1);
	/* Stay alive (blocked, still moved around) until the gate opens:
	 * live workers must never be reported as gone. */
	while (!atomic_load(&ls.gate))
		ful_ntfn_wait((unsigned)w->ntfn, NULL, FUL_FOREVER);
}

/* ---- the chaos threads ---------------------------------------------- */

/* What the documentation allows for move @m of worker @who whose pin
 * was @mask (0: none) throughout the call, if @stable. */
static bool ls_move_ok(const struct ful_move *m, unsigned who, bool stable,
		       unsigned mask)
{
	bool allowed = !mask || (mask >> m->cpu & 1);
	if (m->cpu >= ls.ncpus)
		return m->result == -FUL_EINVAL;
	if (who == LS_NOT_WORKER)
		return m->result == -FUL_ENOTHREAD;
	if (m->result == -FUL_ESTATE)
		return !stable || !allowed;
	return (!stable || allowed) &&
	       (m->result == FUL_MOVE_DONE || m->result == FUL_MOVE_ALREADY ||
		m->result == -FUL_EAGAIN);
}

static void ls_count(struct ls_chaos *c, int res)
{
	c->done_moves += res == FUL_MOVE_DONE;
	c->already += res == FUL_MOVE_ALREADY;
	c->again += res == -FUL_EAGAIN;
	c->estate += res == -FUL_ESTATE;
	c->enothread += res == -FUL_ENOTHREAD;
	c->einval += res == -FUL_EINVAL;
}

/** Fill @mv with 1..LS_BATCH_MAX random moves of random workers and,
 *  sometimes, one of no thread and one to no core; their workers in
 *  @who. Returns the count. */
static unsigned ls_batch_fill(struct ful_move *mv, unsigned *who,
			      uint32_t *seed)
{
	unsigned n = 1 + ls_rand(seed) % LS_BATCH_MAX;
	for (unsigned k = 0; k < n; k++) {
		who[k] = ls_rand(seed) % LS_WORKERS;
		mv[k] = (struct ful_move){ls.w[who[k]].tid,
					  ls_rand(seed) % ls.ncpus, 99, 0};
	}
	if (ls_rand(seed) % 4 == 0) {
		who[n] = LS_NOT_WORKER;
		mv[n++] = (struct ful_move){LS_BOGUS_TID, 0, 99, 0};
	}
	if (ls_rand(seed) % 4 == 0) {
		who[n] = 0;
		mv[n++] = (struct ful_move){ls.w[0].tid,
					    ls.ncpus + ls_rand(seed) % 300, 99, 0};
	}
	return n;
}

/** A random batch; each result checked against the pin of its worker
 *  (exactly when the pinner left it alone during the call). */
static void ls_chaos_batch(struct ls_chaos *c, uint32_t *seed)
{
	struct ful_move mv[LS_BATCH_MAX + 2];
	unsigned who[LS_BATCH_MAX + 2], seq[LS_BATCH_MAX + 2],
		mask[LS_BATCH_MAX + 2];
	unsigned n = ls_batch_fill(mv, who, seed);
	for (unsigned k = 0; k < n; k++) {
		struct ls_worker *w = &ls.w[who[k] % LS_WORKERS];
		seq[k] = atomic_load(&w->pin_seq);
		mask[k] = atomic_load(&w->pin_mask);
	}
	long done = ful_migrate(FUL_SLOT_SCHED, mv, n), ndone = 0;
	c->batches++;
	c->moves += n;
	for (unsigned k = 0; k < n; k++) {
		struct ls_worker *w = &ls.w[who[k] % LS_WORKERS];
		bool stable = !(seq[k] & 1) &&
			      atomic_load(&w->pin_seq) == seq[k];
		if (!ls_move_ok(&mv[k], who[k], stable, mask[k]))
			ls_cerr(c, __LINE__, (long)k << 32 | (uint32_t)mv[k].result);
		ls_count(c, mv[k].result);
		ndone += mv[k].result == FUL_MOVE_DONE;
	}
	if (done != ndone)
		ls_cerr(c, __LINE__, done);
}

/** Pin worker @i to @mask (0: unpin), the pinner being the only writer
 *  of pins; the worker's view changes under its sequence count. Then
 *  its record must say that affinity and a core inside it. */
static void ls_chaos_pin(struct ls_chaos *c, unsigned i, unsigned mask)
{
	struct ls_worker *w = &ls.w[i];
	atomic_fetch_add(&w->pin_seq, 1);
	long rc = ful_thread_set(FUL_SLOT_SCHED, w->tid, FUL_TA_AFFINITY, mask);
	if (rc == 0)
		atomic_store(&w->pin_mask, mask);
	else if (rc != -FUL_EAGAIN)
		ls_cerr(c, __LINE__, rc);
	atomic_fetch_add(&w->pin_seq, 1);
	c->pins++;
	/* A thread in flight when pinned keeps its flight's destination
	 * in the record until it lands and moves on (pending_dest). */
	struct ful_load_thread t = ls_rec(w->tid);
	unsigned want = atomic_load(&w->pin_mask);
	want = want ? want : ls.online;
	if (t.tid != w->tid || t.affinity != want ||
	    (t.state != FUL_TS_MIGRATING && !(want >> t.cpu & 1)))
		ls_cerr(c, __LINE__, (long)t.cpu << 32 | t.affinity);
}

/** The pinner: pins, unpins and slices; the mover: batches and
 *  rebalances on demand. Both make batches. */
static void ls_chaos_step(struct ls_chaos *c, uint32_t *seed)
{
	uint32_t r = ls_rand(seed);
	unsigned i = (r >> 8) % LS_WORKERS, what = r % 8;
	if (c == &ls.chaos[0] && what < 4) { /* one or two cores; or none */
		ls_chaos_pin(c, i, (r >> 16) % 3 == 0 ? 0
				   : (1u << (r >> 20) % ls.ncpus |
				      1u << (r >> 24) % ls.ncpus));
	} else if (c == &ls.chaos[0] && what == 4) {
		static const unsigned slices[] = {1, 3, 10, 20, 50};
		long rc = ful_thread_set(FUL_SLOT_SCHED, ls.w[i].tid,
					 FUL_TA_SLICE, slices[(r >> 16) % 5]);
		if (rc && rc != -FUL_EAGAIN)
			ls_cerr(c, __LINE__, rc);
		c->slices++;
	} else if (c == &ls.chaos[1] && what == 0) {
		if ((r >> 16) & 1)
			bal_demand();
		else
			bal_rebalance(LB_TRIG_DEMAND);
		c->demands++;
	} else {
		ls_chaos_batch(c, seed);
	}
}

static void ls_chaos_main(void *arg)
{
	struct ls_chaos *c = arg;
	uint32_t seed = c == &ls.chaos[0] ? 0xc0ffee : 0xbadcafe;
	while (!atomic_load(&c->stop)) {
		ls_chaos_step(c, &seed);
		long rc = ful_ntfn_wait((unsigned)ls.nap_ntfn, NULL,
					LS_CHAOS_NAP_US +
						ls_rand(&seed) % LS_CHAOS_NAP_US);
		if (rc != -FUL_ETIMEOUT)
			ls_cerr(c, __LINE__, rc);
	}
}

/* ---- set-up, watching, tear-down ------------------------------------- */

/** Every worker's record, read consistently, is internally sound: an
 *  owner core inside its own affinity (unless in flight, see
 *  ls_chaos_pin) and, while its pin is stable, inside the pin. */
static void ls_monitor(struct ut *ut)
{
	for (unsigned i = 0; i < LS_WORKERS; i++) {
		struct ls_worker *w = &ls.w[i];
		unsigned s0 = atomic_load(&w->pin_seq);
		unsigned pin = atomic_load(&w->pin_mask);
		struct ful_load_thread t = ls_rec((unsigned)w->th.tid);
		if (t.tid != (unsigned)w->th.tid || t.state == FUL_TS_MIGRATING)
			continue;
		bool stable = !(s0 & 1) && atomic_load(&w->pin_seq) == s0;
		if (!(t.affinity >> t.cpu & 1) ||
		    (stable && pin && !(pin >> t.cpu & 1))) {
			ut_fail(ut, __FILE__, __LINE__, "worker %u on cpu%u, "
				"state %u, affinity %lx, pinned %x", i, t.cpu,
				t.state, (unsigned long)t.affinity, stable ? pin : 0);
			return;
		}
	}
}

static unsigned ls_rounds_done(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < LS_WORKERS; i++)
		n += atomic_load(&ls.w[i].rounds);
	return n;
}

static int ls_bal_setup(const char *policy)
{
	int err = bal_init(policy);
	if (!err)
		err = bal_tune("period_ms", 3);
	if (!err)
		err = bal_tune("include_root", 1); /* two cores: both */
	if (!err)
		err = bal_tune("threshold_pct", 10);
	return err;
}

static int ls_spawn(unsigned i, void (*fn)(void *), void *arg, unsigned cpu,
		    unsigned prio, struct ful_thread *out)
{
	static const unsigned slices[] = {1, 3, 10, 20};
	struct ful_thread_args a = {.fn = fn, .arg = arg, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = prio,
				    .cpu = cpu, .slice_ms = slices[i % 4],
				    .stack_size = 8192, .name = "lbstress"};
	/* Half of the workers are placed by the balancer. */
	return i < LS_WORKERS / 2 && fn == ls_worker_main
		       ? bal_thread_spawn(&a, out)
		       : ful_thread_spawn(&a, out);
}

/** Objects, the balancer (mginkgo), the workers and the chaos thread. */
static void ls_start(struct ut *ut)
{
	UT_CHECK((ls.nap_ntfn = ut_ntfn_new()) > 0);
	for (unsigned k = 0; k < LS_WORKERS / 2; k++)
		UT_CHECK((ls.ep[k] = ut_ep_new()) > 0);
	for (unsigned i = 0; i < LS_WORKERS; i++) {
		ls.w[i].id = i;
		UT_CHECK((ls.w[i].ntfn = ut_ntfn_new()) > 0);
	}
	UT_CHECK_EQ(ls_bal_setup("mginkgo"), 0);
	for (unsigned i = 0; i < LS_WORKERS; i++) {
		UT_CHECK_EQ(ls_spawn(i, ls_worker_main, &ls.w[i],
				     i % ls.ncpus, 100, &ls.w[i].th), 0);
		ls.w[i].tid = (unsigned)ls.w[i].th.tid;
	}
	for (unsigned k = 0; k < 2; k++)
		UT_CHECK_EQ(ls_spawn(LS_WORKERS, ls_chaos_main, &ls.chaos[k],
				     (ls.ncpus - 1 + k) % ls.ncpus, 150,
				     &ls.chaos[k].th), 0);
	UT_CHECK_EQ(bal_start(), 0);
}

/** Watch until every worker has done its rounds; halfway, the balancer
 *  changes to fulcrum. */
static void ls_run(struct ut *ut)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	bool fulcrum = false;
	unsigned total = LS_WORKERS * LS_ROUNDS, done;
	while ((done = ls_rounds_done()) < total) {
		ls_monitor(ut);
		if (ut->failed)
			return;
		if (!fulcrum && done >= total / 2) {
			UT_CHECK_EQ(bal_stop(), 0);
			UT_CHECK_EQ(ls_bal_setup("fulcrum"), 0);
			UT_CHECK_EQ(bal_start(), 0);
			fulcrum = true;
		}
		if (ful_counter() > dl) {
			ut_fail(ut, __FILE__, __LINE__, "timed out: %u of %u "
				"rounds", done, total);
			return;
		}
		ful_yield();
	}
	UT_CHECK(fulcrum);
}

/** If the thread in @th is dead (or there is none), free it: true. */
static bool ls_reaped(struct ful_thread *th)
{
	if (th->tid <= 0)
		return true;
	if (!ful_thread_dead(th->slot))
		return false;
	ful_slot_drop(th->slot);
	free(th->mem);
	th->tid = 0;
	return true;
}

/** Wait until the threads in @th[0..n) are dead and free them, with one
 *  deadline for all; with @kill, kill those left first. The index of
 *  one left alive, or -1. */
static int ls_reap(struct ful_thread *th, unsigned n, bool kill)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	for (unsigned i = 0; kill && i < n; i++)
		if (th[i].tid > 0 && !ful_thread_dead(th[i].slot))
			ful_thread_kill(th[i].slot);
	for (;;) {
		int alive = -1;
		for (unsigned i = 0; i < n; i++)
			if (!ls_reaped(&th[i]))
				alive = (int)i;
		if (alive < 0 || ful_counter() > dl)
			return alive;
		ful_yield();
	}
}

/** Stop the chaos threads, the balancer and the workers (through the
 *  gate), whatever state the test is in; kill what will not stop. */
static void ls_stop_all(struct ut *ut)
{
	struct ful_thread *ch[2] = {&ls.chaos[0].th, &ls.chaos[1].th};
	atomic_store(&ls.chaos[0].stop, 1);
	atomic_store(&ls.chaos[1].stop, 1);
	for (unsigned k = 0; k < 2; k++)
		if (ls_reap(ch[k], 1, false) >= 0) {
			ut_fail(ut, __FILE__, __LINE__, "chaos %u would not stop", k);
			ls_reap(ch[k], 1, true);
		}
	if (bal_stop())
		ut_fail(ut, __FILE__, __LINE__, "the balancer would not stop");
	atomic_store(&ls.gate, 1);
	for (unsigned i = 0; i < LS_WORKERS; i++)
		if (ls.w[i].ntfn > 0)
			ful_ntfn_signal((unsigned)ls.w[i].ntfn, LS_GATE_BIT);
	static struct ful_thread th[LS_WORKERS];
	for (unsigned i = 0; i < LS_WORKERS; i++)
		th[i] = ls.w[i].th;
	int left = ls_reap(th, LS_WORKERS, false);
	if (left >= 0) { /* a lost wake-up, or a worker still in a round */
		struct ful_load_thread t = ls_rec(ls.w[left].tid);
		ut_fail(ut, __FILE__, __LINE__, "worker %d not gone after the "
			"gate: round %u, state %u on cpu%u", left,
			atomic_load(&ls.w[left].rounds), t.state, t.cpu);
		if (ls_reap(th, LS_WORKERS, true) >= 0)
			ut_fail(ut, __FILE__, __LINE__, "workers would not die");
	}
	for (unsigned i = 0; i < LS_WORKERS; i++)
		ls.w[i].th = th[i];
}

static void ls_drop_objects(void)
{
	for (unsigned i = 0; i < LS_WORKERS; i++)
		if (ls.w[i].ntfn > 0)
			ful_slot_drop((unsigned)ls.w[i].ntfn);
	for (unsigned k = 0; k < LS_WORKERS / 2; k++)
		if (ls.ep[k] > 0)
			ful_slot_drop((unsigned)ls.ep[k]);
	if (ls.nap_ntfn > 0)
		ful_slot_drop((unsigned)ls.nap_ntfn);
}

/* ---- the invariants ------------------------------------------------- */

/** Every worker did exactly its rounds and IPC, without an error; the
 *  pokes they got and sent, added up. */
static void ls_check_workers(struct ut *ut, unsigned long *got,
			     unsigned long *sent)
{
	for (unsigned i = 0; i < LS_WORKERS; i++) {
		struct ls_worker *w = &ls.w[i];
		if (atomic_load(&w->errors)) {
			ut_fail(ut, __FILE__, __LINE__, "worker %u: %u errors, "
				"first at line %u: %ld", i,
				atomic_load(&w->errors), w->err_line, w->err_val);
			return;
		}
		UT_CHECK_EQ(atomic_load(&w->rounds), LS_ROUNDS);
		UT_CHECK_EQ(atomic_load(&w->finished), 1);
		UT_CHECK_EQ(atomic_load(&w->running), 0);
		UT_CHECK_EQ(w->calls, LS_ROUNDS / LS_IPC_EVERY);
		*got += w->pokes_got;
		*sent += w->pokes_sent;
	}
	UT_CHECK(*got > 0 && *got <= *sent);
}

/** Both chaos threads' figures, added up; their errors reported. */
static void ls_check_chaos(struct ut *ut, struct ls_chaos *sum)
{
	for (unsigned k = 0; k < 2; k++) {
		const struct ls_chaos *c = &ls.chaos[k];
		if (c->errors) {
			ut_fail(ut, __FILE__, __LINE__, "chaos %u: %u errors, "
				"first at line %u: %lx", k, c->errors,
				c->err_line, (unsigned long)c->err_val);
			return;
		}
		sum->batches += c->batches;
		sum->moves += c->moves;
		sum->done_moves += c->done_moves;
		sum->already += c->already;
		sum->again += c->again;
		sum->estate += c->estate;
		sum->enothread += c->enothread;
		sum->einval += c->einval;
		sum->pins += c->pins;
		sum->slices += c->slices;
		sum->demands += c->demands;
	}
	UT_CHECK(sum->batches > 0 && sum->done_moves > 0 && sum->pins > 0);
	UT_CHECK_EQ(sum->done_moves + sum->already + sum->again + sum->estate +
			    sum->enothread + sum->einval,
		    sum->moves);
}

/** Nothing in flight: no worker record MIGRATING. */
static bool ls_quiet(void)
{
	for (unsigned i = 0; i < LS_WORKERS; i++)
		if (ls_rec((unsigned)ls.w[i].th.tid).state == FUL_TS_MIGRATING)
			return false;
	return true;
}

/** Once quiet, the cores' arrivals and departures agree, and cover the
 *  workers' own migration counts. */
static void ls_check_migrations(struct ut *ut, unsigned long *nmig)
{
	UT_WAIT(ls_quiet());
	unsigned long in = 0, out = 0, workers = 0;
	for (unsigned c = 0; c < ls.ncpus; c++) {
		struct ful_load_cpu r = ls_cpu(c);
		in += r.mig_in - ls.base[c].mig_in;
		out += r.mig_out - ls.base[c].mig_out;
	}
	for (unsigned i = 0; i < LS_WORKERS; i++) {
		struct ful_thread_info info;
		UT_CHECK_EQ(ful_thread_info(ls.w[i].th.slot, &info), 0);
		UT_CHECK(info.state != FUL_TS_MIGRATING);
		workers += info.migrations;
	}
	UT_CHECK_EQ(in, out);
	UT_CHECK(workers > 0 && workers <= out);
	*nmig = out;
}

/** Every core's sums are back where they were. */
static bool ls_loads_back(void)
{
	for (unsigned c = 0; c < ls.ncpus; c++) {
		struct ful_load_cpu r = ls_cpu(c);
		if (r.load != ls.base[c].load || r.weight != ls.base[c].weight ||
		    r.nrunnable != ls.base[c].nrunnable ||
		    r.nblocked != ls.base[c].nblocked)
			return false;
	}
	return true;
}

static _Atomic unsigned ls_ran;

static void ls_probe_main(void *arg)
{
	(void)arg;
	atomic_fetch_add(&ls_ran, 1);
}

/** Afterwards: records cleared, sums back, a new thread runs on every
 *  core, no user fault. */
static void ls_check_after(struct ut *ut, unsigned long faults0)
{
	for (unsigned i = 0; i < LS_WORKERS; i++)
		UT_CHECK(ls_rec(ls.w[i].tid).tid != ls.w[i].tid);
	UT_WAIT(ls_loads_back());
	for (unsigned c = 0; c < ls.ncpus; c++) {
		struct ful_thread th;
		atomic_store(&ls_ran, 0);
		UT_CHECK_EQ(ls_spawn(LS_WORKERS + 1, ls_probe_main, NULL, c, 100,
				     &th), 0);
		UT_WAIT(atomic_load(&ls_ran) == 1);
		UT_CHECK(ls_reap(&th, 1, false) < 0);
	}
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	UT_CHECK_EQ(si.faults, faults0);
}

/* What a run did, for the report line. */
struct ls_sum {
	struct ls_chaos chaos; /* both chaos threads' figures */
	unsigned long nmig, pokes_got, pokes_sent, t0;
};

static void ls_report(const struct ls_sum *r)
{
	const struct ls_chaos *c = &r->chaos;
	printf("  lb_stress: %u cores, %lu ms: %lu batches of %lu moves (%lu "
	       "done, %lu already, %lu again, %lu estate, %lu enothread, %lu "
	       "einval), %lu pins, %lu slices, %lu demands; balancer %lu "
	       "rounds, %lu moves; %lu migrations; %lu of %lu pokes got\n",
	       ls.ncpus, (ful_counter() - r->t0) / ful_us_to_ticks(1000),
	       c->batches, c->moves, c->done_moves, c->already, c->again,
	       c->estate, c->enothread, c->einval, c->pins, c->slices,
	       c->demands, bal_rounds(),
	       bal_moves(LB_TRIG_TIMER) + bal_moves(LB_TRIG_DEMAND), r->nmig,
	       r->pokes_got, r->pokes_sent);
}

/** The run and the checks while the workers are still alive. */
static void ls_body(struct ut *ut, struct ls_sum *r)
{
	ls_start(ut);
	if (!ut->failed)
		ls_run(ut);
	for (unsigned k = 0; k < 2 && !ut->failed; k++) {
		atomic_store(&ls.chaos[k].stop, 1);
		UT_CHECK(ls_reap(&ls.chaos[k].th, 1, false) < 0);
	}
	if (ut->failed)
		return;
	UT_CHECK_EQ(bal_stop(), 0);
	ls_check_workers(ut, &r->pokes_got, &r->pokes_sent);
	if (!ut->failed)
		ls_check_chaos(ut, &r->chaos);
	if (!ut->failed)
		ls_check_migrations(ut, &r->nmig);
}

UTEST(lb_stress, 2)
{
	struct ful_sysinfo si;
	memset(&ls, 0, sizeof(ls));
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	ls.ncpus = si.ncpus;
	ls.online = si.ncpus >= 32 ? ~0u : (1u << si.ncpus) - 1; /* 32-bit pins */
	for (unsigned c = 0; c < ls.ncpus; c++)
		ls.base[c] = ls_cpu(c);
	/* This program stays on its core: later tests expect it there. */
	UT_CHECK_EQ(ful_thread_set(FUL_SLOT_SCHED, si.tid, FUL_TA_AFFINITY,
				   1L << si.cpu), 0);
	static struct ls_sum r;
	memset(&r, 0, sizeof(r));
	r.t0 = ful_counter();
	ls_body(ut, &r);
	ls_stop_all(ut);
	ls_drop_objects();
	ful_thread_set(FUL_SLOT_SCHED, si.tid, FUL_TA_AFFINITY, 0);
	if (ut->failed)
		return;
	ls_check_after(ut, si.faults);
	ls_report(&r);
}
