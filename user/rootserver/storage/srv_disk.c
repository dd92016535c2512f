/*
 * Starting D, the disk driver server (user/servers/disk), with the boot
 * argument `disk`: the rootserver's half of the start-up in
 * <fulcrum/disk.h>. D gets every virtio-mmio region and scans them
 * itself; it gets the interrupt of the one it drives only, once it
 * says which. The rootserver keeps a badged WRITE capability to D's
 * endpoint and the client window, which it hands to a system program
 * (sysprog.c) as its disk client; with a cache (boot argument cache=N,
 * srv_cache.c) a second window of N pages, badge 2, for B.
 */
#include <stdio.h>
#include <fulcrum/load.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/disk.h>
#include <ful/spawn.h>

#include "../root.h"
#include "srv.h"

#define DISK_PRIO 150     /* paper 002: D above F and B above clients */
#define DISK_POOL (1UL << 20)

static struct {
	unsigned ep;          /* D's endpoint, ALL (clients get WRITE, badge 1) */
	unsigned win;         /* the client window, a DMA frame */
	unsigned win2;        /* B's window (its cache), 0 if none */
	unsigned long win2_pages;
	/* B's ring to D (<fulcrum/sring.h>): the page, D's doorbell, B's
	 * notification (ALL); ring 0 unless D's ring thread runs */
	unsigned ring, bell, bntfn;
	struct ful_task task;
} dk;

/** A new object in a fresh slot: @make(pool, slot) or a DMA frame. */
static long disk_new_ep(void)
{
	long s = ful_slot_alloc();
	if (s >= 0 && ful_ep_create(FUL_SLOT_POOL, (unsigned)s) < 0)
		s = -FUL_ENOMEM;
	return s;
}

/** Answer D's FUL_DISK_FOUND on @rep: the handler of region mr0's SPI
 *  into D's FUL_DISK_SLOT_IRQ. */
static long disk_give_irq(unsigned rep)
{
	const struct ful_bootinfo *bi = ful_bootinfo();
	struct ful_msg m;
	long err = ful_recv(rep, &m, ROOT_TIMEOUT_US);
	if (err < 0)
		return err;
	if (FUL_MSG_LABEL(m.info) != FUL_DISK_FOUND)
		return -FUL_EINVAL;
	long region = (long)m.mr[0], tmp = ful_slot_alloc();
	err = region < 0 || region >= (long)bi->ndevregions ? -FUL_ESTATE : 0;
	if (!err && tmp > 0)
		err = ful_irq_get(bi->irqctl_slot, (unsigned)tmp,
				  bi->devregions[region].intid);
	if (!err)
		err = ful_cap_copy((unsigned)tmp, dk.task.vs, FUL_DISK_SLOT_IRQ,
				   FUL_R_ALL, 0);
	if (tmp > 0)
		ful_slot_drop((unsigned)tmp); /* D holds the only copy */
	m = (struct ful_msg){.mr = {(unsigned long)err}};
	ful_reply(&m);
	return err;
}

/** Wait for D's FUL_DISK_READY on @rep; print what it drives. */
static long disk_wait_ready(unsigned rep)
{
	struct ful_msg m;
	long err = ful_recv(rep, &m, ROOT_TIMEOUT_US);
	if (err < 0)
		return err;
	if (FUL_MSG_LABEL(m.info) != FUL_DISK_READY)
		return -FUL_EINVAL;
	if ((long)m.mr[0] < 0)
		return (long)m.mr[0];
	printf("rootserver: disk server D ready: %lu blocks, virtio-mmio "
	       "version %lu\n", m.mr[1], m.mr[2]);
	root_server_thread(ROOT_D, (long)(m.mr[3] & 0xffffffffUL)); /* requests */
	if (m.mr[3] >> 32)
		root_server_thread(ROOT_D, (long)(m.mr[3] >> 32)); /* B's ring */
	else
		dk.ring = 0; /* no ring thread: B must not use the ring */
	return 0;
}

