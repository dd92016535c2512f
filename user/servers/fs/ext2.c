/*
 * ext2: inodes, the block and inode bitmaps, the block map (direct,
 * indirect, double and triple indirect) and file data. Blocks, the
 * superblock and mounting are in ext2_mount.c, directories in
 * ext2_dir.c. Layout facts: bit i of group g's block bitmap is block
 * first_data_block + g * blocks_per_group + i, bit i of its inode
 * bitmap is inode g * inodes_per_group + i + 1.
 */
#include "ext2_int.h"

/* ---- inodes ---- */

/** Block and offset of inode @ino, or -EIO if out of range. */
static long inode_pos(struct ext2_fs *fs, uint32_t ino, uint32_t *off)
{
	if (ino == 0 || ino > fs->inodes)
		return snprintf(fs->why, sizeof fs->why, "inode %u", ino), -EIO;
	uint32_t i = ino - 1, g = i / fs->inodes_per_group;
	uint64_t byte = (uint64_t)(i % fs->inodes_per_group) * fs->inode_size;
	*off = (uint32_t)byte & (fs->bsize - 1);
	return (long)(fs->group[g].inode_table + (byte >> fs->bshift));
}

/** Can F use inode @in? In use (a link at least: a free inode's number
 *  may come from a client), and not a regular file of 4 GiB or more. */
static bool inode_usable(const struct ext2_inode *in)
{
	return in->links &&
	       ((in->mode & EXT2_S_IFMT) != EXT2_S_IFREG || !in->size_high);
}

/** Decode the on-disk inode at @p into *@in: -ENOENT if it is free,
 *  -EIO if F cannot use it. */
static int inode_decode(struct ext2_fs *fs, uint32_t ino, const uint8_t *p,
			struct ext2_inode *in)
{
	in->mode = le16(p), in->uid = le16(p + 2), in->size = le32(p + 4);
	in->atime = le32(p + 8), in->ctime = le32(p + 12);
	in->mtime = le32(p + 16), in->dtime = le32(p + 20);
	in->gid = le16(p + 24), in->links = le16(p + 26);
	in->blocks = le32(p + 28), in->flags = le32(p + 32);
	for (int i = 0; i < 15; i++)
		in->block[i] = le32(p + 40 + 4 * i);
	in->file_acl = le32(p + 104), in->size_high = le32(p + 108);
	if (!in->links)
		return snprintf(fs->why, sizeof fs->why, "inode %u is free", ino),
		       -ENOENT;
	if (!inode_usable(in))
		return snprintf(fs->why, sizeof fs->why,
				"inode %u: file of 4 GiB or more", ino),
		       -EIO;
	return 0;
}

int ext2_iget(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in)
{
	struct ext2_icache *c = &fs->icache[ino % EXT2_ICACHE];
	if (ino && c->ino == ino) {
		*in = c->in;
		return 0;
	}
	uint32_t off;
	long blk = inode_pos(fs, ino, &off);
	int err = (int)blk;
	const uint8_t *b = blk < 0 ? NULL : ext2_bget(fs, (uint32_t)blk, &err);
	if (!b)
		return blk < 0 ? err : ext2_bget_failed(fs, (uint32_t)blk, err);
	if ((err = inode_decode(fs, ino, b + off, in)))
		return err;
	c->ino = ino, c->in = *in;
	return 0;
}

