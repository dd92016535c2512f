/*
 * Bad-input tests. The calls run in the badinput program (tests/user/badinput,
 * protocol in its report.h), a task of its own whose capability table
 * holds only what it is given, so no bad call can touch the test program.
 *
 *   badinput_classes  every system call (and invalid numbers) with every
 *                     class of bad argument, plus two-argument cases for
 *                     the order of checks; the exact documented error of
 *                     each. One line per call number with its case count;
 *                     a call with no case fails the test.
 *   badinput_random   a seeded run of random bad calls: targeted ones
 *                     (exact error), then fully random ones (a documented
 *                     result); at least 100,000 calls. Then the kernel
 *                     must still spawn a task and do a call/reply with it.
 *
 * Boot arguments: bi_calls=N (random run total, default 200000),
 * bi_seed=S (default 1).
 *
 * badinput prints a line per wrong result (the first 24); "REGRESSION"
 * marks the checks that found the kernel bugs fixed in c84c347. A kernel
 * with the sys_map bug back panics in both tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/spawn.h>

#include "../badinput/report.h"
#include "utest.h"

#define BI_DEFAULT_CALLS 200000UL
#define BI_MIN_CALLS 100000UL
#define BI_BADGE 0xb1

struct bi_child {
	struct ful_task task;
	long ep; /* the report endpoint */
};

/* Tasks of one run: the random run has one per core (at most
 * BI_MAX_TASKS), each with its own seed and share of the calls. */
#define BI_MAX_TASKS 4

struct bi_group {
	unsigned n;
	struct bi_child c[BI_MAX_TASKS];
};

/** Start badinput in @mode on @cpu, with the capabilities of report.h.
 *  0 or -FUL_E* (nothing left behind). */
static int bi_start(struct bi_child *c, unsigned cpu, unsigned mode,
		    unsigned long seed, unsigned long n1, unsigned long n2)
{
	memset(c, 0, sizeof *c);
	int mod = ful_module_find("badinput");
	if (mod < 0)
		return mod;
	if ((c->ep = ut_ep_new()) < 0)
		return (int)c->ep;
	const struct ful_bootinfo *bi = ful_bootinfo();
	if (!bi->ndevregions)
		return -FUL_ESTATE; /* no device region to test with */
	const struct ful_cap_grant caps[] = {
		{FUL_SLOT_POOL, FUL_CHILD_SLOT_ARG0, FUL_R_ALL, 0},
		{FUL_SLOT_SCHED, FUL_CHILD_SLOT_ARG0 + 1, FUL_R_ALL, 0},
		/* READ only: it can never bind console input */
		{FUL_SLOT_CONSOLE, FUL_CHILD_SLOT_ARG0 + 2, FUL_R_READ, 0},
		{bi->irqctl_slot, FUL_CHILD_SLOT_ARG0 + 3, FUL_R_ALL, 0},
		{bi->devregions[0].slot, FUL_CHILD_SLOT_ARG0 + 4,
		 FUL_R_READ | FUL_R_WRITE, 0},
	};
	struct ful_spawn_args a = {
		.module = (unsigned)mod, .cpu = cpu, .prio = 100,
		.arg0 = BI_ARG0(mode, seed), .arg1 = BI_ARG1(n1, n2),
		.vs_rights = FUL_R_ALL, .thread_rights = FUL_R_ALL,
		.report_ep = (unsigned)c->ep, .report_badge = BI_BADGE,
		.caps = caps, .ncaps = sizeof caps / sizeof caps[0]};
	int err = ful_spawn(&a, &c->task);
	if (err < 0)
		ful_slot_drop((unsigned)c->ep);
	return err;
}

/** Receive the child's report, polling so that a child that dies or
 *  hangs ends the wait. 0, or -FUL_E* with *@why set. */
static long bi_collect(struct bi_child *c, struct bi_report *rep,
		       unsigned long timeout_us, const char **why)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(timeout_us);
	for (;;) {
		struct ful_msg m;
		long err = ful_recv((unsigned)c->ep, &m, 100000);
		if (err == 0) {
			*why = "malformed report";
			if (FUL_MSG_LABEL(m.info) != BI_LABEL_REPORT ||
			    FUL_MSG_LEN(m.info) != sizeof *rep || m.badge != BI_BADGE)
				return -FUL_EINVAL;
			memcpy(rep, ful_ipcbuf(), sizeof *rep);
			return rep->magic == BI_REPORT_MAGIC ? 0 : -FUL_EINVAL;
		}
		*why = err == -FUL_ETIMEOUT ? "" : "recv failed";
		if (err != -FUL_ETIMEOUT)
			return err;
		if (ful_thread_dead(c->task.thread)) {
			*why = "badinput died without a report (fault?)";
			return -FUL_EDEAD;
		}
		if (ful_counter() > dl) {
			*why = "no report in time (hang?)";
			return -FUL_ETIMEOUT;
		}
	}
}

