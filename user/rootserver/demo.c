/* The demo the rootserver runs when booted without test or benchmark
 * arguments: hello, as a separate task, on every core; then the
 * balancer demo (demo_lb.c). */
#include <stdio.h>

#include <ful/spawn.h>

#include "root.h"
#include "utest.h"

void root_demo(void)
{
	unsigned ncpus = ut_ncpus();
	struct ful_task t[FUL_MAX_MODULES];
	printf("rootserver: starting hello on %u cores\n", ncpus);
	for (unsigned cpu = 0; cpu < ncpus && cpu < FUL_MAX_MODULES; cpu++) {
		int err = ut_spawn("hello", cpu, 100, 0, 0, NULL, 0, &t[cpu]);
		if (err < 0) {
			printf("rootserver: hello on cpu %u: error %d\n", cpu, err);
			t[cpu].thread = 0;
		}
	}
	/* Wait (bounded) for each to finish, then free its task. */
	unsigned long dl = ful_counter() + ut_us_to_ticks(UT_TIMEOUT_US);
	for (unsigned cpu = 0; cpu < ncpus && cpu < FUL_MAX_MODULES; cpu++) {
		while (t[cpu].thread && !ut_thread_dead(t[cpu].thread) &&
		       ful_counter() < dl)
			ful_yield();
		if (t[cpu].thread)
			ful_task_destroy(&t[cpu]);
	}
	root_demo_balancer();
	printf("rootserver: demo done\n");
}
