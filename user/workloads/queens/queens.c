/*
 * Workload "queens": count the solutions of the n-queens problem by
 * backtracking over bit masks (Phoronix's n-queens, which 001 names as a
 * multiple-workload program). Pure integer work and branches, no memory
 * traffic. Checked against the known counts (OEIS A000170).
 */
#include "../wl.h"

#define QN	 10 /* 724 solutions */
#define Q_UNITS	 300 /* boards per thread at scale 100 */

static const unsigned q_known[] = {1, 0, 0, 2, 10, 4, 40, 92, 352, 724,
				   2680, 14200};
static unsigned q_reps;

static unsigned long q_count(unsigned all, unsigned cols, unsigned d1,
			     unsigned d2)
{
	if (cols == all)
		return 1;
	unsigned long n = 0;
	unsigned free = all & ~(cols | d1 | d2);
	while (free) {
		unsigned bit = free & -free;
		free ^= bit;
		n += q_count(all, cols | bit, (d1 | bit) << 1,
			     (d2 | bit) >> 1);
	}
	return n;
}

static void q_setup(unsigned scale)
{
	q_reps = wl_scaled(Q_UNITS, scale);
}

static uint64_t q_work(unsigned slot)
{
	(void)slot;
	uint64_t sum = WL_FNV_SEED;
	for (unsigned r = 0; r < q_reps; r++) {
		__asm__ volatile("" ::: "memory");
		unsigned long n = q_count((1u << QN) - 1, 0, 0, 0);
		if (n != q_known[QN - 1])
			return 0;
		sum = wl_mix(sum, n);
	}
	return sum;
}

const struct wl_def wl_queens = {"queens", "n-queens", q_setup, q_work};
