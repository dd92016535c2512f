/*
 * File descriptors of the POSIX layer (<ful/posix.h>): a table in the
 * process, 0..2 the console, the others files and directories of F
 * named by inode. The table's lock is held across each call, so that
 * threads sharing a descriptor see its offset move atomically.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"
#include "posix_int.h"

static struct px_file files[FUL_OPEN_MAX] = {
	{PX_CONS_IN, O_RDONLY, 0, 0},
	{PX_CONS_OUT, O_WRONLY, 0, 0},
	{PX_CONS_OUT, O_WRONLY, 0, 0},
};
static struct ful_spin files_lock;

struct px_file *px_get(int fd)
{
	ful_spin_lock(&files_lock);
	if (fd < 0 || fd >= FUL_OPEN_MAX || files[fd].kind == PX_FREE) {
		ful_spin_unlock(&files_lock);
		errno = EBADF;
		return NULL;
	}
	return &files[fd];
}

void px_put(void)
{
	ful_spin_unlock(&files_lock);
}

int px_install(const struct px_file *f)
{
	int fd = -EMFILE;
	ful_spin_lock(&files_lock);
	for (int i = 0; i < FUL_OPEN_MAX; i++)
		if (files[i].kind == PX_FREE) {
			files[i] = *f;
			fd = i;
			break;
		}
	ful_spin_unlock(&files_lock);
	return fd;
}

/** The inode @path names, created if @flags ask: 0 and *@st, or -errno. */
static int open_inode(const char *path, int flags, struct ful_fs_stat *st)
{
	int err = px_lookup(path, st);
	if (!err && (flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if (err != -ENOENT || !(flags & O_CREAT))
		return err;
	char buf[FUL_PATH_MAX + 1];
	const char *name;
	size_t len;
	uint32_t dir, ino;
	if ((err = px_parent(path, buf, &dir, &name, &len)))
		return err;
	long r = px_name_op(FUL_FS_OP_CREATE, dir, name, len, &ino);
	if (r == -EEXIST && !(flags & O_EXCL)) /* made by another meanwhile */
		return px_lookup(path, st);
	if (r < 0)
		return (int)r;
	*st = (struct ful_fs_stat){.ino = ino, .mode = S_IFREG | 0644, .links = 1};
	return 0;
}

int open(const char *path, int flags, ...)
{
	struct ful_fs_stat st;
	int acc = flags & O_ACCMODE;
	int err = open_inode(path, flags, &st);
	if (!err && S_ISDIR(st.mode) && (acc != O_RDONLY || (flags & O_TRUNC)))
		err = -EISDIR;
	if (!err && (flags & O_TRUNC) && acc != O_RDONLY && st.size)
		err = (int)px_simple(FUL_FS_OP_TRUNCATE, st.ino, 0);
	if (err)
		return px_fail(err);
	struct px_file f = {S_ISDIR(st.mode) ? PX_DIR : PX_FILE,
			    flags & (O_ACCMODE | O_APPEND), st.ino, 0};
	int fd = px_install(&f);
	return fd < 0 ? px_fail(fd) : fd;
}

int close(int fd)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	f->kind = PX_FREE;
	px_put();
	return 0;
}

/** A request with no data: mr0 @a, mr1 @b; its mr0. */
long px_simple(unsigned op, unsigned long a, unsigned long b)
{
	struct ful_msg m = {.mr = {a, b}};
	size_t cap;
	ful_fs_begin(&cap);
	long r = ful_fs_call(op, &m, 0);
	ful_fs_end();
	return r;
}

/** READ of up to @len bytes at @off into @buf, in pieces of the
 *  transport's buffer: bytes read (short at the end) or -errno. */
static long file_read(uint32_t ino, uint64_t off, void *buf, size_t len)
{
	size_t done = 0, cap;
	unsigned char *b = ful_fs_begin(&cap);
	long r = 0;
	while (done < len) {
		size_t n = len - done < cap ? len - done : cap;
		struct ful_msg m = {.mr = {ino, off + done, n}};
		if ((r = ful_fs_call(FUL_FS_OP_READ, &m, 0)) < 0)
			break;
		memcpy((char *)buf + done, b, (size_t)r);
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	}
	ful_fs_end();
	return r < 0 && !done ? r : (long)done;
}

/** WRITE of @len bytes at *@off (FUL_FS_APPEND: the end), *@off moved
 *  past them: bytes written or -errno. */
static long file_write(uint32_t ino, uint64_t *off, const void *buf,
		       size_t len, bool append)
{
	size_t done = 0, cap;
	unsigned char *b = ful_fs_begin(&cap);
	long r = 0;
	while (done < len) {
		size_t n = len - done < cap ? len - done : cap;
		memcpy(b, (const char *)buf + done, n);
		struct ful_msg m = {.mr = {ino, append ? FUL_FS_APPEND : *off}};
		if ((r = ful_fs_call(FUL_FS_OP_WRITE, &m, n)) < 0)
			break;
		*off = m.mr[1];
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	}
	ful_fs_end();
	return r < 0 && !done ? r : (long)done;
}

/** read/pread: @off NULL for the descriptor's offset. */
static ssize_t fd_read(int fd, void *buf, size_t len, const off_t *off)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	long r = -EBADF;
	if (f->kind == PX_CONS_IN)
		r = 0; /* no console input for programs yet: end of file */
	else if (f->kind == PX_DIR)
		r = -EISDIR;
	else if (f->kind == PX_FILE && (f->flags & O_ACCMODE) != O_WRONLY)
		r = file_read(f->ino, off ? (uint64_t)*off : f->off, buf, len);
	if (r > 0 && !off)
		f->off += (uint64_t)r;
	px_put();
	return r < 0 ? px_fail((int)r) : r;
}

