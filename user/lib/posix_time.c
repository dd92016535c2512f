/*
 * Time for the POSIX layer: the virtual counter CNTVCT_EL0, readable at
 * EL0. CLOCK_MONOTONIC counts from boot. Fulcrum reads no real-time
 * clock yet (QEMU's PL031 is not driven), so CLOCK_REALTIME is the time
 * since boot added to a fixed start, FUL_EPOCH_AT_BOOT: the file times F
 * writes use the same clock, so they order correctly with the programs'.
 */
#include <errno.h>
#include <sys/time.h>
#include <time.h>

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
