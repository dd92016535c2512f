/*
 * Host tests of the ext2 code of F (user/servers/fs/ext2*.c) on real
 * images: made by mke2fs (-t ext2 -b 4096, populated with -d), read back
 * byte for byte; written by Fulcrum's code, then checked clean by
 * `e2fsck -fn` and read back by `debugfs -R cat`. Images live in
 * build/host/ext2/ and are never committed.
 */
#define _GNU_SOURCE
#define HTEST_MAIN
#include "host_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../user/servers/fs/ext2.h"
#include "../../user/servers/fs/ext2_int.h" /* ext2_iget */

#define DIR_ "build/host/ext2"
#define PATHS "PATH=$PATH:/usr/sbin:/sbin "
#define BIG_SIZE (4u * 1024 * 1024 + 300 * 1024) /* past double indirect */

static int img_fd = -1;

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
static bool write_fails, read_fails;
static unsigned long fail_write = ~0ul;

static unsigned long dev_writes; /* blocks written through dev_failing */

static int dev_write_or_fail(void *ctx, uint32_t blk, const void *buf)
{
	if (write_fails || dev_writes++ == fail_write)
		return -EIO;
	return dev_write(ctx, blk, buf);
}

static int dev_read_or_fail(void *ctx, uint32_t blk, void *buf)
{
	return read_fails ? -EIO : dev_read(ctx, blk, buf);
}

static const struct ext2_dev dev = {dev_read, dev_write, dev_now, NULL,
				    NULL};
static const struct ext2_dev dev_failing = {dev_read_or_fail,
					    dev_write_or_fail, dev_now, NULL,
					    NULL};
static const struct ext2_dev dev_with_get = {dev_read, dev_write, dev_now,
					     NULL, dev_get};
static const struct ext2_dev *devp = &dev;
static struct ext2_fs fs;

/** Deterministic contents: byte i of file @seed. */
static uint8_t pat(unsigned seed, size_t i)
{
	return (uint8_t)(i * 31 + seed * 7 + (i >> 12));
}

static void fill(uint8_t *b, size_t n, unsigned seed, size_t from)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(seed, from + i);
}

static int sh(const char *cmd)
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
static void write_tree(void)
{
	sh("rm -rf " DIR_ "/tree && mkdir -p " DIR_ "/tree/sub/deep");
	write_host_file(DIR_ "/tree/small.txt", 100, 1);
	write_host_file(DIR_ "/tree/empty", 0, 2);
	write_host_file(DIR_ "/tree/sub/indirect.bin", 60 * 1024, 3);
	write_host_file(DIR_ "/tree/sub/deep/big.bin", BIG_SIZE, 4);
}

/** A fresh image of @mb MiB at @img from the tree in DIR_/tree. */
static int mkfs_tree(const char *img, unsigned mb)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "rm -f %s && mke2fs -q -F -t ext2 -b 4096 -d " DIR_
		 "/tree %s %uM >/dev/null 2>&1",
		 img, img, mb);
	return sh(cmd);
}

/** A fresh image of @mb MiB at @img, populated from a small tree. */
static int make_image(const char *img, unsigned mb)
{
	write_tree();
	return mkfs_tree(img, mb);
}

/* The symlinks of make_link_image: "t" reads as block 0x74 if taken
 * for a block number, inside the inode table of a 16 MiB image. */
#define FAST_TARGET "t"
#define SLOW_TARGET                                                        \
	"sub/deep/../../sub/deep/../../sub/deep/../../sub/deep/../../small.txt"

/** The small tree plus a fast symlink "fast", a slow one "sub/slow"
 *  (a target of 60 bytes or more), a hard link "sub/hard" of small.txt
 *  and a fifo "fifo", made by ln and mkfifo on the host. */
static int make_link_image(const char *img, unsigned mb)
{
	write_tree();
	sh("ln -s " FAST_TARGET " " DIR_ "/tree/fast && ln -s " SLOW_TARGET
	   " " DIR_ "/tree/sub/slow && ln " DIR_ "/tree/small.txt " DIR_
	   "/tree/sub/hard && mkfifo " DIR_ "/tree/fifo");
	return mkfs_tree(img, mb);
}

static int open_image(const char *img)
{
	if (img_fd >= 0)
		close(img_fd);
	img_fd = open(img, O_RDWR);
	return img_fd >= 0 ? ext2_mount(&fs, devp) : -EIO;
}

/** e2fsck -fn's exit status on @img (0: clean). */
static int fsck(const char *img)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "e2fsck -fn %s > " DIR_ "/fsck.log 2>&1", img);
	int r = sh(cmd);
	if (r)
		sh("cat " DIR_ "/fsck.log >&2");
	return r;
}

