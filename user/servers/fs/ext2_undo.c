/*
 * ext2's undo log: every operation that changes the image either
 * completes or leaves it as it was (inodes, bitmaps, free counts,
 * directory and indirect blocks; docs/ext2.md, "Failed operations undone
 * (`ext2_undo.c`, `ext2_free.c`)"). Each step records how to put back
 * what it is about to change, before it changes it; ext2_tx_end of a
 * failed operation undoes the records last first, so each one meets the
 * image as its step left it. The log lives in struct ext2_fs (ext2.h)
 * and holds one operation: a record that does not fit fails that
 * operation (-EIO) before its step, and is undone with it.
 */
#include "ext2_int.h"

int ext2_tx_begin(struct ext2_fs *fs)
{
	struct ext2_undo *u = &fs->undo;
	if (fs->rdonly)
		return -EROFS;
	if (u->depth++ == 0)
		u->n = u->nblk = u->nino = u->nmap = 0;
	return 0;
}

bool ext2_tx_room(const struct ext2_fs *fs, unsigned recs, unsigned blks)
{
	const struct ext2_undo *u = &fs->undo;
	return !u->depth || u->undoing ||
	       (u->n + recs <= EXT2_UNDO_RECS &&
		u->nblk + blks <= EXT2_UNDO_BLOCKS);
}

/** Is recording on (in an operation, not undoing one)? */
static bool logging(const struct ext2_fs *fs)
{
	return fs->undo.depth && !fs->undo.undoing;
}

/** A new record of @kind for @num, or NULL (fs->why says why). */
static struct ext2_undo_rec *rec_new(struct ext2_fs *fs, unsigned kind,
				     uint32_t num)
{
	struct ext2_undo *u = &fs->undo;
	if (u->n == EXT2_UNDO_RECS) {
		ext2_eio(fs, "undo log full");
		return NULL;
	}
	struct ext2_undo_rec *r = &u->rec[u->n++];
	*r = (struct ext2_undo_rec){.kind = (uint8_t)kind, .num = num};
	return r;
}

/** The record of @kind for @num already in the log, or NULL. */
static const struct ext2_undo_rec *rec_find(const struct ext2_fs *fs,
					    unsigned kind, uint32_t num)
{
	for (unsigned i = 0; i < fs->undo.n; i++)
		if (fs->undo.rec[i].kind == kind && fs->undo.rec[i].num == num)
			return &fs->undo.rec[i];
	return NULL;
}

/** Was block @blk allocated by this operation? */
static bool fresh(const struct ext2_fs *fs, uint32_t blk)
{
	for (unsigned i = 0; i < fs->undo.n; i++) {
		const struct ext2_undo_rec *r = &fs->undo.rec[i];
		if (r->kind == EXT2_U_BALLOC && blk - r->num < r->count)
			return true;
	}
	return false;
}

int ext2_log_bit(struct ext2_fs *fs, unsigned kind, uint32_t num, bool dir)
{
	if (!logging(fs))
		return 0;
	struct ext2_undo *u = &fs->undo;
	struct ext2_undo_rec *r = u->n ? &u->rec[u->n - 1] : NULL;
	if (kind == EXT2_U_BALLOC && r && r->kind == kind &&
	    r->num + r->count == num) {
		r->count++; /* the block after the last one: a run */
		return 0;
	}
	if (!(r = rec_new(fs, kind, num)))
		return -EIO;
	r->dir = dir, r->count = 1;
	return 0;
}

int ext2_log_block(struct ext2_fs *fs, uint32_t blk, const uint8_t *pre)
{
	struct ext2_undo *u = &fs->undo;
	if (!logging(fs) || fresh(fs, blk) || rec_find(fs, EXT2_U_BLOCK, blk))
		return 0; /* new in this operation, or its old bytes kept */
	if (u->nblk == EXT2_UNDO_BLOCKS)
		return ext2_eio(fs, "undo log full (blocks)");
	struct ext2_undo_rec *r = rec_new(fs, EXT2_U_BLOCK, blk);
	if (!r)
		return -EIO;
	r->slot = (uint16_t)u->nblk++;
	memcpy(u->blk[r->slot], pre, fs->bsize);
	return 0;
}

