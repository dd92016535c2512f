/*
 * ext2 on a block device given as two callbacks: the on-disk format of
 * F, the file server (paper 002's file management server), kept free of
 * any OS so that it also builds for the host, where tests run it on
 * images made by mke2fs and check what it wrote with e2fsck and debugfs.
 *
 * What it mounts: revision 0 or 1; blocks of 1, 2 or 4 KiB over a
 * device of EXT2_BLOCK-byte blocks (a smaller file-system block is a
 * part of a device block; writing one is a read-modify-write of its
 * device block); any number of block groups, whose table is memory the
 * caller gives (ext2_groups tells how many entries); the incompatible
 * feature filetype only (any other is refused by name), the read-only
 * compatible ones sparse_super and large_file (any other mounts the
 * file system read-only: changes are -EROFS), any compatible one
 * (dir_index: hashed directories read as linear ones and lose their
 * index when changed; resize_inode's blocks and inode are left alone;
 * ext_attr: a file's attribute block is kept, and released as Linux
 * does when its last link goes). docs/ext2.md, "What it mounts
 * (`ext2_mount.c`)".
 *
 * Errors are negative <errno.h> values of the C library it is built
 * with (picolibc in the server, glibc on the host): ENOENT, EEXIST,
 * ENOTDIR, EISDIR, ENOTEMPTY, ENOSPC, ENAMETOOLONG, EINVAL, EFBIG, EIO,
 * EPERM, EMLINK, EROFS, ENOMEM (a group table too small). Every
 * operation that changes the image either
 * completes or leaves the image as it was (ext2_undo.c); a write may
 * complete in part: its count short, the image that of a write of
 * that many bytes.
 * An inode number that is free (no link: a client's stale number) is
 * -ENOENT wherever one is passed.
 * Not thread-safe: the file server serialises calls.
 */
#ifndef FS_EXT2_H
#define FS_EXT2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXT2_BLOCK 4096u /* the device's block; the largest fs block */
#define EXT2_ROOT_INO 2u
#define EXT2_NAME_MAX 255u
#define EXT2_NDIR 12u /* direct blocks in an inode */

/* i_mode's file types */
#define EXT2_S_IFMT 0xF000u
#define EXT2_S_IFREG 0x8000u
#define EXT2_S_IFDIR 0x4000u
#define EXT2_S_IFLNK 0xA000u
/* A symlink whose target is shorter than this is "fast": the target's
 * bytes fill i_block (60 bytes) and it has no block; a longer one is
 * "slow", its target in one data block (as e2fsprogs and Linux do). */
#define EXT2_FAST_LINK_MAX 60u
#define EXT2_LINK_MAX 32000u /* links of an inode (as Linux's ext2) */

struct ext2_dev {
	/* One EXT2_BLOCK-byte block: 0 or a negative errno (EIO). */
	int (*read)(void *ctx, uint32_t block, void *buf);
	int (*write)(void *ctx, uint32_t block, const void *buf);
	uint32_t (*now)(void *ctx); /* seconds since 1970, for the times */
	void *ctx;
	/* Optional: block @block's bytes where the device holds them (its
	 * copy, a window), read-only and valid until the next call of any
	 * of these callbacks; NULL with *@err a negative errno. The reads
	 * that only look at a block (inodes, the block map, file data) use
	 * it instead of a copy into fs->buf. */
	const void *(*get)(void *ctx, uint32_t block, int *err);
	/* Optional: make every write the device has taken durable (0 or a
	 * negative errno), for a device that holds writes in a volatile
	 * cache. NULL: a write is durable when the write callback returns. */
	int (*flush)(void *ctx);
};

/* An inode as the file system keeps it (the on-disk fields it uses). */
struct ext2_inode {
	uint16_t mode, uid, gid, links;
	uint32_t size, atime, ctime, mtime, dtime, blocks, flags;
	uint32_t block[15];
	uint32_t file_acl;  /* the extended-attribute block, or 0 */
	uint32_t size_high; /* regular files: size bits 32..63 (must be 0) */
};

/* A block group's descriptor as kept in memory (ext2_mount's table):
 * where its bitmaps and inode table are, and its counts, which
 * ext2_sync writes back. */
struct ext2_group {
	uint32_t block_bitmap, inode_bitmap, inode_table;
	uint16_t free_blocks, free_inodes, used_dirs;
};

/* Decoded inodes kept by ext2_iget, a slot per ino % EXT2_ICACHE: a hit
 * skips the inode's position, block lookup and decoding (about 150
 * instructions of every read). Valid because every inode write goes
 * through ext2_iput, which updates its slot; ino 0 marks an empty slot. */
#define EXT2_ICACHE 8
struct ext2_icache {
	uint32_t ino;
	struct ext2_inode in;
};

