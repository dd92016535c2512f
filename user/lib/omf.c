/*
 * OMF, the On-Memory File (paper 002 II.D; <ful/posix.h>): a file's
 * blocks in the OMF window of this process's ring to F (<fulcrum/fsring.h>),
 * read and written as memory with no server on the path; its size can
 * grow or shrink within the window; ful_omf_sync() has F write the pages
 * marked dirty back and set the size (and so mtime and ctime).
 *
 * The blocks are copied once, at the map, from F's and B's caches into
 * the window (AnT maps the cache pages themselves; Fulcrum's window is
 * memory F and the client share, set up with the ring). One mapping per
 * process, at most FUL_FSR_OMF bytes; others reading the file through F
 * see the client's writes once they are synced.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <fulcrum/fsring.h>
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
	struct ful_msg m = {.mr = {ino, 0, pages}};
	long r = omf_call(FUL_FS_OP_OMF_MAP, &m);
	if (r < 0)
		return px_fail((int)r);
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
	if (size > o->size) /* the new part reads as zeros */
		memset(o->base + o->size, 0, size - o->size);
	else if (size < o->size && size % 4096) /* the cut page's tail */
		ful_omf_dirty(o, size, 1);
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
