/*
 * The rootserver's half of F's rings (<fulcrum/fs.h>): it holds F's
 * vspace and the running system program's, so it can put a ring frame
 * into both and the notifications where they belong, which neither side
 * could do for the other (a task holds no capability to its own
 * address space, and IPC carries no capabilities).
 */
#include <stdio.h>

#include <fulcrum/fs.h>
#include <fulcrum/rootsrv.h>
#include <ful/ful.h>

#include "../root.h"
#include "srv.h"

/* Ring k: its frame while in use; its notification, made at its first
 * use and kept (F holds a copy in FUL_FSR_F_SLOT_NTFN + k, which the
 * rootserver cannot delete from F's table: the next user of ring k gets
 * the same notification, its bits cleared by its first wait). Its page
 * window is new for every use: F deletes its copy at the detach, so a
 * program that kept the old one mapped sees nothing of the next user's
 * files. */
static struct {
	unsigned frame, ntfn; /* the rootserver's (ALL); frame 0: ring free */
	unsigned win;         /* the page window of this use (ALL), or 0 */
} rings[FUL_FSR_MAX];

static void slot_drop(unsigned *slot)
{
	if (*slot) {
		ful_cap_delete(*slot);
		ful_slot_free(*slot);
		*slot = 0;
	}
}

/** Drop ring @k's frame and window here (F has let go of them). */
static void ring_drop(unsigned k)
{
	slot_drop(&rings[k].frame);
	slot_drop(&rings[k].win);
}

/** A request to F from the rootserver (badge 0): its mr0. */
static long ring_tell_f(unsigned op, unsigned k)
{
	unsigned ep;
	if (!root_fs_client(&ep))
		return -FUL_ESTATE;
	struct ful_msg m = {.info = FUL_MSG(op, 0), .mr = {k}};
	long err = ful_call(ep, &m, ROOT_TIMEOUT_US);
	return err < 0 ? err : (long)m.mr[0];
}

/** Ring @k's notification, made and given to F at its first use. */
static long ring_ntfn(unsigned k, unsigned fvs)
{
	if (rings[k].ntfn)
		return 0;
	long n = ful_slot_alloc();
	long err = n < 0 ? n : ful_ntfn_create(FUL_SLOT_POOL, (unsigned)n);
	if (err >= 0)
		err = ful_cap_copy((unsigned)n, fvs, FUL_FSR_F_SLOT_NTFN + k,
				   FUL_R_WRITE, 0);
	if (err < 0) {
		if (n >= 0)
			ful_cap_delete((unsigned)n), ful_slot_free((unsigned)n);
		return err;
	}
	rings[k].ntfn = (unsigned)n;
	return 0;
}

/** Ring @k's page window for this use, a copy in F's slot (which F
 *  emptied at the last detach). */
static long ring_window(unsigned k, unsigned fvs)
{
	long w = ful_slot_alloc();
	long err = w < 0 ? w
			 : ful_pwin_create(FUL_SLOT_POOL, (unsigned)w,
					   FUL_FSR_OMF_PAGES);
	if (err < 0) {
		if (w >= 0)
			ful_slot_free((unsigned)w);
		return err;
	}
	rings[k].win = (unsigned)w;
	return ful_cap_copy(rings[k].win, fvs, FUL_FSR_F_SLOT_WIN + k,
			    FUL_R_ALL, 0);
}

/** Make ring @k's frame and window and map the frame into F. */
static long ring_make(unsigned k, unsigned fvs)
{
	long err = ring_ntfn(k, fvs);
	long fr = err < 0 ? err : root_obj_new(true, FUL_FSR_PAGES);
	if (fr < 0)
		return fr;
	rings[k].frame = (unsigned)fr;
	err = ring_window(k, fvs);
	if (err >= 0)
		err = ful_map(fvs, rings[k].frame,
			      FUL_FSR_F_VADDR + k * FUL_FSR_F_STRIDE,
			      FUL_R_READ | FUL_R_WRITE);
	if (err < 0) { /* F empties its window slot on a detach */
		ring_tell_f(FUL_FS_OP_RING_DETACH, k);
		ring_drop(k);
	}
	return err < 0 ? err : 0;
}

/** Take ring @k's frame back out of F, which has let go of it. */
static void ring_unmake(unsigned k, unsigned fvs)
{
	ful_unmap(fvs, FUL_FSR_F_VADDR + k * FUL_FSR_F_STRIDE);
	ring_drop(k);
}

long root_fs_ring(unsigned vs, const struct ful_msg *m)
{
	unsigned fvs, bell, k;
	if (!vs || !root_fs_task(&fvs, &bell))
		return -FUL_ESTATE;
	for (k = 0; k < FUL_FSR_MAX && rings[k].frame; k++)
		;
	if (k == FUL_FSR_MAX)
		return -FUL_EAGAIN;
	long err = ring_make(k, fvs);
	if (err < 0)
		return err;
	if ((err = ring_tell_f(FUL_FS_OP_RING_ATTACH, k)) < 0)
		printf("rootserver: F refused ring %u: %ld\n", k, err);
	/* the caller's three: the frame, its notification, F's doorbell */
	if (!err)
		err = ful_cap_copy(rings[k].frame, vs, (unsigned)m->mr[0],
				   FUL_R_READ | FUL_R_WRITE, 0);
	if (err >= 0)
		err = ful_cap_copy(rings[k].ntfn, vs, (unsigned)m->mr[1],
				   FUL_R_READ, 0);
	if (err >= 0)
		err = ful_cap_copy(bell, vs, (unsigned)m->mr[2], FUL_R_WRITE, 0);
	if (err >= 0)
		err = ful_cap_copy(rings[k].win, vs, (unsigned)m->mr[3],
				   FUL_R_READ | FUL_R_WRITE, 0);
	if (err < 0) {
		ring_tell_f(FUL_FS_OP_RING_DETACH, k);
		ring_unmake(k, fvs);
		return err;
	}
	return (long)k;
}

long root_fs_ring_free(const struct ful_msg *m)
{
	unsigned fvs, bell;
	unsigned long k = m->mr[0];
	if (k >= FUL_FSR_MAX || !rings[k].frame || !root_fs_task(&fvs, &bell))
		return -FUL_EINVAL;
	long err = ring_tell_f(FUL_FS_OP_RING_DETACH, (unsigned)k);
	if (err < 0)
		return err;
	ring_unmake((unsigned)k, fvs);
	return 0;
}
