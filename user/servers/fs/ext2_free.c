/*
 * ext2: freeing a block map from a file block on (ext2_free_from, for
 * truncate and for an inode's last link). The blocks' bits are cleared
 * first, walking the map, and the pointers to them cut after: while the
 * bits go, the map is intact, and the undo log (ext2_undo.c) claims
 * them back by walking it again (ext2_map_walk). The rest of the block
 * map is in ext2.c.
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
 *  data blocks; 2: indirect blocks), then @blk if @from is 0. Reads
 *  into its own buffers: @fn may use fs->buf. */
static int walk_ind(struct ext2_fs *fs, struct walk *w, uint32_t blk,
		    uint32_t from, int depth)
{
	static uint8_t lvl[2][EXT2_BLOCK];
	uint8_t *b = lvl[depth - 1];
	int err = ext2_bread(fs, blk, b);
	uint32_t per = depth == 1 ? 1 : EXT2_PER_BLOCK;
	for (uint32_t i = from / per; !err && i < EXT2_PER_BLOCK; i++) {
		uint32_t v = le32(b + 4 * i);
		uint32_t sub = i == from / per ? from % per : 0;
		if (v)
			err = depth == 1 ? walk_one(fs, w, v)
					 : walk_ind(fs, w, v, sub, 1);
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
	uint32_t f1 = from > EXT2_NDIR ? from - EXT2_NDIR : 0;
	if (!err && map[12] && f1 < EXT2_PER_BLOCK)
		err = walk_ind(fs, &w, map[12], f1, 1);
	uint32_t f2 = from > EXT2_NDIR + EXT2_PER_BLOCK
			      ? from - EXT2_NDIR - EXT2_PER_BLOCK
			      : 0;
	if (!err && map[13])
		err = walk_ind(fs, &w, map[13], f2, 2);
	*done = w.done;
	return err > 0 ? 0 : err; /* 1: the limit was reached */
}

/** Zero the entries of indirect block @blk from @from on (@depth as
 *  walk_ind; a partly kept child is cut inside), its old bytes logged;
 *  a block with nothing to zero is not written. */
static int cut_ind(struct ext2_fs *fs, uint32_t blk, uint32_t from, int depth)
{
	uint32_t per = depth == 1 ? 1 : EXT2_PER_BLOCK;
	uint32_t i0 = from / per, sub = from % per, child = 0;
	int err = ext2_bread(fs, blk, fs->buf);
	if (err)
		return err;
	if (depth == 2 && sub) /* its entry stays, its tail goes */
		child = le32(fs->buf + 4 * i0++);
	uint32_t any = 0;
	for (uint32_t i = i0; i < EXT2_PER_BLOCK; i++)
		any |= le32(fs->buf + 4 * i);
	if (any && !(err = ext2_log_block(fs, blk, fs->buf))) {
		memset(fs->buf + 4 * i0, 0, 4 * (EXT2_PER_BLOCK - i0));
		err = ext2_bwrite(fs, blk, fs->buf);
	}
	return err ? err : child ? cut_ind(fs, child, sub, 1) : 0;
}

/** Drop @in's pointers to file blocks @from on (their bits are free). */
static int map_cut(struct ext2_fs *fs, struct ext2_inode *in, uint32_t from)
{
	int err = 0;
	for (uint32_t i = from; i < EXT2_NDIR; i++)
		in->block[i] = 0;
	uint32_t f1 = from > EXT2_NDIR ? from - EXT2_NDIR : 0;
	if (in->block[12] && f1 == 0)
		in->block[12] = 0;
	else if (in->block[12] && f1 < EXT2_PER_BLOCK)
		err = cut_ind(fs, in->block[12], f1, 1);
	uint32_t f2 = from > EXT2_NDIR + EXT2_PER_BLOCK
			      ? from - EXT2_NDIR - EXT2_PER_BLOCK
			      : 0;
	if (!err && in->block[13] && f2 == 0)
		in->block[13] = 0;
	else if (!err && in->block[13])
		err = cut_ind(fs, in->block[13], f2, 2);
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
	in->blocks -= done * (EXT2_BLOCK / 512);
	return err ? err : map_cut(fs, in, from);
}
