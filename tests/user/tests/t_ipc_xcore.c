/*
 * IPC across cores:
 *   ipc_xcore_pairs      for every ordered pair of cores (a, b), a == b
 *                        included, a client task on a makes checked
 *                        calls to a server task on b; then every client
 *                        calls every server at once
 *   ipc_migrate_blocked  threads blocked in RECV (with and without a
 *                        timeout), in a CALL waiting for the reply, in a
 *                        SEND and in a notification wait are migrated,
 *                        then served: they continue on their new core
 */
#include <stdio.h>

#include "t_ipc.h"

#define XC_CALLS 200
#define XC_MAX_CPUS 8

struct xc {
	unsigned n;
	long srv_ep[XC_MAX_CPUS], go[XC_MAX_CPUS];
	struct ful_task *srv[XC_MAX_CPUS], *cli[XC_MAX_CPUS];
};

static const char *const it_err_names[] = {
	"none", "call failed", "wrong label", "wrong length",
	"wrong message registers", "wrong payload", "non-zero badge",
	"IT_L_INFO call failed",
};

/** One echo server per core, and one client per core holding every
 *  server's endpoint (IT_SLOT_TARGET + b) and a command endpoint. */
static void xc_setup(struct ut *ut, struct it_fix *f, struct xc *x)
{
	long err = 0;
	x->n = ut_ncpus() < XC_MAX_CPUS ? ut_ncpus() : XC_MAX_CPUS;
	for (unsigned b = 0; b < x->n; b++) {
		IT_OK(x->srv_ep[b] = it_ep(f));
		x->srv[b] = it_peer(f, b, IT_ARG0(IT_ECHO, b), 0,
				    (unsigned)x->srv_ep[b], FUL_R_READ, 0, &err);
		IT_OK(err);
	}
	for (unsigned a = 0; a < x->n; a++) {
		IT_OK(x->go[a] = it_ep(f));
		struct ful_cap_grant g = {(unsigned)x->go[a], IT_SLOT_GO,
					  FUL_R_READ, 0};
		struct it_spawn s = {.cpu = a, .arg0 = IT_ARG0(IT_CLIENT, 0),
				     .caps = &g, .ncaps = 1};
		x->cli[a] = it_start(f, &s, &err);
		IT_OK(err);
		for (unsigned b = 0; b < x->n; b++)
			IT_OK(ful_cap_copy((unsigned)x->srv_ep[b], x->cli[a]->vs,
					   IT_SLOT_TARGET + b, FUL_R_WRITE, 0));
	}
}

/** Tell client @a to make @calls calls rotating over @count servers
 *  from server @b on. */
static void xc_go(struct ut *ut, struct xc *x, unsigned a, unsigned b,
		  unsigned count, unsigned long seed)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_GO, 0),
			    .mr = {IT_SLOT_TARGET + b, XC_CALLS, seed, count}};
	UT_CHECK_EQ(ful_send((unsigned)x->go[a], &m, IT_TMO), 0);
}

/** Check a client's IT_R_CLIENT report; @b: the server's core, or -1
 *  when the client rotated over all servers. Returns the client's core. */
static long xc_check(struct ut *ut, struct it_fix *f, struct xc *x, long b)
{
	struct ful_msg m;
	long rc = it_report(f, &m);
	if (rc < 0 || FUL_MSG_LABEL(m.info) != IT_R_CLIENT) {
		ut_fail(ut, __FILE__, __LINE__, "no client report (%ld, label %#lx)",
			rc, rc < 0 ? 0 : FUL_MSG_LABEL(m.info));
		return -1;
	}
	long who = it_sender(f, &m);
	unsigned a = 0;
	while (a < x->n && x->cli[a] != &f->tasks[who < 0 ? 0 : who])
		a++;
	if (who < 0 || a == x->n) {
		ut_fail(ut, __FILE__, __LINE__, "report from peer %ld", who);
		return -1;
	}
	unsigned what = (unsigned)(m.mr[1] & 0xff);
	if (m.mr[0]) {
		ut_fail(ut, __FILE__, __LINE__,
			"cpu%u -> cpu%ld: %lu of %u calls bad, first: call %lu, %s",
			a, b, m.mr[0], XC_CALLS, m.mr[1] >> 8,
			what < 8 ? it_err_names[what] : "?");
		return -1;
	}
	if (m.mr[2] != IT_R_CPUS(a, a) ||
	    (b >= 0 && m.mr[3] != IT_R_CPUS(b, b))) {
		ut_fail(ut, __FILE__, __LINE__, "cpu%u -> cpu%ld: client ran on "
			"%#lx, server on %#lx (start | end << 16)", a, b,
			m.mr[2], m.mr[3]);
		return -1;
	}
	return (long)a;
}

