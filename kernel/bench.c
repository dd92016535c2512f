/* placeholder, replaced below */
#include "kernel.h"
void bench_run(const char *which) { (void)which; kprintf("BENCH-DONE 0\n"); }
