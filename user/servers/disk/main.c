/*
 * D, the disk driver server of paper 002: a user program that drives a
 * virtio-blk device on virtio-mmio and serves 4 KiB blocks over IPC
 * (<fulcrum/disk.h> has the protocol and the start-up with the
 * rootserver; docs/storage.md "D, the disk driver server").
 *
 * Two threads. The server thread receives requests, puts their blocks
 * on the virtqueue as chains (header, data page of the client's window,
 * status), keeps the caller's reply capability (REPLY_SAVE) and goes
 * back to receive: requests of several callers and every block of a
 * batch are in flight together. The interrupt thread (main) bound the
 * device's SPI, so the SPI follows it between cores; on each interrupt
 * it acknowledges the device, collects finished chains, answers the
 * requests whose last chain finished (REPLY_TO) and acks the SPI.
 * A third thread, if the rootserver gave B a ring to D (<fulcrum/disk.h>),
 * takes B's requests off the ring the same way; their answers go back
 * through the ring. Shared state (chains, requests, counters, the ring's
 * replies) is guarded by d.lock.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/disk.h>
#include <fulcrum/load.h>
#include <ful/ful.h>
#include <ful/serve.h>
#include <ful/sring.h>

#include "vblk.h"

#define D_MMIO_VA 0x20000000UL /* region i's page at + i * 4096 */
#define D_RING_VA 0x21000000UL /* 2 pages */
#define D_HDR_VA 0x21010000UL  /* 1 page */
#define D_WIN_VA 0x22000000UL /* window b at + (b - 1) * 16 MiB */
#define D_NREQ NCHAINS         /* requests that may wait for the device */
#define D_NTFN_BIT 1UL

struct d_req {
	bool used;
	bool ring;      /* from B's ring: answer there, request id @id */
	unsigned left;  /* chains not yet finished */
	long err;       /* 0, or -FUL_DISK_EIO if a chain failed */
	unsigned slot;  /* the saved reply capability (IPC) */
	unsigned id;
};

static struct {
	atomic_flag lock;
	struct vblk v;
	struct {
		uint64_t pa;
		unsigned pages; /* 0: no window for this badge */
	} win[FUL_DISK_MAX_WINDOWS];           /* [I] after d_setup */
	unsigned irq_tid, irq_cpu;       /* [lock] WHERE */
	unsigned serve_tid;              /* the request thread (READY) */
	int chain_req[NCHAINS];          /* [lock] request of chain, -1 free */
	unsigned nfree;                  /* [lock] free chains */
	struct d_req req[D_NREQ];        /* [lock] */
	unsigned long done, max_inflight, irqs; /* [lock] STATS */
	unsigned ntfn;
	struct ful_sring ring;           /* [lock] taken, its replies */
	struct ful_serve ring_set;       /* the ring thread's (<ful/serve.h>) */
	unsigned ring_tid;
} d = {.lock = ATOMIC_FLAG_INIT, .ring_set = {.live = 1, .busy = -1}};

static void d_lock(void)
{
	ful_flag_lock(&d.lock);
}

static void d_unlock(void)
{
	ful_flag_unlock(&d.lock);
}

/** Map each granted region and return the index of the first block
 *  device (its registers in d.v.regs), or -1. */
static int d_scan(unsigned nregions)
{
	int found = -1;
	for (unsigned i = 0; i < nregions; i++) {
		struct ful_devmem_info info;
		unsigned slot = FUL_DISK_SLOT_DEV0 + i;
		unsigned long va = D_MMIO_VA + i * FUL_PAGE_SIZE;
		if (ful_devmem_info(slot, &info) < 0 || info.pages != 1 ||
		    ful_devmem_map(FUL_CHILD_SLOT_VS, slot, va,
				   FUL_R_READ | FUL_R_WRITE) < 0)
			continue;
		volatile uint32_t *regs = (volatile uint32_t *)(va + info.map_offset);
		if (found < 0 && vblk_probe(regs)) {
			found = (int)i;
			d.v.regs = regs;
		} else {
			ful_unmap(FUL_CHILD_SLOT_VS, va);
		}
	}
	return found;
}

/** A DMA frame of @pages mapped at @va; its physical address or 0. */
static uint64_t d_dma(unsigned pages, unsigned long va)
{
	long slot = ful_slot_alloc();
	if (slot < 0 || ful_dma_create(FUL_DISK_SLOT_POOL, (unsigned)slot, pages) < 0 ||
	    ful_map(FUL_CHILD_SLOT_VS, (unsigned)slot, va,
		    FUL_R_READ | FUL_R_WRITE) < 0)
		return 0;
	long pa = ful_dma_paddr((unsigned)slot);
	return pa > 0 ? (uint64_t)pa : 0;
}

