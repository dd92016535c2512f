/*
 * Fulcrum thread weights: the weight of a nice value, Linux CFS's
 * sched_prio_to_weight table (kernel/sched/core.c), one entry per nice
 * value -20..19. Nice 0 is 1024; each step is about 1.25x, so a thread
 * one nice level lower gets about 10 % more CPU than one at the level
 * above it. The kernel publishes these in the load area (per-thread
 * `weight`, per-core sum of the runnable threads' weights), and the
 * user-level policies (alb) read the same table: one table for both.
 */
#ifndef FULCRUM_WEIGHT_H
#define FULCRUM_WEIGHT_H

#define FUL_NICE_MIN (-20)
#define FUL_NICE_MAX 19
#define FUL_NICE_LEVELS 40

/* ful_nice_weight[nice + 20], nice -20..19. */
static const unsigned int ful_nice_weight[FUL_NICE_LEVELS] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548,  7620,  6100,  4904,  3906,
	/*  -5 */ 3121,  2501,  1991,  1586,  1277,
	/*   0 */ 1024,  820,   655,   526,   423,
	/*   5 */ 335,   272,   215,   172,   137,
	/*  10 */ 110,   87,    70,    56,    45,
	/*  15 */ 36,    29,    23,    18,    15,
};

/** The weight of @nice, clamped to -20..19. */
static inline unsigned int ful_weight_of_nice(int nice)
{
	if (nice < FUL_NICE_MIN)
		nice = FUL_NICE_MIN;
	if (nice > FUL_NICE_MAX)
		nice = FUL_NICE_MAX;
	return ful_nice_weight[nice - FUL_NICE_MIN];
}

#endif
