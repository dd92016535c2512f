/*
 * FUL_SYS_IRQSTAT (<fulcrum/irqstat.h>): the IRQ-masked stretches the
 * instrumented kernel (build/kernel-irqstat.elf) records per core.
 * The suite that boots that kernel passes the boot argument
 * irqstat_kernel; without it the kernel must be the default one, which
 * keeps no figures and answers every call -FUL_ENOSYS.
 *
 * irqstat_catches_frame_create: a FRAME_CREATE of 64 pages zeroes them
 * in one chunk with IRQs masked (docs/bench-kernel.md, frame_create_64:
 * about 42,700 instructions under -icount); on the core that ran it the
 * longest stretch must be that call (cause: system call 16, ended by
 * the eret) and cover at least half of the call's time seen from user
 * space, and a 16 MiB one must show its preemption windows (a stretch
 * per 64-page chunk at least, the longest well below the whole call).
 * A reset clears it all.
 * irqstat_trace_dump_windows: a TRACE_DUMP of a whole ring (the suite's
 * rings are large: boot argument trace_kib) opens IRQs between its
 * lines: on the dumping core a stretch per line at least, the longest
 * well below the call, as for the 16 MiB FRAME_CREATE.
 * irqstat_badinput: wrong capability, core, pointer and flags.
 */
#include <stdatomic.h>
#include <string.h>

#include <ful/trace.h>

#include "utest.h"

#define IQ_PAGES 64
#define IQ_TRIES 5 /* tries of each size, for a host stall (iq_worker) */
#define IQ_NS_PER_TICK(f) (1000000000UL / (f))

static bool iq_instrumented(void)
{
	char v[8];
	return ut_bootarg("irqstat_kernel", v, sizeof v);
}

static struct iq {
	unsigned cpu;
	long err;                     /* first failing call's result */
	unsigned long call_ns[2];     /* FRAME_CREATE 64 pages / max, user's view */
	struct ful_irqstat after[2];  /* the core's figures after each call */
	struct ful_irqstat cleared;   /* after a reset */
	_Atomic bool done;
} iq;

/** Reset this core's figures, make a frame of @pages, read them. */
static long iq_one(unsigned pages, unsigned long *ns, struct ful_irqstat *out)
{
	long slot = ful_slot_alloc(), err;
	if (slot < 0)
		return slot;
	if ((err = ful_irqstat(FUL_SLOT_SCHED, iq.cpu, NULL, FUL_IRQSTAT_RESET)))
		return err;
	unsigned long t0 = ful_counter();
	err = ful_frame_create(FUL_SLOT_POOL, (unsigned)slot, pages);
	unsigned long t1 = ful_counter();
	*ns = (t1 - t0) * IQ_NS_PER_TICK(ful_counter_freq());
	if (!err)
		err = ful_irqstat(FUL_SLOT_SCHED, iq.cpu, out, 0);
	ful_slot_drop((unsigned)slot);
	return err;
}

static bool iq_is_frame_create(uint32_t cause)
{
	return FUL_IRQS_KIND(cause) == FUL_IRQS_SYSCALL &&
	       FUL_IRQS_DETAIL(cause) == FUL_SYS_FRAME_CREATE;
}

