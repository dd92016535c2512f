/*
 * ext2 directories: linear lists of entries (inode u32, rec_len u16,
 * name_len u8, file_type u8, name), each block's entries covering it
 * exactly. A removed entry is merged into the one before it, or zeroed
 * (inode 0) if it is a block's first. A hashed directory (INDEX_FL, made
 * by e2fsck -D or the Linux driver) reads as a linear one; it loses the
 * flag when Fulcrum changes it, which e2fsck accepts.
 */
#include "ext2_int.h"

#define DE_HEAD 8u

static inline uint32_t de_size(uint32_t name_len)
{
	return (DE_HEAD + name_len + 3) & ~3u;
}

/** Physical block of directory @dir's block @fb; -EIO for a hole. */
static long dir_bmap(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *in,
		     uint32_t fb)
{
	long b = ext2_bmap(fs, dir, in, fb, false);
	return b ? b : ext2_eio(fs, "directory %u: hole at block %u", dir, fb);
}

/** Walk the entries of directory block @fb (in fs->buf) with @fn:
 *  fn's non-zero value, or 0 at the block's end. An entry that does
 *  not fit its block ends the walk of this block with *@bad set to
 *  -EIO (the rest of the block cannot be trusted). */
static int block_walk(struct ext2_fs *fs, uint32_t dir, uint32_t fb,
		      int (*fn)(void *arg, struct ext2_fs *fs, uint8_t *blk,
				uint32_t off, uint32_t fb),
		      void *arg, int *bad)
{
	for (uint32_t off = 0; off < fs->bsize;) {
		uint32_t rec = le16(fs->buf + off + 4);
		if (rec < DE_HEAD || off + rec > fs->bsize ||
		    de_size(fs->buf[off + 6]) > rec) {
			*bad = ext2_eio(fs, "directory %u: bad entry at %u", dir,
					(fb << fs->bshift) + off);
			return 0;
		}
		int r = fn(arg, fs, fs->buf, off, fb);
		if (r)
			return r;
		off += rec;
	}
	return 0;
}

/** Walk the entries of directory @dir (inode @in): @fn(arg, block's
 *  buffer, entry offset, file block) for each until it returns non-zero
 *  (returned). The buffer is fs->buf, reread for every block. A block
 *  with a bad entry is walked up to it, the walk goes on with the next
 *  block, and ends with -EIO (reason in fs->why) instead of 0: one
 *  damaged entry hides only the rest of its block. */
static int dir_walk(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *in,
		    int (*fn)(void *arg, struct ext2_fs *fs, uint8_t *blk,
			      uint32_t off, uint32_t fb),
		    void *arg)
{
	uint32_t nblk = in->size >> fs->bshift;
	int bad = 0;
	for (uint32_t fb = 0; fb < nblk; fb++) {
		long b = dir_bmap(fs, dir, in, fb);
		int err = b < 0 ? (int)b : ext2_bread(fs, (uint32_t)b, fs->buf);
		if (err)
			return err;
		int r = block_walk(fs, dir, fb, fn, arg, &bad);
		if (r)
			return r;
	}
	return bad;
}

/* lookup */
struct find {
	const char *name;
	size_t len;
	uint32_t ino, fb, off, prev; /* prev: the entry before, or ~0 */
	uint32_t last;               /* offset of the last entry seen */
	uint32_t last_fb;
};

static int find_fn(void *arg, struct ext2_fs *fs, uint8_t *b, uint32_t off,
		   uint32_t fb)
{
	(void)fs;
	struct find *f = arg;
	if (fb != f->last_fb || off == 0)
		f->last = ~0u;
	f->last_fb = fb;
	uint32_t ino = le32(b + off);
	if (ino && b[off + 6] == f->len && !memcmp(b + off + DE_HEAD, f->name, f->len)) {
		f->ino = ino, f->fb = fb, f->off = off, f->prev = f->last;
		return 1;
	}
	f->last = off;
	return 0;
}

/** Find @name in directory @dir (inode @in read): 1 and *@f filled, 0
 *  if absent, or an error. */
