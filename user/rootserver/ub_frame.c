/*
 * ubench=frame: the instructions of one FUL_SYS_FRAME_CREATE of 1, 64
 * and FUL_FRAME_MAX_PAGES pages, zeroing included. System calls run
 * with IRQs masked, so the largest is the kernel's longest stretch
 * without a preemption point: the worst interrupt latency a user task
 * can cause on its core (docs/design.md, "Known limits"). Each window
 * runs from before the call to after its return; a timer interrupt that
 * fell due during the call is taken right after it, inside the window,
 * the same in every boot under -icount. Other cores sit in wfi.
 */
#include <stdio.h>

#include <ful/ful.h>

#include "utest.h"

#define FR_RUNS 10
#define FR_WARMUP 1

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
	ful_slot_free((unsigned)slot);
	return n;
}