/** Wait for the child to end, then drop everything it was given. */
static bool bi_finish(struct bi_child *c)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	bool dead;
	while (!(dead = ful_thread_dead(c->task.thread)) && ful_counter() < dl)
		ful_yield();
	ful_task_destroy(&c->task);
	ful_slot_drop((unsigned)c->ep);
	return dead;
}

/** Add report @r to @sum (counts add up, the first mismatch is kept,
 *  the run took as long as the slowest task). */
static void bi_merge(struct bi_report *sum, const struct bi_report *r)
{
	if (!sum->mismatches && r->mismatches)
		sum->first = r->first;
	if (!sum->setup_line && r->setup_line)
		sum->setup_line = r->setup_line, sum->setup_err = r->setup_err;
	sum->cases += r->cases;
	sum->p2_calls += r->p2_calls;
	sum->p2_ok += r->p2_ok;
	sum->mismatches += r->mismatches;
	sum->regressions += r->regressions;
	sum->ticks = r->ticks > sum->ticks ? r->ticks : sum->ticks;
	for (unsigned i = 0; i < BI_NCALLS; i++)
		sum->per_call[i] += r->per_call[i];
}

/** Start @g->n tasks in @mode, task i on its own core with seed
 *  @seed + i and 1/n of @n1 and @n2. 0 or -FUL_E* (none left running). */
static int bi_start_group(struct bi_group *g, unsigned mode,
			  unsigned long seed, unsigned long n1,
			  unsigned long n2)
{
	unsigned ncpus = ut_ncpus();
	for (unsigned i = 0; i < g->n; i++) {
		unsigned long k1 = n1 / g->n + (i < n1 % g->n);
		unsigned long k2 = n2 / g->n + (i < n2 % g->n);
		int err = bi_start(&g->c[i], (ncpus - 1 - i) % ncpus, mode,
				   seed + i, k1, k2);
		if (err < 0) {
			while (i--)
				bi_finish(&g->c[i]);
			return err;
		}
	}
	return 0;
}

/** Run @ntasks badinput tasks in @mode to their reports, summed in
 *  @sum; false (test failed) if one did not report, did not end, failed
 *  its set-up, or any user thread faulted meanwhile. */
static bool bi_run(struct ut *ut, unsigned mode, unsigned ntasks,
		   unsigned long seed, unsigned long n1, unsigned long n2,
		   struct bi_report *sum)
{
	struct bi_group g = {.n = ntasks};
	struct ful_sysinfo si0, si1;
	memset(sum, 0, sizeof *sum);
	ful_sysinfo(&si0);
	int err = bi_start_group(&g, mode, seed, n1, n2);
	if (err < 0) {
		ut_fail(ut, __FILE__, __LINE__, "spawn badinput: %d", err);
		return false;
	}
	const char *why = "";
	unsigned long timeout = 60000000UL + (n1 + n2) * 200;
	long got = 0;
	bool ended = true;
	for (unsigned i = 0; i < g.n; i++) {
		struct bi_report r;
		if (!got && !(got = bi_collect(&g.c[i], &r, timeout, &why)))
			bi_merge(sum, &r);
		ended &= bi_finish(&g.c[i]);
	}
	ful_sysinfo(&si1);
	if (got)
		ut_fail(ut, __FILE__, __LINE__, "mode %u: %s (%ld)", mode, why, got);
	else if (!ended)
		ut_fail(ut, __FILE__, __LINE__, "mode %u: did not end", mode);
	else if (si1.faults != si0.faults)
		ut_fail(ut, __FILE__, __LINE__, "mode %u: %lu user faults", mode,
			si1.faults - si0.faults);
	else if (sum->setup_line)
		ut_fail(ut, __FILE__, __LINE__, "badinput set-up failed at "
			"main.c:%u with %d", sum->setup_line, sum->setup_err);
	return !ut->failed;
}

