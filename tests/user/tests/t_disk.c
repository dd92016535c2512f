/*
 * D, the disk driver server, from a client (<fulcrum/disk.h>). These
 * tests need the boot argument `disk` and a disk attached (the harness's
 * disk suites); without D they skip themselves.
 *
 *   disk_io             reads blocks the host wrote (pattern H), writes
 *                       pattern P to blocks 100..115 in one batch of 16
 *                       and to blocks 200..211 from three threads at
 *                       once, flushes, reads them all back; D must have
 *                       had many chains in flight and taken interrupts;
 *                       bad requests get their error. The harness then
 *                       checks the image file byte for byte (H where
 *                       nothing was written, P where it was).
 *   disk_irq_follows    moves D's interrupt thread to another core: its
 *                       next interrupt wakes it there (the SPI follows
 *                       it), and back.
 *
 * The patterns (also in tests/harness/run_tests.py, disk_pattern):
 *   H(b, i) = (31 i + 17 b + 0x5a) mod 256   byte i of block b, host
 *   P(b, i) = (7 i + 29 b + 0xa5) mod 256    byte i of block b, guest
 * The boot argument disk_v1 says the transport is legacy (version 1).
 */
#include <stdatomic.h>
#include <string.h>

#include <fulcrum/disk.h>

#include "utest.h"

#define DK_WIN_VA 0x50000000UL
#define DK_THREADS 3
#define DK_PER_THREAD 4

static unsigned char dk_h(unsigned long b, unsigned i)
{
	return (unsigned char)(31 * i + 17 * b + 0x5a);
}

static unsigned char dk_p(unsigned long b, unsigned i)
{
	return (unsigned char)(7 * i + 29 * b + 0xa5);
}

static unsigned char *dk_page(unsigned p)
{
	return (unsigned char *)(DK_WIN_VA + p * FUL_DISK_BLOCK);
}

/** One request; the reply's mr0 (0 or -FUL_E*), its mr[] in @out. */
static long dk_call(unsigned op, unsigned long blk, unsigned long n,
		    unsigned long page, struct ful_msg *out)
{
	struct ful_msg m = {.info = FUL_MSG(op, 0), .mr = {blk, n, page}};
	long err = ful_call(FUL_SYSPROG_SLOT_DISK, &m, UT_TIMEOUT_US);
	if (out)
		*out = m;
	return err < 0 ? err : (long)m.mr[0];
}

/** Map the window, once. False if D does not run. */
static bool dk_attach(void)
{
	static bool mapped;
	if ((ful_cap_info(FUL_SYSPROG_SLOT_DISK) & 0xff) != FUL_CAP_ENDPOINT)
		return false;
	if (!mapped && ful_map(FUL_SLOT_SELF_VS, FUL_SYSPROG_SLOT_DISK_WIN,
			       DK_WIN_VA, FUL_R_READ | FUL_R_WRITE) == 0)
		mapped = true;
	return mapped;
}

/** Does page @p hold pattern @pat of block @b? */
static bool dk_holds(unsigned p, unsigned long b,
		     unsigned char (*pat)(unsigned long, unsigned))
{
	const unsigned char *d = dk_page(p);
	for (unsigned i = 0; i < FUL_DISK_BLOCK; i++)
		if (d[i] != pat(b, i))
			return false;
	return true;
}

static void dk_fill(unsigned p, unsigned long b)
{
	unsigned char *d = dk_page(p);
	for (unsigned i = 0; i < FUL_DISK_BLOCK; i++)
		d[i] = dk_p(b, i);
}

static _Atomic long dk_thread_err;
static _Atomic unsigned dk_threads_done;

/** A client thread: DK_PER_THREAD single-block writes of its own. */
static void dk_writer(void *arg)
{
	unsigned t = (unsigned)(unsigned long)arg;
	for (unsigned k = 0; k < DK_PER_THREAD; k++) {
		unsigned long b = 200 + t * DK_PER_THREAD + k;
		unsigned p = 16 + t * DK_PER_THREAD + k;
		long err = dk_call(FUL_DISK_OP_WRITE, b, 1, p, NULL);
		if (err)
			atomic_store(&dk_thread_err, err);
	}
	atomic_fetch_add(&dk_threads_done, 1);
}

/** Writes from DK_THREADS threads at once, on every core there is. */
static void dk_parallel_writes(struct ut *ut)
{
	struct ful_thread th[DK_THREADS];
	for (unsigned t = 0; t < DK_THREADS; t++)
		for (unsigned k = 0; k < DK_PER_THREAD; k++)
			dk_fill(16 + t * DK_PER_THREAD + k,
				200 + t * DK_PER_THREAD + k);
	atomic_store(&dk_thread_err, 0);
	atomic_store(&dk_threads_done, 0);
	for (unsigned t = 0; t < DK_THREADS; t++) {
		struct ful_thread_args a = {
			.fn = dk_writer, .arg = (void *)(unsigned long)t,
			.pool = FUL_SLOT_POOL, .vs = FUL_SLOT_SELF_VS,
			.prio = 100, .cpu = t % ut_ncpus(), .name = "dk-writer"};
		UT_CHECK_EQ(ful_thread_spawn(&a, &th[t]), 0);
	}
	UT_WAIT(atomic_load(&dk_threads_done) == DK_THREADS);
	for (unsigned t = 0; t < DK_THREADS; t++)
		ful_thread_reap(&th[t], UT_TIMEOUT_US);
	UT_CHECK_EQ(atomic_load(&dk_thread_err), 0);
}