/** Spawn D with its capabilities (<fulcrum/disk.h>). */
static long disk_spawn(unsigned pool, unsigned rep)
{
	const struct ful_bootinfo *bi = ful_bootinfo();
	struct ful_cap_grant g[7 + FUL_MAX_DEVREGIONS];
	unsigned n = 0;
	g[n++] = (struct ful_cap_grant){pool, FUL_DISK_SLOT_POOL, FUL_R_ALL, 0};
	g[n++] = (struct ful_cap_grant){dk.ep, FUL_DISK_SLOT_EP, FUL_R_READ, 0};
	g[n++] = (struct ful_cap_grant){dk.win, FUL_DISK_SLOT_WIN,
					FUL_R_READ | FUL_R_WRITE, 0};
	if (dk.win2)
		g[n++] = (struct ful_cap_grant){dk.win2, FUL_DISK_WIN_SLOT(2),
						FUL_R_READ | FUL_R_WRITE, 0};
	if (dk.ring) {
		g[n++] = (struct ful_cap_grant){dk.ring, FUL_DISK_SLOT_RING,
						FUL_R_READ | FUL_R_WRITE, 0};
		g[n++] = (struct ful_cap_grant){dk.bell, FUL_DISK_SLOT_RING_BELL,
						FUL_R_READ, 0};
		g[n++] = (struct ful_cap_grant){dk.bntfn, FUL_DISK_SLOT_RING_PEER,
						FUL_R_WRITE, 0};
	}
	for (unsigned i = 0; i < bi->ndevregions; i++)
		g[n++] = (struct ful_cap_grant){bi->devregions[i].slot,
						FUL_DISK_SLOT_DEV0 + i,
						FUL_R_READ | FUL_R_WRITE, 0};
	int mod = ful_module_find("disk");
	if (mod < 0)
		return mod;
	static const struct ful_map_grant maps[] = {
		{.frame = FUL_SLOT_LOAD, .rights = FUL_R_READ,
		 .va = FUL_LOAD_VADDR},
	};
	char spin[16] = "0";
	root_bootarg("srv_spin", spin, sizeof spin); /* server rings' polls */
	struct ful_spawn_args a = {
		.module = (unsigned)mod, .cpu = root_server_cpu(ROOT_D),
		.prio = DISK_PRIO,
		.arg0 = bi->ndevregions | (strtoul(spin, NULL, 0) & 0xffff) << 16,
		.maps = maps, .nmaps = 1,
		.arg1 = FUL_DISK_WINDOW_PAGES | dk.win2_pages << 16,
		.vs_rights = FUL_R_ALL,
		.report_ep = rep, .report_badge = 1, .caps = g, .ncaps = n};
	return ful_spawn(&a, &dk.task);
}

long root_disk_start(unsigned long cache_pages)
{
	long ep = disk_new_ep(), rep = disk_new_ep();
	long win = ful_slot_alloc(), pool = ful_slot_alloc();
	long win2 = cache_pages ? ful_slot_alloc() : 0;
	long err = ep < 0 || rep < 0 || win < 0 || pool < 0 || win2 < 0
			   ? -FUL_ENOMEM
		   : cache_pages > FUL_DISK_WINDOW_MAX_PAGES ? -FUL_ERANGE
							     : 0;
	if (!err)
		err = ful_dma_create(FUL_SLOT_POOL, (unsigned)win,
				     FUL_DISK_WINDOW_PAGES);
	if (!err && win2) {
		err = ful_dma_create(FUL_SLOT_POOL, (unsigned)win2, cache_pages);
		dk.win2 = (unsigned)win2;
		dk.win2_pages = cache_pages;
		if (!err && root_server_rings())
			/* without it B talks to D over IPC */
			root_sring_make("B and D", &dk.ring, &dk.bell, &dk.bntfn);
	}
	if (!err)
		err = ful_pool_create(FUL_SLOT_POOL, (unsigned)pool, DISK_POOL);
	if (!err) {
		dk.ep = (unsigned)ep;
		dk.win = (unsigned)win;
		err = disk_spawn((unsigned)pool, (unsigned)rep);
	}
	if (!err)
		err = disk_give_irq((unsigned)rep);
	if (!err)
		err = disk_wait_ready((unsigned)rep);
	if (err) {
		printf("rootserver: disk server D did not start: %ld\n", err);
		ful_task_destroy(&dk.task);
		dk.ep = dk.win = 0;
	} else {
		root_server_thread(ROOT_D, dk.task.tid); /* its IRQ thread */
	}
	return err;
}

bool root_disk_ring(unsigned *page, unsigned *bell, unsigned *bntfn)
{
	*page = dk.ring, *bell = dk.bell, *bntfn = dk.bntfn;
	return dk.ring != 0;
}

bool root_disk_client(unsigned *ep, unsigned *win)
{
	*ep = dk.ep;
	*win = dk.win;
	return dk.ep != 0;
}

bool root_disk_cache_window(unsigned *ep, unsigned *win)
{
	*ep = dk.ep;
	*win = dk.win2;
	return dk.ep != 0 && dk.win2 != 0;
}

long root_disk_kill(void)
{
	if (!dk.ep)
		return -FUL_ESTATE;
	long n = ful_task_kill(dk.task.vs);
	if (n < 0)
		return n;
	printf("rootserver: D killed (%ld threads)\n", n);
	return dk.ring ? root_ring_dead(dk.ring, dk.bntfn) : 0;
}