/** On core iq.cpu: the two frames, then a reset and a read. */
static void iq_worker(void *arg)
{
	(void)arg;
	/* Twice at least: under multi-threaded TCG the first run of a path
	 * also pays its translation, in host time, wherever IRQs stand.
	 * Then up to IQ_TRIES more while the host's own stalls spoil the
	 * figure: a stall of this vCPU outside the masked stretch only
	 * lengthens the call seen from user space, one inside a chunk only
	 * lengthens that chunk, one inside another masked stretch (a timer
	 * interrupt's handler) makes that one the longest: a try without
	 * one is the one to judge. */
	long err = iq_one(IQ_PAGES, &iq.call_ns[0], &iq.after[0]);
	for (unsigned k = 0; !err && k < IQ_TRIES; k++) {
		err = iq_one(IQ_PAGES, &iq.call_ns[0], &iq.after[0]);
		if (iq_is_frame_create(iq.after[0].max_cause) &&
		    iq.after[0].max >= iq.call_ns[0] / 2)
			break;
	}
	for (unsigned k = 0; !err && k < IQ_TRIES; k++) {
		err = iq_one(FUL_FRAME_MAX_PAGES, &iq.call_ns[1], &iq.after[1]);
		if (iq_is_frame_create(iq.after[1].max_cause) &&
		    iq.after[1].max < iq.call_ns[1] / 4 * 3)
			break;
	}
	if (!err)
		err = ful_irqstat(FUL_SLOT_SCHED, iq.cpu, NULL,
				  FUL_IRQSTAT_RESET);
	if (!err)
		err = ful_irqstat(FUL_SLOT_SCHED, iq.cpu, &iq.cleared, 0);
	iq.err = err;
	atomic_store(&iq.done, true);
}

UTEST(irqstat_catches_frame_create, 1)
{
	if (!iq_instrumented()) {
		struct ful_irqstat s;
		UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0, &s, 0), -FUL_ENOSYS);
		UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0, NULL,
					FUL_IRQSTAT_RESET), -FUL_ENOSYS);
		return;
	}
	memset(&iq, 0, sizeof iq);
	iq.cpu = ut_ncpus() - 1;
	struct ful_thread th;
	struct ful_thread_args a = {.fn = iq_worker, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 200,
				    .cpu = iq.cpu, .name = "irqstat"};
	UT_CHECK_EQ(ful_thread_spawn(&a, &th), 0);
	UT_WAIT(atomic_load(&iq.done));
	ful_thread_reap(&th, UT_TIMEOUT_US);
	UT_CHECK_EQ(iq.err, 0);
	const struct ful_irqstat *s = &iq.after[0];
	printf("irqstat: 64 pages: call %lu ns, longest masked %lu (cause "
	       "%#x end %u), %lu stretches\n", iq.call_ns[0],
	       (unsigned long)s->max, s->max_cause, s->max_end,
	       (unsigned long)s->count);
	UT_CHECK(iq_is_frame_create(s->max_cause));
	UT_CHECK(!(s->max_cause & FUL_IRQS_RESUMED));
	UT_CHECK_EQ(s->max_end, FUL_IRQS_END_ERET);
	UT_CHECK(s->max >= iq.call_ns[0] / 2);
	UT_CHECK(s->count > 0 && s->total >= s->max);
	/* 16 MiB: 64 chunks with a window between them */
	s = &iq.after[1];
	printf("irqstat: 16 MiB: call %lu ns, longest masked %lu (cause %#x "
	       "end %u), %lu stretches\n", iq.call_ns[1],
	       (unsigned long)s->max, s->max_cause, s->max_end,
	       (unsigned long)s->count);
	printf("irqstat: 16 MiB: stretches by log2 bucket:");
	for (unsigned b = 0; b < FUL_IRQSTAT_BUCKETS; b++)
		if (s->hist[b])
			printf(" <%lu:%lu", 1UL << (b + 1),
			       (unsigned long)s->hist[b]);
	printf("\n");
	UT_CHECK(iq_is_frame_create(s->max_cause));
	/* one stretch per chunk at least (not one of the whole call); the
	 * longest well below the call even if the host stalls a chunk */
	UT_CHECK(s->count >= FUL_FRAME_MAX_PAGES / IQ_PAGES);
	UT_CHECK(s->max < iq.call_ns[1] / 4 * 3);
	unsigned long in_hist = 0;
	for (unsigned b = 0; b < FUL_IRQSTAT_BUCKETS; b++)
		in_hist += s->hist[b];
	UT_CHECK_EQ(in_hist, s->count);
	/* the reset: no frame made since, so no FRAME_CREATE stretch */
	s = &iq.cleared;
	UT_CHECK(s->since >= iq.after[1].now);
	UT_CHECK(s->count < iq.after[1].count);
	UT_CHECK(s->count == 0 || !iq_is_frame_create(s->max_cause));
}

