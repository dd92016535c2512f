/*
 * IPC under disturbance: every check of the clients (registers, label,
 * length, payload) must hold while the other side moves or dies.
 *   ipc_stress_migrate  a server busy with clients on every core is
 *                       migrated from core to core without pause
 *   ipc_migrate_bursts  a thread running in user mode is moved in quick
 *                       bursts (to Y, to our core, to Z): every move
 *                       succeeds at once
 *   ipc_stress_kill     clients are killed in the middle of their calls;
 *                       then the server itself is killed and replaced on
 *                       the same endpoint while clients keep calling
 */
#include <stdio.h>

#include "t_ipc.h"

#define ST_CALLS 400
#define ST_ENDLESS 100000000UL
#define ST_BURSTS 300

/** The number of messages the echo server at @ep has handled. */
static long served(unsigned ep)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_INFO, 0)};
	long rc = ful_call(ep, &m, IT_TMO);
	return rc < 0 ? rc : (long)m.mr[3];
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
	unsigned long dl = ful_counter() + ut_us_to_ticks(UT_TIMEOUT_US);
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
		long s0 = served(ep);
		IT_OK(s0);
		UT_WAIT(served(ep) > s0 + 20 + (long)i * 7);
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
	long s0 = served(ep);
	IT_OK(s0);
	UT_WAIT(served(ep) > s0 + 50);
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
