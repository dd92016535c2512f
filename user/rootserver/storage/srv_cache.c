/*
 * Starting B, the block cache server (user/servers/cache), with the boot
 * argument cache=N after D: the rootserver's half of the start-up in
 * <fulcrum/cache.h>. B gets D's window 2 (its N lines, made by
 * root_disk_start) and a badge-2 capability to D, its own endpoint and
 * a client window, which the rootserver hands to a system program
 * (sysprog.c) with a badge-1 capability to B.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/load.h>
#include <ful/spawn.h>

#include "../root.h"
#include "srv.h"

#define CACHE_PRIO 120 /* paper 002: F = B, below D, above clients */

static struct {
	unsigned ep, win; /* B's endpoint (ALL) and the client window */
	/* F's ring to B (<fulcrum/sring.h>): the page, B's doorbell and
	 * F's notification (ALL); ring 0 unless B's ring thread runs */
	unsigned ring, bell, fntfn;
	struct ful_task task;
} ch;

/** Spawn B over D's endpoint @dep and window @dwin, reporting on @rep. */
static long cache_spawn(unsigned long blocks, unsigned dep, unsigned dwin,
			unsigned rep)
{
	unsigned dpage = 0, dbell = 0, dmine = 0;
	bool dring = root_disk_ring(&dpage, &dbell, &dmine);
	struct ful_cap_grant g[11] = {
		{dep, FUL_CACHE_SLOT_DISK, FUL_R_WRITE, 2},
		{dwin, FUL_CACHE_SLOT_LINES, FUL_R_READ | FUL_R_WRITE, 0},
		{ch.ep, FUL_CACHE_SLOT_EP, FUL_R_READ, 0},
		{ch.win, FUL_CACHE_SLOT_WIN, FUL_R_READ | FUL_R_WRITE, 0},
		{FUL_SLOT_POOL, FUL_CACHE_SLOT_POOL, FUL_R_ALL, 0},
		{ch.ring, FUL_CACHE_SLOT_RING, FUL_R_READ | FUL_R_WRITE, 0},
		{ch.bell, FUL_CACHE_SLOT_RING_BELL, FUL_R_READ, 0},
		{ch.fntfn, FUL_CACHE_SLOT_RING_PEER, FUL_R_WRITE, 0},
	};
	unsigned n = ch.ring ? 8 : 5;
	if (dring) {
		g[n++] = (struct ful_cap_grant){dmine, FUL_CACHE_SLOT_DRING_MINE,
						FUL_R_READ, 0};
		g[n++] = (struct ful_cap_grant){dbell, FUL_CACHE_SLOT_DRING_PEER,
						FUL_R_WRITE, 0};
	}
	const struct ful_map_grant maps[] = {
		{.frame = FUL_SLOT_LOAD, .rights = FUL_R_READ,
		 .va = FUL_LOAD_VADDR},
		{.frame = dpage, .rights = FUL_R_READ | FUL_R_WRITE,
		 .va = FUL_CACHE_DRING_VA},
	};
	char spin[16] = "0";
	root_bootarg("srv_spin", spin, sizeof spin); /* server rings' polls */
	int mod = ful_module_find("cache");
	if (mod < 0)
		return mod;
	struct ful_spawn_args a = {
		.module = (unsigned)mod, .cpu = root_server_cpu(ROOT_B),
		.prio = CACHE_PRIO,
		.arg0 = blocks, .arg1 = strtoul(spin, NULL, 0),
		.vs_rights = FUL_R_ALL, .report_ep = rep, .report_badge = 1,
		.caps = g, .ncaps = n, .maps = maps, .nmaps = dring ? 2 : 1};
	return ful_spawn(&a, &ch.task);
}

long root_cache_start(unsigned long blocks)
{
	unsigned dep, dwin;
	struct ful_msg m;
	long ep = root_obj_new(false, 0), rep = root_obj_new(false, 0);
	long win = root_obj_new(true, FUL_CACHE_WINDOW_PAGES);
	long err = ep < 0 ? ep : rep < 0 ? rep : win < 0 ? win : 0;
	if (!err && !root_disk_cache_window(&dep, &dwin))
		err = -FUL_ESTATE;
	if (!err) {
		ch.ep = (unsigned)ep;
		ch.win = (unsigned)win;
		if (root_server_rings())
			/* without it F talks to B over IPC */
			root_sring_make("F and B", &ch.ring, &ch.bell, &ch.fntfn);
		err = cache_spawn(blocks, dep, dwin, (unsigned)rep);
	}
	if (!err && (err = ful_recv((unsigned)rep, &m, ROOT_TIMEOUT_US)) == 0)
		err = FUL_MSG_LABEL(m.info) != FUL_CACHE_READY ? -FUL_EINVAL
							      : (long)m.mr[0];
	if (err) {
		printf("rootserver: cache server B did not start: %ld\n", err);
		ful_task_destroy(&ch.task);
		ch.ep = ch.win = 0;
		return err;
	}
	printf("rootserver: cache server B ready: %lu lines\n", blocks);
	root_server_thread(ROOT_B, ch.task.tid);
	if (m.mr[1])
		root_server_thread(ROOT_B, (long)m.mr[1]); /* its ring thread */
	else
		ch.ring = 0; /* no ring thread: F must not use the ring */
	return 0;
}

bool root_cache_ring(unsigned *page, unsigned *bell, unsigned *fntfn)
{
	*page = ch.ring, *bell = ch.bell, *fntfn = ch.fntfn;
	return ch.ring != 0;
}

bool root_cache_client(unsigned *ep, unsigned *win)
{
	*ep = ch.ep;
	*win = ch.win;
	return ch.ep != 0;
}

long root_cache_kill(void)
{
	if (!ch.ep)
		return -FUL_ESTATE;
	long n = ful_task_kill(ch.task.vs);
	if (n < 0)
		return n;
	printf("rootserver: B killed (%ld threads)\n", n);
	return ch.ring ? root_ring_dead(ch.ring, ch.fntfn) : 0;
}
