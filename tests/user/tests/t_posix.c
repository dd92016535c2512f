/*
 * The POSIX layer (<ful/posix.h>) over F, B and D: processes started
 * from a boot module with arguments, their exit status, and the file
 * semantics suite tests/user/fstest (a plain POSIX program, also run on the
 * host's Linux by tests/host/test_fstest_host.py) on the suite's ext2
 * image, which the harness checks with e2fsck -fn afterwards.
 *
 *   posix_files        fstest /posix: every check passes (exit 0), the
 *                      child talking to F through a ring the rootserver
 *                      set up; it leaves /posix/keep.bin for debugfs
 *   posix_files_ipc    the same with the child talking to F over IPC
 *                      (one call a request, data in the IPC buffer)
 *   posix_ring_used    this program's requests go through its ring
 *   posix_exit_status  fstest without arguments exits 100 (usage)
 *   posix_bad_pointer  a read() into an unmapped buffer kills the
 *                      process (the copy from the IPC buffer is in user
 *                      space), reported as WTERMSIG 11; F serves on
 *   enospc_fill        fstest /full enospc: a full disk gives ENOSPC,
 *                      and the space comes back after unlinking
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fulcrum/fs.h>
#include <fulcrum/rootsrv.h>
#include <ful/posix.h>

#include "utest.h"

#define POSIX_WAIT_US 600000000UL /* 10 minutes: turns a hang into a failure */

static bool posix_have_fs(void)
{
	return (ful_cap_info(FUL_SLOT_FS) & 0xff) == FUL_CAP_ENDPOINT;
}

/** Run module argv[0] with @argv on core @cpu; its wait status in
 *  *@status. */
static int posix_run_how(char *const argv[], unsigned cpu, bool ipc,
			 int *status)
{
	struct ful_proc p;
	struct ful_proc_attr a = {.cpu = cpu, .fs_ipc = ipc};
	int err = ful_proc_spawn(argv[0], argv, &a, &p);
	if (err < 0)
		return err;
	return ful_proc_wait(&p, status, POSIX_WAIT_US);
}

static int posix_run(char *const argv[], unsigned cpu, int *status)
{
	return posix_run_how(argv, cpu, false, status);
}

UTEST(posix_files, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	char *argv[] = {"fstest", "/posix", NULL};
	int st = -1;
	UT_CHECK_EQ(posix_run(argv, 0, &st), 0);
	UT_CHECK(WIFEXITED(st));
	UT_CHECK_EQ(WEXITSTATUS(st), 0);
}

UTEST(posix_files_ipc, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	char *argv[] = {"fstest", "/posix-ipc", NULL};
	int st = -1;
	UT_CHECK_EQ(posix_run_how(argv, 0, true, &st), 0);
	UT_CHECK(WIFEXITED(st));
	UT_CHECK_EQ(WEXITSTATUS(st), 0);
}

/* This program's own requests go through a ring the rootserver set up,
 * and F answers on it: requests counted, the answers right. */
UTEST(posix_ring_used, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	struct stat s;
	unsigned long before, after, sig;
	stat("/", &s);
	ful_fs_ring_stats(&before, &sig);
	UT_CHECK(before > 0);
	UT_CHECK_EQ(stat("/", &s), 0);
	UT_CHECK(S_ISDIR(s.st_mode));
	UT_CHECK_EQ(stat("/no-such-file", &s), -1);
	UT_CHECK_EQ(errno, ENOENT);
	ful_fs_ring_stats(&after, &sig);
	UT_CHECK_EQ(after, before + 2);
}

/* Paper 002's benchmark programs (issue 14) run to completion here with
 * small parameters, and refuse impossible ones with status 2. */
