/*
 * Host tests of the formats ext2 reads (user/servers/fs/ext2_mount.c):
 * the group table sized by ext2_groups, revision 0, mke2fs's default
 * features (dir_index directories made by e2fsck -D, resize_inode,
 * ext_attr blocks released with a file's last link), features refused
 * by name or mounted read-only, and the triple indirect level. Linked
 * into test_ext2: its tests are named test_ext2/NAME.
 */
#define _GNU_SOURCE
#include "host_test.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ext2_util.h"

#define COMPAT_EXT_ATTR 0x8u
#define COMPAT_RESIZE_INODE 0x10u
#define COMPAT_DIR_INDEX 0x20u

/** Run debugfs -w on @img with the commands @cmds (lines): 0 if it ran. */
static int debugfs_w(const char *img, const char *cmds)
{
	char cmd[512];
	FILE *f = fopen(DIR_ "/debugfs.cmds", "w");
	if (!f)
		return -1;
	fputs(cmds, f);
	fclose(f);
	snprintf(cmd, sizeof cmd,
		 "debugfs -w -f " DIR_ "/debugfs.cmds %s >/dev/null 2>&1", img);
	return sh(cmd);
}

/* ext2_groups says how large the group table must be; a smaller one
 * is -ENOMEM with the reason, the right one mounts (4 groups of 8 MiB
 * in 32 MiB of 1 KiB blocks). */
HTEST(group_table_sized_by_ext2_groups)
{
	const char *img = DIR_ "/groups.img";
	struct ext2_group table[4];
	devp = &dev;
	img_bs = 1024;
	CHECK_EQ(make_image(img, 32), 0);
	img_bs = 4096;
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(ext2_groups(&fs, &dev), 4);
	CHECK_EQ(ext2_group_bytes(&fs), 4 * sizeof(struct ext2_group));
	CHECK_EQ(ext2_mount(&fs, &dev, table, 3), -ENOMEM);
	CHECK(strstr(fs.why, "4 block groups") != NULL);
	CHECK_EQ(ext2_mount(&fs, &dev, table, 4), 0);
	CHECK(tree_intact());
	CHECK_EQ(table[3].inode_table, fs.group[3].inode_table);
	CHECK(table[3].inode_table > 3 * 8192);
}

/** Make a tree of files, directories, links and write them: the write
 *  test's operations, shortened, then e2fsck -fn. */
static void write_some(struct htest_ctx *htest_ctx_, const char *img)
{
	uint32_t root = EXT2_ROOT_INO, d, f, sub;
	static uint8_t b[300000];
	fill(b, sizeof b, 9, 0);
	CHECK_EQ(ext2_mkdir(&fs, root, "made", 4, 0755, &d), 0);
	CHECK_EQ(ext2_create(&fs, d, "a", 1, 0644, &f), 0);
	CHECK_EQ(ext2_write(&fs, f, 0, b, sizeof b), (long)sizeof b);
	CHECK(file_is(f, sizeof b, 9));
	CHECK_EQ(ext2_truncate(&fs, f, 5000), 0);
	CHECK_EQ(ext2_symlink(&fs, d, "l", 1, SLOW_TARGET, strlen(SLOW_TARGET),
			      &f), 0);
	CHECK_EQ(ext2_namei(&fs, "/sub", &sub), 0);
	CHECK_EQ(ext2_rename(&fs, root, "sub", 3, d, "sub", 3), 0);
	CHECK_EQ(ext2_unlink(&fs, root, "small.txt", 9), 0);
	for (int i = 0; i < 100; i++) {
		char name[32];
		int len = snprintf(name, sizeof name, "a-file-named-%03d", i);
		CHECK_EQ(ext2_create(&fs, d, name, (size_t)len, 0644, &f), 0);
	}
	CHECK_EQ(ext2_namei(&fs, "/made/sub/deep/big.bin", &f), 0);
	CHECK(file_is(f, BIG_SIZE, 4));
	CHECK_EQ(close_fsck(img), 0);
}

/* Revision 0 (mke2fs -r 0): 128-byte inodes, the first free inode 11,
 * no features (entries without a file type), read and written. */
