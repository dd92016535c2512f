/* ext2's block device over B (ext2_b.h). */
#include <errno.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <ful/ful.h>
#include <ful/sring.h>

#include "ext2_b.h"

long ext2_b_req(const struct ext2_b *b, unsigned op, uint32_t blk,
		unsigned long r[4])
{
	if (b->ring && b->ring->ctl) {
		const unsigned long a[4] = {blk, 1, 0, 0};
		long rr[4];
		int e = ful_sring_call(b->ring, op, a, rr);
		if (e < 0) /* B is gone, or broke the ring */
			return e;
		for (unsigned i = 0; i < 4; i++)
			r[i] = (unsigned long)rr[i];
		return rr[0];
	}
	struct ful_msg m = {.info = FUL_MSG(op, 0), .mr = {blk, 1, 0}};
	long err = ful_call(b->slot, &m, b->timeout_us);
	for (unsigned i = 0; i < 4; i++)
		r[i] = m.mr[i];
	return err < 0 ? err : (long)m.mr[0];
}

int ext2_b_call(const struct ext2_b *b, unsigned op, uint32_t blk)
{
	unsigned long r[4];
	return ext2_b_req(b, op, blk, r) ? -EIO : 0;
}

/** The cache slot of @blk, or -1. */
static int bc_find(const struct ext2_bcache *c, uint32_t blk)
{
	for (int i = 0; i < EXT2_BCACHE_BLOCKS; i++)
		if (c->blk[i] == blk)
			return i;
	return -1;
}

/** Keep a copy of @blk (@data) in the cache, evicting the LRU slot. */
static void bc_put(struct ext2_bcache *c, uint32_t blk, const void *data)
{
	int i = bc_find(c, blk);
	if (c->skip && c->skip(blk)) {
		if (i >= 0)
			c->blk[i] = 0;
		return;
	}
	if (i < 0) {
		i = 0;
		for (int j = 1; j < EXT2_BCACHE_BLOCKS; j++)
			if (c->used[j] < c->used[i])
				i = j;
		c->blk[i] = blk;
	}
	c->used[i] = ++c->clock;
	memcpy(c->data[i], data, EXT2_BLOCK);
}

int ext2_b_read(void *ctx, uint32_t blk, void *buf)
{
	const struct ext2_b *b = ctx;
	struct ext2_bcache *c = b->cache && !b->cache->off ? b->cache : NULL;
	int i = c && blk ? bc_find(c, blk) : -1;
	if (i >= 0) {
		c->used[i] = ++c->clock;
		c->hits++;
		memcpy(buf, c->data[i], EXT2_BLOCK);
		return 0;
	}
	int err = ext2_b_call(b, FUL_CACHE_OP_READ, blk);
	if (!err) {
		memcpy(buf, b->win, EXT2_BLOCK);
		if (c && blk) {
			c->misses++;
			bc_put(c, blk, b->win);
		}
	}
	return err;
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

int ext2_b_write(void *ctx, uint32_t blk, const void *buf)
{
	const struct ext2_b *b = ctx;
	memcpy(b->win, buf, EXT2_BLOCK);
	int err = ext2_b_call(b, FUL_CACHE_OP_WRITE, blk);
	if (b->cache && !b->cache->off && blk) {
		int i = bc_find(b->cache, blk);
		if (!err)
			bc_put(b->cache, blk, buf);
		else if (i >= 0) /* B did not take it: forget our copy */
			b->cache->blk[i] = 0;
	}
	return err;
}

void ext2_b_forget(const struct ext2_b *b, uint32_t blk)
{
	int i = b->cache && blk ? bc_find(b->cache, blk) : -1;
	if (i >= 0)
		b->cache->blk[i] = 0;
}

uint32_t ext2_b_now(void *ctx)
{
	(void)ctx;
	return 1764000000u + (uint32_t)(ful_counter() / ful_counter_freq());
}
