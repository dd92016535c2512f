/*
 * ext2's block device over B, the block cache server (<fulcrum/cache.h>):
 * one block per request, through page 0 of a client window of B. Used
 * by F (user/servers/fs) and by the tests that mount a disk themselves
 * (user/tests/t_fs.c). Guest only: it makes system calls.
 */
#ifndef FS_EXT2_B_H
#define FS_EXT2_B_H

#include "ext2.h"

struct ext2_b {
	unsigned slot;           /* B's endpoint (WRITE, a client badge) */
	unsigned char *win;      /* B's client window, mapped here */
	unsigned long timeout_us; /* of each request */
};

/** Request @op (FUL_CACHE_OP_*) for block @blk through page 0 of the
 *  window: 0, or -EIO if the call or B failed. */
int ext2_b_call(const struct ext2_b *b, unsigned op, uint32_t blk);
/** struct ext2_dev callbacks, ctx a struct ext2_b. */
int ext2_b_read(void *ctx, uint32_t blk, void *buf);
int ext2_b_write(void *ctx, uint32_t blk, const void *buf);
/** No real-time clock: a fixed date (2025-11-24) plus the uptime. */
uint32_t ext2_b_now(void *ctx);

#endif
