/*
 * F's ext2 code (user/servers/fs/ext2*.c) on the guest, over the real
 * storage stack: its blocks go through B, the block cache server, and D,
 * the virtio-blk driver, to an image the harness made with mke2fs
 * (--ext2-suite, tests/harness/ext2_image.py: the files and patterns
 * below). F is not yet a server of its own: this test links its code
 * and mounts the disk itself, one block per request to B.
 *
 *   fs_ext2_over_b  mounts, reads the host's files byte for byte
 *                   (direct and indirect blocks, a subdirectory), writes
 *                   /made.bin (200,000 bytes) and /newdir/n.txt, reads
 *                   them back, syncs (ext2's counts, then B's dirty
 *                   lines, then D). The harness then runs e2fsck -fn on
 *                   the image and reads both files with debugfs.
 *   fs_server       the same through F, the file server (boot argument
 *                   fs; <fulcrum/fs.h>), 512 bytes a request: this test
 *                   is F's client, F is B's. With form=N, F must run on
 *                   its core of paper 002's Table I.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/cache.h>
#include <fulcrum/fs.h>
#include <ful/chan.h>

#include "user/servers/fs/ext2_b.h"
#include "utest.h"

#define FS_WIN_VA 0x5a000000UL /* B's client window, mapped here */

static struct ful_chan fs_chan = {.ep = FUL_SYSPROG_SLOT_CACHE,
				  .timeout_us = UT_TIMEOUT_US};
static const struct ext2_b fs_b = {&fs_chan, (unsigned char *)FS_WIN_VA, NULL,
				   NULL};

static unsigned char fs_pat(unsigned seed, size_t i)
{
	return (unsigned char)(i * 31 + seed * 7 + (i >> 12));
}

/** Does file @path hold @n bytes of pattern @seed (read in odd pieces)? */
static bool fs_is(struct ext2_fs *fs, const char *path, size_t n,
		  unsigned seed)
{
	uint32_t ino;
	static unsigned char b[1500];
	if (ext2_namei(fs, path, &ino))
		return false;
	size_t off = 0;
	for (;;) {
		long r = ext2_read(fs, ino, off, b, sizeof b);
		if (r < 0)
			return false;
		if (r == 0)
			return off == n;
		for (long i = 0; i < r; i++)
			if (b[i] != fs_pat(seed, off + (size_t)i))
				return false;
		off += (size_t)r;
	}
}

/** Create @name in @dir holding @n bytes of pattern @seed. */
static long fs_make(struct ext2_fs *fs, uint32_t dir, const char *name,
		    size_t n, unsigned seed)
{
	uint32_t ino;
	static unsigned char b[4096 + 100];
	long err = ext2_create(fs, dir, name, strlen(name), 0644, &ino);
	for (size_t off = 0; !err && off < n;) {
		size_t k = n - off < sizeof b ? n - off : sizeof b;
		for (size_t i = 0; i < k; i++)
			b[i] = fs_pat(seed, off + i);
		long w = ext2_write(fs, ino, off, b, k);
		if (w < 0)
			return w;
		off += (size_t)w;
	}
	return err;
}

