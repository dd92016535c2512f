/*
 * F's ring thread: serves the client rings (<fulcrum/fs.h>, rings of
 * <fulcrum/sring.h> with a data area) with the serving loop of
 * <ful/serve.h>. It takes each ring's requests in order, runs them
 * (f_handle, under f_lock), publishes the replies, and signals a client
 * only if that client said it sleeps. Before it sleeps it wakes B for
 * the writes posted behind (ext2_b_kick).
 *
 * Rings are attached and detached by the IPC thread on the rootserver's
 * word (ful_serve_attach, ful_serve_detach: the hand-over of `live` and
 * `busy` in <ful/serve.h>).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/fs.h>
#include <ful/serve.h>
#include <ful/sring.h>

#include "f.h"

/* The client rings: their state (live, busy: the serve set's protocol;
 * spins: set before the thread starts) and, below, their description. */
static struct ful_serve rings = {.busy = -1};
static bool started; /* the ring thread runs: rings may be attached */

static unsigned ring_serve(unsigned k);
static void rings_idle(void);
static bool rings_killed(void);

static const struct ful_serve_ops rings_ops = {
	.serve = ring_serve, .idle = rings_idle, .killed = rings_killed,
	.base = FUL_FSR_F_VADDR, .stride = FUL_FSR_F_STRIDE,
	.peer = FUL_FSR_F_SLOT_NTFN, .bell = FUL_FSR_F_SLOT_BELL,
};

long f_ring_attach(unsigned long k)
{
	if (k >= FUL_FSR_MAX || !started)
		return -EINVAL;
	ful_serve_attach(&rings, &rings_ops, (unsigned)k);
	return 0;
}

long f_ring_detach(unsigned long k)
{
	if (k >= FUL_FSR_MAX)
		return -EINVAL;
	ful_serve_detach(&rings, (unsigned)k);
	/* the client's OMF pages and the window: the next user of ring k
	 * gets a new window from the rootserver in the same slot */
	f_lock_take();
	f_omf_unmap((unsigned)k);
	f_lock_drop();
	ful_cap_delete(FUL_FSR_F_SLOT_WIN + (unsigned)k);
	return 0;
}

/** Run request @r of ring @k (copied out of the shared page: checked
 *  here) and publish its reply on @s. Takes f_lock. */
static void ring_serve_one(unsigned k, struct ful_sring *s,
			   const struct ful_sring_req *r)
{
	struct f_req q = {.op = r->op, .mr = {r->a[0], r->a[1], r->a[2], 0}};
	long err = 0;
	if (r->data_off > FUL_FSR_DATA || r->len > FUL_FSR_DATA - r->data_off ||
	    r->op == FUL_FS_OP_RING_ATTACH || r->op == FUL_FS_OP_RING_DETACH)
		err = -EINVAL;
	else {
		q.buf = ful_sring_data(s) + r->data_off;
		q.len = r->len;
		q.cap = FUL_FSR_DATA - r->data_off;
		f_lock_take();
		if (r->op >= FUL_FS_OP_OMF_MAP && r->op <= FUL_FS_OP_OMF_RESIZE)
			f_omf_handle(k, &q);
		else
			f_handle(&q);
		f_lock_drop();
	}
	const struct ful_sring_rep p = {
		.r = {err ? err : (long)q.mr[0], (long)q.mr[1], (long)q.mr[2],
		      (long)q.mr[3]},
		.id = r->id, .len = err ? 0 : (unsigned)q.out};
	ful_sring_put(s, &p);
}

/** Serve every waiting request of ring @k (while its reply ring has
 *  room), then wake its client once if it sleeps: how many. Ring
 *  thread, with k's bit seen in live. */
static unsigned ring_serve(unsigned k)
{
	struct ful_sring s = {.ctl = ful_serve_ctl(&rings_ops, k),
			      .peer = FUL_FSR_F_SLOT_NTFN + k};
	struct ful_sring_req r;
	unsigned n = 0;
	while (ful_sring_take(&s, &r)) {
		ring_serve_one(k, &s, &r);
		n++;
	}
	if (n)
		ful_sring_wake(&s);
	return n;
}

/** Before the ring thread sleeps: writes posted to B behind, B may
 *  sleep. Takes f_lock. */
static void rings_idle(void)
{
	f_lock_take();
	ext2_b_kick(&f_b);
	f_lock_drop();
}

/** The doorbell said a thread of F was killed: if it is the IPC thread
 *  (killed, or a fault), tell every client on a ring (server_dead, and
 *  a wake-up for a sleeper) and end. No look at the sibling on every
 *  pass: THREAD_INFO is a system call (about 590 instructions), and the
 *  rootserver rings the doorbell with FUL_SRING_BELL_KILLED when it
 *  kills it. */
static bool rings_killed(void)
{
	if (!ful_thread_dead(FUL_CHILD_SLOT_THREAD))
		return false;
	ful_serve_close(&rings, &rings_ops);
	printf("fs: the server thread is gone: rings closed\n");
	return true;
}

static struct ful_thread ring_thread;

static void ring_main(void *arg)
{
	(void)arg;
	ful_serve_run(&rings, &rings_ops);
}

unsigned long f_ring_tid(void)
{
	return started ? (unsigned long)ring_thread.tid : 0;
}

long f_ring_start(unsigned cpu, unsigned prio, unsigned spin)
{
	struct ful_thread *t = &ring_thread;
	rings.spins = spin;
	if ((ful_cap_info(FUL_FSR_F_SLOT_BELL) & 0xff) != FUL_CAP_NTFN)
		return -FUL_EBADCAP;
	struct ful_thread_args a = {
		.fn = ring_main, .pool = FUL_FSR_F_SLOT_POOL,
		.vs = FUL_CHILD_SLOT_VS, .prio = prio, .cpu = cpu,
		.name = "fs-rings",
	};
	long err = ful_thread_spawn(&a, t);
	started = err == 0;
	return err;
}
