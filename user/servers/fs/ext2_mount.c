/*
 * ext2: file-system blocks on the device's blocks, the superblock and
 * its features, the group descriptors, mount and sync. Layout facts: the
 * superblock is the 1,024 bytes at byte 1,024 (in device block 0 at any
 * block size: file-system block 1 of 1 KiB blocks, whose first data
 * block is 1, else block 0), the group descriptors (32 bytes each) fill
 * the blocks after it. File-system block b of bsize = 1 << bshift bytes
 * is device block b >> dshift at byte (b & ((1 << dshift) - 1)) <<
 * bshift; with 4 KiB blocks dshift is 0 and the two are one.
 */
#include <stdarg.h>

#include "ext2_int.h"

#define GD_SIZE 32u

int ext2_eio(struct ext2_fs *fs, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fs->why, sizeof fs->why, fmt, ap);
	va_end(ap);
	return -EIO;
}

/** Say why in fs->why (printf's @fmt) and return -@err. */
static int refuse(struct ext2_fs *fs, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(struct ext2_fs *fs, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fs->why, sizeof fs->why, fmt, ap);
	va_end(ap);
	return -err;
}

/* ---- file-system blocks on device blocks ---- */

/** -EIO (the reason in fs->why) if @blk lies past the disk, else 0. */
static int blk_check(struct ext2_fs *fs, uint32_t blk)
{
	if (blk >= fs->blocks && fs->blocks)
		return ext2_eio(fs, "block %u past the end", blk);
	return 0;
}

/** The device's error @err of block @blk, its reason in fs->why. */
static int dev_failed(struct ext2_fs *fs, const char *what, uint32_t blk,
		      int err)
{
	snprintf(fs->why, sizeof fs->why, "device: %s of block %u failed (%d)",
		 what, blk, err);
	return err;
}

/** The device block holding fs block @blk (smaller than a device
 *  block): the device's bytes (get) or a copy in fs->dbuf, NULL with
 *  *@err set. Valid until the next block call. */
static const uint8_t *dev_block(struct ext2_fs *fs, uint32_t blk, int *err)
{
	uint32_t d = blk >> fs->dshift;
	if (fs->dev.get)
		return fs->dev.get(fs->dev.ctx, d, err);
	*err = fs->dev.read(fs->dev.ctx, d, fs->dbuf);
	return *err ? NULL : fs->dbuf;
}

/** Byte of fs block @blk in its device block. */
static uint32_t dev_off(const struct ext2_fs *fs, uint32_t blk)
{
	return (blk & ((1u << fs->dshift) - 1)) << fs->bshift;
}

int ext2_bread(struct ext2_fs *fs, uint32_t blk, void *buf)
{
	int err = blk_check(fs, blk);
	if (err)
		return err;
	if (!fs->dshift) {
		err = fs->dev.read(fs->dev.ctx, blk, buf);
	} else {
		const uint8_t *d = dev_block(fs, blk, &err);
		if (d)
			memcpy(buf, d + dev_off(fs, blk), fs->bsize);
	}
	return err ? dev_failed(fs, "read", blk, err) : 0;
}

const uint8_t *ext2_bget(struct ext2_fs *fs, uint32_t blk, int *err)
{
	if ((*err = blk_check(fs, blk)))
		return NULL;
	if (fs->dshift) { /* a part of a device block */
		const uint8_t *d = dev_block(fs, blk, err);
		return d ? d + dev_off(fs, blk) : NULL;
	}
	if (fs->dev.get) /* a tail call: the read path's cost */
		return fs->dev.get(fs->dev.ctx, blk, err);
	*err = fs->dev.read(fs->dev.ctx, blk, fs->buf);
	return *err ? NULL : fs->buf;
}

int ext2_bget_failed(struct ext2_fs *fs, uint32_t blk, int err)
{
	return blk < fs->blocks ? dev_failed(fs, "read", blk, err) : err;
}

int ext2_bwrite(struct ext2_fs *fs, uint32_t blk, const void *buf)
{
	/* block 0, or 0 and 1 with 1 KiB blocks, hold the superblock */
	if (blk >= fs->blocks || blk <= fs->first_data_block)
		return ext2_eio(fs, "writing block %u", blk);
	int err = 0;
	if (fs->dshift) { /* read, modify, write its device block */
		const uint8_t *d = dev_block(fs, blk, &err);
		if (!d)
			return dev_failed(fs, "read", blk, err);
		if (d != fs->dbuf)
			memcpy(fs->dbuf, d, EXT2_BLOCK);
		memcpy(fs->dbuf + dev_off(fs, blk), buf, fs->bsize);
		buf = fs->dbuf;
	}
	err = fs->dev.write(fs->dev.ctx, blk >> fs->dshift, buf);
	return err ? dev_failed(fs, "write", blk, err) : 0;
}

/* ---- the superblock ---- */