UTEST(fs_ext2_over_b, 1)
{
	static struct ext2_fs fs;
	if ((ful_cap_info(FUL_SYSPROG_SLOT_CACHE) & 0xff) != FUL_CAP_ENDPOINT)
		UT_SKIP("needs B (boot arguments disk,cache=N)");
	UT_CHECK_EQ(ful_map(FUL_SLOT_SELF_VS, FUL_SYSPROG_SLOT_CACHE_WIN,
			    FS_WIN_VA, FUL_R_READ | FUL_R_WRITE), 0);
	const struct ext2_dev dev = {ext2_b_read, ext2_b_write, ext2_b_now,
				     (void *)&fs_b, ext2_b_get, NULL};
	static struct ext2_group groups[64]; /* the test image has one */
	int err = ext2_mount(&fs, &dev, groups, 64);
	if (err)
		printf("fs: mount: %d (%s)\n", err, fs.why);
	UT_CHECK_EQ(err, 0);
	UT_CHECK(fs_is(&fs, "/hello.txt", 1000, 1));
	UT_CHECK(fs_is(&fs, "/big.bin", 300 * 1024, 2));
	UT_CHECK(fs_is(&fs, "/sub/deep.txt", 5000, 3));
	uint32_t dir;
	UT_CHECK_EQ(fs_make(&fs, EXT2_ROOT_INO, "made.bin", 200000, 9), 0);
	UT_CHECK_EQ(ext2_mkdir(&fs, EXT2_ROOT_INO, "newdir", 6, 0755, &dir), 0);
	UT_CHECK_EQ(fs_make(&fs, dir, "n.txt", 777, 10), 0);
	UT_CHECK(fs_is(&fs, "/made.bin", 200000, 9));
	UT_CHECK(fs_is(&fs, "/newdir/n.txt", 777, 10));
	UT_CHECK_EQ(ext2_sync(&fs), 0);
	UT_CHECK_EQ(ext2_b_call(&fs_b, FUL_CACHE_OP_SYNC, 0), 0);
	ful_unmap(FUL_SLOT_SELF_VS, FS_WIN_VA);
}

/* ------------------------------------------------------------------ */
/* fs_server: the same through F, the file server (boot argument fs)   */

/** A request to F with @len bytes of the IPC buffer; mr0 (the result)
 *  and the reply in *@m. */
static long fs_call(unsigned op, struct ful_msg *m, size_t len)
{
	m->info = FUL_MSG(op, len);
	long err = ful_call(FUL_SYSPROG_SLOT_FS, m, UT_TIMEOUT_US);
	return err < 0 ? err : (long)m->mr[0];
}

/** F's inode of @path, or a negative error. */
static long fs_lookup(const char *path)
{
	struct ful_msg m = {0};
	size_t n = strlen(path);
	memcpy(ful_ipcbuf(), path, n);
	long r = fs_call(FUL_FS_OP_LOOKUP, &m, n);
	return r < 0 ? r : (long)m.mr[1];
}

/** Does F's file @path hold @n bytes of @seed, read 512 at a time? */
static bool fs_server_is(const char *path, size_t n, unsigned seed)
{
	long ino = fs_lookup(path);
	if (ino <= 0)
		return false;
	const unsigned char *b = ful_ipcbuf();
	for (size_t off = 0;;) {
		struct ful_msg m = {.mr = {(unsigned long)ino, off, 512}};
		long r = fs_call(FUL_FS_OP_READ, &m, 0);
		if (r < 0 || FUL_MSG_LEN(m.info) != (unsigned long)r)
			return false;
		if (r == 0)
			return off == n;
		for (long i = 0; i < r; i++)
			if (b[i] != fs_pat(seed, off + (size_t)i))
				return false;
		off += (size_t)r;
	}
}

/** Create @name in @dir through F with @n bytes of @seed. */
static long fs_server_make(unsigned long dir, const char *name, size_t n,
			   unsigned seed)
{
	struct ful_msg m = {.mr = {dir}};
	size_t len = strlen(name);
	memcpy(ful_ipcbuf(), name, len);
	long r = fs_call(FUL_FS_OP_CREATE, &m, len);
	unsigned long ino = m.mr[1];
	unsigned char *b = ful_ipcbuf();
	for (size_t off = 0; r >= 0 && off < n;) {
		size_t k = n - off < 500 ? n - off : 500; /* odd pieces */
		for (size_t i = 0; i < k; i++)
			b[i] = fs_pat(seed, off + i);
		struct ful_msg w = {.mr = {ino, off}};
		r = fs_call(FUL_FS_OP_WRITE, &w, k);
		off += r > 0 ? (size_t)r : 0;
		if (r == 0)
			r = -EIO;
	}
	return r < 0 ? r : 0;
}