UTEST(posix_postmark_bonnie, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	char *pm[] = {"postmark", "-f", "25", "-t", "25", "-d", "/pmt", NULL};
	char *pm_bad[] = {"postmark", "-f", "0", NULL};
	char *bn_setup[] = {"bonnie", "/bnt", "setup", "128", NULL};
	char *bn_run[] = {"bonnie", "/bnt", "run", "400", "7", NULL};
	char *bn_bad[] = {"bonnie", "/bnt", "run", "0", NULL};
	char *const *runs[] = {pm, bn_setup, bn_run};
	for (unsigned i = 0; i < 3; i++) {
		int st = -1;
		UT_CHECK_EQ(posix_run(runs[i], 0, &st), 0);
		UT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	char *const *bad[] = {pm_bad, bn_bad};
	for (unsigned i = 0; i < 2; i++) {
		int st = -1;
		UT_CHECK_EQ(posix_run(bad[i], 0, &st), 0);
		UT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	}
}

UTEST(posix_exit_status, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	char *argv[] = {"fstest", NULL};
	int st = -1;
	UT_CHECK_EQ(posix_run(argv, ut_ncpus() - 1, &st), 0);
	UT_CHECK(WIFEXITED(st));
	UT_CHECK_EQ(WEXITSTATUS(st), 100);
}

UTEST(posix_bad_pointer, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	/* this program's own POSIX calls make the file */
	mkdir("/bp", 0755);
	int fd = open("/bp/f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	UT_CHECK(fd >= 0);
	UT_CHECK_EQ(write(fd, "0123456789", 10), 10);
	UT_CHECK_EQ(close(fd), 0);
	char *argv[] = {"fstest", "/bp", "badptr", NULL};
	int st = -1;
	UT_CHECK_EQ(posix_run(argv, 0, &st), 0);
	UT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == 11);
	struct stat s;
	UT_CHECK_EQ(stat("/bp/f", &s), 0); /* F still serves */
	UT_CHECK_EQ(s.st_size, 10);
	char buf[16] = {0};
	fd = open("/bp/f", O_RDONLY);
	UT_CHECK_EQ(read(fd, buf, sizeof buf), 10);
	UT_CHECK(!strcmp(buf, "0123456789"));
	close(fd);
}

UTEST(enospc_fill, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	char *argv[] = {"fstest", "/full", "enospc", NULL};
	int st = -1;
	UT_CHECK_EQ(posix_run(argv, 0, &st), 0);
	UT_CHECK(WIFEXITED(st));
	UT_CHECK_EQ(WEXITSTATUS(st), 0);
}

/* Damaged images (the harness's boot argument fsbad=KIND, tests/harness/
 * ext2_image.py): F must refuse a bad superblock (then there is no F,
 * and file calls fail with ENOSYS, the system running on), and fail a
 * bad inode's file with EIO while the other files still read. */
UTEST(fsbad_super, 1)
{
	char kind[16];
	if (!ut_bootarg("fsbad", kind, sizeof kind) || strcmp(kind, "super"))
		UT_SKIP("boot argument fsbad=super (a damaged image)");
	struct stat s;
	UT_CHECK(!posix_have_fs());
	UT_CHECK_EQ(stat("/", &s), -1);
	UT_CHECK_EQ(errno, ENOSYS);
}

UTEST(fsbad_inode, 1)
{
	char kind[16];
	if (!ut_bootarg("fsbad", kind, sizeof kind) || strcmp(kind, "inode"))
		UT_SKIP("boot argument fsbad=inode (a damaged image)");
	UT_CHECK(posix_have_fs());
	char buf[64];
	int fd = open("/hello.txt", O_RDONLY);
	UT_CHECK(fd >= 0);
	UT_CHECK_EQ(read(fd, buf, sizeof buf), -1);
	UT_CHECK_EQ(errno, EIO);
	close(fd);
	fd = open("/sub/deep.txt", O_RDONLY); /* the others still read */
	UT_CHECK(fd >= 0);
	UT_CHECK_EQ(read(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	for (unsigned i = 0; i < sizeof buf; i++)
		UT_CHECK_EQ((unsigned char)buf[i],
			    (unsigned char)(i * 31 + 3 * 7 + (i >> 12)));
	close(fd);
}

/* OMF: a file's bytes as memory (B's cache lines, zero copy), written
 * back on sync; grown and cut; busy while mapped; read-only holes. */
UTEST(posix_omf, 1)
{
	if (!posix_have_fs())
		UT_SKIP("needs F (boot arguments disk,cache=N,fs)");
	static unsigned char b[20000], r[20000];
	for (unsigned i = 0; i < sizeof b; i++)
		b[i] = (unsigned char)(i * 13 + 5);
	int fd = open("/omf.bin", O_CREAT | O_RDWR | O_TRUNC, 0644);
	UT_CHECK(fd >= 0);
	UT_CHECK_EQ(write(fd, b, 10000), 10000);
	struct ful_omf o;
	char bs[8];
	if (ut_bootarg("fsbs", bs, sizeof bs) && strcmp(bs, "4096")) {
		/* the image's blocks are smaller than a page (the harness's
		 * fsbs=): OMF maps 4 KiB blocks only and refuses */
		errno = 0;
		UT_CHECK_EQ(ful_omf_map(fd, 64 * 1024, &o), -1);
		UT_CHECK_EQ(errno, ENOTSUP);
		close(fd);
		UT_CHECK_EQ(unlink("/omf.bin"), 0);
		return;
	}
	UT_CHECK_EQ(ful_omf_map(fd, 64 * 1024, &o), 0);
	UT_CHECK_EQ(o.size, 10000);
	UT_CHECK(!memcmp(o.base, b, 10000)); /* the file, in memory */
	o.base[100] ^= 0xff;                  /* a write in place ... */
	b[100] ^= 0xff;
	ful_omf_dirty(&o, 100, 1);
	/* zero copy: F's path reads the very line the store went to, and
	 * a write through F shows in the mapping at once */
	UT_CHECK_EQ(pread(fd, r, 1, 100), 1);
	UT_CHECK_EQ(r[0], b[100]);
	b[300] = 'Q';
	UT_CHECK_EQ(pwrite(fd, "Q", 1, 300), 1);
	UT_CHECK_EQ(o.base[300], 'Q');
	/* at once every time, on every page (not when B gets to it) */
	for (unsigned i = 0; i < 48; i++) {
		unsigned off = 400 + i * 193 % 9000;
		unsigned char v = (unsigned char)(b[off] + 1 + i);
		b[off] = v;
		UT_CHECK_EQ(pwrite(fd, &v, 1, off), 1);
		UT_CHECK_EQ(o.base[off], v);
	}
	/* nobody cuts or unlinks a mapped file under its client */
	UT_CHECK_EQ(ftruncate(fd, 0), -1);
	UT_CHECK_EQ(errno, EBUSY);
	UT_CHECK_EQ(unlink("/omf.bin"), -1);
	UT_CHECK_EQ(errno, EBUSY);
	UT_CHECK_EQ(ful_omf_resize(&o, 20000), 0); /* ... and growth */
	memcpy(o.base + 10000, b + 10000, 10000);
	ful_omf_dirty(&o, 10000, 10000);
	struct stat st0, st1;
	UT_CHECK_EQ(fstat(fd, &st0), 0);
	UT_CHECK_EQ(ful_omf_sync(&o), 0);
	UT_CHECK_EQ(fstat(fd, &st1), 0);
	UT_CHECK_EQ(st1.st_size, 20000);
	UT_CHECK(st1.st_mtime >= st0.st_mtime);
	UT_CHECK_EQ(pread(fd, r, sizeof r, 0), 20000);
	UT_CHECK(!memcmp(r, b, sizeof r)); /* read back through F */
	UT_CHECK_EQ(ful_omf_resize(&o, 5000), 0);  /* cut */
	UT_CHECK_EQ(ful_omf_unmap(&o), 0);         /* syncs */
	UT_CHECK_EQ(fstat(fd, &st1), 0);
	UT_CHECK_EQ(st1.st_size, 5000);
	UT_CHECK_EQ(ful_omf_resize(&o, 1 << 20), -1); /* past the window */
	UT_CHECK_EQ(ful_omf_map(fd, 1 << 20, &o), -1);
	UT_CHECK_EQ(errno, EFBIG);
	/* a file larger than the window: its first pages, no resize */
	UT_CHECK_EQ(ftruncate(fd, 100000), 0);
	UT_CHECK_EQ(ful_omf_map(fd, 8192, &o), 0);
	UT_CHECK_EQ(o.size, 100000);
	UT_CHECK(!memcmp(o.base, b, 4096));
	UT_CHECK_EQ(ful_omf_resize(&o, 8192), -1);
	UT_CHECK_EQ(errno, EFBIG);
	UT_CHECK_EQ(ful_omf_unmap(&o), 0);
	close(fd);
	int dfd = open("/", O_RDONLY);
	UT_CHECK_EQ(ful_omf_map(dfd, 4096, &o), -1); /* not a file */
	close(dfd);
	/* read-only: a hole and the part past the end show zeros */
	fd = open("/omf.bin", O_RDONLY);
	UT_CHECK(fd >= 0);
	UT_CHECK_EQ(ful_omf_map(fd, 4 * 4096, &o), 0);
	UT_CHECK(!o.writable);
	UT_CHECK(!memcmp(o.base, b, 5000)); /* the file was cut to 5000 */
	for (unsigned i = 5000; i < 4 * 4096; i++) /* the cut page's tail,
						     * then holes */
		UT_CHECK_EQ(o.base[i], 0);
	UT_CHECK_EQ(ful_omf_resize(&o, 4096), -1);
	UT_CHECK_EQ(errno, EBADF);
	UT_CHECK_EQ(ful_omf_unmap(&o), 0);
	close(fd);
	UT_CHECK_EQ(unlink("/omf.bin"), 0); /* free again once unmapped */
}

/* A client killed in the middle of its requests leaves nothing behind:
 * 20 clients, more than F has rings, each killed while it loops on
 * requests, each still gets a ring (the last one's was freed), and F
 * serves on. Then F's server thread is killed, as a crash would: a
 * client on a ring, a client over IPC and this program get EIO, not a
 * hang. Suite fskill2 (boot argument crash=1: the image is not checked
 * after, F's in-memory counts died with it). */
static bool fskill_started(const char *dir)
{
	char path[32];
	struct stat st;
	snprintf(path, sizeof path, "%s/started", dir);
	return stat(path, &st) == 0;
}

static int fskill_spawn(const char *dir, bool ipc, struct ful_proc *p)
{
	char path[32];
	snprintf(path, sizeof path, "%s/started", dir);
	unlink(path);
	char *argv[] = {"fstest", (char *)dir, "spin", NULL};
	struct ful_proc_attr a = {.cpu = ut_ncpus() - 1, .fs_ipc = ipc};
	return ful_proc_spawn("fstest", argv, &a, p);
}

UTEST(fskill_clients_then_server, 1)
{
	char flag[8];
	if (!ut_bootarg("crash", flag, sizeof flag) || !posix_have_fs())
		UT_SKIP("boot arguments crash=1 and disk,cache=N,fs");
	struct ful_proc p, q;
	struct stat st;
	for (unsigned i = 0; i < FUL_FSR_MAX + 4; i++) {
		UT_CHECK_EQ(fskill_spawn("/ck", false, &p), 0);
		UT_CHECK(p.ring >= 0);
		UT_WAIT(fskill_started("/ck"));
		UT_CHECK_EQ(ful_proc_kill(&p), 0);
	}
	UT_CHECK_EQ(stat("/", &st), 0);
	UT_CHECK_EQ(fskill_spawn("/k1", false, &p), 0);
	UT_CHECK_EQ(fskill_spawn("/k2", true, &q), 0);
	UT_CHECK(p.ring >= 0 && q.ring < 0);
	UT_WAIT(fskill_started("/k1") && fskill_started("/k2"));
	struct ful_msg m = {.info = FUL_MSG(FUL_ROOT_REQ_FS_KILL, 0)};
	UT_CHECK_EQ(ful_call(FUL_SYSPROG_SLOT_DONE, &m, UT_TIMEOUT_US), 0);
	UT_CHECK_EQ((long)m.mr[0], 0);
	int s1 = -1, s2 = -1;
	UT_CHECK_EQ(ful_proc_wait(&p, &s1, UT_TIMEOUT_US), 0);
	UT_CHECK_EQ(ful_proc_wait(&q, &s2, UT_TIMEOUT_US), 0);
	UT_CHECK(WIFEXITED(s1) && WEXITSTATUS(s1) == 5); /* EIO on its ring */
	if (!(WIFEXITED(s2) && WEXITSTATUS(s2) == 5))
		printf("fskill: the IPC client's status %#x\n", s2);
	UT_CHECK(WIFEXITED(s2) && WEXITSTATUS(s2) == 5); /* EIO over IPC */
	UT_CHECK_EQ(stat("/", &st), -1);
	UT_CHECK_EQ(errno, EIO);
}

/** Ask the rootserver to kill server @which ('B', 'D') as a crash would. */
static long fskill_server(char which)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_ROOT_REQ_FS_KILL, 0),
			    .mr = {(unsigned long)which}};
	long err = ful_call(FUL_SYSPROG_SLOT_DONE, &m, UT_TIMEOUT_US);
	return err < 0 ? err : (long)m.mr[0];
}

