/*
 * F, the file server of paper 002 (<fulcrum/fs.h>): the ext2 file
 * system of the disk (ext2.c, ext2_dir.c), its blocks read and written
 * through B, one block per request in page 0 of B's client window. One
 * thread, one request at a time; names and data through the IPC buffer
 * (the rings of issue 13 come next).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/fs.h>
#include <ful/ful.h>

#include "ext2_b.h"

#define F_WIN_VA 0x38000000UL

static struct ext2_fs fs;

static const struct ext2_b f_b = {FUL_FS_SLOT_CACHE,
				  (unsigned char *)F_WIN_VA, FUL_FOREVER};

/** The IPC buffer's bytes as a name of the request's length. */
static const char *f_name(const struct ful_msg *m, size_t *len)
{
	*len = FUL_MSG_LEN(m->info);
	return ful_ipcbuf();
}

/** Put @st in the reply: mr1..3 and a struct ful_fs_stat in the IPC
 *  buffer (its size in *@out). */
static void f_stat_out(const struct ext2_stat *st,
		       size_t *out)
{
	struct ful_fs_stat fst = {
		.ino = st->ino, .mode = st->mode, .links = st->links,
		.blocks = st->blocks, .size = st->size, .atime = st->atime,
		.mtime = st->mtime, .ctime = st->ctime,
	};
	memcpy(ful_ipcbuf(), &fst, sizeof fst);
	*out = sizeof fst;
}

/** Lookup: a NUL-terminated copy of the path, then ext2_namei. */
static long f_lookup(struct ful_msg *m, size_t *out)
{
	static char path[FUL_IPCBUF_SIZE + 1];
	size_t len;
	memcpy(path, f_name(m, &len), len);
	path[len] = 0;
	uint32_t ino;
	struct ext2_stat st;
	long err = ext2_namei(&fs, path, &ino);
	if (!err)
		err = ext2_stat(&fs, ino, &st);
	if (!err) {
		m->mr[1] = ino, m->mr[2] = st.mode, m->mr[3] = st.size;
		f_stat_out(&st, out);
	}
	return err;
}

static long f_stat(struct ful_msg *m, size_t *out)
{
	struct ext2_stat st;
	long err = ext2_stat(&fs, (uint32_t)m->mr[0], &st);
	if (!err) {
		m->mr[1] = st.mode, m->mr[2] = st.size, m->mr[3] = st.links;
		f_stat_out(&st, out);
	}
	return err;
}

/** WRITE at mr1, or at the end for FUL_FS_APPEND; mr1 the offset past
 *  the bytes written. */
static long f_write(struct ful_msg *m, size_t len)
{
	uint32_t ino = (uint32_t)m->mr[0];
	uint64_t off = m->mr[1];
	if (off == FUL_FS_APPEND) {
		struct ext2_stat st;
		long err = ext2_stat(&fs, ino, &st);
		if (err)
			return err;
		off = st.size;
	}
	long r = ext2_write(&fs, ino, off, ful_ipcbuf(), len);
	m->mr[1] = r > 0 ? off + (uint64_t)r : off;
	return r;
}

/** RENAME: the two names follow each other in the IPC buffer. */
static long f_rename(struct ful_msg *m, size_t len)
{
	const char *b = ful_ipcbuf();
	size_t flen = m->mr[2];
	if (flen > len)
		return -EINVAL;
	return ext2_rename(&fs, (uint32_t)m->mr[0], b, flen,
			   (uint32_t)m->mr[1], b + flen, len - flen);
}

/* READDIR: entries packed into the IPC buffer while they fit. */
struct f_rd {
	unsigned char *buf;
	size_t used;
	unsigned count;
};

