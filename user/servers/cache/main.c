/*
 * B, the block cache server of paper 002 (<fulcrum/cache.h>): N lines
 * of 4 KiB in front of D, least recently used first out, write-back.
 *
 * Line i is page i of the window D gave B, so D moves blocks into and
 * out of the cache by DMA and B itself copies only between a line and a
 * client's window. The lines form one LRU list (most recent at the
 * head, lines never used or dropped at the tail) and a hash table by
 * block number. Two threads, one request at a time under b_lock: this
 * one serves the IPC endpoint, the ring thread F's ring
 * (<fulcrum/sring.h>). A miss calls D and waits, and other clients wait
 * meanwhile (docs/storage.md, "B, the block cache server"); the
 * request's blocks go one by one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>

#include <fulcrum/cache.h>
#include <fulcrum/disk.h>
#include <fulcrum/load.h>
#include <ful/chan.h>
#include <ful/ful.h>
#include <ful/serve.h>
#include <ful/sring.h>

#define B_LINES_VA 0x30000000UL
#define B_WIN_VA 0x38000000UL
#define B_NONE (-1)

struct line {
	unsigned long blk;
	bool valid, dirty;
	unsigned pins;  /* > 0: out of the LRU list, never evicted */
	int prev, next; /* LRU list (unpinned lines only) */
	int hnext;      /* hash chain */
};

static struct {
	unsigned n;           /* lines */
	struct line *l;
	int *hash;            /* heads, hmask + 1 of them */
	unsigned hmask;
	int mru, lru;         /* list ends */
	unsigned long disk_blocks;
	unsigned long hits, misses, writebacks;
	unsigned pinned; /* lines with pins */
} b;

static unsigned char *b_line(int i)
{
	return (unsigned char *)(B_LINES_VA + (unsigned long)i * FUL_PAGE_SIZE);
}

static unsigned char *b_win(unsigned long page)
{
	return (unsigned char *)(B_WIN_VA + page * FUL_PAGE_SIZE);
}

/** Copy one 4 KiB page, 16 bytes a step (picolibc's memcpy, built for
 *  size, copies a byte at a time; cache_read_4k, docs/bench-storage.md,
 *  counts the read with this). */
static void b_copy_page(void *dst, const void *src)
{
	unsigned __int128 *d = dst;
	const unsigned __int128 *s = src;
	for (unsigned i = 0; i < FUL_PAGE_SIZE / sizeof *d; i++)
		d[i] = s[i];
}

/* To D (<ful/chan.h>): its ring if the rootserver gave one (ring.ctl
 * set at the start), else its endpoint; under b_lock. */
static struct ful_chan dchan = {.ep = FUL_CACHE_SLOT_DISK,
				.timeout_us = FUL_FOREVER};

/** One request to D for line @i (READ/WRITE of one block, or FLUSH). */
static long b_disk(unsigned op, unsigned long blk, int i)
{
	struct ful_msg m = {.mr = {blk, 1, (unsigned long)i}};
	int e = ful_chan_call(&dchan, op, &m, 0);
	return e < 0 ? e : (long)m.mr[0];
}

static void b_unlink(int i)
{
	struct line *x = &b.l[i];
	if (x->prev != B_NONE)
		b.l[x->prev].next = x->next;
	else
		b.mru = x->next;
	if (x->next != B_NONE)
		b.l[x->next].prev = x->prev;
	else
		b.lru = x->prev;
}

/** Put unlisted line @i at the head (most recently used). */
static void b_link_head(int i)
{
	b.l[i].prev = B_NONE;
	b.l[i].next = b.mru;
	if (b.mru != B_NONE)
		b.l[b.mru].prev = i;
	b.mru = i;
	if (b.lru == B_NONE)
		b.lru = i;
}

/** Make line @i the most recently used (a pinned line is in no list). */
static void b_touch(int i)
{
	if (b.l[i].pins)
		return;
	b_unlink(i);
	b_link_head(i);
}

static int b_lookup(unsigned long blk)
{
	for (int i = b.hash[blk & b.hmask]; i != B_NONE; i = b.l[i].hnext)
		if (b.l[i].blk == blk)
			return i;
	return B_NONE;
}

