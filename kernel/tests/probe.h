/* Test helpers shared by the in-kernel test files: probe threads that
 * report where and how much they run, and small utilities. */
#ifndef KERNEL_TESTS_PROBE_H
#define KERNEL_TESTS_PROBE_H

#include "../ktest.h"
#include "../sched.h"

struct probe {
	tid_t tid;
	_Atomic uint64_t count;    /* loop iterations so far */
	_Atomic uint32_t cpu;      /* core of the latest iteration */
	_Atomic uint32_t first_cpu; /* core of the first iteration, +1 */
	_Atomic uint32_t stop;     /* ask the probe to return */
	_Atomic uint32_t exited;
};

/** Start a busy probe on @cpu at @prio; returns its tid (<0 on error). */
int probe_start(struct probe *p, unsigned cpu, unsigned prio);
/** Ask @p to stop and wait until it has (or kill it). */
void probe_finish(struct probe *p);
/** Round trip a no-op CALL_FUNC through @cpu @n times. */
int probe_ping(unsigned cpu, unsigned n);

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

#endif