static int dir_find(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *in,
		    const char *name, size_t len, struct find *f)
{
	*f = (struct find){.name = name, .len = len, .last = ~0u};
	return dir_walk(fs, dir, in, find_fn, f);
}

/** @dir's inode, checked to be a directory, into *@in. */
static int dir_get(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *in)
{
	int err = ext2_iget(fs, dir, in);
	if (!err && !ext2_is_dir(in))
		err = -ENOTDIR;
	return err;
}

static int name_ok(const char *name, size_t len)
{
	if (len == 0 || memchr(name, '/', len) ||
	    (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	return len > EXT2_NAME_MAX ? -ENAMETOOLONG : 0;
}

int ext2_lookup(struct ext2_fs *fs, uint32_t dir, const char *name,
		size_t len, uint32_t *ino)
{
	struct ext2_inode in;
	struct find f;
	if (len > EXT2_NAME_MAX)
		return -ENAMETOOLONG;
	int r = dir_get(fs, dir, &in);
	if (!r)
		r = dir_find(fs, dir, &in, name, len, &f);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	*ino = f.ino;
	return 0;
}

int ext2_namei(struct ext2_fs *fs, const char *path, uint32_t *ino)
{
	uint32_t cur = EXT2_ROOT_INO;
	while (*path) {
		while (*path == '/')
			path++;
		size_t len = strcspn(path, "/");
		if (!len)
			break;
		int err = ext2_lookup(fs, cur, path, len, &cur);
		if (err)
			return err;
		path += len;
	}
	*ino = cur;
	return 0;
}

/* readdir */
struct rd {
	uint64_t *pos;
	int (*fn)(void *, const char *, size_t, uint32_t, unsigned);
	void *arg;
};

static int rd_fn(void *arg, struct ext2_fs *fs, uint8_t *b, uint32_t off,
		 uint32_t fb)
{
	struct rd *r = arg;
	uint64_t here = ((uint64_t)fb << fs->bshift) + off;
	if (here < *r->pos)
		return 0;
	uint32_t ino = le32(b + off);
	unsigned type = fs->incompat & EXT2_INCOMPAT_FILETYPE ? b[off + 7] : 0;
	int stop = ino ? r->fn(r->arg, (const char *)b + off + DE_HEAD,
			       b[off + 6], ino, type)
		       : 0;
	if (!stop) /* a stopping entry is not consumed: it comes again */
		*r->pos = here + le16(b + off + 4);
	return stop;
}

int ext2_readdir(struct ext2_fs *fs, uint32_t dir, uint64_t *pos,
		 int (*fn)(void *arg, const char *name, size_t len,
			   uint32_t ino, unsigned type),
		 void *arg)
{
	struct ext2_inode in;
	int err = dir_get(fs, dir, &in);
	if (err)
		return err;
	struct rd r = {pos, fn, arg};
	return dir_walk(fs, dir, &in, rd_fn, &r);
}

/* adding an entry */
struct slot {
	uint32_t need, fb, off;
	bool found;
};

static int slot_fn(void *arg, struct ext2_fs *fs, uint8_t *b, uint32_t off,
		   uint32_t fb)
{
	(void)fs;
	struct slot *s = arg;
	uint32_t rec = le16(b + off + 4);
	uint32_t used = le32(b + off) ? de_size(b[off + 6]) : 0;
	if (rec - used < s->need)
		return 0;
	s->fb = fb, s->off = off, s->found = true;
	return 1;
}

/** Write entry (@ino, @name, @type) into the block in fs->buf at @off,
 *  splitting the entry there if it is in use; the block is @blk. */
static int de_put(struct ext2_fs *fs, uint32_t blk, uint32_t off,
		  uint32_t ino, const char *name, size_t len, unsigned type)
{
	uint8_t *b = fs->buf;
	uint32_t rec = le16(b + off + 4);
	if (le32(b + off)) { /* split: the old entry keeps what it needs */
		uint32_t used = de_size(b[off + 6]);
		put16(b + off + 4, (uint16_t)used);
		off += used, rec -= used;
	}
	put32(b + off, ino);
	put16(b + off + 4, (uint16_t)rec);
	b[off + 6] = (uint8_t)len;
	b[off + 7] = fs->incompat & EXT2_INCOMPAT_FILETYPE ? (uint8_t)type : 0;
	memcpy(b + off + DE_HEAD, name, len);
	return ext2_bwrite(fs, blk, b);
}

/** Read block @fb of directory @dir into fs->buf to change it, its old
 *  bytes logged: the block's number, or an error. */
static long dir_block_rw(struct ext2_fs *fs, uint32_t dir,
			 struct ext2_inode *din, uint32_t fb)
{
	long blk = dir_bmap(fs, dir, din, fb);
	int err = blk < 0 ? (int)blk : ext2_bread(fs, (uint32_t)blk, fs->buf);
	if (!err)
		err = ext2_log_block(fs, (uint32_t)blk, fs->buf);
	return err ? err : blk;
}

/** Directory @dir (inode @din) was changed: its times, no index. */
static int dir_touch(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *din)
{
	din->flags &= ~EXT2_INDEX_FL;
	din->mtime = din->ctime = ext2_now(fs);
	return ext2_iput(fs, dir, din);
}

/** Add entry (@name, @ino, @type) to @dir: into the slack of an entry,
 *  or a new block at the end (the inode's size grows). */
static int dir_add(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *din,
		   const char *name, size_t len, uint32_t ino, unsigned type)
{
	struct slot s = {.need = de_size((uint32_t)len)};
	int err = dir_walk(fs, dir, din, slot_fn, &s);
	if (err < 0)
		return err;
	long blk;
	if (s.found) {
		blk = dir_block_rw(fs, dir, din, s.fb);
	} else { /* a new block, one empty entry covering it */
		blk = ext2_bmap(fs, dir, din, din->size >> fs->bshift, true);
		din->size += fs->bsize;
		memset(fs->buf, 0, fs->bsize);
		put16(fs->buf + 4, (uint16_t)fs->bsize);
		s.off = 0;
	}
	if (blk < 0)
		return (int)blk;
	if ((err = de_put(fs, (uint32_t)blk, s.off, ino, name, len, type)))
		return err;
	return dir_touch(fs, dir, din);
}

/** Remove found entry @f from @dir's block (merge or zero). */
static int dir_del(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *din,
		   const struct find *f)
{
	long blk = dir_block_rw(fs, dir, din, f->fb);
	if (blk < 0)
		return (int)blk;
	uint8_t *b = fs->buf;
	if (f->prev != ~0u)
		put16(b + f->prev + 4, (uint16_t)(le16(b + f->prev + 4) +
						  le16(b + f->off + 4)));
	else
		put32(b + f->off, 0);
	int err = ext2_bwrite(fs, (uint32_t)blk, b);
	return err ? err : dir_touch(fs, dir, din);
}

/** Point found entry @f of @dir at @ino, of entry type @type. */
static int dir_set(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *din,
		   const struct find *f, uint32_t ino, unsigned type)
{
	long blk = dir_block_rw(fs, dir, din, f->fb);
	if (blk < 0)
		return (int)blk;
	put32(fs->buf + f->off, ino);
	if (fs->incompat & EXT2_INCOMPAT_FILETYPE)
		fs->buf[f->off + 7] = (uint8_t)type;
	int err = ext2_bwrite(fs, (uint32_t)blk, fs->buf);
	return err ? err : dir_touch(fs, dir, din);
}

/** Checks common to the operations that add a name: @dir a directory
 *  (its inode in *@din) without @name. */
static int new_name(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *din,
		    const char *name, size_t len)
{
	struct find f;
	int err = name_ok(name, len);
	if (!err)
		err = dir_get(fs, dir, din);
	if (!err)
		err = dir_find(fs, dir, din, name, len, &f);
	return err < 0 ? err : err ? -EEXIST : 0;
}

/** A new inode @in (of a directory: @isdir) written, named @name in
 *  @dir: ext2_create's and ext2_symlink's last steps. @fill, if not
 *  NULL, gives it its data first (it may allocate its blocks). */
static int new_inode(struct ext2_fs *fs, uint32_t dir, const char *name,
		     size_t len, struct ext2_inode *in, uint32_t *ino,
		     int (*fill)(struct ext2_fs *fs, uint32_t ino,
				 struct ext2_inode *in, const void *arg),
		     const void *arg)
{
	struct ext2_inode din;
	int err = new_name(fs, dir, &din, name, len);
	long n = err ? err : ext2_ialloc(fs, dir, ext2_is_dir(in));
	if (n < 0)
		return (int)n;
	uint32_t t = ext2_now(fs);
	in->atime = in->ctime = in->mtime = t;
	if ((fill && (err = fill(fs, (uint32_t)n, in, arg))) ||
	    (err = ext2_iput(fs, (uint32_t)n, in)))
		return err;
	if (ext2_is_dir(in))
		din.links++; /* the new directory's ".." */
	if ((err = dir_add(fs, dir, &din, name, len, (uint32_t)n,
			   ext2_ft_of(in->mode))))
		return err;
	*ino = (uint32_t)n;
	return 0;
}

int ext2_create(struct ext2_fs *fs, uint32_t dir, const char *name,
		size_t len, uint32_t mode, uint32_t *ino)
{
	struct ext2_inode in = {.mode = (uint16_t)(EXT2_S_IFREG | (mode & 07777)),
				.links = 1};
	int err = ext2_tx_begin(fs);
	return err ? err
		   : ext2_tx_end(fs, new_inode(fs, dir, name, len, &in, ino,
					       NULL, NULL));
}

/** The first block of new directory @ino: "." and ".." (@parent). */
static int dir_init(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
		    const void *parent)
{
	long blk = ext2_bmap(fs, ino, in, 0, true);
	if (blk < 0)
		return (int)blk;
	memset(fs->buf, 0, fs->bsize);
	put16(fs->buf + 4, (uint16_t)fs->bsize);
	int err = de_put(fs, (uint32_t)blk, 0, ino, ".", 1, EXT2_FT_DIR);
	if (!err)
		err = de_put(fs, (uint32_t)blk, 0, *(const uint32_t *)parent,
			     "..", 2, EXT2_FT_DIR);
	in->size = fs->bsize;
	return err;
}

int ext2_mkdir(struct ext2_fs *fs, uint32_t dir, const char *name,
	       size_t len, uint32_t mode, uint32_t *ino)
{
	struct ext2_inode in = {.mode = (uint16_t)(EXT2_S_IFDIR | (mode & 07777)),
				.links = 2};
	int err = ext2_tx_begin(fs);
	return err ? err
		   : ext2_tx_end(fs, new_inode(fs, dir, name, len, &in, ino,
					       dir_init, &dir));
}

/* A symlink's target, for link_fill. */
struct target {
	const char *s;
	size_t len;
};

/** Give new symlink @ino (@in) its target: in i_block if it is short
 *  (a fast symlink), else in a data block of its own. */
static int link_fill(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
		     const void *arg)
{
	const struct target *t = arg;
	in->size = (uint32_t)t->len;
	if (t->len < EXT2_FAST_LINK_MAX) {
		uint8_t text[60] = {0};
		memcpy(text, t->s, t->len);
		for (int i = 0; i < 15; i++)
			in->block[i] = le32(text + 4 * i);
		return 0;
	}
	long blk = ext2_bmap(fs, ino, in, 0, true);
	if (blk < 0)
		return (int)blk;
	memset(fs->buf, 0, fs->bsize);
	memcpy(fs->buf, t->s, t->len);
	return ext2_bwrite(fs, (uint32_t)blk, fs->buf);
}

int ext2_symlink(struct ext2_fs *fs, uint32_t dir, const char *name,
		 size_t len, const char *target, size_t tlen, uint32_t *ino)
{
	if (tlen == 0 || memchr(target, 0, tlen))
		return -EINVAL;
	if (tlen >= fs->bsize)
		return -ENAMETOOLONG;
	struct target t = {target, tlen};
	struct ext2_inode in = {.mode = (uint16_t)(EXT2_S_IFLNK | 0777),
				.links = 1};
	int err = ext2_tx_begin(fs);
	return err ? err
		   : ext2_tx_end(fs, new_inode(fs, dir, name, len, &in, ino,
					       link_fill, &t));
}

long ext2_readlink(struct ext2_fs *fs, uint32_t ino, char *buf, size_t len)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in);
	if (err)
		return err;
	if ((in.mode & EXT2_S_IFMT) != EXT2_S_IFLNK)
		return -EINVAL;
	size_t n = in.size < len ? in.size : len;
	if (in.size < EXT2_FAST_LINK_MAX) {
		uint8_t text[60];
		for (int i = 0; i < 15; i++)
			put32(text + 4 * i, in.block[i]);
		memcpy(buf, text, n);
		return (long)n;
	}
	if (in.size >= fs->bsize || !in.block[0])
		return ext2_eio(fs, "symlink %u: size %u, block %u", ino,
				in.size, in.block[0]);
	const uint8_t *b = ext2_bget(fs, in.block[0], &err);
	if (!b)
		return ext2_bget_failed(fs, in.block[0], err);
	memcpy(buf, b, n);
	return (long)n;
}