/** Map the windows arg1 lists; their physical addresses. 0 or -FUL_E*. */
static long d_windows(void)
{
	for (unsigned b = 1; b <= FUL_DISK_MAX_WINDOWS; b++) {
		unsigned pages = (unsigned)(ful_arg1 >> (16 * (b - 1))) & 0xffff;
		if (!pages)
			continue;
		unsigned slot = FUL_DISK_WIN_SLOT(b);
		long pa = ful_dma_paddr(slot);
		if (pa <= 0 || pages > FUL_DISK_WINDOW_MAX_PAGES ||
		    ful_map(FUL_CHILD_SLOT_VS, slot,
			    D_WIN_VA + (b - 1) * 0x1000000UL,
			    FUL_R_READ | FUL_R_WRITE) < 0)
			return -FUL_ENOMEM;
		d.win[b - 1].pa = (uint64_t)pa;
		d.win[b - 1].pages = pages;
	}
	return 0;
}

/** Ring, headers, windows and the device. 0 or -FUL_E*. */
static long d_setup(void)
{
	d.v.ring_pa = d_dma(2, D_RING_VA);
	d.v.hdr_pa = d_dma(1, D_HDR_VA);
	if (!d.v.ring_pa || !d.v.hdr_pa || d_windows() < 0)
		return -FUL_ENOMEM;
	d.v.desc = (struct vq_desc *)D_RING_VA;
	d.v.avail = (struct vq_avail *)(D_RING_VA + QSIZE * sizeof(struct vq_desc));
	d.v.used = (struct vq_used *)(D_RING_VA + FUL_PAGE_SIZE);
	d.v.hdr = (struct vblk_hdr *)D_HDR_VA;
	d.v.status = (volatile uint8_t *)(D_HDR_VA + NCHAINS * sizeof(struct vblk_hdr));
	for (unsigned c = 0; c < NCHAINS; c++)
		d.chain_req[c] = -1;
	d.nfree = NCHAINS;
	for (unsigned r = 0; r < D_NREQ; r++) {
		long s = ful_slot_alloc();
		if (s < 0)
			return s;
		d.req[r].slot = (unsigned)s;
	}
	return vblk_init(&d.v);
}

/** Check a READ/WRITE/FLUSH request: 0 or -FUL_E*. */
static long d_check(unsigned op, const struct ful_msg *m)
{
	if (m->badge < 1 || m->badge > FUL_DISK_MAX_WINDOWS ||
	    !d.win[m->badge - 1].pages)
		return -FUL_EINVAL; /* no window for this badge */
	if (op == FUL_DISK_OP_FLUSH)
		return d.v.flush ? 0 : -FUL_EINVAL;
	unsigned long blk = m->mr[0], n = m->mr[1], page = m->mr[2];
	unsigned long pages = d.win[m->badge - 1].pages;
	if (n == 0 || n > FUL_DISK_MAX_BATCH || blk >= d.v.blocks ||
	    n > d.v.blocks - blk || page >= pages || n > pages - page)
		return -FUL_ERANGE;
	return 0;
}

/** Wait (ful_backoff) for a free request and @n free chains; returns
 *  the request, claimed, with d.lock held. */
static struct d_req *d_claim(unsigned n)
{
	for (unsigned waits = 0;;) {
		d_lock();
		if (d.nfree >= n)
			for (unsigned r = 0; r < D_NREQ; r++)
				if (!d.req[r].used) {
					d.req[r].used = true;
					return &d.req[r];
				}
		d_unlock();
		ful_backoff(&waits); /* the interrupt thread frees them */
	}
}

/** Start a checked READ/WRITE/FLUSH: save the reply (IPC) or note the
 *  ring request @ring_id (@ring_id < 0: IPC), queue the chains, notify.
 *  The interrupt thread answers. */
static void d_start(unsigned op, const struct ful_msg *m, long ring_id)
{
	unsigned n = op == FUL_DISK_OP_FLUSH ? 1 : (unsigned)m->mr[1];
	struct d_req *r = d_claim(n);
	r->left = n;
	r->err = 0;
	r->ring = ring_id >= 0;
	r->id = (unsigned)ring_id;
	if (!r->ring && ful_reply_save(r->slot) < 0) { /* the caller is gone */
		r->used = false;
		d_unlock();
		return;
	}
	uint32_t type = op == FUL_DISK_OP_READ	  ? VIRTIO_BLK_T_IN
			: op == FUL_DISK_OP_WRITE ? VIRTIO_BLK_T_OUT
						  : VIRTIO_BLK_T_FLUSH;
	for (unsigned c = 0, k = 0; k < n; c++) {
		if (d.chain_req[c] >= 0)
			continue;
		d.chain_req[c] = (int)(r - d.req);
		uint64_t pa = d.win[m->badge - 1].pa +
			      (m->mr[2] + k) * FUL_PAGE_SIZE;
		vblk_chain(&d.v, c, type, (m->mr[0] + k) * 8, pa);
		k++;
	}
	d.nfree -= n;
	if (NCHAINS - d.nfree > d.max_inflight)
		d.max_inflight = NCHAINS - d.nfree;
	vblk_kick(&d.v);
	d_unlock();
}