/** Does file @path of @ino hold @n bytes of pattern @seed? */
static bool file_is(uint32_t ino, size_t n, unsigned seed)
{
	uint8_t *b = malloc(n + 1);
	long r = ext2_read(&fs, ino, 0, b, n + 1);
	bool ok = r == (long)n;
	for (size_t i = 0; ok && i < n; i++)
		ok = b[i] == pat(seed, i);
	free(b);
	return ok;
}

/** Mount a fresh mke2fs tree through @d and read its files of one
 *  block, of indirect blocks and past double indirect, byte for byte. */
static void read_tree(struct htest_ctx *htest_ctx_, const struct ext2_dev *d)
{
	devp = d;
	CHECK_EQ(sh("mkdir -p " DIR_), 0);
	CHECK_EQ(make_image(DIR_ "/read.img", 64), 0);
	CHECK_EQ(open_image(DIR_ "/read.img"), 0);
	uint32_t ino;
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &ino), 0);
	CHECK(file_is(ino, 100, 1));
	CHECK_EQ(ext2_namei(&fs, "/sub/indirect.bin", &ino), 0);
	CHECK(file_is(ino, 60 * 1024, 3));
	CHECK_EQ(ext2_namei(&fs, "/sub//deep/big.bin", &ino), 0);
	CHECK(file_is(ino, BIG_SIZE, 4));
}

HTEST(mount_reads_mke2fs_tree)
{
	read_tree(htest_ctx_, &dev);
	if (htest_ctx_->failed)
		return;
	uint32_t ino;
	CHECK_EQ(ext2_namei(&fs, "empty", &ino), 0);
	CHECK(file_is(ino, 0, 2));
	CHECK_EQ(ext2_namei(&fs, "/nothere", &ino), -ENOENT);
	CHECK_EQ(ext2_namei(&fs, "/small.txt/x", &ino), -ENOTDIR);
}

static int count_fn(void *arg, const char *name, size_t len, uint32_t ino,
		    unsigned type)
{
	(void)name, (void)len, (void)ino, (void)type;
	++*(int *)arg;
	return 0;
}

/* The same reads through the device's get callback (F's zero-copy
 * path: inodes, the block map and file data read where B or F's copy
 * holds them). */
HTEST(mount_reads_through_get)
{
	read_tree(htest_ctx_, &dev_with_get);
	devp = &dev;
}

/* Writes and reads interleaved, through the get callback (the write
 * session's checks read back what was just written). */