/** Every malformed request gets its error and changes nothing. */
static void dk_bad_requests(struct ut *ut, unsigned long blocks)
{
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 0, 0, 0, NULL), -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 0, FUL_DISK_MAX_BATCH + 1, 0, NULL),
		    -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_WRITE, blocks, 1, 0, NULL), -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_WRITE, blocks - 1, 2, 0, NULL),
		    -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_WRITE, ~0UL, 1, 0, NULL), -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 0, 1, FUL_DISK_WINDOW_PAGES, NULL),
		    -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 0, 3, FUL_DISK_WINDOW_PAGES - 2,
			    NULL), -FUL_ERANGE);
	UT_CHECK_EQ(dk_call(99, 0, 1, 0, NULL), -FUL_EINVAL);
}

UTEST(disk_io, 1)
{
	struct ful_msg r;
	char v[8];
	if (!dk_attach())
		UT_SKIP("no disk server (boot argument disk, a disk attached)");
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_INFO, 0, 0, 0, &r), 0);
	unsigned long blocks = r.mr[1];
	printf("disk: %lu blocks, window %lu pages, virtio-mmio %s\n", blocks,
	       r.mr[2], r.mr[3] ? "version 2" : "legacy");
	UT_CHECK_EQ(r.mr[3], !ut_bootarg("disk_v1", v, sizeof v));
	UT_CHECK(blocks >= 256);
	UT_CHECK_EQ(r.mr[2], FUL_DISK_WINDOW_PAGES);
	/* What the host wrote, 8 blocks in one request. */
	memset(dk_page(0), 0, 8 * FUL_DISK_BLOCK);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 0, 8, 0, NULL), 0);
	for (unsigned k = 0; k < 8; k++)
		UT_CHECK(dk_holds(k, k, dk_h));
	/* A batch of 16, then 3 threads x 4 single blocks, then flush. */
	for (unsigned k = 0; k < 16; k++)
		dk_fill(k, 100 + k);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_WRITE, 100, 16, 0, NULL), 0);
	dk_parallel_writes(ut);
	if (ut->failed)
		return;
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_FLUSH, 0, 0, 0, NULL), 0);
	/* Read it all back into cleared pages. */
	memset(dk_page(0), 0, 28 * FUL_DISK_BLOCK);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 100, 16, 0, NULL), 0);
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 200, 12, 16, NULL), 0);
	for (unsigned k = 0; k < 16; k++)
		UT_CHECK(dk_holds(k, 100 + k, dk_p));
	for (unsigned k = 0; k < 12; k++)
		UT_CHECK(dk_holds(16 + k, 200 + k, dk_p));
	dk_bad_requests(ut, blocks);
	if (ut->failed)
		return;
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_STATS, 0, 0, 0, &r), 0);
	printf("disk: %lu chains done, at most %lu in flight, %lu interrupts\n",
	       r.mr[1], r.mr[2], r.mr[3]);
	UT_CHECK(r.mr[1] >= 8 + 16 + 12 + 1 + 16 + 12);
	UT_CHECK_EQ(r.mr[2], FUL_DISK_MAX_BATCH); /* the batches' chains */
	UT_CHECK(r.mr[3] > 0);
}

/** Move thread @tid to @cpu; the move's result. */
static long dk_move(unsigned tid, unsigned cpu)
{
	struct ful_move mv = {.tid = tid, .cpu = cpu};
	long n = ful_migrate(FUL_SLOT_SCHED, &mv, 1);
	return n < 0 ? n : mv.result;
}

UTEST(disk_irq_follows, 2)
{
	struct ful_msg r;
	if (!dk_attach())
		UT_SKIP("no disk server (boot argument disk, a disk attached)");
	UT_CHECK_EQ(dk_call(FUL_DISK_OP_WHERE, 0, 0, 0, &r), 0);
	unsigned tid = (unsigned)r.mr[1], home = (unsigned)r.mr[2];
	unsigned other = (home + 1) % ut_ncpus();
	unsigned path[2] = {other, home};
	for (unsigned k = 0; k < 2; k++) {
		UT_CHECK_EQ(dk_move(tid, path[k]), FUL_MOVE_DONE);
		UT_CHECK_EQ(dk_call(FUL_DISK_OP_READ, 1, 1, 0, NULL), 0);
		UT_CHECK(dk_holds(0, 1, dk_h));
		UT_CHECK_EQ(dk_call(FUL_DISK_OP_WHERE, 0, 0, 0, &r), 0);
		printf("disk: interrupt thread moved to core %u, woken on "
		       "core %lu\n", path[k], r.mr[2]);
		UT_CHECK_EQ(r.mr[2], path[k]);
	}
}
