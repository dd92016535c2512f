/*
 * The CPU-bound workloads of paper 001's tables (issue 12, item 6), each
 * a program of its own (user/workloads/<name>/: a stand-in for one
 * Phoronix program) built on one main (wl_prog.c): it sets its inputs
 * up, starts its threads where the balancer places them (FUL_CPU_PLACE,
 * at its nice value), waits for them and checks what they computed.
 * ubench=alb (user/bench/ub_alb.c) starts them as processes, alone or in
 * the pairs of 001's Table III, under each policy.
 *
 * setup(scale) builds the inputs once (scale in percent of the default
 * work) and whatever reference the workload checks itself against;
 * work(slot) is one thread's fixed share: it returns a checksum of what
 * it computed, equal for every thread and every run, or 0 when its own
 * check failed (a round trip, a known answer, a second algorithm).
 * slot is 0..WL_MAX_THREADS-1: the thread's private buffers.
 */
#ifndef WORKLOADS_WL_H
#define WORKLOADS_WL_H

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

/** The program's main (wl_prog.c) for workload @w: its exit status, 0
 *  when every thread computed the workload's checksum, 1 when one did
 *  not, 2 on a usage error. */
int wl_prog_main(const struct wl_def *w, int argc, char **argv);

#endif