BS_TESTS_1K(revision_0_read_and_written)
{
	const char *img = DIR_ "/rev0.img";
	devp = &dev;
	mkfs_opts = "-r 0";
	CHECK_EQ(make_link_image(img, 16), 0);
	mkfs_opts = "";
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(fs.rev, 0u);
	CHECK_EQ(fs.inode_size, 128u);
	CHECK_EQ(fs.first_ino, 11u);
	CHECK_EQ(fs.incompat | fs.ro_compat | fs.compat, 0u);
	CHECK(tree_intact());
	CHECK_EQ(entry_type(EXT2_ROOT_INO, "small.txt"), 0u);
	write_some(htest_ctx_, img);
}

/* mke2fs -t ext2 with Debian's /etc/mke2fs.conf and no other option:
 * 1 KiB blocks below 512 MiB, 256-byte inodes, ext_attr, resize_inode,
 * dir_index, filetype, sparse_super, large_file. The disk filled up
 * never takes the reserved descriptor blocks (resize_inode's, marked in
 * use) and leaves inode 7 as it was: e2fsck checks both. */
HTEST(debian_default_features)
{
	const char *img = DIR_ "/debian.img";
	struct ext2_inode r0, r1;
	devp = &dev;
	img_bs = 0;
	CHECK_EQ(make_image(img, 32), 0);
	img_bs = 4096;
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(fs.bsize, 1024u);
	CHECK_EQ(fs.inode_size, 256u);
	CHECK_EQ(fs.groups, 4u);
	CHECK_EQ(fs.compat & (COMPAT_EXT_ATTR | COMPAT_RESIZE_INODE |
			      COMPAT_DIR_INDEX),
		 COMPAT_EXT_ATTR | COMPAT_RESIZE_INODE | COMPAT_DIR_INDEX);
	CHECK_EQ(fs.ro_compat, 3u); /* sparse_super, large_file */
	CHECK_EQ(fs.incompat, 2u);  /* filetype */
	CHECK(!fs.rdonly);
	CHECK(tree_intact());
	CHECK_EQ(ext2_iget(&fs, 7, &r0), 0);
	write_some(htest_ctx_, img);
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(fill_disk(EXT2_ROOT_INO, 0), 0);
	uint32_t ino;
	CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, "more", 4, 0644, &ino), 0);
	CHECK_EQ(ext2_write(&fs, ino, 0, "x", 1), -ENOSPC);
	CHECK_EQ(ext2_iget(&fs, 7, &r1), 0);
	CHECK(!memcmp(&r0, &r1, sizeof r0));
	CHECK_EQ(close_fsck(img), 0);
}

#define MANY 400u /* names of the indexed directory */

static const char *many_name(unsigned i)
{
	static char name[64];
	snprintf(name, sizeof name, "a-name-long-enough-to-fill-blocks-%04u", i);
	return name;
}

/** Are the first @n names of directory @ino there, empty files? */
static bool many_intact(uint32_t ino, unsigned n)
{
	bool ok = entry_type(ino, many_name(0)) == 1; /* a regular file */
	uint32_t got;
	for (unsigned i = 0; ok && i < n; i++)
		ok = !ext2_lookup(&fs, ino, many_name(i), strlen(many_name(i)),
				  &got) &&
		     file_is(got, 0, 0);
	return ok;
}

static int count_fn(void *arg, const char *name, size_t len, uint32_t ino,
		    unsigned type)
{
	(void)name, (void)len, (void)ino, (void)type;
	++*(unsigned *)arg;
	return 0;
}

/* A directory that e2fsck -fD indexed (a hashed directory: INDEX_FL,
 * its interior blocks empty entries covering the block) reads as a
 * linear one; an entry added, renamed or removed clears INDEX_FL, as
 * Linux's ext2 does, and e2fsck finds the directory clean. */
