/*
 * The POSIX layer's link to F, the file server, and its paths
 * (<ful/posix.h>): one call per request through the IPC buffer, the
 * working directory, and the path calls that need no descriptor (stat,
 * mkdir, rmdir, unlink, rename, chdir, getcwd).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ful/posix.h>

#include "lib.h"
#include "posix_int.h"

static char cwd[FUL_PATH_MAX + 1] = "/";
static struct ful_spin cwd_lock;

long ful_path_abs(const char *path, char out[FUL_PATH_MAX + 1])
{
	size_t n = strlen(path), c = 0;
	if (!n)
		return -ENOENT;
	ful_spin_lock(&cwd_lock);
	if (path[0] != '/') {
		c = strlen(cwd);
		memcpy(out, cwd, c);
		if (out[c - 1] != '/')
			out[c++] = '/';
	}
	ful_spin_unlock(&cwd_lock);
	if (c + n > FUL_PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(out + c, path, n + 1);
	return (long)(c + n);
}

/** LOOKUP @path: 0 and its attributes in *@st, or -errno. */
int px_lookup(const char *path, struct ful_fs_stat *st)
{
	char abs[FUL_PATH_MAX + 1];
	long n = ful_path_abs(path, abs);
	if (n < 0)
		return (int)n;
	struct ful_msg m = {0};
	size_t cap;
	unsigned char *b = ful_fs_begin(&cap);
	memcpy(b, abs, (size_t)n);
	long r = ful_fs_call(FUL_FS_OP_LOOKUP, &m, (size_t)n);
	if (r >= 0)
		memcpy(st, b, sizeof *st);
	ful_fs_end();
	return r < 0 ? (int)r : 0;
}

/** Split @path into its directory's inode (*@dir) and its last name
 *  (*@name, *@len bytes, inside @buf). -errno if the directory is not
 *  there or not a directory, or the name is "", "." or "..". */
int px_parent(const char *path, char buf[FUL_PATH_MAX + 1], uint32_t *dir,
	      const char **name, size_t *len)
{
	long n = ful_path_abs(path, buf);
	if (n < 0)
		return (int)n;
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0; /* "a/b/" names b */
	char *slash = strrchr(buf, '/');
	*name = slash + 1;
	*len = strlen(slash + 1);
	if (*len == 0 || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return -EINVAL;
	if (*len > 255)
		return -ENAMETOOLONG;
	char keep = slash[1];
	slash[1] = 0; /* the directory's path, "/" included */
	struct ful_fs_stat st;
	int err = px_lookup(buf, &st);
	slash[1] = keep;
	if (err)
		return err;
	if (!S_ISDIR(st.mode))
		return -ENOTDIR;
	*dir = st.ino;
	return 0;
}

/** A request naming @name in directory @dir; mr1 into *@ino if asked. */
long px_name_op(unsigned op, uint32_t dir, const char *name, size_t len,
		uint32_t *ino)
{
	struct ful_msg m = {.mr = {dir}};
	size_t cap;
	memcpy(ful_fs_begin(&cap), name, len);
	long r = ful_fs_call(op, &m, len);
	ful_fs_end();
	if (r >= 0 && ino)
		*ino = (uint32_t)m.mr[1];
	return r;
}

/** Fill the POSIX stat record from F's. */
void px_stat_fill(struct stat *out, const struct ful_fs_stat *st)
{
	memset(out, 0, sizeof *out);
	out->st_ino = st->ino;
	out->st_mode = st->mode;
	out->st_nlink = st->links;
	out->st_size = (off_t)st->size;
	out->st_blksize = 4096;
	out->st_blocks = st->blocks;
	out->st_atime = st->atime;
	out->st_mtime = st->mtime;
	out->st_ctime = st->ctime;
}

int stat(const char *restrict path, struct stat *restrict out)
{
	struct ful_fs_stat st;
	int err = px_lookup(path, &st);
	if (err)
		return px_fail(err);
	px_stat_fill(out, &st);
	return 0;
}

/** mkdir, rmdir and unlink: one request on the parent directory. */
static int px_dir_op(unsigned op, const char *path)
{
	char buf[FUL_PATH_MAX + 1];
	const char *name;
	size_t len;
	uint32_t dir;
	int err = px_parent(path, buf, &dir, &name, &len);
	if (!err)
		err = (int)px_name_op(op, dir, name, len, NULL);
	return err < 0 ? px_fail(err) : 0;
}

int mkdir(const char *path, mode_t mode)
{
	(void)mode; /* F makes directories 0755 */
	return px_dir_op(FUL_FS_OP_MKDIR, path);
}

int rmdir(const char *path)
{
	return px_dir_op(FUL_FS_OP_RMDIR, path);
}

int unlink(const char *path)
{
	return px_dir_op(FUL_FS_OP_UNLINK, path);
}

int rename(const char *from, const char *to)
{
	char fb[FUL_PATH_MAX + 1], tb[FUL_PATH_MAX + 1];
	const char *fname, *tname;
	size_t flen, tlen;
	uint32_t fdir, tdir;
	int err = px_parent(from, fb, &fdir, &fname, &flen);
	if (!err)
		err = px_parent(to, tb, &tdir, &tname, &tlen);
	if (err)
		return px_fail(err);
	struct ful_msg m = {.mr = {fdir, tdir, flen}};
	size_t cap;
	unsigned char *b = ful_fs_begin(&cap);
	long r = -ENAMETOOLONG;
	if (flen + tlen <= cap) {
		memcpy(b, fname, flen);
		memcpy(b + flen, tname, tlen);
		r = ful_fs_call(FUL_FS_OP_RENAME, &m, flen + tlen);
	}
	ful_fs_end();
	return r < 0 ? px_fail((int)r) : 0;
}

int chdir(const char *path)
{
	char abs[FUL_PATH_MAX + 1];
	struct ful_fs_stat st;
	long n = ful_path_abs(path, abs);
	int err = n < 0 ? (int)n : px_lookup(abs, &st);
	if (!err && !S_ISDIR(st.mode))
		err = -ENOTDIR;
	if (err)
		return px_fail(err);
	px_path_clean(abs);
	ful_spin_lock(&cwd_lock);
	strcpy(cwd, abs);
	ful_spin_unlock(&cwd_lock);
	return 0;
}

char *getcwd(char *buf, size_t size)
{
	ful_spin_lock(&cwd_lock);
	size_t n = strlen(cwd);
	bool fits = buf && size > n;
	if (fits)
		memcpy(buf, cwd, n + 1);
	ful_spin_unlock(&cwd_lock);
	if (!fits) {
		errno = buf ? ERANGE : EINVAL;
		return NULL;
	}
	return buf;
}

void ful_posix_init(const struct ful_proc_args *args)
{
	if (args && args->cwd[0] == '/')
		strncpy(cwd, args->cwd, sizeof cwd - 1);
}

/** Rewrite absolute @path without ".", ".." and repeated slashes (the
 *  directories are known to exist: there are no symbolic links). */
void px_path_clean(char *path)
{
	char *out = path, *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if ((n == 1 && p[0] == '.') || n == 0) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, p, n);
			out += n;
		}
		p += n;
	}
	if (out == path)
		*out++ = '/';
	*out = 0;
}
