/* The user-level test driver and the helpers tests share (utest.h). */
#include "utest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/spawn.h>

extern const struct utest __start_utests[], __stop_utests[];

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

unsigned long ut_us_to_ticks(unsigned long us)
{
	return us * (ful_counter_freq() / 1000000);
}

unsigned ut_ncpus(void)
{
	return ful_bootinfo()->ncpus;
}

bool ut_thread_dead(unsigned slot)
{
	struct ful_thread_info info;
	return ful_thread_info(slot, &info) == -FUL_EDEAD;
}

bool ut_thread_reap(struct ful_thread *t)
{
	if (t->tid <= 0)
		return true;
	unsigned long dl = ful_counter() + ut_us_to_ticks(UT_TIMEOUT_US);
	while (!ut_thread_dead(t->slot))
		if (ful_counter() > dl)
			return false;
		else
			ful_yield();
	ut_slot_drop(t->slot);
	free(t->mem);
	*t = (struct ful_thread){0};
	return true;
}

int ut_spawn(const char *name, unsigned cpu, unsigned prio,
	     unsigned long arg0, unsigned long arg1,
	     const struct ful_cap_grant *caps, unsigned ncaps,
	     struct ful_task *out)
{
	int mod = ful_module_find(name);
	if (mod < 0)
		return mod;
	struct ful_spawn_args a = {.module = (unsigned)mod, .cpu = cpu,
				   .prio = prio, .arg0 = arg0, .arg1 = arg1,
				   .caps = caps, .ncaps = ncaps};
	return ful_spawn(&a, out);
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

void ut_slot_drop(unsigned slot)
{
	ful_cap_delete(slot);
	ful_slot_free(slot);
}

void utest_run_all(const char *filter)
{
	unsigned passed = 0, failed = 0;
	bool all = !strcmp(filter, "all");
	for (const struct utest *t = __start_utests; t < __stop_utests; t++) {
		if (!all && !strstr(t->name, filter))
			continue;
		if (ut_ncpus() < t->min_cpus) {
			printf("TEST-SKIP %s :: needs %u cores\n", t->name,
			       t->min_cpus);
			continue;
		}
		struct ut ut = {0};
		struct ful_sysinfo si0, si1;
		ful_sysinfo(&si0);
		t->fn(&ut);
		ful_sysinfo(&si1);
		if (ut.failed) {
			printf("TEST-FAIL %s :: %s\n", t->name, ut.why);
			failed++;
		} else {
			printf("TEST-PASS %s\n", t->name);
			passed++;
		}
	}
	printf("TEST-DONE %u %u\n", passed, failed);
}
