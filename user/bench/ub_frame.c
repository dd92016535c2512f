/*
 * ubench=frame: the instructions of one FUL_SYS_FRAME_CREATE of 1, 64
 * and FUL_FRAME_MAX_PAGES pages, zeroing included. System calls run
 * with IRQs masked, so the largest is the kernel's longest stretch
 * without a preemption point: the worst interrupt latency a user task
 * can cause on its core (docs/objects.md, "Known limits"). Each window
 * runs from before the call to after its return; a timer interrupt that
 * fell due during the call is taken right after it, inside the window,
 * the same in every boot under -icount. Other cores sit in wfi.
 *
 * map_max / unmap_max: MAP and UNMAP of that frame (4,096 page-table
 * entries each, under the vspace lock, with no preemption point): now
 * the longest stretches with IRQs masked.
 *
 * frame_create_wake_delay: what that costs a more urgent thread. On this
 * program's core, L (prio 100) creates and deletes 16 MiB frames
 * without pause while H (prio 200) sleeps 200 us at a time (a
 * notification wait that times out). Each sample is how much longer than
 * 200 us H's sleep took, in instructions, which under -icount shift=0 are
 * nanoseconds of virtual time: the interrupt latency L's system calls
 * add, plus H's own timeout and wake-up path. This program itself waits
 * blocked meanwhile, so nothing else runs.
 */
#include <stdatomic.h>
#include <stdio.h>

#include <ful/ful.h>

#include "tests/user/tests/utest.h"

#define FR_RUNS 10
#define FR_WARMUP 1
#define FR_WAKE_RUNS 20
#define FR_SLEEP_US 200
#define FR_SLEEP_INSNS (FR_SLEEP_US * 1000UL) /* -icount shift=0: 1 ns each */

static struct {
	_Atomic int stop;
	long slot;           /* L's frame slot */
	long sleep, done;    /* notifications: H's sleeps, H -> this program */
	unsigned long delay[FR_WAKE_RUNS];
	_Atomic long err;
} fw;

/** Time FR_RUNS creations of @npages into @slot; BENCH line @name. */
static long fr_time(unsigned slot, unsigned npages, const char *name)
{
	static unsigned long samples[FR_RUNS];
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -FR_WARMUP; i < FR_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		long err = ful_frame_create(FUL_SLOT_POOL, slot, npages);
		unsigned long t1 = ful_cycles();
		if (err < 0)
			return err;
		if (i >= 0)
			samples[i] = t1 - t0 - ovh;
		if ((err = ful_cap_delete(slot)) < 0)
			return err;
	}
	ful_bench_print(name, "instructions", samples, FR_RUNS);
	return 0;
}

/** L: create and delete the largest frame until told to stop. */
static void fw_creator(void *arg)
{
	(void)arg;
	while (!atomic_load(&fw.stop)) {
		long err = ful_frame_create(FUL_SLOT_POOL, (unsigned)fw.slot,
					    FUL_FRAME_MAX_PAGES);
		if (err >= 0)
			err = ful_cap_delete((unsigned)fw.slot);
		if (err < 0) {
			atomic_store(&fw.err, err);
			return;
		}
	}
}

/** H: FR_WAKE_RUNS sleeps of FR_SLEEP_US, each one's overrun. */
static void fw_sleeper(void *arg)
{
	(void)arg;
	for (int i = -FR_WARMUP; i < FR_WAKE_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		long r = ful_ntfn_wait((unsigned)fw.sleep, NULL, FR_SLEEP_US);
		unsigned long t1 = ful_cycles();
		if (r != -FUL_ETIMEOUT) {
			atomic_store(&fw.err, r < 0 ? r : -FUL_ESTATE);
			break;
		}
		if (i >= 0)
			fw.delay[i] = t1 - t0 - FR_SLEEP_INSNS;
	}
	atomic_store(&fw.stop, 1);
	ful_ntfn_signal((unsigned)fw.done, 1);
}