HTEST(write_tree_fsck_clean)
{
	devp = &dev_with_get;
	const char *img = DIR_ "/write.img";
	CHECK_EQ(make_image(img, 64), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t root = EXT2_ROOT_INO, d, f, g, big, sub;
	CHECK_EQ(ext2_mkdir(&fs, root, "made", 4, 0755, &d), 0);
	CHECK_EQ(ext2_create(&fs, d, "a.txt", 5, 0644, &f), 0);
	size_t n = BIG_SIZE + 12345;
	uint8_t *b = malloc(n);
	fill(b, n, 9, 0);
	CHECK_EQ(ext2_write(&fs, f, 0, b, 5000), 5000);
	CHECK_EQ(ext2_write(&fs, f, 5000, b + 5000, 3000), 3000); /* append */
	CHECK_EQ(ext2_create(&fs, d, "big", 3, 0644, &big), 0);
	CHECK_EQ(ext2_write(&fs, big, 0, b, n), (long)n);
	CHECK(file_is(big, n, 9));
	CHECK_EQ(ext2_truncate(&fs, big, 70000), 0); /* back into indirect */
	CHECK(file_is(big, 70000, 9));
	CHECK_EQ(ext2_create(&fs, d, "gone", 4, 0644, &g), 0);
	CHECK_EQ(ext2_write(&fs, g, 0, b, 100000), 100000);
	CHECK_EQ(ext2_unlink(&fs, d, "gone", 4), 0);
	CHECK_EQ(ext2_mkdir(&fs, d, "sub", 3, 0755, &sub), 0);
	CHECK_EQ(ext2_rename(&fs, d, "a.txt", 5, sub, "b.txt", 5), 0);
	CHECK_EQ(ext2_rename(&fs, d, "sub", 3, d, "moved", 5), 0);
	/* a directory with contents to another parent: its ".." follows */
	CHECK_EQ(ext2_rename(&fs, root, "sub", 3, d, "sub2", 4), 0);
	CHECK_EQ(ext2_namei(&fs, "/made/sub2/deep/big.bin", &g), 0);
	CHECK(file_is(g, BIG_SIZE, 4));
	CHECK_EQ(ext2_lookup(&fs, sub, "..", 2, &g), 0);
	CHECK_EQ(g, d);
	CHECK_EQ(ext2_mkdir(&fs, d, "empty", 5, 0755, &g), 0);
	CHECK_EQ(ext2_rmdir(&fs, d, "empty", 5), 0);
	/* a file replaced by a rename */
	CHECK_EQ(ext2_create(&fs, d, "old", 3, 0644, &g), 0);
	CHECK_EQ(ext2_write(&fs, g, 0, b, 50000), 50000);
	CHECK_EQ(ext2_create(&fs, d, "new", 3, 0644, &g), 0);
	CHECK_EQ(ext2_rename(&fs, d, "new", 3, d, "old", 3), 0);
	for (int i = 0; i < 300; i++) { /* directory grows past a block */
		char name[32];
		int len = snprintf(name, sizeof name, "file-with-a-long-name-%03d", i);
		CHECK_EQ(ext2_create(&fs, d, name, (size_t)len, 0644, &g), 0);
		if (i % 3 == 0)
			CHECK_EQ(ext2_unlink(&fs, d, name, (size_t)len), 0);
	}
	int count = 0;
	uint64_t pos = 0;
	CHECK_EQ(ext2_readdir(&fs, d, &pos, count_fn, &count), 0);
	CHECK_EQ(count, 2 + 4 + 200); /* . .. big moved sub2 old, the files */
	CHECK_EQ(ext2_sync(&fs), 0);
	close(img_fd), img_fd = -1;
	CHECK_EQ(fsck(img), 0);
	/* the host reads what Fulcrum wrote, byte for byte */
	CHECK_EQ(sh("debugfs -R 'cat /made/moved/b.txt' " DIR_ "/write.img > "
		    DIR_ "/b.out 2>/dev/null"), 0);
	FILE *o = fopen(DIR_ "/b.out", "rb");
	CHECK(o != NULL);
	uint8_t got[8001];
	size_t r = o ? fread(got, 1, sizeof got, o) : 0;
	if (o)
		fclose(o);
	CHECK_EQ(r, 8000u);
	CHECK(!memcmp(got, b, 8000));
	free(b);
}

HTEST(errors_change_nothing)
{
	devp = &dev;
	const char *img = DIR_ "/err.img";
	CHECK_EQ(make_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t ino, sub;
	char longname[300];
	memset(longname, 'x', sizeof longname);
	CHECK_EQ(ext2_create(&fs, 2, "small.txt", 9, 0644, &ino), -EEXIST);
	CHECK_EQ(ext2_create(&fs, 2, longname, 256, 0644, &ino), -ENAMETOOLONG);
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &ino), 0);
	CHECK_EQ(ext2_create(&fs, ino, "x", 1, 0644, &sub), -ENOTDIR);
	CHECK_EQ(ext2_unlink(&fs, 2, "sub", 3), -EISDIR);
	CHECK_EQ(ext2_rmdir(&fs, 2, "sub", 3), -ENOTEMPTY);
	CHECK_EQ(ext2_rmdir(&fs, 2, "small.txt", 9), -ENOTDIR);
	CHECK_EQ(ext2_unlink(&fs, 2, "nothere", 7), -ENOENT);
	CHECK_EQ(ext2_namei(&fs, "/sub", &sub), 0);
	CHECK_EQ(ext2_rename(&fs, 2, "sub", 3, sub, "in", 2), -EINVAL);
	CHECK_EQ(ext2_write(&fs, sub, 0, "x", 1), -EISDIR);
	CHECK_EQ(ext2_sync(&fs), 0);
	close(img_fd), img_fd = -1;
	CHECK_EQ(fsck(img), 0);
}

HTEST(full_disk_enospc_stays_clean)
{
	devp = &dev;
	const char *img = DIR_ "/full.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	uint8_t *b = calloc(1, 1 << 20);
	uint32_t ino;
	long r = 0;
	int files = 0;
	for (; files < 64 && r >= 0; files++) {
		char name[16];
		int len = snprintf(name, sizeof name, "fill%d", files);
		if (ext2_create(&fs, 2, name, (size_t)len, 0644, &ino))
			break;
		for (int k = 0; k < 8 && r >= 0; k++)
			r = ext2_write(&fs, ino, (uint64_t)k << 20, b, 1 << 20);
	}
	CHECK(r == -ENOSPC || r >= 0);
	CHECK_EQ(fs.free_blocks, 0u);
	CHECK_EQ(ext2_sync(&fs), 0);
	free(b);
	close(img_fd), img_fd = -1;
	CHECK_EQ(fsck(img), 0);
}

