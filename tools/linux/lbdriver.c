/*
 * lbdriver: the Linux side of `make bench-linux` (tools/linux_bench.py),
 * the part that on Fulcrum is user/bench/ub_storage.c: it runs the very
 * same benchmark programs (user/postmark, user/bonnie, built unchanged
 * as static Linux programs) on an ext2 image mounted at /mnt, times
 * them and prints the harness's BENCH lines. Runs inside a Linux guest
 * on QEMU, started by the initramfs's /init.
 *
 *   lbdriver read            linux_read_4k: one pread() of a cached
 *                            4 KiB block of /mnt/big.bin, in
 *                            instructions (under -icount shift=0 the
 *                            virtual counter ticks once per 10^9/CNTFRQ
 *                            instructions: ticks are converted)
 *   lbdriver postmark C      linux_postmark_c<C>, linux_postmark_default_c<C>
 *   lbdriver bonnie C        linux_bonnie_c<C>_p<K>, K = 1..7
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PM_RUNS 5
#define BN_RUNS 3
#define BN_MAX 7
#define READS 10

static unsigned nbench;

static void bench_print(const char *name, const char *unit,
			const unsigned long *s, unsigned n)
{
	printf("BENCH %s %s %u", name, unit, n);
	for (unsigned i = 0; i < n; i++)
		printf(" %lu", s[i]);
	printf("\n");
	fflush(stdout);
	nbench++;
}

static unsigned long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000UL + (unsigned long)ts.tv_nsec / 1000;
}

/** Start @argv; its pid. */
static pid_t start(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/** Run @argv to its end: true if it exited with 0. */
static int run(char *const argv[])
{
	int st;
	pid_t pid = start(argv);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

static inline unsigned long cntvct(void)
{
	unsigned long c;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(c) : : "memory");
	return c;
}

static inline unsigned long cntfrq(void)
{
	unsigned long f;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}

static void do_read(void)
{
	static char buf[4096];
	unsigned long s[READS];
	int fd = open("/mnt/big.bin", O_RDONLY);
	if (fd < 0)
		return;
	for (int i = -3; i < READS; i++) {
		unsigned long t0 = cntvct();
		ssize_t r = pread(fd, buf, sizeof buf, 8192);
		unsigned long t1 = cntvct();
		if (r != (ssize_t)sizeof buf)
			return;
		if (i >= 0)
			s[i] = (t1 - t0) * 1000000000UL / cntfrq();
	}
	close(fd);
	bench_print("linux_read_4k", "instructions", s, READS);
}

/** The number after "us=" in file @path. */
static unsigned long result_us(const char *path)
{
	char line[256] = {0};
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	const char *us = strstr(line, "us=");
	return us ? strtoul(us + 3, NULL, 10) : 0;
}

static void do_postmark(int c)
{
	char *paper[] = {"/bin/postmark", "-f", "25", "-t", "25", "-d",
			 "/mnt/pmp", "-o", "/tmp/pm.result", NULL};
	char *dflt[] = {"/bin/postmark", "-d", "/mnt/pmd", "-o",
			"/tmp/pm.result", NULL};
	char name[64];
	unsigned long s[PM_RUNS];
	for (int i = 0; i < PM_RUNS; i++)
		if (!run(paper) || !(s[i] = result_us("/tmp/pm.result")))
			return;
	snprintf(name, sizeof name, "linux_postmark_c%d", c);
	bench_print(name, "us", s, PM_RUNS);
	if (!run(dflt) || !(s[0] = result_us("/tmp/pm.result")))
		return;
	snprintf(name, sizeof name, "linux_postmark_default_c%d", c);
	bench_print(name, "us", s, 1);
}

/** K bonnie processes side by side: microseconds, 0 if one failed. */
static unsigned long bonnie_once(int k)
{
	char files[BN_MAX][32], seeds[BN_MAX][8];
	pid_t pid[BN_MAX];
	unsigned long t0 = now_us();
	int ok = 1;
	for (int i = 0; i < k; i++) {
		snprintf(files[i], sizeof files[i], "/mnt/bn%d", i);
		snprintf(seeds[i], sizeof seeds[i], "%d", i + 1);
		char *argv[] = {"/bin/bonnie", files[i], "run", "4000", seeds[i],
				NULL};
		pid[i] = start(argv);
	}
	for (int i = 0; i < k; i++) {
		int st;
		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			ok = 0;
	}
	return ok ? now_us() - t0 : 0;
}

static void do_bonnie(int c)
{
	char name[64], file[32];
	unsigned long s[BN_RUNS];
	for (int i = 0; i < BN_MAX; i++) {
		snprintf(file, sizeof file, "/mnt/bn%d", i);
		char *argv[] = {"/bin/bonnie", file, "setup", "128", NULL};
		if (!run(argv))
			return;
	}
	for (int k = 1; k <= BN_MAX; k++) {
		for (int r = 0; r < BN_RUNS; r++)
			if (!(s[r] = bonnie_once(k)))
				return;
		snprintf(name, sizeof name, "linux_bonnie_c%d_p%d", c, k);
		bench_print(name, "us", s, BN_RUNS);
	}
}

int main(int argc, char **argv)
{
	int c = argc > 2 ? atoi(argv[2]) : 1;
	if (argc > 1 && !strcmp(argv[1], "read"))
		do_read();
	else if (argc > 1 && !strcmp(argv[1], "postmark"))
		do_postmark(c);
	else if (argc > 1 && !strcmp(argv[1], "bonnie"))
		do_bonnie(c);
	else
		printf("usage: lbdriver read | postmark C | bonnie C\n");
	sync();
	printf("BENCH-DONE %u\n", nbench);
	fflush(stdout);
	return 0;
}