/** ext2_link's steps: the new entry, then the inode's link count. */
static int link_steps(struct ext2_fs *fs, uint32_t dir, const char *name,
		      size_t len, uint32_t ino)
{
	struct ext2_inode din, in;
	int err = ext2_iget(fs, ino, &in);
	if (err)
		return err;
	if (ext2_is_dir(&in))
		return -EPERM;
	if (in.links >= EXT2_LINK_MAX)
		return -EMLINK;
	if ((err = new_name(fs, dir, &din, name, len)) ||
	    (err = dir_add(fs, dir, &din, name, len, ino, ext2_ft_of(in.mode))))
		return err;
	in.links++;
	in.ctime = ext2_now(fs);
	return ext2_iput(fs, ino, &in);
}

int ext2_link(struct ext2_fs *fs, uint32_t dir, const char *name, size_t len,
	      uint32_t ino)
{
	int err = ext2_tx_begin(fs);
	return err ? err : ext2_tx_end(fs, link_steps(fs, dir, name, len, ino));
}

/** Drop @drop links of @ino (@in read); free it with its blocks at
 *  zero: the blocks' bits, its attribute block, then the inode (dtime),
 *  then its bit. */
static int drop_link(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in,
		     unsigned drop)
{
	in->links = in->links > drop ? (uint16_t)(in->links - drop) : 0;
	in->ctime = ext2_now(fs);
	if (in->links)
		return ext2_iput(fs, ino, in);
	bool dir = ext2_is_dir(in);
	int err = ext2_has_map(in) ? ext2_free_from(fs, in, 0) : 0;
	if (!err)
		err = ext2_ea_drop(fs, in);
	if (!err) {
		in->size = 0, in->dtime = ext2_now(fs);
		err = ext2_iput(fs, ino, in);
	}
	return err ? err : ext2_ifree(fs, ino, dir);
}