int ext2_iput(struct ext2_fs *fs, uint32_t ino, const struct ext2_inode *in)
{
	struct ext2_icache *c = &fs->icache[ino % EXT2_ICACHE];
	if (c->ino == ino)
		c->ino = 0; /* until the block is written, read it again */
	uint32_t off;
	long blk = inode_pos(fs, ino, &off);
	int err = blk < 0 ? (int)blk : ext2_bread(fs, (uint32_t)blk, fs->buf);
	if (!err)
		err = ext2_log_inode(fs, ino, fs->buf + off);
	if (err)
		return err;
	uint8_t *p = fs->buf + off;
	put16(p, in->mode), put16(p + 2, in->uid), put32(p + 4, in->size);
	put32(p + 8, in->atime), put32(p + 12, in->ctime);
	put32(p + 16, in->mtime), put32(p + 20, in->dtime);
	put16(p + 24, in->gid), put16(p + 26, in->links);
	put32(p + 28, in->blocks), put32(p + 32, in->flags);
	for (int i = 0; i < 15; i++)
		put32(p + 40 + 4 * i, in->block[i]);
	put32(p + 104, in->file_acl), put32(p + 108, in->size_high);
	if ((err = ext2_bwrite(fs, (uint32_t)blk, fs->buf)))
		return err;
	if (inode_usable(in))
		c->ino = ino, c->in = *in; /* what ext2_iget would decode */
	return 0;
}

int ext2_iraw_put(struct ext2_fs *fs, uint32_t ino, const uint8_t *raw)
{
	fs->icache[ino % EXT2_ICACHE].ino = 0;
	uint32_t off;
	long blk = inode_pos(fs, ino, &off);
	int err = blk < 0 ? (int)blk : ext2_bread(fs, (uint32_t)blk, fs->buf);
	if (err)
		return err;
	memcpy(fs->buf + off, raw, 128);
	return ext2_bwrite(fs, (uint32_t)blk, fs->buf);
}

/* ---- bitmaps ---- */

/** Find and set a clear bit in bitmap block @bm of @nbits, from @from;
 *  its index or -ENOSPC. */
static long bitmap_take(struct ext2_fs *fs, uint32_t bm, uint32_t nbits,
			uint32_t from)
{
	int err = ext2_bread(fs, bm, fs->buf);
	if (err)
		return err;
	for (uint32_t k = 0; k < nbits; k++) {
		uint32_t i = (from + k) % nbits;
		if (fs->buf[i / 8] & (1u << (i % 8)))
			continue;
		fs->buf[i / 8] |= (uint8_t)(1u << (i % 8));
		err = ext2_bwrite(fs, bm, fs->buf);
		return err ? err : (long)i;
	}
	return -ENOSPC;
}

/** Set (@set) or clear bit @i of bitmap block @bm: 0, or -EIO if it is
 *  so already (the bitmap and the caller disagree), but 1 while undoing
 *  (an undo step tried again after a failure may find its bit done). */
static int bitmap_flip(struct ext2_fs *fs, uint32_t bm, uint32_t i, bool set)
{
	int err = ext2_bread(fs, bm, fs->buf);
	if (err)
		return err;
	uint8_t bit = (uint8_t)(1u << (i % 8));
	if (!(fs->buf[i / 8] & bit) == !set)
		return fs->undo.undoing
			       ? 1
			       : ext2_eio(fs, "%s a %s bit %u of block %u",
					  set ? "taking" : "freeing",
					  set ? "used" : "free", i, bm);
	fs->buf[i / 8] ^= bit;
	return ext2_bwrite(fs, bm, fs->buf);
}

/** Bits that group @g's bitmap has (the last group may be short). */
static uint32_t group_blocks(const struct ext2_fs *fs, uint32_t g)
{
	uint32_t start = fs->first_data_block + g * fs->blocks_per_group;
	uint32_t left = fs->blocks - start;
	return left < fs->blocks_per_group ? left : fs->blocks_per_group;
}

/** A new zeroed block, first looked for in group @g0: its number or
 *  -ENOSPC. */