/** Answer a request that needs no device: INFO, STATS, WHERE. */
static void d_answer(unsigned op, struct ful_msg *m)
{
	struct ful_msg r = {.mr = {0}};
	d_lock();
	if (op == FUL_DISK_OP_INFO) {
		r.mr[1] = d.v.blocks;
		r.mr[2] = m->badge >= 1 && m->badge <= FUL_DISK_MAX_WINDOWS
				  ? d.win[m->badge - 1].pages
				  : 0;
		r.mr[3] = d.v.version == 2;
	} else if (op == FUL_DISK_OP_STATS) {
		r.mr[1] = d.done;
		r.mr[2] = d.max_inflight;
		r.mr[3] = d.irqs;
	} else if (op == FUL_DISK_OP_WHERE) {
		r.mr[1] = d.irq_tid;
		r.mr[2] = d.irq_cpu;
	} else {
		r.mr[0] = (unsigned long)-FUL_EINVAL;
	}
	d_unlock();
	*m = r;
	ful_reply(m);
}

/** The server thread: requests in, chains out. */
static void d_serve(void *arg)
{
	(void)arg;
	for (;;) {
		struct ful_msg m;
		if (ful_recv(FUL_DISK_SLOT_EP, &m, FUL_FOREVER) < 0)
			continue;
		unsigned op = (unsigned)FUL_MSG_LABEL(m.info);
		long err = op == FUL_DISK_OP_READ || op == FUL_DISK_OP_WRITE ||
					   op == FUL_DISK_OP_FLUSH
				   ? d_check(op, &m)
				   : 1;
		if (err == 0) {
			d_start(op, &m, -1);
		} else if (err < 0) {
			m = (struct ful_msg){.mr = {(unsigned long)err}};
			ful_reply(&m);
		} else {
			d_answer(op, &m);
		}
	}
}

/** Collect finished chains; answer finished requests. */
static void d_complete(void)
{
	unsigned done[D_NREQ], ndone = 0;
	bool ok;
	int c;
	d_lock();
	vblk_irq_ack(&d.v);
	while ((c = vblk_next_done(&d.v, &ok)) >= 0) {
		int ri = d.chain_req[c];
		if (ri < 0)
			continue; /* not ours: a broken device */
		d.chain_req[c] = -1;
		d.nfree++;
		d.done++;
		struct d_req *r = &d.req[ri];
		if (!ok)
			r->err = -FUL_DISK_EIO;
		if (--r->left == 0)
			done[ndone++] = (unsigned)ri;
	}
	d_unlock();
	for (unsigned i = 0; i < ndone; i++) {
		struct d_req *r = &d.req[done[i]];
		struct ful_msg m = {.mr = {(unsigned long)r->err}};
		if (!r->ring)
			ful_reply_to(r->slot, &m); /* a dead caller: nothing */
		d_lock();
		if (r->ring)
			ful_sring_reply(&d.ring, r->id, (const long[4]){r->err});
		r->used = false;
		d_unlock();
	}
}

/** One request of B's ring: started, or answered at once if bad. */
static void d_ring_one(const struct ful_sring_req *q)
{
	struct ful_msg m = {.badge = 2, .mr = {q->a[0], q->a[1], q->a[2]}};
	bool io = q->op == FUL_DISK_OP_READ || q->op == FUL_DISK_OP_WRITE ||
		  q->op == FUL_DISK_OP_FLUSH;
	long err = io ? d_check(q->op, &m) : -FUL_EINVAL;
	if (err == 0) {
		d_start(q->op, &m, q->id);
		return;
	}
	d_lock();
	ful_sring_reply(&d.ring, q->id, (const long[4]){err});
	d_unlock();
}

/** Take every request waiting on B's ring, ring 0 of the ring thread's
 *  set (d.ring.taken under d.lock): how many. */
static unsigned d_ring_pass(unsigned k)
{
	(void)k;
	struct ful_sring_req q;
	unsigned n = 0;
	for (;;) {
		d_lock();
		bool got = ful_sring_take(&d.ring, &q);
		d_unlock();
		if (!got)
			return n;
		d_ring_one(&q);
		n++;
	}
}

/* B's ring, one ring with an endpoint doorbell: the ring thread takes
 * B's requests and starts them; the interrupt thread answers them. */
static const struct ful_serve_ops d_ring_ops = {
	.serve = d_ring_pass, .base = FUL_DISK_RING_VA,
	.peer = FUL_DISK_SLOT_RING_PEER, .bell = FUL_DISK_SLOT_RING_BELL,
	.bell_ep = true,
};