int ext2_log_inode(struct ext2_fs *fs, uint32_t ino, const uint8_t *pre)
{
	struct ext2_undo *u = &fs->undo;
	if (!logging(fs) || rec_find(fs, EXT2_U_INODE, ino))
		return 0;
	if (u->nino == EXT2_UNDO_INODES)
		return ext2_eio(fs, "undo log full (inodes)");
	struct ext2_undo_rec *r = rec_new(fs, EXT2_U_INODE, ino);
	if (!r)
		return -EIO;
	r->slot = (uint16_t)u->nino++;
	memcpy(u->ino[r->slot], pre, 128);
	return 0;
}

int ext2_log_map(struct ext2_fs *fs, const uint32_t *map, uint32_t from)
{
	struct ext2_undo *u = &fs->undo;
	if (!logging(fs))
		return 0;
	if (u->nmap == EXT2_UNDO_MAPS)
		return ext2_eio(fs, "undo log full (maps)");
	struct ext2_undo_rec *r = rec_new(fs, EXT2_U_MAP, 0);
	if (!r)
		return -EIO;
	r->slot = (uint16_t)u->nmap++;
	r->from = from;
	memcpy(u->map[r->slot], map, sizeof u->map[0]);
	return (int)(r - u->rec) + 1; /* 0 means "not recorded" */
}

void ext2_log_map_done(struct ext2_fs *fs, int idx, uint32_t count)
{
	if (idx > 0)
		fs->undo.rec[idx - 1].count = count;
}

/** Undo record @r. */
static int rec_undo(struct ext2_fs *fs, const struct ext2_undo_rec *r)
{
	struct ext2_undo *u = &fs->undo;
	uint32_t done;
	int err = 0;
	switch (r->kind) {
	case EXT2_U_BALLOC:
		for (uint32_t i = r->count; i-- > 0 && !err;)
			err = ext2_bfree(fs, r->num + i);
		return err;
	case EXT2_U_IALLOC: return ext2_ifree(fs, r->num, r->dir);
	case EXT2_U_IFREE: return ext2_iclaim(fs, r->num, r->dir);
	case EXT2_U_BFREE: return ext2_bclaim(fs, r->num);
	case EXT2_U_MAP:
		return ext2_map_walk(fs, u->map[r->slot], r->from, ext2_bclaim,
				     r->count, &done);
	case EXT2_U_BLOCK: return ext2_bwrite(fs, r->num, u->blk[r->slot]);
	case EXT2_U_INODE: return ext2_iraw_put(fs, r->num, u->ino[r->slot]);
	}
	return ext2_eio(fs, "undo record of kind %u", r->kind);
}

int ext2_tx_end(struct ext2_fs *fs, int err)
{
	struct ext2_undo *u = &fs->undo;
	if (--u->depth || err >= 0)
		return err;
	char why[sizeof fs->why];
	memcpy(why, fs->why, sizeof why);
	int bad = 0;
	u->undoing = true;
	for (unsigned i = u->n; i-- > 0;) { /* on past a failure: the rest */
		int e = rec_undo(fs, &u->rec[i]);
		if (e) /* once more: a device may refuse a write only once;
			* a bit already put back is passed over then */
			e = rec_undo(fs, &u->rec[i]);
		bad = bad ? bad : e;
	}
	u->undoing = false;
	u->n = 0;
	for (unsigned i = 0; i < EXT2_ICACHE; i++)
		fs->icache[i].ino = 0;
	if (bad) { /* the image may be inconsistent: say so, and the cause */
		memcpy(why, fs->why, sizeof why);
		snprintf(fs->why, sizeof fs->why, "undo failed: %.60s", why);
	} else {
		memcpy(fs->why, why, sizeof why);
	}
	return bad ? -EIO : err;
}
