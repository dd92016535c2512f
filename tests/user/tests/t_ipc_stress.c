/*
 * IPC under disturbance: every check of the clients (registers, label,
 * length, payload) must hold while the other side moves or dies.
 *   ipc_stress_migrate  a server busy with clients on every core is
 *                       migrated from core to core without pause
 *   ipc_migrate_bursts  a thread running in user mode is moved in quick
 *                       bursts (to Y, to our core, to Z): every move
 *                       succeeds at once
 *   ipc_stress_timeouts calls and notification waits whose timeouts race
 *                       with the answer: each gets its own answer or
 *                       ETIMEOUT, never a stale one, and nothing is lost
 *   ipc_stress_crossed  two threads on two cores each ask the other's
 *                       core, at the same time and over and over, to
 *                       move the other thread (where it already is):
 *                       each request must complete at once
 *   ipc_stress_kill     clients are killed in the middle of their calls;
 *                       then the server itself is killed and replaced on
 *                       the same endpoint while clients keep calling
 */
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>

#include "t_ipc.h"

#define ST_CALLS 1000
#define ST_ENDLESS 100000000UL
#define ST_BURSTS 300
#define ST_RACES 2000
#define ST_PONGS 2000
#define ST_RACE_US 50
#define ST_CROSSED 300

/** The number of messages the echo server at @ep has handled. */
static long served(unsigned ep)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_INFO, 0)};
	long rc = ful_call(ep, &m, IT_TMO);
	return rc < 0 ? rc : (long)m.mr[3];
}

/** Wait until clients of the echo server at @ep made @k more calls
 *  (our own queries do not count). */
static void wait_progress(struct ut *ut, unsigned ep, long k)
{
	long s0 = served(ep), polls = 0;
	IT_OK(s0);
	UT_WAIT(served(ep) - ++polls > s0 + k);
}

/** One checked round trip through the echo server at @ep. */
static void echo_ok(struct ut *ut, unsigned ep, unsigned long v)
{
	struct ful_msg m = {.info = FUL_MSG(0x55, 0), .mr = {v, v + 1, v + 2, v + 3}};
	UT_CHECK_EQ(ful_call(ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), it_echo_label(0x55));
	for (unsigned k = 0; k < 4; k++)
		UT_CHECK_EQ(m.mr[k], it_echo_mr(v + k, k));
}

/** Start one IT_CLIENT per core (batch of @calls on @ep); returns the
 *  index in @f of the first. */
static long start_clients(struct ut *ut, struct it_fix *f, unsigned ep,
			  unsigned long calls, unsigned n)
{
	long err = 0, first = (long)f->ntasks;
	for (unsigned a = 0; a < n; a++) {
		it_peer(f, it_core(a), IT_ARG0(IT_CLIENT, 0x77 + a), calls, ep,
			FUL_R_WRITE, 0, &err);
		if (err < 0) {
			ut_fail(ut, __FILE__, __LINE__, "client %u: %ld", a, err);
			return err;
		}
	}
	return first;
}

