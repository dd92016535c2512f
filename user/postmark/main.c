/*
 * postmark: a PostMark-like benchmark (Katcher, 1997; version 1.5's
 * algorithm), a plain POSIX program: the same source runs on Fulcrum
 * (its POSIX layer, F, B and D) and, compiled as a static Linux program,
 * on Linux on the same QEMU (issue 14). No #ifdef for either system.
 *
 *   postmark [-f FILES] [-t TRANSACTIONS] [-s MIN] [-S MAX] [-b BLOCK]
 *            [-r SEED] [-d DIR] [-o RESULTFILE]
 *
 * Defaults are PostMark 1.5's: 500 files, 500 transactions, sizes 500 to
 * 10,000 bytes, 512-byte reads and writes, seed 42. Paper 002 ran 25
 * files and 25 transactions of the same sizes.
 *
 * 1. Create the pool: FILES files of random sizes in [MIN, MAX], written
 *    in BLOCK-byte pieces.
 * 2. TRANSACTIONS transactions, each two operations: create a new file
 *    or delete a random one (even odds), then read a random file whole
 *    or append a random amount (MIN..MAX bytes, even odds).
 * 3. Delete every file left.
 * The random numbers come from a generator of its own (the same on every
 * system). Prints a summary and one line
 *   POSTMARK-RESULT us=... tx=... tps=... read=... written=... created=... deleted=...
 * (also written to RESULTFILE with -o). Exit status 0, 2 on impossible
 * parameters (usage), 1 on an error (a full disk is reported as such).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PM_MAX_FILES 100000

struct pm {
	long files, tx, min, max, block;
	unsigned long seed;
	const char *dir;
	const char *out;
	/* the pool: file numbers in use */
	long *pool, npool, next_id;
	unsigned long long read, written;
	long created, deleted;
	char *buf;
};

/** The next random number (a 64-bit LCG, upper bits). */
static unsigned long pm_rand(struct pm *p)
{
	p->seed = p->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned long)(p->seed >> 33);
}

static long pm_range(struct pm *p, long lo, long hi)
{
	return lo + (long)(pm_rand(p) % (unsigned long)(hi - lo + 1));
}

static void pm_name(const struct pm *p, long id, char *out, size_t n)
{
	snprintf(out, n, "%s/pm%ld", p->dir, id);
}

static int pm_fail(const char *what, const char *name)
{
	if (errno == ENOSPC)
		printf("postmark: %s %s: the disk is full (ENOSPC)\n", what, name);
	else
		printf("postmark: %s %s: errno %d\n", what, name, errno);
	return -1;
}

/** Write @n bytes to @fd in block pieces. */
static int pm_write(struct pm *p, int fd, long n, const char *name)
{
	while (n > 0) {
		long k = n < p->block ? n : p->block;
		if (write(fd, p->buf, (size_t)k) != k)
			return pm_fail("write", name);
		p->written += (unsigned long long)k;
		n -= k;
	}
	return 0;
}

/** Create a new file of random size and add it to the pool. */
static int pm_create(struct pm *p)
{
	char name[300];
	long id = p->next_id++;
	pm_name(p, id, name, sizeof name);
	int fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return pm_fail("create", name);
	int err = pm_write(p, fd, pm_range(p, p->min, p->max), name);
	if (close(fd) || err)
		return err ? err : pm_fail("close", name);
	p->pool[p->npool++] = id;
	p->created++;
	return 0;
}

/** Delete pool entry @i. */
static int pm_delete(struct pm *p, long i)
{
	char name[300];
	pm_name(p, p->pool[i], name, sizeof name);
	if (unlink(name))
		return pm_fail("unlink", name);
	p->pool[i] = p->pool[--p->npool];
	p->deleted++;
	return 0;
}

/** Read pool entry @i whole, in block pieces. */
static int pm_read(struct pm *p, long i)
{
	char name[300];
	pm_name(p, p->pool[i], name, sizeof name);
	int fd = open(name, O_RDONLY);
	if (fd < 0)
		return pm_fail("open", name);
	ssize_t r;
	while ((r = read(fd, p->buf, (size_t)p->block)) > 0)
		p->read += (unsigned long long)r;
	close(fd);
	return r < 0 ? pm_fail("read", name) : 0;
}