static void b_hash_remove(int i)
{
	int *p = &b.hash[b.l[i].blk & b.hmask];
	while (*p != i)
		p = &b.l[*p].hnext;
	*p = b.l[i].hnext;
}

/** Free the least recently used line, writing it back if dirty. The
 *  line, or -FUL_E* (D failed: the line stays as it was). */
static long b_evict(void)
{
	int i = b.lru;
	if (i == B_NONE) /* cannot happen: at most half the lines pinned */
		return -FUL_ENOMEM;
	struct line *x = &b.l[i];
	if (x->valid && x->dirty) {
		long err = b_disk(FUL_DISK_OP_WRITE, x->blk, i);
		if (err)
			return err;
		b.writebacks++;
	}
	if (x->valid)
		b_hash_remove(i);
	x->valid = x->dirty = false;
	return i;
}

/** The line of @blk, made most recent; filled from D on a miss if
 *  @fill. The line or -FUL_E*. */
static long b_get(unsigned long blk, bool fill)
{
	int i = b_lookup(blk);
	if (i != B_NONE) {
		b.hits++;
		b_touch(i);
		return i;
	}
	b.misses++;
	long e = b_evict();
	if (e < 0)
		return e;
	i = (int)e;
	if (fill) {
		long err = b_disk(FUL_DISK_OP_READ, blk, i);
		if (err)
			return err; /* the line stays free, at the tail */
	}
	b.l[i] = (struct line){.blk = blk, .valid = true, .prev = b.l[i].prev,
			       .next = b.l[i].next,
			       .hnext = b.hash[blk & b.hmask]};
	b.hash[blk & b.hmask] = i;
	b_touch(i);
	return i;
}

/** PIN, UNPIN or DIRTY of block @blk (checked); PIN's line in *@line. */
static long b_pin_op(unsigned op, unsigned long blk, unsigned long *line)
{
	int i = b_lookup(blk);
	if (op == FUL_CACHE_OP_PIN) {
		if (i == B_NONE || !b.l[i].pins) {
			if (b.pinned >= b.n / 2)
				return -FUL_ENOMEM;
			long e = b_get(blk, true);
			if (e < 0)
				return e;
			i = (int)e;
			b_unlink(i); /* out of the list while pinned */
			b.pinned++;
		}
		b.l[i].pins++;
		*line = (unsigned long)i;
		return 0;
	}
	if (i == B_NONE || !b.l[i].pins)
		return -FUL_ESTATE;
	if (op == FUL_CACHE_OP_DIRTY) {
		b.l[i].dirty = true;
		return 0;
	}
	if (--b.l[i].pins == 0) {
		b.pinned--;
		b_link_head(i);
	}
	return 0;
}

/** Write every dirty line to D, then flush it. */
static long b_sync(void)
{
	for (unsigned i = 0; i < b.n; i++) {
		struct line *x = &b.l[i];
		if (!x->valid || !x->dirty)
			continue;
		long err = b_disk(FUL_DISK_OP_WRITE, x->blk, (int)i);
		if (err)
			return err;
		x->dirty = false;
		b.writebacks++;
	}
	return b_disk(FUL_DISK_OP_FLUSH, 0, 0);
}

/** READ or WRITE of a checked request. */
static long b_rw(bool write, unsigned long blk, unsigned long n,
		 unsigned long page)
{
	for (unsigned long k = 0; k < n; k++) {
		long i = b_get(blk + k, !write);
		if (i < 0)
			return i;
		if (write) {
			b_copy_page(b_line((int)i), b_win(page + k));
			b.l[i].dirty = true;
		} else {
			b_copy_page(b_win(page + k), b_line((int)i));
		}
	}
	return 0;
}