/** The ring thread: B's requests in, chains out; polls while its core
 *  has nothing else to run, then sleeps on its doorbell. */
static void d_ring_main(void *arg)
{
	(void)arg;
	ful_serve_run(&d.ring_set, &d_ring_ops);
}

/** B's ring, if given: map it and start its thread (prio @prio, core
 *  @cpu). 0 or -FUL_E*; d.ring_tid 0 without a ring. */
static long d_ring_start(unsigned prio, unsigned cpu)
{
	if ((ful_cap_info(FUL_DISK_SLOT_RING) & 0xff) != FUL_CAP_FRAME)
		return 0;
	long err = ful_map(FUL_CHILD_SLOT_VS, FUL_DISK_SLOT_RING,
			   FUL_DISK_RING_VA, FUL_R_READ | FUL_R_WRITE);
	if (err < 0)
		return err;
	d.ring = (struct ful_sring){.ctl = ful_serve_ctl(&d_ring_ops, 0),
				    .peer = d_ring_ops.peer};
	d.ring_set.spins = (unsigned)(ful_arg0 >> 16);
	struct ful_thread_args a = {.fn = d_ring_main, .pool = FUL_DISK_SLOT_POOL,
				    .vs = FUL_CHILD_SLOT_VS, .prio = prio,
				    .cpu = cpu, .name = "disk-ring"};
	struct ful_thread t;
	err = ful_thread_spawn(&a, &t);
	d.ring_tid = err ? 0 : (unsigned)t.tid;
	return err;
}

/** The interrupt thread's loop (never returns). */
static _Noreturn void d_interrupts(void)
{
	for (;;) {
		unsigned long bits;
		if (ful_ntfn_wait(d.ntfn, &bits, FUL_FOREVER) < 0)
			continue;
		struct ful_sysinfo si;
		ful_sysinfo(&si);
		d_lock();
		d.irqs++;
		d.irq_cpu = si.cpu;
		d_unlock();
		d_complete();
		ful_irq_ack(FUL_DISK_SLOT_IRQ);
	}
}

/** Tell the rootserver which region holds the disk; it answers with
 *  the IRQ handler in FUL_DISK_SLOT_IRQ. */
static long d_found(int region)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_DISK_FOUND, 0),
			    .mr = {(unsigned long)(long)region}};
	long err = ful_call(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
	return err < 0 ? err : (long)m.mr[0];
}

static void d_ready(long err)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_DISK_READY, 0),
			    .mr = {(unsigned long)err, d.v.blocks, d.v.version,
				   d.serve_tid | (unsigned long)d.ring_tid << 32}};
	ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
}

/** Bind the SPI to a new notification (this thread's core) and start
 *  the server thread. 0 or -FUL_E*. */
static long d_start_threads(void)
{
	struct ful_sysinfo si;
	long slot = ful_slot_alloc();
	if (slot < 0 || ful_ntfn_create(FUL_DISK_SLOT_POOL, (unsigned)slot) < 0)
		return -FUL_ENOMEM;
	d.ntfn = (unsigned)slot;
	long err = ful_irq_bind(FUL_DISK_SLOT_IRQ, d.ntfn, D_NTFN_BIT);
	if (err < 0)
		return err;
	ful_sysinfo(&si);
	d.irq_tid = si.tid;
	d.irq_cpu = si.cpu;
	struct ful_thread_info ti;
	ful_thread_info(FUL_CHILD_SLOT_THREAD, &ti);
	struct ful_thread_args a = {.fn = d_serve, .pool = FUL_DISK_SLOT_POOL,
				    .vs = FUL_CHILD_SLOT_VS, .prio = ti.prio,
				    .cpu = si.cpu, .name = "disk-serve"};
	struct ful_thread t;
	long e = ful_thread_spawn(&a, &t);
	d.serve_tid = e ? 0 : (unsigned)t.tid;
	if (!e && (err = d_ring_start(ti.prio, si.cpu)) < 0)
		printf("disk: no ring thread (%ld): B talks over IPC\n", err);
	return e;
}

int main(void)
{
	ful_slot_init(FUL_DISK_SLOT_RING_PEER + 1); /* the fixed slots */
	int region = d_scan((unsigned)(ful_arg0 & 0xffff));
	long err = d_found(region);
	if (!err && region < 0)
		err = -FUL_ESTATE;
	if (!err)
		err = d_setup();
	if (!err)
		err = d_start_threads();
	if (err) {
		printf("disk: no block device served (%ld)\n", err);
		d_ready(err);
		return 1;
	}
	printf("disk: virtio-blk at region %d, virtio-mmio version %u, %lu "
	       "blocks of 4 KiB, flush %s\n", region, d.v.version,
	       (unsigned long)d.v.blocks, d.v.flush ? "yes" : "no");
	d_ready(0);
	d_interrupts();
}
