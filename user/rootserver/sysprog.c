/*
 * System programs: the user-level test suites (tests/user/tests), the
 * benchmarks (user/bench), the fuzzer and the shell, each a task of its own, started the way
 * sel4test's driver starts its test processes: with exactly the part of
 * the rootserver's authority it needs (<ful/ful.h>, "system program").
 * Both create threads and tasks (pool, own vspace), move threads and
 * read the load area (sched, load), and start some boot modules, whose
 * frames are all they get of the module list. Nothing else of the
 * rootserver's reaches them: not its IPC buffer, not its own vspace or
 * thread, not the frames of the other modules.
 */
#include <stdio.h>
#include <string.h>

#include <fulcrum/balctl.h>
#include <fulcrum/cache.h>
#include <fulcrum/fs.h>
#include <fulcrum/disk.h>
#include <fulcrum/rootsrv.h>
#include <ful/load.h>
#include <ful/spawn.h>

#include "root.h"
#include "storage/srv.h"

#define SP_MAX_PEERS 12
#define SP_PRIO 100 /* the rootserver's: the tests ran in it before */

struct sysprog {
	const char *name;
	const char *peers[SP_MAX_PEERS]; /* boot modules it may start */
	unsigned console; /* rights on console input (FUL_SLOT_CONSOLE) */
	bool balancer;    /* gets the balancer capability (<fulcrum/balctl.h>) */
	bool devices;     /* gets the IRQ control and the first device region
			   * (the bad-input tests use them), same slots */
	bool disk;        /* a client of D and B, if they run
			   * (<fulcrum/disk.h>, <fulcrum/cache.h>) */
	bool files;       /* a client of F, if it runs (<fulcrum/fs.h>) */
	unsigned long badge; /* of its report capability (<fulcrum/rootsrv.h>) */
};

/* Paper 001's workloads (user/workloads), programs of their own. */
#define WORKLOADS "lz77", "crc", "queens", "matmul", "memcpy"

static const struct sysprog sysprogs[] = {
	{"tests", {"badinput", "faulter", "ipctest", "fstest", "postmark",
		   "bonnie", WORKLOADS}, FUL_R_ALL, true, true,
	 true, true, FUL_ROOT_BADGE_PROG},
	{"bench", {"ipcpeer", "postmark", "bonnie", WORKLOADS}, 0, false,
	 false, true, true, FUL_ROOT_BADGE_PROG},
	{"fuzz", {NULL}, 0, false, false, false, false, FUL_ROOT_BADGE_PROG},
	{"shell", {"fstest", "hello", "postmark", "bonnie", WORKLOADS},
	 FUL_R_READ | FUL_R_ADMIN, true, false, false, true,
	 FUL_ROOT_BADGE_SHELL},
};

/** Add a grant of the module frame @name (READ, at its own slot). */
static bool sp_grant_module(const char *name, struct ful_cap_grant *g)
{
	int mod = ful_module_find(name);
	if (mod < 0)
		return false;
	unsigned slot = ful_bootinfo()->modules[mod].slot;
	*g = (struct ful_cap_grant){.src = slot, .dst = slot,
				    .rights = FUL_R_READ};
	return true;
}

/** The capability grants of @sp into @g; their number, or 0 if a peer
 *  module is missing. */
