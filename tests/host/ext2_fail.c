/*
 * Host tests of ext2's undo log (user/servers/fs/ext2_undo.c): failed
 * operations leave the image as it was, block for block, whatever step
 * failed: out of space, or a device write refused. Linked into
 * test_ext2: its tests are named test_ext2/NAME.
 */
#define _GNU_SOURCE
#include "host_test.h"

#include <errno.h>
#include <unistd.h>

#include "ext2_util.h"

/* A create that fails for space (its directory's block full, no block
 * left) leaves no inode behind: it was written with one link and only
 * its bit cleared, which e2fsck reports. */
BS_TESTS(create_without_space_leaves_nothing)
{
	devp = &dev;
	const char *img = DIR_ "/nospace.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t d, ino;
	uint8_t *snap;
	size_t n;
	CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "d", 1, 0755, &d), 0);
	CHECK_EQ(fill_dir(d, 1), 0);
	CHECK_EQ(fill_disk(EXT2_ROOT_INO, 0), 0);
	CHECK(snapshot(img, &snap, &n));
	CHECK_EQ(ext2_create(&fs, d, long_name(999), 200, 0644, &ino), -ENOSPC);
	CHECK(same_image(img, snap, n));
	free(snap);
	CHECK(tree_intact());
	CHECK_EQ(close_fsck(img), 0);
}

/* A mkdir that fails for space (its own block taken, none left for
 * its parent's new block) leaves no unconnected directory behind. */
BS_TESTS(mkdir_without_space_leaves_nothing)
{
	devp = &dev;
	const char *img = DIR_ "/nospace.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t d, ino;
	uint8_t *snap;
	size_t n;
	CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "d", 1, 0755, &d), 0);
	CHECK_EQ(fill_dir(d, 1), 0);
	CHECK_EQ(fill_disk(EXT2_ROOT_INO, 1), 0);
	CHECK(snapshot(img, &snap, &n));
	CHECK_EQ(ext2_mkdir(&fs, d, long_name(999), 200, 0755, &ino), -ENOSPC);
	CHECK(same_image(img, snap, n));
	free(snap);
	CHECK_EQ(fs.free_blocks, 1u);
	CHECK_EQ(close_fsck(img), 0);
}

/* An entry added to a directory of 12 full blocks needs an indirect
 * block and a data block: with one block left the add fails, and the
 * indirect block it took is free again. */
BS_TESTS(dir_add_without_space_frees_its_block)
{
	devp = &dev;
	const char *img = DIR_ "/nospace.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t d;
	uint8_t *snap;
	size_t n;
	CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "d", 1, 0755, &d), 0);
	CHECK_EQ(fill_dir(d, EXT2_NDIR), 0);
	CHECK_EQ(fill_disk(EXT2_ROOT_INO, 1), 0);
	CHECK(snapshot(img, &snap, &n));
	CHECK_EQ(ext2_rename(&fs, EXT2_ROOT_INO, "small.txt", 9, d,
			     long_name(999), 200), -ENOSPC);
	CHECK(same_image(img, snap, n));
	free(snap);
	CHECK_EQ(fs.free_blocks, 1u);
	CHECK(tree_intact());
	CHECK_EQ(close_fsck(img), 0);
}

/* A write that fails for space changes nothing: not the size (a write
 * at 10,000 grew the file to 10,000), not the blocks (one past the
 * direct blocks took the indirect block and kept it); one that fits in
 * part writes that part. */
BS_TESTS(write_without_space_changes_nothing)
{
	devp = &dev;
	const char *img = DIR_ "/nospace.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t w;
	uint8_t *snap, b[3 * EXT2_BLOCK];
	size_t n, bs;
	struct ext2_stat st;
	fill(b, sizeof b, 8, 0);
	CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, "w", 1, 0644, &w), 0);
	CHECK_EQ(fill_disk(EXT2_ROOT_INO, 0), 0);
	CHECK(snapshot(img, &snap, &n));
	CHECK_EQ(ext2_write(&fs, w, 10000, b, 1), -ENOSPC);
	CHECK_EQ(ext2_stat(&fs, w, &st), 0);
	CHECK_EQ(st.size, 0u);
	CHECK(same_image(img, snap, n));
	free(snap);
	CHECK_EQ(ext2_unlink(&fs, EXT2_ROOT_INO, "small.txt", 9), 0);
	CHECK_EQ(fs.free_blocks, 1u);
	CHECK(snapshot(img, &snap, &n));
	bs = fs.bsize;
	CHECK_EQ(ext2_write(&fs, w, EXT2_NDIR * bs, b, 1), -ENOSPC);
	CHECK(same_image(img, snap, n));
	free(snap);
	CHECK_EQ(fs.free_blocks, 1u);
	CHECK_EQ(ext2_write(&fs, w, 0, b, 3 * bs), (long)bs); /* a part */
	CHECK(file_is(w, bs, 8));
	CHECK_EQ(fs.free_blocks, 0u);
	CHECK_EQ(close_fsck(img), 0);
}



