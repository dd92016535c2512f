/* Rootserver internals shared by its files. */
#ifndef ROOT_ROOT_H
#define ROOT_ROOT_H

#include <stdbool.h>
#include <stddef.h>

bool root_bootarg(const char *key, char *out, size_t n);
/** The demo: hello, as its own task, on every core. */
void root_demo(void);
/** The balancer demo: paper 000's Table I, live (4 cores). 0, or 1 if a
 *  step failed. */
int root_demo_balancer(void);
/** User-level benchmarks (ubench.c): BENCH lines for bench_report.py. */
void ubench_run(const char *which);

#endif