static long balloc(struct ext2_fs *fs, uint32_t g0)
{
	if (!ext2_tx_room(fs, 1, 0))
		return ext2_eio(fs, "undo log full");
	for (uint32_t k = 0; k < fs->groups; k++) {
		uint32_t g = (g0 + k) % fs->groups;
		struct ext2_group *gr = &fs->group[g];
		if (!gr->free_blocks)
			continue;
		long i = bitmap_take(fs, gr->block_bitmap, group_blocks(fs, g), 0);
		if (i == -ENOSPC)
			continue;
		if (i < 0)
			return i;
		gr->free_blocks--, fs->free_blocks--;
		uint32_t blk = fs->first_data_block + g * fs->blocks_per_group +
			       (uint32_t)i;
		ext2_log_bit(fs, EXT2_U_BALLOC, blk, false); /* room checked */
		int err = ext2_bwrite(fs, blk, fs->zero);
		return err ? err : (long)blk;
	}
	return -ENOSPC;
}

/** Set (@claim) or clear block @blk's bit, its group's count with it. */
static int bflip(struct ext2_fs *fs, uint32_t blk, bool claim)
{
	if (blk < fs->first_data_block || blk >= fs->blocks)
		return ext2_eio(fs, "%s block %u", claim ? "claim" : "free", blk);
	uint32_t i = blk - fs->first_data_block, g = i / fs->blocks_per_group;
	int err = bitmap_flip(fs, fs->group[g].block_bitmap,
			      i % fs->blocks_per_group, claim);
	if (err)
		return err < 0 ? err : 0;
	if (claim)
		fs->group[g].free_blocks--, fs->free_blocks--;
	else
		fs->group[g].free_blocks++, fs->free_blocks++;
	return 0;
}

int ext2_bfree(struct ext2_fs *fs, uint32_t blk)
{
	return bflip(fs, blk, false);
}

int ext2_bclaim(struct ext2_fs *fs, uint32_t blk)
{
	return bflip(fs, blk, true);
}

long ext2_ialloc(struct ext2_fs *fs, uint32_t near, bool dir)
{
	uint32_t g0 = near ? (near - 1) / fs->inodes_per_group : 0;
	if (!ext2_tx_room(fs, 1, 0))
		return ext2_eio(fs, "undo log full");
	for (uint32_t k = 0; k < fs->groups; k++) {
		uint32_t g = (g0 + k) % fs->groups;
		struct ext2_group *gr = &fs->group[g];
		if (!gr->free_inodes)
			continue;
		/* the reserved inodes (below first_ino) stay reserved */
		uint32_t from = g == 0 ? fs->first_ino - 1 : 0;
		long i = bitmap_take(fs, gr->inode_bitmap, fs->inodes_per_group,
				     from);
		if (i == -ENOSPC)
			continue;
		if (i < 0)
			return i;
		if (g == 0 && (uint32_t)i < fs->first_ino - 1)
			continue; /* wrapped into the reserved ones: full */
		gr->free_inodes--, fs->free_inodes--;
		if (dir)
			gr->used_dirs++;
		uint32_t ino = g * fs->inodes_per_group + (uint32_t)i + 1;
		ext2_log_bit(fs, EXT2_U_IALLOC, ino, dir); /* room checked */
		return (long)ino;
	}
	return -ENOSPC;
}

/** Set (@claim) or clear inode @ino's bit, with its group's counts. */
static int iflip(struct ext2_fs *fs, uint32_t ino, bool dir, bool claim)
{
	if (ino == 0 || ino > fs->inodes)
		return ext2_eio(fs, "%s inode %u", claim ? "claim" : "free", ino);
	uint32_t i = ino - 1, g = i / fs->inodes_per_group;
	struct ext2_group *gr = &fs->group[g];
	int err = bitmap_flip(fs, gr->inode_bitmap, i % fs->inodes_per_group,
			      claim);
	if (err)
		return err < 0 ? err : 0;
	if (claim)
		gr->free_inodes--, fs->free_inodes--, gr->used_dirs += dir;
	else
		gr->free_inodes++, fs->free_inodes++, gr->used_dirs -= dir;
	return 0;
}

