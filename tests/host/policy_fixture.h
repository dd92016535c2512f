/*
 * The policy host tests' fixture (test_policy.c, test_policy_log.c,
 * test_policy_alb.c): one fake load area, snapshot, policy and decision
 * per test binary, and the calls the tests make through them. Header
 * only: each binary gets its own copy.
 */
#ifndef TESTS_HOST_POLICY_FIXTURE_H
#define TESTS_HOST_POLICY_FIXTURE_H

#include "lb.h"
#include "lb_fake.h"

#define ROOT 0

static struct ful_load_page area;
static struct lb_snap snap;
static struct lb_policy pol;
static struct lb_decision dec;
static struct ful_move mv[LB_MAX_MOVES];

/** A fresh area of @ncpus cores, the rootserver on core 0, @policy. */
static inline void setup(unsigned ncpus, const char *policy)
{
	lb_fake_init(&area, ncpus);
	lb_snap_init(&snap, &area, ROOT);
	lb_policy_init(&pol, policy);
	memset(&dec, 0, sizeof(dec));
	memset(mv, 0, sizeof(mv));
}

static inline unsigned place(unsigned slice)
{
	struct lb_new_thread t = {.slice_ms = slice};
	return lb_place(&pol, &snap, 0, &t, &dec);
}

static inline unsigned rebalance(void)
{
	return lb_rebalance(&pol, &snap, 0, LB_TRIG_TIMER, mv, LB_MAX_MOVES,
			    &dec);
}

static inline unsigned long load_of(unsigned c)
{
	return area.cpu[c].load;
}

/** Put @n threads of @slice ms on core @cpu, tids from *@tid up. */
static inline void fill(unsigned cpu, unsigned n, unsigned slice,
			unsigned *tid)
{
	for (unsigned i = 0; i < n; i++)
		lb_fake_add(&area, (*tid)++, cpu, slice, FUL_TS_READY);
}

#endif
