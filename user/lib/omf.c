/*
 * OMF, the On-Memory File (paper 002 II.D; <ful/posix.h>): a file's
 * blocks as memory with no server on the path: F puts B's cache lines
 * of the file into this process's page window (FUL_FSR_CLIENT_OMF_VADDR,
 * <fulcrum/fs.h>), so a read or write here touches B's cache itself,
 * zero copy. Growing or cutting the file goes through F (OMF_RESIZE:
 * new blocks, or pages let go); ful_omf_sync() tells F which pages were
 * written, and B writes them back at its next SYNC (fsync). One mapping
 * per process, at most FUL_FSR_OMF bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <fulcrum/fs.h>
#include <ful/posix.h>

#include "posix_int.h"

/** An OMF request through the ring: mr0, the reply in *@m. */
static long omf_call(unsigned op, struct ful_msg *m)
{
	size_t cap;
	ful_fs_begin(&cap); /* the ring's cap: OMF needs the ring */
	long r = cap == FUL_FSR_DATA ? ful_fs_call(op, m, 0) : -ENOSYS;
	ful_fs_end();
	return r;
}

int ful_omf_map(int fd, size_t max, struct ful_omf *o)
{
	struct px_file *f = px_get(fd);
	if (!f)
		return -1;
	uint32_t ino = f->ino;
	bool ok = f->kind == PX_FILE;
	bool rw = (f->flags & O_ACCMODE) != O_RDONLY;
	px_put();
	if (!ok)
		return px_fail(-EINVAL);
	if (max == 0 || max > FUL_FSR_OMF)
		return px_fail(-EFBIG);
	unsigned long pages = (max + 4095) / 4096;
	struct ful_msg m = {.mr = {ino, 0, pages | (rw ? FUL_FS_OMF_RW : 0)}};
	long r = omf_call(FUL_FS_OP_OMF_MAP, &m);
	if (r < 0)
		return px_fail((int)r);
	if (!ful_fs_omf_window()) {
		omf_call(FUL_FS_OP_OMF_UNMAP, &(struct ful_msg){0});
		return px_fail(-ENOSYS);
	}
	*o = (struct ful_omf){
		.base = ful_fs_omf_window(), .size = m.mr[1],
		.room = pages * 4096, .dirty = 0, .writable = rw,
	};
	return 0;
}

void ful_omf_dirty(struct ful_omf *o, size_t off, size_t len)
{
	for (size_t p = off / 4096; len && p * 4096 < off + len && p < 64; p++)
		o->dirty |= 1UL << p;
}

int ful_omf_resize(struct ful_omf *o, size_t size)
{
	if (!o->writable)
		return px_fail(-EBADF);
	if (size > o->room || o->size > o->room) /* all of it in the window */
		return px_fail(-EFBIG);
	size_t end = (o->size + 4095) & ~(size_t)4095;
	if (size > o->size && o->size < end) { /* the last page's tail */
		size_t n = (size < end ? size : end) - o->size;
		memset(o->base + o->size, 0, n);
		ful_omf_dirty(o, o->size, n);
	}
	struct ful_msg m = {.mr = {size}};
	long r = omf_call(FUL_FS_OP_OMF_RESIZE, &m);
	if (r < 0)
		return px_fail((int)r);
	o->size = size;
	return 0;
}

int ful_omf_sync(struct ful_omf *o)
{
	if (!o->writable)
		return o->dirty ? px_fail(-EBADF) : 0;
	struct ful_msg m = {.mr = {o->size, o->dirty}};
	long r = omf_call(FUL_FS_OP_OMF_SYNC, &m);
	if (r < 0)
		return px_fail((int)r);
	o->dirty = 0;
	return 0;
}

int ful_omf_unmap(struct ful_omf *o)
{
	int err = o->dirty ? ful_omf_sync(o) : 0;
	struct ful_msg m = {0};
	omf_call(FUL_FS_OP_OMF_UNMAP, &m);
	o->base = NULL;
	return err;
}
