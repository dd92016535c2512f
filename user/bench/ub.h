/*
 * What the modes of the benchmark program (user/bench) share: their
 * entry points (main.c dispatches on ubench=<which>) and the quick mode.
 */
#ifndef UB_H
#define UB_H

#include <stdbool.h>

/*
 * Boot argument bench_quick: the modes that run long (wake, matmul, alb,
 * files_mttcg and the storage modes) take their smallest counts (one
 * repetition, a handful of samples, calls or reads, a small fraction
 * of each workload) and print the same BENCH lines, under the same
 * names, as without it; the others, windows of a few dozen samples that
 * take well under a second, run as they are. For make bench-smoke
 * (tools/bench_smoke.py), which checks that every mode boots and prints
 * well-formed results, never what they say. It overrides the count
 * arguments (wake_samples=, mm_repeat=, wl_repeat=, wl_scale=), so that
 * bench-smoke boots each mode with make bench's own arguments plus this
 * one. Set once, in main(), before any mode runs.
 */
extern bool ub_quick;

/** @full, or @quick under bench_quick. */
static inline unsigned ub_count(unsigned full, unsigned quick)
{
	return ub_quick ? quick : full;
}

unsigned ub_lb_run(void);		   /* ub_lb.c */
unsigned ub_migrate_run(void);		   /* ub_migrate.c */
unsigned ub_matmul_run(void);		   /* ub_matmul.c */
unsigned ub_frame_run(void);		   /* ub_frame.c */
unsigned ub_sys_run(void);		   /* ub_sys.c */
unsigned ub_disk_run(void);		   /* ub_disk.c */
unsigned ub_cache_run(void);		   /* ub_disk.c */
unsigned ub_wake_run(void);		   /* ub_wake.c */
unsigned ub_alb_run(void);		   /* ub_alb.c */
unsigned ub_files_run(bool mttcg);	   /* ub_files.c */
unsigned ub_storage_run(const char *which); /* ub_storage.c */

#endif
