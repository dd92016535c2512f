/*
 * Paper 002's evaluation on Fulcrum's storage servers (issue 14), one
 * boot each, with F, B and D moved between the distribution forms of
 * Table I at run time (FUL_ROOT_REQ_FORM), so that every ratio is taken
 * within one run. Boot arguments `disk,cache=64,fs` and an ext2 image
 * with /big.bin (tests/harness/ext2_image.py). A, the benchmark
 * processes, run on core 0 (the BSP) in every form, as in the paper.
 *
 *   ubench=forms     (icount) block_read_form<N>: one pread() of a
 *                    cached 4 KiB block (client -> F -> B -> client)
 *                    through the client's ring, all cores' instructions
 *                    (under icount the counter is the machine's), for
 *                    each of the 15 forms: Figure 5; block_read_omf, the
 *                    same block through OMF (the file mapped, a copy
 *                    out of the window, no server on the path)
 *   ubench=forms_b   (icount, boot argument fs_copy=0) block_read_b_form<N>:
 *                    the same with F keeping no copy of recent blocks,
 *                    so that every read goes client -> F -> B -> client
 *                    as in paper 002 (block_read_form<N> is the read of
 *                    a block F holds a copy of: B is not on its path)
 *   ubench=forms_mttcg (MTTCG) block_read_time_form<N>: the same read's
 *                    time, ns (median of 10 groups of 50 reads)
 *   ubench=postmark  (MTTCG) postmark_form<N>: user/postmark with the
 *                    paper's parameters (25 files, 25 transactions,
 *                    500-10,000 bytes), elapsed microseconds; and
 *                    postmark_default_form<N> with PostMark 1.5's
 *                    defaults (500 / 500): Figure 7
 * With boot argument fs_spin=N, F's ring thread polls before sleeping and
 * so do the benchmark processes (256 polls; a child inherits it), or
 * client_spin=N polls for them instead (client_spin=0: they sleep while
 * F polls, which leaves their core to the others of them).
 *   ubench=bonnie    (MTTCG) bonnie_form<N>_p<K>: K = 1..7 processes of
 *                    user/bonnie, each 4,000 random 4 KiB reads (10 %
 *                    rewritten) of its own 128 KiB file, from the first
 *                    start to the last exit, forms 1, 3, 4, 7, 11
 *                    in turn within each of the 3 runs: Figures 8-10
 *   ubench=bonnie_split (icount, no polling: fs_spin and srv_spin unset)
 *                    where the work of one bonnie process goes, per
 *                    core, for the same forms: each core's busy time
 *                    (the load area's `busy`: a thread running, in
 *                    instructions under icount) over one process's
 *                    run. With one process the cores take
 *                    turns (A waits for F, F for B), so under icount
 *                    each core's count is its own work. Results
 *                    bonnie_work_form<N>_p1 (all cores) and
 *                    bonnie_split_form<N>_p1: the busiest core's work
 *                    over form 1's total, permille: the lowest time
 *                    ratio form N can reach however many processes
 *                    overlap, on cores that really run in parallel.
 *                    Then the same with 5 processes (_p5): the cores
 *                    no longer take turns, but none polls and idle
 *                    time is not busy, so each core's count is still
 *                    its own work, now with fewer wake-ups (a woken
 *                    server finds several requests)
 * Under bench_quick (ub.h) every figure above is printed from one run:
 * PostMark with ST_PM_QUICK files and transactions, Bonnie processes of
 * ST_BN_QUICK_SEEKS reads, one read per timed group.
 */
#include <fulcrum/load.h>
#include <ful/load.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fulcrum/rootsrv.h>
#include <ful/posix.h>

#include "tests/user/tests/utest.h"
#include "ub.h"

#define ST_READS 10
#define ST_WARMUP 3
#define ST_PM_RUNS 5
#define ST_BN_RUNS 3
#define ST_BN_MAX 7
#define ST_TIME_READS 500 /* block_read_time_form<N>: reads per form */
#define ST_BN_SEEKS "4000" /* reads of one bonnie process */
/* bench_quick: PostMark's files and transactions (for its defaults too),
 * the reads of one bonnie process */
