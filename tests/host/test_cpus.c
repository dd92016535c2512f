/* Host tests of the sets of cores (<fulcrum/cpus.h>) in the wide form
 * the simulator builds (256 cores, four 64-bit words), against a plain
 * array of flags: every operation on random sets, the iteration the
 * policies use, and the edges of each word. The narrow form (an
 * unsigned int, up to 32 cores) is what every other host test and the
 * rootserver build; its macros are the policies' old expressions. */
#define FUL_LOAD_CPUS 256
#define FUL_LOAD_THREADS 16384
#define FUL_TID_SLOT_MASK 0x3fffu
#define HTEST_MAIN
#include "host_test.h"

#include <stddef.h>

#include <fulcrum/load.h>

#define N FUL_LOAD_CPUS

/* A random set with density @pm permille, and its flags. */
static ful_cpus_t random_set(uint64_t *seed, unsigned pm, bool *flag)
{
	ful_cpus_t m = ful_cpus_none();
	for (unsigned c = 0; c < N; c++) {
		flag[c] = htest_rand(seed) % 1000 < pm;
		if (flag[c])
			m = ful_cpus_or(m, ful_cpus_one(c));
	}
	return m;
}

static bool same(ful_cpus_t m, const bool *flag)
{
	for (unsigned c = 0; c < N; c++)
		if (ful_cpus_has(m, c) != flag[c])
			return false;
	return true;
}

HTEST(first_n_every_n)
{
	for (unsigned n = 0; n <= N; n++) {
		ful_cpus_t m = ful_cpus_first(n);
		CHECK_EQ(ful_cpus_count(m), n);
		for (unsigned c = 0; c < N; c++)
			CHECK_EQ(ful_cpus_has(m, c), c < n);
	}
	CHECK(ful_cpus_eq(ful_cpus_first(N), ful_cpus_all()));
	CHECK(ful_cpus_empty(ful_cpus_first(0)));
	CHECK(!ful_cpus_has(ful_cpus_all(), N)); /* out of range: no core */
}

HTEST(operations_match_flags)
{
	uint64_t seed = 12345;
	static const unsigned dens[] = {0, 5, 100, 500, 990, 1000};
	for (unsigned round = 0; round < 600; round++) {
		bool fa[N], fb[N], want[N];
		ful_cpus_t a = random_set(&seed, dens[round % 6], fa);
		ful_cpus_t b = random_set(&seed, dens[(round / 6) % 6], fb);
		unsigned na = 0;
		for (unsigned c = 0; c < N; c++)
			na += fa[c];
		CHECK(same(a, fa));
		CHECK_EQ(ful_cpus_count(a), na);
		CHECK_EQ(ful_cpus_empty(a), na == 0);
		CHECK_EQ(ful_cpus_several(a), na >= 2);
		for (unsigned c = 0; c < N; c++)
			want[c] = fa[c] && fb[c];
		CHECK(same(ful_cpus_and(a, b), want));
		for (unsigned c = 0; c < N; c++)
			want[c] = fa[c] || fb[c];
		CHECK(same(ful_cpus_or(a, b), want));
		for (unsigned c = 0; c < N; c++)
			want[c] = fa[c] && !fb[c];
		CHECK(same(ful_cpus_andnot(a, b), want));
		CHECK(ful_cpus_eq(a, a));
		CHECK_EQ(ful_cpus_eq(a, b), same(b, fa));
		if (htest_ctx_->failed)
			return;
	}
}

HTEST(iteration_visits_each_core_in_order)
{
	uint64_t seed = 777;
	for (unsigned round = 0; round < 200; round++) {
		bool f[N];
		ful_cpus_t m = random_set(&seed, round % 2 ? 30 : 600, f);
		if (round == 0) { /* the last core of every word */
			m = ful_cpus_none();
			memset(f, 0, sizeof(f));
			for (unsigned c = 63; c < N; c += 64)
				m = ful_cpus_or(m, ful_cpus_one(c)), f[c] = true;
		}
		unsigned c = 0, seen = 0, next = 0;
		for (ful_cpus_t it = m; !ful_cpus_empty(it);
		     c++, it = ful_cpus_shr1(it)) {
			if (!ful_cpus_low(it))
				continue;
			while (next < N && !f[next])
				next++;
			CHECK_EQ(c, next); /* the next core of the set, in order */
			next++;
			seen++;
		}
		CHECK_EQ(seen, ful_cpus_count(m));
		if (htest_ctx_->failed)
			return;
	}
}

HTEST(wide_layout)
{
	/* The record grows with the affinity; the area's pages cover it. */
	CHECK(sizeof(struct ful_load_thread) <= 128);
	CHECK(sizeof(struct ful_load_page) <= FUL_LOAD_PAGES * 4096UL);
	CHECK_EQ(offsetof(struct ful_load_page, thread) % 4096, 0);
}