/* The undo log of the operation under way (ext2_undo.c): each step
 * that changes the image first records how to put it back, and an
 * operation that fails is undone from its last record to its first.
 * Bitmap bits are undone by flipping them back, the blocks a free of a
 * block map released by walking that map again (its 15 pointers kept
 * here), inodes and directory or indirect blocks by writing back the
 * bytes they had. Sized for the largest directory operation (rename);
 * a write goes in batches that fit (ext2_write). */
#define EXT2_UNDO_RECS 24
#define EXT2_UNDO_BLOCKS 4 /* blocks saved whole */
#define EXT2_UNDO_INODES 6 /* inodes saved: their first 128 bytes */
#define EXT2_UNDO_MAPS 2   /* block maps freed */
struct ext2_undo_rec {
	uint8_t kind;  /* EXT2_U_* (ext2_int.h) */
	uint8_t dir;   /* an inode's: a directory (used_dirs) */
	uint16_t slot; /* U_BLOCK, U_INODE, U_MAP: its saved bytes */
	uint32_t num;  /* the block or inode */
	uint32_t from;  /* U_MAP: the first file block freed */
	uint32_t count; /* U_MAP: blocks freed; U_BALLOC: a run's length */
};
struct ext2_undo {
	unsigned depth; /* nested operations: the outermost ends the log */
	bool undoing;   /* while undoing, nothing is recorded */
	unsigned n, nblk, nino, nmap;
	struct ext2_undo_rec rec[EXT2_UNDO_RECS];
	uint32_t map[EXT2_UNDO_MAPS][15];
	uint8_t ino[EXT2_UNDO_INODES][128];
	uint8_t blk[EXT2_UNDO_BLOCKS][EXT2_BLOCK]; /* bsize bytes used */
};

struct ext2_fs {
	struct ext2_dev dev;
	struct ext2_icache icache[EXT2_ICACHE];
	uint32_t blocks, inodes, free_blocks, free_inodes;
	uint32_t first_data_block, blocks_per_group, inodes_per_group;
	uint32_t first_ino, inode_size, groups, gdt_blocks;
	uint32_t rev, compat, incompat, ro_compat;
	/* File-system blocks: bsize = 1 << bshift bytes (1,024 to 4,096);
	 * 1 << dshift of them per device block (fs block b is device block
	 * b >> dshift); 1 << pshift block numbers per block. A file's block
	 * fb < lim[0] is direct, below lim[d] it is under i_block[12 + d]'s
	 * d + 1 levels of indirect blocks; lim[3] is past the map's end. */
	uint32_t bsize, bshift, dshift, pshift;
	uint32_t lim[4];
	bool rdonly;                /* unknown ro_compat features: why says */
	struct ext2_group *group;   /* the caller's table: groups entries */
	uint8_t sb[1024];           /* the primary superblock as read */
	uint8_t buf[EXT2_BLOCK];    /* scratch for metadata blocks */
	uint8_t zero[EXT2_BLOCK];   /* a block of zeros (new blocks) */
	uint8_t dbuf[EXT2_BLOCK];   /* a device block under smaller fs blocks */
	char why[96];               /* the reason of the last EIO/EINVAL */
	struct ext2_undo undo;
};

struct ext2_stat {
	uint32_t ino, mode, links, size, atime, mtime, ctime, blocks;
};

/** Read and check the superblock of @dev into @fs: its number of block
 *  groups (fs->groups, at least 1: the entries ext2_mount's table needs,
 *  ext2_group_bytes of memory), or -EINVAL (not ext2 as this code reads
 *  it: no magic, a revision past 1, a block size other than 1, 2 or 4
 *  KiB, an incompatible feature other than filetype, named) / -EIO
 *  (inconsistent numbers, a device smaller than the superblock says,
 *  unreadable), the reason in fs->why. */
long ext2_groups(struct ext2_fs *fs, const struct ext2_dev *dev);
/** Bytes of the group table of the file system ext2_groups read. */
static inline size_t ext2_group_bytes(const struct ext2_fs *fs)
{
	return (size_t)fs->groups * sizeof(struct ext2_group);
}
/** Mount @dev: ext2_groups' checks, then the group descriptors read
 *  into @group (room for @room entries, kept by @fs while mounted), each
 *  checked against the disk's size. 0, or ext2_groups' errors, -ENOMEM
 *  if @room is too small, -EIO for a descriptor out of range; the reason
 *  in fs->why. A read-only mount (an unknown read-only compatible
 *  feature) is 0 with fs->rdonly set and the feature in fs->why. */
int ext2_mount(struct ext2_fs *fs, const struct ext2_dev *dev,
	       struct ext2_group *group, uint32_t room);
/** Write the superblock's and group descriptors' counts back (nothing
 *  on a read-only mount). */
int ext2_sync(struct ext2_fs *fs);
/** Make file @ino durable: its data, its inode and its names. The
 *  library keeps nothing dirty (every call has given the device all its
 *  writes when it returns), so this is the device's flush, and it makes
 *  every earlier call durable, not @ino's alone. The free counts stay
 *  ext2_sync's (e2fsck recomputes them). 0 or a negative errno. */
