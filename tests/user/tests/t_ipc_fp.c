/*
 * ipc_fastpath_equiv: one seeded random sequence of IPC operations whose
 * every observable result (return code, label, length, registers, IPC
 * buffer) is checked here and folded into a digest printed as
 *   IPC-EQUIV seed=<seed> ops=<n> digest=<hex>
 * make test boots it with the fastpath on and with fastpath=0, and the
 * harness requires the two lines to be equal (--same-lines): the fastpath
 * changes no observable result.
 *
 * Operations: calls (forever: the fastpath's case; with a timeout: the
 * generic path) to an echo server on this core and to one on another,
 * with 0..512 payload bytes; polls that time out; malformed messages
 * (reserved info bits, too long); calls through an empty slot, a
 * notification and a capability without the right (every one an error
 * the fastpath must leave to the generic path); calls through a copy of
 * the endpoint that is then deleted; and a server ended by a call
 * (IT_L_EXIT: the caller's reply is cancelled), then replaced.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ipc.h"

#define EQ_OPS 3000
#define EQ_SEED 0x5eed1234UL

struct eq {
	struct ut *ut;
	struct it_fix *f;
	unsigned ep_here, ep_there, ep_idle, ntfn, ro, tmp;
	unsigned long digest, seed;
};

static void eq_fold(struct eq *q, unsigned long v)
{
	for (int i = 0; i < 8; i++) { /* FNV-1a over the bytes of v */
		q->digest ^= (v >> (8 * i)) & 0xff;
		q->digest *= 0x100000001b3UL;
	}
}

/** An echo call on @ep with a random message; check and fold it. */
static void eq_echo(struct eq *q, unsigned ep, unsigned long tmo)
{
	struct ut *ut = q->ut;
	unsigned char *buf = ful_ipcbuf(), expect[FUL_IPCBUF_SIZE];
	size_t len = it_rand(&q->seed) % (FUL_IPCBUF_SIZE + 1);
	if (it_rand(&q->seed) & 1)
		len = 0; /* half register-only: the fastpath's own case */
	unsigned long label = it_rand(&q->seed) & 0xffffff, mr[4];
	struct ful_msg m = {.info = FUL_MSG(label, len)};
	for (unsigned k = 0; k < 4; k++)
		mr[k] = m.mr[k] = it_rand(&q->seed);
	for (size_t i = 0; i < len; i++)
		buf[i] = expect[i] = (unsigned char)it_rand(&q->seed);
	it_echo_buf(expect, len);
	long rc = ful_call(ep, &m, tmo);
	eq_fold(q, (unsigned long)rc);
	UT_CHECK_EQ(rc, 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), it_echo_label(label));
	UT_CHECK_EQ(FUL_MSG_LEN(m.info), len);
	UT_CHECK_EQ(m.badge, 0);
	for (unsigned k = 0; k < 4; k++) {
		UT_CHECK_EQ(m.mr[k], it_echo_mr(mr[k], k));
		eq_fold(q, m.mr[k]);
	}
	eq_fold(q, m.info);
	if (memcmp(buf, expect, len))
		ut_fail(ut, __FILE__, __LINE__, "payload of %zu bytes differs",
			len);
	for (size_t i = 0; i < len; i++)
		eq_fold(q, buf[i]);
}

/** A call expected to fail with @want before reaching anyone. */
static void eq_refused(struct eq *q, unsigned slot, unsigned long info,
		       unsigned long tmo, long want)
{
	struct ut *ut = q->ut;
	struct ful_msg m = {.info = info, .mr = {1, 2, 3, 4}};
	long rc = ful_call(slot, &m, tmo);
	eq_fold(q, (unsigned long)rc);
	UT_CHECK_EQ(rc, want);
}

/** End the echo server behind @ep with a call (its reply is cancelled:
 *  EDEAD), then start a new one on core @cpu. */
