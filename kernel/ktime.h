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
 * and its handler re-arms for what is left (sched_timeout_arm). A
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

/* ---- conversions: exact, or saturated at UINT64_MAX ----
 * The obvious ticks * 1000000 / freq overflows once ticks pass 2^64 /
 * 10^6, after 82 hours at 62.5 MHz. Each conversion below splits its
 * input into whole seconds and a remainder, so no intermediate value
 * exceeds the result or freq * 10^6 (< 2^64 for freq < 1.8e13 Hz). */

/** @ticks of a @freq Hz counter in microseconds, rounded down. */
static inline uint64_t ktime_ticks_to_us(uint64_t ticks, uint64_t freq)
{
	return ticks / freq * 1000000 + ticks % freq * 1000000 / freq;
}

/** @n units of 1/@per second (1000: ms, 1000000: us) in ticks of a @freq
 *  Hz counter, rounded down, or up with @up; UINT64_MAX if the result
 *  does not fit. */
static inline uint64_t ktime_to_ticks(uint64_t n, uint64_t per,
				      uint64_t freq, int up)
{
	/* Both below 2^32 (a counter frequency always is): n * freq +
	 * per - 1 < 2^64, the direct formula is exact. */
	if (!((n | freq) >> 32))
		return (n * freq + (up ? per - 1 : 0)) / per;
	uint64_t whole = n / per, part = n % per * freq;
	if (whole > UINT64_MAX / freq)
		return UINT64_MAX;
	whole *= freq;
	part = part / per + (up && part % per);
	return part > UINT64_MAX - whole ? UINT64_MAX : whole + part;
}

/** @now + @delta, saturated: a deadline too far to represent is never
 *  reached, instead of wrapping into the past. */
static inline uint64_t ktime_deadline(uint64_t now, uint64_t delta)
{
	return delta > UINT64_MAX - now ? UINT64_MAX : now + delta;
}

#endif
