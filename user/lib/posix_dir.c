/*
 * opendir/readdir/closedir over F's READDIR (<fulcrum/fs.h>): a DIR
 * holds a descriptor of the directory and one reply's worth of entries.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "posix_int.h"

struct ful_dir {
	int fd;
	uint32_t ino;
	uint64_t next;     /* F's position after the entries held */
	unsigned left;     /* entries not yet returned */
	size_t at;         /* offset of the next one in buf */
	bool end;
	unsigned char buf[FUL_IPCBUF_SIZE];
	struct dirent ent;
};

DIR *opendir(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct px_file *f = px_get(fd);
	bool dir = f && f->kind == PX_DIR;
	uint32_t ino = f ? f->ino : 0;
	if (f)
		px_put();
	DIR *d = dir ? calloc(1, sizeof *d) : NULL;
	if (!d) {
		close(fd);
		errno = dir ? ENOMEM : ENOTDIR;
		return NULL;
	}
	d->fd = fd;
	d->ino = ino;
	return d;
}

/** The next batch of entries from F: false at the end or on error. */
static bool dir_fill(DIR *d)
{
	if (d->end)
		return false;
	struct ful_msg m = {.mr = {d->ino, d->next}};
	size_t cap;
	unsigned char *b = ful_fs_begin(&cap);
	long r = ful_fs_call(FUL_FS_OP_READDIR, &m, 0);
	size_t n = FUL_MSG_LEN(m.info);
	if (r > 0 && n <= sizeof d->buf)
		memcpy(d->buf, b, n);
	ful_fs_end();
	if (r <= 0 || n > sizeof d->buf) {
		d->end = true;
		if (r < 0)
			errno = (int)-r;
		return false;
	}
	d->next = m.mr[1];
	d->left = (unsigned)r;
	d->at = 0;
	return true;
}

struct dirent *readdir(DIR *d)
{
	if (!d->left && !dir_fill(d))
		return NULL;
	const unsigned char *e = d->buf + d->at;
	unsigned len = e[5];
	d->ent.d_ino = (ino_t)(e[0] | e[1] << 8 | e[2] << 16 |
			       (uint32_t)e[3] << 24);
	d->ent.d_type = e[4] == 2 ? DT_DIR : e[4] == 1 ? DT_REG : DT_UNKNOWN;
	memcpy(d->ent.d_name, e + 6, len);
	d->ent.d_name[len] = 0;
	d->at += 6 + len;
	d->left--;
	return &d->ent;
}

void rewinddir(DIR *d)
{
	d->next = 0, d->left = 0, d->end = false;
}

int closedir(DIR *d)
{
	int r = close(d->fd);
	free(d);
	return r;
}
