/*
 * ext2: freeing a block map from a file block on (ext2_free_from, for
 * truncate and for an inode's last link). The blocks' bits are cleared
 * first, walking the map, and the pointers to them cut after: while the
 * bits go, the map is intact, and the undo log (ext2_undo.c) claims
 * them back by walking it again (ext2_map_walk). The rest of the block
 * map is in ext2.c. And an inode's extended-attribute block, let go of
 * with its last link (ext2_ea_drop).
 */
#include "ext2_int.h"

/* Walking a block map from a file block on, as freeing it goes: the
 * data blocks in file order, each indirect block after everything it
 * points to, when it goes entirely. */
struct walk {
	int (*fn)(struct ext2_fs *fs, uint32_t blk);
	uint32_t left, done; /* visits still allowed, visits made */
};

/** Visit @blk: 1 (stop) once the visits allowed are made. */
static int walk_one(struct ext2_fs *fs, struct walk *w, uint32_t blk)
{
	if (!w->left)
		return 1;
	int err = w->fn(fs, blk);
	if (!err)
		w->left--, w->done++;
	return err;
}

/** Visit the entries of indirect block @blk from @from on (@depth 1:
 *  data blocks; 2, 3: indirect blocks of depth - 1), then @blk if @from
 *  is 0. Reads into its own buffers: @fn may use fs->buf. */
static int walk_ind(struct ext2_fs *fs, struct walk *w, uint32_t blk,
		    uint32_t from, unsigned depth)
{
	static uint8_t lvl[3][EXT2_BLOCK];
	uint8_t *b = lvl[depth - 1];
	unsigned shift = fs->pshift * (depth - 1); /* file blocks per entry */
	uint32_t per = 1u << fs->pshift, i0 = from >> shift;
	int err = ext2_bread(fs, blk, b);
	for (uint32_t i = i0; !err && i < per; i++) {
		uint32_t v = le32(b + 4 * i);
		uint32_t sub = i == i0 ? from & ((1u << shift) - 1) : 0;
		if (v)
			err = depth == 1 ? walk_one(fs, w, v)
					 : walk_ind(fs, w, v, sub, depth - 1);
	}
	return err ? err : from == 0 ? walk_one(fs, w, blk) : 0;
}

int ext2_map_walk(struct ext2_fs *fs, const uint32_t *map, uint32_t from,
		  int (*fn)(struct ext2_fs *fs, uint32_t blk), uint32_t limit,
		  uint32_t *done)
{
	struct walk w = {fn, limit, 0};
	int err = 0;
	for (uint32_t i = from; !err && i < EXT2_NDIR; i++)
		if (map[i])
			err = walk_one(fs, &w, map[i]);
	for (unsigned d = 1; !err && d < 4; d++) {
		uint32_t start = fs->lim[d - 1]; /* its first file block */
		if (map[EXT2_NDIR - 1 + d] && from < fs->lim[d])
			err = walk_ind(fs, &w, map[EXT2_NDIR - 1 + d],
				       from > start ? from - start : 0, d);
	}
	*done = w.done;
	return err > 0 ? 0 : err; /* 1: the limit was reached */
}

/** Zero the entries of indirect block @blk from @from on (@depth as
 *  walk_ind; a partly kept child is cut inside), its old bytes logged;
 *  a block with nothing to zero is not written. */
static int cut_ind(struct ext2_fs *fs, uint32_t blk, uint32_t from,
		   unsigned depth)
{
	unsigned shift = fs->pshift * (depth - 1);
	uint32_t per = 1u << fs->pshift, i0 = from >> shift;
	uint32_t sub = from & ((1u << shift) - 1), child = 0;
	int err = ext2_bread(fs, blk, fs->buf);
	if (err)
		return err;
	if (depth > 1 && sub) /* its entry stays, its tail goes */
		child = le32(fs->buf + 4 * i0++);
	uint32_t any = 0;
	for (uint32_t i = i0; i < per; i++)
		any |= le32(fs->buf + 4 * i);
	if (any && !(err = ext2_log_block(fs, blk, fs->buf))) {
		memset(fs->buf + 4 * i0, 0, 4 * (per - i0));
		err = ext2_bwrite(fs, blk, fs->buf);
	}
	return err ? err : child ? cut_ind(fs, child, sub, depth - 1) : 0;
}

/** Drop @in's pointers to file blocks @from on (their bits are free). */
static int map_cut(struct ext2_fs *fs, struct ext2_inode *in, uint32_t from)
{
	int err = 0;
	for (uint32_t i = from; i < EXT2_NDIR; i++)
		in->block[i] = 0;
	for (unsigned d = 1; !err && d < 4; d++) {
		uint32_t *top = &in->block[EXT2_NDIR - 1 + d];
		uint32_t start = fs->lim[d - 1];
		if (*top && from <= start)
			*top = 0; /* the whole level goes */
		else if (*top && from < fs->lim[d])
			err = cut_ind(fs, *top, from - start, d);
	}
	return err;
}

int ext2_free_from(struct ext2_fs *fs, struct ext2_inode *in, uint32_t from)
{
	int idx = ext2_log_map(fs, in->block, from);
	if (idx < 0)
		return idx;
	uint32_t done;
	int err = ext2_map_walk(fs, in->block, from, ext2_bfree, UINT32_MAX,
				&done);
	ext2_log_map_done(fs, idx, done);
	in->blocks -= ext2_sectors(fs, done);
	return err ? err : map_cut(fs, in, from);
}

int ext2_ea_drop(struct ext2_fs *fs, struct ext2_inode *in)
{
	uint32_t blk = in->file_acl;
	if (!blk)
		return 0;
	int err = ext2_bread(fs, blk, fs->buf);
	if (err)
		return err;
	uint32_t refs = le32(fs->buf + 4); /* h_refcount */
	if (le32(fs->buf) != EXT2_EA_MAGIC || refs == 0)
		return ext2_eio(fs, "attribute block %u: magic %#x, %u references",
				blk, le32(fs->buf), refs);
	if (refs > 1 && !(err = ext2_log_block(fs, blk, fs->buf))) {
		put32(fs->buf + 4, refs - 1); /* another inode keeps it */
		err = ext2_bwrite(fs, blk, fs->buf);
	} else if (refs == 1) {
		err = ext2_bdrop(fs, blk);
	}
	if (err)
		return err;
	in->file_acl = 0;
	in->blocks -= ext2_sectors(fs, 1);
	return 0;
}
