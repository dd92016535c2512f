/*
 * Host tests of the ext2 code of F (user/servers/fs/ext2*.c) on real
 * images: made by mke2fs (-t ext2, blocks of 4, 2 and 1 KiB, populated
 * with -d), read back byte for byte; written by Fulcrum's code, then
 * checked clean by `e2fsck -fn` and read back by `debugfs -R cat`.
 * Images live in build/host/ext2/ and are never committed. The helpers
 * are in ext2_util.c, the tests of failed operations in ext2_fail.c,
 * those of revisions and features in ext2_format.c.
 */
#define _GNU_SOURCE
#define HTEST_MAIN
#include "host_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ext2_util.h"


/** Mount a fresh mke2fs tree through @d and read its files of one
 *  block, of indirect blocks and past double indirect, byte for byte. */
static void read_tree(struct htest_ctx *htest_ctx_, const struct ext2_dev *d)
{
	devp = d;
	CHECK_EQ(sh("mkdir -p " DIR_), 0);
	CHECK_EQ(make_image(DIR_ "/read.img", 64), 0);
	CHECK_EQ(open_image(DIR_ "/read.img"), 0);
	CHECK_EQ(fs.bsize, img_bs);
	CHECK_EQ(fs.groups, img_bs == 4096 ? 1u : img_bs == 2048 ? 2u : 8u);
	uint32_t ino;
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &ino), 0);
	CHECK(file_is(ino, 100, 1));
	CHECK_EQ(ext2_namei(&fs, "/sub/indirect.bin", &ino), 0);
	CHECK(file_is(ino, 60 * 1024, 3));
	CHECK_EQ(ext2_namei(&fs, "/sub//deep/big.bin", &ino), 0);
	CHECK(file_is(ino, BIG_SIZE, 4));
}

BS_TESTS(mount_reads_mke2fs_tree)
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
BS_TESTS(mount_reads_through_get)
{
	read_tree(htest_ctx_, &dev_with_get);
	devp = &dev;
}

/* Writes and reads interleaved, through the get callback (the write
 * session's checks read back what was just written). */
BS_TESTS(write_tree_fsck_clean)
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

BS_TESTS(errors_change_nothing)
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

BS_TESTS(full_disk_enospc_stays_clean)
{
	devp = &dev;
	const char *img = DIR_ "/full.img";
	CHECK_EQ(make_image(img, img_bs == 1024 ? 32 : 8), 0); /* 4 groups */
	CHECK_EQ(open_image(img), 0);
	uint8_t *b = calloc(1, 1 << 20);
	uint32_t ino;
	long r = 0;
	int files = 0;
	for (; files < 64 && r >= 0 && fs.free_blocks; files++) {
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
	if (mount_fs(&fresh, devp) || ext2_iget(&fresh, ino, &y) ||
	    ext2_iget(&fs, ino, &x))
		return false;
	return !memcmp(&x, &y, sizeof x);
}

/* ext2_iget's decoded-inode slots (ext2.h, EXT2_ICACHE) never answer
 * with what the disk no longer says: two inodes sharing a slot, writes
 * that grow and cut them, and a write whose inode update fails. */
BS_TESTS(inode_cache_follows_the_disk)
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
	unsigned long w0 = dev_writes, bs = fs.bsize;
	CHECK_EQ(ext2_write(&fs, a, bs, buf + bs, bs), (long)bs);
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

/* A fast symlink's i_block is its target's text: unlinking it frees no
 * block (the text "t" is block 0x74, in the inode table), a slow one's
 * frees its one block; files made afterwards overwrite nothing. */
BS_TESTS(unlink_fast_symlink_frees_no_block)
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
BS_TESTS(symlink_not_read_or_written_as_file)
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

/* A write or truncate whose end is past 4 GiB is EFBIG and changes
 * nothing, also when offset + length wraps in 64 bits (F passes a
 * client's offset on). */
BS_TESTS(offset_past_4g_refused)
{
	devp = &dev;
	const char *img = DIR_ "/link.img";
	CHECK_EQ(make_link_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t ino;
	struct ext2_stat st;
	uint8_t b[EXT2_BLOCK] = {1};
	CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, "big", 3, 0644, &ino), 0);
	CHECK_EQ(ext2_write(&fs, ino, 0xfffffffffffff000ull, b, sizeof b), -EFBIG);
	CHECK_EQ(ext2_write(&fs, ino, 0xffffffffull, b, 1), -EFBIG);
	CHECK_EQ(ext2_write(&fs, ino, 0xfffffffeull, b, 1), 1);
	CHECK_EQ(ext2_truncate(&fs, ino, 0x100000000ull), -EFBIG);
	CHECK_EQ(ext2_stat(&fs, ino, &st), 0);
	CHECK_EQ(st.size, 0xffffffffu);
	CHECK_EQ(close_fsck(img), 0);
}

