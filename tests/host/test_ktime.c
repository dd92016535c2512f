/*
 * Host tests of kernel/ktime.h: timer arming and time conversions at the
 * counter values a board reaches after years of uptime.
 */
#define HTEST_MAIN
#include "host_test.h"

#include "arch.h"
#include "ktime.h"

#define TMAX ARCH_TIMER_MAX_TICKS

/*
 * The generic timer as the architecture defines it: writing TVAL sets
 * the compare value to the counter plus TVAL[31:0] sign-extended, and
 * the timer condition holds while counter >= compare (unsigned, 64-bit).
 */
static uint64_t hw_tval_to_cval(uint64_t now, uint64_t tval)
{
	return now + (uint64_t)(int64_t)(int32_t)(uint32_t)tval;
}

/*
 * Wait from @start until @due as sched_timer_arm() and sched_tick() do:
 * arm, take the interrupt @lat ticks after it fires, re-arm for what is
 * left. Returns NULL, or what went wrong. Every arm must lie in the
 * future (no interrupt storm) and no later than @due; the wait ends at
 * @due + @lat with exactly ceil((due - start) / TMAX) arms. Long waits
 * are checked for their first and last @edge arms only.
 */
static const char *wait_until(uint64_t start, uint64_t due, uint64_t lat,
			      uint64_t *arms_out)
{
	const uint64_t edge = 4096;
	uint64_t now = start, arms = 0;
	while (now < due) {
		uint64_t tval = ktime_timer_delta(now, due, TMAX);
		if (tval < 1 || tval > TMAX)
			return "delta outside the timer's range";
		uint64_t cval = hw_tval_to_cval(now, tval);
		if (cval <= now)
			return "compare value not in the future: fires at once";
		if (cval > due)
			return "armed past the deadline";
		arms++;
		now = cval + lat;
		/* Skip the middle of a very long wait: whole steps of TMAX. */
		if (arms == edge && due - now > edge * (TMAX + lat)) {
			uint64_t skip = (due - now) / (TMAX + lat) - edge;
			now += skip * (TMAX + lat);
			arms += skip;
		}
	}
	if (now > due + lat)
		return "woke later than one latency after the deadline";
	*arms_out = arms;
	return NULL;
}

HTEST(timer_delta_bounds)
{
	CHECK_EQ(ktime_timer_delta(100, 100, TMAX), 1);
	CHECK_EQ(ktime_timer_delta(100, 50, TMAX), 1);
	CHECK_EQ(ktime_timer_delta(0, 1, TMAX), 1);
	CHECK_EQ(ktime_timer_delta(0, TMAX, TMAX), TMAX);
	CHECK_EQ(ktime_timer_delta(0, TMAX + 1, TMAX), TMAX);
	CHECK_EQ(ktime_timer_delta(5, ~0ull, TMAX), TMAX);
	CHECK_EQ(ktime_timer_delta(~0ull - 1, ~0ull, TMAX), 1);
}

/* Counters near 2^31, 2^32 and 2^56, deltas around the 32-bit edges and
 * up to 2^56: the 35 s sleep of issue 19 (2.19e9 ticks at 62.5 MHz) is
 * one of them. */
HTEST(timer_arm_long_waits)
{
	static const uint64_t starts[] = {
		0, 1, (1ull << 31) - 3, 1ull << 31, (1ull << 32) - 1,
		1ull << 32, (1ull << 56) - 7, 1ull << 56, (1ull << 62) + 11,
	};
	static const uint64_t deltas[] = {
		0, 1, 2, (1ull << 31) - 2, (1ull << 31) - 1, 1ull << 31,
		(1ull << 31) + 1, 2187500000ull /* 35 s at 62.5 MHz */,
		(1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1,
		3ull << 31, (1ull << 40) * 62 + 12345, (1ull << 56) - 1,
		1ull << 56,
	};
	static const uint64_t lats[] = {0, 1, 17, 62500};
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		for (size_t j = 0; j < sizeof(deltas) / sizeof(deltas[0]); j++) {
			for (size_t k = 0; k < sizeof(lats) / sizeof(lats[0]);
			     k++) {
				uint64_t s = starts[i], d = deltas[j], arms = 0;
				const char *err =
					wait_until(s, s + d, lats[k], &arms);
				if (err)
					HTEST_FAIL_("start %#llx delta %#llx "
						    "latency %llu: %s",
						    (unsigned long long)s,
						    (unsigned long long)d,
						    (unsigned long long)lats[k],
						    err);
				if (!lats[k])
					CHECK_EQ(arms, (d + TMAX - 1) / TMAX);
			}
		}
	}
}

/* Random counters and deltas over the whole range a wait can take. */
HTEST(timer_arm_random)
{
	uint64_t rng = 0x19c0ffee;
	for (int i = 0; i < 20000; i++) {
		uint64_t s = htest_rand(&rng) >> (1 + htest_rand(&rng) % 40);
		uint64_t d = htest_rand(&rng) >> (8 + htest_rand(&rng) % 56);
		uint64_t arms;
		const char *err = wait_until(s, s + d, htest_rand(&rng) % 1000,
					     &arms);
		if (err)
			HTEST_FAIL_("start %#llx delta %#llx: %s",
				    (unsigned long long)s,
				    (unsigned long long)d, err);
	}
}

