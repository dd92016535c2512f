/*
 * A power cut through F (--powerloss-suite, tests/harness/run_tests.py):
 * this program writes files through the POSIX layer, F, B and D, and
 * prints a line after each fsync() returned; the harness kills QEMU
 * (SIGKILL) at the N-th such line, while the next files are being
 * written, then repairs the image with e2fsck -fy and reads every file
 * the guest had fsynced back through debugfs (ext2_image.py,
 * power_loss_problems). The host simulation of the same thing, with a
 * device that also drops unflushed writes, is tests/host/
 * test_ext2_crash.c; this one checks the servers' path.
 *
 *   powerloss_writer  PL_FILES files /pl/f<i> of pattern 300 + i and
 *                     1 to PL_MAX bytes, each fsynced and announced as
 *                     "POWERLOSS-SYNCED /pl/f<i> <seed> <size>"; between
 *                     them a file that is never fsynced is written and
 *                     the one before it unlinked, so a cut finds
 *                     allocations, frees and data in flight
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fulcrum/rootsrv.h>
#include <ful/posix.h>

#include "utest.h"

#define PL_FILES 120
#define PL_MAX 9000u

static unsigned char pl_buf[PL_MAX];

/** Byte @i of pattern @seed (ext2_image.pattern on the host). */
static unsigned char pl_pat(unsigned seed, size_t i)
{
	return (unsigned char)(i * 31 + seed * 7 + (i >> 12));
}

/** Write @path with @n bytes of pattern @seed, fsynced if @sync: 0 or
 *  -1 (errno set). */
static int pl_write(const char *path, unsigned seed, size_t n, bool sync)
{
	for (size_t i = 0; i < n; i++)
		pl_buf[i] = pl_pat(seed, i);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	int r = write(fd, pl_buf, n) == (ssize_t)n ? 0 : -1;
	if (!r && sync)
		r = fsync(fd);
	return close(fd) || r ? -1 : 0;
}

UTEST(powerloss_writer, 1)
{
	if ((ful_cap_info(FUL_SLOT_FS) & 0xff) != FUL_CAP_ENDPOINT)
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	UT_CHECK(mkdir("/pl", 0755) == 0 || errno == EEXIST);
	char path[32], junk[32];
	for (unsigned i = 0; i < PL_FILES; i++) {
		size_t n = 1 + (i * 7919u) % PL_MAX;
		snprintf(path, sizeof path, "/pl/f%u", i);
		UT_CHECK_EQ(pl_write(path, 300 + i, n, true), 0);
		printf("POWERLOSS-SYNCED %s %u %u\n", path, 300 + i,
		       (unsigned)n);
		snprintf(junk, sizeof junk, "/pl/junk%u", i);
		UT_CHECK_EQ(pl_write(junk, 7, PL_MAX - n / 2, false), 0);
		if (i) {
			snprintf(junk, sizeof junk, "/pl/junk%u", i - 1);
			UT_CHECK_EQ(unlink(junk), 0);
		}
	}
}