int ext2_ifree(struct ext2_fs *fs, uint32_t ino, bool dir)
{
	int err = ext2_tx_room(fs, 1, 0) ? iflip(fs, ino, dir, false)
					 : ext2_eio(fs, "undo log full");
	if (!err)
		ext2_log_bit(fs, EXT2_U_IFREE, ino, dir);
	return err;
}

int ext2_bdrop(struct ext2_fs *fs, uint32_t blk)
{
	int err = ext2_tx_room(fs, 1, 0) ? bflip(fs, blk, false)
					 : ext2_eio(fs, "undo log full");
	if (!err)
		ext2_log_bit(fs, EXT2_U_BFREE, blk, false);
	return err;
}

int ext2_iclaim(struct ext2_fs *fs, uint32_t ino, bool dir)
{
	return iflip(fs, ino, dir, true);
}

/* ---- the block map ---- */

/** A new block for an indirect block (balloc's zeros in it), durable
 *  before anything can point to it. Invariant: over a device with a
 *  volatile cache (dev.flush), no pointer to an indirect block reaches
 *  the disk before the block's zeros: a crash keeping the pointer and
 *  losing the zeros leaves old data read as block numbers, and e2fsck
 *  then clears the whole inode, the bytes fsynced before included. One
 *  flush per indirect block allocated (every 4 MiB of a file with 4 KiB
 *  blocks, 256 KiB with 1 KiB ones); none without a flush callback. */
static long balloc_ind(struct ext2_fs *fs, uint32_t g)
{
	long nb = balloc(fs, g);
	int err = nb >= 0 && fs->dev.flush ? fs->dev.flush(fs->dev.ctx) : 0;
	return err ? err : nb;
}

/** Entry @i of indirect block @blk, allocated if 0 and @alloc (the
 *  indirect block rewritten, @in's sector count raised); @ind: the entry
 *  is an indirect block itself (a double or triple indirect block's). */
static long ind_get(struct ext2_fs *fs, struct ext2_inode *in, uint32_t blk,
		    uint32_t i, bool alloc, bool ind, uint32_t g)
{
	int err;
	const uint8_t *b = ext2_bget(fs, blk, &err);
	if (!b)
		return ext2_bget_failed(fs, blk, err);
	uint32_t v = le32(b + 4 * i);
	if (v || !alloc)
		return v;
	long nb = ind ? balloc_ind(fs, g) : balloc(fs, g);
	if (nb < 0)
		return nb;
	in->blocks += ext2_sectors(fs, 1);
	if ((err = ext2_bread(fs, blk, fs->buf)) ||
	    (err = ext2_log_block(fs, blk, fs->buf)))
		return err;
	put32(fs->buf + 4 * i, (uint32_t)nb);
	err = ext2_bwrite(fs, blk, fs->buf);
	return err ? err : nb;
}

/** Slot @slot of @in's i_block, allocated if 0 and @alloc. */
static long top_get(struct ext2_fs *fs, struct ext2_inode *in, unsigned slot,
		    bool alloc, uint32_t g)
{
	if (in->block[slot] || !alloc)
		return in->block[slot];
	long nb = slot >= EXT2_NDIR ? balloc_ind(fs, g) : balloc(fs, g);
	if (nb < 0)
		return nb;
	in->blocks += ext2_sectors(fs, 1);
	in->block[slot] = (uint32_t)nb;
	return nb;
}

long ext2_bmap(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
	       uint32_t fb, bool alloc)
{
	/* the group to allocate in: not worked out to read (a division) */
	uint32_t g = alloc ? (ino - 1) / fs->inodes_per_group : 0;
	if (fb < EXT2_NDIR)
		return top_get(fs, in, fb, alloc, g);
	unsigned depth = 1; /* levels of indirect blocks above the block */
	while (depth < 4 && fb >= fs->lim[depth])
		depth++;
	if (depth == 4)
		return -EFBIG; /* past the triple indirect block */
	fb -= fs->lim[depth - 1];
	long blk = top_get(fs, in, EXT2_NDIR - 1 + depth, alloc, g);
	uint32_t mask = (1u << fs->pshift) - 1;
	while (depth-- > 0 && blk > 0)
		blk = ind_get(fs, in, (uint32_t)blk,
			      (fb >> (fs->pshift * depth)) & mask, alloc,
			      depth > 0, g);
	return blk;
}