HTEST(corrupt_superblock_refused)
{
	devp = &dev;
	const char *img = DIR_ "/bad.img";
	CHECK_EQ(make_image(img, 8), 0);
	int fd = open(img, O_RDWR);
	uint8_t z[2] = {0, 0};
	CHECK_EQ(pwrite(fd, z, 2, 1024 + 56), 2); /* the magic */
	close(fd);
	CHECK_EQ(open_image(img), -EINVAL);
	CHECK(strstr(fs.why, "magic") != NULL);
	CHECK_EQ(make_image(img, 8), 0);
	fd = open(img, O_RDWR);
	uint8_t big[4] = {0xff, 0xff, 0xff, 0x7f};
	CHECK_EQ(pwrite(fd, big, 4, 4096 + 8), 4); /* group 0's inode table */
	close(fd);
	CHECK_EQ(open_image(img), -EIO);
}

/** Does @ino's inode in @a match the one a fresh mount reads from disk? */
static bool inode_as_on_disk(uint32_t ino)
{
	static struct ext2_fs fresh;
	struct ext2_inode x, y;
	if (ext2_mount(&fresh, devp) || ext2_iget(&fresh, ino, &y) ||
	    ext2_iget(&fs, ino, &x))
		return false;
	return !memcmp(&x, &y, sizeof x);
}

/* ext2_iget's decoded-inode slots (ext2.h, EXT2_ICACHE) never answer
 * with what the disk no longer says: two inodes sharing a slot, writes
 * that grow and cut them, and a write whose inode update fails. */
HTEST(inode_cache_follows_the_disk)
{
	devp = &dev_failing;
	const char *img = DIR_ "/icache.img";
	CHECK_EQ(make_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t a, b = 0;
	CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, "a", 1, 0644, &a), 0);
	for (int i = 0; i < 2 * EXT2_ICACHE && b % EXT2_ICACHE != a % EXT2_ICACHE;
	     i++) { /* a second file whose inode shares a's slot */
		char name[8];
		int len = snprintf(name, sizeof name, "b%d", i);
		CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, name, (size_t)len, 0644,
				     &b), 0);
	}
	CHECK_EQ(b % EXT2_ICACHE, a % EXT2_ICACHE);
	uint8_t buf[20000];
	fill(buf, sizeof buf, 5, 0);
	for (unsigned n = 1000; n <= 16000; n += 5000) {
		CHECK_EQ(ext2_write(&fs, a, 0, buf, n), (long)n);
		CHECK_EQ(ext2_write(&fs, b, 0, buf, n + 7), (long)n + 7);
		CHECK(file_is(a, n, 5));
		CHECK(file_is(b, n + 7, 5));
		CHECK(inode_as_on_disk(a) && inode_as_on_disk(b));
	}
	/* a rewrite in place in the same second (dev_now is constant):
	 * the data block only, the inode is unchanged */
	unsigned long w0 = dev_writes;
	CHECK_EQ(ext2_write(&fs, a, 4096, buf + 4096, 4096), 4096);
	CHECK_EQ(dev_writes - w0, 1u);
	CHECK(file_is(a, 16000, 5) && inode_as_on_disk(a));
	CHECK_EQ(ext2_write(&fs, a, 16000, buf + 16000, 10), 10); /* grows */
	CHECK(file_is(a, 16010, 5) && inode_as_on_disk(a));
	CHECK_EQ(ext2_truncate(&fs, a, 100), 0);
	CHECK(file_is(a, 100, 5));
	CHECK(inode_as_on_disk(a) && inode_as_on_disk(b));
	write_fails = true; /* the inode update fails: nothing kept of it */
	CHECK(ext2_write(&fs, a, 100, buf + 100, 9000) < 0);
	write_fails = false;
	CHECK(inode_as_on_disk(a));
	CHECK(file_is(a, 100, 5));
}

/* The e2fsck check can fail: a group's free count one off is caught. */
HTEST(fsck_catches_a_wrong_count)
{
	devp = &dev;
	const char *img = DIR_ "/wrong.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	fs.group[0].free_blocks--;
	fs.free_blocks--;
	CHECK_EQ(ext2_sync(&fs), 0);
	close(img_fd), img_fd = -1;
	CHECK(sh("e2fsck -fn " DIR_ "/wrong.img > /dev/null 2>&1") != 0);
}