/** Handle request @m into its reply. */
static void b_handle(struct ful_msg *m)
{
	unsigned op = (unsigned)FUL_MSG_LABEL(m->info);
	unsigned long blk = m->mr[0], n = m->mr[1], page = m->mr[2];
	struct ful_msg r = {.mr = {0}};
	long err = 0;
	if (m->badge != 1) {
		err = -FUL_EINVAL;
	} else if (op == FUL_CACHE_OP_READ || op == FUL_CACHE_OP_WRITE) {
		if (n == 0 || n > FUL_CACHE_MAX_BATCH || blk >= b.disk_blocks ||
		    n > b.disk_blocks - blk || page >= FUL_CACHE_WINDOW_PAGES ||
		    n > FUL_CACHE_WINDOW_PAGES - page)
			err = -FUL_ERANGE;
		else
			err = b_rw(op == FUL_CACHE_OP_WRITE, blk, n, page);
	} else if (op >= FUL_CACHE_OP_PIN && op <= FUL_CACHE_OP_DIRTY) {
		err = blk >= b.disk_blocks ? -FUL_ERANGE
					   : b_pin_op(op, blk, &r.mr[1]);
	} else if (op == FUL_CACHE_OP_SYNC) {
		err = b_sync();
	} else if (op == FUL_CACHE_OP_INFO) {
		r.mr[1] = b.disk_blocks;
		r.mr[2] = FUL_CACHE_WINDOW_PAGES;
		r.mr[3] = b.n;
	} else if (op == FUL_CACHE_OP_STATS) {
		r.mr[1] = b.hits;
		r.mr[2] = b.misses;
		r.mr[3] = b.writebacks;
	} else {
		err = -FUL_EINVAL;
	}
	r.mr[0] = (unsigned long)err;
	*m = r;
}

/** Lines, hash, mappings, and D's view of the window. 0 or -FUL_E*. */
static long b_setup(unsigned n)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_DISK_OP_INFO, 0)};
	long err = ful_call(FUL_CACHE_SLOT_DISK, &m, FUL_FOREVER);
	if (err < 0 || (long)m.mr[0] < 0 || m.mr[2] != n || n == 0)
		return err < 0 ? err : -FUL_ESTATE;
	b.disk_blocks = m.mr[1];
	b.n = n;
	for (b.hmask = 1; b.hmask < n; b.hmask <<= 1)
		;
	b.hmask--;
	b.l = calloc(n, sizeof *b.l);
	b.hash = malloc((b.hmask + 1) * sizeof *b.hash);
	if (!b.l || !b.hash)
		return -FUL_ENOMEM;
	for (unsigned h = 0; h <= b.hmask; h++)
		b.hash[h] = B_NONE;
	for (unsigned i = 0; i < n; i++)
		b.l[i] = (struct line){.prev = (int)i - 1,
				       .next = i + 1 < n ? (int)i + 1 : B_NONE,
				       .hnext = B_NONE};
	b.mru = 0;
	b.lru = (int)n - 1;
	if ((err = ful_map(FUL_CHILD_SLOT_VS, FUL_CACHE_SLOT_LINES, B_LINES_VA,
			   FUL_R_READ | FUL_R_WRITE)) < 0)
		return err;
	return ful_map(FUL_CHILD_SLOT_VS, FUL_CACHE_SLOT_WIN, B_WIN_VA,
		       FUL_R_READ | FUL_R_WRITE);
}

/* One request at a time, whichever thread: a lock whose waiter gives the
 * core up (both threads may share one core, at different priorities). */
static atomic_flag b_lock = ATOMIC_FLAG_INIT;

static void b_handle_locked(struct ful_msg *m)
{
	ful_flag_lock(&b_lock);
	b_handle(m);
	ful_flag_unlock(&b_lock);
}

#define B_RING_PRIO 120 /* the rootserver starts B at this priority */

/* F's ring: its server side (ctl and peer set by b_ring_start, before
 * the ring thread runs; the thread's own after that) and its serve set
 * (<ful/serve.h>: the one ring live from the start; spins set before
 * the thread runs). */
static struct ful_sring ring;
static struct ful_serve ring_set = {.live = 1, .busy = -1};
static struct ful_thread ring_thread;

