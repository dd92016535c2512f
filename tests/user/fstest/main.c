/*
 * fstest: the file-semantics suite of issue 13, a plain POSIX program.
 * The same source runs on Fulcrum (its POSIX layer over F, B and D,
 * started by tests/user/tests/t_posix.c) and on the host (tests/host/
 * test_fstest_host.py builds it with the host's cc and libc): whatever
 * it expects, Linux does too. No #ifdef for either system.
 *
 *   fstest DIR         every check below, in DIR (made, left behind
 *                      with keep.bin in it for the host to read back)
 *   fstest DIR enospc  fill the disk to ENOSPC, then free it all
 *   fstest DIR spin    make DIR/started (by a rename, so that it appears
 *                      only when made), then stat DIR until that fails:
 *                      exit 5 if it failed with EIO (the file server
 *                      died), 6 otherwise (the tests that kill F or
 *                      the client)
 *   fstest DIR badptr  read DIR/f into an unmapped buffer: EFAULT
 *                      (Linux), or the process is killed (Fulcrum,
 *                      where the copy is in user space)
 *
 * Prints "FSTEST ok NAME" or "FSTEST FAIL NAME: what" per check and
 * "FSTEST done PASSED FAILED"; the exit status is the failure count.
 */
#define _DEFAULT_SOURCE /* usleep in strict C11 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *base;
static int passed, failed;

/** Byte @i of pattern @seed (the harness's ext2_image.pattern()). */
static unsigned char ft_pat(unsigned seed, size_t i)
{
	return (unsigned char)(i * 31 + seed * 7 + (i >> 12));
}

/** @name under the test directory, in a static buffer of @slot. */
static const char *ft_path(unsigned slot, const char *name)
{
	static char buf[4][600];
	snprintf(buf[slot], sizeof buf[slot], "%s/%s", base, name);
	return buf[slot];
}

static void ft_result(const char *name, const char *why)
{
	if (why) {
		printf("FSTEST FAIL %s: %s\n", name, why);
		failed++;
	} else {
		printf("FSTEST ok %s\n", name);
		passed++;
	}
}

/** Write @n bytes of pattern @seed to new file @path in @chunk pieces. */
static int ft_write_file(const char *path, unsigned seed, size_t n, size_t chunk)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	unsigned char *b = malloc(chunk);
	size_t off = 0;
	while (b && off < n) {
		size_t k = n - off < chunk ? n - off : chunk;
		for (size_t i = 0; i < k; i++)
			b[i] = ft_pat(seed, off + i);
		if (write(fd, b, k) != (ssize_t)k)
			break;
		off += k;
	}
	free(b);
	return close(fd) == 0 && off == n ? 0 : -1;
}

/** Does @path hold exactly @n bytes of pattern @seed (read in @chunk
 *  pieces)? */
static bool ft_file_is(const char *path, unsigned seed, size_t n, size_t chunk)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	unsigned char *b = malloc(chunk);
	size_t off = 0;
	bool ok = b != NULL;
	for (ssize_t r; ok && (r = read(fd, b, chunk)) != 0; off += (size_t)r) {
		if (r < 0) {
			ok = false;
			break;
		}
		for (ssize_t i = 0; i < r && ok; i++)
			ok = b[i] == ft_pat(seed, off + (size_t)i);
	}
	free(b);
	close(fd);
	return ok && off == n;
}

/* ---- the checks: each returns NULL or what went wrong ---------------- */

static const char *t_create_read(void)
{
	const char *p = ft_path(0, "a.bin");
	if (ft_write_file(p, 1, 10000, 333))
		return "write";
	if (!ft_file_is(p, 1, 10000, 1000) || !ft_file_is(p, 1, 10000, 7))
		return "read back";
	struct stat st;
	if (stat(p, &st) || st.st_size != 10000 || !S_ISREG(st.st_mode) ||
	    st.st_nlink != 1)
		return "stat";
	if (open(p, O_CREAT | O_EXCL | O_WRONLY, 0644) >= 0 || errno != EEXIST)
		return "O_EXCL on an existing file";
	if (open(ft_path(1, "none"), O_RDONLY) >= 0 || errno != ENOENT)
		return "ENOENT";
	return NULL;
}

