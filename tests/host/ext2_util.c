/*
 * Helpers of the ext2 host tests (test_ext2.c, ext2_fail.c): the block
 * devices (a file, one that fails, one with a get callback, one in
 * memory), images made by mke2fs from trees written here, e2fsck, and
 * comparisons of images. Images live in build/host/ext2/ and are never
 * committed.
 */
#define _GNU_SOURCE
#include "host_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ext2_util.h"

int img_fd = -1;

static int dev_read(void *ctx, uint32_t blk, void *buf)
{
	(void)ctx;
	return pread(img_fd, buf, EXT2_BLOCK, (off_t)blk * EXT2_BLOCK) ==
			       EXT2_BLOCK
		       ? 0
		       : -EIO;
}

static int dev_write(void *ctx, uint32_t blk, const void *buf)
{
	(void)ctx;
	return pwrite(img_fd, buf, EXT2_BLOCK, (off_t)blk * EXT2_BLOCK) ==
			       EXT2_BLOCK
		       ? 0
		       : -EIO;
}

static uint32_t dev_now(void *ctx)
{
	(void)ctx;
	return 1764000000u;
}

/* The get callback (ext2.h): the block in one of two buffers in turn,
 * the other one poisoned, so that a pointer used after the next block
 * call reads garbage and a check fails (as a device copy or window
 * reused by the next request would). */
static const void *dev_get(void *ctx, uint32_t blk, int *err)
{
	static uint8_t two[2][EXT2_BLOCK];
	static unsigned next;
	uint8_t *b = two[next];
	next ^= 1;
	memset(two[next], 0xa5, EXT2_BLOCK);
	*err = dev_read(ctx, blk, b);
	return *err ? NULL : b;
}

/* dev_failing's writes fail while write_fails is set, and so does the
 * one numbered fail_write (dev_writes before it: a device error in the
 * middle of an update, the writes after it taken again); its reads
 * fail while read_fails is set. */
bool write_fails, read_fails;
unsigned long fail_write = ~0ul, fail_n = 1;

unsigned long dev_writes; /* blocks written through dev_failing */

/** Is this write one of the fail_n from fail_write on (counted)? */
static bool write_refused(void)
{
	unsigned long w = dev_writes++;
	return w >= fail_write && w - fail_write < fail_n;
}

static int dev_write_or_fail(void *ctx, uint32_t blk, const void *buf)
{
	return write_fails || write_refused() ? -EIO : dev_write(ctx, blk, buf);
}

static int dev_read_or_fail(void *ctx, uint32_t blk, void *buf)
{
	return read_fails ? -EIO : dev_read(ctx, blk, buf);
}

const struct ext2_dev dev = {dev_read, dev_write, dev_now, NULL, NULL, NULL};
const struct ext2_dev dev_failing = {dev_read_or_fail, dev_write_or_fail,
				     dev_now, NULL, NULL, NULL};
const struct ext2_dev dev_with_get = {dev_read, dev_write, dev_now, NULL,
				      dev_get, NULL};
const struct ext2_dev *devp = &dev;
struct ext2_fs fs;

/** Deterministic contents: byte i of file @seed. */
uint8_t pat(unsigned seed, size_t i)
{
	return (uint8_t)(i * 31 + seed * 7 + (i >> 12));
}

void fill(uint8_t *b, size_t n, unsigned seed, size_t from)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(seed, from + i);
}

int sh(const char *cmd)
{
	char full[1024];
	snprintf(full, sizeof full, PATHS "%s", cmd);
	return system(full);
}

static void write_host_file(const char *path, size_t n, unsigned seed)
{
	uint8_t *b = malloc(n ? n : 1);
	fill(b, n, seed, 0);
	FILE *f = fopen(path, "wb");
	fwrite(b, 1, n, f);
	fclose(f);
	free(b);
}

/** The small tree of every image, in DIR_/tree. */
void write_tree(void)
{
	sh("rm -rf " DIR_ "/tree && mkdir -p " DIR_ "/tree/sub/deep");
	write_host_file(DIR_ "/tree/small.txt", 100, 1);
	write_host_file(DIR_ "/tree/empty", 0, 2);
	write_host_file(DIR_ "/tree/sub/indirect.bin", 60 * 1024, 3);
	write_host_file(DIR_ "/tree/sub/deep/big.bin", BIG_SIZE, 4);
}

unsigned img_bs = 4096;
const char *mkfs_opts = "";

/** A fresh image of @mb MiB at @img from the tree in DIR_/tree, of
 *  img_bs-byte blocks (0: mke2fs's choice), mkfs_opts added. */