#define ST_PM_QUICK "5"
#define ST_BN_QUICK_SEEKS "40"

/** Move F, B and D to form @n: 0 or -FUL_E*. */
static long st_form(unsigned n)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_ROOT_REQ_FORM, 0), .mr = {n}};
	long err = ful_call(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	return err < 0 ? err : (long)m.mr[0];
}

/** One sample of the cached read: its instructions under icount, or
 *  (@timed, MTTCG) the ns per read of a group; 0 if a read failed. */
static unsigned long st_read_sample(int fd, bool timed, unsigned long ovh)
{
	static unsigned char buf[4096];
	const unsigned n = ub_count(ST_TIME_READS, ST_READS) / ST_READS;
	if (!timed) { /* the window holds the read and nothing else */
		unsigned long t0 = ful_cycles();
		ssize_t r = pread(fd, buf, sizeof buf, 8192);
		unsigned long t1 = ful_cycles();
		return r == (ssize_t)sizeof buf ? t1 - t0 - ovh : 0;
	}
	unsigned long t0 = ful_counter();
	for (unsigned k = 0; k < n; k++)
		if (pread(fd, buf, sizeof buf, 8192) != (ssize_t)sizeof buf)
			return 0;
	return (ful_counter() - t0) * 1000000000UL / ful_counter_freq() / n;
}

/** block_read_form<N> (icount, instructions) or, @timed,
 *  block_read_time_form<N> (MTTCG, ns: the median of ST_TIME_READS
 *  reads taken in ST_READS groups) for every form. */
static unsigned st_forms(bool timed, const char *prefix)
{
	static unsigned long s[ST_READS];
	char name[40];
	unsigned lines = 0;
	int fd = open("/big.bin", O_RDONLY);
	if (fd < 0)
		return 0;
	unsigned long ovh = ful_cycles_overhead();
	for (unsigned n = 1; n <= 15; n++) {
		if (st_form(n))
			continue;
		for (int i = -ST_WARMUP; i < ST_READS; i++) {
			unsigned long v = st_read_sample(fd, timed, ovh);
			if (!v)
				return lines;
			if (i >= 0)
				s[i] = v;
		}
		snprintf(name, sizeof name, "%s%u", prefix, n);
		ful_bench_print(name, timed ? "ns" : "instructions", s, ST_READS);
		lines++;
	}
	close(fd);
	return lines;
}

/** block_read_omf: the same block read through OMF (form 1): the
 *  file's first 64 KiB mapped once, then each read a copy out of the
 *  window, no server on the path. */
static unsigned st_omf_read(void)
{
	static unsigned char buf[4096];
	static unsigned long s[ST_READS];
	struct ful_omf o;
	int fd = open("/big.bin", O_RDONLY);
	if (fd < 0 || st_form(1) || ful_omf_map(fd, 64 * 1024, &o)) {
		printf("ubench: block_read_omf: cannot map /big.bin (errno %d)\n",
		       errno);
		return 0;
	}
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -ST_WARMUP; i < ST_READS; i++) {
		unsigned long t0 = ful_cycles();
		memcpy(buf, o.base + 8192, sizeof buf);
		__asm__ volatile("" : : "r"(buf) : "memory");
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			s[i] = t1 - t0 - ovh;
	}
	ful_omf_unmap(&o);
	close(fd);
	ful_bench_print("block_read_omf", "instructions", s, ST_READS);
	return 1;
}

/** Start @argv[0] (a boot module) with @argv on core 0. */
static int st_spawn(char **argv, struct ful_proc *p)
{
	struct ful_proc_attr a = {.cpu = 0};
	return ful_proc_spawn(argv[0], argv, &a, p);
}