static const char *t_append(void)
{
	const char *p = ft_path(0, "log.txt");
	int a = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_APPEND, 0644);
	int b = open(p, O_WRONLY | O_APPEND);
	if (a < 0 || b < 0)
		return "open";
	bool ok = write(a, "one,", 4) == 4 && write(b, "two,", 4) == 4 &&
		  write(a, "three", 5) == 5;
	ok = ok && lseek(a, 0, SEEK_CUR) == 13;
	close(a);
	close(b);
	char buf[32] = {0};
	int r = open(p, O_RDONLY);
	ok = ok && r >= 0 && read(r, buf, sizeof buf) == 13;
	close(r);
	return ok && !strcmp(buf, "one,two,three") ? NULL : "appends interleaved";
}

static const char *t_seek_holes(void)
{
	const char *p = ft_path(0, "holes.bin");
	int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return "open";
	char c = 'x', buf[100];
	bool ok = lseek(fd, 9999, SEEK_SET) == 9999 && write(fd, &c, 1) == 1 &&
		  lseek(fd, 0, SEEK_END) == 10000 &&
		  lseek(fd, -10, SEEK_CUR) == 9990 &&
		  read(fd, buf, 100) == 10 && buf[9] == 'x' && buf[0] == 0 &&
		  pwrite(fd, "yz", 2, 5000) == 2 && pread(fd, buf, 3, 4999) == 3 &&
		  !memcmp(buf, "\0yz", 3) && lseek(fd, 0, SEEK_CUR) == 10000;
	ok = ok && lseek(fd, -1, SEEK_SET) < 0 && errno == EINVAL;
	ok = ok && read(fd, buf, 10) == 0; /* at the end */
	close(fd);
	return ok ? NULL : "offsets or holes";
}

static const char *t_truncate(void)
{
	const char *p = ft_path(0, "a.bin");
	int fd = open(p, O_RDWR);
	struct stat st;
	if (fd < 0)
		return "open";
	bool ok = ftruncate(fd, 5000) == 0 && fstat(fd, &st) == 0 &&
		  st.st_size == 5000 && ftruncate(fd, 20000) == 0 &&
		  fstat(fd, &st) == 0 && st.st_size == 20000;
	unsigned char buf[16];
	ok = ok && pread(fd, buf, 16, 4992) == 16 &&
	     buf[0] == ft_pat(1, 4992) && buf[7] == ft_pat(1, 4999) &&
	     buf[8] == 0 && buf[15] == 0; /* grown: zeros past the cut */
	close(fd);
	fd = open(p, O_WRONLY | O_TRUNC);
	ok = ok && fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0;
	close(fd);
	return ok ? NULL : "sizes after ftruncate/O_TRUNC";
}

static const char *t_unlink(void)
{
	const char *p = ft_path(0, "gone.txt");
	struct stat st;
	if (ft_write_file(p, 2, 100, 100) || unlink(p))
		return "unlink";
	if (stat(p, &st) == 0 || errno != ENOENT)
		return "still there";
	if (unlink(p) == 0 || errno != ENOENT)
		return "second unlink";
	return NULL;
}

static const char *t_dirs(void)
{
	struct stat st;
	const char *d = ft_path(0, "d1"), *f = ft_path(1, "d1/f");
	if (mkdir(d, 0755) || stat(d, &st) || !S_ISDIR(st.st_mode))
		return "mkdir";
	if (mkdir(d, 0755) == 0 || errno != EEXIST)
		return "mkdir twice: EEXIST";
	if (ft_write_file(f, 3, 10, 10))
		return "file in it";
	if (rmdir(d) == 0 || errno != ENOTEMPTY)
		return "rmdir non-empty: ENOTEMPTY";
	if (rmdir(f) == 0 || errno != ENOTDIR)
		return "rmdir a file: ENOTDIR";
	if (unlink(d) == 0 || errno != EISDIR)
		return "unlink a directory: EISDIR";
	if (open(d, O_WRONLY) >= 0 || errno != EISDIR)
		return "open a directory for writing: EISDIR";
	if (unlink(f) || rmdir(d) || stat(d, &st) == 0)
		return "rmdir";
	return NULL;
}

