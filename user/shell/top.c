/*
 * The shell's views of the scheduler (issue 15, item 4), all from the
 * load area (read-only, <ful/load.h>) and the trace calls:
 *   top [-n N]   per core: utilization, runnable threads, migrations
 *                per second, the running thread; per thread: core,
 *                state, CPU %, nice and the balancer policy's score
 *                (FUL_BAL_SCORES: opzone's prize/punish adjustment in
 *                permille, signed: +0, -50; '-' where the policy has
 *                none, as under mginkgo or for a kernel thread); a new
 *                frame every second until
 *                a key is pressed; with -n, N frames, keys left for the
 *                prompt (as Linux's top -b -n)
 *   ps           the threads: core, state, slice, nice, CPU time
 *   trace on [MASK] | off | dump   the kernel's trace rings (switch,
 *                wake and migration records by default; FUL_TRC_* bits)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/balctl.h>
#include <fulcrum/trace.h>
#include <ful/ful.h>
#include <ful/load.h>
#include <ful/trace.h>

#include "shell.h"

#define TOP_PERIOD_US 1000000UL
#define TOP_MAX_THREADS 512

static const char *const top_states[] = {"inactive", "ready", "running",
					 "blocked", "migrating", "dead"};

/* What one frame needs of the previous one. */
static struct {
	unsigned long stamp;
	unsigned long mig[FUL_LOAD_CPUS];
	unsigned tid[TOP_MAX_THREADS];
	unsigned long runtime[TOP_MAX_THREADS];
} top_prev;

/** The per-core lines of a frame @dt counter ticks after the last. */
static void top_cores(const struct ful_load_page *pg, unsigned long dt)
{
	struct ful_win_par par;
	ful_load_util_par(pg, &par);
	unsigned online = ful_load_ncpus(pg);
	printf("  cpu util%% runnable migr/s running\n");
	for (unsigned i = 0; i < online && i < FUL_LOAD_CPUS; i++) {
		struct ful_load_cpu c;
		unsigned us, ul;
		ful_load_read_cpu(pg, i, &c);
		ful_util_cpu(&c, &par, ful_counter(), &us, &ul);
		unsigned long mig = c.mig_in + c.mig_out;
		unsigned long rate = dt ? (mig - top_prev.mig[i]) *
						  ful_counter_freq() / dt
					: 0;
		top_prev.mig[i] = mig;
		printf("  %3u %3u.%u %8u %6lu %#x\n", i, us / 10, us % 10,
		       c.nrunnable, rate, c.running);
	}
}

/* One thread line of a frame, gathered before the scores are asked. */
struct top_row {
	unsigned tid, cpu, state;
	int nice;
	unsigned long pm;
};

static struct top_row top_rows[TOP_MAX_THREADS];
static unsigned top_tids[TOP_MAX_THREADS];
static int top_scores[TOP_MAX_THREADS];

/** The per-thread lines: CPU % over the last @dt counter ticks, and the
 *  policy's score (one balancer request per FUL_BAL_SCORES_MAX threads). */
static void top_threads(const struct ful_load_page *pg, unsigned long dt)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ful_load_nthreads(pg) && i < TOP_MAX_THREADS;
	     i++) {
		struct ful_load_thread t;
		ful_load_read_thread(pg, i, &t);
		unsigned long used = t.tid == top_prev.tid[i] && dt
					     ? t.runtime - top_prev.runtime[i]
					     : 0;
		top_prev.tid[i] = t.tid;
		top_prev.runtime[i] = t.runtime;
		if (!t.tid || t.state == 5)
			continue;
		top_rows[n] = (struct top_row){.tid = t.tid, .cpu = t.cpu,
					       .state = t.state, .nice = t.nice,
					       .pm = dt ? used * 1000 / dt : 0};
		top_tids[n++] = t.tid;
	}
	if (sh_bal_scores(top_tids, top_scores, n) < 0)
		for (unsigned i = 0; i < n; i++) /* no balancer: no scores */
			top_scores[i] = FUL_BAL_NOSCORE;
	printf("  tid     cpu state     nice  cpu%%  score\n");
	for (unsigned i = 0; i < n; i++) {
		const struct top_row *r = &top_rows[i];
		char score[16] = "-";
		if (top_scores[i] != FUL_BAL_NOSCORE)
			snprintf(score, sizeof(score), "%+d", top_scores[i]);
		printf("  %#-7x %3u %-9s %4d %3lu.%lu %6s\n", r->tid, r->cpu,
		       r->state < 6 ? top_states[r->state] : "?", r->nice,
		       r->pm / 10, r->pm % 10, score);
	}
}

