/*
 * OMF, the On-Memory File (paper 002 II.D), F's side: a file's blocks
 * mapped into a client with zero copy. B pins each block's cache line
 * (FUL_CACHE_OP_PIN) and F, which holds B's lines frame, puts the line
 * into ring k's page window (FUL_SYS_PWIN_SET); the client maps that
 * window at FUL_FSR_CLIENT_OMF_VADDR, so it reads and writes B's cache
 * itself. F never holds the client's address space: the window is the
 * only thing it can change there.
 *
 * Per ring: the file, whether the mapping is writable, and each window
 * page's block (0: a hole or past the end, shown as F's zero page when
 * read-only, left empty when writable until a RESIZE gives it a block).
 * Writable mappings fill holes at the map (ext2 counts the blocks; the
 * size stays), so every page below the size has a block of its own.
 *
 * While a file is mapped, nobody cuts or unlinks it (EBUSY): its blocks
 * could go to another file while the client still writes their lines.
 * F's own copy of blocks (ext2_b.c) never holds a block mapped writable.
 * Everything here runs under f_lock.
 *
 * A window page is one of B's lines, a 4 KiB device block, which is a
 * file's block only when ext2's blocks are 4 KiB too: on a file system
 * of 1 or 2 KiB blocks OMF_MAP is -ENOTSUP (reads and writes serve it).
 * A writable mapping on a read-only mount is -EROFS.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/fs.h>

#include "ext2_int.h"
#include "f.h"

static struct {
	uint32_t ino;     /* 0: no mapping */
	bool rw;
	unsigned pages;   /* window pages in use */
	uint64_t first;   /* file page of window page 0 */
	uint32_t blk[FUL_FSR_OMF_PAGES]; /* 0: no block (zero or empty) */
} omf[FUL_FSR_MAX];

static unsigned rw_pins; /* blocks mapped writable, over all rings */
static unsigned all_pins; /* blocks mapped, writable or not */

/** A pin operation of B on @blk: 0 or -EIO/-ENOMEM; PIN's line in @line. */
static long omf_b(unsigned op, uint32_t blk, unsigned long *line)
{
	unsigned long r[4];
	long err = ext2_b_req(&f_b, op, blk, r);
	if (err == -FUL_ENOMEM)
		return -ENOMEM;
	if (err)
		return -EIO;
	if (line)
		*line = r[1];
	return 0;
}

static unsigned omf_win(unsigned k)
{
	return FUL_FSR_F_SLOT_WIN + k;
}

bool f_omf_busy(uint32_t ino)
{
	for (unsigned k = 0; ino && k < FUL_FSR_MAX; k++)
		if (omf[k].ino == ino)
			return true;
	return false;
}

/** Is @blk mapped by some ring (@rw_only: writable)? @pins: how many
 *  such mappings there are (0: no look). */
static bool omf_holds(uint32_t blk, bool rw_only, unsigned pins)
{
	for (unsigned k = 0; pins && k < FUL_FSR_MAX; k++)
		for (unsigned i = 0; (omf[k].rw || !rw_only) && i < omf[k].pages;
		     i++)
			if (omf[k].blk[i] == blk)
				return true;
	return false;
}

bool f_omf_holds(uint32_t blk)
{
	return omf_holds(blk, false, all_pins);
}

bool f_omf_holds_rw(uint32_t blk)
{
	return omf_holds(blk, true, rw_pins);
}

/** Empty window page @i of ring @k, letting go of its block. */
static void omf_page_drop(unsigned k, unsigned i)
{
	ful_pwin_set(omf_win(k), i, 0, 0, 0);
	if (omf[k].blk[i]) {
		omf_b(FUL_CACHE_OP_UNPIN, omf[k].blk[i], NULL);
		all_pins--;
		if (omf[k].rw)
			rw_pins--;
	}
	omf[k].blk[i] = 0;
}

/** Window page @i of ring @k: block @blk pinned and mapped (@blk 0: the
 *  zero page, read-only). */
static long omf_page_set(unsigned k, unsigned i, uint32_t blk)
{
	if (!blk)
		return ful_pwin_set(omf_win(k), i, FUL_FSR_F_SLOT_ZERO, 0,
				    FUL_R_READ) < 0 ? -EIO : 0;
	unsigned long line;
	long err = omf_b(FUL_CACHE_OP_PIN, blk, &line);
	if (err)
		return err;
	unsigned r = FUL_R_READ | (omf[k].rw ? FUL_R_WRITE : 0);
	if (ful_pwin_set(omf_win(k), i, FUL_FSR_F_SLOT_LINES, line, r) < 0) {
		omf_b(FUL_CACHE_OP_UNPIN, blk, NULL);
		return -EIO;
	}
	omf[k].blk[i] = blk;
	all_pins++;
	if (omf[k].rw) {
		rw_pins++;
		ext2_b_forget(&f_b, blk); /* the line is the only copy now */
	}
	return 0;
}

/** The block of file page @fb of @ino (@in), allocated and zeroed when
 *  @alloc and there is none: the block, 0 (a hole), or -errno. */
static long omf_block(uint32_t ino, struct ext2_inode *in, uint64_t fb,
		      bool alloc)
{
	if (fb > UINT32_MAX)
		return -EFBIG;
	long blk = ext2_bmap(&f_fs, ino, in, (uint32_t)fb, false);
	if (blk != 0 || !alloc)
		return blk;
	blk = ext2_bmap(&f_fs, ino, in, (uint32_t)fb, true);
	if (blk > 0) {
		int err = ext2_bwrite(&f_fs, (uint32_t)blk, f_fs.zero);
		if (!err)
			err = ext2_iput(&f_fs, ino, in); /* blocks, pointers */
		if (err)
			return err;
	}
	return blk;
}

