/*
 * frame_create_kill_no_leak: FRAME_CREATE zeroes a large frame with a
 * preemption point every 64 pages, so a kill can reach its thread in
 * the middle of the call. The half-made frame must then be freed: the
 * number of 16 MiB frames the pool can hold is the same before and
 * after eight threads were killed while creating them.
 */
#include <stdatomic.h>

#include "utest.h"

#define FK_KILLS 8
#define FK_MAX_FRAMES 32

static _Atomic unsigned long fk_made;
static long fk_slot;

/** Create and delete the largest frame without end. */
static void fk_creator(void *arg)
{
	(void)arg;
	for (;;) {
		if (ful_frame_create(FUL_SLOT_POOL, (unsigned)fk_slot,
				     FUL_FRAME_MAX_PAGES) < 0)
			return;
		ful_cap_delete((unsigned)fk_slot);
		atomic_fetch_add(&fk_made, 1);
	}
}

/** How many frames of the most pages the pool gives right now. */
static unsigned fk_capacity(void)
{
	long slot[FK_MAX_FRAMES];
	unsigned n = 0;
	while (n < FK_MAX_FRAMES && (slot[n] = ful_slot_alloc()) >= 0) {
		if (ful_frame_create(FUL_SLOT_POOL, (unsigned)slot[n],
				     FUL_FRAME_MAX_PAGES) < 0) {
			ful_slot_free((unsigned)slot[n]);
			break;
		}
		n++;
	}
	for (unsigned i = 0; i < n; i++)
		ful_slot_drop((unsigned)slot[i]);
	return n;
}

UTEST(frame_create_kill_no_leak, 2)
{
	unsigned before = fk_capacity();
	UT_CHECK(before > 0);
	for (unsigned k = 0; k < FK_KILLS; k++) {
		struct ful_thread th;
		fk_slot = ful_slot_alloc();
		UT_CHECK(fk_slot > 0);
		atomic_store(&fk_made, 0);
		struct ful_thread_args a = {.fn = fk_creator, .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS, .prio = 100,
					    .cpu = 1, .name = "fk"};
		UT_CHECK_EQ(ful_thread_spawn(&a, &th), 0);
		/* Past its first frame, it spends nearly all its time inside
		 * the next FRAME_CREATE: kill it there. */
		UT_WAIT(atomic_load(&fk_made) > 0);
		UT_CHECK_EQ(ful_thread_kill(th.slot), 0);
		UT_WAIT(ful_thread_dead(th.slot));
		ful_thread_reap(&th, UT_TIMEOUT_US);
		ful_slot_drop((unsigned)fk_slot);
	}
	UT_CHECK_EQ(fk_capacity(), before);
}