static int f_rd_fn(void *arg, const char *name, size_t len, uint32_t ino,
		   unsigned type)
{
	struct f_rd *r = arg;
	if (r->used + 6 + len > FUL_IPCBUF_SIZE)
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
static long f_readdir(struct ful_msg *m, size_t *out)
{
	struct f_rd r = {ful_ipcbuf(), 0, 0};
	uint64_t pos = m->mr[1];
	int err = ext2_readdir(&fs, (uint32_t)m->mr[0], &pos, f_rd_fn, &r);
	if (err < 0)
		return err;
	m->mr[1] = pos;
	*out = r.used;
	return r.count;
}

/** Run one request in @m; the reply goes back in @m (mr0 the result,
 *  the length that of the data read into the IPC buffer). */
static void f_handle(struct ful_msg *m)
{
	size_t len, out = 0;
	const char *name = f_name(m, &len);
	uint32_t ino, a = (uint32_t)m->mr[0];
	long r;
	switch (FUL_MSG_LABEL(m->info)) {
	case FUL_FS_OP_LOOKUP: r = f_lookup(m, &out); break;
	case FUL_FS_OP_STAT: r = f_stat(m, &out); break;
	case FUL_FS_OP_READ:
		r = m->mr[2] > FUL_IPCBUF_SIZE
			    ? -EINVAL
			    : ext2_read(&fs, a, m->mr[1], ful_ipcbuf(), m->mr[2]);
		out = r > 0 ? (size_t)r : 0;
		break;
	case FUL_FS_OP_WRITE: r = f_write(m, len); break;
	case FUL_FS_OP_RENAME: r = f_rename(m, len); break;
	case FUL_FS_OP_CREATE:
	case FUL_FS_OP_MKDIR:
		r = FUL_MSG_LABEL(m->info) == FUL_FS_OP_CREATE
			    ? ext2_create(&fs, a, name, len, 0644, &ino)
			    : ext2_mkdir(&fs, a, name, len, 0755, &ino);
		m->mr[1] = r ? 0 : ino;
		break;
	case FUL_FS_OP_UNLINK: r = ext2_unlink(&fs, a, name, len); break;
	case FUL_FS_OP_RMDIR: r = ext2_rmdir(&fs, a, name, len); break;
	case FUL_FS_OP_TRUNCATE: r = ext2_truncate(&fs, a, m->mr[1]); break;
	case FUL_FS_OP_READDIR: r = f_readdir(m, &out); break;
	case FUL_FS_OP_INFO: {
		struct ful_sysinfo si;
		r = ful_sysinfo(&si);
		m->mr[1] = si.cpu, m->mr[2] = fs.blocks, m->mr[3] = fs.free_blocks;
		break;
	}
	case FUL_FS_OP_SYNC:
		r = ext2_sync(&fs);
		if (!r)
			r = ext2_b_call(&f_b, FUL_CACHE_OP_SYNC, 0);
		break;
	default: r = -EINVAL;
	}
	m->mr[0] = (unsigned long)r;
	m->info = FUL_MSG(FUL_MSG_LABEL(m->info), out);
}

int main(void)
{
	const struct ext2_dev dev = {ext2_b_read, ext2_b_write, ext2_b_now,
				     (void *)&f_b};
	long err = ful_map(FUL_CHILD_SLOT_VS, FUL_FS_SLOT_CACHE_WIN, F_WIN_VA,
			   FUL_R_READ | FUL_R_WRITE);
	if (!err && (err = ext2_mount(&fs, &dev)))
		printf("fs: cannot mount the disk: %s (%ld)\n", fs.why, err);
	struct ful_msg m = {.info = FUL_MSG(FUL_FS_READY, 0),
			    .mr = {(unsigned long)err}};
	ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
	if (err)
		return 1;
	printf("fs: ext2 mounted: %u blocks, %u inodes\n", fs.blocks,
	       fs.inodes);
	if (ful_recv(FUL_FS_SLOT_EP, &m, FUL_FOREVER) < 0)
		return 1;
	for (;;) {
		f_handle(&m);
		if (ful_reply_recv(FUL_FS_SLOT_EP, &m, FUL_FOREVER) < 0 &&
		    ful_recv(FUL_FS_SLOT_EP, &m, FUL_FOREVER) < 0)
			return 1;
	}
}
