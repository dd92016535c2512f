/*
 * ext2's block device over B, the block cache server (<fulcrum/cache.h>):
 * one block per request, through page 0 of a client window of B. Used
 * by F (user/servers/fs) and by the tests that mount a disk themselves
 * (tests/user/tests/t_fs.c). Guest only: it makes system calls.
 */
#ifndef FS_EXT2_B_H
#define FS_EXT2_B_H

#include "ext2.h"

/* A write-through copy of recently used blocks on the client's side
 * (F's): a hit costs no request to B, and every write still goes to B
 * at once, so B stays the authority (F is B's only client, so nothing
 * else changes a block under it). LRU. 256 blocks (1 MiB): with 32,
 * five Bonnie processes' files (paper 002's bound, 5 x 128 KiB) missed
 * on nearly every read, and each miss sent F to B on another core;
 * Linux's page cache holds the same working set whole. */
#define EXT2_BCACHE_BLOCKS 256
#define EXT2_BCACHE_HASH 256 /* buckets of the block -> slot index */
struct ext2_bcache {
	uint32_t blk[EXT2_BCACHE_BLOCKS]; /* 0: empty (block 0 is never read) */
	/* Invariant: each slot holding a block is in exactly one chain, the
	 * one of its block's bucket; slot + 1 in these, 0 ending a chain
	 * (so that a zeroed cache is empty) */
	uint16_t head[EXT2_BCACHE_HASH];
	uint16_t next[EXT2_BCACHE_BLOCKS];
	uint32_t used[EXT2_BCACHE_BLOCKS]; /* last use, for LRU */
	uint32_t clock;
	unsigned long hits, misses;
	/* blocks never to copy (NULL: none): a client writes them in B's
	 * line itself (F's OMF mappings), so a copy here would go stale */
	bool (*skip)(uint32_t blk);
	bool off; /* keep no copies (boot argument fs_copy=0 of F) */
	uint8_t data[EXT2_BCACHE_BLOCKS][EXT2_BLOCK];
};

/* Write-behind over B's ring: a write goes to B at once, as before, but
 * F does not wait for B's answer. Each write in flight has its own page
 * of B's window (pages 1..EXT2_B_WB; page 0 stays the one of calls that
 * wait), and B takes the ring's requests in order, so a later read of
 * the block from B sees it. F collects the answers when it needs the
 * page again, before any call that waits, and at SYNC; a write B
 * refused drops F's copy of the block and fails the next SYNC with
 * -EIO (as Linux reports a failed write-back at fsync). B itself keeps
 * written blocks dirty in memory until a SYNC or an eviction, so a
 * write B accepted was no more on the disk than one still in flight.
 * B is woken for every EXT2_B_WB / 2 writes, or when F is about to
 * sleep (ext2_b_kick), not for each. With B on F's own core a write
 * still waits: the doorbell's CALL then switches straight to B and B's
 * answer straight back, fewer instructions than a wake-up later. */
#define EXT2_B_WB 8
struct ext2_bwb {
	unsigned posted, done;     /* writes posted, answers collected */
	uint32_t blk[EXT2_B_WB];   /* the block of each write in flight */
	int err;                   /* 0, or -EIO: a write failed since the
				    * last SYNC */
	bool off;                  /* each write waits (boot argument fs_wb=0) */
	/* blocks whose writes must reach B at once (NULL: none): a client
	 * reads B's line of them itself (F's OMF mappings) */
	bool (*wait)(uint32_t blk);
	long self_tid;             /* a thread of ours (0: unknown): while it
				    * shares its core with B's ring thread
				    * (the load area says), writes wait */
};

struct ful_chan;

struct ext2_b {
	/* to B (<ful/chan.h>): its ring, or its endpoint (WRITE, a client
	 * badge) and each IPC request's timeout */
	struct ful_chan *ch;
	unsigned char *win;      /* B's client window, mapped here */
	struct ext2_bcache *cache; /* NULL: every block from B */
	struct ext2_bwb *wb;     /* NULL: each write waits for B's answer
				  * (always so without a ring) */
};

/** Request @op (FUL_CACHE_OP_*) for block @blk through page 0 of the
 *  window: 0, or -EIO if the call or B failed, or (SYNC) if a write
 *  behind failed since the last SYNC. */
int ext2_b_call(const struct ext2_b *b, unsigned op, uint32_t blk);
/** Request @op for block @blk, B's reply registers in @r: B's mr0 (0 or
 *  -FUL_E*), or -FUL_E* of the call itself. Collects the answers
 *  of the writes in flight first. */
long ext2_b_req(const struct ext2_b *b, unsigned op, uint32_t blk,
		unsigned long r[4]);
/** struct ext2_dev callbacks, ctx a struct ext2_b. */
int ext2_b_read(void *ctx, uint32_t blk, void *buf);
int ext2_b_write(void *ctx, uint32_t blk, const void *buf);
/** The ext2_dev get callback: our copy of @blk, or B's window page. */
const void *ext2_b_get(void *ctx, uint32_t blk, int *err);
/** Wake B for the writes posted behind without waking it (a client
 *  about to sleep or to wait for something else calls it). */
void ext2_b_kick(const struct ext2_b *b);
/** Forget the copy of @blk, if b keeps one. */
void ext2_b_forget(const struct ext2_b *b, uint32_t blk);
/** No real-time clock: a fixed date (2025-11-24) plus the uptime. */
uint32_t ext2_b_now(void *ctx);

#endif
