/*
 * bonnie: the Bonnie-like random-access benchmark of paper 002 (III-D),
 * a plain POSIX program: the same source runs on Fulcrum and, compiled
 * as a static Linux program, on Linux on the same QEMU (issue 14).
 *
 *   bonnie FILE setup [KIB]    make FILE: KIB KiB (default 128) of data
 *   bonnie FILE run [SEEKS] [SEED]
 *                              SEEKS (default 4,000) reads of a 4 KiB
 *                              block at a random 4 KiB-aligned position,
 *                              10 % of them followed by a rewrite of
 *                              that block (the block read, one byte
 *                              changed, written back in place)
 *
 * Each process of a measurement works on a file of its own. `run` checks
 * every block it reads (each block starts with its own number, which a
 * rewrite keeps) and prints
 *   BONNIE-RESULT us=... seeks=... rewrites=...
 * Exit status 0, 2 on impossible parameters (usage), 1 on an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BN_BLOCK 4096

static int usage(const char *why)
{
	printf("bonnie: %s\nusage: bonnie FILE setup [KIB] | bonnie FILE run "
	       "[SEEKS] [SEED]\n", why);
	return 2;
}

static double bn_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/** setup: KIB KiB of blocks, each starting with its number. */
static int bn_setup(const char *path, long kib)
{
	static unsigned char b[BN_BLOCK];
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0) {
		printf("bonnie: create %s: errno %d\n", path, errno);
		return 1;
	}
	for (long i = 0; i < kib / 4; i++) {
		memset(b, (int)(i & 0xff), sizeof b);
		memcpy(b, &i, sizeof i);
		if (write(fd, b, sizeof b) != (ssize_t)sizeof b) {
			printf("bonnie: write %s: errno %d%s\n", path, errno,
			       errno == ENOSPC ? " (the disk is full)" : "");
			close(fd);
			return 1;
		}
	}
	return close(fd) ? 1 : 0;
}

/** run: random reads, a tenth of them rewritten; every block checked. */
static int bn_run(const char *path, long seeks, unsigned long seed)
{
	static unsigned char b[BN_BLOCK];
	int fd = open(path, O_RDWR);
	off_t size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	if (fd < 0 || size < BN_BLOCK) {
		printf("bonnie: %s: not made by setup (errno %d)\n", path, errno);
		return 1;
	}
	long blocks = (long)(size / BN_BLOCK), rewrites = 0;
	double t0 = bn_now();
	for (long i = 0; i < seeks; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		long blk = (long)((seed >> 33) % (unsigned long)blocks);
		off_t at = (off_t)blk * BN_BLOCK;
		long got;
		if (pread(fd, b, sizeof b, at) != (ssize_t)sizeof b ||
		    (memcpy(&got, b, sizeof got), got != blk)) {
			printf("bonnie: %s: block %ld read wrong\n", path, blk);
			return 1;
		}
		if ((seed >> 20) % 10 == 0) { /* 10 %: rewrite it */
			b[sizeof got]++;
			if (pwrite(fd, b, sizeof b, at) != (ssize_t)sizeof b) {
				printf("bonnie: %s: rewrite: errno %d\n", path, errno);
				return 1;
			}
			rewrites++;
		}
	}
	double secs = bn_now() - t0;
	close(fd);
	printf("BONNIE-RESULT us=%ld seeks=%ld rewrites=%ld\n",
	       (long)(secs * 1e6), seeks, rewrites);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage("which file, and setup or run?");
	if (!strcmp(argv[2], "setup")) {
		long kib = argc > 3 ? atol(argv[3]) : 128;
		if (kib < 4 || kib > 1024 * 1024 || kib % 4)
			return usage("KIB must be a multiple of 4, 4 to 1048576");
		return bn_setup(argv[1], kib);
	}
	if (!strcmp(argv[2], "run")) {
		long seeks = argc > 3 ? atol(argv[3]) : 4000;
		unsigned long seed = argc > 4 ? strtoul(argv[4], NULL, 0) : 1;
		if (seeks < 1)
			return usage("SEEKS must be 1 or more");
		return bn_run(argv[1], seeks, seed);
	}
	return usage("the second argument is setup or run");
}
