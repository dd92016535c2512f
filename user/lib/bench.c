/* Benchmark output for tools/bench_report.py. */
#include <stdio.h>

#include <ful/ful.h>

/** One line "BENCH <name> <unit> <n> <s0> <s1> ...", within one console
 *  write (samples that do not fit are left out). */
void ful_bench_print(const char *name, const char *unit,
		     const unsigned long *s, unsigned n)
{
	char line[FUL_DEBUG_WRITE_MAX];
	int len = snprintf(line, sizeof(line), "BENCH %s %s %u", name, unit, n);
	for (unsigned i = 0; i < n && len < (int)sizeof(line) - 24; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %lu",
				s[i]);
	printf("%s\n", line);
}