/** Do the tree's files read as mke2fs wrote them? */
static bool tree_intact(void)
{
	uint32_t ino;
	return !ext2_namei(&fs, "/small.txt", &ino) && file_is(ino, 100, 1) &&
	       !ext2_namei(&fs, "/sub/indirect.bin", &ino) &&
	       file_is(ino, 60 * 1024, 3) &&
	       !ext2_namei(&fs, "/sub/deep/big.bin", &ino) &&
	       file_is(ino, BIG_SIZE, 4);
}

/** Sync, close and e2fsck -fn @img: 0 if all of it went well. */
static int close_fsck(const char *img)
{
	int r = ext2_sync(&fs);
	close(img_fd), img_fd = -1;
	return r ? r : fsck(img);
}

/* A fast symlink's i_block is its target's text: unlinking it frees no
 * block (the text "t" is block 0x74, in the inode table), a slow one's
 * frees its one block; files made afterwards overwrite nothing. */
HTEST(unlink_fast_symlink_frees_no_block)
{
	devp = &dev;
	const char *img = DIR_ "/link.img";
	CHECK_EQ(make_link_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t sub, ino, blocks = fs.free_blocks, inodes = fs.free_inodes;
	CHECK_EQ(ext2_namei(&fs, "/sub", &sub), 0);
	CHECK_EQ(ext2_unlink(&fs, EXT2_ROOT_INO, "fast", 4), 0);
	CHECK_EQ(fs.free_blocks, blocks);
	CHECK_EQ(fs.free_inodes, inodes + 1);
	CHECK_EQ(ext2_unlink(&fs, sub, "slow", 4), 0);
	CHECK_EQ(fs.free_blocks, blocks + 1);
	uint8_t b[EXT2_BLOCK];
	fill(b, sizeof b, 6, 0);
	for (int i = 0; i < 20; i++) {
		char name[8];
		int len = snprintf(name, sizeof name, "n%d", i);
		CHECK_EQ(ext2_create(&fs, sub, name, (size_t)len, 0644, &ino), 0);
		CHECK_EQ(ext2_write(&fs, ino, 0, b, sizeof b), (long)sizeof b);
	}
	CHECK(tree_intact());
	CHECK_EQ(close_fsck(img), 0);
}

/* A symlink is not a file: read, write and truncate refuse it (they
 * took its text for block numbers), and nothing changes. */
HTEST(symlink_not_read_or_written_as_file)
{
	devp = &dev;
	const char *img = DIR_ "/link.img";
	CHECK_EQ(make_link_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	const char *paths[] = {"/fast", "/sub/slow"};
	for (int i = 0; i < 2; i++) {
		uint32_t ino;
		struct ext2_stat st;
		char c = 'x';
		CHECK_EQ(ext2_namei(&fs, paths[i], &ino), 0);
		CHECK_EQ(ext2_stat(&fs, ino, &st), 0);
		CHECK_EQ(st.mode & EXT2_S_IFMT, EXT2_S_IFLNK);
		CHECK_EQ(ext2_read(&fs, ino, 0, &c, 1), -EINVAL);
		CHECK_EQ(ext2_write(&fs, ino, 0, &c, 1), -EINVAL);
		CHECK_EQ(ext2_truncate(&fs, ino, 0), -EINVAL);
	}
	CHECK(tree_intact());
	CHECK_EQ(close_fsck(img), 0);
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

static unsigned entry_type(uint32_t dir, const char *name)
{
	struct type_of t = {name, 0};
	uint64_t pos = 0;
	return ext2_readdir(&fs, dir, &pos, type_fn, &t) ? ~0u : t.type;
}

/* A renamed entry keeps its file type: symlinks 7 (it was written 1,
 * which e2fsck reports), a fifo 5, within a directory and across. */
HTEST(rename_keeps_entry_type)
{
	devp = &dev;
	const char *img = DIR_ "/link.img";
	CHECK_EQ(make_link_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t root = EXT2_ROOT_INO, sub;
	CHECK_EQ(ext2_namei(&fs, "/sub", &sub), 0);
	CHECK_EQ(entry_type(root, "fast"), 7u);
	CHECK_EQ(ext2_rename(&fs, root, "fast", 4, root, "fast2", 5), 0);
	CHECK_EQ(ext2_rename(&fs, sub, "slow", 4, root, "slow2", 5), 0);
	CHECK_EQ(ext2_rename(&fs, root, "fifo", 4, sub, "fifo2", 5), 0);
	CHECK_EQ(entry_type(root, "fast2"), 7u);
	CHECK_EQ(entry_type(root, "slow2"), 7u);
	CHECK_EQ(entry_type(sub, "fifo2"), 5u);
	CHECK(tree_intact());
	CHECK_EQ(close_fsck(img), 0);
}

/* A group descriptor whose inode table would end past 2^32 blocks is
 * refused: the end wrapped in 32 bits and looked inside the disk. */
HTEST(descriptor_wrapping_inode_table_refused)
{
	devp = &dev;
	const char *img = DIR_ "/bad.img";
	CHECK_EQ(make_image(img, 16), 0);
	int fd = open(img, O_RDWR);
	uint8_t wrap[4] = {0x9b, 0xff, 0xff, 0xff}; /* 2^32 - 101 */
	CHECK_EQ(pwrite(fd, wrap, 4, 4096 + 8), 4); /* group 0's inode table */
	close(fd);
	CHECK_EQ(open_image(img), -EIO);
	CHECK(strstr(fs.why, "descriptor") != NULL);
}

/* Every EIO says why, a device's error included: the file server
 * prints fs->why with it. */
HTEST(errors_say_why)
{
	devp = &dev_failing;
	const char *img = DIR_ "/why.img";
	CHECK_EQ(make_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t ino;
	write_fails = true;
	fs.why[0] = 0;
	CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, "x", 1, 0644, &ino), -EIO);
	write_fails = false;
	CHECK(strstr(fs.why, "write of block") != NULL);
	read_fails = true;
	fs.why[0] = 0;
	CHECK_EQ(ext2_namei(&fs, "/sub/indirect.bin", &ino), -EIO);
	read_fails = false;
	CHECK(strstr(fs.why, "read of block") != NULL);
	devp = &dev;
}

struct names {
	int count;
	bool last_seen;
};

static int names_fn(void *arg, const char *name, size_t len, uint32_t ino,
		    unsigned type)
{
	struct names *n = arg;
	(void)ino, (void)type;
	n->count++;
	if (len == 19 && !memcmp(name, "a-longer-name-00199", 19))
		n->last_seen = true;
	return 0;
}

/* One damaged entry (a rec_len of 5, the second entry of a directory's
 * first block) hides the rest of its block only: names in the later
 * blocks are found and listed, and the damage is reported (EIO with
 * its reason) rather than passed over. */
HTEST(bad_entry_hides_only_its_block)
{
	devp = &dev;
	const char *img = DIR_ "/baddir.img";
	CHECK_EQ(make_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t d, ino;
	char name[32];
	CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "many", 4, 0755, &d), 0);
	for (int i = 0; i < 200; i++) {
		int len = snprintf(name, sizeof name, "a-longer-name-%05d", i);
		CHECK_EQ(ext2_create(&fs, d, name, (size_t)len, 0644, &ino), 0);
	}
	struct ext2_inode in;
	CHECK_EQ(ext2_iget(&fs, d, &in), 0);
	CHECK(in.size >= 2 * EXT2_BLOCK);
	CHECK_EQ(ext2_sync(&fs), 0);
	uint8_t five[2] = {5, 0};
	CHECK_EQ(pwrite(img_fd, five, 2, (off_t)in.block[0] * EXT2_BLOCK + 12 + 4),
		 2);
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(ext2_lookup(&fs, d, "a-longer-name-00199", 19, &ino), 0);
	CHECK_EQ(ext2_lookup(&fs, d, "a-longer-name-00000", 19, &ino), -EIO);
	CHECK(strstr(fs.why, "bad entry") != NULL);
	struct names n = {0, false};
	uint64_t pos = 0;
	CHECK_EQ(ext2_readdir(&fs, d, &pos, names_fn, &n), -EIO);
	CHECK(n.last_seen);
	CHECK(n.count > 1);
	CHECK_EQ(ext2_create(&fs, d, "new", 3, 0644, &ino), -EIO);
}

/* ---- failed operations leave the image as it was ---- */

/** Name @i of 200 bytes: 19 such entries fill a directory block. */
static const char *long_name(unsigned i)
{
	static char name[201];
	memset(name, 'n', 200);
	char num[12];
	int len = snprintf(num, sizeof num, "%u", i);
	memcpy(name, num, (size_t)len);
	name[200] = 0;
	return name;
}

#define LONG_PER_BLOCK 19u

/** Fill the first @blocks blocks of directory @d (one block long, as
 *  mkdir made it) with empty files: adding to it takes a new block. */
static int fill_dir(uint32_t d, unsigned blocks)
{
	uint32_t ino;
	for (unsigned i = 0; i < blocks * LONG_PER_BLOCK; i++) {
		int err = ext2_create(&fs, d, long_name(i), 200, 0644, &ino);
		if (err)
			return err;
	}
	return 0;
}

/** Files of at most 12 blocks (no indirect block) in a new directory
 *  "fill" of @dir until @left blocks are free. */
static int fill_disk(uint32_t dir, uint32_t left)
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
			if (ext2_write(&fs, ino, k * EXT2_BLOCK, z, EXT2_BLOCK) !=
			    EXT2_BLOCK)
				err = -EIO;
	}
	return err ? err : fs.free_blocks == left ? 0 : -ENOSPC;
}

