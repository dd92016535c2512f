/*
 * Page windows (FUL_SYS_PWIN_CREATE / PWIN_SET, a window mapped with
 * MAP): a slot change shows at once where the window is mapped; slots
 * filled before a MAP are mapped by it; one task maps a window at a
 * time, and a task that goes away lets go of it; the window keeps the
 * frames of its slots alive, and everything is given back to the pool
 * at the end.
 */
#include "utest.h"

#define PW_FRAME_VA 0x31000000UL
#define PW_WIN_VA 0x31100000UL
#define PW_WIN_VA2 0x31200000UL

static volatile unsigned long *pw_word(unsigned long va, unsigned page)
{
	return (volatile unsigned long *)(va + page * FUL_PAGE_SIZE);
}

static unsigned long pw_used(void)
{
	struct ful_pool_info pi;
	return ful_pool_info(FUL_SLOT_POOL, &pi) == 0 ? pi.used : 0;
}

/** One round of the checks; the table pages of this task's own
 *  mappings stay charged after the first, so rounds compare the pool. */
static void pw_round(struct ut *ut)
{
	long fr = ful_slot_alloc(), w = ful_slot_alloc(), vs = ful_slot_alloc();
	UT_CHECK(fr > 0 && w > 0 && vs > 0);
	UT_CHECK_EQ(ful_frame_create(FUL_SLOT_POOL, (unsigned)fr, 4), 0);
	UT_CHECK_EQ(ful_map(FUL_SLOT_SELF_VS, (unsigned)fr, PW_FRAME_VA,
			    FUL_R_READ | FUL_R_WRITE), 0);
	for (unsigned p = 0; p < 4; p++)
		*pw_word(PW_FRAME_VA, p) = 0x1000 + p;
	UT_CHECK_EQ(ful_pwin_create(FUL_SLOT_POOL, (unsigned)w, 4), 0);
	UT_CHECK_EQ(ful_map(FUL_SLOT_SELF_VS, (unsigned)w, PW_WIN_VA,
			    FUL_R_READ | FUL_R_WRITE), 0);
	/* a slot filled: the page shows at once, both ways */
	UT_CHECK_EQ(ful_pwin_set((unsigned)w, 1, (unsigned)fr, 2,
				 FUL_R_READ | FUL_R_WRITE), 0);
	UT_CHECK_EQ(*pw_word(PW_WIN_VA, 1), 0x1002);
	*pw_word(PW_WIN_VA, 1) = 0xabc;
	UT_CHECK_EQ(*pw_word(PW_FRAME_VA, 2), 0xabc);
	/* refilled with another page */
	UT_CHECK_EQ(ful_pwin_set((unsigned)w, 1, (unsigned)fr, 3, FUL_R_READ), 0);
	UT_CHECK_EQ(*pw_word(PW_WIN_VA, 1), 0x1003);
	/* one task at a time */
	UT_CHECK_EQ(ful_vspace_create(FUL_SLOT_POOL, (unsigned)vs), 0);
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)w, PW_WIN_VA, FUL_R_READ),
		    -FUL_ESTATE);
	UT_CHECK_EQ(ful_unmap(FUL_SLOT_SELF_VS, PW_WIN_VA), 0);
	/* unmapped: slots still change; a MAP shows the filled ones */
	UT_CHECK_EQ(ful_pwin_set((unsigned)w, 0, (unsigned)fr, 0, FUL_R_READ), 0);
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)w, PW_WIN_VA, FUL_R_READ), 0);
	/* the other task goes away: it lets go of the window */
	ful_cap_delete((unsigned)vs);
	UT_CHECK_EQ(ful_map(FUL_SLOT_SELF_VS, (unsigned)w, PW_WIN_VA2,
			    FUL_R_READ), 0);
	UT_CHECK_EQ(*pw_word(PW_WIN_VA2, 0), 0x1000);
	UT_CHECK_EQ(*pw_word(PW_WIN_VA2, 1), 0x1003);
	/* the window keeps its frame alive without a capability or a
	 * mapping of it */
	UT_CHECK_EQ(ful_unmap(FUL_SLOT_SELF_VS, PW_FRAME_VA), 0);
	ful_cap_delete((unsigned)fr);
	UT_CHECK_EQ(*pw_word(PW_WIN_VA2, 1), 0x1003);
	/* emptied slots; then all of it goes back to the pool */
	UT_CHECK_EQ(ful_pwin_set((unsigned)w, 0, 0, 0, 0), 0);
	UT_CHECK_EQ(ful_unmap(FUL_SLOT_SELF_VS, PW_WIN_VA2), 0);
	ful_cap_delete((unsigned)w);
	ful_slot_free((unsigned)fr);
	ful_slot_free((unsigned)w);
	ful_slot_free((unsigned)vs);
}

UTEST(pwin_slots_and_lifetime, 1)
{
	pw_round(ut);
	if (ut->failed)
		return;
	unsigned long used1 = pw_used();
	pw_round(ut);
	if (ut->failed)
		return;
	UT_CHECK(used1 > 0);
	UT_CHECK_EQ(pw_used(), used1); /* nothing kept by the second round */
}