/** Find @name in @dir: its entry in *@f, its inode in *@in. */
static int find_child(struct ext2_fs *fs, uint32_t dir, struct ext2_inode *din,
		      const char *name, size_t len, struct find *f,
		      struct ext2_inode *in)
{
	int err = name_ok(name, len);
	if (!err)
		err = dir_get(fs, dir, din);
	if (!err)
		err = dir_find(fs, dir, din, name, len, f);
	if (err <= 0)
		return err < 0 ? err : -ENOENT;
	return ext2_iget(fs, f->ino, in);
}

/** ext2_unlink's steps: the entry, then the link. */
static int unlink_steps(struct ext2_fs *fs, uint32_t dir, const char *name,
			size_t len)
{
	struct ext2_inode din, in;
	struct find f;
	int err = find_child(fs, dir, &din, name, len, &f, &in);
	if (!err && ext2_is_dir(&in))
		err = -EISDIR;
	if (!err)
		err = dir_del(fs, dir, &din, &f);
	return err ? err : drop_link(fs, f.ino, &in, 1);
}

int ext2_unlink(struct ext2_fs *fs, uint32_t dir, const char *name,
		size_t len)
{
	int err = ext2_tx_begin(fs);
	return err ? err : ext2_tx_end(fs, unlink_steps(fs, dir, name, len));
}

