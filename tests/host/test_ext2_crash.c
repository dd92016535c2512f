/*
 * Power loss: F's ext2 code (user/servers/fs/ext2*.c) over a device with
 * a volatile write cache. Killing QEMU proves nothing (the host's page
 * cache keeps every write), so the device is simulated here: it holds
 * the writes since its last flush in a volatile layer and, at a chosen
 * write, "loses power": a random (seeded) subset of those writes reaches
 * the image, the rest is dropped (CrashMonkey's model: any subset of the
 * unflushed writes may have reached the medium, each write of a block
 * whole). The crash image is then repaired by `e2fsck -fy`, must be clean
 * under `e2fsck -fn`, and every file whose ext2_fsync returned before the
 * crash must read back with its name and contents (a file appended to
 * since, its fsynced bytes as a prefix); the whole tree must walk without
 * an error.
 *
 * The workload is PostMark-like: a pool of files in the root and three
 * directories, created with random sizes (direct and indirect blocks),
 * then transactions of a read or an append and a create or a delete,
 * fsync after about half the creates and appends. Default: 20 crash
 * points sampled from all the workload's writes; EXT2_CRASH_LONG=1: every
 * write. EXT2_CRASH_SEED picks another workload and other subsets.
 * Each test runs on 4 KiB blocks, and as NAME_1k on 1 KiB ones.
 * Images in build/host/ext2-crash/, never committed.
 */
#define _GNU_SOURCE
#define HTEST_MAIN
#include "host_test.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../user/servers/fs/ext2.h"

#define DIR_ "build/host/ext2-crash"
#define IMG DIR_ "/base.img"
#define CRASH_IMG DIR_ "/crash.img"
#define PATHS "PATH=$PATH:/usr/sbin:/sbin "
#define SAMPLE_POINTS 20

const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

/* ---- the device: a volatile layer over the durable image ---- */

static uint8_t *base;    /* the image mke2fs made */
static uint8_t *cur;     /* what reads see: every write taken */
static uint8_t *durable; /* what survives power loss: flushed writes */
static uint32_t nblk;

struct pend {
	uint32_t blk;
	uint8_t data[EXT2_BLOCK];
};
static struct pend *pend; /* writes since the last flush, in order */
static unsigned npend, pend_cap;

static unsigned long nwrites;  /* writes taken since the workload began */
static unsigned long crash_at; /* lose power at this write (0: never) */
static jmp_buf crash_jmp;
static uint64_t crash_rng;
static unsigned keep_pct;      /* chance of an unflushed write surviving */
static unsigned kept, lost;    /* of the last crash */
static bool out_of_range;      /* a block asked past the device */

static int dev_read(void *ctx, uint32_t blk, void *buf)
{
	(void)ctx;
	if (blk >= nblk)
		return out_of_range = true, -EIO;
	memcpy(buf, cur + (size_t)blk * EXT2_BLOCK, EXT2_BLOCK);
	return 0;
}

/** Power fails now: the durable image takes a random subset of the
 *  unflushed writes, in their order; the workload stops. */
static void crash(void)
{
	kept = lost = 0;
	for (unsigned i = 0; i < npend; i++) {
		if (htest_rand(&crash_rng) % 100 < keep_pct) {
			memcpy(durable + (size_t)pend[i].blk * EXT2_BLOCK,
			       pend[i].data, EXT2_BLOCK);
			kept++;
		} else {
			lost++;
		}
	}
	npend = 0;
	longjmp(crash_jmp, 1);
}

static int dev_write(void *ctx, uint32_t blk, const void *buf)
{
	(void)ctx;
	if (blk >= nblk)
		return out_of_range = true, -EIO;
	memcpy(cur + (size_t)blk * EXT2_BLOCK, buf, EXT2_BLOCK);
	if (npend == pend_cap) {
		pend_cap = pend_cap ? 2 * pend_cap : 256;
		pend = realloc(pend, pend_cap * sizeof *pend);
	}
	pend[npend].blk = blk;
	memcpy(pend[npend++].data, buf, EXT2_BLOCK);
	if (++nwrites == crash_at)
		crash();
	return 0;
}

static int dev_flush(void *ctx)
{
	(void)ctx;
	for (unsigned i = 0; i < npend; i++)
		memcpy(durable + (size_t)pend[i].blk * EXT2_BLOCK, pend[i].data,
		       EXT2_BLOCK);
	npend = 0;
	return 0;
}

static uint32_t dev_now(void *ctx)
{
	(void)ctx;
	return 1764000000u;
}

static const struct ext2_dev dev = {.read = dev_read, .write = dev_write,
				    .now = dev_now, .flush = dev_flush};

