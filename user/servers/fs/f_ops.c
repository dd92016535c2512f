/*
 * F's operations (<fulcrum/fs.h>) on one struct f_req: the same code
 * for requests from the IPC endpoint (data in the IPC buffer) and from
 * the rings (data in the ring's shared area, <fulcrum/fs.h>).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/fs.h>

#include "ext2_b.h"
#include "f.h"

struct ext2_fs f_fs;
atomic_flag f_lock = ATOMIC_FLAG_INIT;

/** Put @st in the reply: a struct ful_fs_stat at the buffer's start. */
static long f_stat_out(struct f_req *q, const struct ext2_stat *st)
{
	struct ful_fs_stat fst = {
		.ino = st->ino, .mode = st->mode, .links = st->links,
		.blocks = st->blocks, .size = st->size, .atime = st->atime,
		.mtime = st->mtime, .ctime = st->ctime,
	};
	if (q->cap < sizeof fst)
		return -EINVAL;
	memcpy(q->buf, &fst, sizeof fst);
	q->out = sizeof fst;
	q->mr[1] = st->mode, q->mr[2] = st->size, q->mr[3] = st->links;
	return 0;
}

/** LOOKUP: a NUL-terminated copy of the path, then ext2_namei. */
static long f_lookup(struct f_req *q)
{
	static char path[4096 + 1];
	if (q->len > 4096)
		return -ENAMETOOLONG;
	memcpy(path, q->buf, q->len);
	path[q->len] = 0;
	uint32_t ino;
	struct ext2_stat st;
	long err = ext2_namei(&f_fs, path, &ino);
	if (!err)
		err = ext2_stat(&f_fs, ino, &st);
	if (!err)
		err = f_stat_out(q, &st);
	if (!err)
		q->mr[1] = ino; /* LOOKUP's mr1 is the inode, STAT's the mode */
	return err;
}

static long f_stat(struct f_req *q)
{
	struct ext2_stat st;
	long err = ext2_stat(&f_fs, (uint32_t)q->mr[0], &st);
	return err ? err : f_stat_out(q, &st);
}

/** WRITE at mr1, or at the end for FUL_FS_APPEND; mr1 the offset past
 *  the bytes written. */
static long f_write(struct f_req *q)
{
	uint32_t ino = (uint32_t)q->mr[0];
	uint64_t off = q->mr[1];
	if (off == FUL_FS_APPEND) {
		struct ext2_stat st;
		long err = ext2_stat(&f_fs, ino, &st);
		if (err)
			return err;
		off = st.size;
	}
	long r = ext2_write(&f_fs, ino, off, q->buf, q->len);
	q->mr[1] = r > 0 ? off + (uint64_t)r : off;
	return r;
}

static long f_read(struct f_req *q)
{
	if (q->mr[2] > q->cap)
		return -EINVAL;
	long r = ext2_read(&f_fs, (uint32_t)q->mr[0], q->mr[1], q->buf,
			   q->mr[2]);
	q->out = r > 0 ? (size_t)r : 0;
	return r;
}

/** Does @name in directory @dir name a file some ring has mapped? */
static bool f_omf_named(uint32_t dir, const char *name, size_t len)
{
	uint32_t ino = 0;
	return ext2_lookup(&f_fs, dir, name, len, &ino) == 0 &&
	       f_omf_busy(ino);
}

/** RENAME: the two names follow each other in the buffer. */
static long f_rename(struct f_req *q)
{
	size_t flen = q->mr[2];
	if (flen > q->len)
		return -EINVAL;
	const char *b = (const char *)q->buf;
	if (f_omf_named((uint32_t)q->mr[1], b + flen, q->len - flen))
		return -EBUSY; /* would replace a mapped file */
	return ext2_rename(&f_fs, (uint32_t)q->mr[0], b, flen,
			   (uint32_t)q->mr[1], b + flen, q->len - flen);
}

/* READDIR: entries packed into the buffer while they fit (at most one
 * IPC buffer's worth, whichever way the request came). */
struct f_rd {
	unsigned char *buf;
	size_t used, cap;
	unsigned count;
};

static int f_rd_fn(void *arg, const char *name, size_t len, uint32_t ino,
		   unsigned type)
{
	struct f_rd *r = arg;
	if (r->used + 6 + len > r->cap)
		return 1; /* full: this one comes first next time */
	unsigned char *e = r->buf + r->used;
	e[0] = (unsigned char)ino, e[1] = (unsigned char)(ino >> 8);
	e[2] = (unsigned char)(ino >> 16), e[3] = (unsigned char)(ino >> 24);
	e[4] = (unsigned char)type, e[5] = (unsigned char)len;
	memcpy(e + 6, name, len);
	r->used += 6 + len;
	r->count++;
	return 0;
}