/* Feature names (e2fsprogs'), by bit. */
static const char *const incompat_names[] = {
	"compression", "filetype", "needs_recovery", "journal_dev", "meta_bg",
	NULL, "extent", "64bit", "mmp", "flex_bg", "ea_inode", NULL, "dirdata",
	"metadata_csum_seed", "large_dir", "inline_data", "encrypt",
	"casefold"};
static const char *const ro_compat_names[] = {
	"sparse_super", "large_file", "btree_dir", "huge_file", "uninit_bg",
	"dir_nlink", "extra_isize", NULL, "quota", "bigalloc", "metadata_csum",
	"replica", "read-only", "project", "shared_blocks", "verity"};

/** "unsupported feature: NAME" in fs->why for the lowest bit of @bits,
 *  a feature of @kind named in @names (@n of them). */
static void feature_why(struct ext2_fs *fs, const char *lead, const char *kind,
			const char *const *names, unsigned n, uint32_t bits)
{
	unsigned b = (unsigned)__builtin_ctz(bits);
	if (b < n && names[b])
		snprintf(fs->why, sizeof fs->why, "%sunsupported feature: %s",
			 lead, names[b]);
	else
		snprintf(fs->why, sizeof fs->why,
			 "%sunsupported feature: %s bit %u", lead, kind, b);
}

/** Revision, block size and features: -EINVAL if this code cannot read
 *  the file system; an unknown read-only compatible feature makes the
 *  mount read-only (fs->rdonly, the reason in fs->why). */
static int sb_format(struct ext2_fs *fs)
{
	const uint8_t *s = fs->sb;
	uint32_t log = le32(s + 24);
	if (le16(s + 56) != EXT2_MAGIC)
		return refuse(fs, EINVAL, "no ext2 magic");
	if (fs->rev > 1)
		return refuse(fs, EINVAL, "revision %u", fs->rev);
	if (log > 2)
		return refuse(fs, EINVAL, "block size 1024 << %u", log);
	fs->bshift = 10 + log, fs->bsize = 1024u << log;
	fs->dshift = 12 - fs->bshift, fs->pshift = fs->bshift - 2;
	uint32_t bad = fs->incompat & ~EXT2_INCOMPAT_FILETYPE;
	if (bad) {
		feature_why(fs, "", "incompat", incompat_names,
			    sizeof incompat_names / sizeof *incompat_names, bad);
		return -EINVAL;
	}
	if ((bad = fs->ro_compat & ~EXT2_RO_COMPAT_OK)) {
		feature_why(fs, "read-only: ", "ro_compat", ro_compat_names,
			    sizeof ro_compat_names / sizeof *ro_compat_names, bad);
		fs->rdonly = true;
	}
	return 0;
}

/** The superblock's numbers: do they describe a file system (in 64
 *  bits: a damaged one may make 32-bit sums wrap)? */
static int sb_numbers(struct ext2_fs *fs)
{
	uint32_t bits = 8 * fs->bsize, bpg = fs->blocks_per_group;
	uint64_t groups = 0;
	if (bpg && fs->first_data_block < fs->blocks)
		groups = ((uint64_t)fs->blocks - fs->first_data_block + bpg - 1) /
			 bpg;
	if (bpg < 8 || bpg > bits || !fs->inodes_per_group ||
	    fs->inodes_per_group > bits || fs->inode_size < 128 ||
	    fs->inode_size > fs->bsize ||
	    (fs->inode_size & (fs->inode_size - 1)) || fs->first_ino < 11 ||
	    fs->first_data_block != (fs->bsize == 1024) || groups == 0 ||
	    (uint64_t)fs->inodes != groups * fs->inodes_per_group)
		return ext2_eio(fs, "inconsistent superblock");
	fs->groups = (uint32_t)groups;
	fs->gdt_blocks = (uint32_t)((groups * GD_SIZE + fs->bsize - 1) >>
				    fs->bshift);
	return 0;
}

/** The map's limits: file blocks below lim[0] are direct, below lim[d]
 *  under d + 1 levels of indirect blocks. */
static void map_limits(struct ext2_fs *fs)
{
	uint32_t span = 1;
	fs->lim[0] = EXT2_NDIR;
	for (unsigned d = 1; d < 4; d++) {
		span <<= fs->pshift;
		fs->lim[d] = fs->lim[d - 1] + span;
	}
}

/** Read the superblock from device block 0 into @fs and check it. */
static int sb_read(struct ext2_fs *fs)
{
	int err = fs->dev.read(fs->dev.ctx, 0, fs->buf);
	if (err)
		return dev_failed(fs, "read", 0, err);
	memcpy(fs->sb, fs->buf + 1024, sizeof fs->sb);
	const uint8_t *s = fs->sb;
	fs->inodes = le32(s), fs->blocks = le32(s + 4);
	fs->free_blocks = le32(s + 12), fs->free_inodes = le32(s + 16);
	fs->first_data_block = le32(s + 20);
	fs->blocks_per_group = le32(s + 32), fs->inodes_per_group = le32(s + 40);
	fs->rev = le32(s + 76);
	fs->first_ino = 11, fs->inode_size = 128; /* revision 0 */
	if (fs->rev >= 1) {
		fs->first_ino = le32(s + 84), fs->inode_size = le16(s + 88);
		fs->compat = le32(s + 92), fs->incompat = le32(s + 96);
		fs->ro_compat = le32(s + 100);
	}
	if ((err = sb_format(fs)) || (err = sb_numbers(fs)))
		return err;
	map_limits(fs);
	return 0;
}

