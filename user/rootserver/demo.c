/* The demo the rootserver runs when booted without test or benchmark
 * arguments: hello, as a separate task, on every core; then the
 * balancer demo (demo_lb.c). */
#include <stdio.h>

#include <ful/spawn.h>

#include "root.h"

/** Start hello on every core and wait (bounded) for each to end; the
 *  number that started and ended. */
static unsigned demo_hello(unsigned ncpus)
{
	struct ful_task t[FUL_MAX_MODULES];
	unsigned ended = 0;
	printf("rootserver: starting hello on %u cores\n", ncpus);
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		int err = ful_spawn_named("hello", cpu, 100, 0, 0, NULL, 0, &t[cpu]);
		if (err < 0) {
			printf("rootserver: hello on cpu %u: error %d\n", cpu, err);
			t[cpu].thread = 0;
		}
	}
	unsigned long dl = ful_counter() + ful_us_to_ticks(ROOT_TIMEOUT_US);
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		while (t[cpu].thread && !ful_thread_dead(t[cpu].thread) &&
		       ful_counter() < dl)
			ful_yield();
		if (t[cpu].thread && ful_thread_dead(t[cpu].thread))
			ended++;
		if (t[cpu].thread)
			ful_task_destroy(&t[cpu]);
	}
	return ended;
}

/*
 * Each part of the demo ends with one fixed-prefix line, which the expect
 * suite of `make test` (demo4) looks for:
 *   DEMO-OK <part>  or  DEMO-FAIL <part> :: <why>
 */
void root_demo(void)
{
	unsigned ncpus = ful_bootinfo()->ncpus;
	if (ncpus > FUL_MAX_MODULES)
		ncpus = FUL_MAX_MODULES;
	unsigned ended = demo_hello(ncpus);
	if (ended == ncpus)
		printf("DEMO-OK hello-every-core\n");
	else
		printf("DEMO-FAIL hello-every-core :: %u of %u ended\n", ended,
		       ncpus);
	if (ncpus >= 4)
		printf("DEMO-%s balancer-table-i\n",
		       root_demo_balancer() ? "FAIL" : "OK");
	else
		root_demo_balancer(); /* says it needs 4 cores */
	printf("rootserver: demo done\n");
}