BS_TESTS_1K(dir_index_read_then_changed)
{
	const char *img = DIR_ "/index.img";
	devp = &dev;
	write_tree();
	sh("mkdir -p " DIR_ "/tree/many");
	for (unsigned i = 0; i < MANY; i++) {
		char path[128];
		snprintf(path, sizeof path, DIR_ "/tree/many/%s", many_name(i));
		fclose(fopen(path, "w"));
	}
	CHECK_EQ(mkfs_tree(img, 16), 0);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "e2fsck -fyD %s >/dev/null 2>&1", img);
	sh(cmd); /* exit status 1: it changed the image (indexed) */
	CHECK_EQ(fsck(img), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t many, ino;
	struct ext2_inode in;
	CHECK_EQ(ext2_namei(&fs, "/many", &many), 0);
	CHECK_EQ(ext2_iget(&fs, many, &in), 0);
	CHECK(in.flags & 0x1000u); /* EXT2_INDEX_FL: e2fsck indexed it */
	CHECK(in.size > 2 * fs.bsize);
	CHECK(many_intact(many, MANY));
	unsigned count = 0;
	uint64_t pos = 0;
	CHECK_EQ(ext2_readdir(&fs, many, &pos, count_fn, &count), 0);
	CHECK_EQ(count, MANY + 2);
	CHECK_EQ(ext2_lookup(&fs, many, "absent", 6, &ino), -ENOENT);
	CHECK_EQ(ext2_create(&fs, many, "new", 3, 0644, &ino), 0);
	CHECK_EQ(ext2_iget(&fs, many, &in), 0);
	CHECK(!(in.flags & 0x1000u));
	CHECK(many_intact(many, MANY));
	CHECK_EQ(ext2_rename(&fs, many, many_name(7), strlen(many_name(7)),
			     EXT2_ROOT_INO, "out", 3), 0);
	CHECK_EQ(ext2_unlink(&fs, many, many_name(9), strlen(many_name(9))), 0);
	CHECK_EQ(close_fsck(img), 0);
}

/** Is @img refused by the mount (-EINVAL) with @name in fs->why? */
static bool refused(const char *img, const char *name)
{
	return open_image(img) == -EINVAL && strstr(fs.why, name) != NULL;
}

/** Put @v at byte @off of @img. */
static void poke32(const char *img, off_t off, uint32_t v)
{
	int fd = open(img, O_RDWR);
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			(uint8_t)(v >> 24)};
	if (fd >= 0 && pwrite(fd, b, 4, off) != 4)
		fprintf(stderr, "poke %s: short write\n", img);
	if (fd >= 0)
		close(fd);
}

/* An incompatible feature other than filetype, a block size past 4
 * KiB or a revision past 1 are refused, the reason naming them. */
HTEST(unsupported_format_refused_by_name)
{
	const char *img = DIR_ "/feature.img";
	devp = &dev;
	mkfs_opts = "-O extents";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK(refused(img, "unsupported feature: extent"));
	mkfs_opts = "-O meta_bg,^resize_inode";
	CHECK_EQ(make_image(img, 8), 0);
	CHECK(refused(img, "unsupported feature: meta_bg"));
	mkfs_opts = "";
	CHECK_EQ(make_image(img, 8), 0);
	poke32(img, 1024 + 96, 2u | 1u << 19); /* filetype and an unknown bit */
	CHECK(refused(img, "unsupported feature: incompat bit 19"));
	CHECK_EQ(make_image(img, 8), 0);
	poke32(img, 1024 + 24, 3); /* 8 KiB blocks */
	CHECK(refused(img, "block size"));
	CHECK_EQ(make_image(img, 8), 0);
	poke32(img, 1024 + 76, 2);
	CHECK(refused(img, "revision 2"));
}

/* An unknown read-only compatible feature (huge_file) mounts the file
 * system read-only: it reads, every change is -EROFS, sync writes
 * nothing, and the image stays as it was. */