static void eq_replace(struct eq *q, unsigned ep, unsigned cpu)
{
	struct ut *ut = q->ut;
	long err = 0;
	struct ful_msg m = {.info = FUL_MSG(IT_L_EXIT, 0)};
	long rc = ful_call(ep, &m, FUL_FOREVER);
	eq_fold(q, (unsigned long)rc);
	UT_CHECK_EQ(rc, -FUL_EDEAD);
	it_peer(q->f, cpu, IT_ARG0(IT_ECHO, 1), 0, ep, FUL_R_READ, 0, &err);
	if (err < 0)
		ut_fail(ut, __FILE__, __LINE__, "respawn: %ld", err);
}

/** A deleted copy of an endpoint capability names nothing any more. */
static void eq_deleted(struct eq *q)
{
	struct ut *ut = q->ut;
	long rc = ful_cap_copy(q->ep_here, FUL_SLOT_SELF_VS, q->tmp,
			       FUL_R_WRITE, 7);
	UT_CHECK_EQ(rc, 0);
	eq_echo(q, q->tmp, FUL_FOREVER);
	UT_CHECK_EQ(ful_cap_delete(q->tmp), 0);
	eq_refused(q, q->tmp, FUL_MSG(1, 0), FUL_FOREVER, -FUL_EBADCAP);
}

static void eq_op(struct eq *q, unsigned op, unsigned here, unsigned there)
{
	struct ut *ut = q->ut;
	switch (op) {
	case 0: case 1: case 2: case 3:
		eq_echo(q, q->ep_here, FUL_FOREVER);
		break;
	case 4: case 5:
		eq_echo(q, q->ep_there, FUL_FOREVER);
		break;
	case 6:
		eq_echo(q, it_rand(&q->seed) & 1 ? q->ep_there : q->ep_here,
			IT_TMO);
		break;
	case 7: /* a poll, and a call that times out after waiting */
		eq_refused(q, q->ep_idle, FUL_MSG(2, 0), 0, -FUL_ETIMEOUT);
		if (it_rand(&q->seed) % 8 == 0)
			eq_refused(q, q->ep_idle, FUL_MSG(2, 0), 200,
				   -FUL_ETIMEOUT);
		break;
	case 8: {
		struct ful_msg m;
		long rc = ful_recv(q->ep_idle, &m, 0);
		eq_fold(q, (unsigned long)rc);
		UT_CHECK_EQ(rc, -FUL_ETIMEOUT);
		break;
	}
	case 9:
		eq_refused(q, q->ep_here, FUL_MSG(3, 0) | 0x400, FUL_FOREVER,
			   -FUL_EINVAL);
		eq_refused(q, q->ep_here, FUL_MSG(3, FUL_IPCBUF_SIZE + 1),
			   FUL_FOREVER, -FUL_ERANGE);
		break;
	case 10:
		eq_refused(q, q->tmp, FUL_MSG(4, 0), FUL_FOREVER, -FUL_EBADCAP);
		eq_refused(q, q->ntfn, FUL_MSG(4, 0), FUL_FOREVER, -FUL_ETYPE);
		eq_refused(q, q->ro, FUL_MSG(4, 0), FUL_FOREVER, -FUL_ERIGHTS);
		eq_refused(q, 0, FUL_MSG(4, 0), FUL_FOREVER, -FUL_EBADCAP);
		break;
	case 11:
		eq_deleted(q);
		break;
	case 12: { /* a signal nobody waits for, then a poll (fastpath: the
		    * bits are ORed in under the lock) */
		unsigned long bits = it_rand(&q->seed) | 1, got = 0;
		UT_CHECK_EQ(ful_ntfn_signal(q->ntfn, bits), 0);
		UT_CHECK_EQ(ful_ntfn_signal(q->ntfn, 0), -FUL_EINVAL);
		UT_CHECK_EQ(ful_ntfn_poll(q->ntfn, &got), 0);
		UT_CHECK_EQ(got, bits);
		eq_fold(q, got);
		break;
	}
	default:
		eq_replace(q, it_rand(&q->seed) & 1 ? q->ep_here : q->ep_there,
			   op & 1 ? here : there);
	}
}