/** The image @img as a file's bytes (free with free()); *@n its size. */
static uint8_t *slurp(const char *img, size_t *n)
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
static bool same_bytes(const uint8_t *now, const uint8_t *was, size_t n)
{
	bool same = true;
	for (uint32_t g = 0; same && g < fs.groups; g++) {
		const uint8_t *bm = was + (size_t)fs.group[g].block_bitmap * EXT2_BLOCK;
		for (uint32_t i = 0; same && i < fs.blocks_per_group; i++) {
			size_t blk = fs.first_data_block + (size_t)g * fs.blocks_per_group + i;
			if (blk >= fs.blocks || (blk + 1) * EXT2_BLOCK > n ||
			    !(bm[i / 8] & (1u << (i % 8))))
				continue;
			same = !memcmp(now + blk * EXT2_BLOCK, was + blk * EXT2_BLOCK,
				       EXT2_BLOCK);
			if (!same)
				fprintf(stderr, "block %zu differs\n", blk);
		}
	}
	return same;
}

/** Is the mounted image @img (synced now) what @was held? */
static bool same_image(const char *img, const uint8_t *was, size_t was_n)
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
static bool snapshot(const char *img, uint8_t **snap, size_t *n)
{
	return !ext2_sync(&fs) && (*snap = slurp(img, n)) != NULL;
}