#define IQD_TRIES 3      /* dumps, for a host stall (as iq_worker's) */
#define IQD_LINE_RECS 8  /* records per TRACE-DATA line (trace_out.c) */

static struct iqd {
	unsigned cpu;
	long err;                 /* first failing call's result */
	unsigned long recs;       /* records of iqd.cpu's ring in the dump */
	unsigned long call_ns;    /* the last TRACE_DUMP, user's view */
	struct ful_irqstat fig;   /* the core's figures after it */
	_Atomic bool done;
} iqd;

/** Fill this core's ring (iqd.cpu's) with @h->ring_recs records and
 *  more: each 1 us sleep is a timer IRQ's entry and exit, a wake-up and
 *  two switches, all here. Tracing is off again afterwards. */
static long iqd_fill(const struct ful_trace_hdr *h)
{
	long n = ut_ntfn_new();
	if (n < 0)
		return n;
	const struct ful_trace_ring_hdr *r = &h->ring[iqd.cpu];
	long err = ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_SWITCH | FUL_TRC_WAKE |
				 FUL_TRC_IRQ, FUL_TRACE_RESTART);
	unsigned long sleeps = 0, want = h->ring_recs;
	while (err >= 0 &&
	       __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->start < want &&
	       sleeps++ < 20 * want)
		ful_ntfn_wait((unsigned)n, NULL, 1);
	long off = ful_trace_set(FUL_SLOT_SCHED, 0, 0);
	ful_slot_drop((unsigned)n);
	iqd.recs = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->start;
	if (iqd.recs > h->ring_recs - 1) /* the oldest slot is not printed */
		iqd.recs = h->ring_recs - 1;
	return err < 0 ? err : off < 0 ? off : 0;
}

/** The dump stays within the bound: a stretch per line at least, the
 *  longest below three quarters of the call. */
static bool iqd_within(void)
{
	return iqd.fig.count >= iqd.recs / IQD_LINE_RECS &&
	       iqd.fig.max < iqd.call_ns / 4 * 3;
}

/** On core iqd.cpu: fill its ring, then dump (reset, TRACE_DUMP, read)
 *  until a dump is within the bound or IQD_TRIES have run (the records
 *  stay: each dump prints the same). */
static void iqd_worker(void *arg)
{
	const struct ful_trace_hdr *h = arg;
	long err = iqd_fill(h);
	for (unsigned k = 0; !err && k < IQD_TRIES; k++) {
		err = ful_irqstat(FUL_SLOT_SCHED, iqd.cpu, NULL,
				  FUL_IRQSTAT_RESET);
		unsigned long t0 = ful_counter();
		if (!err)
			err = ful_trace_dump(FUL_SLOT_SCHED);
		unsigned long t1 = ful_counter();
		iqd.call_ns = (t1 - t0) * IQ_NS_PER_TICK(ful_counter_freq());
		if (!err)
			err = ful_irqstat(FUL_SLOT_SCHED, iqd.cpu, &iqd.fig, 0);
		if (!err && iqd_within())
			break;
	}
	iqd.err = err;
	atomic_store(&iqd.done, true);
}

