/*
 * User-level tests: the program `tests` (tests/user/tests), which the
 * rootserver starts as a system program (<ful/ful.h>) with the boot
 * argument utest=<filter> ("all" runs all). UTEST(name, min_cpus)
 * registers a test; the driver (main.c) prints the harness protocol of
 * the kernel tests: TEST-PASS / TEST-FAIL <name> :: <why> / TEST-SKIP,
 * then TEST-DONE <passed> <failed>. The helpers below (utest.c) are
 * shared with the benchmarks (user/bench).
 * Waits never sleep for a fixed time: UT_WAIT polls a condition with a
 * generous timeout that only turns a hang into a failure.
 */
#ifndef UT_UTEST_H
#define UT_UTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ful/ful.h>

struct ut {
	bool failed;
	bool skipped; /* UT_SKIP: the machine lacks what it needs */
	char why[200];
};

/** End the test as skipped (TEST-SKIP): only for a machine without
 *  what the test needs (a device), never for a failure. */
#define UT_SKIP(reason)                                                   \
	do {                                                              \
		ut->skipped = true;                                       \
		snprintf(ut->why, sizeof ut->why, "%s", (reason));        \
		return;                                                   \
	} while (0)

/** Skip unless the machine has exactly @n cores: for the scenarios
 *  published on a 4-core machine (paper 000's Table I, paper 001's and
 *  paper 004's figures), whose every expected placement names a core.
 *  On more cores the policies place elsewhere by design; the 16- and
 *  32-core suites (GICv3) report them as skipped. */
#define UT_EXACT_CPUS(n)                                                  \
	do {                                                              \
		if (ut_ncpus() != (n))                                    \
			UT_SKIP("a scenario of exactly " #n " cores");    \
	} while (0)

struct utest {
	const char *name;
	void (*fn)(struct ut *ut);
	unsigned min_cpus;
};

#define UTEST(name_, min_cpus_)                                            \
	static void utest_fn_##name_(struct ut *ut);                       \
	static const struct utest utest_desc_##name_                       \
		__attribute__((used, section("utests"), aligned(8))) = {   \
			#name_, utest_fn_##name_, min_cpus_};             \
	static void utest_fn_##name_(struct ut *ut)

void ut_fail(struct ut *ut, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define UT_CHECK(cond)                                                  \
	do {                                                            \
		if (!(cond)) {                                          \
			ut_fail(ut, __FILE__, __LINE__, "%s", #cond);   \
			return;                                         \
		}                                                       \
	} while (0)

#define UT_CHECK_EQ(a, b)                                                  \
	do {                                                               \
		long a_ = (long)(a), b_ = (long)(b);                       \
		if (a_ != b_) {                                            \
			ut_fail(ut, __FILE__, __LINE__,                    \
				"%s == %s (%ld vs %ld)", #a, #b, a_, b_);  \
			return;                                            \
		}                                                          \
	} while (0)

/* Generous: under multi-threaded TCG 8 vCPUs share 2 host cores. */
#define UT_TIMEOUT_US 20000000UL

/** Poll @cond (yielding the core) until true or UT_TIMEOUT_US passes. */
#define UT_WAIT(cond)                                                      \
	do {                                                               \
		unsigned long dl_ = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US); \
		while (!(cond)) {                                          \
			if (ful_counter() > dl_) {                         \
				ut_fail(ut, __FILE__, __LINE__,            \
					"timed out waiting for %s", #cond); \
				return;                                    \
			}                                                  \
			ful_yield();                                       \
		}                                                          \
	} while (0)

/** The number of cores. */
unsigned ut_ncpus(void);
/** The value of boot argument @key into @out (n bytes); false if absent. */
bool ut_bootarg(const char *key, char *out, size_t n);
/** Wait (yielding, at most UT_TIMEOUT_US) until this thread is the only
 *  runnable one on its core: a system program's first act, so that what
 *  it counts and measures starts with the rootserver blocked. */
bool ut_wait_alone(void);
/** A new endpoint / notification in a fresh slot of this task. */
long ut_ep_new(void);
long ut_ntfn_new(void);
struct ful_trace_hdr;
/** The trace area (<fulcrum/trace.h>) mapped read-only at
 *  FUL_TRACE_VADDR, mapped at the first call (the tests of every file
 *  share the one mapping); NULL if it cannot be (no rings). */
const struct ful_trace_hdr *ut_trace_hdr(void);

#endif