/** Wait @us without reading the console (top -n): a notification no one
 *  signals, waited on with a timeout. */
static void top_pause(unsigned long us)
{
	static long ntfn;
	if (!ntfn) {
		long s = ful_slot_alloc();
		ntfn = s < 0 || ful_ntfn_create(FUL_SLOT_POOL, (unsigned)s) < 0
			       ? -1 : s;
	}
	if (ntfn > 0)
		ful_ntfn_wait((unsigned)ntfn, NULL, us);
}

void sh_top(const char *args)
{
	const struct ful_load_page *pg = ful_load_area();
	unsigned long frames = ~0UL;
	while (*args == ' ')
		args++;
	bool batch = !strncmp(args, "-n", 2);
	if (batch)
		frames = strtoul(args + 2, NULL, 0);
	memset(&top_prev, 0, sizeof top_prev);
	top_prev.stamp = ful_counter();
	top_cores(pg, 0); /* the baseline: rates from the next frame on */
	top_threads(pg, 0);
	for (unsigned long f = 0; f < frames; f++) {
		int key = batch ? (top_pause(TOP_PERIOD_US), 0)
				: sh_key(TOP_PERIOD_US);
		if (key) {
			printf("top: stopped by a key: %c\n", key);
			break;
		}
		unsigned long now = ful_counter(), dt = now - top_prev.stamp;
		top_prev.stamp = now;
		printf("top: frame %lu, %lu ms (a key stops)\n", f + 1,
		       dt * 1000 / ful_counter_freq());
		top_cores(pg, dt);
		top_threads(pg, dt);
	}
}

void sh_ps(void)
{
	const struct ful_load_page *pg = ful_load_area();
	printf("  tid     cpu state     slice nice  runtime(us)\n");
	for (unsigned i = 0; i < ful_load_nthreads(pg); i++) {
		struct ful_load_thread t;
		ful_load_read_thread(pg, i, &t);
		if (!t.tid)
			continue;
		printf("  %#-7x %3u %-9s %5u %4d %12lu\n", t.tid, t.cpu,
		       t.state < 6 ? top_states[t.state] : "?", t.slice_ms,
		       t.nice, ful_ticks_to_us(t.runtime));
	}
}

void sh_trace(const char *args)
{
	while (*args == ' ')
		args++;
	long r;
	if (!strncmp(args, "on", 2)) {
		unsigned long mask = args[2] ? strtoul(args + 2, NULL, 0)
					     : FUL_TRC_SCHED;
		r = ful_trace_set(FUL_SLOT_SCHED, mask ? mask : FUL_TRC_SCHED,
				  FUL_TRACE_RESTART);
		if (r >= 0)
			printf("trace: on, classes %#lx\n",
			       mask ? mask : (unsigned long)FUL_TRC_SCHED);
	} else if (!strcmp(args, "off")) {
		r = ful_trace_set(FUL_SLOT_SCHED, 0, 0);
		if (r >= 0)
			printf("trace: off (it had classes %#lx)\n", (unsigned long)r);
	} else if (!strcmp(args, "dump")) {
		ful_stdio_flush();
		r = ful_trace_dump(FUL_SLOT_SCHED);
		if (r == -FUL_ESTATE)
			printf("trace: dump: tracing is on (trace off first)\n");
	} else {
		printf("usage: trace on [MASK] | off | dump\n");
		return;
	}
	if (r < 0 && r != -FUL_ESTATE)
		printf("trace: error %ld\n", r);
}
