/*
 * F's ring thread: serves the client rings of <fulcrum/fs.h>.
 * It takes each ring's requests in order, runs them (f_handle, under
 * f_lock), publishes the replies, and signals a client only if that
 * client said it sleeps. With nothing to do it keeps polling while its
 * core has no other runnable thread (the load area says so: polling
 * then costs nobody anything), up to fs_spin passes; then it says it sleeps
 * in every ring, looks once more, and waits on its doorbell.
 *
 * Rings are attached and detached by the IPC thread on the rootserver's
 * word; `live` (a bit per ring) is the hand-over: the ring thread only
 * reads a ring whose bit it saw set, and a detach waits until the ring
 * thread has left the ring (its `busy` index) before answering.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/fs.h>
#include <fulcrum/sring.h>
#include <ful/load.h>

#include "f.h"

/* Polls of the rings before sleeping (when the core is not wanted),
 * boot argument fs_spin=N (0 by default: under icount every polling
 * instruction counts in the path, and on a busy host a polling vCPU
 * competes with the one it waits for). Counted in passes, not time, so
 * that a vCPU the host descheduled does not find its budget spent. */
static unsigned spin_passes;

static _Atomic unsigned long live;     /* bit k: ring k attached */
static _Atomic int busy = -1;          /* the ring being served, or -1 */
static bool started; /* the ring thread runs: rings may be attached */

static struct ful_sring_ctl *ring(unsigned k)
{
	return (struct ful_sring_ctl *)(FUL_FSR_F_VADDR + k * FUL_FSR_F_STRIDE);
}

static unsigned char *ring_data(unsigned k)
{
	return (unsigned char *)ring(k) + 4096;
}

long f_ring_attach(unsigned long k)
{
	if (k >= FUL_FSR_MAX || !started)
		return -EINVAL;
	struct ful_sring_ctl *c = ring(k);
	/* the rootserver made the frame: zeros, the client not yet in */
	atomic_store(&c->server_sleeping, 0);
	atomic_fetch_or(&live, 1UL << k);
	ful_ntfn_signal(FUL_FSR_F_SLOT_BELL, 1); /* look at it */
	return 0;
}

long f_ring_detach(unsigned long k)
{
	if (k >= FUL_FSR_MAX)
		return -EINVAL;
	atomic_fetch_and(&live, ~(1UL << k));
	for (unsigned n = 0; atomic_load(&busy) == (int)k;)
		ful_backoff(&n); /* the ring thread, on this core, must run */
	/* the client's OMF pages and the window: the next user of ring k
	 * gets a new window from the rootserver in the same slot */
	f_lock_take();
	f_omf_unmap((unsigned)k);
	f_lock_drop();
	ful_cap_delete(FUL_FSR_F_SLOT_WIN + (unsigned)k);
	return 0;
}

/** Serve one request of ring @k at its tail: copied out of the shared
 *  page first (the client may change it meanwhile), checked, run. */
static void ring_serve_one(unsigned k, struct ful_sring_ctl *c, unsigned tail)
{
	struct ful_sring_req r = c->req[tail % FUL_SRING_SLOTS];
	struct f_req q = {.op = r.op, .mr = {r.a[0], r.a[1], r.a[2], 0}};
	long err = 0;
	if (r.data_off > FUL_FSR_DATA || r.len > FUL_FSR_DATA - r.data_off ||
	    r.op == FUL_FS_OP_RING_ATTACH || r.op == FUL_FS_OP_RING_DETACH)
		err = -EINVAL;
	else {
		q.buf = ring_data(k) + r.data_off;
		q.len = r.len;
		q.cap = FUL_FSR_DATA - r.data_off;
		f_lock_take();
		if (r.op >= FUL_FS_OP_OMF_MAP && r.op <= FUL_FS_OP_OMF_RESIZE)
			f_omf_handle(k, &q);
		else
			f_handle(&q);
		f_lock_drop();
	}
	unsigned head = atomic_load_explicit(&c->rep_head, memory_order_relaxed);
	struct ful_sring_rep *p = &c->rep[head % FUL_SRING_SLOTS];
	p->r[0] = err ? err : (long)q.mr[0];
	p->r[1] = (long)q.mr[1], p->r[2] = (long)q.mr[2];
	p->r[3] = (long)q.mr[3];
	p->len = err ? 0 : (unsigned)q.out;
	p->id = r.id;
	atomic_store_explicit(&c->rep_head, head + 1, memory_order_release);
}