static void xcore_pairs_body(struct ut *ut, struct it_fix *f)
{
	struct xc x;
	xc_setup(ut, f, &x);
	if (ut->failed)
		return;
	for (unsigned a = 0; a < x.n; a++) {
		for (unsigned b = 0; b < x.n; b++) {
			xc_go(ut, &x, a, b, 1, 0x1000 + a * 16 + b);
			if (ut->failed || xc_check(ut, f, &x, b) != (long)a)
				return;
			UT_CHECK_EQ(it_cpu_of(x.cli[a]->thread), a);
			UT_CHECK_EQ(it_cpu_of(x.srv[b]->thread), b);
		}
	}
	/* All clients at once, each over every server. */
	unsigned seen = 0;
	for (unsigned a = 0; a < x.n; a++) {
		xc_go(ut, &x, a, 0, x.n, 0x2000 + a);
		if (ut->failed)
			return;
	}
	for (unsigned k = 0; k < x.n; k++) {
		long a = xc_check(ut, f, &x, -1);
		if (a < 0)
			return;
		UT_CHECK(!(seen & 1u << a));
		seen |= 1u << a;
	}
}

UTEST(ipc_xcore_pairs, 2)
{
	IT_RUN(xcore_pairs_body);
}

/* ------------------------------------------------------------------ */
/* ipc_migrate_blocked                                                  */

/** Migrate @t (blocked, or about to block) to @cpu and check it is there. */
static void migrate_to(struct ut *ut, struct ful_task *t, unsigned cpu)
{
	UT_CHECK_EQ(ful_thread_migrate(FUL_SLOT_SCHED, t->thread, cpu), 0);
	UT_CHECK_EQ(it_cpu_of(t->thread), cpu);
}

/** The receive timeouts the echo server at @ep has seen, or -FUL_E*. */
static long server_timeouts(unsigned ep)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_TIMEOUTS, 0)};
	long rc = ful_call(ep, &m, IT_TMO);
	return rc < 0 ? rc : (long)m.mr[0];
}

/** A server blocked in RECV (@timeout_us 0: forever) is moved around
 *  every core; each time the next call is served from the new core. */
static void migrate_server(struct ut *ut, struct it_fix *f,
			   unsigned long timeout_us)
{
	long ep = it_ep(f), err = 0;
	unsigned n = ut_ncpus();
	IT_OK(ep);
	struct ful_task *srv = it_peer(f, 0, IT_ARG0(IT_ECHO, 0), timeout_us,
				       (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	struct ful_thread_info info;
	for (unsigned k = 1; k <= 2 * n; k++) {
		unsigned dest = k % n;
		UT_WAIT(it_state(srv->thread) == FUL_TS_BLOCKED);
		migrate_to(ut, srv, dest);
		if (ut->failed)
			return;
		struct ful_msg m = {.info = FUL_MSG(IT_L_INFO, 0)};
		UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), 0);
		UT_CHECK_EQ(m.mr[0], dest);
		m = (struct ful_msg){.info = FUL_MSG(0x31, 0), .mr = {k, 0, 0, k}};
		UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), 0);
		UT_CHECK_EQ(m.mr[0], it_echo_mr(k, 0));
		UT_CHECK_EQ(m.mr[3], it_echo_mr(k, 3));
	}
	IT_OK(ful_thread_info(srv->thread, &info));
	UT_CHECK_EQ(info.migrations, 2 * n);
	UT_CHECK_EQ(info.cpu, 0);
	UT_CHECK_EQ(server_timeouts((unsigned)ep), 0); /* none spurious */
}