/* A renamed entry keeps its file type: symlinks 7 (it was written 1,
 * which e2fsck reports), a fifo 5, within a directory and across. */
BS_TESTS(rename_keeps_entry_type)
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
	char c;
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &ino), 0);
	read_fails = true; /* its inode is cached: the data block fails */
	fs.why[0] = 0;
	CHECK_EQ(ext2_read(&fs, ino, 0, &c, 1), -EIO);
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
BS_TESTS(bad_entry_hides_only_its_block)
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
	CHECK(in.size >= 2 * fs.bsize);
	CHECK_EQ(ext2_sync(&fs), 0);
	uint8_t five[2] = {5, 0};
	CHECK_EQ(pwrite(img_fd, five, 2, (off_t)in.block[0] * fs.bsize + 12 + 4),
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
BS_TESTS(symlinks_and_links_through_the_api)
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
	CHECK_EQ(ext2_namei(&fs, "/fast/x", &ino), -ENOTDIR); /* not followed */
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

/* A file's EXT2_LINK_MAX-th name is its last: one more is EMLINK and
 * changes nothing. (Its count is set to one below the limit through the
 * inode, as 32,000 real names would take minutes, then put back.) */
HTEST(link_count_limit)
{
	devp = &dev;
	const char *img = DIR_ "/emlink.img";
	CHECK_EQ(make_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t f, root = EXT2_ROOT_INO;
	struct ext2_inode in;
	struct ext2_stat st;
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &f), 0);
	CHECK_EQ(ext2_iget(&fs, f, &in), 0);
	CHECK_EQ(in.links, 1u);
	in.links = EXT2_LINK_MAX - 1;
	CHECK_EQ(ext2_iput(&fs, f, &in), 0);
	CHECK_EQ(ext2_link(&fs, root, "l1", 2, f), 0);
	CHECK_EQ(ext2_stat(&fs, f, &st), 0);
	CHECK_EQ(st.links, EXT2_LINK_MAX);
	uint32_t blocks = fs.free_blocks;
	uint32_t ino;
	CHECK_EQ(ext2_link(&fs, root, "l2", 2, f), -EMLINK);
	CHECK_EQ(ext2_lookup(&fs, root, "l2", 2, &ino), -ENOENT);
	CHECK_EQ(ext2_stat(&fs, f, &st), 0);
	CHECK_EQ(st.links, EXT2_LINK_MAX);
	CHECK_EQ(fs.free_blocks, blocks);
	CHECK_EQ(ext2_iget(&fs, f, &in), 0);
	in.links = 2; /* small.txt and l1: the true count again */
	CHECK_EQ(ext2_iput(&fs, f, &in), 0);
	CHECK_EQ(close_fsck(img), 0);
}

/* A free inode's number (a client may send any) is not a file: stat,
 * read, write, truncate, readdir and create in it are ENOENT, and the
 * image stays as it was (a write attached blocks to the free inode). */
BS_TESTS(free_inode_refused)
{
	devp = &dev;
	const char *img = DIR_ "/free.img";
	CHECK_EQ(make_image(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t f, d, ino;
	struct ext2_stat st;
	uint64_t pos = 0;
	int count = 0;
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &f), 0);
	CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "d", 1, 0755, &d), 0);
	CHECK_EQ(ext2_unlink(&fs, EXT2_ROOT_INO, "small.txt", 9), 0);
	CHECK_EQ(ext2_rmdir(&fs, EXT2_ROOT_INO, "d", 1), 0);
	uint32_t blocks = fs.free_blocks, inodes = fs.free_inodes;
	CHECK_EQ(ext2_stat(&fs, f, &st), -ENOENT);
	CHECK_EQ(ext2_read(&fs, f, 0, &st, 1), -ENOENT);
	CHECK_EQ(ext2_write(&fs, f, 0, "x", 1), -ENOENT);
	CHECK_EQ(ext2_truncate(&fs, f, 0), -ENOENT);
	CHECK_EQ(ext2_readdir(&fs, d, &pos, count_fn, &count), -ENOENT);
	CHECK_EQ(ext2_create(&fs, d, "x", 1, 0644, &ino), -ENOENT);
	CHECK_EQ(ext2_mkdir(&fs, d, "x", 1, 0755, &ino), -ENOENT);
	CHECK_EQ(fs.free_blocks, blocks);
	CHECK_EQ(fs.free_inodes, inodes);
	CHECK_EQ(close_fsck(img), 0);
}
