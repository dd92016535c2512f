/*
 * Workload "matmul": C = AB of 48 x 48 integer matrices, row by row
 * (i-k-j), again and again (a compute-bound kernel with a working set in
 * the cache; stands in for the timed compilation's CPU-bound character
 * in 001's set 1). Each product is checked against the textbook i-j-k
 * product computed once.
 */
#include "../wl.h"

#define MT_N	 48
#define MT_UNITS 1000 /* products per thread at scale 100 */

static int32_t mt_a[MT_N * MT_N], mt_b[MT_N * MT_N];
static int32_t mt_c[WL_MAX_THREADS][MT_N * MT_N];
static uint64_t mt_ref;
static unsigned mt_reps;

static void mt_setup(unsigned scale)
{
	uint32_t x = 777;
	for (unsigned i = 0; i < MT_N * MT_N; i++) {
		x = x * 1103515245u + 12345u;
		mt_a[i] = (int32_t)((x >> 16) & 31) - 16;
		x = x * 1103515245u + 12345u;
		mt_b[i] = (int32_t)((x >> 16) & 31) - 16;
	}
	uint64_t sum = WL_FNV_SEED;
	for (unsigned i = 0; i < MT_N; i++)
		for (unsigned j = 0; j < MT_N; j++) {
			int32_t s = 0;
			for (unsigned k = 0; k < MT_N; k++)
				s += mt_a[i * MT_N + k] * mt_b[k * MT_N + j];
			sum = wl_mix(sum, (uint32_t)s);
		}
	mt_ref = sum;
	mt_reps = wl_scaled(MT_UNITS, scale);
}

static uint64_t mt_product(int32_t *c)
{
	uint64_t sum = WL_FNV_SEED;
	for (unsigned i = 0; i < MT_N; i++) {
		int32_t *row = &c[i * MT_N];
		for (unsigned j = 0; j < MT_N; j++)
			row[j] = 0;
		for (unsigned k = 0; k < MT_N; k++) {
			int32_t aik = mt_a[i * MT_N + k];
			const int32_t *b = &mt_b[k * MT_N];
			for (unsigned j = 0; j < MT_N; j++)
				row[j] += aik * b[j];
		}
		for (unsigned j = 0; j < MT_N; j++)
			sum = wl_mix(sum, (uint32_t)row[j]);
	}
	return sum;
}

static uint64_t mt_work(unsigned slot)
{
	uint64_t sum = WL_FNV_SEED;
	for (unsigned r = 0; r < mt_reps; r++) {
		__asm__ volatile("" ::: "memory");
		uint64_t s = mt_product(mt_c[slot]);
		if (s != mt_ref)
			return 0;
		sum = wl_mix(sum, s);
	}
	return sum;
}

const struct wl_def wl_matmul = {"matmul", "timed compilation", mt_setup,
				 mt_work};
