/*
 * User-level interrupts (kernel/irq.c), from inside: a bound SPI goes
 * to the core of the thread it was bound for, and follows that thread
 * through every migration. IT_INTID, 8 below the last line (INTID 280
 * of GICv2's 288 lines, 248 of GICv3's 256 on QEMU virt), has no device;
 * the test makes it pending by hand (arch_irq_raise) and checks both
 * the distributor's routing (GICv2's ITARGETSR byte, GICv3's IROUTER)
 * and the core that took the interrupt. On 16 cores and more (GICv3)
 * the path goes through core 8 and the last core.
 */
#include "ipc.h"
#include "irq.h"
#include "obj.h"
#include "sched.h"
#include "ktest.h"
#include "kipc.h"

#define IT_INTID (arch_irq_lines() - 8)
#define IT_BITS 4

static void it_park(void *arg)
{
	atomic_fetch_add((_Atomic uint32_t *)arg, 1);
	for (;;)
		thread_park();
}

/** Raise the SPI and wait for its signal: it must be taken on @cpu. */
static void it_fire(struct ktest_ctx *kt, struct irq_handler *h,
		    struct ntfn *n, unsigned cpu)
{
	uint64_t bits = 0;
	KT_CHECK_EQ(arch_irq_targets(IT_INTID), 1ull << cpu);
	arch_irq_raise(IT_INTID);
	KT_CHECK_EQ(kipc_wait(n, 10000000, &bits), 0);
	KT_CHECK_EQ(bits, IT_BITS);
	KT_CHECK_EQ(irq_last_cpu(h), cpu);
	arch_irq_unmask(IT_INTID); /* the handler's ack */
}

KTEST(irq_follows_thread, 2)
{
	_Atomic uint32_t ran = 0;
	struct ntfn *n;
	KT_CHECK(arch_irq_lines() >= 96); /* beyond virtio-mmio's 48..79 */
	struct thread_attr a = {.name = "it-parked", .prio = 20,
				.slice_ms = 2, .cpu = 0};
	int tid = thread_create(&a, it_park, &ran);
	KT_CHECK(tid > 0);
	struct thread *t = thread_lookup((tid_t)tid);
	KT_WAIT(atomic_load(&ran) == 1 && atomic_load(&t->state) == T_BLOCKED,
		KT_TIMEOUT_MS);
	struct irq_handler *h = irq_claim(IT_INTID);
	KT_CHECK(h != NULL);
	KT_CHECK(irq_claim(IT_INTID) == NULL); /* one handler per SPI */
	KT_CHECK_EQ(kipc_ntfn_create(&n), 0);
	KT_CHECK_EQ(irq_bind(h, n, IT_BITS, t, 0), 0);
	KT_CHECK_EQ(irq_bind(h, n, IT_BITS, t, 0), -FUL_ESTATE);
	it_fire(kt, h, n, 0);
	unsigned last = machine.ncpus - 1;
	unsigned path[4] = {1, last > 8 ? 8 : last, last, 0};
	for (unsigned k = 0; k < 4 && !kt->failed; k++) {
		KT_CHECK_EQ(thread_migrate((tid_t)tid, path[k]), 0);
		KT_WAIT(atomic_load(&t->cpu) == path[k] &&
				atomic_load(&t->state) == T_BLOCKED,
			KT_TIMEOUT_MS);
		it_fire(kt, h, n, path[k]);
	}
	KT_CHECK_EQ(irq_unbind(h), 0);
	KT_CHECK_EQ(irq_unbind(h), -FUL_ESTATE);
	KT_CHECK_EQ(atomic_load(&t->irq_bound), 0);
	irq_release(h); /* the last reference frees the SPI */
	h = irq_claim(IT_INTID);
	KT_CHECK(h != NULL);
	irq_release(h);
	obj_put(ntfn_kobj(n));
	KT_CHECK_EQ(thread_kill((tid_t)tid), 0);
}
