/*
 * ubench=disk (boot arguments `ubench=disk,disk`, a disk attached):
 * disk_read_4k, one 4 KiB block read through D, the disk driver server
 * (<fulcrum/disk.h>): from this client's CALL to its reply, the block
 * in the client's window. D's server thread queues the chain and
 * notifies the device, the device's interrupt wakes D's interrupt
 * thread, which answers. All on core 0. Under -icount shift=0 the
 * instructions are nanoseconds of virtual time; the device's own time
 * (QEMU's block layer, a host thread) adds instructions only if a core
 * executes meanwhile (the idle loop's, here).
 *
 * ubench=cache (boot arguments `ubench=cache,disk,cache=N`):
 * cache_read_4k, one 4 KiB read
 * of a cached block through B, the block cache server: the CALL, B's
 * lookup and LRU update, its copy from the line to the client's window,
 * the reply. B and this client on core 0; D is not involved.
 */
#include <stdio.h>

#include <fulcrum/cache.h>
#include <fulcrum/disk.h>
#include <ful/ful.h>

#include "tests/user/tests/utest.h"

#define DK_RUNS 20
#define DK_WARMUP 2
#define DK_WIN_VA 0x50000000UL

#define CA_WIN_VA 0x58000000UL

/** cache_read_4k, if B runs: 1 result or 0. */
static unsigned ub_cache_read(void)
{
	static unsigned long samples[DK_RUNS];
	if ((ful_cap_info(FUL_SYSPROG_SLOT_CACHE) & 0xff) != FUL_CAP_ENDPOINT ||
	    ful_map(FUL_SLOT_SELF_VS, FUL_SYSPROG_SLOT_CACHE_WIN, CA_WIN_VA,
		    FUL_R_READ | FUL_R_WRITE) < 0)
		return 0;
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -DK_WARMUP; i < DK_RUNS; i++) { /* the first: a miss */
		struct ful_msg m = {.info = FUL_MSG(FUL_CACHE_OP_READ, 0),
				    .mr = {7, 1, 0}};
		unsigned long t0 = ful_cycles();
		long err = ful_call(FUL_SYSPROG_SLOT_CACHE, &m, FUL_FOREVER);
		unsigned long t1 = ful_cycles();
		if (err < 0 || m.mr[0]) {
			printf("ubench: cache: read failed: %ld %ld\n", err,
			       (long)m.mr[0]);
			return 0;
		}
		if (i >= 0)
			samples[i] = t1 - t0 - ovh;
	}
	ful_bench_print("cache_read_4k", "instructions", samples, DK_RUNS);
	return 1;
}

unsigned ub_disk_run(void)
{
	static unsigned long samples[DK_RUNS];
	if ((ful_cap_info(FUL_SYSPROG_SLOT_DISK) & 0xff) != FUL_CAP_ENDPOINT ||
	    ful_map(FUL_SLOT_SELF_VS, FUL_SYSPROG_SLOT_DISK_WIN, DK_WIN_VA,
		    FUL_R_READ | FUL_R_WRITE) < 0) {
		printf("ubench: disk: no disk server (boot argument disk, a "
		       "disk attached)\n");
		return 0;
	}
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -DK_WARMUP; i < DK_RUNS; i++) {
		struct ful_msg m = {.info = FUL_MSG(FUL_DISK_OP_READ, 0),
				    .mr = {(unsigned long)(i + DK_WARMUP) % 64, 1,
					   0}};
		unsigned long t0 = ful_cycles();
		long err = ful_call(FUL_SYSPROG_SLOT_DISK, &m, FUL_FOREVER);
		unsigned long t1 = ful_cycles();
		if (err < 0 || m.mr[0]) {
			printf("ubench: disk: read failed: %ld %ld\n", err,
			       (long)m.mr[0]);
			return 0;
		}
		if (i >= 0)
			samples[i] = t1 - t0 - ovh;
	}
	ful_bench_print("disk_read_4k", "instructions", samples, DK_RUNS);
	return 1;
}

unsigned ub_cache_run(void)
{
	unsigned n = ub_cache_read();
	if (!n)
		printf("ubench: cache: no cache server (boot arguments "
		       "disk,cache=N, a disk attached)\n");
	return n;
}