static const char *t_rename(void)
{
	const char *a = ft_path(0, "r1"), *b = ft_path(1, "r2");
	const char *d = ft_path(2, "rd"), *in = ft_path(3, "rd/r3");
	if (ft_write_file(a, 4, 3000, 512) || ft_write_file(b, 5, 10, 10) ||
	    mkdir(d, 0755))
		return "setup";
	if (rename(a, b) || !ft_file_is(b, 4, 3000, 512))
		return "replace a file";
	struct stat st;
	if (stat(a, &st) == 0 || errno != ENOENT)
		return "old name still there";
	if (rename(b, in) || !ft_file_is(in, 4, 3000, 777))
		return "into a directory";
	const char *d2 = ft_path(0, "rd2");
	if (rename(d, d2) || !ft_file_is(ft_path(1, "rd2/r3"), 4, 3000, 4096))
		return "a directory";
	if (rename(d2, ft_path(1, "rd2/sub")) == 0 || errno != EINVAL)
		return "a directory under itself: EINVAL";
	/* ".." of a moved directory must follow it */
	if (mkdir(ft_path(0, "rd2/inner"), 0755) ||
	    rename(ft_path(0, "rd2/inner"), ft_path(1, "inner2")) ||
	    stat(ft_path(0, "inner2/../rd2/r3"), &st) || st.st_size != 3000)
		return "a moved directory's ..";
	return NULL;
}

static const char *t_readdir(void)
{
	const char *d = ft_path(0, "list");
	if (mkdir(d, 0755))
		return "mkdir";
	char name[64];
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "list/entry-%02d", i);
		if (ft_write_file(ft_path(1, name), 6, (size_t)i, 64))
			return "create";
	}
	unsigned long long seen = 0;
	int dots = 0, other = 0;
	DIR *dir = opendir(d);
	if (!dir)
		return "opendir";
	for (struct dirent *e; (e = readdir(dir));) {
		int i;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			dots++;
		else if (sscanf(e->d_name, "entry-%d", &i) == 1 && i >= 0 &&
			 i < 40 && !(seen >> i & 1))
			seen |= 1ULL << i;
		else
			other++;
	}
	closedir(dir);
	if (dots != 2 || other || seen != (1ULL << 40) - 1)
		return "entries listed";
	if (opendir(ft_path(0, "list/entry-01")) || errno != ENOTDIR)
		return "opendir a file: ENOTDIR";
	return NULL;
}

static const char *t_many(void)
{
	const char *d = ft_path(0, "many");
	char name[64];
	if (mkdir(d, 0755))
		return "mkdir";
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "many/file-with-a-longer-name-%03d", i);
		if (ft_write_file(ft_path(1, name), (unsigned)i, 100 + (size_t)i, 512))
			return "create";
	}
	for (int i = 0; i < 300; i += 7) {
		snprintf(name, sizeof name, "many/file-with-a-longer-name-%03d", i);
		if (!ft_file_is(ft_path(1, name), (unsigned)i, 100 + (size_t)i, 512))
			return "read back";
	}
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "many/file-with-a-longer-name-%03d", i);
		if (unlink(ft_path(1, name)))
			return "unlink";
	}
	return rmdir(d) ? "rmdir after emptying" : NULL;
}

/* ext2 with 4 KiB blocks: 12 direct, 1024 indirect, then double. */
#define FT_DIND_START ((12 + 1024) * 4096L)

static const char *t_large(void)
{
	const char *p = ft_path(0, "large.bin");
	int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return "open";
	/* 96 KiB across the indirect/double-indirect boundary, a piece
	 * deep in the double range, holes everywhere else */
	static unsigned char b[96 * 1024];
	const long at[2] = {FT_DIND_START - 48 * 1024, 3 * FT_DIND_START};
	bool ok = true;
	for (int k = 0; k < 2 && ok; k++) {
		for (size_t i = 0; i < sizeof b; i++)
			b[i] = ft_pat(7 + (unsigned)k, (size_t)at[k] + i);
		ok = pwrite(fd, b, sizeof b, at[k]) == (ssize_t)sizeof b;
	}
	struct stat st;
	ok = ok && fstat(fd, &st) == 0 && st.st_size == at[1] + (long)sizeof b;
	close(fd);
	if (!ok)
		return "write";
	fd = open(p, O_RDONLY);
	for (int k = 0; k < 2 && ok; k++) {
		ok = pread(fd, b, sizeof b, at[k]) == (ssize_t)sizeof b;
		for (size_t i = 0; i < sizeof b && ok; i++)
			ok = b[i] == ft_pat(7 + (unsigned)k, (size_t)at[k] + i);
	}
	ok = ok && pread(fd, b, 4096, 2 * FT_DIND_START) == 4096 &&
	     b[0] == 0 && b[4095] == 0;
	close(fd);
	if (!ok)
		return "read back";
	return unlink(p) ? "unlink" : NULL;
}