static void stress_migrate_body(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0;
	unsigned n = ut_ncpus(), done = 0, moves = 0;
	IT_OK(ep);
	struct ful_task *srv = it_peer(f, 0, IT_ARG0(IT_ECHO, 0), 0,
				       (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	if (start_clients(ut, f, (unsigned)ep, ST_CALLS, n) < 0)
		return;
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	while (done < n) {
		struct ful_msg m;
		UT_CHECK_EQ(ful_thread_migrate(FUL_SLOT_SCHED, srv->thread,
					       ++moves % n), 0);
		if (ful_recv(f->report, &m, 0) == 0) {
			UT_CHECK_EQ(FUL_MSG_LABEL(m.info), IT_R_CLIENT);
			if (m.mr[0]) {
				ut_fail(ut, __FILE__, __LINE__,
					"client %ld: %lu bad calls, first: "
					"call %lu, error %lu", it_sender(f, &m),
					m.mr[0], m.mr[1] >> 8, m.mr[1] & 0xff);
				return;
			}
			done++;
		}
		UT_CHECK(ful_counter() < dl);
		ful_yield(); /* let the server and a client run on our core */
	}
	struct ful_thread_info info;
	IT_OK(ful_thread_info(srv->thread, &info));
	UT_CHECK(info.migrations > 0);
	echo_ok(ut, (unsigned)ep, 5);
}

/**
 * Bursts of migrations of a thread running in user mode on core x != 0:
 * to y (neither 0 nor x), to our core 0, to z. The second request can
 * reach y before the thread does (it is still switching out on x) and is
 * then kept as its pending destination; the third, posted to y, is
 * forwarded to our own core when y applies the pending move. Each move
 * must succeed at once.
 */
static void migrate_bursts(struct ut *ut, struct it_fix *f)
{
	long err = 0;
	unsigned n = ut_ncpus(), x = 1;
	struct ful_task *t = it_peer(f, x, IT_ARG0(IT_SPIN, 0), 0, 0, 0, 0, &err);
	IT_OK(err);
	for (unsigned k = 0; k < ST_BURSTS; k++) {
		unsigned y = 1 + x % (n - 1), z = 1 + y % (n - 1);
		unsigned dests[3] = {y, 0, z};
		UT_WAIT(it_cpu_of(t->thread) == x &&
			it_state(t->thread) == FUL_TS_RUNNING);
		for (unsigned i = 0; i < 3; i++) {
			long rc = ful_thread_migrate(FUL_SLOT_SCHED, t->thread, dests[i]);
			if (rc < 0) {
				ut_fail(ut, __FILE__, __LINE__, "burst %u: move "
					"%u (cpu%u -> cpu%u): %ld", k, i,
					i ? dests[i - 1] : x, dests[i], rc);
				return;
			}
		}
		x = z;
	}
	it_kill(t);
}

UTEST(ipc_migrate_bursts, 3)
{
	IT_RUN(migrate_bursts);
}

UTEST(ipc_stress_migrate, 2)
{
	IT_RUN(stress_migrate_body);
}

/** Clients on every core call without end; kill them one by one, each
 *  after the server has made progress; the server stays correct. */
static void kill_clients(struct ut *ut, struct it_fix *f, unsigned ep)
{
	unsigned n = ut_ncpus() < 3 ? 3 : ut_ncpus();
	long first = start_clients(ut, f, ep, ST_ENDLESS, n);
	if (first < 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		wait_progress(ut, ep, 20 + (long)i * 7);
		if (ut->failed)
			return;
		it_kill(&f->tasks[first + i]);
		echo_ok(ut, ep, 100 + i);
		if (ut->failed)
			return;
	}
}

/** While clients call, the server dies; a new server on the same
 *  endpoint serves them. Each client loses at most the one call that
 *  was in progress (EDEAD). */
static void replace_server(struct ut *ut, struct it_fix *f, unsigned ep,
			   struct ful_task *srv)
{
	unsigned n = ut_ncpus() < 3 ? 3 : ut_ncpus();
	long err = 0, first = start_clients(ut, f, ep, ST_CALLS, n);
	if (first < 0)
		return;
	wait_progress(ut, ep, 50);
	if (ut->failed)
		return;
	it_kill(srv);
	it_peer(f, it_core(n), IT_ARG0(IT_ECHO, 0), 0, ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	for (unsigned i = 0; i < n; i++) {
		struct ful_msg m;
		IT_REPORT(f, &m, IT_R_CLIENT);
		unsigned what = (unsigned)(m.mr[1] & 0xff);
		if (m.mr[0] > 1 || (m.mr[0] && what != IT_E_RC && what != IT_E_INFO)) {
			ut_fail(ut, __FILE__, __LINE__, "client %ld: %lu bad "
				"calls, first: call %lu, error %u",
				it_sender(f, &m), m.mr[0], m.mr[1] >> 8, what);
			return;
		}
	}
	echo_ok(ut, ep, 7);
}

static void stress_kill_body(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0;
	IT_OK(ep);
	struct ful_task *srv = it_peer(f, it_core(1), IT_ARG0(IT_ECHO, 0), 0,
				       (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	kill_clients(ut, f, (unsigned)ep);
	if (!ut->failed)
		replace_server(ut, f, (unsigned)ep, srv);
}

UTEST(ipc_stress_kill, 1)
{
	IT_RUN(stress_kill_body);
}

/** Calls with timeouts about as long as a round trip: each returns the
 *  reply to this very call or ETIMEOUT, never the late reply to an
 *  earlier call. */
static void call_races(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0;
	unsigned long seed = 99;
	IT_OK(ep);
	it_peer(f, it_core(1), IT_ARG0(IT_ECHO, 0), 0, (unsigned)ep,
		FUL_R_READ, 0, &err);
	IT_OK(err);
	for (unsigned long i = 0; i < ST_RACES; i++) {
		struct ful_msg m = {.info = FUL_MSG(0x66, 0), .mr = {i, ~i, 0, 0}};
		long rc = ful_call((unsigned)ep, &m, 1 + it_rand(&seed) % 200);
		if (rc == -FUL_ETIMEOUT)
			continue;
		UT_CHECK_EQ(rc, 0);
		if (m.mr[0] != it_echo_mr(i, 0) || m.mr[1] != it_echo_mr(~i, 1)) {
			ut_fail(ut, __FILE__, __LINE__, "call %lu got the reply "
				"of call %lu", i, (m.mr[0] - 1) / 3);
			return;
		}
	}
	echo_ok(ut, (unsigned)ep, 3);
}

/** Notification ping-pong where both sides wait with short, retried
 *  timeouts: a signal racing with a timeout is never lost. */
static void ntfn_races(struct ut *ut, struct it_fix *f)
{
	long n1 = it_ntfn(f), n2 = it_ntfn(f), err = 0, rc;
	IT_OK(n1);
	IT_OK(n2);
	struct ful_cap_grant g[2] = {{(unsigned)n1, IT_SLOT_EP, FUL_R_READ, 0},
				     {(unsigned)n2, IT_SLOT_EP2, FUL_R_WRITE, 0}};
	struct it_spawn s = {.cpu = it_core(1), .caps = g, .ncaps = 2,
			     .arg0 = IT_ARG0(IT_NTFN_PONG, ST_PONGS),
			     .arg1 = ST_RACE_US};
	it_start(f, &s, &err);
	IT_OK(err);
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	for (unsigned r = 0; r < ST_PONGS; r++) {
		unsigned long bits = 1UL << (r % 64), got = 0;
		UT_CHECK_EQ(ful_ntfn_signal((unsigned)n1, bits), 0);
		while ((rc = ful_ntfn_wait((unsigned)n2, &got, ST_RACE_US)) ==
		       -FUL_ETIMEOUT) {
			if (ful_counter() > dl) {
				ut_fail(ut, __FILE__, __LINE__, "round %u: the "
					"echo of %#lx was lost", r, bits);
				return;
			}
		}
		UT_CHECK_EQ(rc, 0);
		UT_CHECK_EQ(got, bits);
	}
	struct ful_msg m;
	IT_REPORT(f, &m, IT_R_DONE);
	UT_CHECK_EQ(m.mr[0], 0);
}

static void stress_timeouts_body(struct ut *ut, struct it_fix *f)
{
	call_races(ut, f);
	if (!ut->failed)
		ntfn_races(ut, f);
}

UTEST(ipc_stress_timeouts, 1)
{
	IT_RUN(stress_timeouts_body);
}

/* ---- ipc_stress_crossed ---- */

struct crossed {
	struct ful_thread th[2];
	unsigned cpu[2];
	atomic_int go, done;
	unsigned ntfn; /* each side signals its bit when done */
	long rc[2];
	unsigned long at[2];
};

/** Side @i of ipc_stress_crossed: ask the other side's core, over and
 *  over, to move the other thread to where it already is. */
static void crossed_side(struct crossed *c, unsigned i)
{
	unsigned other = 1 - i;
	while (!atomic_load(&c->go))
		ful_yield();
	c->rc[i] = 0;
	for (unsigned long k = 0; k < ST_CROSSED && !c->rc[i]; k++) {
		unsigned long t0 = ful_counter();
		c->rc[i] = ful_thread_migrate(FUL_SLOT_SCHED, c->th[other].slot,
					      c->cpu[other]);
		c->at[i] = k << 32 | it_elapsed_us(t0) / 1000;
	}
	atomic_fetch_add(&c->done, 1);
	ful_ntfn_signal(c->ntfn, 1UL << i);
	while (atomic_load(&c->done) < 2) /* stay a live target */
		ful_yield();
}

static void crossed_0(void *arg)
{
	crossed_side(arg, 0);
}

static void crossed_1(void *arg)
{
	crossed_side(arg, 1);
}

UTEST(ipc_stress_crossed, 2)
{
	static struct crossed c;
	void (*fn[2])(void *) = {crossed_0, crossed_1};
	long n = ut_ntfn_new();
	IT_OK(n);
	c.ntfn = (unsigned)n;
	atomic_store(&c.go, 0);
	atomic_store(&c.done, 0);
	for (unsigned i = 0; i < 2; i++) {
		c.cpu[i] = ut_ncpus() - 1 - i;
		struct ful_thread_args a = {.fn = fn[i], .arg = &c,
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS, .prio = 100,
					    .cpu = c.cpu[i], .name = "t-crossed"};
		IT_OK(ful_thread_spawn(&a, &c.th[i]));
	}
	atomic_store(&c.go, 1);
	unsigned long bits = 0, b;
	while (bits != 3 && ful_ntfn_wait(c.ntfn, &b, IT_TMO) == 0)
		bits |= b; /* sleep: leave our core to the side that shares it */
	UT_WAIT(atomic_load(&c.done) == 2);
	for (unsigned i = 0; i < 2; i++) {
		UT_WAIT(ful_thread_dead(c.th[i].slot));
		ful_thread_reap(&c.th[i], UT_TIMEOUT_US);
	}
	ful_slot_drop(c.ntfn);
	for (unsigned i = 0; i < 2; i++)
		if (c.rc[i])
			ut_fail(ut, __FILE__, __LINE__, "cpu%u, request %lu: "
				"%ld after %lu ms", c.cpu[i], c.at[i] >> 32,
				c.rc[i], c.at[i] & 0xffffffff);
}