/* ---- the workload and its model ---- */

#define MAX_FILES 512
#define NDIRS 4 /* the root and s1..s3 */

struct mfile {
	char name[16];
	unsigned dir;         /* index into dir_ino */
	uint32_t ino, size;
	unsigned id;          /* contents: byte i is pat(id, i) */
	bool live;            /* not deleted, no delete under way */
	bool synced;          /* an fsync of it returned */
	uint32_t synced_size; /* its size then */
	bool changed;         /* written since (or a write under way) */
	bool sparse;          /* written far past its end: no more appends */
};

static struct mfile files[MAX_FILES];
static unsigned nfiles;
static uint32_t dir_ino[NDIRS];
static struct ext2_fs fs;
static uint64_t wl_rng;
static char wl_err[160]; /* the workload's own failure, if any */
static unsigned long sparse_at; /* writes before the sparse write */

static uint8_t pat(unsigned id, uint64_t i)
{
	return (uint8_t)(i * 131 + id * 7 + (i >> 11));
}

static uint32_t rnd(uint32_t lo, uint32_t hi) /* in [lo, hi] */
{
	return lo + (uint32_t)(htest_rand(&wl_rng) % (hi - lo + 1));
}

/** Append @n bytes of @f's pattern at its end (marked changed first). */
static int wl_append(struct mfile *f, uint32_t n)
{
	static uint8_t buf[16384];
	f->changed = true;
	while (n) {
		uint32_t k = n < sizeof buf ? n : sizeof buf;
		for (uint32_t i = 0; i < k; i++)
			buf[i] = pat(f->id, (uint64_t)f->size + i);
		long r = ext2_write(&fs, f->ino, f->size, buf, k);
		if (r != (long)k)
			return snprintf(wl_err, sizeof wl_err,
					"append to %s: %ld (%s)", f->name, r,
					fs.why), -1;
		f->size += k, n -= k;
	}
	return 0;
}

/** fsync @f: its state is the one a crash must keep from now on. */
static int wl_fsync(struct mfile *f)
{
	int r = ext2_fsync(&fs, f->ino);
	if (r)
		return snprintf(wl_err, sizeof wl_err, "fsync: %d", r), -1;
	f->synced = true, f->synced_size = f->size, f->changed = false;
	return 0;
}

static int wl_create(void)
{
	if (nfiles == MAX_FILES)
		return 0;
	struct mfile *f = &files[nfiles];
	*f = (struct mfile){.dir = rnd(0, NDIRS - 1), .id = nfiles};
	int len = snprintf(f->name, sizeof f->name, "pm%04u", nfiles++);
	int r = ext2_create(&fs, dir_ino[f->dir], f->name, (size_t)len, 0644,
			    &f->ino);
	if (r)
		return snprintf(wl_err, sizeof wl_err, "create: %d", r), -1;
	f->live = true;
	/* mostly small, some past the 12 direct blocks (indirect ones) */
	uint32_t size = rnd(0, 3) ? rnd(500, 20000) : rnd(40000, 120000);
	if (wl_append(f, size))
		return -1;
	return rnd(0, 1) ? wl_fsync(f) : 0;
}

/** A live file at random, or NULL. */
static struct mfile *wl_pick(void)
{
	for (int tries = 0; tries < 64 && nfiles; tries++) {
		struct mfile *f = &files[rnd(0, nfiles - 1)];
		if (f->live)
			return f;
	}
	return NULL;
}

static int wl_delete(void)
{
	struct mfile *f = wl_pick();
	if (!f)
		return 0;
	f->live = false; /* before: a crash may keep it or not */
	int r = ext2_unlink(&fs, dir_ino[f->dir], f->name, strlen(f->name));
	return r ? snprintf(wl_err, sizeof wl_err, "unlink: %d", r), -1 : 0;
}

/** A fsynced file written 4.3 MB past its start, through a double
 *  indirect block (its fsynced bytes must survive a crash meanwhile);
 *  not appended to afterwards (the model knows no holes). */
static int wl_sparse(void)
{
	static const uint8_t far[1000] = {1};
	for (unsigned i = 0; i < nfiles; i++) {
		struct mfile *f = &files[i];
		if (!f->live || !f->synced || f->changed)
			continue;
		f->changed = f->sparse = true;
		sparse_at = nwrites;
		long r = ext2_write(&fs, f->ino, 4300000, far, sizeof far);
		return r == (long)sizeof far ? 0
		       : (snprintf(wl_err, sizeof wl_err, "sparse write: %ld", r),
			  -1);
	}
	return 0;
}