/* B killed (suite fskillb2, crash=1): F's requests to B fail on its ring
 * (the rootserver marks it dead and wakes F), so a read of blocks F does
 * not hold itself, any write, and an fsync after a write B may not have
 * taken get EIO, not a hang. */
UTEST(fskillb_cache_server, 1)
{
	char flag[8];
	if (!ut_bootarg("crash", flag, sizeof flag) || !posix_have_fs())
		UT_SKIP("boot arguments crash=1 and disk,cache=N,fs");
	static char buf[4096];
	int fd = open("/kb", O_CREAT | O_RDWR | O_TRUNC, 0644);
	UT_CHECK(fd >= 0);
	/* more blocks than F's own copy holds (256, EXT2_BCACHE_BLOCKS) */
	enum { KB_BLOCKS = 300 };
	for (unsigned i = 0; i < KB_BLOCKS; i++)
		UT_CHECK_EQ(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	UT_CHECK_EQ(fsync(fd), 0);
	/* a write F may still have in flight to B (write-behind) when B
	 * dies: the fsync after says EIO, never 0 */
	UT_CHECK_EQ(pwrite(fd, buf, sizeof buf, 0), (ssize_t)sizeof buf);
	UT_CHECK_EQ(fskill_server('B'), 0);
	UT_CHECK_EQ(fsync(fd), -1);
	UT_CHECK_EQ(errno, EIO);
	ssize_t r = 0;
	for (unsigned i = 0; i < KB_BLOCKS && r >= 0; i++)
		r = pread(fd, buf, sizeof buf, (off_t)i * sizeof buf);
	UT_CHECK_EQ(r, -1);
	UT_CHECK_EQ(errno, EIO);
	UT_CHECK_EQ(pwrite(fd, buf, sizeof buf, 0), -1);
	UT_CHECK_EQ(errno, EIO);
	close(fd);
}

/* D killed (suite fskilld2, crash=1): B's requests to D fail on its ring,
 * so an fsync gets EIO, while what B holds is still served. */
UTEST(fskilld_disk_server, 1)
{
	char flag[8];
	if (!ut_bootarg("crash", flag, sizeof flag) || !posix_have_fs())
		UT_SKIP("boot arguments crash=1 and disk,cache=N,fs");
	static char buf[4096], back[4096];
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = (char)(i * 7 + 1);
	int fd = open("/kd", O_CREAT | O_RDWR | O_TRUNC, 0644);
	UT_CHECK(fd >= 0);
	UT_CHECK_EQ(write(fd, back, sizeof back), (ssize_t)sizeof back);
	UT_CHECK_EQ(fsync(fd), 0);
	UT_CHECK_EQ(fskill_server('D'), 0);
	/* the block is in B's cache: the write needs no disk */
	UT_CHECK_EQ(pwrite(fd, buf, sizeof buf, 0), (ssize_t)sizeof buf);
	UT_CHECK_EQ(fsync(fd), -1); /* B's write-back to D */
	UT_CHECK_EQ(errno, EIO);
	UT_CHECK_EQ(pread(fd, back, sizeof back, 0), (ssize_t)sizeof back);
	UT_CHECK(!memcmp(buf, back, sizeof buf));
	close(fd);
}
