/*
 * Starting F, the file server (user/servers/fs), with the boot argument
 * `fs` after D and B: the rootserver's half of the start-up in
 * <fulcrum/fs.h>. F takes B's client (its endpoint, badge 1, and the
 * client window), so with F running a system program talks to F
 * (FUL_SYSPROG_SLOT_FS), not to B.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/fs.h>
#include <fulcrum/load.h>
#include <fulcrum/sring.h>
#include <ful/spawn.h>

#include "../root.h"
#include "srv.h"

#define FS_PRIO 120 /* paper 002: F = B, below D, above clients */

static struct {
	unsigned ep;   /* F's endpoint (ALL) */
	unsigned bell; /* F's doorbell notification (ALL) */
	bool dead;     /* root_fs_kill: F's server thread is gone */
	struct ful_task task;
} fs;

long root_fs_start(void)
{
	unsigned bep, bwin, dep, lines, rpage = 0, rbell = 0, rmine = 0;
	struct ful_msg m;
	long ep = root_obj_new(false, 0), rep = root_obj_new(false, 0);
	long bell = ful_slot_alloc();
	long err = bell < 0 ? bell : ful_ntfn_create(FUL_SLOT_POOL, (unsigned)bell);
	if (!root_cache_client(&bep, &bwin) ||
	    !root_disk_cache_window(&dep, &lines))
		err = -FUL_ESTATE; /* F needs B (and B's lines, for OMF) */
	else if (ep < 0 || rep < 0)
		err = ep < 0 ? ep : rep;
	int mod = err ? -1 : ful_module_find("fs");
	if (!err && mod < 0)
		err = mod;
	if (!err) {
		bool ring = root_cache_ring(&rpage, &rbell, &rmine);
		const struct ful_cap_grant g[] = {
			{bep, FUL_FS_SLOT_CACHE, FUL_R_WRITE, 1},
			{bwin, FUL_FS_SLOT_CACHE_WIN, FUL_R_READ | FUL_R_WRITE, 0},
			{(unsigned)ep, FUL_FS_SLOT_EP, FUL_R_READ, 0},
			{(unsigned)bell, FUL_FSR_F_SLOT_BELL, FUL_R_READ | FUL_R_WRITE, 0},
			{FUL_SLOT_POOL, FUL_FSR_F_SLOT_POOL, FUL_R_ALL, 0},
			{lines, FUL_FSR_F_SLOT_LINES, FUL_R_READ | FUL_R_WRITE, 0},
			{rmine, FUL_FS_SLOT_BRING_MINE, FUL_R_READ, 0},
			{rbell, FUL_FS_SLOT_BRING_PEER, FUL_R_WRITE, 0},
		};
		/* the load area: the ring thread polls only while its core
		 * has nothing else to run (f_ring.c) */
		const struct ful_map_grant maps[] = {
			{.frame = FUL_SLOT_LOAD, .rights = FUL_R_READ,
			 .va = FUL_LOAD_VADDR},
			{.frame = rpage, .rights = FUL_R_READ | FUL_R_WRITE,
			 .va = FUL_FS_BRING_VA},
		};
		char spin[16] = "0", copy[8] = "1", sspin[16] = "0";
		char wb[8] = "1";
		root_bootarg("fs_spin", spin, sizeof spin);
		root_bootarg("fs_copy", copy, sizeof copy);
		root_bootarg("fs_wb", wb, sizeof wb);
		root_bootarg("srv_spin", sspin, sizeof sspin);
		struct ful_spawn_args a = {
			.module = (unsigned)mod,
			.cpu = root_server_cpu(ROOT_F), .prio = FS_PRIO,
			.arg0 = strtoul(spin, NULL, 0), /* its ring thread's polls */
			.arg1 = (strcmp(copy, "0") ? 0 : FUL_FS_ARG1_NO_COPY) |
				(strcmp(wb, "0") ? 0 : FUL_FS_ARG1_NO_WB) |
				(strtoul(sspin, NULL, 0) & 0xffff) << 16,
			.vs_rights = FUL_R_ALL, .report_ep = (unsigned)rep,
			.report_badge = 1, .caps = g,
			.ncaps = sizeof g / sizeof g[0] - (ring ? 0 : 2),
			.maps = maps, .nmaps = ring ? 2 : 1};
		err = ful_spawn(&a, &fs.task);
	}
	if (!err && (err = ful_recv((unsigned)rep, &m, ROOT_TIMEOUT_US)) == 0)
		err = FUL_MSG_LABEL(m.info) != FUL_FS_READY ? -FUL_EINVAL
							   : (long)m.mr[0];
	if (err) {
		printf("rootserver: file server F did not start: %ld\n", err);
		ful_task_destroy(&fs.task);
		return err;
	}
	fs.ep = (unsigned)ep;
	fs.bell = (unsigned)bell;
	root_server_thread(ROOT_F, fs.task.tid);
	root_server_thread(ROOT_F, (long)m.mr[1]); /* its ring thread */
	printf("rootserver: file server F ready\n");
	return 0;
}