int ext2_fsync(struct ext2_fs *fs, uint32_t ino);

/** Follow absolute @path ('/'-separated; empty components ignored) to
 *  its inode number in *@ino. No symlink is followed: one inside the
 *  path is -ENOTDIR, one at its end is the answer. */
int ext2_namei(struct ext2_fs *fs, const char *path, uint32_t *ino);
/** The inode of @name (@len bytes) in directory @dir. */
int ext2_lookup(struct ext2_fs *fs, uint32_t dir, const char *name,
		size_t len, uint32_t *ino);
int ext2_stat(struct ext2_fs *fs, uint32_t ino, struct ext2_stat *st);

/** Read up to @len bytes at @off of file @ino: bytes read (0 at end).
 *  A regular file or a directory (its raw entries); -EINVAL for any
 *  other type (a symlink's target: ext2_readlink). */
long ext2_read(struct ext2_fs *fs, uint32_t ino, uint64_t off, void *buf,
	       size_t len);
/** Write @len bytes at @off (extending the file, holes read as zeros):
 *  bytes written (fewer if a step failed: those before it are kept), or
 *  the error (-ENOSPC, -EFBIG, -EIO...) with nothing written.
 *  Regular files only: -EISDIR for a directory, -EINVAL otherwise. */
long ext2_write(struct ext2_fs *fs, uint32_t ino, uint64_t off,
		const void *buf, size_t len);
/** Set the size of regular file @ino, freeing the blocks past it
 *  (-EISDIR for a directory, -EINVAL for another type). */
int ext2_truncate(struct ext2_fs *fs, uint32_t ino, uint64_t size);

/** Directory entries of @dir from *@pos (0 at first; updated past each
 *  entry @fn took): calls @fn for each until it returns non-zero (that
 *  entry is not taken: *@pos stays at it). 0 at the end, or fn's value.
 *  A block with a damaged entry gives its entries up to that one, the
 *  following blocks are read still, and the end is -EIO instead of 0
 *  (at every call that reaches it). Lookups likewise find names in the
 *  other blocks, and a name not found there is -EIO, not -ENOENT. */
int ext2_readdir(struct ext2_fs *fs, uint32_t dir, uint64_t *pos,
		 int (*fn)(void *arg, const char *name, size_t len,
			   uint32_t ino, unsigned type),
		 void *arg);

/** New regular file / directory @name in @dir: its inode in *@ino. */
int ext2_create(struct ext2_fs *fs, uint32_t dir, const char *name,
		size_t len, uint32_t mode, uint32_t *ino);
int ext2_mkdir(struct ext2_fs *fs, uint32_t dir, const char *name,
	       size_t len, uint32_t mode, uint32_t *ino);
/** New symlink @name in @dir to @target (@tlen bytes, 1 to a block less
 *  one, no NUL: -EINVAL, -ENAMETOOLONG), mode 0777: a fast one (the target in
 *  i_block, no block) below EXT2_FAST_LINK_MAX bytes, else a slow one
 *  (the target in a block of its own). Its inode in *@ino. */
int ext2_symlink(struct ext2_fs *fs, uint32_t dir, const char *name,
		 size_t len, const char *target, size_t tlen, uint32_t *ino);
/** Symlink @ino's target into @buf, at most @len bytes (no NUL added):
 *  the bytes copied (the whole target is ext2_stat's size); -EINVAL if
 *  @ino is not a symlink. */
long ext2_readlink(struct ext2_fs *fs, uint32_t ino, char *buf, size_t len);
/** A new name @name in @dir for inode @ino (a hard link; its link count
 *  and ctime updated): -EPERM for a directory, -EMLINK past
 *  EXT2_LINK_MAX links. */
int ext2_link(struct ext2_fs *fs, uint32_t dir, const char *name, size_t len,
	      uint32_t ino);
/** Remove file @name from @dir (-EISDIR for a directory). */
int ext2_unlink(struct ext2_fs *fs, uint32_t dir, const char *name,
		size_t len);
/** Remove empty directory @name from @dir (-ENOTEMPTY, -ENOTDIR). */
int ext2_rmdir(struct ext2_fs *fs, uint32_t dir, const char *name,
	       size_t len);
/** Move @from_dir/@from to @to_dir/@to, replacing what is there: a
 *  non-directory by a non-directory (-EISDIR otherwise), an empty
 *  directory by a directory (-ENOTDIR, -ENOTEMPTY); -EINVAL for a move
 *  into its own subtree; nothing if both name the same inode. The entry
 *  keeps the inode's file type. */
int ext2_rename(struct ext2_fs *fs, uint32_t from_dir, const char *from,
		size_t from_len, uint32_t to_dir, const char *to,
		size_t to_len);

#endif
