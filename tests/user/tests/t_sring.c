/*
 * Server-to-server rings (<ful/sring.h>), both sides in this task: a
 * server thread on another core, this thread the client.
 *   sring_post_collect  write-behind: posts go on without replies, up to
 *                       FUL_SRING_SLOTS; replies are collected in order;
 *                       a call waits until they are; a post without the
 *                       bell leaves a sleeping server asleep until
 *                       ful_sring_bell, which wakes it with a SEND the
 *                       server does not answer
 */
#include <stdatomic.h>

#include <fulcrum/sring.h>
#include <ful/serve.h>
#include <ful/sring.h>

#include "utest.h"

#define SR_OP_TWICE 7 /* reply a[0] * 2 + SR_OP_TWICE */
#define SR_OP_STOP 8  /* the server thread ends */

static struct ful_sring_ctl sr_ctl __attribute__((aligned(4096)));
static struct ful_sring sr_srv, sr_cli;
/* the server's set of one ring (<ful/serve.h>), its doorbell made by
 * the test: a description set before the server thread starts */
static struct ful_serve sr_set;
static struct ful_serve_ops sr_ops;
static _Atomic unsigned long sr_served, sr_order_errors;
static _Atomic int sr_stop;

static void sr_op(unsigned op, const unsigned long a[4], long r[4])
{
	unsigned long n = atomic_fetch_add(&sr_served, 1);
	if (op == SR_OP_TWICE && a[1] != n) /* a[1]: the client's count */
		atomic_fetch_add(&sr_order_errors, 1);
	if (op == SR_OP_STOP)
		atomic_store(&sr_stop, 1);
	r[0] = (long)(a[0] * 2 + op);
}

static unsigned sr_serve(unsigned k)
{
	(void)k;
	return ful_sring_serve(&sr_srv, sr_op);
}

/** The server: serve, answer a doorbell's caller, sleep when idle (the
 *  steps of ful_serve_run, with a way out). */
static void sr_server(void *arg)
{
	(void)arg;
	while (!atomic_load(&sr_stop)) {
		unsigned n = ful_serve_pass(&sr_set, &sr_ops);
		ful_serve_release(&sr_set, &sr_ops);
		if (!n && !atomic_load(&sr_stop))
			ful_serve_sleep(&sr_set, &sr_ops);
	}
}

/** Is the thread in @slot blocked (the server asleep in RECV)? */
static bool sr_blocked(unsigned slot)
{
	struct ful_thread_info i;
	return ful_thread_info(slot, &i) == 0 && i.state == FUL_TS_BLOCKED;
}

/** Post @k requests numbered from @first (a[1] the running count). */
static long sr_post(unsigned k, unsigned long first, bool bell)
{
	for (unsigned i = 0; i < k; i++) {
		const struct ful_msg m = {.mr = {first + i, first + i, 0, 0}};
		long id = ful_sring_post(&sr_cli, SR_OP_TWICE, &m, bell);
		if (id < 0)
			return id;
	}
	return 0;
}

