/*
 * Trace rings (<fulcrum/trace.h>, docs/tracing.md "Tests of the trace
 * rings"):
 *   trace_validates        TRACE_SET / TRACE_FRAME / TRACE_DUMP argument
 *                          checks; the mapping is read-only; the header
 *                          (version 2: a ring for every core)
 *   trace_every_core       a thread pinned to each core in turn: each
 *                          core's ring has the switch to it (on 16 cores:
 *                          cores 8-15 too, beyond version 1's 8 rings)
 *   trace_migrate_decision a thread moved from core 1 to core 2 by
 *                          FUL_SYS_MIGRATE with a decision id: MIG_OUT on
 *                          core 1 and MIG_IN on core 2, both with the id,
 *                          in time order
 *   trace_wrap_counts_lost more records than the ring holds on this core:
 *                          the oldest are overwritten and counted lost,
 *                          what is left is the newest, in time order
 * Each restores the class mask it found (a boot with trace= keeps its).
 */
#include <stdatomic.h>
#include <string.h>

#include <ful/trace.h>

#include "utest.h"

#define TT_DECISION 4242u

static const struct ful_trace_hdr *tt_hdr;

/** Map the trace area read-only at FUL_TRACE_VADDR (once, ut_trace_hdr):
 *  tt_hdr. A READ capability of it is never mapped writable. */
static void tt_map(struct ut *ut)
{
	if (tt_hdr)
		return;
	long slot = ful_slot_alloc();
	UT_CHECK(slot > 0);
	UT_CHECK_EQ(ful_trace_frame(FUL_SLOT_SCHED, (unsigned)slot), 0);
	UT_CHECK_EQ(ful_map(FUL_SLOT_SELF_VS, (unsigned)slot, FUL_TRACE_VADDR,
			    FUL_R_READ | FUL_R_WRITE), -FUL_ERIGHTS);
	ful_slot_drop((unsigned)slot);
	tt_hdr = ut_trace_hdr();
	UT_CHECK(tt_hdr != NULL);
}

UTEST(trace_validates, 1)
{
	UT_CHECK_EQ(ful_trace_set(FUL_SLOT_POOL, FUL_TRC_ALL, 0), -FUL_ETYPE);
	UT_CHECK_EQ(ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_ALL + 1, 0),
		    -FUL_EINVAL);
	UT_CHECK_EQ(ful_trace_set(FUL_SLOT_SCHED, 0, 2), -FUL_EINVAL);
	UT_CHECK_EQ(ful_trace_frame(FUL_SLOT_POOL, 200), -FUL_ETYPE);
	UT_CHECK_EQ(ful_trace_frame(FUL_SLOT_SCHED, FUL_CSLOTS), -FUL_EBADCAP);
	UT_CHECK_EQ(ful_trace_frame(FUL_SLOT_SCHED, FUL_SLOT_SCHED),
		    -FUL_ESTATE); /* occupied */
	UT_CHECK_EQ(ful_trace_dump(FUL_SLOT_POOL), -FUL_ETYPE);
	tt_map(ut);
	const struct ful_trace_hdr *h = tt_hdr;
	if (!h)
		return;
	UT_CHECK_EQ(h->version, FUL_TRACE_VERSION);
	/* a ring for every core, after the header pages, in the area */
	UT_CHECK_EQ(h->ncpus, ut_ncpus());
	UT_CHECK_EQ(h->rec_size, sizeof(struct ful_trace_rec));
	UT_CHECK(h->ring_recs >= FUL_TRACE_KIB_MIN * 1024 / 32);
	UT_CHECK(h->ring_recs <= FUL_TRACE_KIB_MAX * 1024 / 32);
	UT_CHECK_EQ(h->ring_recs & (h->ring_recs - 1), 0);
	UT_CHECK_EQ(h->ring_offset, FUL_TRACE_HDR_PAGES * 4096UL);
	UT_CHECK_EQ(h->size, h->ring_offset + (unsigned long)h->ncpus *
					      h->ring_recs * h->rec_size);
	UT_CHECK(h->ncpus * (h->ring_recs / 32) <= FUL_TRACE_RINGS_MAX_KIB);
	UT_CHECK_EQ(h->counter_freq, ful_counter_freq());
	/* a dump while tracing is on is refused */
	long old = ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_THREAD, 0);
	UT_CHECK(old >= 0);
	UT_CHECK_EQ(h->mask, FUL_TRC_THREAD);
	UT_CHECK_EQ(ful_trace_dump(FUL_SLOT_SCHED), -FUL_ESTATE);
	UT_CHECK_EQ(ful_trace_set(FUL_SLOT_SCHED, (unsigned long)old, 0),
		    FUL_TRC_THREAD);
}

