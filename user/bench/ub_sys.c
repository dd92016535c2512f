/*
 * ubench=sys: the figures seL4 publishes beside its IPC (issue 18), so
 * that the two kernels can be compared row by row on the same QEMU:
 *
 *   null_syscall      the cheapest round trip from EL0: a system call
 *                     number the kernel does not have (-FUL_ENOSYS:
 *                     entry, dispatch, exit, nothing else)
 *   signal_high_prio  a notification signal that wakes a higher-priority
 *                     thread on the same core, one way: the woken
 *                     thread's counter after its wait returns minus the
 *                     signaller's before its svc, minus the counter
 *                     overhead (sel4bench's definition)
 *   map_16_pages      MAP of a 16-page frame (Fulcrum maps a frame
 *   map_1024_pages    object with one call; seL4 maps page by page)
 *
 * Instructions under -icount shift=0; other cores sit in wfi.
 */
#include <stdatomic.h>
#include <stdio.h>

#include <ful/ful.h>

#include "tests/user/tests/utest.h"

#define SY_RUNS 50
#define SY_WARMUP 5
#define SY_MAP_VA 0x5000000000UL /* free in this program's space */

static struct {
	long ntfn;
	volatile unsigned long t0;
	unsigned long ovh;
	unsigned long sample[SY_RUNS];
	_Atomic long err;
} sg;

/** null_syscall; 1 if printed. */
static unsigned sy_null(void)
{
	static unsigned long s[SY_RUNS];
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -SY_WARMUP; i < SY_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		struct ful_ret r = ful_syscall(FUL_SYS_COUNT, 0, 0, 0, 0, 0, 0, 0);
		unsigned long t1 = ful_cycles();
		if ((long)r.x0 != -FUL_ENOSYS) {
			printf("ubench: null_syscall: %ld\n", (long)r.x0);
			return 0;
		}
		if (i >= 0)
			s[i] = t1 - t0 - ovh;
	}
	ful_bench_print("null_syscall", "instructions", s, SY_RUNS);
	return 1;
}

/** The high-priority side: wait, stamp, again; SY_WARMUP + SY_RUNS
 *  times. It waits without a timeout, as seL4_Wait does (sy_signal
 *  kills it if the signalling side fails). */
static void sg_waiter(void *arg)
{
	(void)arg;
	for (int i = -SY_WARMUP; i < SY_RUNS; i++) {
		long err = ful_ntfn_wait((unsigned)sg.ntfn, NULL, FUL_FOREVER);
		unsigned long t1 = ful_cycles();
		if (err < 0) {
			atomic_store(&sg.err, err);
			return;
		}
		if (i >= 0)
			sg.sample[i] = t1 - sg.t0 - sg.ovh;
	}
}

/** signal_high_prio; 1 if printed. */
static unsigned sy_signal(void)
{
	struct ful_sysinfo si;
	struct ful_thread h = {0};
	ful_sysinfo(&si);
	sg.ntfn = ut_ntfn_new();
	sg.ovh = ful_cycles_overhead();
	atomic_store(&sg.err, 0);
	struct ful_thread_args a = {.fn = sg_waiter, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 200,
				    .cpu = si.cpu, .name = "sg"};
	long err = sg.ntfn < 0 ? sg.ntfn : ful_thread_spawn(&a, &h);
	/* The waiter outranks this thread: it runs as soon as it is
	 * started, and again as soon as it is signalled. */
	for (int i = -SY_WARMUP; !err && i < SY_RUNS; i++) {
		if ((err = atomic_load(&sg.err)))
			break;
		sg.t0 = ful_cycles();
		err = ful_ntfn_signal((unsigned)sg.ntfn, 1);
	}
	if (!err)
		err = atomic_load(&sg.err);
	if (err && h.tid > 0)
		ful_thread_kill(h.slot); /* it may wait for a signal forever */
	ful_thread_reap(&h, UT_TIMEOUT_US);
	if (sg.ntfn >= 0)
		ful_slot_drop((unsigned)sg.ntfn);
	if (err) {
		printf("ubench: signal_high_prio: error %ld\n", err);
		return 0;
	}
	ful_bench_print("signal_high_prio", "instructions", sg.sample, SY_RUNS);
	return 1;
}

/** MAP of a frame of @npages (UNMAP outside the window); 1 if printed. */
static unsigned sy_map(unsigned npages, const char *name)
{
	static unsigned long s[SY_RUNS];
	long slot = ful_slot_alloc();
	if (slot < 0)
		return 0;
	unsigned long ovh = ful_cycles_overhead();
	long err = ful_frame_create(FUL_SLOT_POOL, (unsigned)slot, npages);
	for (int i = -SY_WARMUP; err >= 0 && i < SY_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		err = ful_map(FUL_SLOT_SELF_VS, (unsigned)slot, SY_MAP_VA,
			      FUL_R_READ | FUL_R_WRITE);
		unsigned long t1 = ful_cycles();
		if (err >= 0)
			err = ful_unmap(FUL_SLOT_SELF_VS, SY_MAP_VA);
		if (i >= 0)
			s[i] = t1 - t0 - ovh;
	}
	ful_slot_drop((unsigned)slot);
	if (err < 0) {
		printf("ubench: %s: error %ld\n", name, err);
		return 0;
	}
	ful_bench_print(name, "instructions", s, SY_RUNS);
	return 1;
}

/** Every ubench=sys figure; the number of BENCH lines. */
unsigned ub_sys_run(void)
{
	return sy_null() + sy_signal() + sy_map(16, "map_16_pages") +
	       sy_map(1024, "map_1024_pages");
}
