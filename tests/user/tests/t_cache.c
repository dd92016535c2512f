/*
 * B, the block cache server, from a client (<fulcrum/cache.h>), next to
 * D (<fulcrum/disk.h>), which shows what is on the disk. They need the
 * boot arguments `disk,cache=N` and a disk (the harness's cache suite,
 * N = 64); without B they skip themselves. Patterns H and P as in
 * t_disk.c.
 *
 *   cache_lru        reads 2N + 8 blocks, more than the cache holds, each
 *                    checked byte for byte: every one a miss; the last
 *                    N/2 again: all hits; the first 8 again: misses
 *                    (least recently used, evicted), still right.
 *   cache_writeback  writes P to blocks 400..415 through B: the disk
 *                    (read through D) still has H until SYNC, then P;
 *                    writes N + 1 blocks from 800: the first, evicted
 *                    dirty, is on the disk at once, the second only
 *                    after SYNC; bad requests get their error. The
 *                    harness then checks the image: P in 400..415 and
 *                    800..800 + N.
 */
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/disk.h>

#include "utest.h"

#define CA_WIN_VA 0x58000000UL
#define CA_DISK_VA 0x5c000000UL

static unsigned char ca_h(unsigned long b, unsigned i)
{
	return (unsigned char)(31 * i + 17 * b + 0x5a);
}

static unsigned char ca_p(unsigned long b, unsigned i)
{
	return (unsigned char)(7 * i + 29 * b + 0xa5);
}

/** A request to B (@disk false) or D; mr0, the reply in @out. */
static long ca_call(bool disk, unsigned op, unsigned long blk,
		    unsigned long n, unsigned long page, struct ful_msg *out)
{
	struct ful_msg m = {.info = FUL_MSG(op, 0), .mr = {blk, n, page}};
	long err = ful_call(disk ? FUL_SYSPROG_SLOT_DISK : FUL_SYSPROG_SLOT_CACHE,
			    &m, UT_TIMEOUT_US);
	if (out)
		*out = m;
	return err < 0 ? err : (long)m.mr[0];
}

static unsigned char *ca_page(bool disk, unsigned long p)
{
	return (unsigned char *)((disk ? CA_DISK_VA : CA_WIN_VA) + p * 4096);
}

/** Map B's and D's windows here, once. False if B does not run. */
static bool ca_attach(void)
{
	static bool mapped;
	if ((ful_cap_info(FUL_SYSPROG_SLOT_CACHE) & 0xff) != FUL_CAP_ENDPOINT)
		return false;
	if (!mapped &&
	    ful_map(FUL_SLOT_SELF_VS, FUL_SYSPROG_SLOT_CACHE_WIN, CA_WIN_VA,
		    FUL_R_READ | FUL_R_WRITE) == 0 &&
	    ful_map(FUL_SLOT_SELF_VS, FUL_SYSPROG_SLOT_DISK_WIN, CA_DISK_VA,
		    FUL_R_READ | FUL_R_WRITE) == 0)
		mapped = true;
	return mapped;
}

/** Does page @p of B's (@disk false) or D's window hold block @b of
 *  pattern @pat? */
static bool ca_holds(bool disk, unsigned long p, unsigned long b,
		     unsigned char (*pat)(unsigned long, unsigned))
{
	const unsigned char *d = ca_page(disk, p);
	for (unsigned i = 0; i < 4096; i++)
		if (d[i] != pat(b, i))
			return false;
	return true;
}

/** Read @n blocks from @first through B, 16 at a time, each checked
 *  against @pat. */
static void ca_read_check(struct ut *ut, unsigned long first, unsigned long n,
			  unsigned char (*pat)(unsigned long, unsigned))
{
	for (unsigned long done = 0; done < n;) {
		unsigned long k = n - done < 16 ? n - done : 16;
		memset(ca_page(false, 0), 0, k * 4096);
		UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_READ, first + done, k, 0,
				    NULL), 0);
		for (unsigned long j = 0; j < k; j++)
			UT_CHECK(ca_holds(false, j, first + done + j, pat));
		done += k;
	}
}

/** B's hits, misses, write-backs. */
static void ca_stats(unsigned long s[3])
{
	struct ful_msg r;
	ca_call(false, FUL_CACHE_OP_STATS, 0, 0, 0, &r);
	s[0] = r.mr[1], s[1] = r.mr[2], s[2] = r.mr[3];
}

/** The cache's lines (INFO), 0 if it does not answer. */
static unsigned long ca_lines(unsigned long *disk_blocks)
{
	struct ful_msg r;
	if (ca_call(false, FUL_CACHE_OP_INFO, 0, 0, 0, &r))
		return 0;
	*disk_blocks = r.mr[1];
	return r.mr[3];
}