/* ---- file data ---- */

/** 0 if @in is a regular file, whose data may be written or cut;
 *  -EISDIR for a directory, -EINVAL for any other type. */
static int file_writable(const struct ext2_inode *in)
{
	uint32_t t = in->mode & EXT2_S_IFMT;
	return t == EXT2_S_IFREG ? 0 : t == EXT2_S_IFDIR ? -EISDIR : -EINVAL;
}

int ext2_stat(struct ext2_fs *fs, uint32_t ino, struct ext2_stat *st)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in);
	if (err)
		return err;
	*st = (struct ext2_stat){.ino = ino, .mode = in.mode, .links = in.links,
				 .size = in.size, .atime = in.atime,
				 .mtime = in.mtime, .ctime = in.ctime,
				 .blocks = in.blocks};
	return 0;
}

long ext2_read(struct ext2_fs *fs, uint32_t ino, uint64_t off, void *buf,
	       size_t len)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in);
	if (err)
		return err;
	/* a symlink's i_block may be its text, a device's its numbers */
	uint32_t t = in.mode & EXT2_S_IFMT;
	if (t != EXT2_S_IFREG && t != EXT2_S_IFDIR)
		return -EINVAL;
	if (off >= in.size)
		return 0;
	if (len > in.size - off)
		len = (size_t)(in.size - off);
	size_t done = 0, bsize = fs->bsize;
	while (done < len) {
		uint64_t pos = off + done;
		uint32_t in_blk = (uint32_t)pos & (fs->bsize - 1);
		size_t n = bsize - in_blk < len - done ? bsize - in_blk
						       : len - done;
		long blk = ext2_bmap(fs, ino, &in, (uint32_t)(pos >> fs->bshift),
				     false);
		if (blk < 0)
			return blk;
		const uint8_t *b = NULL;
		if (blk == 0)
			memset((uint8_t *)buf + done, 0, n); /* a hole */
		else if (!(b = ext2_bget(fs, (uint32_t)blk, &err)))
			return ext2_bget_failed(fs, (uint32_t)blk, err);
		else /* one copy, from where the device holds the block */
			memcpy((uint8_t *)buf + done, b + in_blk, n);
		done += n;
	}
	return (long)done;
}

/** Write one block's part @n bytes at @in_blk of file block @fb. */
static int write_part(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
		      uint32_t fb, uint32_t in_blk, const uint8_t *src,
		      size_t n)
{
	long blk = ext2_bmap(fs, ino, in, fb, true);
	if (blk < 0)
		return (int)blk;
	int err = 0;
	if (n < fs->bsize)
		err = ext2_bread(fs, (uint32_t)blk, fs->buf);
	if (err)
		return err;
	memcpy(fs->buf + in_blk, src, n);
	return ext2_bwrite(fs, (uint32_t)blk, fs->buf);
}

/** One batch of ext2_write's steps (a file block's part each) from
 *  @off on, while the undo log has room for another step (3 new blocks,
 *  2 indirect blocks changed, and the inode), then the inode if it
 *  changed: the bytes of the whole steps made in *@got. */
