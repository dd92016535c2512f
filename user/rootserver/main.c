/*
 * The rootserver: the first user task. It holds every capability the
 * kernel hands out at boot (<fulcrum/bootinfo.h>) and decides what runs
 * where. Modes, from the boot arguments:
 *   utest=<filter>  start the test program (tests/user/tests), then power off
 *   ubench=<which>  start the benchmark program (user/bench), then power off
 *   fuzz=<seed>     start the fuzzer (tests/user/fuzz), then power off
 *   (otherwise)     the demo: hello on every core, then the balancer
 *                   demo; with "demo", power off after it; else start
 *                   the shell (user/shell) and serve its requests
 *                   (with "kdebug" the kernel's debug monitor instead)
 *   disk            first start D, the disk driver server
 *                   (storage/srv_disk.c); the test program is its client
 *   cache=N         with disk: also B, the block cache server of N
 *                   blocks (storage/srv_cache.c), over D; the test
 *                   program is its client too
 *   fs              with disk,cache=N: also F, the file server
 *                   (storage/srv_fs.c), which mounts the disk's ext2
 *                   through B; the test program is then F's client
 *                   instead of B's
 *   form=N          D, B and F on the cores of paper 002's distribution
 *                   form N (Table I, 1..15; storage/srv_form.c); d_cpu=,
 *                   b_cpu=, f_cpu= name a core for one of them
 *   lb_policy=<p>   after the demo, run the system's balancer with policy
 *                   p: mginkgo (the default), fulcrum, alb, count or
 *                   opzone (root_balancer_start)
 * It stays alive afterwards as the place where the balancer will run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/ful.h>

#include "../balancer/balancer.h"
#include "args.h"
#include "root.h"
#include "storage/srv.h"

bool root_bootarg(const char *key, char *out, size_t n)
{
	return args_find(ful_bootinfo()->bootargs, key, out, n);
}

void root_power_off(void)
{
	root_storage_sync();
	ful_shutdown(FUL_SLOT_SCHED);
}

/** Wait on an endpoint nobody else holds: forever. */
static _Noreturn void idle(void)
{
	long ep = ful_slot_alloc();
	if (ep > 0 && ful_ep_create(FUL_SLOT_POOL, (unsigned)ep) < 0)
		ep = -1;
	for (;;) {
		struct ful_msg m;
		if (ep < 0 || ful_recv((unsigned)ep, &m, FUL_FOREVER) < 0)
			ful_yield();
	}
}

int main(void)
{
	const struct ful_bootinfo *bi = ful_bootinfo();
	char v[64];
	if (bi->magic != FUL_BOOTINFO_MAGIC) {
		printf("rootserver: bad bootinfo\n");
		return 1;
	}
	ful_slot_init(bi->first_free_slot);
	/* The service endpoint, and the system's balancer (the demo and
	 * holders of the balancer capability use it; <fulcrum/balctl.h>). */
	if (root_serve_init() || bal_init("mginkgo"))
		printf("rootserver: no service endpoint or balancer\n");
	if (root_bootarg("disk", v, sizeof(v))) {
		char c[16];
		unsigned long cache = root_bootarg("cache", c, sizeof(c))
					      ? strtoul(c, NULL, 0)
					      : 0;
		if (!root_disk_start(cache) && cache &&
		    !root_cache_start(cache) && root_bootarg("fs", c, sizeof(c)))
			root_fs_start();
	}
	if (root_bootarg("utest", v, sizeof(v))) {
		root_sysprog_run("tests");
		root_power_off();
	}
	if (root_bootarg("ubench", v, sizeof(v))) {
		root_sysprog_run("bench");
		root_power_off();
	}
	if (root_bootarg("fuzz", v, sizeof(v))) {
		root_sysprog_run("fuzz");
		root_power_off();
	}
	root_demo();
	bool chosen = root_bootarg("lb_policy", v, sizeof(v));
	if (chosen) /* started here, with that policy */
		root_balancer_start(v);
	if (root_bootarg("demo", v, sizeof(v)))
		root_power_off();
	/* From now on the balancer thread runs rounds on the timer. */
	if (!chosen && bal_start())
		printf("rootserver: the balancer thread did not start\n");
	if (!root_bootarg("kdebug", v, sizeof(v)))
		root_shell_serve(); /* returns only if the shell cannot start */
	idle();
}