bool root_fs_client(unsigned *ep)
{
	*ep = fs.ep;
	return fs.ep != 0;
}

bool root_fs_task(unsigned *vs, unsigned *bell)
{
	*vs = fs.task.vs;
	*bell = fs.bell;
	return fs.ep != 0 && !fs.dead;
}

/** Before the power goes: F writes its counts and B its dirty lines to
 *  the disk (F's SYNC), or B alone if F does not run, so that the image
 *  is clean (e2fsck) after every run. */
void root_storage_sync(void)
{
	unsigned ep, win;
	struct ful_msg m = {0};
	long err = 0;
	if (fs.dead) {
		return; /* F's counts died with it: nothing consistent to write */
	} else if (fs.ep) {
		m.info = FUL_MSG(FUL_FS_OP_SYNC, 0);
		err = ful_call(fs.ep, &m, ROOT_TIMEOUT_US);
	} else if (root_cache_client(&ep, &win)) {
		m.info = FUL_MSG(FUL_CACHE_OP_SYNC, 0);
		err = ful_call(ep, &m, ROOT_TIMEOUT_US);
	} else {
		return;
	}
	if (err < 0 || m.mr[0])
		printf("rootserver: storage sync failed: %ld/%ld\n", err,
		       (long)m.mr[0]);
}

/** F's tombstone: after F's server thread died, every call on F's
 *  endpoint is answered -EIO (a caller queued there would otherwise wait
 *  for a receiver that never comes). */
static void fs_tombstone(void *arg)
{
	(void)arg;
	struct ful_msg m = {0};
	long err = ful_recv(fs.ep, &m, FUL_FOREVER);
	for (;;) {
		if (err < 0) {
			err = ful_recv(fs.ep, &m, FUL_FOREVER);
			continue;
		}
		m = (struct ful_msg){.info = FUL_MSG(FUL_MSG_LABEL(m.info), 0),
				     .mr = {(unsigned long)-EIO}};
		err = ful_reply_recv(fs.ep, &m, FUL_FOREVER);
	}
}

long root_fs_kill(void)
{
	static struct ful_thread tomb;
	if (!fs.ep || fs.dead)
		return -FUL_ESTATE;
	long err = ful_thread_kill(fs.task.thread);
	if (err < 0)
		return err;
	fs.dead = true;
	/* the ring thread sees it and closes */
	ful_ntfn_signal(fs.bell, FUL_SRING_BELL_KILLED);
	struct ful_thread_args a = {.fn = fs_tombstone, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = FS_PRIO,
				    .cpu = 0, .name = "fs-tombstone"};
	err = ful_thread_spawn(&a, &tomb);
	printf("rootserver: F's server thread killed; its endpoint answers "
	       "EIO from now on\n");
	return err;
}

long root_server_kill(char which)
{
	return which == 'B'		     ? root_cache_kill()
	       : which == 'D'		     ? root_disk_kill()
	       : which == 'F' || which == 0 ? root_fs_kill()
					    : -FUL_EINVAL;
}
