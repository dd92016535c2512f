/* ext2's block device over B (ext2_b.h). */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <ful/ful.h>
#include <ful/chan.h>
#include <ful/load.h>

#include "ext2_b.h"

/** Collect B's answers until at most @left writes are in flight: a
 *  refused write drops our copy of its block and is remembered. */
static void wb_drain(const struct ext2_b *b, unsigned left)
{
	struct ext2_bwb *w = b->wb;
	while (w->posted - w->done > left) {
		struct ful_msg r;
		unsigned id;
		int e = ful_sring_collect(&b->ch->ring, &r, &id);
		uint32_t blk = w->blk[w->done % EXT2_B_WB];
		if (e < 0) { /* B is gone: nothing more will come */
			w->done = w->posted;
			w->err = -EIO;
			return;
		}
		w->done++;
		if (r.mr[0]) {
			w->err = -EIO;
			ext2_b_forget(b, blk);
		}
	}
}

/** wb_drain if more than @left writes are in flight (none without a
 *  ring: posts go only there): a look at two counters. */
static inline void wb_collect(const struct ext2_b *b, unsigned left)
{
	const struct ext2_bwb *w = b->wb;
	if (w && w->posted - w->done > left)
		wb_drain(b, left);
}

long ext2_b_req(const struct ext2_b *b, unsigned op, uint32_t blk,
		unsigned long r[4])
{
	struct ful_msg m = {.mr = {blk, 1, 0}};
	wb_collect(b, 0); /* B takes its ring's requests in order */
	int e = ful_chan_call(b->ch, op, &m, 0);
	if (e < 0) /* B is gone, broke the ring, or the call failed */
		return e;
	for (unsigned i = 0; i < 4; i++)
		r[i] = m.mr[i];
	return (long)m.mr[0];
}

int ext2_b_call(const struct ext2_b *b, unsigned op, uint32_t blk)
{
	unsigned long r[4];
	int err = ext2_b_req(b, op, blk, r) ? -EIO : 0;
	if (op == FUL_CACHE_OP_SYNC && b->wb && b->wb->err) {
		err = b->wb->err; /* reported once, as at fsync */
		b->wb->err = 0;
	}
	return err;
}

/** The bucket of @blk (Fibonacci hashing: its top 8 bits). */
static inline unsigned bc_hash(uint32_t blk)
{
	_Static_assert(EXT2_BCACHE_HASH == 256, "8 bits of hash");
	_Static_assert(EXT2_BCACHE_BLOCKS < 65535, "slot + 1 in 16 bits");
	return (blk * 2654435761u) >> 24;
}

/** The cache slot of @blk, or -1: a walk of its bucket's chain. */
static int bc_find(const struct ext2_bcache *c, uint32_t blk)
{
	for (unsigned i = c->head[bc_hash(blk)]; i; i = c->next[i - 1])
		if (c->blk[i - 1] == blk)
			return (int)i - 1;
	return -1;
}

/** Empty slot @i (if it holds a block): out of its chain. */
static void bc_unlink(struct ext2_bcache *c, int i)
{
	if (!c->blk[i])
		return;
	uint16_t *p = &c->head[bc_hash(c->blk[i])];
	while (*p && *p != i + 1)
		p = &c->next[*p - 1];
	if (!*p) /* the invariant (ext2_b.h) is broken: fault, be reported */
		__builtin_trap();
	*p = c->next[i];
	c->next[i] = 0;
	c->blk[i] = 0;
}

/** Slot @i, empty, now holds @blk: into its bucket's chain. */
static void bc_link(struct ext2_bcache *c, int i, uint32_t blk)
{
	unsigned h = bc_hash(blk);
	c->blk[i] = blk;
	c->next[i] = c->head[h];
	c->head[h] = (uint16_t)(i + 1);
}

/** Keep a copy of @blk (@data) in the cache, evicting the LRU slot. */
static void bc_put(struct ext2_bcache *c, uint32_t blk, const void *data)
{
	int i = bc_find(c, blk);
	if (c->skip && c->skip(blk)) {
		if (i >= 0)
			bc_unlink(c, i);
		return;
	}
	if (i < 0) { /* the least recently used slot; an empty one first */
		i = 0;
		for (int j = 1; j < EXT2_BCACHE_BLOCKS && c->used[i]; j++)
			if (c->used[j] < c->used[i])
				i = j;
		bc_unlink(c, i); /* the LRU slot's block, if any */
		bc_link(c, i, blk);
	}
	c->used[i] = ++c->clock;
	memcpy(c->data[i], data, EXT2_BLOCK);
}