/** Run @argv to its end: its exit status, or -1. */
static int st_run(char **argv)
{
	struct ful_proc p;
	int st;
	if (st_spawn(argv, &p) || ful_proc_wait(&p, &st, FUL_FOREVER))
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/** The number after "us=" in file @path, or 0. */
static unsigned long st_result_us(const char *path)
{
	char line[256] = {0};
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	const char *us = n > 0 ? strstr(line, "us=") : NULL;
	return us ? strtoul(us + 3, NULL, 10) : 0;
}

/* postmark_form<N>'s runs, for the two-core comparison (forms 1..8
 * use cores 0 and 1 only: A and the servers on the BSP and AP1). */
static unsigned long pm_paper[9][ST_PM_RUNS];

/** One PostMark measurement per run of @argv in form @n (at most
 *  ST_PM_RUNS), also copied to @keep if not NULL. */
static bool st_postmark(unsigned n, const char *name, char **argv,
			unsigned runs, unsigned long *keep)
{
	static unsigned long s[ST_PM_RUNS];
	for (unsigned i = 0; i < runs; i++) {
		unlink("/pm.result");
		if (st_run(argv) != 0 || !(s[i] = st_result_us("/pm.result")))
			return false;
	}
	char full[40];
	snprintf(full, sizeof full, "%s%u", name, n);
	ful_bench_print(full, "us", s, runs);
	if (keep)
		memcpy(keep, s, runs * sizeof *s);
	return true;
}

/** postmark_best2core_over_form1: per run (@runs of them), the best of
 *  forms 2..8 over form 1, in percent (the paper's two-core
 *  comparison). */
static unsigned st_postmark_best2(unsigned runs)
{
	unsigned long pct[ST_PM_RUNS];
	for (unsigned i = 0; i < runs; i++) {
		unsigned long best = ~0UL;
		for (unsigned n = 2; n <= 8; n++)
			if (pm_paper[n][i] && pm_paper[n][i] < best)
				best = pm_paper[n][i];
		if (!pm_paper[1][i] || best == ~0UL)
			return 0;
		pct[i] = best * 100 / pm_paper[1][i];
	}
	ful_bench_print("postmark_best2core_over_form1", "percent", pct,
			runs);
	return 1;
}

static unsigned st_postmarks(void)
{
	char *k = ub_quick ? ST_PM_QUICK : "25";
	char *paper[] = {"postmark", "-f", k, "-t", k, "-d", "/pmp",
			 "-o", "/pm.result", NULL};
	char *dflt[] = {"postmark", "-d", "/pmd", "-o", "/pm.result",
			"-f", ST_PM_QUICK, "-t", ST_PM_QUICK, NULL};
	const unsigned runs = ub_count(ST_PM_RUNS, 1);
	unsigned lines = 0;
	if (!ub_quick)
		dflt[5] = NULL; /* PostMark's defaults: 500 files, 500 tx */
	/* one untimed run first: the first form measured must not pay for
	 * the caches' and the directories' first use */
	if (st_form(1) || st_run(paper) != 0)
		return 0;
	for (unsigned n = 1; n <= 15; n++) {
		if (st_form(n))
			continue;
		lines += st_postmark(n, "postmark_form", paper, runs,
				     n <= 8 ? pm_paper[n] : NULL);
		lines += st_postmark(n, "postmark_default_form", dflt, 1, NULL);
	}
	return lines + st_postmark_best2(runs);
}

/** Time of @k bonnie processes side by side, microseconds (0: failed). */
static unsigned long st_bonnie_once(unsigned k)
{
	static char files[ST_BN_MAX][16], seeds[ST_BN_MAX][8];
	struct ful_proc p[ST_BN_MAX];
	unsigned long t0 = ful_counter();
	unsigned started = 0;
	bool ok = true;
	if (k > ST_BN_MAX) /* one file and one process slot each */
		return 0;
	for (unsigned i = 0; i < k; i++) {
		snprintf(files[i], sizeof files[i], "/bn%u", i);
		snprintf(seeds[i], sizeof seeds[i], "%u", i + 1);
		char *argv[] = {"bonnie", files[i], "run",
				ub_quick ? ST_BN_QUICK_SEEKS : ST_BN_SEEKS,
				seeds[i], NULL};
		if (st_spawn(argv, &p[i]))
			ok = false;
		else
			started++;
	}
	for (unsigned i = 0; i < started; i++) {
		int st;
		if (ful_proc_wait(&p[i], &st, FUL_FOREVER) || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			ok = false;
	}
	unsigned long ticks = ful_counter() - t0;
	return ok ? ticks / (ful_counter_freq() / 1000000) : 0;
}

/* The forms of paper 002's Figures 8-10 (and of the work split). */
#define ST_BN_FORMS 5
static const unsigned st_bn_forms[ST_BN_FORMS] = {1, 3, 4, 7, 11};

/** Bonnie's @runs runs for @k processes: the forms in turn within each
 *  run (form 1, 3, 4, 7, 11, then from 3 in the next run, ...), so that a
 *  drift of the host's speed during the boot falls on every form alike,
 *  not on the forms measured last. @want[f]: form f is measured; false
 *  after a failed run. */
static void st_bonnie_rounds(unsigned k, unsigned runs, bool want[ST_BN_FORMS],
			     unsigned long s[ST_BN_FORMS][ST_BN_RUNS])
{
	for (unsigned r = 0; r < runs; r++)
		for (unsigned i = 0; i < ST_BN_FORMS; i++) {
			unsigned f = (i + r) % ST_BN_FORMS;
			if (want[f])
				want[f] = !st_form(st_bn_forms[f]) &&
					  (s[f][r] = st_bonnie_once(k)) != 0;
		}
}

/** Bonnie's 128 KiB files /bn0../bn<@n - 1>: 0, or -1 if one failed. */
static int st_bn_setup(unsigned n)
{
	char file[16];
	char *argv[] = {"bonnie", file, "setup", "128", NULL};
	for (unsigned i = 0; i < n; i++) {
		snprintf(file, sizeof file, "/bn%u", i);
		if (st_run(argv) != 0)
			return -1;
	}
	return 0;
}

static unsigned st_bonnies(void)
{
	static unsigned long s[ST_BN_FORMS][ST_BN_RUNS];
	const unsigned runs = ub_count(ST_BN_RUNS, 1);
	unsigned lines = 0;
	char name[40];
	if (st_bn_setup(ST_BN_MAX))
		return 0;
	if (st_form(1) || !st_bonnie_once(ST_BN_MAX)) /* untimed: warm up */
		return 0;
	/* bn_only=N: forms 1 and N only, and 5 processes or bn_procs=K
	 * (a quick look) */
	char only[8];
	unsigned one = ut_bootarg("bn_only", only, sizeof only)
			       ? (unsigned)strtoul(only, NULL, 0) : 0;
	unsigned kq = ut_bootarg("bn_procs", only, sizeof only)
			      ? (unsigned)strtoul(only, NULL, 0) : 5;
	if (kq < 1 || kq > ST_BN_MAX)
		kq = 5;
	for (unsigned k = one ? kq : 1; k <= (one ? kq : ST_BN_MAX); k++) {
		bool want[ST_BN_FORMS];
		for (unsigned f = 0; f < ST_BN_FORMS; f++)
			want[f] = !one || st_bn_forms[f] == one ||
				  st_bn_forms[f] == 1;
		st_bonnie_rounds(k, runs, want, s);
		for (unsigned f = 0; f < ST_BN_FORMS; f++) {
			if (!want[f])
				continue;
			snprintf(name, sizeof name, "bonnie_form%u_p%u",
				 st_bn_forms[f], k);
			ful_bench_print(name, "us", s[f], runs);
			lines++;
		}
	}
	return lines;
}

/** Each core's busy time so far (a thread running, the load area's
 *  `busy` extrapolated to now), in instructions under icount (one per
 *  ns: counter ticks x 10^9 / frequency). */
static void st_busy(unsigned long *a, unsigned n)
{
	unsigned long now = ful_counter(), idle;
	unsigned long ns_per_tick = 1000000000UL / ful_counter_freq();
	for (unsigned c = 0; c < n; c++) {
		struct ful_load_cpu r;
		ful_load_read_cpu(ful_load_area(), c, &r);
		ful_load_cpu_times(&r, now, &a[c], &idle);
		a[c] *= ns_per_tick;
	}
}

/** Run @k bonnie processes in form @form and print each core's work:
 *  bonnie_work_form<F>_p<K> and bonnie_split_form<F>_p<K> against
 *  *@total1 (form 1's whole work, set when @form is 1). 0 or 2 lines. */
static unsigned st_split_one(unsigned form, unsigned k, unsigned long *total1)
{
	unsigned long a0[FUL_LOAD_CPUS], a1[FUL_LOAD_CPUS];
	unsigned n = ut_ncpus();
	char name[40];
	if (st_form(form))
		return 0;
	st_busy(a0, n);
	if (!st_bonnie_once(k))
		return 0;
	st_busy(a1, n);
	unsigned long sum = 0, max = 0;
	printf("bonnie_split: form %u, %u process(es), instructions per core:",
	       form, k);
	for (unsigned c = 0; c < n; c++) {
		unsigned long d = a1[c] - a0[c];
		printf(" %lu", d);
		sum += d;
		max = d > max ? d : max;
	}
	printf("\n");
	if (form == 1)
		*total1 = sum;
	snprintf(name, sizeof name, "bonnie_work_form%u_p%u", form, k);
	ful_bench_print(name, "insn", &sum, 1);
	unsigned long pm = *total1 ? max * 1000 / *total1 : 0;
	snprintf(name, sizeof name, "bonnie_split_form%u_p%u", form, k);
	ful_bench_print(name, "permille", &pm, 1);
	return 2;
}

/** ubench=bonnie_split: one bonnie process per form, then five (the
 *  Bonnie bound's count, each on its own file, 640 KiB in all: F's copy
 *  of 256 blocks holds them, but every rewrite still goes to B), each
 *  core's work. */
static unsigned st_bonnie_split(void)
{
	static const unsigned procs[] = {1, 5};
	unsigned long total1 = 0;
	unsigned lines = 0;
	if (ut_ncpus() > FUL_LOAD_CPUS || st_bn_setup(5))
		return 0;
	for (unsigned p = 0; p < sizeof procs / sizeof procs[0]; p++) {
		/* untimed: the files into the caches as far as they fit */
		if (st_form(1) || !st_bonnie_once(procs[p]))
			return lines;
		for (unsigned f = 0; f < ST_BN_FORMS; f++)
			lines += st_split_one(st_bn_forms[f], procs[p], &total1);
	}
	return lines;
}

unsigned ub_storage_run(const char *which)
{
	struct stat st;
	if (stat("/", &st)) {
		printf("ubench: %s: no file server (boot arguments "
		       "disk,cache=N,fs and an ext2 disk)\n", which);
		return 0;
	}
	char spin[16];
	if (ut_bootarg("fs_spin", spin, sizeof spin)) /* F polls: so do A's */
		ful_fs_set_spin(256);
	/* client_spin=N: A's polls instead (0: A's sleep while F polls) */
	if (ut_bootarg("client_spin", spin, sizeof spin))
		ful_fs_set_spin((unsigned)strtoul(spin, NULL, 0));
	if (!strcmp(which, "forms_b") &&
	    (!ut_bootarg("fs_copy", spin, sizeof spin) || strcmp(spin, "0"))) {
		printf("ubench: forms_b: needs boot argument fs_copy=0\n");
		return 0;
	}
	unsigned n = !strcmp(which, "forms")
			     ? st_forms(false, "block_read_form") + st_omf_read()
		     : !strcmp(which, "forms_b") ? st_forms(false, "block_read_b_form")
		     : !strcmp(which, "forms_mttcg") ? st_forms(true, "block_read_time_form")
		     : !strcmp(which, "postmark")  ? st_postmarks()
		     : !strcmp(which, "bonnie_split") ? st_bonnie_split()
						   : st_bonnies();
	struct ful_msg m = {0};
	size_t cap;
	ful_fs_begin(&cap); /* the image clean for e2fsck after the run */
	ful_fs_call(FUL_FS_OP_SYNC, &m, 0);
	ful_fs_end();
	return n;
}
