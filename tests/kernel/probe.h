/* Test helpers shared by the in-kernel test files: probe threads that
 * report where and how much they run, and small utilities. */
#ifndef KERNEL_TESTS_PROBE_H
#define KERNEL_TESTS_PROBE_H

#include "ktest.h"
#include "sched.h"
#include <fulcrum/load.h>

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
/** @t's load record (tid, cpu, state, affinity), read as a user-level
 *  reader does: the sequence even and unchanged across the copy. */
struct ful_load_thread probe_read_lthread(struct thread *t);
/** Round trip a no-op CALL_FUNC through @cpu @n times. */
int probe_ping(unsigned cpu, unsigned n);

/* Spin (IRQ context allowed) until @cond or @ms pass; false on timeout. */
#define SPIN_UNTIL(cond, ms)                                             \
	({                                                               \
		uint64_t dl_ = arch_counter() + ms_to_ticks(ms);         \
		while (!(cond) && arch_counter() < dl_)                  \
			arch_cpu_relax();                                \
		(bool)(cond);                                            \
	})

/* How long a race hook waits for the other cores' part, at most. */
#define HOOK_MS 10000

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

#endif
