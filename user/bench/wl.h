/*
 * The CPU-bound workloads of paper 001's tables (issue 12, item 6), each
 * in its own source file with its own entry (wl_<name>.c): a stand-in for
 * one Phoronix program. ub_alb.c runs them as threads of the benchmark
 * program, placed and rebalanced by the policy under test.
 *
 * setup(scale) builds the inputs once (scale in percent of the default
 * work) and whatever reference the workload checks itself against;
 * work(slot) is one thread's fixed share: it returns a checksum of what
 * it computed, equal for every thread and every run, or 0 when its own
 * check failed (a round trip, a known answer, a second algorithm).
 * slot is 0..WL_MAX_THREADS-1: the thread's private buffers.
 */
#ifndef BENCH_WL_H
#define BENCH_WL_H

#include <stdbool.h>
#include <stdint.h>

#define WL_MAX_THREADS 8
#define WL_FNV_SEED    0xcbf29ce484222325UL
#define WL_FNV_PRIME   0x100000001b3UL

struct wl_def {
	const char *name;
	const char *paper; /* the Phoronix program it stands in for */
	void (*setup)(unsigned scale);
	uint64_t (*work)(unsigned slot);
};

static inline uint64_t wl_mix(uint64_t sum, uint64_t v)
{
	return (sum ^ v) * WL_FNV_PRIME;
}

static inline uint64_t wl_fnv(const void *p, unsigned long n)
{
	const uint8_t *b = p;
	uint64_t sum = WL_FNV_SEED;
	for (unsigned long i = 0; i < n; i++)
		sum = wl_mix(sum, b[i]);
	return sum;
}

/** Work units scaled by @scale percent, at least 1. */
static inline unsigned wl_scaled(unsigned units, unsigned scale)
{
	unsigned long n = (unsigned long)units * scale / 100;
	return n ? (unsigned)n : 1;
}

extern const struct wl_def wl_lz77, wl_crc, wl_queens, wl_matmul, wl_memcpy;

#endif