UTEST(cache_lru, 1)
{
	unsigned long s0[3], s1[3], blocks;
	if (!ca_attach())
		UT_SKIP("no cache server (boot arguments disk,cache=N, a disk)");
	unsigned long c = ca_lines(&blocks), first = 600, n = 2 * c + 8;
	UT_CHECK(c >= 16 && first + n <= blocks);
	ca_stats(s0);
	ca_read_check(ut, first, n, ca_h);
	if (ut->failed)
		return;
	ca_stats(s1);
	UT_CHECK_EQ(s1[1] - s0[1], n); /* every block a miss */
	UT_CHECK_EQ(s1[0] - s0[0], 0);
	ca_read_check(ut, first + n - c / 2, c / 2, ca_h);
	if (ut->failed)
		return;
	ca_stats(s0);
	UT_CHECK_EQ(s0[0] - s1[0], c / 2); /* the most recent: all hits */
	UT_CHECK_EQ(s0[1] - s1[1], 0);
	ca_read_check(ut, first, 8, ca_h);
	if (ut->failed)
		return;
	ca_stats(s1);
	UT_CHECK_EQ(s1[1] - s0[1], 8); /* the least recent: evicted */
	printf("cache: %lu lines; %lu hits, %lu misses, %lu write-backs so far\n",
	       c, s1[0], s1[1], s1[2]);
}

/** Is block @b on the disk (read through D) pattern @pat? */
static bool ca_on_disk(unsigned long b,
		       unsigned char (*pat)(unsigned long, unsigned))
{
	memset(ca_page(true, 0), 0, 4096);
	return ca_call(true, FUL_DISK_OP_READ, b, 1, 0, NULL) == 0 &&
	       ca_holds(true, 0, b, pat);
}

/** Write pattern P to @n blocks from @first through B, 16 at a time. */
static long ca_write(unsigned long first, unsigned long n)
{
	for (unsigned long done = 0; done < n;) {
		unsigned long k = n - done < 16 ? n - done : 16;
		for (unsigned long j = 0; j < k; j++)
			for (unsigned i = 0; i < 4096; i++)
				ca_page(false, j)[i] = ca_p(first + done + j, i);
		long err = ca_call(false, FUL_CACHE_OP_WRITE, first + done, k, 0,
				   NULL);
		if (err)
			return err;
		done += k;
	}
	return 0;
}

static void ca_bad_requests(struct ut *ut, unsigned long blocks)
{
	UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_READ, 0, 0, 0, NULL), -FUL_ERANGE);
	UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_READ, 0, 17, 0, NULL), -FUL_ERANGE);
	UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_WRITE, blocks, 1, 0, NULL),
		    -FUL_ERANGE);
	UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_READ, 0, 2,
			    FUL_CACHE_WINDOW_PAGES - 1, NULL), -FUL_ERANGE);
	UT_CHECK_EQ(ca_call(false, 99, 0, 1, 0, NULL), -FUL_EINVAL);
}

UTEST(cache_writeback, 1)
{
	unsigned long s0[3], s1[3], blocks;
	if (!ca_attach())
		UT_SKIP("no cache server (boot arguments disk,cache=N, a disk)");
	unsigned long c = ca_lines(&blocks);
	UT_CHECK(c >= 16 && 800 + c + 1 <= blocks);
	UT_CHECK_EQ(ca_write(400, 16), 0);
	for (unsigned long b = 400; b < 416; b++)
		UT_CHECK(ca_on_disk(b, ca_h)); /* still only in the cache */
	ca_read_check(ut, 400, 16, ca_p);
	if (ut->failed)
		return;
	ca_stats(s0);
	UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_SYNC, 0, 0, 0, NULL), 0);
	ca_stats(s1);
	UT_CHECK_EQ(s1[2] - s0[2], 16);
	for (unsigned long b = 400; b < 416; b++)
		UT_CHECK(ca_on_disk(b, ca_p));
	/* N + 1 dirty blocks: the first is written back to make room. */
	UT_CHECK_EQ(ca_write(800, c + 1), 0);
	UT_CHECK(ca_on_disk(800, ca_p));
	UT_CHECK(ca_on_disk(801, ca_h));
	UT_CHECK_EQ(ca_call(false, FUL_CACHE_OP_SYNC, 0, 0, 0, NULL), 0);
	for (unsigned long b = 800; b <= 800 + c; b++)
		UT_CHECK(ca_on_disk(b, ca_p));
	ca_bad_requests(ut, blocks);
}
