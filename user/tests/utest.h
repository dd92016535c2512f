/*
 * User-level tests, run by the rootserver with the boot argument
 * utest=<filter> ("all" runs all). UTEST(name, min_cpus) registers a
 * test; the driver (utest.c) prints the harness protocol of the kernel
 * tests: TEST-PASS / TEST-FAIL <name> :: <why> / TEST-SKIP, then
 * TEST-DONE <passed> <failed>, and powers the machine off.
 * Waits never sleep for a fixed time: UT_WAIT polls a condition with a
 * generous timeout that only turns a hang into a failure.
 */
#ifndef ROOT_UTEST_H
#define ROOT_UTEST_H

#include <stdbool.h>
#include <stdint.h>

#include <ful/ful.h>

struct ut {
	bool failed;
	char why[200];
};

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
		unsigned long dl_ = ful_counter() + ut_us_to_ticks(UT_TIMEOUT_US); \
		while (!(cond)) {                                          \
			if (ful_counter() > dl_) {                         \
				ut_fail(ut, __FILE__, __LINE__,            \
					"timed out waiting for %s", #cond); \
				return;                                    \
			}                                                  \
			ful_yield();                                       \
		}                                                          \
	} while (0)

unsigned long ut_us_to_ticks(unsigned long us);
/** The number of cores. */
unsigned ut_ncpus(void);
/** Has the thread in @slot died (THREAD_INFO says EDEAD)? */
bool ut_thread_dead(unsigned slot);
/** Reclaim @t, a thread of this task that is ending: wait (yielding, at
 *  most UT_TIMEOUT_US) until it has died, then drop its capability, free
 *  its stack and clear @t. Nothing to do if it never started (tid <= 0).
 *  A thread still alive is left alone, its stack in use: false. */
bool ut_thread_reap(struct ful_thread *t);
/** Start boot module @name as a task on @cpu with x0/x1 = @arg0/@arg1 and
 *  capabilities @caps (child slots 4..7); 0 or -FUL_E*. */
struct ful_cap_grant;
struct ful_task;
int ut_spawn(const char *name, unsigned cpu, unsigned prio,
	     unsigned long arg0, unsigned long arg1,
	     const struct ful_cap_grant *caps, unsigned ncaps,
	     struct ful_task *out);
/** A new endpoint / notification in a fresh slot of the rootserver. */
long ut_ep_new(void);
long ut_ntfn_new(void);
/** Delete the capability in @slot and free the slot. */
void ut_slot_drop(unsigned slot);

/** Run the tests matching @filter; prints the protocol. */
void utest_run_all(const char *filter);

#endif
