/*
 * Where D, B and F start: paper 002's distribution forms (Table I,
 * boot argument form=1..15), or a core named for each (d_cpu=, b_cpu=,
 * f_cpu=, which win over the form). A, the benchmark or test program,
 * is on the BSP (core 0) in every form, as the system programs are.
 * Without either, everything is on core 0 (form 1).
 */
#include <stdio.h>
#include <stdlib.h>

#include <ful/ful.h>

#include "../root.h"
#include "srv.h"

/* Table I: the cores of F, B and D (BSP 0, AP1 1, AP2 2, AP3 3). */
static const unsigned char forms[15][3] = {
	{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {0, 1, 1},
	{1, 0, 1}, {1, 1, 0}, {1, 1, 1}, {0, 1, 2}, {1, 0, 2},
	{1, 2, 0}, {1, 1, 2}, {1, 2, 1}, {2, 1, 1}, {1, 2, 3},
};

unsigned root_server_cpu(enum root_server s)
{
	static const char *const keys[] = {"f_cpu", "b_cpu", "d_cpu"};
	static const char *const names[] = {"F", "B", "D"};
	char v[16];
	unsigned cpu = 0, ncpus = ful_bootinfo()->ncpus;
	if (root_bootarg("form", v, sizeof(v))) {
		unsigned long f = strtoul(v, NULL, 0);
		if (f >= 1 && f <= 15)
			cpu = forms[f - 1][s];
		else
			printf("rootserver: form=%s: not a form of 1..15\n", v);
	}
	if (root_bootarg(keys[s], v, sizeof(v)))
		cpu = (unsigned)strtoul(v, NULL, 0);
	if (cpu >= ncpus) {
		printf("rootserver: %s on core %u: only %u cores, core 0\n",
		       names[s], cpu, ncpus);
		cpu = 0;
	}
	return cpu;
}

long root_place_form(unsigned long f)
{
	static const char names[] = "FBD";
	if (f < 1 || f > 15)
		return -FUL_EINVAL;
	for (unsigned s = 0; s < 3; s++) {
		long err = root_place(names[s], forms[f - 1][s]);
		if (err)
			return err;
	}
	return 0;
}