/** A server whose short receive timeouts keep firing after it moved:
 *  three timeouts in a row on its new core. */
static void migrate_sleeper(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0;
	unsigned dest = ut_ncpus() - 1, in_a_row = 0;
	struct ful_msg m;
	IT_OK(ep);
	it_peer(f, 0, IT_ARG0(IT_ECHO, 0), 5000, (unsigned)ep, FUL_R_READ, 0,
		&err);
	IT_OK(err);
	struct ful_task *srv = &f->tasks[f->ntasks - 1];
	IT_REPORT(f, &m, IT_R_TIMEOUT);
	UT_CHECK_EQ(m.mr[1], 0);
	migrate_to(ut, srv, dest);
	for (unsigned k = 0; k < 1000 && in_a_row < 3; k++) {
		IT_REPORT(f, &m, IT_R_TIMEOUT);
		UT_CHECK(m.mr[1] == 0 || m.mr[1] == dest);
		in_a_row = m.mr[1] == dest ? in_a_row + 1 : 0;
	}
	UT_CHECK_EQ(in_a_row, 3);
	it_kill(srv); /* before its next report gets in the way */
}

/** A caller waiting for our reply, a sender queued on our endpoint and
 *  a notification waiter are migrated; each completes on its new core. */
static void migrate_clients(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), n = it_ntfn(f), err = 0;
	unsigned dest = ut_ncpus() - 1;
	struct ful_msg m;
	IT_OK(ep);
	IT_OK(n);
	struct ful_task *t = it_peer(f, 0, IT_ARG0(IT_CALL1, 3), 0, (unsigned)ep,
				     FUL_R_WRITE, 0, &err);
	IT_OK(err);
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, IT_TMO), 0);
	UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	migrate_to(ut, t, dest);
	m = (struct ful_msg){.info = FUL_MSG(0x33, 0), .mr = {33}};
	UT_CHECK_EQ(ful_reply(&m), 0);
	IT_REPORT(f, &m, IT_R_CALL);
	UT_CHECK_EQ(m.mr[0], 0);
	UT_CHECK_EQ(m.mr[1], 33);
	UT_CHECK_EQ(m.mr[3], dest);

	t = it_peer(f, 0, IT_ARG0(IT_SENDER, 0), 1, (unsigned)ep, FUL_R_WRITE,
		    0, &err);
	IT_OK(err);
	UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	migrate_to(ut, t, dest);
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), IT_L_SEQ);
	IT_REPORT(f, &m, IT_R_DONE);
	UT_CHECK_EQ(m.mr[0], 0);
	UT_CHECK_EQ(m.mr[1], dest);

	t = it_peer(f, 0, IT_ARG0(IT_NTFN_WAIT, 0), 0, (unsigned)n, FUL_R_READ,
		    0, &err);
	IT_OK(err);
	UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	migrate_to(ut, t, dest);
	UT_CHECK_EQ(ful_ntfn_signal((unsigned)n, 0x4), 0);
	IT_REPORT(f, &m, IT_R_NTFN);
	UT_CHECK_EQ(m.mr[0], 0);
	UT_CHECK_EQ(m.mr[1], 0x4);
	UT_CHECK_EQ(m.mr[2], dest);
}

static void migrate_body(struct ut *ut, struct it_fix *f)
{
	migrate_server(ut, f, 0);
	if (!ut->failed)
		migrate_server(ut, f, 30000000);
	if (!ut->failed)
		migrate_sleeper(ut, f);
	if (!ut->failed)
		migrate_clients(ut, f);
}

UTEST(ipc_migrate_blocked, 2)
{
	IT_RUN(migrate_body);
}
