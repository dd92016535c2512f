/*
 * Time for the POSIX layer: the virtual counter CNTVCT_EL0, readable at
 * EL0. CLOCK_MONOTONIC counts from boot. Fulcrum reads no real-time
 * clock yet (QEMU's PL031 is not driven), so CLOCK_REALTIME is the time
 * since boot added to a fixed start, FUL_EPOCH_AT_BOOT: the file times F
 * writes use the same clock, so they order correctly with the programs'.
 * The sleeps block the thread in the kernel (SLEEP, 57); there are no
 * signals, so a sleep is never cut short and *rem is always zero.
 */
#define _DEFAULT_SOURCE /* usleep, checked against its prototype */
#include <errno.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <ful/ful.h>

#define FUL_EPOCH_AT_BOOT 1764000000ULL /* 2025-11-24 16:00 UTC */

/** Nanoseconds since boot. */
static uint64_t now_ns(void)
{
	uint64_t c = ful_counter(), f = ful_counter_freq();
	return c / f * 1000000000ULL + c % f * 1000000000ULL / f;
}

uint32_t ful_time_seconds(void)
{
	return (uint32_t)(FUL_EPOCH_AT_BOOT + now_ns() / 1000000000ULL);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns = now_ns();
	if (id == CLOCK_REALTIME)
		ns += FUL_EPOCH_AT_BOOT * 1000000000ULL;
	else if (id != CLOCK_MONOTONIC) {
		errno = EINVAL;
		return -1;
	}
	ts->tv_sec = (time_t)(ns / 1000000000ULL);
	ts->tv_nsec = (long)(ns % 1000000000ULL);
	return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	(void)tz;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
	return 0;
}

int clock_getres(clockid_t id, struct timespec *res)
{
	if (id != CLOCK_REALTIME && id != CLOCK_MONOTONIC) {
		errno = EINVAL;
		return -1;
	}
	if (res) {
		res->tv_sec = 0;
		res->tv_nsec = (long)((1000000000ULL + ful_counter_freq() - 1) /
				      ful_counter_freq());
	}
	return 0;
}

/* SLEEP's longest time (2^40 us, 12.7 days); longer sleeps take turns. */
#define SLEEP_CHUNK_US (1ULL << 40)

/** Sleep @ns nanoseconds (rounded up to microseconds). */
static void sleep_ns(uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 != 0);
	while (us) {
		uint64_t step = us < SLEEP_CHUNK_US ? us : SLEEP_CHUNK_US;
		ful_sleep_us(step);
		us -= step;
	}
}

/** @ts in nanoseconds, saturating; false if it is not a valid time. */
static bool ts_ns(const struct timespec *ts, uint64_t *ns)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return false;
	uint64_t s = (uint64_t)ts->tv_sec;
	*ns = s > ~0ULL / 1000000000ULL - 1
		      ? ~0ULL
		      : s * 1000000000ULL + (uint64_t)ts->tv_nsec;
	return true;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	uint64_t ns;
	if (!ts_ns(req, &ns)) {
		errno = EINVAL;
		return -1;
	}
	sleep_ns(ns);
	if (rem)
		*rem = (struct timespec){0, 0};
	return 0;
}

unsigned sleep(unsigned seconds)
{
	sleep_ns((uint64_t)seconds * 1000000000ULL);
	return 0;
}

int usleep(useconds_t us)
{
	sleep_ns((uint64_t)us * 1000);
	return 0;
}