/** Does the device hold the last block the superblock counts? The
 *  device has no size callback, but it fails a read past its end (B
 *  and D do). Every later block check (blk_check) is against
 *  fs->blocks, so a superblock counting more blocks than the device
 *  has would let a damaged block pointer read past the device. */
static int dev_holds_all(struct ext2_fs *fs)
{
	int err = fs->dev.read(fs->dev.ctx, (fs->blocks - 1) >> fs->dshift,
			       fs->dbuf);
	if (err)
		snprintf(fs->why, sizeof fs->why,
			 "superblock counts %u blocks, the device fewer",
			 fs->blocks);
	return err;
}

long ext2_groups(struct ext2_fs *fs, const struct ext2_dev *dev)
{
	memset(fs, 0, sizeof *fs);
	fs->dev = *dev;
	int err = sb_read(fs);
	if (!err)
		err = dev_holds_all(fs);
	return err ? err : (long)fs->groups;
}

/* ---- group descriptors ---- */

/** Decode descriptor @d of group @g into the table; check it against
 *  the disk's size. */
static int gd_decode(struct ext2_fs *fs, uint32_t g, const uint8_t *d)
{
	struct ext2_group *gr = &fs->group[g];
	gr->block_bitmap = le32(d), gr->inode_bitmap = le32(d + 4);
	gr->inode_table = le32(d + 8), gr->free_blocks = le16(d + 12);
	gr->free_inodes = le16(d + 14), gr->used_dirs = le16(d + 16);
	uint64_t itb = ((uint64_t)fs->inodes_per_group * fs->inode_size) >>
		       fs->bshift;
	if (gr->block_bitmap >= fs->blocks || gr->inode_bitmap >= fs->blocks ||
	    gr->inode_table + itb > fs->blocks)
		return ext2_eio(fs, "group %u descriptor out of range", g);
	return 0;
}

/** Read the group descriptors into fs->group. */
static int gd_read(struct ext2_fs *fs)
{
	uint32_t per = fs->bsize / GD_SIZE;
	for (uint32_t g = 0; g < fs->groups; g++) {
		if (g % per == 0) {
			int err = ext2_bread(fs, fs->first_data_block + 1 + g / per,
					     fs->buf);
			if (err)
				return err;
		}
		int err = gd_decode(fs, g, fs->buf + (g % per) * GD_SIZE);
		if (err)
			return err;
	}
	return 0;
}

int ext2_mount(struct ext2_fs *fs, const struct ext2_dev *dev,
	       struct ext2_group *group, uint32_t room)
{
	long n = ext2_groups(fs, dev);
	if (n < 0)
		return (int)n;
	if (fs->groups > room)
		return refuse(fs, ENOMEM, "%u block groups, a table of %u",
			      fs->groups, room);
	fs->group = group;
	return gd_read(fs);
}

int ext2_sync(struct ext2_fs *fs)
{
	uint32_t per = fs->bsize / GD_SIZE;
	if (fs->rdonly)
		return 0; /* nothing changed */
	for (uint32_t b = 0; b < fs->gdt_blocks; b++) {
		uint32_t blk = fs->first_data_block + 1 + b;
		int err = ext2_bread(fs, blk, fs->buf);
		for (uint32_t g = b * per; !err && g < fs->groups &&
					   g < (b + 1) * per; g++) {
			uint8_t *d = fs->buf + (g % per) * GD_SIZE;
			put16(d + 12, fs->group[g].free_blocks);
			put16(d + 14, fs->group[g].free_inodes);
			put16(d + 16, fs->group[g].used_dirs);
		}
		if (err || (err = ext2_bwrite(fs, blk, fs->buf)))
			return err;
	}
	put32(fs->sb + 12, fs->free_blocks);
	put32(fs->sb + 16, fs->free_inodes);
	put32(fs->sb + 48, ext2_now(fs)); /* s_wtime */
	int err = fs->dev.read(fs->dev.ctx, 0, fs->buf);
	if (err)
		return dev_failed(fs, "read", 0, err);
	memcpy(fs->buf + 1024, fs->sb, sizeof fs->sb);
	err = fs->dev.write(fs->dev.ctx, 0, fs->buf);
	return err ? dev_failed(fs, "write", 0, err) : 0;
}

int ext2_fsync(struct ext2_fs *fs, uint32_t ino)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in); /* a file to sync must exist */
	if (err || !fs->dev.flush)
		return err;
	if ((err = fs->dev.flush(fs->dev.ctx)))
		snprintf(fs->why, sizeof fs->why, "device flush failed");
	return err;
}
