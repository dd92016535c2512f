/* Host tests for arch/fake: the host twin of the inline arch hooks. */
#define HTEST_MAIN
#include "host_test.h"

#include <pthread.h>

#include "arch.h"
#include "spinlock.h"

struct cpu {
	int id;
};

HTEST(this_cpu_is_per_thread)
{
	static struct cpu c0 = {0};
	CHECK(arch_this_cpu() == NULL);
	arch_set_this_cpu(&c0);
	CHECK(arch_this_cpu() == &c0);
	arch_set_this_cpu(NULL);
}

static void *other_cpu(void *arg)
{
	struct cpu *c = arg;
	if (arch_this_cpu() != NULL)
		return "fresh thread has a cpu";
	arch_set_this_cpu(c);
	for (int i = 0; i < 1000; i++) {
		if (arch_this_cpu() != c)
			return "cpu changed under the thread";
		arch_cpu_relax();
	}
	if (!arch_irq_enabled())
		return "fresh thread starts with IRQs masked";
	arch_irq_disable();
	return NULL;
}

HTEST(this_cpu_and_irqs_thread_local)
{
	static struct cpu cs[4] = {{0}, {1}, {2}, {3}};
	pthread_t th[4];
	arch_set_this_cpu(&cs[0]);
	for (int i = 1; i < 4; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, other_cpu, &cs[i]), 0);
	for (int i = 1; i < 4; i++) {
		void *err = NULL;
		pthread_join(th[i], &err);
		if (err)
			HTEST_FAIL_("thread %d: %s", i, (const char *)err);
	}
	CHECK(arch_this_cpu() == &cs[0]);
	CHECK(arch_irq_enabled()); /* other threads masked only their own */
	arch_set_this_cpu(NULL);
}

HTEST(irq_save_restore_nest)
{
	CHECK(arch_irq_enabled());
	uint64_t a = arch_irq_save();
	CHECK(!arch_irq_enabled());
	uint64_t b = arch_irq_save();
	CHECK(!arch_irq_enabled());
	arch_irq_restore(b);
	CHECK(!arch_irq_enabled()); /* inner restore keeps them masked */
	arch_irq_restore(a);
	CHECK(arch_irq_enabled());
	arch_irq_disable();
	CHECK(!arch_irq_enabled());
	uint64_t c = arch_irq_save();
	arch_irq_enable();
	CHECK(arch_irq_enabled());
	arch_irq_restore(c);
	CHECK(!arch_irq_enabled());
	arch_irq_enable();
	CHECK(arch_irq_enabled());
}

HTEST(spinlock_irqsave)
{
	spinlock_t l = SPINLOCK_INIT;
	uint64_t f = spin_lock_irqsave(&l);
	CHECK(!arch_irq_enabled());
	CHECK_EQ(atomic_load(&l.locked), 1);
	spin_unlock_irqrestore(&l, f);
	CHECK(arch_irq_enabled());
	CHECK_EQ(atomic_load(&l.locked), 0);
}

static spinlock_t counter_lock = SPINLOCK_INIT;
static uint64_t counter;

static void *bump(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		uint64_t f = spin_lock_irqsave(&counter_lock);
		counter++;
		spin_unlock_irqrestore(&counter_lock, f);
	}
	return NULL;
}

HTEST(spinlock_mutual_exclusion)
{
	pthread_t th[4];
	counter = 0;
	for (int i = 0; i < 4; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, bump, NULL), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(counter, 80000);
}

HTEST(counters)
{
	CHECK_EQ(arch_counter_freq(), 1000000000);
	uint64_t t0 = arch_counter(), c0 = arch_cycles();
	uint64_t last = t0;
	for (int i = 0; i < 1000; i++) {
		uint64_t t = arch_counter();
		CHECK(t >= last); /* monotonic */
		last = t;
	}
	volatile uint64_t x = 0;
	while (arch_counter() - t0 < 2000000) /* 2 ms of busy work */
		x++;
	CHECK(arch_cycles() > c0);
	uint64_t el = arch_counter() - t0;
	CHECK(el >= 2000000 && el < 2000000000ull);
	arch_irq_disable();
	arch_wait_for_interrupt(); /* returns (spurious wake-up) */
	arch_irq_enable();
}