/* A create that fails for space (its directory's block full, no block
 * left) leaves no inode behind: it was written with one link and only
 * its bit cleared, which e2fsck reports. */
HTEST(create_without_space_leaves_nothing)
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
HTEST(mkdir_without_space_leaves_nothing)
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
HTEST(dir_add_without_space_frees_its_block)
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
HTEST(write_without_space_changes_nothing)
{
	devp = &dev;
	const char *img = DIR_ "/nospace.img";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t w;
	uint8_t *snap, b[3 * EXT2_BLOCK];
	size_t n;
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
	CHECK_EQ(ext2_write(&fs, w, EXT2_NDIR * EXT2_BLOCK, b, 1), -ENOSPC);
	CHECK(same_image(img, snap, n));
	free(snap);
	CHECK_EQ(fs.free_blocks, 1u);
	CHECK_EQ(ext2_write(&fs, w, 0, b, sizeof b), EXT2_BLOCK); /* a part */
	CHECK(file_is(w, EXT2_BLOCK, 8));
	CHECK_EQ(fs.free_blocks, 0u);
	CHECK_EQ(close_fsck(img), 0);
}

/** Is symlink @path's target @want (readlink, and stat's size)? */
static bool link_is(const char *path, const char *want)
{
	uint32_t ino;
	struct ext2_stat st;
	char got[EXT2_BLOCK];
	size_t n = strlen(want);
	return !ext2_namei(&fs, path, &ino) && !ext2_stat(&fs, ino, &st) &&
	       (st.mode & EXT2_S_IFMT) == EXT2_S_IFLNK && st.size == n &&
	       ext2_readlink(&fs, ino, got, sizeof got) == (long)n &&
	       !memcmp(got, want, n);
}

/* Symlinks as a type: mke2fs's read back, new ones fast below 60 bytes
 * and slow from 60 on (a block each), hard links counted, renamed and
 * unlinked; e2fsck checks every one of them. */