/** Map window pages [@from, @to) of ring @k over the file as it is. */
static long omf_fill(unsigned k, unsigned from, unsigned to)
{
	struct ext2_inode in;
	long err = ext2_iget(&f_fs, omf[k].ino, &in);
	for (unsigned i = from; !err && i < to; i++) {
		if (omf[k].blk[i])
			continue; /* mapped already (a RESIZE that grows) */
		uint64_t fb = omf[k].first + i;
		bool inside = fb * EXT2_BLOCK < in.size;
		if (!inside && omf[k].rw)
			continue; /* empty until a RESIZE */
		long blk = inside ? omf_block(omf[k].ino, &in, fb, omf[k].rw) : 0;
		err = blk < 0 ? blk : omf_page_set(k, i, (uint32_t)blk);
	}
	return err;
}

void f_omf_unmap(unsigned k)
{
	for (unsigned i = 0; i < omf[k].pages; i++)
		omf_page_drop(k, i);
	omf[k].ino = 0;
	omf[k].pages = 0;
}

/** OMF_MAP mr0 ino, mr1 first page, mr2 pages | FUL_FS_OMF_RW. */
static long omf_map(unsigned k, struct f_req *q)
{
	uint32_t ino = (uint32_t)q->mr[0];
	uint64_t first = q->mr[1], pages = q->mr[2] & ~FUL_FS_OMF_RW;
	struct ext2_stat st;
	if (!pages || pages > FUL_FSR_OMF_PAGES || first > (1UL << 30))
		return -EINVAL;
	if (f_fs.bsize != EXT2_BLOCK)
		return -ENOTSUP; /* a page would hold several file blocks */
	if (f_fs.rdonly && (q->mr[2] & FUL_FS_OMF_RW))
		return -EROFS;
	long err = ext2_stat(&f_fs, ino, &st);
	if (err)
		return err;
	if ((st.mode & EXT2_S_IFMT) != EXT2_S_IFREG)
		return -EISDIR;
	f_omf_unmap(k);
	omf[k].ino = ino, omf[k].first = first, omf[k].pages = (unsigned)pages;
	omf[k].rw = (q->mr[2] & FUL_FS_OMF_RW) != 0;
	err = omf_fill(k, 0, (unsigned)pages);
	if (err) {
		f_omf_unmap(k);
		return err;
	}
	q->mr[1] = st.size;
	return 0;
}

/** OMF_RESIZE mr0 the new size: blocks for the new pages, or the pages
 *  past it let go and the file cut. */
static long omf_resize(unsigned k, uint64_t size)
{
	if (!omf[k].ino || !omf[k].rw)
		return -EBADF;
	uint64_t base = omf[k].first * EXT2_BLOCK;
	if (size < base || size - base > (uint64_t)omf[k].pages * EXT2_BLOCK)
		return -EFBIG;
	struct ext2_stat st;
	long err = ext2_stat(&f_fs, omf[k].ino, &st);
	if (err)
		return err;
	unsigned keep = (unsigned)((size - base + EXT2_BLOCK - 1) / EXT2_BLOCK);
	for (unsigned i = keep; size < st.size && i < omf[k].pages; i++)
		omf_page_drop(k, i);
	err = ext2_truncate(&f_fs, omf[k].ino, size);
	return err ? err : omf_fill(k, 0, keep);
}

/** OMF_SYNC mr0 size, mr1 the pages the client wrote: B writes those
 *  back at its next SYNC; the size set if it differs; mtime and ctime. */
static long omf_sync(unsigned k, struct f_req *q)
{
	if (!omf[k].ino)
		return -EINVAL;
	struct ext2_stat st;
	long err = ext2_stat(&f_fs, omf[k].ino, &st);
	if (!err && st.size != q->mr[0])
		err = omf_resize(k, q->mr[0]);
	for (unsigned i = 0; !err && i < omf[k].pages; i++)
		if ((q->mr[1] >> i & 1) && omf[k].blk[i])
			err = omf[k].rw ? omf_b(FUL_CACHE_OP_DIRTY, omf[k].blk[i],
						NULL)
					: -EBADF;
	struct ext2_inode in;
	if (!err && q->mr[1] && !(err = ext2_iget(&f_fs, omf[k].ino, &in))) {
		in.mtime = in.ctime = ext2_now(&f_fs);
		err = ext2_iput(&f_fs, omf[k].ino, &in);
	}
	return err;
}

void f_omf_handle(unsigned k, struct f_req *q)
{
	long r;
	switch (q->op) {
	case FUL_FS_OP_OMF_MAP: r = omf_map(k, q); break;
	case FUL_FS_OP_OMF_SYNC: r = omf_sync(k, q); break;
	case FUL_FS_OP_OMF_RESIZE: r = omf_resize(k, q->mr[0]); break;
	default: f_omf_unmap(k), r = 0; break;
	}
	q->mr[0] = (unsigned long)r;
}

long f_omf_init(void)
{
	long err = ful_frame_create(FUL_FSR_F_SLOT_POOL, FUL_FSR_F_SLOT_ZERO, 1);
	return err < 0 ? err : 0;
}
