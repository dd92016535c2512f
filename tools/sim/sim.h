/*
 * fulsim: a discrete-event model of Fulcrum's cores and threads that
 * runs the balancing policies of user/policy, unchanged, on a load area
 * it publishes the way the kernel does (docs/simulator.md, "The model").
 *
 * Built for the host with the load area's limits raised (Makefile, SIM_DEFS:
 * FUL_LOAD_CPUS 256, FUL_LOAD_THREADS 16384). Time is in nanoseconds,
 * which is also the load area's counter (counter_freq 1 GHz).
 * Single-threaded: no locks anywhere.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdio.h>

#include "lb.h"

#define SIM_MAX_CPUS FUL_LOAD_CPUS       /* 256 */
#define SIM_MAX_THREADS 10000             /* < FUL_LOAD_THREADS */
#define SIM_MAX_PHASES 64                 /* per thread */
#define SIM_MS 1000000UL                  /* ns */
#define SIM_US 1000UL

/* One step of a thread's program (rt-app style). */
enum sim_phase_kind { PH_RUN, PH_SLEEP, PH_CALL };

struct sim_phase {
	unsigned char kind;    /* enum sim_phase_kind */
	unsigned long ns;      /* run: CPU time; sleep: time asleep; call:
				* the server's CPU time for the request
				* (or, with no server, the time blocked) */
	int server;            /* call: index of the server thread, -1: an
				* outside service (a fixed wait) */
};

/* A thread as the workload describes it. */
struct sim_tdesc {
	char name[32];
	int nice;
	unsigned slice_ms;
	unsigned long start;   /* release time, ns */
	unsigned loops;        /* times the phases run, >= 1 */
	bool server;           /* serves calls: blocked until one comes */
	int cpu;               /* released straight onto this core, without
				* a placement decision (as paper 000's
				* matmul tasks are); -1: placed by the policy */
	unsigned nph;
	struct sim_phase ph[SIM_MAX_PHASES];
};

#define SIM_MAX_DEMAND 64                 /* demand rounds per workload */

struct sim_workload {
	unsigned ncpus;
	unsigned nthreads;
	struct sim_tdesc *t;   /* nthreads of them */
	int root_cpu;          /* the rootserver's core, left out of the
				* eligible cores as on Fulcrum; -1: none */
	unsigned ndemand;      /* rebalances asked for (trigger "demand")... */
	unsigned long demand[SIM_MAX_DEMAND]; /* ...at these times, ns */
};

/* What a run is configured with besides the workload. */
#define SIM_MAX_SETS 8

struct sim_conf {
	const char *policy;
	unsigned long tick;        /* ns between ticks (1 ms) */
	double ns_per_insn;        /* instruction-to-time conversion (1.0) */
	unsigned long mig_ready;   /* instructions of migrate_ready (673) */
	unsigned long mig_running; /* instructions of migrate_running (2031) */
	bool trig_timer, trig_idle, trig_wake;
	unsigned long sample;      /* ns per utilization sample, 0: none */
	bool keep_log;             /* keep every decision as JSON */
	bool icount;               /* QEMU's -icount clock: k busy cores
				    * each run at 1 / k of it (sim_core.c) */
	unsigned long max_time;    /* give up after this much simulated time */
	double jitter;             /* per-core speed jitter J, 0: none
				    * (sim_clock.c: speeds in 1 +- J)... */
	unsigned long jitter_seed; /* ...drawn from this seed... */
	unsigned long jitter_epoch; /* ...anew every this many ns */
	bool track_imb;            /* integrate the weight imbalance */
	unsigned nset;             /* policy tunables set (--set NAME=V)... */
	const char *set_name[SIM_MAX_SETS]; /* ...these, to these values; a */
	long set_value[SIM_MAX_SETS];       /* policy without one ignores it */
};

/* Per-core utilization samples, grown as time goes on. */
struct sim_series {
	unsigned long n, cap;
	unsigned long *busy;       /* n * ncpus: busy ns per sample per core */
};

/* What a run produced. */
struct sim_result {
	unsigned long makespan;    /* ns from 0 to the last thread's exit */
	unsigned long events;      /* scheduling events processed */
	unsigned long migrations;  /* moves carried out */
	unsigned long rounds;      /* rebalance decisions */
	unsigned long places;      /* placement decisions */
	unsigned long switches;
	unsigned long unfinished;  /* threads alive at max_time (0 normally) */
	double cpu_s;             /* host CPU time the run took (its thread's) */
	double imb_integral;       /* track_imb: the integral over time (ns)
				    * of max over the eligible cores of
				    * |weight - average| / average (0 while
				    * the average is 0), up to makespan */
	struct sim_series util;
	char *log;                 /* decision log: JSON lines (keep_log) */
	unsigned long log_len, log_cap, log_lines;
};

void sim_conf_default(struct sim_conf *c);
/** Run @w under @c. 0, or -1 with a message on stderr (unknown policy). */
int sim_run(const struct sim_workload *w, const struct sim_conf *c,
	    struct sim_result *r);
void sim_result_free(struct sim_result *r);

/* Workloads (sim_work.c). Errors: a message naming the file, line and
 * field on stderr, and -1 (the caller exits 2). */
int sim_work_load(const char *path, struct sim_workload *w);
enum sim_dist { DIST_UNIFORM, DIST_BIMODAL, DIST_HEAVY, DIST_COUNT };
extern const char *const sim_dist_names[DIST_COUNT];
/** Independent CPU-bound tasks (one run phase each), all released at 0. */
void sim_work_gen(struct sim_workload *w, unsigned ncpus, unsigned ntasks,
		  enum sim_dist dist, unsigned long *seed);
void sim_work_free(struct sim_workload *w);
unsigned long sim_rand(unsigned long *seed);

/* Output (sim_out.c). */
void sim_out_json(FILE *f, const struct sim_workload *w,
		  const struct sim_conf *c, const struct sim_result *r);
/** max(longest task's CPU time, total CPU time / cores). */
unsigned long sim_lower_bound(const struct sim_workload *w);
/** Makespan of LPT (longest processing time first) on independent tasks. */
unsigned long sim_lpt(const struct sim_workload *w);
/** Makespan of ideal processor sharing: every task runs at rate
 *  min(1, cores / tasks left), migration free (what fair balancing of
 *  round-robin cores tends to, without knowing task lengths). */
unsigned long sim_ps(const struct sim_workload *w);
/** Makespan of list scheduling in release order: each task, run to
 *  completion, on the first core free (non-clairvoyant, no sharing). */
unsigned long sim_list(const struct sim_workload *w);
/** The same with the tasks in a random order (a uniform permutation drawn
 *  from @seed, which advances): Graham's list scheduling as a
 *  non-clairvoyant reference that does not depend on the release order. */
unsigned long sim_list_random(const struct sim_workload *w,
			      unsigned long *seed);

#endif
