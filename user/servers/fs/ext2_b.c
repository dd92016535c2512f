/* ext2's block device over B (ext2_b.h). */
#include <errno.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <ful/ful.h>

#include "ext2_b.h"

int ext2_b_call(const struct ext2_b *b, unsigned op, uint32_t blk)
{
	struct ful_msg m = {.info = FUL_MSG(op, 0), .mr = {blk, 1, 0}};
	long err = ful_call(b->slot, &m, b->timeout_us);
	return err < 0 || m.mr[0] ? -EIO : 0;
}

int ext2_b_read(void *ctx, uint32_t blk, void *buf)
{
	const struct ext2_b *b = ctx;
	int err = ext2_b_call(b, FUL_CACHE_OP_READ, blk);
	if (!err)
		memcpy(buf, b->win, EXT2_BLOCK);
	return err;
}

int ext2_b_write(void *ctx, uint32_t blk, const void *buf)
{
	const struct ext2_b *b = ctx;
	memcpy(b->win, buf, EXT2_BLOCK);
	return ext2_b_call(b, FUL_CACHE_OP_WRITE, blk);
}

uint32_t ext2_b_now(void *ctx)
{
	(void)ctx;
	return 1764000000u + (uint32_t)(ful_counter() / ful_counter_freq());
}
