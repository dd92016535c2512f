/*
 * Time arithmetic on system-counter ticks: pure functions, no hardware
 * access, so the host tests check them at the counter values a board
 * reaches after years of uptime (tests/host/test_ktime.c).
 *
 * The counter is at least 56 bits wide and starts near 0 at boot: at
 * 62.5 MHz it reaches 2^56 after 36 years, at 1 GHz after 2.3. Every
 * function here is exact (or saturates) for any counter value below
 * 2^63, any frequency up to 2^32 Hz and any delta the kernel accepts.
 */
#ifndef KERNEL_KTIME_H
#define KERNEL_KTIME_H

#include <stdint.h>

/**
 * The relative value to program into a down-counting timer whose range
 * is 1..@max ticks (the generic timer's TVAL is signed 32-bit: @max =
 * 2^31 - 1, 34 s at 62.5 MHz), so that it fires at @due, read at @now.
 * A deadline beyond the range is clamped: the timer then fires early,
 * and its handler re-arms for what is left (sched_timer_arm). A
 * deadline already passed gives 1: fire at once.
 * Invariant: the result is in [1, max], and @now + result <= @due
 * whenever @due > @now, so the timer never fires before @due and never
 * wraps into the past.
 */
static inline uint64_t ktime_timer_delta(uint64_t now, uint64_t due,
					 uint64_t max)
{
	if (due <= now)
		return 1;
	uint64_t d = due - now;
	return d > max ? max : d;
}

#endif