static void equiv_body(struct ut *ut, struct it_fix *f)
{
	struct eq q = {.ut = ut, .f = f, .digest = 0xcbf29ce484222325UL,
		       .seed = EQ_SEED};
	struct ful_sysinfo si;
	IT_OK(ful_sysinfo(&si));
	unsigned here = si.cpu, there = it_core(here + 1), replaced = 0;
	long h = it_ep(f), t = it_ep(f), i = it_ep(f), n = it_ntfn(f);
	long ro = it_slot(f), tmp = it_slot(f), err = 0;
	IT_OK(h);
	IT_OK(t);
	IT_OK(i);
	IT_OK(n);
	IT_OK(ro);
	IT_OK(tmp);
	q.ep_here = (unsigned)h, q.ep_there = (unsigned)t;
	q.ep_idle = (unsigned)i, q.ntfn = (unsigned)n;
	q.ro = (unsigned)ro, q.tmp = (unsigned)tmp;
	IT_OK(ful_cap_copy(q.ep_here, FUL_SLOT_SELF_VS, q.ro, FUL_R_READ, 0));
	it_peer(f, here, IT_ARG0(IT_ECHO, 1), 0, q.ep_here, FUL_R_READ, 0, &err);
	IT_OK(err);
	it_peer(f, there, IT_ARG0(IT_ECHO, 1), 0, q.ep_there, FUL_R_READ, 0,
		&err);
	IT_OK(err);
	unsigned ops = 0;
	for (; ops < EQ_OPS && !ut->failed; ops++) {
		unsigned op = (unsigned)(it_rand(&q.seed) % 128);
		/* replacements are rare (spawning is slow, tasks bounded) */
		if (op >= 126 && replaced < IT_MAX_TASKS - 8) {
			replaced++;
			eq_op(&q, 13 + op % 2, here, there);
		} else {
			eq_op(&q, op % 13, here, there);
		}
	}
	printf("IPC-EQUIV seed=%#lx ops=%u digest=%016lx\n", EQ_SEED, ops,
	       q.digest);
}

UTEST(ipc_fastpath_equiv, 1)
{
	IT_RUN(equiv_body);
}

/* ------------------------------------------------------------------ */
/* ipc_fastpath_race                                                    */

/*
 * A caller thread of this task makes FP_CALLS_DEFAULT calls (boot
 * argument fprace_calls=; make test-long: a million) without timeout through slot X to
 * an echo server, the fastpath's case, while this thread, on another
 * core, deletes X and copies the endpoint back into it without pause,
 * and every FP_MIGRATE_EVERY rounds migrates the server between the
 * caller's core and a third one (same-core and cross-core fastpath in
 * turn). Every call must either be served correctly or fail with
 * EBADCAP (X empty at that moment): nothing lost, nothing torn, and the
 * kernel's books stay right (the suite runs with loadcheck). The
 * endpoint's own capability stays, so the server (which holds one too)
 * must still answer at the end. Orphaning an endpoint under waiters is
 * ipc_delete_wakes's subject.
 */
#define FP_CALLS_DEFAULT 200000UL /* make test-long: a million */
#define FP_MIGRATE_EVERY 64

struct fp_race {
	unsigned slot;
	unsigned long calls;
	_Atomic unsigned long made; /* calls returned so far */
	unsigned long ok, badcap, bad, first_bad;
	_Atomic int done;
};