/** READDIR from position mr1: entries, the next position, the size. */
static long f_readdir(struct f_req *q)
{
	struct f_rd r = {q->buf, 0,
			 q->cap < FUL_IPCBUF_SIZE ? q->cap : FUL_IPCBUF_SIZE, 0};
	uint64_t pos = q->mr[1];
	int err = ext2_readdir(&f_fs, (uint32_t)q->mr[0], &pos, f_rd_fn, &r);
	if (err < 0 && !r.count) /* entries first: the error comes again */
		return err;
	q->mr[1] = pos;
	q->out = r.used;
	return r.count;
}

/** CREATE, MKDIR, UNLINK, RMDIR: a name in directory mr0. */
static long f_name_op(struct f_req *q)
{
	uint32_t dir = (uint32_t)q->mr[0], ino = 0;
	const char *name = (const char *)q->buf;
	long r;
	switch (q->op) {
	case FUL_FS_OP_CREATE:
		r = ext2_create(&f_fs, dir, name, q->len, 0644, &ino);
		break;
	case FUL_FS_OP_MKDIR:
		r = ext2_mkdir(&f_fs, dir, name, q->len, 0755, &ino);
		break;
	case FUL_FS_OP_UNLINK:
		r = f_omf_named(dir, name, q->len)
			    ? -EBUSY
			    : ext2_unlink(&f_fs, dir, name, q->len);
		break;
	default: r = ext2_rmdir(&f_fs, dir, name, q->len); break;
	}
	q->mr[1] = r ? 0 : ino;
	return r;
}

/** SYMLINK (mr2 the name's length; the target follows the name) and
 *  LINK (mr1 the inode) in directory mr0: mr1 the new name's inode. */
static long f_link_op(struct f_req *q)
{
	uint32_t dir = (uint32_t)q->mr[0], ino = (uint32_t)q->mr[1];
	const char *b = (const char *)q->buf;
	size_t nlen = q->mr[2];
	long r;
	if (q->op == FUL_FS_OP_LINK)
		r = ext2_link(&f_fs, dir, b, q->len, ino);
	else if (nlen > q->len)
		r = -EINVAL;
	else
		r = ext2_symlink(&f_fs, dir, b, nlen, b + nlen, q->len - nlen,
				 &ino);
	q->mr[1] = r ? 0 : ino;
	return r;
}

/** READLINK of inode mr0: the target in the buffer, its length. */
static long f_readlink(struct f_req *q)
{
	long r = ext2_readlink(&f_fs, (uint32_t)q->mr[0], (char *)q->buf,
			       q->cap);
	q->out = r > 0 ? (size_t)r : 0;
	return r;
}

/** SYNC: ext2's counts, then B's dirty lines (B flushes D). */
static long f_sync(void)
{
	long r = ext2_sync(&f_fs);
	return r ? r : ext2_b_call(&f_b, FUL_CACHE_OP_SYNC, 0);
}

void f_handle(struct f_req *q)
{
	long r;
	q->out = 0;
	switch (q->op) {
	case FUL_FS_OP_LOOKUP: r = f_lookup(q); break;
	case FUL_FS_OP_STAT: r = f_stat(q); break;
	case FUL_FS_OP_READ: r = f_read(q); break;
	case FUL_FS_OP_WRITE: r = f_write(q); break;
	case FUL_FS_OP_RENAME: r = f_rename(q); break;
	case FUL_FS_OP_CREATE:
	case FUL_FS_OP_MKDIR:
	case FUL_FS_OP_UNLINK:
	case FUL_FS_OP_RMDIR: r = f_name_op(q); break;
	case FUL_FS_OP_TRUNCATE:
		r = f_omf_busy((uint32_t)q->mr[0])
			    ? -EBUSY /* its client resizes it (OMF_RESIZE) */
			    : ext2_truncate(&f_fs, (uint32_t)q->mr[0], q->mr[1]);
		break;
	case FUL_FS_OP_READDIR: r = f_readdir(q); break;
	case FUL_FS_OP_INFO: {
		struct ful_sysinfo si;
		r = ful_sysinfo(&si);
		/* in blocks of 4 KiB (the device's), whatever ext2's are */
		q->mr[1] = si.cpu, q->mr[2] = f_fs.blocks >> f_fs.dshift;
		q->mr[3] = f_fs.free_blocks >> f_fs.dshift;
		break;
	}
	case FUL_FS_OP_SYNC: r = f_sync(); break;
	case FUL_FS_OP_SYMLINK:
	case FUL_FS_OP_LINK: r = f_link_op(q); break;
	case FUL_FS_OP_READLINK: r = f_readlink(q); break;
	default: r = -EINVAL;
	}
	if (r == -EIO) /* a damaged image or a failed disk: say where */
		printf("fs: I/O error (op %u): %s\n", q->op, f_fs.why);
	q->mr[0] = (unsigned long)r;
}