int mkfs_tree(const char *img, unsigned mb)
{
	char cmd[768], bs[16] = "";
	if (img_bs)
		snprintf(bs, sizeof bs, "-b %u", img_bs);
	snprintf(cmd, sizeof cmd,
		 "rm -f %s && mke2fs -q -F -t ext2 %s %s -d " DIR_
		 "/tree %s %uM >/dev/null 2>&1",
		 img, bs, mkfs_opts, img, mb);
	return sh(cmd);
}

/** A fresh image of @mb MiB at @img, populated from a small tree. */
int make_image(const char *img, unsigned mb)
{
	write_tree();
	return mkfs_tree(img, mb);
}


/** The small tree plus a fast symlink "fast", a slow one "sub/slow"
 *  (a target of 60 bytes or more), a hard link "sub/hard" of small.txt
 *  and a fifo "fifo", made by ln and mkfifo on the host. */
int make_link_image(const char *img, unsigned mb)
{
	write_tree();
	sh("ln -s " FAST_TARGET " " DIR_ "/tree/fast && ln -s " SLOW_TARGET
	   " " DIR_ "/tree/sub/slow && ln " DIR_ "/tree/small.txt " DIR_
	   "/tree/sub/hard && mkfifo " DIR_ "/tree/fifo");
	return mkfs_tree(img, mb);
}

/** ext2_mount of @d on @f with a group table of TEST_GROUPS entries
 *  (one for fs, one for any other struct ext2_fs). */
int mount_fs(struct ext2_fs *f, const struct ext2_dev *d)
{
	static struct ext2_group table[2][TEST_GROUPS];
	return ext2_mount(f, d, table[f != &fs], TEST_GROUPS);
}

int open_image(const char *img)
{
	if (img_fd >= 0)
		close(img_fd);
	img_fd = open(img, O_RDWR);
	return img_fd >= 0 ? mount_fs(&fs, devp) : -EIO;
}

/** e2fsck -fn's exit status on @img (0: clean). */
int fsck(const char *img)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "e2fsck -fn %s > " DIR_ "/fsck.log 2>&1", img);
	int r = sh(cmd);
	if (r)
		sh("cat " DIR_ "/fsck.log >&2");
	return r;
}

/** Does file @path of @ino hold @n bytes of pattern @seed? */
bool file_is(uint32_t ino, size_t n, unsigned seed)
{
	uint8_t *b = malloc(n + 1);
	long r = ext2_read(&fs, ino, 0, b, n + 1);
	bool ok = r == (long)n;
	for (size_t i = 0; ok && i < n; i++)
		ok = b[i] == pat(seed, i);
	free(b);
	return ok;
}


/** Do the tree's files read as mke2fs wrote them? */
bool tree_intact(void)
{
	uint32_t ino;
	return !ext2_namei(&fs, "/small.txt", &ino) && file_is(ino, 100, 1) &&
	       !ext2_namei(&fs, "/sub/indirect.bin", &ino) &&
	       file_is(ino, 60 * 1024, 3) &&
	       !ext2_namei(&fs, "/sub/deep/big.bin", &ino) &&
	       file_is(ino, BIG_SIZE, 4);
}

/** Sync, close and e2fsck -fn @img: 0 if all of it went well. */
int close_fsck(const char *img)
{
	int r = ext2_sync(&fs);
	close(img_fd), img_fd = -1;
	return r ? r : fsck(img);
}


/* readdir's entry type of @want's name (0 if absent). */
struct type_of {
	const char *name;
	unsigned type;
};

static int type_fn(void *arg, const char *name, size_t len, uint32_t ino,
		   unsigned type)
{
	struct type_of *t = arg;
	(void)ino;
	if (len == strlen(t->name) && !memcmp(name, t->name, len))
		t->type = type;
	return 0;
}

unsigned entry_type(uint32_t dir, const char *name)
{
	struct type_of t = {name, 0};
	uint64_t pos = 0;
	return ext2_readdir(&fs, dir, &pos, type_fn, &t) ? ~0u : t.type;
}


/* ---- failed operations leave the image as it was ---- */

/** Name @i of 200 bytes: long_per_block() such entries (19 in 4 KiB)
 *  fill a directory block. */
const char *long_name(unsigned i)
{
	static char name[201];
	memset(name, 'n', 200);
	char num[12];
	int len = snprintf(num, sizeof num, "%u", i);
	memcpy(name, num, (size_t)len);
	name[200] = 0;
	return name;
}

unsigned long_per_block(void)
{
	return fs.bsize / 208; /* an entry: 8 bytes, the name, rounded to 4 */
}