static int wl_read(void)
{
	static uint8_t buf[8192];
	struct mfile *f = wl_pick();
	if (!f)
		return 0;
	long r = ext2_read(&fs, f->ino, f->size / 2, buf, sizeof buf);
	return r < 0 ? snprintf(wl_err, sizeof wl_err, "read: %ld", r), -1 : 0;
}

static struct ext2_group groups[64]; /* the image's: one group */

/** PostMark-like: directories, a pool of files, then transactions. */
static int workload(void)
{
	int r = ext2_mount(&fs, &dev, groups, 64);
	if (r)
		return snprintf(wl_err, sizeof wl_err, "mount: %d %s", r,
				fs.why), -1;
	dir_ino[0] = EXT2_ROOT_INO;
	for (unsigned d = 1; d < NDIRS; d++) {
		char name[4] = {'s', (char)('0' + d), 0, 0};
		if ((r = ext2_mkdir(&fs, EXT2_ROOT_INO, name, 2, 0755,
				    &dir_ino[d])))
			return snprintf(wl_err, sizeof wl_err, "mkdir: %d", r),
			       -1;
	}
	for (int i = 0; i < 24; i++)
		if (wl_create())
			return -1;
	for (int t = 0; t < 100; t++) {
		struct mfile *f = wl_pick();
		if (rnd(0, 1)) {
			if (wl_read())
				return -1;
		} else if (f && !f->sparse && (wl_append(f, rnd(100, 20000)) ||
				 (rnd(0, 1) && wl_fsync(f)))) {
			return -1;
		}
		if (rnd(0, 1) ? wl_create() : wl_delete())
			return -1;
		/* after a delete: the indirect blocks reuse its old data */
		if (t == 40 && (wl_delete() || wl_sparse()))
			return -1;
	}
	return ext2_sync(&fs);
}

/* ---- one crash point ---- */

static void reset(uint64_t seed)
{
	memcpy(cur, base, (size_t)nblk * EXT2_BLOCK);
	memcpy(durable, base, (size_t)nblk * EXT2_BLOCK);
	npend = 0, nwrites = 0, nfiles = 0, sparse_at = 0;
	out_of_range = false;
	wl_rng = seed * 0x9e3779b97f4a7c15ull + 1;
	wl_err[0] = 0;
}

