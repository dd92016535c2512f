/* The demo the rootserver runs when booted without test or benchmark
 * arguments: hello on every core, then an IPC ping-pong between cores. */
#include <stdio.h>

#include <ful/spawn.h>

#include "root.h"
#include "utest.h"

void root_demo(void)
{
	unsigned ncpus = ut_ncpus();
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct ful_task t;
		int err = ut_spawn("hello", cpu, 100, 0, 0, NULL, 0, &t);
		if (err < 0)
			printf("rootserver: hello on cpu %u: error %d\n", cpu, err);
	}
}