/** write/pwrite: @off NULL for the descriptor's offset. */
static ssize_t fd_write(int fd, const void *buf, size_t len, const off_t *off)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	long r = -EBADF;
	if (f->kind == PX_CONS_OUT) {
		ful_stdio_flush();
		ful_debug_write(buf, len);
		r = (long)len;
	} else if (f->kind == PX_FILE && (f->flags & O_ACCMODE) != O_RDONLY) {
		uint64_t pos = off ? (uint64_t)*off : f->off;
		r = file_write(f->ino, &pos, buf, len,
			       !off && (f->flags & O_APPEND));
		if (r >= 0 && !off)
			f->off = pos;
	}
	px_put();
	return r < 0 ? px_fail((int)r) : r;
}

ssize_t read(int fd, void *buf, size_t len)
{
	return fd_read(fd, buf, len, NULL);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	return fd_write(fd, buf, len, NULL);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return off < 0 ? px_fail(-EINVAL) : fd_read(fd, buf, len, &off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return off < 0 ? px_fail(-EINVAL) : fd_write(fd, buf, len, &off);
}

/** F's attributes of the open file @f (table locked). */
static int file_stat(const struct px_file *f, struct ful_fs_stat *st)
{
	struct ful_msg m = {.mr = {f->ino}};
	size_t cap;
	unsigned char *b = ful_fs_begin(&cap);
	long r = ful_fs_call(FUL_FS_OP_STAT, &m, 0);
	if (r >= 0)
		memcpy(st, b, sizeof *st);
	ful_fs_end();
	return r < 0 ? (int)r : 0;
}

off_t lseek(int fd, off_t off, int whence)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	struct ful_fs_stat st = {0};
	int64_t base = 0;
	int err = f->kind == PX_FILE || f->kind == PX_DIR ? 0 : -ESPIPE;
	if (!err && whence == SEEK_CUR)
		base = (int64_t)f->off;
	else if (!err && whence == SEEK_END)
		err = file_stat(f, &st), base = (int64_t)st.size;
	else if (!err && whence != SEEK_SET)
		err = -EINVAL;
	if (!err && base + off < 0)
		err = -EINVAL;
	if (!err)
		f->off = (uint64_t)(base + off);
	off_t r = err ? px_fail(err) : (off_t)f->off;
	px_put();
	return r;
}

int ftruncate(int fd, off_t size)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	int err = -EINVAL;
	if (f->kind == PX_FILE && (f->flags & O_ACCMODE) != O_RDONLY &&
	    size >= 0) {
		err = (int)px_simple(FUL_FS_OP_TRUNCATE, f->ino,
				     (unsigned long)size);
	} else if (f->kind == PX_FILE && size >= 0) {
		err = -EBADF;
	}
	px_put();
	return err < 0 ? px_fail(err) : 0;
}

int fsync(int fd)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	int err = f->kind == PX_FILE || f->kind == PX_DIR
			  ? (int)px_simple(FUL_FS_OP_SYNC, 0, 0)
			  : 0;
	px_put();
	return err < 0 ? px_fail(err) : 0;
}

int fstat(int fd, struct stat *out)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	struct ful_fs_stat st = {.mode = S_IFCHR | 0620, .links = 1};
	int err = f->kind == PX_FILE || f->kind == PX_DIR ? file_stat(f, &st)
							   : 0;
	px_put();
	if (err)
		return px_fail(err);
	px_stat_fill(out, &st);
	return 0;
}

int isatty(int fd)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return 0;
	int tty = f->kind == PX_CONS_IN || f->kind == PX_CONS_OUT;
	px_put();
	if (!tty)
		errno = ENOTTY;
	return tty;
}