static const char *t_stdio(void)
{
	const char *p = ft_path(0, "stdio.txt");
	FILE *f = fopen(p, "w");
	if (!f)
		return "fopen w";
	for (int i = 0; i < 50; i++)
		fprintf(f, "line %d of %s\n", i, "stdio");
	if (fclose(f))
		return "fclose";
	f = fopen(p, "r");
	char line[64], want[64];
	int n = 0;
	while (f && fgets(line, sizeof line, f)) {
		snprintf(want, sizeof want, "line %d of stdio\n", n++);
		if (strcmp(line, want))
			break;
	}
	if (f)
		fclose(f);
	if (n != 50)
		return "fgets";
	f = fopen(p, "a");
	bool ok = f && fwrite("tail", 1, 4, f) == 4 && fclose(f) == 0;
	struct stat st;
	ok = ok && stat(p, &st) == 0 && st.st_size == 10 * 16 + 40 * 17 + 4;
	return ok ? NULL : "fopen a";
}

static const char *t_cwd(void)
{
	char old[600], now[600];
	if (!getcwd(old, sizeof old))
		return "getcwd";
	if (mkdir(ft_path(0, "cw"), 0755) || chdir(ft_path(0, "cw")))
		return "chdir";
	bool ok = ft_write_file("rel.txt", 8, 50, 50) == 0 &&
		  ft_file_is(ft_path(0, "cw/rel.txt"), 8, 50, 50) &&
		  chdir("..") == 0 && getcwd(now, sizeof now) &&
		  !strcmp(now, base) && ft_file_is("cw/rel.txt", 8, 50, 50);
	ok = ok && chdir("cw/rel.txt") < 0 && errno == ENOTDIR;
	ok = chdir(old) == 0 && ok;
	return ok ? NULL : "relative paths";
}

