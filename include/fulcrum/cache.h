/*
 * B, the block cache server (user/servers/cache), and its clients: the
 * IPC protocol (docs/storage.md "B, the block cache server").
 *
 * B keeps N 4 KiB blocks of the disk (boot argument cache=N) in the
 * window D gave it (badge 2 of <fulcrum/disk.h>): D reads and writes
 * cache lines by DMA, B copies between its lines and a client's window
 * (a frame of FUL_CACHE_WINDOW_PAGES pages both have mapped). Least
 * recently used lines go first; writes stay in the cache (dirty) until
 * an eviction or a SYNC writes them to D.
 *
 * A request is a CALL with label FUL_CACHE_OP_*, mr0 first block, mr1
 * number of blocks (1..FUL_CACHE_MAX_BATCH), mr2 first page of the
 * window; the reply's mr0 is 0 or -FUL_E* (ERANGE: count, block or page
 * out of range; EINVAL: unknown op or badge; or D's error, which may
 * leave a request half done). INFO: mr1 disk blocks, mr2 window pages,
 * mr3 cache lines. STATS: mr1 hits, mr2 misses (lookups of blocks not
 * cached, by READ or WRITE), mr3 blocks written back to D. SYNC writes
 * every dirty line, then flushes D.
 *
 * Pins, for the On-Memory File (paper 002 II.D): PIN reads the block in
 * if needed and keeps its line out of the LRU list until as many UNPINs
 * came; mr1 is the line, page mr1 of B's lines frame, which F (holding
 * that frame too) maps into a client through a page window. The client
 * writes the line in place; DIRTY (pinned blocks only, else ESTATE)
 * says so, and the line goes to D at the next SYNC or after its last
 * UNPIN, at its eviction. At most half the lines are pinned at once
 * (ENOMEM past that).
 *
 * F's ring (<fulcrum/sring.h>): the same requests as badge 1's, from F
 * through a shared page instead of IPC, served by B's second thread
 * under the same lock as its IPC thread. The rootserver sets it up at
 * B's start: the page mapped at FUL_CACHE_RING_VA, B's doorbell endpoint (READ)
 * in FUL_CACHE_SLOT_RING_BELL, F's notification (WRITE) in
 * FUL_CACHE_SLOT_RING_PEER, a pool for the thread; arg1 the passes the
 * ring thread polls before it sleeps (only while its core has nothing
 * else to run: the load area at FUL_LOAD_VADDR says so; boot argument
 * srv_spin=N, 0 by default).
 *
 * Start-up: B gets D's endpoint (WRITE, badge 2) in slot 4, its cache
 * (D's window 2, a DMA frame of arg0 pages) in slot 5, its own endpoint
 * (READ) in slot 6, the client window (badge 1) in slot 7, F's ring in
 * slots 8..11, its ring to D in 12..13, and reports FUL_CACHE_READY (mr0 0 or -FUL_E*, mr1 the
 * ring thread's id or 0) on FUL_CHILD_SLOT_REPORT.
 */
#ifndef FULCRUM_CACHE_H
#define FULCRUM_CACHE_H

#define FUL_CACHE_WINDOW_PAGES 32
#define FUL_CACHE_MAX_BATCH 16

enum ful_cache_op {
	FUL_CACHE_OP_INFO = 1,
	FUL_CACHE_OP_READ,
	FUL_CACHE_OP_WRITE,
	FUL_CACHE_OP_SYNC,
	FUL_CACHE_OP_STATS,
	FUL_CACHE_OP_PIN,   /* mr0 block -> mr1 its line, kept (never evicted) */
	FUL_CACHE_OP_UNPIN, /* mr0 block: one pin less */
	FUL_CACHE_OP_DIRTY, /* mr0 block (pinned): written in place, write it back */
};

#define FUL_CACHE_READY 0xcac4
#define FUL_CACHE_SLOT_DISK 4
#define FUL_CACHE_SLOT_LINES 5
#define FUL_CACHE_SLOT_EP 6
#define FUL_CACHE_SLOT_WIN 7
#define FUL_CACHE_SLOT_RING 8      /* F's ring page, READ|WRITE */
#define FUL_CACHE_SLOT_RING_BELL 9 /* B's doorbell, an endpoint, READ */
#define FUL_CACHE_SLOT_RING_PEER 10 /* F's notification, WRITE */
#define FUL_CACHE_SLOT_POOL 11     /* for the ring thread */
#define FUL_CACHE_RING_VA 0x3c000000UL
/* B's ring to D (<fulcrum/disk.h>), if D serves one: the page mapped by
 * the rootserver at FUL_CACHE_DRING_VA, B's notification (READ), D's
 * doorbell (WRITE); arg1 the passes B polls for D's answer. */
#define FUL_CACHE_SLOT_DRING_MINE 12
#define FUL_CACHE_SLOT_DRING_PEER 13
#define FUL_CACHE_DRING_VA 0x3c100000UL

/* Slots of a system program for its cache client capabilities. */
#define FUL_SYSPROG_SLOT_CACHE 252     /* B's endpoint, WRITE, badge 1 */
#define FUL_SYSPROG_SLOT_CACHE_WIN 253 /* the window frame, READ|WRITE */

#endif