static void tt_nop(void *arg)
{
	(void)arg;
}

/** Has ring @cpu, from its start, a switch to @tid? */
static bool tt_switched_in(const struct ful_trace_hdr *h, unsigned cpu,
			   unsigned tid)
{
	struct ful_trace_rec r;
	unsigned long head = __atomic_load_n(&h->ring[cpu].head,
					     __ATOMIC_ACQUIRE);
	for (unsigned long i = h->ring[cpu].start; i < head; i++)
		if (ful_trace_get(h, cpu, i, &r) && r.type == FUL_TR_SWITCH &&
		    r.b == tid && r.cpu == cpu)
			return true;
	return false;
}

UTEST(trace_every_core, 1)
{
	tt_map(ut);
	const struct ful_trace_hdr *h = tt_hdr;
	if (!h)
		return;
	UT_CHECK_EQ(h->ncpus, ut_ncpus());
	long old = ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_SWITCH, 0);
	UT_CHECK(old >= 0);
	unsigned missing = 0, first_missing = 0;
	for (unsigned c = 0; c < h->ncpus; c++) {
		/* each core's ring anew: it cannot wrap meanwhile */
		ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_SWITCH, FUL_TRACE_RESTART);
		static struct ful_thread th;
		memset(&th, 0, sizeof(th));
		struct ful_thread_args args = {.fn = tt_nop,
					       .pool = FUL_SLOT_POOL,
					       .vs = FUL_SLOT_SELF_VS,
					       .prio = 100, .cpu = c,
					       .name = "tteach"};
		UT_CHECK_EQ(ful_thread_spawn(&args, &th), 0);
		UT_WAIT(ful_thread_dead(th.slot));
		/* the record is stored before the switch: there by now */
		if (!tt_switched_in(h, c, (unsigned)th.tid) && !missing++)
			first_missing = c;
		ful_thread_reap(&th, UT_TIMEOUT_US);
	}
	ful_trace_set(FUL_SLOT_SCHED, (unsigned long)(old < 0 ? 0 : old), 0);
	if (missing)
		ut_fail(ut, __FILE__, __LINE__, "%u of %u cores without the "
			"switch to their thread, the first cpu%u", missing,
			h->ncpus, first_missing);
}

/** Find in ring @cpu, from its start, a record of @type about @tid. */
static bool tt_find(const struct ful_trace_hdr *h, unsigned cpu,
		    unsigned type, unsigned tid, struct ful_trace_rec *out)
{
	unsigned long head = __atomic_load_n(&h->ring[cpu].head,
					     __ATOMIC_ACQUIRE);
	for (unsigned long i = h->ring[cpu].start; i < head; i++)
		if (ful_trace_get(h, cpu, i, out) && out->type == type &&
		    out->a == tid)
			return true;
	return false;
}

static _Atomic int tt_stop;

static void tt_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&tt_stop))
		;
}