/* Operations for the sweeps below, on the image of sweep_base: each
 * returns what the ext2 call returned (negative: it failed). */
static uint32_t ino_of(const char *path)
{
	uint32_t ino = 0;
	return ext2_namei(&fs, path, &ino) ? 0 : ino;
}

static long op_create(void)
{
	uint32_t ino;
	return ext2_create(&fs, ino_of("/d"), long_name(900), 200, 0644, &ino);
}

static long op_mkdir(void)
{
	uint32_t ino;
	return ext2_mkdir(&fs, ino_of("/d"), long_name(901), 200, 0755, &ino);
}

static long op_symlink_fast(void)
{
	uint32_t ino;
	return ext2_symlink(&fs, ino_of("/d"), long_name(902), 200, "t", 1,
			    &ino);
}

static long op_symlink_slow(void)
{
	uint32_t ino;
	return ext2_symlink(&fs, EXT2_ROOT_INO, "s", 1, SLOW_TARGET,
			    strlen(SLOW_TARGET), &ino);
}

static long op_link(void)
{
	return ext2_link(&fs, ino_of("/d"), long_name(904), 200,
			 ino_of("/small.txt"));
}

static long op_rename_new(void)
{
	return ext2_rename(&fs, EXT2_ROOT_INO, "small.txt", 9, ino_of("/d"),
			   long_name(905), 200);
}

static long op_rename_dir(void)
{
	return ext2_rename(&fs, EXT2_ROOT_INO, "sub", 3, ino_of("/e"), "s", 1);
}

static long op_rename_replace(void)
{
	return ext2_rename(&fs, EXT2_ROOT_INO, "small.txt", 9, ino_of("/sub"),
			   "indirect.bin", 12);
}

static long op_rename_dir_replace(void)
{
	return ext2_rename(&fs, ino_of("/sub"), "deep", 4, EXT2_ROOT_INO, "e",
			   1);
}

static long op_unlink(void)
{
	return ext2_unlink(&fs, ino_of("/sub/deep"), "big.bin", 7);
}

static long op_rmdir(void)
{
	return ext2_rmdir(&fs, EXT2_ROOT_INO, "e", 1);
}

static long op_write(void)
{
	static uint8_t b[100000];
	fill(b, sizeof b, 11, 0);
	return ext2_write(&fs, ino_of("/small.txt"), 30000, b, sizeof b);
}

static long op_overwrite(void) /* in place: blocks the file has */
{
	static uint8_t b[3 * EXT2_BLOCK];
	fill(b, sizeof b, 12, 0);
	return ext2_write(&fs, ino_of("/sub/indirect.bin"), 1000, b, sizeof b);
}

static long op_truncate(void)
{
	return ext2_truncate(&fs, ino_of("/sub/deep/big.bin"), 70000);
}

static long op_truncate_up(void)
{
	return ext2_truncate(&fs, ino_of("/small.txt"), 1u << 20);
}

static long (*const sweep_ops[])(void) = {
	op_create, op_mkdir, op_symlink_fast, op_symlink_slow, op_link,
	op_rename_new, op_rename_dir, op_rename_replace,
	op_rename_dir_replace, op_unlink, op_rmdir, op_write, op_overwrite,
	op_truncate, op_truncate_up,
};
#define SWEEP_OPS (sizeof sweep_ops / sizeof sweep_ops[0])

/** The sweeps' image: the link tree, a directory "d" of 12 full blocks
 *  (an entry more takes an indirect block) and an empty one "e". */
static int sweep_base(const char *img)
{
	uint32_t d, e;
	int err = make_link_image(img, 8) ? -EIO : open_image(img);
	if (!err)
		err = ext2_mkdir(&fs, EXT2_ROOT_INO, "d", 1, 0755, &d);
	if (!err)
		err = ext2_mkdir(&fs, EXT2_ROOT_INO, "e", 1, 0755, &e);
	return err ? err : fill_dir(d, EXT2_NDIR);
}

static unsigned sweep_runs; /* operations run by the sweeps */

