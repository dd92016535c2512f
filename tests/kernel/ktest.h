/*
 * In-kernel tests. KTEST(name, min_cpus) registers a test in the .ktests
 * section; ktest_run_all() runs those matching a filter in the init
 * thread and prints the harness protocol:
 *   TEST-PASS <name> | TEST-FAIL <name> :: <why> | TEST-SKIP <name> :: <why>
 *   TEST-DONE <passed> <failed>
 * Checks never sleep for a fixed time: KT_WAIT polls a condition (yielding
 * the core) and fails only when a generous timeout runs out.
 *
 * KTEST_SLOW registers a test that takes tens of seconds by nature (a
 * real 35 s sleep): filter "all" reports it skipped; it runs under the
 * filter "slow" (`make test-long`) or when named.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include "kernel.h"

struct ktest_ctx {
	bool failed;
	char why[200];
};

struct ktest {
	const char *name;
	void (*fn)(struct ktest_ctx *kt);
	unsigned min_cpus;
	bool slow; /* only under filter "slow" or by name */
};

#define KTEST_(name_, min_cpus_, slow_)                                     \
	static void ktest_fn_##name_(struct ktest_ctx *kt);                 \
	static const struct ktest ktest_desc_##name_                        \
		__attribute__((used, section(".ktests"), aligned(8))) = {   \
			#name_, ktest_fn_##name_, min_cpus_, slow_};       \
	static void ktest_fn_##name_(struct ktest_ctx *kt)
#define KTEST(name_, min_cpus_) KTEST_(name_, min_cpus_, false)
#define KTEST_SLOW(name_, min_cpus_) KTEST_(name_, min_cpus_, true)

void ktest_fail(struct ktest_ctx *kt, const char *file, int line,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define KT_CHECK(cond)                                                \
	do {                                                          \
		if (!(cond)) {                                        \
			ktest_fail(kt, __FILE__, __LINE__, "%s", #cond); \
			return;                                       \
		}                                                     \
	} while (0)

#define KT_CHECK_EQ(a, b)                                                  \
	do {                                                               \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);              \
		if (a_ != b_) {                                            \
			ktest_fail(kt, __FILE__, __LINE__,                 \
				   "%s == %s (%ld vs %ld)", #a, #b, a_, b_); \
			return;                                            \
		}                                                          \
	} while (0)

/* Generous: under multi-threaded TCG 8 vCPUs share 2 host cores. */
#define KT_TIMEOUT_MS 20000

/** Poll @cond, yielding, until true or @ms elapse. */
#define KT_WAIT(cond, ms)                                                \
	do {                                                             \
		uint64_t dl_ = arch_counter() + ms_to_ticks(ms);         \
		while (!(cond)) {                                        \
			if (arch_counter() > dl_) {                      \
				ktest_fail(kt, __FILE__, __LINE__,       \
					   "timed out waiting for %s",   \
					   #cond);                       \
				return;                                  \
			}                                                \
			ktest_idle_wait();                               \
		}                                                        \
	} while (0)

/** One polling step: sleep a tick, so lower priorities run too. */
void ktest_idle_wait(void);
/** Run every test whose name contains @filter ("all" runs all). */
void ktest_run_all(const char *filter);

#endif