static int sh(const char *cmd)
{
	char full[512];
	snprintf(full, sizeof full, PATHS "%s", cmd);
	int st = system(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int save(const char *path, const uint8_t *img)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t n = (size_t)nblk * EXT2_BLOCK;
	bool ok = fd >= 0 && write(fd, img, n) == (ssize_t)n;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int load(const char *path, uint8_t *img)
{
	int fd = open(path, O_RDONLY);
	size_t n = (size_t)nblk * EXT2_BLOCK;
	bool ok = fd >= 0 && read(fd, img, n) == (ssize_t)n;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/** Does fsynced file @f read back as the crash must have kept it? */
static bool file_kept(const struct mfile *f, char *why, size_t n)
{
	uint32_t ino;
	struct ext2_stat st;
	int r = ext2_lookup(&fs, dir_ino[f->dir], f->name, strlen(f->name), &ino);
	if (r || (r = ext2_stat(&fs, ino, &st)))
		return snprintf(why, n, "%s (dir %u): %d", f->name, f->dir, r),
		       false;
	if (f->changed ? st.size < f->synced_size : st.size != f->synced_size)
		return snprintf(why, n, "%s: size %u, fsynced %u%s", f->name,
				st.size, f->synced_size,
				f->changed ? " and appended" : ""),
		       false;
	uint8_t *buf = malloc(f->synced_size + 1);
	long got = ext2_read(&fs, ino, 0, buf, f->synced_size);
	uint32_t i = 0;
	while (got == (long)f->synced_size && i < f->synced_size &&
	       buf[i] == pat(f->id, i))
		i++;
	free(buf);
	if (got != (long)f->synced_size)
		return snprintf(why, n, "%s: read %ld", f->name, got), false;
	if (i < f->synced_size)
		return snprintf(why, n, "%s: byte %u differs", f->name, i), false;
	return true;
}

static int count_fn(void *arg, const char *name, size_t len, uint32_t ino,
		    unsigned type)
{
	(void)name, (void)len, (void)ino, (void)type;
	++*(unsigned *)arg;
	return 0;
}

/** After the repair: the directories list, every fsynced file is kept. */
static bool check_repaired(unsigned *checked, char *why, size_t n)
{
	if (load(CRASH_IMG, cur))
		return snprintf(why, n, "cannot read the repaired image"), false;
	int r = ext2_mount(&fs, &dev, groups, 64);
	if (r)
		return snprintf(why, n, "mount: %d (%s)", r, fs.why), false;
	for (unsigned d = 0; d < NDIRS; d++) {
		unsigned count = 0;
		uint64_t pos = 0;
		uint32_t ino;
		char name[3] = {'s', (char)('0' + d), 0};
		if (d && ext2_lookup(&fs, EXT2_ROOT_INO, name, 2, &ino))
			continue; /* made after the last flush: may be gone */
		if ((r = ext2_readdir(&fs, dir_ino[d], &pos, count_fn, &count)))
			return snprintf(why, n, "readdir %u: %d (%s)", d, r,
					fs.why), false;
	}
	for (unsigned i = 0; i < nfiles; i++) {
		if (!files[i].live || !files[i].synced)
			continue;
		++*checked;
		if (!file_kept(&files[i], why, n))
			return false;
	}
	return true;
}

/* Totals over the crash points run. */
struct totals {
	unsigned points, repaired, files_checked, kept, lost;
};

/** Lose power at write @w (keeping each unflushed write with chance
 *  @pct %), repair, check; NULL or what went wrong (in @why). */
static const char *crash_point(unsigned long w, unsigned pct, uint64_t seed,
			       struct totals *t, char *why, size_t n)
{
	reset(seed);
	crash_at = w, keep_pct = pct;
	crash_rng = seed ^ (w * 0x2545F4914F6CDD1Dull) ^ pct;
	if (!setjmp(crash_jmp)) {
		int r = workload();
		crash_at = 0;
		if (r || wl_err[0])
			return snprintf(why, n, "%s", wl_err), "workload failed";
		return "no crash: write number past the workload";
	}
	crash_at = 0;
	if (wl_err[0])
		return snprintf(why, n, "%s", wl_err), "workload failed";
	if (out_of_range)
		return "a block past the device";
	if (save(CRASH_IMG, durable))
		return "cannot write the crash image";
	int fy = sh("e2fsck -fy " CRASH_IMG " > " DIR_ "/fy.log 2>&1");
	if (fy > 3) /* 1: repaired, 2: repaired, reboot; 4+: not */
		return snprintf(why, n, "exit %d, " DIR_ "/fy.log", fy),
		       "e2fsck -fy could not repair";
	t->repaired += fy != 0;
	if (sh("e2fsck -fn " CRASH_IMG " > " DIR_ "/fn.log 2>&1"))
		return "not clean after e2fsck -fy";
	t->points++, t->kept += kept, t->lost += lost;
	if (!check_repaired(&t->files_checked, why, n))
		return "an fsynced file was lost";
	return NULL;
}

/* ---- the tests ---- */

/** The empty image (mke2fs) of @bs-byte blocks in memory; 0 or -1. */
static int setup(unsigned bs)
{
	static unsigned loaded;
	if (loaded == bs)
		return 0;
	if (!loaded)
		htest_lock(DIR_ ".lock");
	char cmd[256];
	snprintf(cmd, sizeof cmd,
		 "rm -rf " DIR_ " && mkdir -p " DIR_ " && mke2fs -q -F -t ext2 "
		 "-b %u -N 1024 " IMG " 8M > /dev/null 2>&1", bs);
	if (sh(cmd))
		return -1;
	struct stat st;
	if (stat(IMG, &st))
		return -1;
	nblk = (uint32_t)(st.st_size / EXT2_BLOCK);
	free(base), free(cur), free(durable);
	base = malloc((size_t)st.st_size);
	cur = malloc((size_t)st.st_size);
	durable = malloc((size_t)st.st_size);
	loaded = bs;
	return load(IMG, base);
}

/** The whole workload without a crash: its number of writes, or 0. */
static unsigned long writes_of_workload(uint64_t seed)
{
	reset(seed);
	crash_at = 0;
	if (!setjmp(crash_jmp) && workload() == 0 && !wl_err[0])
		return nwrites;
	return 0;
}

/* Without a crash the workload ends clean (the check itself works),
 * and a flush keeps everything: no file lost at any keep rate when every
 * unflushed write survives. */
static void runs_clean(struct htest_ctx *htest_ctx_, unsigned bs)
{
	CHECK_EQ(setup(bs), 0);
	uint64_t seed = htest_env_num("EXT2_CRASH_SEED", 1);
	unsigned long n = writes_of_workload(seed);
	if (!n)
		HTEST_FAIL_("workload: %s", wl_err);
	CHECK(n > 500);
	dev_flush(NULL);
	CHECK_EQ(save(CRASH_IMG, durable), 0);
	CHECK_EQ(sh("e2fsck -fn " CRASH_IMG " > " DIR_ "/fn.log 2>&1"), 0);
	struct totals t = {0};
	char why[200] = "";
	const char *bad = crash_point(n, 100, seed, &t, why, sizeof why);
	if (bad)
		HTEST_FAIL_("last write, all kept: %s: %s", bad, why);
}

HTEST(workload_runs_clean)
{
	runs_clean(htest_ctx_, 4096);
}

/** Crash at each write of @w[0..@nw), keep rates in turn. */
static void run_points(struct htest_ctx *htest_ctx_, const unsigned long *w,
		       unsigned long nw, uint64_t seed)
{
	static const unsigned pcts[] = {50, 0, 25, 75, 100};
	struct totals t = {0};
	unsigned fails = 0;
	char first[300] = "";
	for (unsigned long i = 0; i < nw; i++) {
		unsigned pct = htest_env_num("EXT2_CRASH_KEEP",
				       pcts[i % (sizeof pcts / sizeof *pcts)]);
		char why[200] = "";
		const char *bad = crash_point(w[i], pct, seed, &t, why, sizeof why);
		if (!bad)
			continue;
		if (fails++ < 5)
			fprintf(stderr, "crash at write %lu, keep %u %%: %s: %s\n",
				w[i], pct, bad, why);
		if (fails == 1)
			snprintf(first, sizeof first, "write %lu keep %u%%: %s: %s",
				 w[i], pct, bad, why);
	}
	fprintf(stderr, "ext2 crash: %lu points, %u repaired by e2fsck, "
		"%u fsynced files checked, unflushed writes %u kept %u lost, "
		"%u failing\n", nw, t.repaired, t.files_checked, t.kept, t.lost,
		fails);
	if (fails)
		HTEST_FAIL_("%u of %lu crash points fail; first: %s", fails, nw,
			    first);
}

/* SAMPLE_POINTS crash points spread over the workload's writes
 * (EXT2_CRASH_LONG=1: every one). */
static void survive(struct htest_ctx *htest_ctx_, unsigned bs)
{
	CHECK_EQ(setup(bs), 0);
	uint64_t seed = htest_env_num("EXT2_CRASH_SEED", 1);
	unsigned long n = writes_of_workload(seed);
	if (!n)
		HTEST_FAIL_("workload: %s", wl_err);
	fprintf(stderr, "ext2 crash: the workload makes %lu writes\n", n);
	bool all = htest_env_num("EXT2_CRASH_LONG", 0) != 0;
	unsigned long nw = all ? n : SAMPLE_POINTS;
	unsigned long one = htest_env_num("EXT2_CRASH_AT", 0); /* a point to look at */
	if (one) {
		run_points(htest_ctx_, &one, 1, seed);
		return;
	}
	unsigned long *w = malloc(nw * sizeof *w);
	uint64_t pick = seed * 7919 + 3;
	for (unsigned long i = 0; i < nw; i++)
		w[i] = all ? i + 1 : 1 + htest_rand(&pick) % n;
	run_points(htest_ctx_, w, nw, seed);
	free(w);
}

HTEST(fsynced_files_survive_power_loss)
{
	survive(htest_ctx_, 4096);
}

/* The writes after the sparse write, which makes a double indirect
 * block, an indirect block in it and a data block for a fsynced file,
 * until the next flush: a crash there keeping the inode and losing
 * either indirect block's zeros lost the file (ext2_bmap's balloc_ind). */
static void around_dind(struct htest_ctx *htest_ctx_, unsigned bs)
{
	CHECK_EQ(setup(bs), 0);
	uint64_t seed = htest_env_num("EXT2_CRASH_SEED", 1);
	if (!writes_of_workload(seed))
		HTEST_FAIL_("workload: %s", wl_err);
	CHECK(sparse_at > 0);
	unsigned long w[24];
	for (unsigned i = 0; i < 24; i++)
		w[i] = sparse_at + 1 + i;
	run_points(htest_ctx_, w, 24, seed);
}

HTEST(power_loss_around_double_indirect)
{
	around_dind(htest_ctx_, 4096);
}

/* The same on 1 KiB blocks: four of them in each device write (a
 * read-modify-write of their 4 KiB), the sparse write's double
 * indirect block at 268 KiB into the file. */
HTEST(workload_runs_clean_1k)
{
	runs_clean(htest_ctx_, 1024);
}

HTEST(fsynced_files_survive_power_loss_1k)
{
	survive(htest_ctx_, 1024);
}

HTEST(power_loss_around_double_indirect_1k)
{
	around_dind(htest_ctx_, 1024);
}
