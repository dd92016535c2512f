/*
 * In-kernel benchmarks, run with `bench=all` under QEMU
 * -icount shift=0,sleep=off, where PMCCNTR counts one per instruction
 * and is shared by all vCPUs: every window below is taken while the other
 * cores sit in WFI (idle cores are tickless), so it counts only the
 * measured core's instructions. Each prints
 *   BENCH <name> instructions <n> <sample>...
 * for tools/bench_report.py.
 *
 * Windows:
 *  sgi_trigger   arch_send_ipi() on the sender, IRQs masked.
 *  mailbox_post  allocate a pool record, fill it, push it (no SGI).
 *  sgi_handle    on the target, IRQ exception entry to eret for one
 *                IPI_ICC carrying one CALL_FUNC; measured by the
 *                instrumented vector table (vectors_bench in vectors.S).
 *  migrate_ready thread_migrate() of a READY thread on its owner core
 *                (lookup, unqueue, hand-over, SGI) plus the target's
 *                whole IRQ path accepting the TASK_IN.
 * The counter-read overhead (measured) is subtracted from sender-side
 * windows. The vector window misses exactly 5 instructions of the real
 * path (sub/stp before the first read, ldp/add/eret after the second;
 * the instrumented slot's mrs/str stand in for mov/b), added back.
 */
#include "kernel.h"
#include "sched.h"

#define BENCH_RUNS 50
#define BENCH_WARMUP 5
#define VECTOR_UNCOUNTED 5

static uint64_t samples[BENCH_RUNS];
static uint64_t read_overhead;

static void bench_print(const char *name)
{
	char line[1024];
	int len = ksnprintf(line, sizeof(line), "BENCH %s instructions %u", name,
			    BENCH_RUNS);
	for (unsigned i = 0; i < BENCH_RUNS && len < (int)sizeof(line) - 24; i++)
		len += ksnprintf(line + len, sizeof(line) - len, " %lu",
				 samples[i]);
	kprintf("%s\n", line);
}

/** Spin (yielding the vCPU) until *@p differs from @old. */
static void bench_wait_change(volatile uint64_t *p, uint64_t old)
{
	while (*p == old)
		arch_cpu_relax();
}

static void bench_calibrate(void)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < 10; i++) {
		uint64_t t0 = arch_cycles();
		uint64_t t1 = arch_cycles();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	read_overhead = best;
	kprintf("bench: counter read overhead %lu instructions\n", best);
}

static void bench_sgi_trigger(void)
{
	volatile uint64_t *in = &cpus[1].stats.ipi_in[IPI_RE_SCHEDULE - 8];
	for (int i = -BENCH_WARMUP; i < BENCH_RUNS; i++) {
		uint64_t before = *in;
		uint64_t flags = arch_irq_save();
		uint64_t t0 = arch_cycles();
		arch_send_ipi(1ull << 1, IPI_RE_SCHEDULE);
		uint64_t t1 = arch_cycles();
		arch_irq_restore(flags);
		bench_wait_change(in, before);
		if (i >= 0)
			samples[i] = t1 - t0 - read_overhead;
	}
	bench_print("sgi_trigger");
}

static _Atomic uint64_t nop_calls;
static void bench_nop(void *arg)
{
	(void)arg;
	atomic_fetch_add_explicit(&nop_calls, 1, memory_order_relaxed);
}

static void bench_mailbox_post(void)
{
	for (int i = -BENCH_WARMUP; i < BENCH_RUNS; i++) {
		uint64_t before = atomic_load(&nop_calls);
		uint64_t flags = arch_irq_save();
		uint64_t t0 = arch_cycles();
		struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
		r->fn = bench_nop;
		r->flags = ICC_F_AUTOFREE;
		icc_post(1, r);
		uint64_t t1 = arch_cycles();
		icc_flush();
		arch_irq_restore(flags);
		bench_wait_change((volatile uint64_t *)&nop_calls, before);
		if (i >= 0)
			samples[i] = t1 - t0 - read_overhead;
	}
	bench_print("mailbox_post");
}

/** On the target core: the instrumented vectors on (and idle polling
 *  off, so that an idle core takes its SGIs as exceptions), or back. */
static void bench_vectors_on(void *arg)
{
	arch_bench_vectors(arg != NULL);
	this_cpu()->idle_poll = arg == NULL;
}

/** Post one CALL_FUNC to cpu1 and return its entry-to-eret count. */
static uint64_t bench_one_handle(void)
{
	volatile uint64_t *delta = &cpus[1].bench_delta;
	*delta = 0;
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	r->fn = bench_nop;
	r->flags = ICC_F_AUTOFREE;
	icc_post(1, r);
	icc_flush();
	arch_irq_restore(flags);
	bench_wait_change(delta, 0);
	return *delta + VECTOR_UNCOUNTED;
}

static void bench_sgi_handle(void)
{
	icc_call_sync(1, bench_vectors_on, (void *)1);
	for (int i = -BENCH_WARMUP; i < BENCH_RUNS; i++) {
		uint64_t v = bench_one_handle();
		if (i >= 0)
			samples[i] = v;
	}
	icc_call_sync(1, bench_vectors_on, NULL);
	bench_print("sgi_handle");
}

static void bench_dormant(void *arg)
{
	(void)arg;
	for (;;)
		thread_park();
}

/** One READY thread cpu0 -> cpu1 (parked, so it only queues it). */
static uint64_t bench_one_migration(tid_t tid)
{
	volatile uint64_t *delta = &cpus[1].bench_delta;
	*delta = 0;
	uint64_t flags = arch_irq_save();
	uint64_t t0 = arch_cycles();
	thread_migrate(tid, 1);
	uint64_t t1 = arch_cycles();
	arch_irq_restore(flags);
	bench_wait_change(delta, 0);
	uint64_t total = t1 - t0 - read_overhead + *delta + VECTOR_UNCOUNTED;
	/* bring it back, unmeasured, and wait until it is READY on cpu0 */
	thread_migrate(tid, 0);
	struct thread *t = thread_lookup(tid);
	while (atomic_load(&t->cpu) != 0 || atomic_load(&t->state) != T_READY)
		arch_cpu_relax();
	return total;
}

static void bench_migrate_ready(void)
{
	struct thread_attr a = {.name = "bench-mig", .prio = 1, .slice_ms = 1,
				.cpu = 0};
	int tid = thread_create(&a, bench_dormant, NULL);
	if (tid < 0)
		panic("bench: cannot create thread");
	icc_signal(1, IPI_RUN_IDLE);
	while (!atomic_load(&cpus[1].parked))
		arch_cpu_relax();
	icc_call_sync(1, bench_vectors_on, (void *)1);
	for (int i = -BENCH_WARMUP; i < BENCH_RUNS; i++) {
		uint64_t v = bench_one_migration((tid_t)tid);
		if (i >= 0)
			samples[i] = v;
	}
	icc_call_sync(1, bench_vectors_on, NULL);
	icc_signal(1, IPI_RE_SCHEDULE);
	thread_kill((tid_t)tid);
	bench_print("migrate_ready");
}

void bench_run(const char *which)
{
	(void)which;
	if (machine.ncpus < 2) {
		kprintf("bench: needs at least 2 cores\n");
		kprintf("BENCH-DONE 0\n");
		return;
	}
	bench_calibrate();
	bench_sgi_trigger();
	bench_mailbox_post();
	bench_sgi_handle();
	bench_migrate_ready();
	kprintf("BENCH-DONE 4\n");
}