/** Fill the first @blocks blocks of directory @d (one block long, as
 *  mkdir made it) with empty files: adding to it takes a new block. */
int fill_dir(uint32_t d, unsigned blocks)
{
	uint32_t ino;
	for (unsigned i = 0; i < blocks * long_per_block(); i++) {
		int err = ext2_create(&fs, d, long_name(i), 200, 0644, &ino);
		if (err)
			return err;
	}
	return 0;
}

/** Files of at most 12 blocks (no indirect block) in a new directory
 *  "fill" of @dir until @left blocks are free. */
int fill_disk(uint32_t dir, uint32_t left)
{
	static const uint8_t z[EXT2_BLOCK];
	uint32_t d, ino;
	int err = ext2_mkdir(&fs, dir, "fill", 4, 0755, &d);
	for (int f = 0; !err && fs.free_blocks > left; f++) {
		char name[16];
		int len = snprintf(name, sizeof name, "f%d", f);
		err = ext2_create(&fs, d, name, (size_t)len, 0644, &ino);
		for (uint32_t k = 0; !err && k < EXT2_NDIR && fs.free_blocks > left;
		     k++)
			if (ext2_write(&fs, ino, k * fs.bsize, z, fs.bsize) !=
			    (long)fs.bsize)
				err = -EIO;
	}
	return err ? err : fs.free_blocks == left ? 0 : -ENOSPC;
}

/** The image @img as a file's bytes (free with free()); *@n its size. */
uint8_t *slurp(const char *img, size_t *n)
{
	FILE *f = fopen(img, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(*n);
	if (b && fread(b, 1, *n, f) != *n)
		free(b), b = NULL;
	fclose(f);
	return b;
}

/** Are images @now and @was (@n bytes each) the same in every block
 *  @was's bitmaps have in use (free ones may differ: a new block is
 *  zeroed, and freeing it again does not undo that)? */
bool same_bytes(const uint8_t *now, const uint8_t *was, size_t n)
{
	bool same = true;
	size_t bs = fs.bsize;
	for (uint32_t g = 0; same && g < fs.groups; g++) {
		const uint8_t *bm = was + (size_t)fs.group[g].block_bitmap * bs;
		for (uint32_t i = 0; same && i < fs.blocks_per_group; i++) {
			size_t blk = fs.first_data_block + (size_t)g * fs.blocks_per_group + i;
			if (blk >= fs.blocks || (blk + 1) * bs > n ||
			    !(bm[i / 8] & (1u << (i % 8))))
				continue;
			same = !memcmp(now + blk * bs, was + blk * bs, bs);
			if (!same)
				fprintf(stderr, "block %zu differs\n", blk);
		}
	}
	return same;
}

/** Is the mounted image @img (synced now) what @was held? */
bool same_image(const char *img, const uint8_t *was, size_t was_n)
{
	size_t n;
	if (ext2_sync(&fs))
		return false;
	uint8_t *now = slurp(img, &n);
	bool same = now && n == was_n && same_bytes(now, was, n);
	free(now);
	return same;
}

/** Sync and keep the image's bytes in *@snap (the state to come back
 *  to); false if that failed. */
bool snapshot(const char *img, uint8_t **snap, size_t *n)
{
	return !ext2_sync(&fs) && (*snap = slurp(img, n)) != NULL;
}


/* The sweeps' device: the image in memory (put back with a memcpy),
 * failing as dev_failing does; written to a file for e2fsck only. */
uint8_t *ram;
size_t ram_n;

static int ram_read(void *ctx, uint32_t blk, void *buf)
{
	(void)ctx;
	if (read_fails || ((size_t)blk + 1) * EXT2_BLOCK > ram_n)
		return -EIO;
	memcpy(buf, ram + (size_t)blk * EXT2_BLOCK, EXT2_BLOCK);
	return 0;
}

static int ram_write(void *ctx, uint32_t blk, const void *buf)
{
	(void)ctx;
	if (write_fails || write_refused() ||
	    ((size_t)blk + 1) * EXT2_BLOCK > ram_n)
		return -EIO;
	memcpy(ram + (size_t)blk * EXT2_BLOCK, buf, EXT2_BLOCK);
	return 0;
}

const struct ext2_dev dev_ram = {ram_read, ram_write, dev_now, NULL, NULL, NULL};

/** Sync the RAM image, write it to @img and e2fsck -fn it: 0 if clean. */
int ram_fsck(const char *img)
{
	FILE *f = ext2_sync(&fs) ? NULL : fopen(img, "wb");
	bool ok = f && fwrite(ram, 1, ram_n, f) == ram_n;
	if (f)
		fclose(f);
	return ok ? fsck(img) : -EIO;
}