static void sr_body(struct ut *ut, long ep, long nt, struct ful_thread *th)
{
	UT_CHECK(ep > 0 && nt > 0);
	UT_CHECK_EQ(ful_ep_create(FUL_SLOT_POOL, (unsigned)ep), 0);
	UT_CHECK_EQ(ful_ntfn_create(FUL_SLOT_POOL, (unsigned)nt), 0);
	sr_srv = (struct ful_sring){.ctl = &sr_ctl, .peer = (unsigned)nt};
	sr_set = (struct ful_serve){.live = 1, .busy = -1};
	sr_ops = (struct ful_serve_ops){
		.serve = sr_serve, .base = (unsigned long)&sr_ctl,
		.peer = (unsigned)nt, .bell = (unsigned)ep, .bell_ep = true};
	sr_cli = (struct ful_sring){.ctl = &sr_ctl, .mine = (unsigned)nt,
				    .peer = (unsigned)ep};
	struct ful_thread_args a = {.fn = sr_server, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = 1, .name = "sring_srv"};
	UT_CHECK_EQ(ful_thread_spawn(&a, th), 0);
	/* the server asleep with nothing to do */
	UT_WAIT(atomic_load(&sr_ctl.server_sleeping) && sr_blocked(th->slot));
	/* a post without the bell: the server is not woken (no doorbell
	 * sent) and takes nothing; the bell wakes it */
	unsigned long sig0 = sr_ctl.client_signals;
	UT_CHECK_EQ(sr_post(1, 0, false), 0);
	UT_CHECK_EQ(sr_ctl.client_signals, sig0);
	UT_CHECK_EQ(ful_sring_posted(&sr_cli), 1);
	UT_CHECK_EQ(atomic_load(&sr_served), 0);
	ful_sring_bell(&sr_cli);
	UT_CHECK_EQ(sr_ctl.client_signals, sig0 + 1);
	UT_WAIT(atomic_load(&sr_served) == 1);
	/* up to the ring's size uncollected, then EAGAIN */
	UT_CHECK_EQ(sr_post(FUL_SRING_SLOTS - 1, 1, true), 0);
	struct ful_msg x = {.mr = {99, 99, 0, 0}};
	UT_CHECK_EQ(ful_sring_post(&sr_cli, SR_OP_TWICE, &x, true), -FUL_EAGAIN);
	UT_CHECK_EQ(ful_sring_posted(&sr_cli), FUL_SRING_SLOTS);
	struct ful_msg r;
	UT_CHECK_EQ(ful_sring_call(&sr_cli, SR_OP_TWICE, &x, 0), -FUL_ESTATE);
	/* the replies, in order */
	for (unsigned i = 0; i < FUL_SRING_SLOTS; i++) {
		unsigned id = ~0u;
		UT_CHECK_EQ(ful_sring_collect(&sr_cli, &r, &id), 0);
		UT_CHECK_EQ(id, i);
		UT_CHECK_EQ((long)r.mr[0], (long)(2 * i + SR_OP_TWICE));
	}
	unsigned id;
	UT_CHECK_EQ(ful_sring_collect(&sr_cli, &r, &id), -FUL_ESTATE);
	/* a call works again, after the server slept once more */
	UT_WAIT(atomic_load(&sr_ctl.server_sleeping));
	struct ful_msg y = {.mr = {21, FUL_SRING_SLOTS, 0, 0}};
	UT_CHECK_EQ(ful_sring_call(&sr_cli, SR_OP_TWICE, &y, 0), 0);
	UT_CHECK_EQ((long)y.mr[0], 42 + SR_OP_TWICE);
	UT_CHECK_EQ(atomic_load(&sr_order_errors), 0);
	/* posts left for the collect to ring for: collected all the same */
	UT_WAIT(atomic_load(&sr_ctl.server_sleeping));
	UT_CHECK_EQ(sr_post(3, FUL_SRING_SLOTS + 1, false), 0);
	for (unsigned i = 0; i < 3; i++)
		UT_CHECK_EQ(ful_sring_collect(&sr_cli, &r, &id), 0);
	UT_CHECK_EQ((long)r.mr[0],
		    (long)(2 * (FUL_SRING_SLOTS + 3) + SR_OP_TWICE));
	UT_CHECK_EQ(atomic_load(&sr_order_errors), 0);
}

UTEST(sring_post_collect, 2)
{
	long ep = ful_slot_alloc(), nt = ful_slot_alloc();
	struct ful_thread th = {0};
	atomic_store(&sr_served, 0);
	atomic_store(&sr_order_errors, 0);
	atomic_store(&sr_stop, 0);
	sr_ctl = (struct ful_sring_ctl){0};
	sr_body(ut, ep, nt, &th);
	/* stop the server, whatever happened above */
	if (th.tid > 0) {
		while (ful_sring_posted(&sr_cli)) {
			struct ful_msg r;
			unsigned id;
			if (ful_sring_collect(&sr_cli, &r, &id))
				break;
		}
		struct ful_msg z = {0};
		ful_sring_call(&sr_cli, SR_OP_STOP, &z, 0);
		UT_CHECK(ful_thread_reap(&th, UT_TIMEOUT_US));
	}
	const long slots[2] = {ep, nt};
	for (unsigned i = 0; i < 2; i++)
		if (slots[i] > 0) {
			ful_cap_delete((unsigned)slots[i]);
			ful_slot_free((unsigned)slots[i]);
		}
}