static unsigned sp_grants(const struct sysprog *sp, struct ful_cap_grant *g)
{
	static const struct ful_cap_grant base[] = {
		{.src = FUL_SLOT_SCHED, .dst = FUL_SLOT_SCHED, .rights = FUL_R_ALL},
		{.src = FUL_SLOT_POOL, .dst = FUL_SLOT_POOL, .rights = FUL_R_ALL},
		{.src = FUL_SLOT_BOOTINFO, .dst = FUL_SLOT_BOOTINFO,
		 .rights = FUL_R_READ},
		{.src = FUL_SLOT_LOAD, .dst = FUL_SLOT_LOAD, .rights = FUL_R_READ},
	};
	unsigned n = sizeof(base) / sizeof(base[0]);
	memcpy(g, base, sizeof(base));
	for (unsigned i = 0; i < SP_MAX_PEERS && sp->peers[i]; i++)
		if (!sp_grant_module(sp->peers[i], &g[n++]))
			return 0;
	if (sp->console)
		g[n++] = (struct ful_cap_grant){.src = FUL_SLOT_CONSOLE,
						.dst = FUL_SLOT_CONSOLE,
						.rights = sp->console};
	/* A system program that starts processes may ask where a new
	 * thread goes, and hands that on to them (<fulcrum/balctl.h>). The
	 * fuzzer starts none, and its slots above 191 are its workers'. */
	if (sp->peers[0])
		g[n++] = (struct ful_cap_grant){.src = FUL_SLOT_BALANCER,
						.dst = FUL_SLOT_PLACE,
						.rights = FUL_R_WRITE,
						.badge = FUL_ROOT_BADGE_PLACE};
	if (sp->balancer)
		g[n++] = (struct ful_cap_grant){.src = FUL_SLOT_BALANCER,
						.dst = FUL_SLOT_BALANCER,
						.rights = FUL_R_WRITE,
						.badge = FUL_ROOT_BADGE_BAL};
	const struct ful_bootinfo *bi = ful_bootinfo();
	unsigned dep, dwin;
	if (sp->disk && root_disk_client(&dep, &dwin)) {
		g[n++] = (struct ful_cap_grant){.src = dep,
						.dst = FUL_SYSPROG_SLOT_DISK,
						.rights = FUL_R_WRITE,
						.badge = 1};
		g[n++] = (struct ful_cap_grant){.src = dwin,
						.dst = FUL_SYSPROG_SLOT_DISK_WIN,
						.rights = FUL_R_READ | FUL_R_WRITE};
	}
	bool fs = root_fs_client(&dep); /* then B's one client is F */
	if (sp->files && fs)
		g[n++] = (struct ful_cap_grant){.src = dep,
						.dst = FUL_SYSPROG_SLOT_FS,
						.rights = FUL_R_WRITE,
						.badge = 1};
	if (sp->disk && !fs && root_cache_client(&dep, &dwin)) {
		g[n++] = (struct ful_cap_grant){.src = dep,
						.dst = FUL_SYSPROG_SLOT_CACHE,
						.rights = FUL_R_WRITE,
						.badge = 1};
		g[n++] = (struct ful_cap_grant){.src = dwin,
						.dst = FUL_SYSPROG_SLOT_CACHE_WIN,
						.rights = FUL_R_READ | FUL_R_WRITE};
	}
	if (sp->devices && bi->ndevregions) {
		g[n++] = (struct ful_cap_grant){.src = bi->irqctl_slot,
						.dst = bi->irqctl_slot,
						.rights = FUL_R_ALL};
		g[n++] = (struct ful_cap_grant){
			.src = bi->devregions[0].slot,
			.dst = bi->devregions[0].slot,
			.rights = FUL_R_READ | FUL_R_WRITE};
	}
	return n;
}

/*
 * The rootserver waits for "done" without a timeout: a periodic look at
 * the program would wake its core in the middle of what the tests count
 * and the benchmarks measure. A program that dies instead (a fault kills
 * it) is named by the kernel's FAULT line, which ends the harness's run.
 */

/* The system program running now: one at a time (tests, bench, fuzz or
 * the shell), whose vspace the ring requests put capabilities into. */
static unsigned prog_vs;

unsigned root_prog_vs(void)
{
	return prog_vs;
}

/** Start @sp with the service endpoint (WRITE, its badge, in its
 *  FUL_SYSPROG_SLOT_DONE) into @t; 0 or -FUL_E*. */
static long sp_start(const struct sysprog *sp, struct ful_task *t)
{
	static const struct ful_map_grant maps[] = {
		{.frame = FUL_SLOT_BOOTINFO, .rights = FUL_R_READ,
		 .va = FUL_BOOTINFO_VADDR},
		{.frame = FUL_SLOT_LOAD, .rights = FUL_R_READ,
		 .va = FUL_LOAD_VADDR},
	};
	struct ful_cap_grant g[13 + SP_MAX_PEERS];
	int mod = ful_module_find(sp->name);
	unsigned ng = sp_grants(sp, g);
	if (mod < 0 || !ng)
		return -FUL_EINVAL;
	struct ful_spawn_args a = {
		.module = (unsigned)mod, .cpu = 0, .prio = SP_PRIO,
		.vs_rights = FUL_R_ALL, .report_ep = FUL_SLOT_BALANCER,
		.report_badge = sp->badge, .report_slot = FUL_SYSPROG_SLOT_DONE, .caps = g, .ncaps = ng,
		.maps = maps, .nmaps = sizeof(maps) / sizeof(maps[0])};
	long err = ful_spawn(&a, t);
	prog_vs = err ? 0 : t->vs;
	return err;
}

/** Start @sp and serve the endpoint until it says done. */
static long sp_run(const struct sysprog *sp)
{
	struct ful_task t;
	long err = sp_start(sp, &t);
	if (!err)
		err = root_serve(true);
	prog_vs = 0;
	ful_task_destroy(&t);
	return err;
}

/** The entry of @name in the table, or NULL. */
static const struct sysprog *sp_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(sysprogs) / sizeof(sysprogs[0]); i++)
		if (!strcmp(sysprogs[i].name, name))
			return &sysprogs[i];
	return NULL;
}

long root_sysprog_start(const char *name, struct ful_task *t)
{
	const struct sysprog *sp = sp_find(name);
	return sp ? sp_start(sp, t) : -FUL_EINVAL;
}

long root_sysprog_run(const char *name)
{
	const struct sysprog *sp = sp_find(name);
	long err = sp ? sp_run(sp) : -FUL_EINVAL;
	if (err)
		printf("rootserver: system program %s: error %ld\n", name, err);
	return err;
}