/** Append a random amount to pool entry @i. */
static int pm_append(struct pm *p, long i)
{
	char name[300];
	pm_name(p, p->pool[i], name, sizeof name);
	int fd = open(name, O_WRONLY | O_APPEND);
	if (fd < 0)
		return pm_fail("open", name);
	int err = pm_write(p, fd, pm_range(p, p->min, p->max), name);
	return close(fd) || err ? -1 : 0;
}

/** One transaction: create or delete, then read or append. */
static int pm_transaction(struct pm *p)
{
	int err = 0;
	if (pm_rand(p) % 2 || p->npool == 0)
		err = pm_create(p);
	else
		err = pm_delete(p, (long)(pm_rand(p) % (unsigned long)p->npool));
	if (err || p->npool == 0)
		return err;
	long i = (long)(pm_rand(p) % (unsigned long)p->npool);
	return pm_rand(p) % 2 ? pm_read(p, i) : pm_append(p, i);
}

static double pm_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(const char *why)
{
	printf("postmark: %s\nusage: postmark [-f FILES] [-t TRANSACTIONS] "
	       "[-s MIN] [-S MAX] [-b BLOCK] [-r SEED] [-d DIR] [-o FILE]\n",
	       why);
	return 2;
}

/** Parse the command line into @p: NULL, or what is wrong. */
static const char *pm_args(struct pm *p, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] != '-' || !argv[i][1] || argv[i][2] || i + 1 >= argc)
			return "bad argument";
		const char *v = argv[++i];
		switch (argv[i - 1][1]) {
		case 'f': p->files = atol(v); break;
		case 't': p->tx = atol(v); break;
		case 's': p->min = atol(v); break;
		case 'S': p->max = atol(v); break;
		case 'b': p->block = atol(v); break;
		case 'r': p->seed = strtoul(v, NULL, 0); break;
		case 'd': p->dir = v; break;
		case 'o': p->out = v; break;
		default: return "unknown option";
		}
	}
	if (p->files < 1 || p->files > PM_MAX_FILES / 2)
		return "FILES must be 1 to 50000";
	if (p->tx < 0 || p->tx > PM_MAX_FILES / 2 || p->min < 1 ||
	    p->max < p->min)
		return "need 0 <= TRANSACTIONS <= 50000 and 1 <= MIN <= MAX";
	if (p->block < 1 || p->block > 65536)
		return "BLOCK must be 1 to 65536";
	return NULL;
}

/** Print the result line (and write it to p->out). */
static void pm_report(const struct pm *p, double secs)
{
	char line[256];
	long us = (long)(secs * 1e6);
	snprintf(line, sizeof line,
		 "POSTMARK-RESULT us=%ld tx=%ld tps=%ld read=%llu written=%llu "
		 "created=%ld deleted=%ld\n",
		 us, p->tx, secs > 0 ? (long)((double)p->tx / secs) : 0, p->read,
		 p->written, p->created, p->deleted);
	printf("%s", line);
	if (p->out) {
		FILE *f = fopen(p->out, "w");
		if (f) {
			fputs(line, f);
			fclose(f);
		}
	}
}

int main(int argc, char **argv)
{
	static struct pm p = {.files = 500, .tx = 500, .min = 500, .max = 10000,
			      .block = 512, .seed = 42, .dir = "/pm"};
	const char *why = pm_args(&p, argc, argv);
	if (why)
		return usage(why);
	/* the pool never holds more than the files plus one a transaction */
	p.pool = malloc(sizeof(long) * (size_t)(p.files + p.tx + 1));
	p.buf = malloc((size_t)p.block);
	if (!p.pool || !p.buf)
		return usage("out of memory");
	memset(p.buf, 'p', (size_t)p.block);
	if (mkdir(p.dir, 0755) && errno != EEXIST)
		return pm_fail("mkdir", p.dir), 1;
	double t0 = pm_now();
	int err = 0;
	for (long i = 0; !err && i < p.files; i++)
		err = pm_create(&p);
	for (long i = 0; !err && i < p.tx; i++)
		err = pm_transaction(&p);
	while (p.npool > 0) /* even after an error: leave nothing behind */
		if (pm_delete(&p, p.npool - 1))
			break;
	double secs = pm_now() - t0;
	if (err) {
		printf("postmark: stopped by the error above\n");
		return 1;
	}
	printf("postmark: %ld files, %ld transactions, %ld..%ld bytes, "
	       "%ld-byte blocks: %.3f s\n", p.files, p.tx, p.min, p.max,
	       p.block, secs);
	pm_report(&p, secs);
	return 0;
}
