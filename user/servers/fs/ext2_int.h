/* Internal to the ext2 code (ext2_mount.c, ext2.c, ext2_dir.c,
 * ext2_free.c, ext2_undo.c): little-endian access, device blocks,
 * inodes, allocation and the block map. */
#ifndef FS_EXT2_INT_H
#define FS_EXT2_INT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ext2.h"

#define EXT2_MAGIC 0xEF53u
#define EXT2_INDEX_FL 0x1000u /* hashed directory (we keep it linear) */
/* Features: incompatible ones we understand (FILETYPE), read-only
 * compatible ones we keep correct (SPARSE_SUPER, LARGE_FILE); any
 * compatible one is fine. */
#define EXT2_INCOMPAT_FILETYPE 0x2u
#define EXT2_RO_COMPAT_OK 0x3u
#define EXT2_EA_MAGIC 0xEA020000u /* an extended-attribute block's h_magic */

/* directory entry file types (FILETYPE feature) */
#define EXT2_FT_REG 1u
#define EXT2_FT_DIR 2u

/** The directory entry file type of an inode of mode @mode (0, unknown,
 *  for a type ext2 does not define): e2fsck checks that they agree. */
static inline unsigned ext2_ft_of(uint32_t mode)
{
	/* i_mode's type >> 12: fifo 1, chr 2, dir 4, blk 6, reg 8, lnk 10,
	 * sock 12 -> FT fifo 5, chr 3, dir 2, blk 4, reg 1, lnk 7, sock 6 */
	static const unsigned char ft[16] = {0, 5, 3, 0, 2, 0, 4, 0,
					     1, 0, 7, 0, 6, 0, 0, 0};
	return ft[(mode >> 12) & 15u];
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static inline bool ext2_is_dir(const struct ext2_inode *in)
{
	return (in->mode & EXT2_S_IFMT) == EXT2_S_IFDIR;
}

/** Does @in's i_block hold a block map? Regular files, directories and
 *  slow symlinks; a fast symlink keeps its target's text there and a
 *  device, fifo or socket inode its device numbers or nothing: their
 *  i_block is never read or freed as blocks. */
static inline bool ext2_has_map(const struct ext2_inode *in)
{
	uint32_t t = in->mode & EXT2_S_IFMT;
	return t == EXT2_S_IFREG || t == EXT2_S_IFDIR ||
	       (t == EXT2_S_IFLNK && in->size >= EXT2_FAST_LINK_MAX);
}

static inline uint32_t ext2_now(struct ext2_fs *fs)
{
	return fs->dev.now ? fs->dev.now(fs->dev.ctx) : 0;
}

/** Say why in fs->why (printf's @fmt) and return -EIO. */
int ext2_eio(struct ext2_fs *fs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** @in's i_blocks (512-byte sectors) for @n blocks of the file system. */
static inline uint32_t ext2_sectors(const struct ext2_fs *fs, uint32_t n)
{
	return n << (fs->bshift - 9);
}

/** File-system block @blk (fs->bsize bytes) into @buf, or the device's
 *  error with the reason in fs->why (as every -EIO of this code has
 *  one). */
int ext2_bread(struct ext2_fs *fs, uint32_t blk, void *buf);
/** Block @blk to look at, read-only, valid until the next block call:
 *  the device's own bytes if it has a get callback, else a copy in
 *  fs->buf (4 KiB blocks: so fs->buf may be overwritten) or in fs->dbuf
 *  (a part of it, smaller blocks). NULL with *@err set; the caller
 *  passes a device's error on through ext2_bget_failed. */
const uint8_t *ext2_bget(struct ext2_fs *fs, uint32_t blk, int *err);
/** ext2_bget's error @err for block @blk, the reason in fs->why (kept
 *  out of ext2_bget, whose device call stays a tail call). */
int ext2_bget_failed(struct ext2_fs *fs, uint32_t blk, int err);
/** @buf (fs->bsize bytes) to file-system block @blk: a smaller block
 *  than the device's is written into a copy of its device block. */
int ext2_bwrite(struct ext2_fs *fs, uint32_t blk, const void *buf);
int ext2_iget(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in);
int ext2_iput(struct ext2_fs *fs, uint32_t ino, const struct ext2_inode *in);
/** A new inode near group of @near (a directory's when @dir): its
 *  number, or -ENOSPC. */
long ext2_ialloc(struct ext2_fs *fs, uint32_t near, bool dir);
int ext2_ifree(struct ext2_fs *fs, uint32_t ino, bool dir);
/** Free block @blk as a step of its own, recorded (undone by claiming
 *  it again): a block outside any block map (an attribute block). */
int ext2_bdrop(struct ext2_fs *fs, uint32_t blk);
/** Physical block of file block @fb of @in, allocating it (and the
 *  indirect blocks on the way, zeroed) if @alloc; 0 for a hole. */
long ext2_bmap(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
	       uint32_t fb, bool alloc);
/** Free every block of @in from file block @from on: their bits first
 *  (undone by walking the map again), then the pointers to them (the
 *  indirect blocks that keep some, logged whole). */
int ext2_free_from(struct ext2_fs *fs, struct ext2_inode *in, uint32_t from);
/** Let go of @in's extended-attribute block as its last link goes (as
 *  Linux does): its reference count dropped, or at the last reference
 *  the block freed; i_file_acl 0 and i_blocks less the block after. */
int ext2_ea_drop(struct ext2_fs *fs, struct ext2_inode *in);

/* Bitmap bits with their counts: the steps of allocation and their
 * undoing (ext2.c). ext2_bfree and ext2_ifree check the bit was set,
 * the claims that it was clear: -EIO otherwise, but while undoing a
 * bit found so already is passed over (an undo step tried again). */
int ext2_bfree(struct ext2_fs *fs, uint32_t blk);
int ext2_bclaim(struct ext2_fs *fs, uint32_t blk);
int ext2_iclaim(struct ext2_fs *fs, uint32_t ino, bool dir);
/** Put back the first 128 bytes of inode @ino (its slot of the inode
 *  cache emptied). */
int ext2_iraw_put(struct ext2_fs *fs, uint32_t ino, const uint8_t *raw);
/** Visit the blocks of map @map from file block @from on, in the order
 *  ext2_free_from frees them, calling @fn for at most @limit of them:
 *  the visits made in *@done; 0 or fn's error. */
int ext2_map_walk(struct ext2_fs *fs, const uint32_t *map, uint32_t from,
		  int (*fn)(struct ext2_fs *fs, uint32_t blk), uint32_t limit,
		  uint32_t *done);

/* The undo log (ext2_undo.c, struct ext2_undo in ext2.h). Every public
 * operation that changes the image runs between ext2_tx_begin and
 * ext2_tx_end; the steps record themselves (nothing is recorded outside
 * an operation, or while undoing). A record that does not fit is -EIO
 * before the step changes anything. */
enum { EXT2_U_BALLOC = 1, EXT2_U_IALLOC, EXT2_U_IFREE, EXT2_U_MAP,
       EXT2_U_BLOCK, EXT2_U_INODE, EXT2_U_BFREE };
/** Begin an operation that changes the image: 0, or -EROFS (nothing
 *  begun: no ext2_tx_end) on a read-only mount. */
int ext2_tx_begin(struct ext2_fs *fs);
/** End the operation begun last. When the outermost one ends with @err
 *  < 0 every recorded step is undone, last first (a step that fails is
 *  tried once more). Returns @err, or -EIO ("undo failed" in fs->why)
 *  if a step could not be undone. */
int ext2_tx_end(struct ext2_fs *fs, int err);
/** Is there room for @recs more records, @blks of them saved blocks?
 *  (Always outside an operation.) */
bool ext2_tx_room(const struct ext2_fs *fs, unsigned recs, unsigned blks);
/** Record an allocation, a freed inode or block. */
int ext2_log_bit(struct ext2_fs *fs, unsigned kind, uint32_t num, bool dir);
/** Record the bytes @pre block @blk has before it is changed (nothing
 *  if the block was allocated by this operation or saved already). */
int ext2_log_block(struct ext2_fs *fs, uint32_t blk, const uint8_t *pre);
/** Record inode @ino's first 128 bytes @pre before it is changed. */
int ext2_log_inode(struct ext2_fs *fs, uint32_t ino, const uint8_t *pre);
/** Record a free of map @map from @from on: its record's index (for
 *  ext2_log_map_done), or an error. */
int ext2_log_map(struct ext2_fs *fs, const uint32_t *map, uint32_t from);
/** The free of record @idx has freed @count blocks (0: no record). */
void ext2_log_map_done(struct ext2_fs *fs, int idx, uint32_t count);

#endif