/** A request of F's ring: badge 1's, as over IPC. Takes b_lock. */
static void b_ring_op(unsigned op, const unsigned long a[4], long r[4])
{
	struct ful_msg m = {.info = FUL_MSG(op, 0), .badge = 1,
			    .mr = {a[0], a[1], a[2], a[3]}};
	b_handle_locked(&m);
	for (unsigned i = 0; i < 4; i++)
		r[i] = (long)m.mr[i];
}

/** Serve F's ring (ring 0 of the set): each request answered as it is
 *  done. Ring thread. */
static unsigned b_ring_serve(unsigned k)
{
	(void)k;
	return ful_sring_serve(&ring, b_ring_op);
}

static const struct ful_serve_ops b_ring_ops = {
	.serve = b_ring_serve, .base = FUL_CACHE_RING_VA,
	.peer = FUL_CACHE_SLOT_RING_PEER, .bell = FUL_CACHE_SLOT_RING_BELL,
	.bell_ep = true,
};

static void b_ring_main(void *arg)
{
	(void)arg;
	ful_serve_run(&ring_set, &b_ring_ops);
}

/** F's ring, if the rootserver gave one: map it, start its thread. The
 *  thread's id, 0 without a ring, or -FUL_E*. */
static long b_ring_start(unsigned spins)
{
	if ((ful_cap_info(FUL_CACHE_SLOT_RING) & 0xff) != FUL_CAP_FRAME)
		return 0;
	long err = ful_map(FUL_CHILD_SLOT_VS, FUL_CACHE_SLOT_RING,
			   FUL_CACHE_RING_VA, FUL_R_READ | FUL_R_WRITE);
	struct ful_sysinfo si;
	if (err < 0 || (err = ful_sysinfo(&si)) < 0)
		return err;
	ring = (struct ful_sring){.ctl = ful_serve_ctl(&b_ring_ops, 0),
				  .peer = b_ring_ops.peer};
	ring_set.spins = spins;
	struct ful_thread_args a = {
		.fn = b_ring_main, .pool = FUL_CACHE_SLOT_POOL,
		.vs = FUL_CHILD_SLOT_VS, .prio = B_RING_PRIO, .cpu = si.cpu,
		.name = "cache-ring",
	};
	err = ful_thread_spawn(&a, &ring_thread);
	if (!err) /* F looks its core up (write-behind only pays elsewhere) */
		atomic_store(&ring.ctl->server_tid, (unsigned)ring_thread.tid);
	return err < 0 ? err : (long)ring_thread.tid;
}

int main(void)
{
	ful_slot_init(FUL_CACHE_SLOT_DRING_PEER + 1); /* the fixed slots */
	if ((ful_cap_info(FUL_CACHE_SLOT_DRING_PEER) & 0xff) == FUL_CAP_ENDPOINT)
		dchan.ring = (struct ful_sring){
			.ctl = (struct ful_sring_ctl *)FUL_CACHE_DRING_VA,
			.mine = FUL_CACHE_SLOT_DRING_MINE,
			.peer = FUL_CACHE_SLOT_DRING_PEER,
			.spins = (unsigned)ful_arg1};
	long err = b_setup((unsigned)ful_arg0);
	long rt = err ? 0 : b_ring_start((unsigned)ful_arg1);
	if (rt < 0)
		printf("cache: no ring thread (%ld): F talks over IPC\n", rt);
	struct ful_msg m = {.info = FUL_MSG(FUL_CACHE_READY, 0),
			    .mr = {(unsigned long)err, rt > 0 ? (unsigned long)rt : 0}};
	ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
	if (err) {
		printf("cache: not serving (%ld)\n", err);
		return 1;
	}
	printf("cache: %u lines of 4 KiB over %lu disk blocks; to D over %s\n",
	       b.n, b.disk_blocks, ful_chan_ring(&dchan) ? "a ring" : "IPC");
	if (ful_recv(FUL_CACHE_SLOT_EP, &m, FUL_FOREVER) < 0)
		return 1;
	for (;;) {
		b_handle_locked(&m);
		if (ful_reply_recv(FUL_CACHE_SLOT_EP, &m, FUL_FOREVER) < 0 &&
		    ful_recv(FUL_CACHE_SLOT_EP, &m, FUL_FOREVER) < 0)
			return 1;
	}
}
