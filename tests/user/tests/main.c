/*
 * The user-level test suites as a program of their own. The rootserver
 * starts it as a system program (<ful/ful.h>: its slots are the
 * rootserver's FUL_SLOT_* it was given, the bootinfo page and the load
 * area are mapped) when booted with utest=<filter>. It runs the UTESTs
 * whose name contains the filter ("all": every one), prints the harness
 * protocol, then says "done" on FUL_SYSPROG_SLOT_DONE with the number
 * of failures in mr[0]; the rootserver powers the machine off.
 */
#include <stdio.h>
#include <string.h>

#include "utest.h"

extern const struct utest __start_utests[], __stop_utests[];

/** Run one test and print its line; 1 if it passed, 0 if it failed,
 *  -1 if it skipped itself. */
static int utest_run_one(const struct utest *t)
{
	struct ut ut = {0};
	t->fn(&ut);
	if (ut.failed) {
		printf("TEST-FAIL %s :: %s\n", t->name, ut.why);
		return 0;
	}
	if (ut.skipped) {
		printf("TEST-SKIP %s :: %s\n", t->name, ut.why);
		return -1;
	}
	printf("TEST-PASS %s\n", t->name);
	return 1;
}

/** Run the tests matching @filter; prints the protocol, returns the
 *  number that failed. */
static unsigned utest_run_all(const char *filter)
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
		int r = utest_run_one(t);
		passed += r > 0;
		failed += r == 0;
	}
	printf("TEST-DONE %u %u\n", passed, failed);
	return failed;
}

int main(void)
{
	const struct ful_bootinfo *bi = ful_bootinfo();
	char filter[64] = "all";
	ful_slot_init(bi->first_free_slot);
	ut_bootarg("utest", filter, sizeof(filter));
	if (!ut_wait_alone())
		printf("tests: my core is not quiet at the start\n");
	struct ful_msg m = {.mr = {utest_run_all(filter)}};
	ful_send(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	return 0;
}