UTEST(trace_migrate_decision, 3)
{
	tt_map(ut);
	const struct ful_trace_hdr *h = tt_hdr;
	if (!h)
		return;
	static struct ful_thread th;
	memset(&th, 0, sizeof(th));
	atomic_store(&tt_stop, 0);
	struct ful_thread_args args = {.fn = tt_spin, .pool = FUL_SLOT_POOL,
				       .vs = FUL_SLOT_SELF_VS, .prio = 100,
				       .cpu = 1, .name = "ttspin"};
	UT_CHECK_EQ(ful_thread_spawn(&args, &th), 0);
	long old = ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_MIGRATE,
				 FUL_TRACE_RESTART);
	UT_CHECK(old >= 0);
	struct ful_move mv = {.tid = (unsigned)th.tid, .cpu = 2,
			      .decision = TT_DECISION};
	UT_CHECK_EQ(ful_migrate(FUL_SLOT_SCHED, &mv, 1), 1);
	struct ful_trace_rec out, in;
	UT_WAIT(tt_find(h, 2, FUL_TR_MIG_IN, (unsigned)th.tid, &in));
	UT_CHECK(tt_find(h, 1, FUL_TR_MIG_OUT, (unsigned)th.tid, &out));
	UT_CHECK_EQ(out.cpu, 1);
	UT_CHECK_EQ(out.b, 2);
	UT_CHECK_EQ(out.c, TT_DECISION);
	UT_CHECK_EQ(in.cpu, 2);
	UT_CHECK_EQ(in.b, 1);
	UT_CHECK_EQ(in.c, TT_DECISION);
	UT_CHECK(in.ts >= out.ts);
	ful_trace_set(FUL_SLOT_SCHED, (unsigned long)(old < 0 ? 0 : old), 0);
	atomic_store(&tt_stop, 1);
	UT_WAIT(ful_thread_dead(th.slot));
	ful_thread_reap(&th, UT_TIMEOUT_US);
}

UTEST(trace_wrap_counts_lost, 1)
{
	tt_map(ut);
	const struct ful_trace_hdr *h = tt_hdr;
	if (!h)
		return;
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	long n = ut_ntfn_new();
	UT_CHECK(n > 0);
	/* each 1 us sleep: a timer IRQ's entry and exit, a wake-up and
	 * two switches, all on this core (the test's thread is pinned) */
	long old = ful_trace_set(FUL_SLOT_SCHED, FUL_TRC_SWITCH | FUL_TRC_WAKE |
				 FUL_TRC_IRQ, FUL_TRACE_RESTART);
	UT_CHECK(old >= 0);
	const struct ful_trace_ring_hdr *r = &h->ring[si.cpu];
	unsigned long want = h->ring_recs + 100, sleeps = 0;
	while (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->start < want &&
	       sleeps++ < 20 * want)
		ful_ntfn_wait((unsigned)n, NULL, 1);
	ful_trace_set(FUL_SLOT_SCHED, (unsigned long)(old < 0 ? 0 : old), 0);
	unsigned long head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	UT_CHECK(head - r->start >= want);
	UT_CHECK_EQ(ful_trace_lost(h, r, head), head - r->start - h->ring_recs);
	/* gone: the oldest; kept: the newest ring_recs, in time order */
	struct ful_trace_rec a, b;
	UT_CHECK(!ful_trace_get(h, si.cpu, r->start, &a));
	UT_CHECK(!ful_trace_get(h, si.cpu, head - h->ring_recs - 1, &a));
	/* the oldest slot is the one the next record overwrites: a reader
	 * of a live ring cannot trust it (ful_trace_get) */
	UT_CHECK(ful_trace_get(h, si.cpu, head - h->ring_recs + 1, &a));
	unsigned bad = 0;
	for (unsigned long i = head - h->ring_recs + 2; i < head; i++) {
		if (!ful_trace_get(h, si.cpu, i, &b) || b.ts < a.ts ||
		    b.cpu != si.cpu)
			bad++;
		a = b;
	}
	UT_CHECK_EQ(bad, 0);
	ful_slot_drop((unsigned)n);
}
