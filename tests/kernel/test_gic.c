/*
 * The interrupt controller on every core, on both GICs (GICv2 up to 8
 * cores, GICv3 beyond; the 16- and 32-core suites run these on GICv3,
 * where cores 16 and up sit in a second cluster, Aff1 = 1):
 *   sgi_every_core  rounds of one broadcast: core 0 posts a call to
 *                   every other core and sends all the SGIs with one
 *                   arch_send_ipi; each round waits until every core ran
 *                   its call. Idle cores sleep in wfi and drain their
 *                   mailbox only on IPI_ICC, so a core the SGI misses
 *                   (a wrong cluster, range or target bit) fails it.
 *   migrate_every_core  a sleeping-and-waking thread moved to each core
 *                   in turn, to the last one included, must run there.
 * The IRQ capability's routing beyond core 8 is irq_follows_thread
 * (test_irq.c).
 */
#include "icc.h"
#include "ktest.h"
#include "sched.h"

#define SGI_ROUNDS 20

static struct {
	_Atomic uint32_t hits[MAX_CPUS]; /* calls run, by the core they ran on */
	_Atomic uint32_t wrong;          /* calls run on another core */
} sg;

static void sgi_hit(void *arg)
{
	unsigned want = (unsigned)(uintptr_t)arg, me = this_cpu()->id;
	if (me != want)
		atomic_fetch_add(&sg.wrong, 1);
	atomic_fetch_add(&sg.hits[me], 1);
}

/** One round: a call posted to each other core, one flush sends the
 *  SGIs (the cores owed an IPI_ICC, as one mask). Returns the cores
 *  posted to, or 0 if the pool ran dry. */
static uint64_t sgi_round(void)
{
	uint64_t flags = arch_irq_save(), posted = 0;
	unsigned me = this_cpu()->id;
	for (unsigned c = 0; c < machine.ncpus; c++) {
		if (c == me)
			continue;
		struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
		if (!r)
			break;
		r->fn = sgi_hit;
		r->arg = (void *)(uintptr_t)c;
		r->flags = ICC_F_AUTOFREE;
		icc_post(c, r);
		posted |= 1ull << c;
	}
	icc_flush();
	arch_irq_restore(flags);
	return posted;
}

static bool sgi_all_hit(uint64_t cores, uint32_t n)
{
	for (unsigned c = 0; c < machine.ncpus; c++)
		if ((cores >> c & 1) && atomic_load(&sg.hits[c]) != n)
			return false;
	return true;
}

KTEST(sgi_every_core, 2)
{
	for (unsigned c = 0; c < MAX_CPUS; c++)
		atomic_store(&sg.hits[c], 0);
	atomic_store(&sg.wrong, 0);
	uint64_t others = 0;
	for (uint32_t r = 1; r <= SGI_ROUNDS; r++) {
		uint64_t posted = sgi_round();
		if (r == 1)
			others = posted;
		KT_CHECK_EQ(posted, others);
		unsigned n = 0; /* no popcount: -mgeneral-regs-only */
		for (uint64_t m = posted; m; m &= m - 1)
			n++;
		KT_CHECK_EQ(n, machine.ncpus - 1);
		KT_WAIT(sgi_all_hit(posted, r), KT_TIMEOUT_MS);
	}
	KT_CHECK_EQ(atomic_load(&sg.wrong), 0);
}

static _Atomic uint32_t mv_where, mv_stop;

static void mv_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&mv_stop)) {
		atomic_store(&mv_where, this_cpu_id());
		thread_sleep_ms(1);
	}
}

KTEST(migrate_every_core, 2)
{
	atomic_store(&mv_stop, 0);
	atomic_store(&mv_where, ~0u);
	struct thread_attr a = {.name = "mv", .prio = 20, .slice_ms = 2,
				.cpu = 0};
	int tid = thread_create(&a, mv_main, NULL);
	KT_CHECK(tid > 0);
	KT_WAIT(atomic_load(&mv_where) == 0, KT_TIMEOUT_MS);
	for (unsigned c = 1; c < machine.ncpus && !kt->failed; c++) {
		KT_CHECK_EQ(thread_migrate((tid_t)tid, c), 0);
		KT_WAIT(atomic_load(&mv_where) == c, KT_TIMEOUT_MS);
	}
	atomic_store(&mv_stop, 1);
	int err = thread_kill((tid_t)tid); /* it may have ended by itself */
	KT_CHECK(err == 0 || err == -FUL_ENOTHREAD);
}
