/* The helpers the tests and the benchmarks share (utest.h). */
#include "utest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/load.h>
#include <ful/trace.h>

#include "args.h"

void ut_fail(struct ut *ut, const char *file, int line, const char *fmt, ...)
{
	if (ut->failed)
		return;
	ut->failed = true;
	const char *base = strrchr(file, '/');
	int n = snprintf(ut->why, sizeof(ut->why), "%s:%d: ",
			 base ? base + 1 : file, line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ut->why + n, sizeof(ut->why) - (size_t)n, fmt, ap);
	va_end(ap);
}

unsigned ut_ncpus(void)
{
	return ful_bootinfo()->ncpus;
}

bool ut_bootarg(const char *key, char *out, size_t n)
{
	return args_find(ful_bootinfo()->bootargs, key, out, n);
}

long ut_ep_new(void)
{
	long s = ful_slot_alloc();
	if (s < 0)
		return s;
	long err = ful_ep_create(FUL_SLOT_POOL, (unsigned)s);
	return err < 0 ? err : s;
}

long ut_ntfn_new(void)
{
	long s = ful_slot_alloc();
	if (s < 0)
		return s;
	long err = ful_ntfn_create(FUL_SLOT_POOL, (unsigned)s);
	return err < 0 ? err : s;
}

const struct ful_trace_hdr *ut_trace_hdr(void)
{
	static const struct ful_trace_hdr *hdr;
	if (hdr)
		return hdr;
	long slot = ful_slot_alloc();
	if (slot < 0)
		return NULL;
	if (ful_trace_frame(FUL_SLOT_SCHED, (unsigned)slot) ||
	    ful_map(FUL_SLOT_SELF_VS, (unsigned)slot, FUL_TRACE_VADDR,
		    FUL_R_READ)) {
		ful_slot_drop((unsigned)slot);
		return NULL;
	}
	hdr = (const struct ful_trace_hdr *)FUL_TRACE_VADDR;
	return hdr;
}

bool ut_wait_alone(void)
{
	struct ful_sysinfo si;
	struct ful_load_cpu c;
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	ful_sysinfo(&si);
	do {
		ful_load_read_cpu(ful_load_area(), si.cpu, &c);
		if (c.nrunnable == 1)
			return true;
		ful_yield();
	} while (ful_counter() < dl);
	return false;
}