static void fp_race_caller(void *arg)
{
	struct fp_race *r = arg;
	unsigned long seed = 0x1234;
	for (unsigned long i = 0; i < r->calls; i++) {
		unsigned long label = it_rand(&seed) & 0xffffff, mr0 = it_rand(&seed);
		struct ful_msg m = {.info = FUL_MSG(label, 0), .mr = {mr0, i}};
		long rc = ful_call(r->slot, &m, FUL_FOREVER);
		if (rc == -FUL_EBADCAP) {
			r->badcap++;
		} else if (rc == 0 && FUL_MSG_LABEL(m.info) == it_echo_label(label) &&
			   m.mr[0] == it_echo_mr(mr0, 0) &&
			   m.mr[1] == it_echo_mr(i, 1)) {
			r->ok++;
		} else if (!r->bad++) {
			r->first_bad = i << 8 | (unsigned long)(-rc & 0xff);
		}
		atomic_store_explicit(&r->made, i + 1, memory_order_relaxed);
	}
	atomic_store(&r->done, 1);
}

static void race_body(struct ut *ut, struct it_fix *f)
{
	static struct fp_race r;
	char v[24];
	long ep = it_ep(f), x = it_slot(f), err = 0;
	IT_OK(ep);
	IT_OK(x);
	r = (struct fp_race){.slot = (unsigned)x, .calls = FP_CALLS_DEFAULT};
	if (ut_bootarg("fprace_calls", v, sizeof v))
		r.calls = strtoul(v, NULL, 0);
	unsigned a = 1, b = 2, me = 0;
	IT_OK(ful_cap_copy((unsigned)ep, FUL_SLOT_SELF_VS, r.slot, FUL_R_WRITE, 0));
	struct ful_task *srv = it_peer(f, a, IT_ARG0(IT_ECHO, 1), 0,
				       (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	IT_OK(ful_thread_migrate(FUL_SLOT_SCHED, FUL_SLOT_SELF_THREAD, me));
	struct ful_thread th;
	struct ful_thread_args ta = {.fn = fp_race_caller, .arg = &r,
				     .pool = FUL_SLOT_POOL, .vs = FUL_SLOT_SELF_VS,
				     .prio = 100, .cpu = a, .name = "fprace"};
	IT_OK(ful_thread_spawn(&ta, &th));
	unsigned long rounds = 0, moves = 0, t0 = ful_counter();
	while (!atomic_load(&r.done)) {
		UT_CHECK_EQ(ful_cap_delete(r.slot), 0);
		UT_CHECK_EQ(ful_cap_copy((unsigned)ep, FUL_SLOT_SELF_VS, r.slot,
					 FUL_R_WRITE, 0), 0);
		/* let a few calls through before the next deletion, so most
		 * calls find the capability (an event, not a delay) */
		unsigned long made = atomic_load(&r.made);
		while (!atomic_load(&r.done) && atomic_load(&r.made) < made + 4)
			;
		/* a move may be refused while the last is in flight */
		if (++rounds % FP_MIGRATE_EVERY == 0 &&
		    ful_thread_migrate(FUL_SLOT_SCHED, srv->thread,
				       moves & 1 ? a : b) == 0)
			moves++;
		if (ut->failed || it_elapsed_us(t0) > 600000000UL)
			break;
	}
	UT_CHECK(atomic_load(&r.done));
	UT_CHECK(ful_thread_reap(&th, IT_TMO));
	printf("IPC-FPRACE calls=%lu ok=%lu badcap=%lu bad=%lu rounds=%lu "
	       "moves=%lu\n", r.calls, r.ok, r.badcap, r.bad, rounds, moves);
	if (r.bad)
		ut_fail(ut, __FILE__, __LINE__, "%lu bad calls, first: call %lu "
			"error %lu", r.bad, r.first_bad >> 8, r.first_bad & 0xff);
	UT_CHECK_EQ(r.ok + r.badcap, r.calls);
	UT_CHECK(r.ok > 0);
	/* The server, moved about, still answers (through the endpoint's
	 * own slot, not the one that was deleted so often). */
	struct ful_msg m = {.info = FUL_MSG(5, 0), .mr = {9}};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(m.mr[0], it_echo_mr(9, 0));
}

UTEST(ipc_fastpath_race, 3)
{
	IT_RUN(race_body);
}