/** Serve every waiting request of ring @k: how many. */
static unsigned ring_serve(unsigned k)
{
	struct ful_sring_ctl *c = ring(k);
	unsigned n = 0;
	for (;;) {
		unsigned tail = atomic_load_explicit(&c->req_tail, memory_order_relaxed);
		unsigned head = atomic_load_explicit(&c->req_head, memory_order_acquire);
		/* room for the reply: the client takes replies in order */
		unsigned rep_free = FUL_SRING_SLOTS -
			(atomic_load(&c->rep_head) - atomic_load(&c->rep_tail));
		if (tail == head || rep_free == 0 || head - tail > FUL_SRING_SLOTS)
			break;
		ring_serve_one(k, c, tail);
		atomic_store_explicit(&c->req_tail, tail + 1, memory_order_release);
		n++;
	}
	if (n) {
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load(&c->client_sleeping)) {
			c->server_signals++;
			ful_ntfn_signal(FUL_FSR_F_SLOT_NTFN + k, 1);
		}
	}
	return n;
}

/** One pass over the live rings: requests served. */
static unsigned rings_pass(void)
{
	unsigned long m = atomic_load(&live);
	unsigned n = 0;
	for (unsigned k = 0; m; k++, m >>= 1) {
		if (!(m & 1))
			continue;
		atomic_store(&busy, (int)k);
		if (atomic_load(&live) & (1UL << k))
			n += ring_serve(k);
		atomic_store(&busy, -1);
	}
	return n;
}

static struct ful_thread ring_thread;

/** Is this core wanted by another thread (then polling would cost it)?
 *  The core is the one the load area gives this thread (F may have been
 *  moved): a load, where a SYSINFO call cost each wake-up about 200
 *  instructions. A record being rewritten gives a stale core at worst,
 *  which only decides one more or one less poll. */
static bool core_wanted(void)
{
	const struct ful_load_page *pg = ful_load_area();
	unsigned cpu = pg->thread[FUL_TID_SLOT(ring_thread.tid)].cpu;
	return cpu >= FUL_LOAD_CPUS || pg->cpu[cpu].nrunnable > 1;
}

/** Is a request waiting on a live ring? A look at two words a ring,
 *  far cheaper than a pass (no reply room, no busy mark). */
static bool rings_pending(void)
{
	unsigned long m = atomic_load(&live);
	for (unsigned k = 0; m; k++, m >>= 1)
		if ((m & 1) && atomic_load(&ring(k)->req_head) !=
				       atomic_load(&ring(k)->req_tail))
			return true;
	return false;
}

/** Say "sleeping" in every live ring (@on) or take it back; with @on,
 *  whether a request came in meanwhile (then do not sleep). */
static bool rings_sleep(bool on)
{
	unsigned long m = atomic_load(&live);
	for (unsigned k = 0; m; k++, m >>= 1)
		if (m & 1)
			atomic_store(&ring(k)->server_sleeping, on);
	if (!on)
		return false;
	atomic_thread_fence(memory_order_seq_cst);
	return rings_pending();
}

/** F's IPC thread is dead (killed, or a fault): tell every client on a
 *  ring (server_dead, and a wake-up for a sleeper), then end. */
static bool rings_orphaned(void)
{
	if (!ful_thread_dead(FUL_CHILD_SLOT_THREAD))
		return false;
	unsigned long m = atomic_load(&live);
	for (unsigned k = 0; m; k++, m >>= 1)
		if (m & 1) {
			atomic_store(&ring(k)->server_dead, 1);
			ful_ntfn_signal(FUL_FSR_F_SLOT_NTFN + k, 1);
		}
	printf("fs: the server thread is gone: rings closed\n");
	return true;
}

static void ring_main(void *arg)
{
	(void)arg;
	for (;;) {
		/* no look at the sibling on every pass: THREAD_INFO is a
		 * system call (about 590 instructions) and this loop runs
		 * twice per request; the rootserver rings the doorbell with
		 * FUL_SRING_BELL_KILLED when it kills it */
		/* After a pass that served, another only if a request is
		 * waiting (a pass over every live ring costs about 100
		 * instructions, the look 25): one request at a time is the
		 * common case */
		if (rings_pass() && rings_pending())
			continue;
		bool got = false;
		for (unsigned i = 0; !got && i < spin_passes && !core_wanted(); i++)
			got = rings_pass() != 0;
		if (got)
			continue;
		f_lock_take(); /* writes posted to B behind: B may sleep */
		ext2_b_kick(&f_b);
		f_lock_drop();
		if (!rings_sleep(true)) {
			unsigned long bits = 0;
			ful_ntfn_wait(FUL_FSR_F_SLOT_BELL, &bits, FUL_FOREVER);
			if ((bits & FUL_SRING_BELL_KILLED) && rings_orphaned())
				return;
		}
		rings_sleep(false);
	}
}

unsigned long f_ring_tid(void)
{
	return started ? (unsigned long)ring_thread.tid : 0;
}

long f_ring_start(unsigned cpu, unsigned prio, unsigned spin)
{
	struct ful_thread *t = &ring_thread;
	spin_passes = spin;
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