static int empty_fn(void *arg, struct ext2_fs *fs, uint8_t *b, uint32_t off,
		    uint32_t fb)
{
	(void)arg, (void)fs, (void)fb;
	uint32_t n = b[off + 6];
	if (!le32(b + off) || (n == 1 && b[off + 8] == '.') ||
	    (n == 2 && b[off + 8] == '.' && b[off + 9] == '.'))
		return 0;
	return 1;
}

/** 0 if directory @ino (@in) is empty, -ENOTEMPTY, or an error. */
static int dir_empty(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in)
{
	int r = dir_walk(fs, ino, in, empty_fn, NULL);
	return r > 0 ? -ENOTEMPTY : r;
}

/** ext2_rmdir's steps: the entry, the parent's link, the directory. */
static int rmdir_steps(struct ext2_fs *fs, uint32_t dir, const char *name,
		       size_t len)
{
	struct ext2_inode din, in;
	struct find f;
	int err = find_child(fs, dir, &din, name, len, &f, &in);
	if (!err && !ext2_is_dir(&in))
		err = -ENOTDIR;
	if (!err)
		err = dir_empty(fs, f.ino, &in);
	if (err || (err = dir_del(fs, dir, &din, &f)))
		return err;
	din.links--;
	if ((err = ext2_iput(fs, dir, &din)))
		return err;
	return drop_link(fs, f.ino, &in, in.links); /* "." and its name */
}