HTEST(unknown_ro_compat_mounts_read_only)
{
	const char *img = DIR_ "/rofeature.img";
	uint8_t *was;
	size_t n;
	uint32_t ino, sub;
	devp = &dev;
	mkfs_opts = "-O huge_file";
	CHECK_EQ(make_image(img, 8), 0);
	mkfs_opts = "";
	was = slurp(img, &n);
	CHECK_EQ(open_image(img), 0);
	CHECK(fs.rdonly);
	CHECK(strstr(fs.why, "huge_file") != NULL);
	CHECK(tree_intact());
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &ino), 0);
	CHECK_EQ(ext2_namei(&fs, "/sub", &sub), 0);
	CHECK_EQ(ext2_create(&fs, EXT2_ROOT_INO, "x", 1, 0644, &ino), -EROFS);
	CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "x", 1, 0755, &ino), -EROFS);
	CHECK_EQ(ext2_symlink(&fs, EXT2_ROOT_INO, "x", 1, "t", 1, &ino), -EROFS);
	CHECK_EQ(ext2_namei(&fs, "/small.txt", &ino), 0);
	CHECK_EQ(ext2_write(&fs, ino, 0, "x", 1), -EROFS);
	CHECK_EQ(ext2_truncate(&fs, ino, 0), -EROFS);
	CHECK_EQ(ext2_link(&fs, EXT2_ROOT_INO, "x", 1, ino), -EROFS);
	CHECK_EQ(ext2_unlink(&fs, EXT2_ROOT_INO, "small.txt", 9), -EROFS);
	CHECK_EQ(ext2_rmdir(&fs, sub, "deep", 4), -EROFS);
	CHECK_EQ(ext2_rename(&fs, EXT2_ROOT_INO, "small.txt", 9, sub, "y", 1),
		 -EROFS);
	CHECK_EQ(ext2_sync(&fs), 0);
	size_t now_n;
	uint8_t *now = slurp(img, &now_n);
	CHECK(was && now && now_n == n && !memcmp(now, was, n));
	free(was), free(now);
}