/** Run sweep op @k on the RAM image put back to @snap: its result in
 *  *@r, in *@hit whether the write set to fail (fail_write, @w writes
 *  on) was reached. After a failure the image must be @snap again
 *  (clean, then); after a success e2fsck -fn must find it clean. */
static void sweep_one(struct htest_ctx *htest_ctx_, const char *img,
		      const uint8_t *snap, unsigned k, unsigned long w,
		      long *r, bool *hit)
{
	memcpy(ram, snap, ram_n);
	if (mount_fs(&fs, &dev_ram))
		HTEST_FAIL_("mount: %s", fs.why);
	fail_write = w == ~0ul ? w : dev_writes + w;
	*r = sweep_ops[k]();
	*hit = fail_write != ~0ul && dev_writes > fail_write;
	fail_write = ~0ul;
	sweep_runs++;
	if (*r < 0 && (ext2_sync(&fs) || !same_bytes(ram, snap, ram_n)))
		HTEST_FAIL_("op %u, write %lu: failed (%ld), the image changed",
			    k, w, *r);
	if (*r >= 0 && ram_fsck(img))
		HTEST_FAIL_("op %u, write %lu (%ld): e2fsck", k, w, *r);
}

/** The sweeps' image in RAM (ram, ram_n), from @img: 0 or an error. */
static int sweep_ram(const char *img)
{
	uint8_t *b = NULL;
	int err = sweep_base(img);
	if (!err && !snapshot(img, &b, &ram_n))
		err = -EIO;
	free(ram);
	ram = b;
	return err;
}

/* Each operation with the device failing its first write, then its
 * second, and so on until it completes (every 7th past the 48th; with
 * 1 KiB blocks every 28th): a
 * failed operation leaves the image as it was, block for block, and
 * every image checks clean. The device refuses one write, then two in
 * a row (the second is the undo's first: undo steps are tried again). */
BS_TESTS_1K(device_failure_at_every_write_undone)
{
	const char *img = DIR_ "/sweep.img";
	devp = &dev;
	CHECK_EQ(sweep_ram(img), 0);
	uint8_t *snap = malloc(ram_n);
	CHECK(snap != NULL);
	memcpy(snap, ram, ram_n);
	for (fail_n = 1; fail_n <= 2 && !htest_ctx_->failed; fail_n++) {
		for (unsigned k = 0; k < SWEEP_OPS && !htest_ctx_->failed; k++) {
			/* smaller blocks, more writes: as many runs */
			unsigned long far = 7 * (EXT2_BLOCK / fs.bsize);
			for (unsigned long w = 0;; w += w < 48 ? 1 : far) {
				long r;
				bool hit;
				sweep_one(htest_ctx_, img, snap, k, w, &r, &hit);
				if (htest_ctx_->failed)
					break;
				if (!hit) { /* fewer than w + 1 writes */
					CHECK(r >= 0);
					break;
				}
			}
		}
	}
	fail_n = 1;
	free(snap);
	printf("  %u runs\n", sweep_runs);
}

/* Each operation on the image filled up to 0, 1, 2, 3 and 4 free
 * blocks: one that fails (ENOSPC, nothing else) leaves the image as it
 * was, one that completes leaves it clean. */
BS_TESTS_1K(no_space_at_every_step_undone)
{
	const char *img = DIR_ "/sweep.img";
	devp = &dev;
	CHECK_EQ(sweep_ram(img), 0);
	uint8_t *base = malloc(ram_n), *snap = malloc(ram_n);
	CHECK(base && snap);
	memcpy(base, ram, ram_n);
	unsigned failed = 0;
	for (uint32_t left = 0; left <= 4 && !htest_ctx_->failed; left++) {
		memcpy(ram, base, ram_n);
		CHECK_EQ(mount_fs(&fs, &dev_ram), 0);
		CHECK_EQ(fill_disk(EXT2_ROOT_INO, left), 0);
		CHECK_EQ(ext2_sync(&fs), 0);
		memcpy(snap, ram, ram_n);
		for (unsigned k = 0; k < SWEEP_OPS && !htest_ctx_->failed; k++) {
			long r;
			bool hit;
			sweep_one(htest_ctx_, img, snap, k, ~0ul, &r, &hit);
			if (r < 0 && r != -ENOSPC)
				HTEST_FAIL_("op %u, %u left: %ld", k, left, r);
			failed += r < 0;
		}
	}
	free(base), free(snap);
	if (htest_ctx_->failed) /* keep the first failure's message */
		return;
	printf("  %u of %u failed\n", failed, 5 * (unsigned)SWEEP_OPS);
	CHECK(failed >= 10); /* the space ran out, often */
}