/* ---- conversions (issue 19, finding 7) ---- */

typedef unsigned __int128 u128;

static const uint64_t freqs[] = {
	62500000, 1000000000, 19200000, 24000000, 54000000, 1, 999983,
	0xffffffffull,
};

/* Ten years of uptime at each frequency, and the counter values near
 * 2^56 (36 years at 62.5 MHz), 2^63 and 2^64 - 1. */
static const uint64_t tick_values[] = {
	0, 1, 999999, 1000000, 0x10c388d00ull /* 82 h at 62.5 MHz */,
	(1ull << 56) - 1, 1ull << 56, (1ull << 56) + 1, 1ull << 63,
	~0ull - 1, ~0ull,
};

#define TEN_YEARS_S (3652ull * 86400)

static uint64_t ref_to_ticks(uint64_t n, uint64_t per, uint64_t f, int up)
{
	u128 x = (u128)n * f;
	u128 q = x / per + (up && x % per);
	return q > ~0ull ? ~0ull : (uint64_t)q;
}

static const char *check_ticks_to_us(uint64_t t, uint64_t f)
{
	u128 want = (u128)t * 1000000 / f;
	if (want > ~0ull)
		return NULL; /* beyond 64 bits: not a representable answer */
	return ktime_ticks_to_us(t, f) == (uint64_t)want ? NULL : "wrong";
}

HTEST(ticks_to_us_exact)
{
	uint64_t rng = 7;
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		uint64_t f = freqs[i];
		uint64_t extra[] = {TEN_YEARS_S * f, TEN_YEARS_S * f + f - 1};
		for (size_t j = 0; j < 2 + sizeof(tick_values) / sizeof(uint64_t);
		     j++) {
			uint64_t t = j < 2 ? extra[j] : tick_values[j - 2];
			if (check_ticks_to_us(t, f))
				HTEST_FAIL_("ticks_to_us(%#llx) at %llu Hz: "
					    "%llu",
					    (unsigned long long)t,
					    (unsigned long long)f,
					    (unsigned long long)
						    ktime_ticks_to_us(t, f));
		}
		for (int k = 0; k < 2000; k++) {
			uint64_t t = htest_rand(&rng) >> (htest_rand(&rng) % 64);
			if (check_ticks_to_us(t, f))
				HTEST_FAIL_("ticks_to_us(%#llx) at %llu Hz",
					    (unsigned long long)t,
					    (unsigned long long)f);
		}
	}
	/* Ten years at 62.5 MHz, to the microsecond. */
	CHECK(ktime_ticks_to_us(TEN_YEARS_S * 62500000, 62500000) ==
	      TEN_YEARS_S * 1000000);
}

HTEST(to_ticks_exact_or_saturated)
{
	static const uint64_t pers[] = {1000, 1000000};
	static const uint64_t ns[] = {
		0, 1, 999, 1000, 999999, 1000001, TEN_YEARS_S * 1000,
		TEN_YEARS_S * 1000000, 1ull << 40, 1ull << 56, 1ull << 63,
		~0ull,
	};
	uint64_t rng = 11;
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		for (size_t p = 0; p < 2; p++) {
			for (int up = 0; up < 2; up++) {
				for (size_t j = 0; j < 12 + 2000; j++) {
					uint64_t n = j < 12 ? ns[j]
						     : htest_rand(&rng) >>
							       (htest_rand(&rng) %
								64);
					uint64_t f = freqs[i], per = pers[p];
					uint64_t got =
						ktime_to_ticks(n, per, f, up);
					uint64_t want =
						ref_to_ticks(n, per, f, up);
					if (got != want)
						HTEST_FAIL_(
							"to_ticks(%#llx, %llu, "
							"%llu Hz, up %d) = %#llx,"
							" want %#llx",
							(unsigned long long)n,
							(unsigned long long)per,
							(unsigned long long)f,
							up,
							(unsigned long long)got,
							(unsigned long long)want);
				}
			}
		}
	}
}

/* A deadline 10 years out, set after 36 years of uptime, is still
 * ahead of the counter; one past 2^64 saturates instead of wrapping
 * into the past. */
HTEST(deadlines_hold)
{
	uint64_t f = 62500000, now = 1ull << 56;
	uint64_t d = ktime_deadline(now, ktime_to_ticks(TEN_YEARS_S * 1000,
							1000, f, 0));
	CHECK(d > now);
	CHECK_EQ(d - now, TEN_YEARS_S * f);
	CHECK(ktime_deadline(~0ull - 5, 10) == ~0ull);
	CHECK(ktime_deadline(now, ~0ull) == ~0ull);
	CHECK(ktime_deadline(now, ktime_to_ticks(~0ull, 1000, f, 0)) > now);
	/* IPC timeouts: up to 2^40 us, rounded up, from a late counter. */
	uint64_t t = ktime_to_ticks(1ull << 40, 1000000, f, 1);
	CHECK(ktime_deadline(1ull << 56, t) > 1ull << 56);
	CHECK_EQ(ktime_to_ticks(1, 1000000, f, 1), 63); /* 62.5, up */
	CHECK_EQ(ktime_to_ticks(1, 1000000, f, 0), 62);
}
