/*
 * F, the file server of paper 002 (<fulcrum/fs.h>): the ext2 file
 * system of the disk (ext2.c, ext2_dir.c), its blocks read and written
 * through B, one block per request in page 0 of B's client window.
 * Two threads: this one serves the IPC endpoint (requests with their
 * data in the IPC buffer, and the rootserver's ring set-up), the ring
 * thread (f_ring.c) the shared-memory rings of <fulcrum/fs.h>. Both
 * run the same operations (f_ops.c), one at a time under f_lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/fs.h>

#include <ful/chan.h>

#include "f.h"

#define F_WIN_VA 0x38000000UL
#define F_RING_PRIO 120 /* the rootserver starts F at this priority */

static struct ext2_bcache f_bcache = {.skip = f_omf_holds_rw};
/* to B: its ring if it serves F one (ring.ctl set at the start), else
 * its endpoint; under f_lock */
static struct ful_chan f_bchan = {.ep = FUL_FS_SLOT_CACHE,
				  .timeout_us = FUL_FOREVER};
static struct ext2_bwb f_bwb = {.wait = f_omf_holds};
const struct ext2_b f_b = {&f_bchan, (unsigned char *)F_WIN_VA, &f_bcache,
			   &f_bwb};

/** One IPC request in @m (its data in the IPC buffer); the reply goes
 *  back in @m. Ring set-up is the rootserver's only (badge 0). */
static void f_ipc(struct ful_msg *m)
{
	struct f_req q = {
		.op = (unsigned)FUL_MSG_LABEL(m->info),
		.mr = {m->mr[0], m->mr[1], m->mr[2], m->mr[3]},
		.buf = ful_ipcbuf(), .len = FUL_MSG_LEN(m->info),
		.cap = FUL_IPCBUF_SIZE, .badge = m->badge,
	};
	if (q.op == FUL_FS_OP_RING_ATTACH || q.op == FUL_FS_OP_RING_DETACH) {
		long r = q.badge ? -EPERM
			 : q.op == FUL_FS_OP_RING_ATTACH ? f_ring_attach(q.mr[0])
							 : f_ring_detach(q.mr[0]);
		q.mr[0] = (unsigned long)r;
	} else {
		f_lock_take();
		f_handle(&q);
		ext2_b_kick(&f_b); /* this thread sleeps next */
		f_lock_drop();
	}
	*m = (struct ful_msg){.info = FUL_MSG(q.op, q.out),
			      .mr = {q.mr[0], q.mr[1], q.mr[2], q.mr[3]}};
}

/** Mount the disk: its group table, as large as its superblock says,
 *  from the heap. 0 or the mount's error. */
static long f_mount(const struct ext2_dev *dev)
{
	long n = ext2_groups(&f_fs, dev); /* at least 1, or the error */
	if (n < 0)
		return n;
	struct ext2_group *groups = malloc(ext2_group_bytes(&f_fs));
	if (!groups)
		return snprintf(f_fs.why, sizeof f_fs.why,
				"no memory for %ld groups", n),
		       -ENOMEM;
	return ext2_mount(&f_fs, dev, groups, (uint32_t)n);
}

int main(void)
{
	/* no flush callback: B keeps written blocks as dirty lines and
	 * writes them back in its own order (evictions) until F's SYNC,
	 * which syncs B and B D: the guest's one durability point */
	const struct ext2_dev dev = {ext2_b_read, ext2_b_write, ext2_b_now,
				     (void *)&f_b, ext2_b_get, NULL};
	/* slots up to the rings' windows are the rootserver's */
	ful_slot_init(FUL_FSR_F_SLOT_WIN + FUL_FSR_MAX);
	long err = ful_map(FUL_CHILD_SLOT_VS, FUL_FS_SLOT_CACHE_WIN, F_WIN_VA,
			   FUL_R_READ | FUL_R_WRITE);
	f_bcache.off = (ful_arg1 & FUL_FS_ARG1_NO_COPY) != 0;
	f_bwb.off = (ful_arg1 & FUL_FS_ARG1_NO_WB) != 0;
	/* the ring to B: the rootserver mapped its page if it gave one */
	if ((ful_cap_info(FUL_FS_SLOT_BRING_PEER) & 0xff) == FUL_CAP_ENDPOINT)
		f_bchan.ring = (struct ful_sring){
			.ctl = (struct ful_sring_ctl *)FUL_FS_BRING_VA,
			.mine = FUL_FS_SLOT_BRING_MINE,
			.peer = FUL_FS_SLOT_BRING_PEER,
			/* srv_spin, or else as many polls as the ring
			 * thread makes for its clients (fs_spin): F then
			 * waits for B awake too, not through its core's
			 * wake-up (ful_sring_wait_slow yields every 64
			 * polls, so a B of F's priority on F's core runs) */
			.spins = (unsigned)(ful_arg1 >> 16)
					 ? (unsigned)(ful_arg1 >> 16)
					 : (unsigned)ful_arg0};
	if (!err && (err = f_mount(&dev)))
		printf("fs: cannot mount the disk: %s (%ld)\n", f_fs.why, err);
	if (!err && f_fs.rdonly)
		printf("fs: the disk is read-only: %s\n", f_fs.why);
	if (!err && f_omf_init() < 0)
		printf("fs: no zero page: OMF cannot show holes\n");
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	long rerr = err ? 0 : f_ring_start(si.cpu, F_RING_PRIO, (unsigned)ful_arg0);
	if (rerr)
		printf("fs: no ring thread (%ld): rings are not served\n", rerr);
	f_bwb.self_tid = (long)f_ring_tid(); /* F's threads share a core */
	struct ful_msg m = {.info = FUL_MSG(FUL_FS_READY, 0),
			    .mr = {(unsigned long)err, f_ring_tid()}};
	ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
	if (err)
		return 1;
	printf("fs: ext2 mounted: %u blocks of %u bytes, %u inodes; to B over "
	       "%s\n", f_fs.blocks, f_fs.bsize, f_fs.inodes,
	       ful_chan_ring(&f_bchan) ? "a ring" : "IPC");
	if (ful_recv(FUL_FS_SLOT_EP, &m, FUL_FOREVER) < 0)
		return 1;
	for (;;) {
		f_ipc(&m);
		if (ful_reply_recv(FUL_FS_SLOT_EP, &m, FUL_FOREVER) < 0 &&
		    ful_recv(FUL_FS_SLOT_EP, &m, FUL_FOREVER) < 0)
			return 1;
	}
}