HTEST(symlinks_and_links_through_the_api)
{
	devp = &dev;
	const char *img = DIR_ "/link.img";
	CHECK_EQ(make_link_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t root = EXT2_ROOT_INO, sub, small, ino;
	char t60[61], buf[8];
	memset(t60, 'a', 60), t60[60] = 0;
	CHECK(link_is("/fast", FAST_TARGET));
	CHECK(link_is("/sub/slow", SLOW_TARGET));
	CHECK_EQ(ext2_namei(&fs, "/sub", &sub), 0);
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &small), 0);
	CHECK_EQ(ext2_readlink(&fs, small, buf, sizeof buf), -EINVAL);
	CHECK_EQ(ext2_namei(&fs, "/fast", &ino), 0);
	CHECK_EQ(ext2_readlink(&fs, ino, buf, 0), 0); /* no room: nothing */
	uint32_t blocks = fs.free_blocks;
	CHECK_EQ(ext2_symlink(&fs, root, "f59", 3, t60 + 1, 59, &ino), 0);
	CHECK_EQ(fs.free_blocks, blocks);
	CHECK_EQ(ext2_symlink(&fs, sub, "s60", 3, t60, 60, &ino), 0);
	CHECK_EQ(fs.free_blocks, blocks - 1);
	CHECK(link_is("/f59", t60 + 1));
	CHECK(link_is("/sub/s60", t60));
	CHECK_EQ(entry_type(sub, "s60"), 7u);
	CHECK_EQ(ext2_symlink(&fs, root, "x", 1, "a\0b", 3, &ino), -EINVAL);
	CHECK_EQ(ext2_symlink(&fs, root, "f59", 3, "b", 1, &ino), -EEXIST);
	CHECK_EQ(ext2_link(&fs, root, "h2", 2, small), 0);
	CHECK_EQ(ext2_link(&fs, root, "h3", 2, sub), -EPERM);
	CHECK_EQ(ext2_link(&fs, root, "fast", 4, small), -EEXIST);
	struct ext2_stat st;
	CHECK_EQ(ext2_stat(&fs, small, &st), 0);
	CHECK_EQ(st.links, 3u); /* small.txt, sub/hard, h2 */
	CHECK_EQ(ext2_namei(&fs, "/h2", &ino), 0);
	CHECK_EQ(ino, small);
	CHECK_EQ(ext2_rename(&fs, root, "f59", 3, sub, "s60", 3), 0);
	CHECK_EQ(fs.free_blocks, blocks); /* the slow one replaced */
	CHECK(link_is("/sub/s60", t60 + 1));
	CHECK_EQ(ext2_unlink(&fs, root, "h2", 2), 0);
	CHECK_EQ(ext2_unlink(&fs, root, "small.txt", 9), 0);
	CHECK_EQ(ext2_stat(&fs, small, &st), 0);
	CHECK_EQ(st.links, 1u);
	CHECK_EQ(ext2_namei(&fs, "/sub/hard", &ino), 0);
	CHECK(file_is(ino, 100, 1));
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
	op_rename_dir_replace, op_unlink, op_rmdir, op_write, op_truncate,
	op_truncate_up,
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

/* The sweeps' device: the image in memory (put back with a memcpy),
 * failing as dev_failing does; written to a file for e2fsck only. */
static uint8_t *ram;
static size_t ram_n;

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
	if (write_fails || dev_writes++ == fail_write ||
	    ((size_t)blk + 1) * EXT2_BLOCK > ram_n)
		return -EIO;
	memcpy(ram + (size_t)blk * EXT2_BLOCK, buf, EXT2_BLOCK);
	return 0;
}

static const struct ext2_dev dev_ram = {ram_read, ram_write, dev_now, NULL,
					NULL};

/** Sync the RAM image, write it to @img and e2fsck -fn it: 0 if clean. */
static int ram_fsck(const char *img)
{
	FILE *f = ext2_sync(&fs) ? NULL : fopen(img, "wb");
	bool ok = f && fwrite(ram, 1, ram_n, f) == ram_n;
	if (f)
		fclose(f);
	return ok ? fsck(img) : -EIO;
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
	if (ext2_mount(&fs, &dev_ram))
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
 * second, and so on until it completes (the writes after the failed
 * one are taken; past the 48th, every 7th write fails): a failed
 * operation leaves the image as it was, block for block, and every
 * image checks clean. */
HTEST(device_failure_at_every_write_undone)
{
	const char *img = DIR_ "/sweep.img";
	devp = &dev;
	CHECK_EQ(sweep_ram(img), 0);
	uint8_t *snap = malloc(ram_n);
	CHECK(snap != NULL);
	memcpy(snap, ram, ram_n);
	for (unsigned k = 0; k < SWEEP_OPS; k++) {
		for (unsigned long w = 0;; w += w < 48 ? 1 : 7) {
			long r;
			bool hit;
			sweep_one(htest_ctx_, img, snap, k, w, &r, &hit);
			if (htest_ctx_->failed)
				break;
			if (!hit) { /* it made fewer than w + 1 writes */
				CHECK(r >= 0);
				break;
			}
		}
	}
	free(snap);
	printf("  %u runs\n", sweep_runs);
}

/* Each operation on the image filled up to 0, 1, 2, 3 and 4 free
 * blocks: one that fails (ENOSPC, nothing else) leaves the image as it
 * was, one that completes leaves it clean. */
HTEST(no_space_at_every_step_undone)
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
		CHECK_EQ(ext2_mount(&fs, &dev_ram), 0);
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