int ext2_rmdir(struct ext2_fs *fs, uint32_t dir, const char *name,
	       size_t len)
{
	int err = ext2_tx_begin(fs);
	return err ? err : ext2_tx_end(fs, rmdir_steps(fs, dir, name, len));
}

/** -EINVAL if directory @ino is @dir or one of its ancestors. */
static int not_ancestor(struct ext2_fs *fs, uint32_t ino, uint32_t dir)
{
	for (uint32_t cur = dir, n = 0; n < fs->inodes; n++) {
		if (cur == ino)
			return -EINVAL;
		if (cur == EXT2_ROOT_INO)
			return 0;
		int err = ext2_lookup(fs, cur, "..", 2, &cur);
		if (err)
			return err;
	}
	return ext2_eio(fs, "directory %u: a loop of '..' entries", dir);
}

/** Point the ".." of directory @ino (second entry of its first block)
 *  at @parent; @ino is a changed directory (dir_touch). */
static int set_dotdot(struct ext2_fs *fs, uint32_t ino, uint32_t parent)
{
	struct ext2_inode in;
	int err = ext2_iget(fs, ino, &in);
	long blk = err ? err : dir_block_rw(fs, ino, &in, 0);
	if (blk < 0)
		return (int)blk;
	uint8_t *b = fs->buf;
	uint32_t off = le16(b + 4);
	if (off + DE_HEAD + 2 > fs->bsize || b[off + 6] != 2 ||
	    memcmp(b + off + DE_HEAD, "..", 2))
		return ext2_eio(fs, "directory %u: no '..' second", ino);
	put32(b + off, parent);
	if ((err = ext2_bwrite(fs, (uint32_t)blk, b)))
		return err;
	return dir_touch(fs, ino, &in); /* no index, times: as Linux */
}

/** Add @delta to directory @dir's link count (its subdirectories). */
static int dir_links(struct ext2_fs *fs, uint32_t dir, int delta)
{
	struct ext2_inode din;
	int err = delta ? dir_get(fs, dir, &din) : 0;
	if (!delta || err)
		return err;
	din.links = (uint16_t)(din.links + delta);
	return ext2_iput(fs, dir, &din);
}

