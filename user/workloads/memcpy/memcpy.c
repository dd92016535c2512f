/*
 * Workload "memcpy": a memory-bandwidth copy loop (RAM Speed SMP's
 * copy test): each thread copies a 64 KiB source into its own buffer in
 * 4 KiB chunks, starting at a different chunk each pass, and at the end
 * checks its copy against the source's checksum computed once.
 */
#include <string.h>

#include "../wl.h"

#define MC_BUF	 (64 * 1024)
#define MC_CHUNK 4096
/* passes per thread at scale 100: about as long as the other workloads'
 * runs (1.4-1.6 s under multi-threaded TCG); 300 passes took 53 ms, too
 * short for a balancer with 100 ms rounds to act in, and for a 2 %
 * comparison of two policies on a shared host */
#define MC_UNITS 8000

static uint8_t mc_src[MC_BUF];
static uint8_t mc_dst[WL_MAX_THREADS][MC_BUF];
static uint64_t mc_ref;
static unsigned mc_reps;

static void mc_setup(unsigned scale)
{
	uint32_t x = 88172645u;
	for (unsigned i = 0; i < MC_BUF; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		mc_src[i] = (uint8_t)x;
	}
	mc_ref = wl_fnv(mc_src, MC_BUF);
	mc_reps = wl_scaled(MC_UNITS, scale);
}

static uint64_t mc_work(unsigned slot)
{
	uint8_t *dst = mc_dst[slot];
	const unsigned chunks = MC_BUF / MC_CHUNK;
	memset(dst, 0, MC_BUF);
	for (unsigned r = 0; r < mc_reps; r++)
		for (unsigned k = 0; k < chunks; k++) {
			unsigned off = (r + k) % chunks * MC_CHUNK;
			memcpy(dst + off, mc_src + off, MC_CHUNK);
			__asm__ volatile("" ::: "memory");
		}
	uint64_t sum = wl_fnv(dst, MC_BUF);
	return sum == mc_ref ? sum : 0;
}

const struct wl_def wl_memcpy = {"memcpy", "RAM Speed SMP", mc_setup,
				 mc_work};