UTEST(irqstat_trace_dump_windows, 1)
{
	if (!iq_instrumented()) {
		UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0, NULL, 0), -FUL_ENOSYS);
		return;
	}
	const struct ful_trace_hdr *h = ut_trace_hdr();
	UT_CHECK(h != NULL);
	UT_CHECK_EQ(h->mask, 0); /* a dump needs tracing off */
	memset(&iqd, 0, sizeof iqd);
	iqd.cpu = ut_ncpus() - 1;
	struct ful_thread th;
	struct ful_thread_args a = {.fn = iqd_worker, .arg = (void *)h,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 200,
				    .cpu = iqd.cpu, .name = "irqstatdump"};
	UT_CHECK_EQ(ful_thread_spawn(&a, &th), 0);
	UT_WAIT(atomic_load(&iqd.done));
	ful_thread_reap(&th, UT_TIMEOUT_US);
	UT_CHECK_EQ(iqd.err, 0);
	const struct ful_irqstat *s = &iqd.fig;
	printf("irqstat: TRACE_DUMP of %lu records (%u per ring): call %lu "
	       "ns, longest masked %lu (cause %#x end %u), %lu stretches\n",
	       iqd.recs, h->ring_recs, iqd.call_ns, (unsigned long)s->max,
	       s->max_cause, s->max_end, (unsigned long)s->count);
	printf("irqstat: TRACE_DUMP: stretches by log2 bucket:");
	for (unsigned b = 0; b < FUL_IRQSTAT_BUCKETS; b++)
		if (s->hist[b])
			printf(" <%lu:%lu", 1UL << (b + 1),
			       (unsigned long)s->hist[b]);
	printf("\n");
	UT_CHECK(iqd.recs >= h->ring_recs - 1); /* a whole ring */
	UT_CHECK(s->count >= iqd.recs / IQD_LINE_RECS);
	UT_CHECK(s->max < iqd.call_ns / 4 * 3);
}

UTEST(irqstat_badinput, 1)
{
	struct ful_irqstat s;
	long want_einval = iq_instrumented() ? -FUL_EINVAL : -FUL_ENOSYS;
	long want_efault = iq_instrumented() ? -FUL_EFAULT : -FUL_ENOSYS;
	bool inst = iq_instrumented();
	/* capabilities: empty / out of range, wrong type, no ADMIN */
	UT_CHECK_EQ(ful_irqstat(0, 0, &s, 0), inst ? -FUL_EBADCAP : -FUL_ENOSYS);
	UT_CHECK_EQ(ful_irqstat(100000, 0, &s, 0),
		    inst ? -FUL_EBADCAP : -FUL_ENOSYS);
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_POOL, 0, &s, 0),
		    inst ? -FUL_ETYPE : -FUL_ENOSYS);
	long slot = ful_slot_alloc();
	UT_CHECK(slot > 0);
	UT_CHECK_EQ(ful_cap_copy(FUL_SLOT_SCHED, FUL_SLOT_SELF_VS,
				 (unsigned)slot, FUL_R_READ, 0), 0);
	long r = ful_irqstat((unsigned)slot, 0, &s, 0);
	ful_slot_drop((unsigned)slot);
	UT_CHECK_EQ(r, inst ? -FUL_ERIGHTS : -FUL_ENOSYS);
	/* cores: none of that number, beyond every limit */
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, ut_ncpus(), &s, 0), want_einval);
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, ~0u, NULL, FUL_IRQSTAT_RESET),
		    want_einval);
	/* flags */
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0, &s, 2), want_einval);
	/* pointers: unmapped, the kernel's, read-only (code), straddling
	 * the end of the address space */
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0,
				(struct ful_irqstat *)0x10, 0), want_efault);
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0,
				(struct ful_irqstat *)0xffff000000001000UL, 0),
		    want_efault);
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0,
				(struct ful_irqstat *)(void *)ut_ncpus, 0),
		    want_efault);
	UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0,
				(struct ful_irqstat *)(~0UL - 16), 0),
		    want_efault);
	/* a bad pointer fails before a reset: the figures stay */
	if (inst) {
		struct ful_irqstat a, b;
		UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0, &a, 0), 0);
		UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0,
					(struct ful_irqstat *)0x10,
					FUL_IRQSTAT_RESET), -FUL_EFAULT);
		UT_CHECK_EQ(ful_irqstat(FUL_SLOT_SCHED, 0, &b, 0), 0);
		UT_CHECK_EQ(b.since, a.since);
		UT_CHECK(b.count >= a.count);
	}
}