const void *ext2_b_get(void *ctx, uint32_t blk, int *err)
{
	const struct ext2_b *b = ctx;
	struct ext2_bcache *c = b->cache && !b->cache->off ? b->cache : NULL;
	int i = c && blk ? bc_find(c, blk) : -1;
	if (i >= 0) { /* our copy: valid until a later call evicts it */
		c->used[i] = ++c->clock;
		c->hits++;
		*err = 0;
		return c->data[i];
	}
	if ((*err = ext2_b_call(b, FUL_CACHE_OP_READ, blk)))
		return NULL;
	if (c && blk) {
		c->misses++;
		bc_put(c, blk, b->win);
	}
	return b->win; /* B's page: valid until the next request */
}

int ext2_b_read(void *ctx, uint32_t blk, void *buf)
{
	int err;
	const void *p = ext2_b_get(ctx, blk, &err);
	if (p)
		memcpy(buf, p, EXT2_BLOCK);
	return err;
}

/** Post the write of @blk (@buf) to B without waiting for its answer;
 *  0, or -EIO if B is gone. */
static int wb_post(const struct ext2_b *b, uint32_t blk, const void *buf)
{
	struct ext2_bwb *w = b->wb;
	wb_collect(b, EXT2_B_WB - 1); /* the oldest page's turn, if all in use */
	unsigned page = 1 + w->posted % EXT2_B_WB;
	memcpy(b->win + page * FUL_PAGE_SIZE, buf, EXT2_BLOCK);
	const struct ful_msg m = {.mr = {blk, 1, page, 0}};
	/* B is woken for half a window of writes, not for each: a vCPU's
	 * wake-up is the dearest part of a cross-core request */
	bool bell = w->posted - w->done + 1 >= EXT2_B_WB / 2;
	if (ful_sring_post(&b->ch->ring, FUL_CACHE_OP_WRITE, &m, bell) < 0)
		return -EIO;
	w->blk[w->posted % EXT2_B_WB] = blk;
	w->posted++;
	return 0;
}

/** Write @blk behind to B? Only over a ring, not for a block a client
 *  reads in B's line (OMF), and only while B's ring thread runs on
 *  another core than ours, as far as the load area says (a stale record
 *  decides one write's path, nothing else). */
static bool wb_use(const struct ext2_b *b, uint32_t blk)
{
	if (!b->wb || b->wb->off || !ful_chan_ring(b->ch) ||
	    (b->wb->wait && b->wb->wait(blk)))
		return false;
	unsigned srv = atomic_load_explicit(&b->ch->ring.ctl->server_tid,
					    memory_order_relaxed);
	if (!srv || b->wb->self_tid <= 0)
		return true;
	const struct ful_load_page *pg = ful_load_area();
	unsigned bc = pg->thread[FUL_TID_SLOT(srv)].cpu;
	unsigned fc = pg->thread[FUL_TID_SLOT(b->wb->self_tid)].cpu;
	return bc != fc || bc >= FUL_LOAD_CPUS;
}

int ext2_b_write(void *ctx, uint32_t blk, const void *buf)
{
	const struct ext2_b *b = ctx;
	int err;
	if (wb_use(b, blk)) {
		err = wb_post(b, blk, buf);
	} else {
		memcpy(b->win, buf, EXT2_BLOCK);
		err = ext2_b_call(b, FUL_CACHE_OP_WRITE, blk);
	}
	if (b->cache && !b->cache->off && blk) {
		int i = bc_find(b->cache, blk);
		if (!err)
			bc_put(b->cache, blk, buf);
		else if (i >= 0) /* B did not take it: forget our copy */
			bc_unlink(b->cache, i);
	}
	return err;
}

void ext2_b_kick(const struct ext2_b *b)
{
	if (b->wb && ful_chan_ring(b->ch))
		ful_sring_bell(&b->ch->ring);
}

void ext2_b_forget(const struct ext2_b *b, uint32_t blk)
{
	int i = b->cache && blk ? bc_find(b->cache, blk) : -1;
	if (i >= 0)
		bc_unlink(b->cache, i);
}

uint32_t ext2_b_now(void *ctx)
{
	(void)ctx;
	return 1764000000u + (uint32_t)(ful_counter() / ful_counter_freq());
}