/** Byte @off of fs block @blk of the mounted image, as a u32. */
static uint32_t disk32(uint32_t blk, uint32_t off)
{
	uint8_t b[4] = {0};
	if (pread(img_fd, b, 4, (off_t)blk * fs.bsize + off) != 4)
		return ~0u;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/** Unlink @name from the root with the device refusing its first
 *  write, its second, ... until it completes: each failure must leave
 *  the image as it was. The image stays mounted. */
static void unlink_undone(struct htest_ctx *htest_ctx_, const char *img,
			  const char *name)
{
	devp = &dev_failing;
	CHECK_EQ(open_image(img), 0);
	devp = &dev;
	for (unsigned long w = 0;; w++) {
		uint8_t *snap;
		size_t n;
		CHECK(snapshot(img, &snap, &n));
		fail_write = dev_writes + w;
		int r = ext2_unlink(&fs, EXT2_ROOT_INO, name, strlen(name));
		fail_write = ~0ul;
		bool same = r == 0 || same_image(img, snap, n);
		free(snap);
		CHECK(same);
		if (r != -EIO) {
			CHECK_EQ(r, 0);
			return;
		}
	}
}

/* ext_attr: a file's attribute block (i_file_acl, made by debugfs
 * ea_set in 128-byte inodes) is kept by every change, and released
 * with the file's last link as Linux does: shared by two files
 * (h_refcount 2), the first unlink drops the count, the second frees
 * the block; both steps are undone whole when a write fails. */
BS_TESTS_1K(ext_attr_block_released)
{
	const char *img = DIR_ "/ea.img";
	uint32_t a, b, acl;
	struct ext2_inode in;
	char cmds[256];
	devp = &dev;
	write_tree();
	sh("cp " DIR_ "/tree/small.txt " DIR_ "/tree/a && cp " DIR_
	   "/tree/small.txt " DIR_ "/tree/b");
	mkfs_opts = "-I 128";
	CHECK_EQ(mkfs_tree(img, 16), 0);
	mkfs_opts = "";
	CHECK_EQ(debugfs_w(img, "ea_set /a user.fulcrum a-value\n"), 0);
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(ext2_namei(&fs, "/a", &a), 0);
	CHECK_EQ(ext2_namei(&fs, "/b", &b), 0);
	CHECK_EQ(ext2_iget(&fs, a, &in), 0);
	acl = in.file_acl;
	CHECK(acl != 0);
	CHECK_EQ(disk32(acl, 0), 0xEA020000u);
	CHECK_EQ(ext2_iget(&fs, b, &in), 0);
	snprintf(cmds, sizeof cmds,
		 "sif /b file_acl %u\nsif /b blocks %u\nzap_block -o 4 -l 1 -p 2 %u\n",
		 acl, in.blocks + fs.bsize / 512, acl);
	close(img_fd), img_fd = -1;
	CHECK_EQ(debugfs_w(img, cmds), 0);
	CHECK_EQ(fsck(img), 0); /* two files share the block: clean */
	CHECK_EQ(open_image(img), 0);
	uint32_t free0 = fs.free_blocks;
	CHECK_EQ(ext2_write(&fs, b, 100, "more", 4), 4); /* kept by a write */
	CHECK_EQ(ext2_iget(&fs, b, &in), 0);
	CHECK_EQ(in.file_acl, acl);
	CHECK_EQ(close_fsck(img), 0);
	unlink_undone(htest_ctx_, img, "a");
	CHECK_EQ(fs.free_blocks, free0 + 1); /* a's data block */
	CHECK_EQ(disk32(acl, 4), 1u);	     /* h_refcount */
	CHECK_EQ(close_fsck(img), 0);
	unlink_undone(htest_ctx_, img, "b");
	CHECK_EQ(fs.free_blocks, free0 + 3); /* b's data and the block */
	CHECK_EQ(close_fsck(img), 0);
}

/* A sparse file past the double indirect level of 1 and 2 KiB blocks
 * (data at 70 MiB), made by mke2fs -d: read, written further on,
 * truncated back into its triple indirect tree and below it, removed;
 * e2fsck clean after each. (With 4 KiB blocks the same offsets are
 * double indirect.) */
BS_TESTS(triple_indirect_read_written_cut)
{
	const char *img = DIR_ "/triple.img";
	const uint64_t at = 70ull << 20, far = 80ull << 20;
	uint8_t b[3 * EXT2_BLOCK], got[3 * EXT2_BLOCK];
	uint32_t ino;
	devp = &dev;
	write_tree();
	sh("printf z | dd of=" DIR_ "/tree/sparse bs=1 seek=73400320 "
	   "conv=notrunc 2>/dev/null");
	CHECK_EQ(mkfs_tree(img, 16), 0);
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(ext2_namei(&fs, "/sparse", &ino), 0);
	CHECK_EQ(ext2_read(&fs, ino, at - 2, got, 4), 3);
	CHECK(got[0] == 0 && got[1] == 0 && got[2] == 'z');
	fill(b, sizeof b, 13, 0);
	CHECK_EQ(ext2_write(&fs, ino, far - 5, b, sizeof b), (long)sizeof b);
	CHECK_EQ(ext2_read(&fs, ino, far - 5, got, sizeof got), (long)sizeof got);
	CHECK(!memcmp(got, b, sizeof b));
	CHECK_EQ(close_fsck(img), 0);
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(ext2_truncate(&fs, ino, at + 1), 0);
	CHECK_EQ(ext2_read(&fs, ino, at, got, 4), 1);
	CHECK_EQ(got[0], 'z');
	CHECK_EQ(close_fsck(img), 0);
	CHECK_EQ(open_image(img), 0);
	CHECK_EQ(ext2_write(&fs, ino, far, b, sizeof b), (long)sizeof b);
	CHECK_EQ(ext2_truncate(&fs, ino, 100000), 0);
	CHECK(tree_intact());
	CHECK_EQ(close_fsck(img), 0);
	CHECK_EQ(open_image(img), 0);
	uint32_t free0 = fs.free_blocks;
	CHECK_EQ(ext2_write(&fs, ino, far, b, sizeof b), (long)sizeof b);
	CHECK_EQ(ext2_unlink(&fs, EXT2_ROOT_INO, "sparse", 6), 0);
	CHECK_EQ(fs.free_blocks, free0); /* below 100,000: holes */
	CHECK_EQ(close_fsck(img), 0);
}
