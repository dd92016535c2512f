/*
 * The shell's file commands, as a client of F, the file server
 * (<fulcrum/fs.h>), whose endpoint the rootserver grants when F runs
 * (boot arguments disk,cache=N,fs; `make run` attaches a disk):
 *   ls [PATH]   the entries of a directory (/ by default)
 *   cat PATH    a file's bytes on the console
 *   df          the file system's size and free space
 */
#include <stdio.h>
#include <string.h>

#include <fulcrum/fs.h>
#include <ful/ful.h>

#include "shell.h"

/** A request to F with @len bytes of the IPC buffer: mr0, the reply in
 *  *@m, or the call's -FUL_E*. */
static long fs_call(unsigned op, struct ful_msg *m, size_t len)
{
	m->info = FUL_MSG(op, len);
	long err = ful_call(FUL_SYSPROG_SLOT_FS, m, FUL_FOREVER);
	return err < 0 ? err : (long)m->mr[0];
}

/** F's inode of @path into m->mr[1] (its mode mr2, size mr3). */
static long fs_lookup(const char *path, struct ful_msg *m)
{
	size_t n = strlen(path);
	if (n > FUL_IPCBUF_SIZE)
		return -1;
	memcpy(ful_ipcbuf(), path, n);
	*m = (struct ful_msg){0};
	return fs_call(FUL_FS_OP_LOOKUP, m, n);
}

static bool fs_here(const char *cmd)
{
	if ((ful_cap_info(FUL_SYSPROG_SLOT_FS) & 0xff) == FUL_CAP_ENDPOINT)
		return true;
	printf("%s: no file server (boot with disk,cache=N,fs; make run "
	       "attaches a disk)\n", cmd);
	return false;
}

/** The argument of a command: leading blanks skipped, @dflt if none. */
static const char *sh_arg(const char *args, const char *dflt)
{
	while (*args == ' ')
		args++;
	return *args ? args : dflt;
}

void sh_ls(const char *args)
{
	const char *path = sh_arg(args, "/");
	struct ful_msg m;
	long r;
	if (!fs_here("ls"))
		return;
	if ((r = fs_lookup(path, &m)) < 0) {
		printf("ls: %s: error %ld\n", path, r);
		return;
	}
	unsigned long dir = m.mr[1], pos = 0;
	do {
		m = (struct ful_msg){.mr = {dir, pos}};
		if ((r = fs_call(FUL_FS_OP_READDIR, &m, 0)) < 0) {
			printf("ls: %s: error %ld\n", path, r);
			return;
		}
		const unsigned char *e = ful_ipcbuf();
		for (long i = 0; i < r; i++) {
			unsigned len = e[5];
			printf("%s%.*s\n", e[4] == 2 ? "d " : "  ", (int)len,
			       (const char *)e + 6);
			e += 6 + len;
		}
		pos = m.mr[1];
	} while (r > 0);
}

void sh_cat(const char *args)
{
	const char *path = sh_arg(args, NULL);
	struct ful_msg m;
	long r;
	if (!path) {
		printf("cat: which file?\n");
		return;
	}
	if (!fs_here("cat"))
		return;
	if ((r = fs_lookup(path, &m)) < 0) {
		printf("cat: %s: error %ld\n", path, r);
		return;
	}
	unsigned long ino = m.mr[1], off = 0;
	for (;;) {
		m = (struct ful_msg){.mr = {ino, off, FUL_IPCBUF_SIZE}};
		if ((r = fs_call(FUL_FS_OP_READ, &m, 0)) <= 0)
			break;
		fwrite(ful_ipcbuf(), 1, (size_t)r, stdout);
		off += (unsigned long)r;
	}
	if (r < 0)
		printf("cat: %s: error %ld\n", path, r);
}

void sh_df(void)
{
	struct ful_msg m = {0};
	long r;
	if (!fs_here("df"))
		return;
	if ((r = fs_call(FUL_FS_OP_INFO, &m, 0)) < 0) {
		printf("df: error %ld\n", r);
		return;
	}
	printf("ext2: %lu blocks of 4 KiB, %lu free (%lu KiB), served by F "
	       "on core %lu\n", m.mr[2], m.mr[3], m.mr[3] * 4, m.mr[1]);
}