/** Fail @ut with the first mismatch of @rep, if any. */
static void bi_fail_mismatches(struct ut *ut, const struct bi_report *rep)
{
	if (!rep->mismatches)
		return;
	const struct bi_mismatch *m = &rep->first;
	ut_fail(ut, __FILE__, __LINE__,
		"%lu mismatches (%lu regressions); first: %s(%lu) [%s] "
		"args %lx %lx %lx %lx: expected %ld, got %ld",
		rep->mismatches, rep->regressions,
		bi_call_name(bi_nr_index(m->nr)),
		m->nr, m->what, m->args[0], m->args[1], m->args[2], m->args[3],
		m->expected, m->got);
}

static unsigned long bi_ms(unsigned long ticks)
{
	return ticks / (ful_counter_freq() / 1000);
}

/** The numeric boot argument @key, or @def. */
static unsigned long bi_bootarg(const char *key, unsigned long def)
{
	char v[32];
	return ut_bootarg(key, v, sizeof v) && v[0] ? strtoul(v, NULL, 0) : def;
}

UTEST(badinput_classes, 1)
{
	struct bi_report rep;
	if (!bi_run(ut, BI_MODE_CLASSES, 1, 0, 0, 0, &rep))
		return;
	unsigned missing = BI_NCALLS;
	for (unsigned nr = 0; nr < BI_NCALLS; nr++) {
		if (BI_NR_RESERVED(nr)) /* counted as invalid numbers */
			continue;
		printf("badinput: %2u %-14s %4u cases\n", nr, bi_call_name(nr),
		       rep.per_call[nr]);
		if (!rep.per_call[nr] && missing == BI_NCALLS)
			missing = nr;
	}
	printf("badinput: %lu cases in %lu ms, %lu mismatches (%lu "
	       "regressions)\n", rep.cases, bi_ms(rep.ticks), rep.mismatches,
	       rep.regressions);
	if (missing < BI_NCALLS) {
		ut_fail(ut, __FILE__, __LINE__, "no case for %s",
			bi_call_name(missing));
		return;
	}
	bi_fail_mismatches(ut, &rep);
}

/** After the random run: a new task and a call/reply round trip with it
 *  must still work. */
static void bi_ping(struct ut *ut)
{
	struct bi_child c;
	struct bi_report rep;
	struct ful_msg m;
	UT_CHECK_EQ(bi_start(&c, 0, BI_MODE_PING, 0, 0, 0), 0);
	long err = ful_recv((unsigned)c.ep, &m, UT_TIMEOUT_US);
	bool call = err == 0 && FUL_MSG_LABEL(m.info) == BI_LABEL_PING;
	if (call) {
		m.info = 0;
		m.mr[0]++;
		err = ful_reply(&m);
	}
	const char *why = "";
	long got = call && !err ? bi_collect(&c, &rep, UT_TIMEOUT_US, &why) : err;
	bool ended = bi_finish(&c);
	UT_CHECK(call);
	UT_CHECK_EQ(got, 0);
	UT_CHECK(ended);
	UT_CHECK_EQ(rep.mismatches, 0);
}

UTEST(badinput_random, 1)
{
	unsigned long calls = bi_bootarg("bi_calls", BI_DEFAULT_CALLS);
	unsigned long seed = bi_bootarg("bi_seed", 1);
	unsigned long n1 = calls / 2, n2 = calls - n1;
	struct bi_report rep;
	unsigned ntasks = ut_ncpus() < BI_MAX_TASKS ? ut_ncpus() : BI_MAX_TASKS;
	if (!bi_run(ut, BI_MODE_RANDOM, ntasks, seed, n1, n2, &rep))
		return;
	printf("badinput: random seed %lu, %u tasks: %lu calls (%lu targeted, "
	       "%lu fully random of which %lu succeeded) in %lu ms, %lu "
	       "mismatches\n", seed, ntasks, rep.cases + rep.p2_calls, rep.cases,
	       rep.p2_calls, rep.p2_ok, bi_ms(rep.ticks), rep.mismatches);
	UT_CHECK_EQ(rep.cases, n1);
	UT_CHECK_EQ(rep.p2_calls, n2);
	UT_CHECK(calls < BI_MIN_CALLS || rep.cases + rep.p2_calls >= BI_MIN_CALLS);
	for (unsigned nr = 0; calls >= BI_MIN_CALLS && nr < BI_NCALLS; nr++)
		if (!rep.per_call[nr] && !BI_NR_RESERVED(nr))
			ut_fail(ut, __FILE__, __LINE__, "no random call of %s",
				bi_call_name(nr));
	bi_fail_mismatches(ut, &rep);
	if (!ut->failed)
		bi_ping(ut);
}