static int write_batch(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
		       uint64_t off, const uint8_t *src, size_t len,
		       size_t *got)
{
	struct ext2_inode was = *in;
	size_t done = 0;
	int err = 0;
	while (done < len && ext2_tx_room(fs, 6, 2)) {
		uint64_t pos = off + done;
		uint32_t in_blk = (uint32_t)pos & (fs->bsize - 1);
		size_t n = fs->bsize - in_blk < len - done ? fs->bsize - in_blk
							    : len - done;
		err = write_part(fs, ino, in, (uint32_t)(pos >> fs->bshift),
				 in_blk, src + done, n);
		if (err)
			break;
		done += n;
	}
	*got = done;
	if (err)
		return err;
	if (off + done > in->size)
		in->size = (uint32_t)(off + done);
	in->mtime = in->ctime = ext2_now(fs);
	/* A rewrite in place within the same second changes nothing of the
	 * inode: no write of its block (a request to B, often on another
	 * core). The struct has no padding, so the bytes are the fields. */
	_Static_assert(sizeof *in == 104, "struct ext2_inode: no padding");
	return memcmp(&was, in, sizeof *in) ? ext2_iput(fs, ino, in) : 0;
}

/* A batch that fails is undone whole (its new blocks freed, its
 * indirect blocks and the inode as before), then done again up to the
 * step that failed: the steps before it wrote their data (maybe over
 * bytes the file had: those cannot be undone), so they are kept and
 * counted. The answer is the bytes of the steps kept (a short count),
 * or the error when there are none: then not a byte changed (out of
 * space, or the device refused the first step's writes). A batch is
 * tried three times in a row at most (a device that keeps refusing:
 * its data may then be on the disk without being counted). */
long ext2_write(struct ext2_fs *fs, uint32_t ino, uint64_t off,
		const void *buf, size_t len)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in);
	if (err)
		return err;
	if ((err = file_writable(&in)))
		return err;
	if (off > 0xffffffffull || len > 0xffffffffull - off) /* no wrap */
		return -EFBIG;
	if (fs->rdonly)
		return -EROFS;
	size_t done = 0, limit = len;
	for (unsigned again = 0; done < limit;) {
		struct ext2_inode keep = in;
		size_t got = 0;
		ext2_tx_begin(fs); /* not read-only: checked */
		err = ext2_tx_end(fs, write_batch(fs, ino, &in, off + done,
						  (const uint8_t *)buf + done,
						  limit - done, &got));
		if (!err) {
			done += got, again = 0;
			continue;
		}
		in = keep;
		if ((!got && limit == len) || ++again == 3)
			break; /* it wrote nothing, or it keeps failing */
		if (got)
			limit = done + got; /* again, the steps that went through */
	}
	return done ? (long)done : err;
}

/** ext2_truncate's steps: the blocks past @size freed, the bytes past
 *  it in its last block zeroed, then the inode. */
static int truncate_steps(struct ext2_fs *fs, uint32_t ino,
			  struct ext2_inode *in, uint64_t size)
{
	int err = 0;
	if (size < in->size) {
		uint32_t keep = (uint32_t)((size + fs->bsize - 1) >> fs->bshift);
		if ((err = ext2_free_from(fs, in, keep)))
			return err;
		uint32_t tail = (uint32_t)size & (fs->bsize - 1);
		long blk = tail ? ext2_bmap(fs, ino, in, keep - 1, false) : 0;
		if (blk > 0 && !(err = ext2_bread(fs, (uint32_t)blk, fs->buf)) &&
		    !(err = ext2_log_block(fs, (uint32_t)blk, fs->buf))) {
			/* bytes past the end read as zeros if it grows again */
			memset(fs->buf + tail, 0, fs->bsize - tail);
			err = ext2_bwrite(fs, (uint32_t)blk, fs->buf);
		}
		if (err || blk < 0)
			return err ? err : (int)blk;
	}
	in->size = (uint32_t)size;
	in->mtime = in->ctime = ext2_now(fs);
	return ext2_iput(fs, ino, in);
}

int ext2_truncate(struct ext2_fs *fs, uint32_t ino, uint64_t size)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in);
	if (err)
		return err;
	if ((err = file_writable(&in)))
		return err;
	if (size > 0xffffffffull)
		return -EFBIG;
	if ((err = ext2_tx_begin(fs)))
		return err;
	return ext2_tx_end(fs, truncate_steps(fs, ino, &in, size));
}