static const char *t_times(void)
{
	const char *p = ft_path(0, "t.txt");
	time_t t0 = time(NULL);
	struct timespec a, b;
	if (clock_gettime(CLOCK_MONOTONIC, &a) || ft_write_file(p, 9, 10, 10))
		return "write";
	struct stat st;
	clock_gettime(CLOCK_MONOTONIC, &b);
	bool ok = stat(p, &st) == 0 && st.st_mtime >= t0 - 1 &&
		  st.st_mtime <= time(NULL) + 1 && st.st_ctime >= t0 - 1;
	ok = ok && (b.tv_sec > a.tv_sec ||
		    (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
	return ok ? NULL : "mtime/ctime or the clocks";
}

/** CLOCK_MONOTONIC in nanoseconds. */
static long long ft_mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/** The sleeps last at least their time; a bad time is EINVAL. */
static const char *t_sleep(void)
{
	long long t0 = ft_mono_ns();
	struct timespec rq = {0, 2000000}, rem; /* rem: only after EINTR */
	if (nanosleep(&rq, &rem) || ft_mono_ns() - t0 < 2000000)
		return "nanosleep 2 ms";
	rq.tv_nsec = 1000000000L;
	errno = 0;
	if (nanosleep(&rq, NULL) != -1 || errno != EINVAL)
		return "nanosleep of tv_nsec 1e9";
	t0 = ft_mono_ns();
	if (usleep(1000) || ft_mono_ns() - t0 < 1000000)
		return "usleep 1 ms";
	return NULL;
}

static const char *t_errors(void)
{
	char buf[8], longname[300];
	memset(longname, 'n', 299);
	longname[299] = 0;
	if (read(99, buf, 1) >= 0 || errno != EBADF)
		return "bad fd: EBADF";
	if (close(-1) == 0 || errno != EBADF)
		return "close(-1): EBADF";
	if (open(ft_path(0, longname), O_CREAT | O_WRONLY, 0644) >= 0 ||
	    errno != ENAMETOOLONG)
		return "name too long: ENAMETOOLONG";
	if (ft_write_file(ft_path(0, "plain"), 1, 1, 1))
		return "setup";
	if (open(ft_path(0, "plain/x"), O_CREAT | O_WRONLY, 0644) >= 0 ||
	    errno != ENOTDIR)
		return "path through a file: ENOTDIR";
	int fd = open(ft_path(0, "plain"), O_RDONLY);
	if (fd < 0 || write(fd, "x", 1) >= 0 || errno != EBADF)
		return "write on O_RDONLY: EBADF";
	close(fd);
	fd = open(base, O_RDONLY);
	if (fd < 0 || read(fd, buf, 1) >= 0 || errno != EISDIR)
		return "read a directory: EISDIR";
	close(fd);
	if (fsync(STDOUT_FILENO) && errno != EINVAL && errno != EROFS)
		return "fsync the console";
	return NULL;
}

static const char *t_emfile(void)
{
	int fds[2000], n = 0;
	const char *p = ft_path(0, "plain");
	while (n < 2000 && (fds[n] = open(p, O_RDONLY)) >= 0)
		n++;
	int err = errno;
	while (n > 0)
		close(fds[--n]);
	return n == 0 && err == EMFILE ? NULL : "too many open files: EMFILE";
}

static const char *t_keep(void)
{
	int fd;
	const char *p = ft_path(0, "keep.bin");
	if (ft_write_file(p, 11, 123457, 1000))
		return "write";
	if ((fd = open(p, O_RDONLY)) < 0 || fsync(fd))
		return "fsync";
	close(fd);
	return ft_file_is(p, 11, 123457, 4096) ? NULL : "read back";
}

/** Fill the file system until a write fails with ENOSPC, then free it
 *  all: afterwards a file can be written again. */
static const char *ft_enospc(void)
{
	static unsigned char b[64 * 1024];
	char name[32];
	int nfiles = 0, err = 0;
	for (size_t i = 0; i < sizeof b; i++)
		b[i] = ft_pat(12, i);
	while (!err && nfiles < 1000) {
		snprintf(name, sizeof name, "fill-%d", nfiles++);
		int fd = open(ft_path(0, name), O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0) {
			err = errno;
			break;
		}
		for (int k = 0; k < 64 && !err; k++) { /* 4 MiB a file */
			ssize_t r = write(fd, b, sizeof b);
			if (r < 0)
				err = errno;
			else if (r < (ssize_t)sizeof b && write(fd, b, 1) < 0)
				err = errno; /* a short write, then the error */
		}
		close(fd);
	}
	printf("fstest: enospc after %d files, errno %d\n", nfiles, err);
	for (int i = 0; i < nfiles; i++) {
		snprintf(name, sizeof name, "fill-%d", i);
		unlink(ft_path(0, name)); /* the last may not exist */
	}
	if (err != ENOSPC)
		return "no ENOSPC";
	if (ft_write_file(ft_path(0, "after.bin"), 13, 100000, 4096) ||
	    !ft_file_is(ft_path(0, "after.bin"), 13, 100000, 4096))
		return "no space again after freeing";
	return unlink(ft_path(0, "after.bin")) ? "unlink" : NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: fstest DIR [enospc]\n");
		return 100;
	}
	base = argv[1];
	if (mkdir(base, 0755) && errno != EEXIST) {
		printf("FSTEST FAIL setup: mkdir %s: errno %d\n", base, errno);
		return 100;
	}
	if (argc > 2 && !strcmp(argv[2], "spin")) {
		struct stat st; /* "started" appears whole, by a rename */
		if (ft_write_file(ft_path(0, "starting"), 1, 1, 1) ||
		    rename(ft_path(0, "starting"), ft_path(1, "started")))
			return 6;
		while (stat(base, &st) == 0)
			;
		if (errno != EIO)
			printf("fstest: %s: stat failed with errno %d\n", base, errno);
		return errno == EIO ? 5 : 6;
	}
	if (argc > 2 && !strcmp(argv[2], "badptr")) {
		int fd = open(ft_path(0, "f"), O_RDONLY);
		void *volatile bad = (void *)16; /* opaque to the compiler */
		ssize_t r = read(fd, bad, 10);
		ft_result("badptr", r < 0 && errno == EFAULT ? NULL : "read");
	} else if (argc > 2 && !strcmp(argv[2], "enospc"))
		ft_result("enospc", ft_enospc());
	else {
		static const struct {
			const char *name;
			const char *(*fn)(void);
		} tests[] = {
			{"create_read", t_create_read}, {"append", t_append},
			{"seek_holes", t_seek_holes}, {"truncate", t_truncate},
			{"unlink", t_unlink}, {"dirs", t_dirs},
			{"rename", t_rename}, {"readdir", t_readdir},
			{"many_files", t_many}, {"large_file", t_large},
			{"stdio", t_stdio}, {"cwd", t_cwd}, {"times", t_times},
			{"sleep", t_sleep},
			{"errors", t_errors}, {"emfile", t_emfile},
			{"keep", t_keep},
		};
		for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
			ft_result(tests[i].name, tests[i].fn());
	}
	printf("FSTEST done %d %d\n", passed, failed);
	return failed;
}
