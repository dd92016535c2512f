/*
 * F's parts (user/servers/fs): the operations of <fulcrum/fs.h> on one
 * request (f_ops.c), served from the IPC endpoint (main.c) and from the
 * shared-memory rings of <fulcrum/fs.h> (f_ring.c) by two threads
 * that take f_lock around each operation.
 */
#ifndef FS_F_H
#define FS_F_H

#include <stdatomic.h>
#include <stddef.h>

#include <ful/ful.h>

#include "ext2_b.h"

/* One request, whichever way it came: the operation, its registers, and
 * its data (the IPC buffer or a ring's data area). */
struct f_req {
	unsigned op;
	unsigned long mr[4];  /* in: mr0..mr2; out: mr0..mr3 */
	unsigned char *buf;   /* the request's bytes, then the reply's */
	size_t len;           /* bytes in buf for F */
	size_t cap;           /* room in buf */
	size_t out;           /* bytes in buf for the client */
	unsigned long badge;  /* IPC: the sender's badge (0: the rootserver) */
};

extern struct ext2_fs f_fs;
extern const struct ext2_b f_b; /* ext2's blocks, through B (main.c) */

/** Run @q's operation on the file system; caller holds f_lock. */
void f_handle(struct f_req *q);

/* F's one lock (ful_flag_lock: both F threads may share one core). */
extern atomic_flag f_lock;
static inline void f_lock_take(void)
{
	ful_flag_lock(&f_lock);
}
static inline void f_lock_drop(void)
{
	ful_flag_unlock(&f_lock);
}

/** Rings: start the ring thread on @cpu at @prio, polling @spin passes
 *  before it sleeps (0 or -FUL_E*);
 *  attach/detach ring @k (IPC requests of the rootserver). */
long f_ring_start(unsigned cpu, unsigned prio, unsigned spin);
long f_ring_attach(unsigned long k);
long f_ring_detach(unsigned long k);
/** The ring thread's id (0 if it does not run). */
unsigned long f_ring_tid(void);

/* OMF (f_omf.c), all under f_lock but f_omf_init. */
/** The OMF operations of ring @k's request @q (mr0 the result). */
void f_omf_handle(unsigned k, struct f_req *q);
/** Let go of ring @k's mapping (its pages, pins). */
void f_omf_unmap(unsigned k);
/** Is inode @ino mapped by some ring (then it is not cut or unlinked)? */
bool f_omf_busy(uint32_t ino);
/** Is block @blk mapped writable by some ring? */
bool f_omf_holds_rw(uint32_t blk);
/** Is block @blk mapped into a client at all (read-only or not)? A
 *  write of it through F must reach B's line at once (no write-behind):
 *  the client reads that line itself. */
bool f_omf_holds(uint32_t blk);
/** F's zero page for read-only holes. 0 or -FUL_E*. */
long f_omf_init(void);

#endif
