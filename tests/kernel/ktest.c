/* In-kernel test runner (see ktest.h). */
#include "ktest.h"
#include "load.h"
#include "percpu.h"
#include "thread.h"

extern const struct ktest __ktests_start[], __ktests_end[];

void ktest_fail(struct ktest_ctx *kt, const char *file, int line,
		const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!kt->failed)
		ksnprintf(kt->why, sizeof(kt->why), "%s:%d: %s", file, line,
			  msg);
	kt->failed = true;
}

void ktest_idle_wait(void)
{
	thread_sleep_ms(1);
}

static bool ktest_match(const char *name, const char *filter)
{
	if (!strcmp(filter, "all") || !*filter)
		return true;
	size_t n = strlen(filter);
	for (; *name; name++)
		if (!strncmp(name, filter, n))
			return true;
	return false;
}

/** Should test @t run under @filter? "slow" selects the slow tests
 *  only, "all" every other one; a name (or part of one) selects both. */
static bool ktest_selected(const struct ktest *t, const char *filter)
{
	if (!strcmp(filter, "slow"))
		return t->slow;
	return ktest_match(t->name, filter);
}

struct load_check {
	bool ok;
	char why[160];
};

static void ktest_load_check_here(void *arg)
{
	struct load_check *lc = arg;
	uint64_t flags = arch_irq_save();
	lc->ok = load_verify_cpu(owner_irq(), lc->why, sizeof(lc->why));
	arch_irq_restore(flags);
}

/** The load area matches the thread table on every core. */
static void ktest_check_load(struct ktest_ctx *kt)
{
	for (unsigned i = 0; i < machine.ncpus; i++) {
		static struct load_check lc; /* outlives any wait (icc.h) */
		lc = (struct load_check){.ok = false};
		if (icc_call_sync(i, ktest_load_check_here, &lc) != 0)
			ktest_fail(kt, __FILE__, __LINE__,
				   "load check on cpu%u not run", i);
		else if (!lc.ok)
			ktest_fail(kt, __FILE__, __LINE__, "%s", lc.why);
	}
}

/** Kernel-wide invariants every test must leave intact. */
static void ktest_check_health(struct ktest_ctx *kt)
{
	uint64_t flags = arch_irq_save();
	uint64_t owed = this_cpu()->ipi_owed | this_cpu()->lbe_owed;
	arch_irq_restore(flags);
	if (owed) /* thread-context calls must not leave IPIs for later */
		ktest_fail(kt, __FILE__, __LINE__, "IPIs owed on return: %lx",
			   (unsigned long)owed);
	for (unsigned i = 0; i < machine.ncpus; i++) {
		if (cpus[i].stats.overlap)
			ktest_fail(kt, __FILE__, __LINE__,
				   "cpu%u switched in a thread live elsewhere", i);
	}
	ktest_check_load(kt);
}

void ktest_run_all(const char *filter)
{
	unsigned passed = 0, failed = 0;
	for (const struct ktest *t = __ktests_start; t < __ktests_end; t++) {
		if (!ktest_selected(t, filter))
			continue;
		if (t->slow && (!strcmp(filter, "all") || !*filter)) {
			kprintf("TEST-SKIP %s :: slow, run by make test-long\n",
				t->name);
			continue;
		}
		if (machine.ncpus < t->min_cpus) {
			kprintf("TEST-SKIP %s :: needs %u cores\n", t->name,
				t->min_cpus);
			continue;
		}
		struct ktest_ctx kt = {0};
		uint64_t t0 = arch_counter();
		t->fn(&kt);
		ktest_check_health(&kt);
		uint64_t us = ticks_to_us(arch_counter() - t0);
		kprintf("  %s took %lu ms\n", t->name, us / 1000);
		if (kt.failed) {
			kprintf("TEST-FAIL %s :: %s\n", t->name, kt.why);
			failed++;
		} else {
			kprintf("TEST-PASS %s\n", t->name);
			passed++;
		}
	}
	kprintf("TEST-DONE %u %u\n", passed, failed);
}
