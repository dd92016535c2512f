/*
 * Console input (FUL_SYS_CONS_BIND / CONS_READ), the states the
 * bad-input table cannot reach (badinput's console capability has no
 * ADMIN, so it never binds):
 *   cons_bind  bits 0 (EINVAL); one binding at a time (ESTATE for a
 *              second notification, for its reads and for a copy
 *              without ADMIN); a read by the bound one returns what is
 *              buffered (nothing: the harness types nothing in utest
 *              runs), never blocks; the binding ends when the bound
 *              notification loses its last capability, and the kernel
 *              lets go of it (the pool is credited).
 */
#include "utest.h"

/** Bytes charged to the pool now. */
static unsigned long cons_used(void)
{
	struct ful_pool_info pi = {0, 0};
	ful_pool_info(FUL_SLOT_POOL, &pi);
	return pi.used;
}

UTEST(cons_bind, 1)
{
	char buf[16];
	unsigned long used0 = cons_used();
	long a = ut_ntfn_new(), b = ut_ntfn_new(), ro = ful_slot_alloc();
	UT_CHECK(a > 0 && b > 0 && ro > 0);
	UT_CHECK_EQ(ful_cap_copy(FUL_SLOT_CONSOLE, FUL_SLOT_SELF_VS,
				 (unsigned)ro, FUL_R_READ, 0), 0);
	UT_CHECK_EQ(ful_cons_bind(FUL_SLOT_CONSOLE, (unsigned)a, 0), -FUL_EINVAL);
	UT_CHECK_EQ(ful_cons_bind((unsigned)ro, (unsigned)a, 1), -FUL_ERIGHTS);
	/* Nothing bound yet (or an earlier binding is dead): a is free. */
	UT_CHECK_EQ(ful_cons_read(FUL_SLOT_CONSOLE, (unsigned)a, buf, 16),
		    -FUL_ESTATE);
	UT_CHECK_EQ(ful_cons_bind(FUL_SLOT_CONSOLE, (unsigned)a, 1), 0);
	UT_CHECK_EQ(ful_cons_bind(FUL_SLOT_CONSOLE, (unsigned)a, 3), 0);
	UT_CHECK_EQ(ful_cons_bind(FUL_SLOT_CONSOLE, (unsigned)b, 1),
		    -FUL_ESTATE);
	UT_CHECK_EQ(ful_cons_read(FUL_SLOT_CONSOLE, (unsigned)b, buf, 16),
		    -FUL_ESTATE);
	UT_CHECK_EQ(ful_cons_read(FUL_SLOT_CONSOLE, (unsigned)a, buf, 0),
		    -FUL_ERANGE);
	UT_CHECK_EQ(ful_cons_read(FUL_SLOT_CONSOLE, (unsigned)a, buf,
				  FUL_CONS_READ_MAX + 1), -FUL_ERANGE);
	UT_CHECK_EQ(ful_cons_read((unsigned)ro, (unsigned)a, buf, 16), 0);
	UT_CHECK_EQ(ful_cons_read(FUL_SLOT_CONSOLE, (unsigned)a, buf, 16), 0);
	/* a's last capability goes: b may bind, a's reads end. */
	ful_slot_drop((unsigned)a);
	UT_CHECK_EQ(ful_cons_bind(FUL_SLOT_CONSOLE, (unsigned)b, 1), 0);
	UT_CHECK_EQ(ful_cons_read(FUL_SLOT_CONSOLE, (unsigned)b, buf, 16), 0);
	ful_slot_drop((unsigned)b);
	ful_slot_drop((unsigned)ro);
	/* The kernel let go of the last binding with b's last capability:
	 * both notifications are freed and credited. */
	UT_WAIT(cons_used() == used0);
}