/** Start fn at prio on this program's core. 0 or -FUL_E*. */
static long fw_spawn(void (*fn)(void *), unsigned prio, struct ful_thread *t)
{
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	struct ful_thread_args a = {.fn = fn, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = prio,
				    .cpu = si.cpu, .name = "fw"};
	return ful_thread_spawn(&a, t);
}

/** frame_create_wake_delay; 1 if printed. */
static unsigned fw_run(void)
{
	struct ful_thread l = {0}, h = {0};
	fw.slot = ful_slot_alloc();
	fw.sleep = ut_ntfn_new();
	fw.done = ut_ntfn_new();
	atomic_store(&fw.stop, 0);
	atomic_store(&fw.err, 0);
	long err = fw.slot < 0 ? fw.slot : fw.sleep < 0 ? fw.sleep : fw.done;
	if (err >= 0)
		err = fw_spawn(fw_creator, 100, &l);
	if (err >= 0 && (err = fw_spawn(fw_sleeper, 200, &h)) >= 0)
		err = ful_ntfn_wait((unsigned)fw.done, NULL, FUL_FOREVER);
	atomic_store(&fw.stop, 1);
	ful_thread_reap(&l, UT_TIMEOUT_US);
	ful_thread_reap(&h, UT_TIMEOUT_US);
	if (err >= 0)
		err = atomic_load(&fw.err);
	if (err < 0) {
		printf("ubench: frame_create_wake_delay: error %ld\n", err);
		return 0;
	}
	ful_bench_print("frame_create_wake_delay", "instructions", fw.delay,
			FR_WAKE_RUNS);
	return 1;
}

#define FR_MAP_VA 0x5000000000UL /* free in this program's space */

/** map_max and unmap_max: MAP and UNMAP of the largest frame, 16 MiB of
 *  page-table entries with the vspace lock held. 0 or -FUL_E*. */
static long fr_time_map(unsigned slot)
{
	static unsigned long map[FR_RUNS], unmap[FR_RUNS];
	unsigned long ovh = ful_cycles_overhead();
	long err = ful_frame_create(FUL_SLOT_POOL, slot, FUL_FRAME_MAX_PAGES);
	for (int i = -FR_WARMUP; err >= 0 && i < FR_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		err = ful_map(FUL_SLOT_SELF_VS, slot, FR_MAP_VA,
			      FUL_R_READ | FUL_R_WRITE);
		unsigned long t1 = ful_cycles();
		if (err >= 0)
			err = ful_unmap(FUL_SLOT_SELF_VS, FR_MAP_VA);
		unsigned long t2 = ful_cycles();
		if (i >= 0) {
			map[i] = t1 - t0 - ovh;
			unmap[i] = t2 - t1 - ovh;
		}
	}
	ful_cap_delete(slot);
	if (err < 0)
		return err;
	ful_bench_print("map_max", "instructions", map, FR_RUNS);
	ful_bench_print("unmap_max", "instructions", unmap, FR_RUNS);
	return 0;
}

/** The three sizes; returns the BENCH lines printed. */
unsigned ub_frame_run(void)
{
	static const struct {
		unsigned npages;
		const char *name;
	} sizes[] = {{1, "frame_create_1"},
		     {64, "frame_create_64"},
		     {FUL_FRAME_MAX_PAGES, "frame_create_max"}};
	long slot = ful_slot_alloc();
	if (slot < 0)
		return 0;
	unsigned n = 0;
	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		long err = fr_time((unsigned)slot, sizes[i].npages,
				   sizes[i].name);
		if (err < 0) {
			printf("ubench: %s: error %ld\n", sizes[i].name, err);
			break;
		}
		n++;
	}
	if (n == 3 && fr_time_map((unsigned)slot) == 0)
		n += 2;
	ful_slot_free((unsigned)slot);
	return n == 5 ? n + fw_run() : n;
}