/* A rename, source and target found and checked. */
struct mv {
	uint32_t fdir, tdir, ino;
	struct find f, t; /* t.ino: the inode replaced, or 0 */
	struct ext2_inode in;
	bool isdir;
};

/** Can @m's target (if any) be replaced by its source? */
static int mv_check_target(struct ext2_fs *fs, struct mv *m,
			   struct ext2_inode *tin)
{
	int err = ext2_iget(fs, m->t.ino, tin);
	if (err)
		return err;
	if (ext2_is_dir(tin) != m->isdir)
		return m->isdir ? -ENOTDIR : -EISDIR;
	return m->isdir ? dir_empty(fs, m->t.ino, tin) : 0;
}

/** ext2_rename's steps once @m is checked: the new entry (the target's
 *  pointed at the source, or a new one), the old entry removed, a moved
 *  directory's ".." and its parents' links, then the replaced inode's
 *  link dropped: its blocks are freed last, after every allocation. */
static int mv_steps(struct ext2_fs *fs, struct mv *m, const char *from,
		    size_t flen, const char *to, size_t tlen)
{
	struct ext2_inode din, tin;
	unsigned ft = ext2_ft_of(m->in.mode);
	int err = dir_get(fs, m->tdir, &din);
	if (!err && m->t.ino)
		err = mv_check_target(fs, m, &tin);
	if (!err)
		err = m->t.ino ? dir_set(fs, m->tdir, &din, &m->t, m->ino, ft)
			       : dir_add(fs, m->tdir, &din, to, tlen, m->ino, ft);
	/* the old name, found again: the directory may just have changed */
	if (!err && !(err = dir_get(fs, m->fdir, &din)) &&
	    (err = dir_find(fs, m->fdir, &din, from, flen, &m->f)) == 0)
		err = ext2_eio(fs, "directory %u: entry gone", m->fdir);
	if (err < 0 || (err = dir_del(fs, m->fdir, &din, &m->f)))
		return err;
	bool moved = m->isdir && m->fdir != m->tdir;
	int gone = m->isdir && m->t.ino; /* the replaced directory's ".." */
	if ((moved && (err = set_dotdot(fs, m->ino, m->tdir))) ||
	    (err = dir_links(fs, m->fdir, -moved)) ||
	    (err = dir_links(fs, m->tdir, moved - gone)) ||
	    (err = ext2_iget(fs, m->ino, &m->in)))
		return err;
	m->in.ctime = ext2_now(fs);
	if ((err = ext2_iput(fs, m->ino, &m->in)) || !m->t.ino)
		return err;
	if ((err = ext2_iget(fs, m->t.ino, &tin)))
		return err;
	return drop_link(fs, m->t.ino, &tin, m->isdir ? tin.links : 1);
}

/** Find and check ext2_rename's source and target into *@m: 1 if the
 *  target names the source's inode already (nothing to do). */
static int mv_find(struct ext2_fs *fs, struct mv *m, const char *from,
		   size_t flen, const char *to, size_t tlen)
{
	struct ext2_inode din;
	int err = find_child(fs, m->fdir, &din, from, flen, &m->f, &m->in);
	if (!err)
		err = name_ok(to, tlen);
	if (!err)
		err = dir_get(fs, m->tdir, &din);
	m->ino = m->f.ino, m->isdir = ext2_is_dir(&m->in);
	if (!err && m->isdir)
		err = not_ancestor(fs, m->ino, m->tdir);
	if (!err && (err = dir_find(fs, m->tdir, &din, to, tlen, &m->t)) == 0)
		m->t.ino = 0;
	return err < 0 ? err : err && m->t.ino == m->ino;
}

int ext2_rename(struct ext2_fs *fs, uint32_t fdir, const char *from,
		size_t flen, uint32_t tdir, const char *to, size_t tlen)
{
	struct mv m = {.fdir = fdir, .tdir = tdir};
	int err = mv_find(fs, &m, from, flen, to, tlen);
	if (err)
		return err > 0 ? 0 : err;
	if ((err = ext2_tx_begin(fs)))
		return err;
	return ext2_tx_end(fs, mv_steps(fs, &m, from, flen, to, tlen));
}