/** With form=N: is F on its core of paper 002's Table I (F's row, an
 *  independent copy of the rootserver's table)? */
static void fs_form_check(struct ut *ut)
{
	static const unsigned char f_core[15] = {0, 0, 0, 1, 0, 1, 1, 1,
						 0, 1, 1, 1, 1, 2, 1};
	char v[8];
	if (!ut_bootarg("form", v, sizeof v))
		return;
	unsigned long form = strtoul(v, NULL, 0);
	struct ful_msg m = {0};
	UT_CHECK_EQ(fs_call(FUL_FS_OP_INFO, &m, 0), 0);
	UT_CHECK(form >= 1 && form <= 15);
	UT_CHECK_EQ(m.mr[1], f_core[form - 1]);
}

UTEST(fs_server, 1)
{
	if ((ful_cap_info(FUL_SYSPROG_SLOT_FS) & 0xff) != FUL_CAP_ENDPOINT)
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	fs_form_check(ut);
	if (ut->failed)
		return;
	UT_CHECK(fs_server_is("/hello.txt", 1000, 1));
	UT_CHECK(fs_server_is("/big.bin", 300 * 1024, 2));
	UT_CHECK(fs_server_is("/sub/deep.txt", 5000, 3));
	UT_CHECK_EQ(fs_lookup("/nothere"), -ENOENT);
	UT_CHECK_EQ(fs_lookup("/hello.txt/x"), -ENOTDIR);
	UT_CHECK_EQ(fs_server_make(EXT2_ROOT_INO, "made.bin", 200000, 9), 0);
	struct ful_msg m = {.mr = {EXT2_ROOT_INO}};
	memcpy(ful_ipcbuf(), "newdir", 6);
	UT_CHECK_EQ(fs_call(FUL_FS_OP_MKDIR, &m, 6), 0);
	unsigned long dir = m.mr[1];
	m = (struct ful_msg){.mr = {EXT2_ROOT_INO}};
	memcpy(ful_ipcbuf(), "newdir", 6);
	UT_CHECK_EQ(fs_call(FUL_FS_OP_MKDIR, &m, 6), -EEXIST);
	UT_CHECK_EQ(fs_server_make(dir, "n.txt", 777, 10), 0);
	UT_CHECK(fs_server_is("/made.bin", 200000, 9));
	UT_CHECK(fs_server_is("/newdir/n.txt", 777, 10));
	/* bad requests: an error each, F keeps serving */
	struct ful_msg b = {.mr = {EXT2_ROOT_INO}};
	memset(ful_ipcbuf(), 'x', 300);
	UT_CHECK_EQ(fs_call(FUL_FS_OP_CREATE, &b, 256), -ENAMETOOLONG);
	b = (struct ful_msg){.mr = {dir, 0, FUL_IPCBUF_SIZE + 1}};
	UT_CHECK_EQ(fs_call(FUL_FS_OP_READ, &b, 0), -EINVAL);
	b = (struct ful_msg){.mr = {dir, 0}};
	UT_CHECK_EQ(fs_call(FUL_FS_OP_WRITE, &b, 10), -EISDIR);
	b = (struct ful_msg){.mr = {EXT2_ROOT_INO}};
	memcpy(ful_ipcbuf(), "newdir", 6);
	UT_CHECK_EQ(fs_call(FUL_FS_OP_RMDIR, &b, 6), -ENOTEMPTY);
	b = (struct ful_msg){.mr = {999999}};
	UT_CHECK_EQ(fs_call(FUL_FS_OP_STAT, &b, 0), -EIO);
	b = (struct ful_msg){0};
	UT_CHECK_EQ(fs_call(77, &b, 0), -EINVAL);
	UT_CHECK(fs_server_is("/hello.txt", 1000, 1));
	struct ful_msg s = {0};
	UT_CHECK_EQ(fs_call(FUL_FS_OP_SYNC, &s, 0), 0);
}
