/*
 * Corrupt images: F's ext2 code (user/servers/fs/ext2*.c) on copies of a
 * small mke2fs image with bytes changed in its metadata: the superblock,
 * the group descriptors, the block and inode bitmaps, inodes, directory
 * entries, indirect and double-indirect blocks, each found by parsing
 * the image (never fixed offsets). Each case mounts the copy and walks
 * it (every directory, stat and read of every file, a few writes, the
 * walk again). It must end with an error whose reason is in fs->why,
 * never a crash (ASan, UBSan halting), an endless loop (an alarm, a read
 * budget) or a read outside the device (the callback fails it and the
 * case fails).
 *
 * Each case runs in a child process of its own: the image is the
 * parent's copy in memory, so the child's changes go away with it.
 * Deterministic: case i of seed S is the same everywhere. Environment:
 * EXT2_CORRUPT_CASES (per test, default 400), EXT2_CORRUPT_SEED
 * (default 1), EXT2_CORRUPT_ONLY=i (that case alone, its mutations
 * printed). Each test runs on an image of 4 KiB blocks, and as NAME_1k
 * (a quarter of the cases) on one of 1 KiB blocks. Images in
 * build/host/ext2-corrupt/, never committed.
 */
#define _GNU_SOURCE
#define HTEST_MAIN
#include "host_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../user/servers/fs/ext2.h"

#define DIR_ "build/host/ext2-corrupt"
#define IMG DIR_ "/base.img"
#define PATHS "PATH=$PATH:/usr/sbin:/sbin "
#define READ_BUDGET 400000u /* device reads in one case: more is a loop */
#define CASE_SECS 60u /* alarm of one case: a loop without reads (a case
			* takes milliseconds; a busy host must not fail it) */
#define READ_CAP (6u << 20) /* bytes of a (possibly huge) file read */
#define MAX_DEPTH 24

/* UBSan reports become fatal, so that a child's exit status shows them. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

/* ---- the image, in memory ---- */

static uint8_t *img;   /* the pristine image (a child changes its copy) */
static uint32_t nblk;  /* blocks of the image: the device's size */
static uint32_t bs = EXT2_BLOCK; /* the file system's block size */
static uint32_t fsblk; /* its blocks: nblk * EXT2_BLOCK / bs */
static unsigned long reads; /* in the child: device reads of this case */
static uint32_t bad_read = ~0u; /* a block read past the device, if any */

static int dev_read(void *ctx, uint32_t blk, void *buf)
{
	(void)ctx;
	if (blk >= nblk) {
		if (bad_read == ~0u)
			bad_read = blk;
		return -EIO;
	}
	if (++reads > READ_BUDGET) {
		fprintf(stderr, "more than %u device reads: a loop\n",
			READ_BUDGET);
		_exit(12);
	}
	memcpy(buf, img + (size_t)blk * EXT2_BLOCK, EXT2_BLOCK);
	return 0;
}

static int dev_write(void *ctx, uint32_t blk, const void *buf)
{
	(void)ctx;
	if (blk >= nblk) {
		fprintf(stderr, "write of block %u past the device (%u)\n", blk,
			nblk);
		_exit(13);
	}
	memcpy(img + (size_t)blk * EXT2_BLOCK, buf, EXT2_BLOCK);
	return 0;
}

static uint32_t dev_now(void *ctx)
{
	(void)ctx;
	return 1764000000u;
}

/* The get callback (F's zero-copy reads): the block in one of two
 * buffers in turn, the other poisoned, so that a pointer kept past the
 * next block call reads garbage (as B's window page reused would). */
static uint8_t get_a[EXT2_BLOCK], get_b[EXT2_BLOCK]; /* ASan redzones around each */

static const void *dev_get(void *ctx, uint32_t blk, int *err)
{
	static uint8_t *const two[2] = {get_a, get_b};
	static unsigned next;
	uint8_t *b = two[next];
	next ^= 1;
	memset(two[next], 0xa5, EXT2_BLOCK);
	*err = dev_read(ctx, blk, b);
	return *err ? NULL : b;
}

static const struct ext2_dev dev = {.read = dev_read, .write = dev_write,
				    .now = dev_now};
static const struct ext2_dev dev_with_get = {
	.read = dev_read, .write = dev_write, .now = dev_now, .get = dev_get};
static bool use_get; /* odd cases: through dev_with_get */

static uint32_t rd32(uint64_t off) /* little-endian u32 at image byte @off */
{
	const uint8_t *p = img + off;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t rd16(uint64_t off)
{
	return (uint16_t)(img[off] | img[off + 1] << 8);
}

/* ---- metadata regions, found by parsing the image ---- */

enum kind { K_SB, K_GD, K_BBM, K_IBM, K_INODE, K_DIRENT, K_IND, K_DIND, K_N };
static const char *const kind_name[K_N] = {
	"superblock", "group descriptor", "block bitmap", "inode bitmap",
	"inode",      "directory entry",  "indirect block",
	"double-indirect block"};

struct region {
	uint64_t off;  /* image byte */
	uint32_t len;
	uint32_t what; /* inode number, group, or block: for the report */
};

#define MAX_REGIONS 4096
static struct region regions[K_N][MAX_REGIONS];
static unsigned nregions[K_N];

static void region_add(enum kind k, uint64_t off, uint32_t len, uint32_t what)
{
	if (nregions[k] < MAX_REGIONS && len)
		regions[k][nregions[k]++] = (struct region){off, len, what};
}

/** Each entry of directory block @blk (of inode @ino) a region: its
 *  header and name. */
static void parse_dir_block(uint32_t blk, uint32_t ino)
{
	uint64_t base = (uint64_t)blk * bs;
	for (uint32_t off = 0; off + 8 <= bs;) {
		uint32_t rec = rd16(base + off + 4);
		region_add(K_DIRENT, base + off, 8u + img[base + off + 6], ino);
		if (rec < 8)
			break;
		off += rec;
	}
}

/** The used part of indirect block @blk (@k: K_IND or K_DIND), and for
 *  a double-indirect one the indirect blocks it names. */
static void parse_ind(uint32_t blk, enum kind k, uint32_t ino)
{
	if (!blk || blk >= fsblk)
		return;
	uint64_t base = (uint64_t)blk * bs;
	uint32_t used = 0;
	for (uint32_t i = 0; i < bs / 4; i++) {
		uint32_t v = rd32(base + 4 * i);
		if (v)
			used = i + 1;
		if (v && k == K_DIND)
			parse_ind(v, K_IND, ino);
	}
	region_add(k, base, 4 * (used ? used : 1), ino);
}

/** Inode @ino at image byte @at: its bytes, and its directory blocks or
 *  indirect blocks. */
static void parse_inode(uint32_t ino, uint64_t at)
{
	uint16_t mode = rd16(at), links = rd16(at + 26);
	if (!mode || !links)
		return;
	region_add(K_INODE, at, 128, ino);
	if ((mode & EXT2_S_IFMT) == EXT2_S_IFDIR) {
		uint32_t size = rd32(at + 4);
		for (uint32_t i = 0; i < EXT2_NDIR && i * bs < size; i++) {
			uint32_t b = rd32(at + 40 + 4 * i);
			if (b && b < fsblk)
				parse_dir_block(b, ino);
		}
	} else if ((mode & EXT2_S_IFMT) == EXT2_S_IFREG) {
		parse_ind(rd32(at + 40 + 4 * 12), K_IND, ino);
		parse_ind(rd32(at + 40 + 4 * 13), K_DIND, ino);
	}
}

/** Find every metadata region of the pristine image. */
static int parse_image(void)
{
	const uint64_t sb = 1024;
	uint32_t blocks = rd32(sb + 4), bpg = rd32(sb + 32);
	uint32_t ipg = rd32(sb + 40), isz = rd16(sb + 88);
	uint32_t fdb = rd32(sb + 20);
	bs = 1024u << rd32(sb + 24), fsblk = nblk * (EXT2_BLOCK / bs);
	if (rd16(sb + 56) != 0xEF53 || blocks != fsblk || !bpg || !ipg)
		return -1;
	uint32_t groups = (blocks - fdb + bpg - 1) / bpg;
	region_add(K_SB, sb, 256, 0); /* the fields in use are in the first 256 */
	for (uint32_t g = 0; g < groups; g++) {
		uint64_t d = (fdb + 1ull) * bs + 32ull * g;
		region_add(K_GD, d, 18, g);
		uint32_t bbm = rd32(d), ibm = rd32(d + 4), it = rd32(d + 8);
		region_add(K_BBM, (uint64_t)bbm * bs, bpg / 8, g);
		region_add(K_IBM, (uint64_t)ibm * bs, ipg / 8, g);
		for (uint32_t i = 0; i < ipg; i++)
			parse_inode(g * ipg + i + 1,
				    (uint64_t)it * bs + (uint64_t)i * isz);
	}
	for (int k = 0; k < K_N; k++)
		if (!nregions[k])
			return -2 - k;
	return 0;
}

/* ---- mutations ---- */

static uint64_t rng;

/** A value worth putting in a 32-bit field: edges, the device's end,
 *  small numbers, the old value nudged, or random. */
static uint32_t pick32(uint32_t old)
{
	static const uint32_t edge[] = {0, 1, 2, 11, 0x7fffffff, 0x80000000u,
					0xffffffffu, 0xfffffffeu, 4096, 32768};
	switch (htest_rand(&rng) % 6) {
	case 0: return edge[htest_rand(&rng) % (sizeof edge / sizeof *edge)];
	case 1: return fsblk - 1 + (uint32_t)(htest_rand(&rng) % 3);
	case 2: return (uint32_t)(htest_rand(&rng) % (2 * fsblk));
	case 3: return old + 1 - (uint32_t)(htest_rand(&rng) % 3);
	case 4: return old ^ (1u << (htest_rand(&rng) % 32));
	default: return (uint32_t)htest_rand(&rng);
	}
}

/** Half the inode mutations: a directory's inode (few, but each has
 *  its own paths), and a field the code uses (mode, size, links,
 *  i_blocks, the block map) rather than any of the 128 bytes. */
static void inode_focus(const struct region **r, uint32_t *at)
{
	for (unsigned tries = 0; tries < 64; tries++) {
		const struct region *d =
			&regions[K_INODE][htest_rand(&rng) % nregions[K_INODE]];
		if ((rd16(d->off) & EXT2_S_IFMT) == EXT2_S_IFDIR) {
			*r = d;
			break;
		}
	}
	static const uint8_t field[] = {0, 4, 26, 28, 40, 44, 48, 88, 96, 100};
	*at = field[htest_rand(&rng) % sizeof field];
}

/** Change the bytes of one region of kind @k; describe it in @out. */
static void mutate(enum kind k, char *out, size_t n)
{
	const struct region *r = &regions[k][htest_rand(&rng) % nregions[k]];
	uint32_t at = (uint32_t)(htest_rand(&rng) % r->len);
	if (k == K_INODE && htest_rand(&rng) % 2)
		inode_focus(&r, &at);
	uint64_t p = r->off + at;
	unsigned how = (unsigned)(htest_rand(&rng) % 4);
	if (how == 0 || r->len < 4) { /* one bit */
		unsigned bit = (unsigned)(htest_rand(&rng) % 8);
		snprintf(out, n, "%s %u: byte %u bit %u (image byte %llu)",
			 kind_name[k], r->what, at, bit, (unsigned long long)p);
		img[p] ^= (uint8_t)(1u << bit);
	} else if (how == 1) { /* one byte */
		uint8_t v = (uint8_t)htest_rand(&rng);
		snprintf(out, n, "%s %u: byte %u %#x -> %#x", kind_name[k],
			 r->what, at, img[p], v);
		img[p] = v;
	} else if (how == 2) { /* an aligned 16-bit field */
		p = (p & ~1ull) < r->off ? r->off : p & ~1ull;
		uint16_t v = (uint16_t)pick32(rd16(p));
		snprintf(out, n, "%s %u: u16 at %llu %#x -> %#x", kind_name[k],
			 r->what, (unsigned long long)(p - r->off), rd16(p), v);
		img[p] = (uint8_t)v, img[p + 1] = (uint8_t)(v >> 8);
	} else { /* an aligned 32-bit field */
		p = r->off + ((p - r->off) & ~3ull);
		if (p + 4 > r->off + r->len)
			p = r->off;
		uint32_t v = pick32(rd32(p));
		snprintf(out, n, "%s %u: u32 at %llu %#x -> %#x", kind_name[k],
			 r->what, (unsigned long long)(p - r->off), rd32(p), v);
		for (int i = 0; i < 4; i++)
			img[p + i] = (uint8_t)(v >> (8 * i));
	}
}

/* ---- the walk, in the child ---- */

static struct ext2_fs fs;
static unsigned failed_calls; /* calls that returned an error */
static unsigned eio_calls;    /* of them, EIO or EINVAL */
static unsigned files_read;   /* regular files read by the walks */

/** The device block of the last block the (changed) superblock counts,
 *  of the block size it says. */
static uint32_t sb_last(void)
{
	uint32_t log = rd32(1024 + 24);
	return (rd32(1024 + 4) - 1) >> (log <= 2 ? 2 - log : 0);
}

/** Check result @r of a library call named @what: 0 if it is an allowed
 *  outcome, else the child reports and exits. */
static long judge(long r, const char *what)
{
	/* ext2_mount reads the last block the superblock counts to see that
	 * the device holds it: past the device, that read must fail it */
	if (bad_read != ~0u && !strcmp(what, "mount") && r == -EIO &&
	    bad_read == sb_last() && fs.why[0])
		return r;
	if (bad_read != ~0u) {
		fprintf(stderr, "%s: read of block %u past the device (%u)\n",
			what, bad_read, nblk);
		_exit(11);
	}
	if (r >= 0)
		return r;
	failed_calls++;
	static const int ok[] = {ENOENT,       EEXIST, ENOTDIR, EISDIR,
				 ENOTEMPTY,    ENOSPC, ENAMETOOLONG, EINVAL,
				 EFBIG,	       EIO,    EROFS};
	bool known = false;
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		known |= r == -ok[i];
	if (!known) {
		fprintf(stderr, "%s: error %ld not one ext2.h names\n", what, r);
		_exit(14);
	}
	/* EINVAL is also a caller's error (a bad name, a directory moved
	 * into itself); from the mount it is the image's */
	if ((r == -EIO || (r == -EINVAL && !strcmp(what, "mount"))) &&
	    !fs.why[0]) {
		fprintf(stderr, "%s: %s without a reason in fs->why\n", what,
			r == -EIO ? "EIO" : "EINVAL");
		_exit(15);
	}
	if (r == -EIO || r == -EINVAL)
		eio_calls++;
	return r;
}

/* Wrap a call: fs->why emptied first, then judged. */
#define CALL(what, expr) (fs.why[0] = 0, judge((long)(expr), what))

struct ent {
	char name[EXT2_NAME_MAX + 1];
	uint32_t ino;
};

struct list {
	struct ent e[256];
	unsigned n;
};

static int list_fn(void *arg, const char *name, size_t len, uint32_t ino,
		   unsigned type)
{
	(void)type;
	struct list *l = arg;
	if (l->n == sizeof l->e / sizeof *l->e)
		return 1;
	memcpy(l->e[l->n].name, name, len);
	l->e[l->n].name[len] = 0;
	l->e[l->n++].ino = ino;
	return 0;
}

static uint8_t seen[1u << 16]; /* directories walked (by inode number) */
/* found by the walk, for the writes: a file, a directory (sub/many if
 * the walk found it) */
static uint32_t some_file, some_dir;

/** Stat and read file @ino: its first READ_CAP bytes and its end. */
static void read_file(uint32_t ino, uint32_t size)
{
	static uint8_t buf[65536];
	uint64_t end = size < READ_CAP ? size : READ_CAP;
	for (uint64_t off = 0; off < end; off += sizeof buf)
		if (CALL("read", ext2_read(&fs, ino, off, buf, sizeof buf)) < 0)
			return;
	if (size > sizeof buf)
		CALL("read end", ext2_read(&fs, ino, size - 100, buf, 200));
}

/** Every entry of directory @dir, recursively, each stat'ed, looked up
 *  by name and, a regular file, read. */
static void walk(uint32_t dir, int depth)
{
	struct list *l = malloc(sizeof *l);
	l->n = 0;
	uint64_t pos = 0;
	CALL("readdir", ext2_readdir(&fs, dir, &pos, list_fn, l));
	for (unsigned i = 0; i < l->n; i++) {
		struct ext2_stat st;
		uint32_t ino;
		const char *nm = l->e[i].name;
		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		CALL("lookup", ext2_lookup(&fs, dir, nm, strlen(nm), &ino));
		if (CALL("stat", ext2_stat(&fs, l->e[i].ino, &st)) < 0)
			continue;
		if ((st.mode & EXT2_S_IFMT) == EXT2_S_IFDIR) {
			uint32_t d = l->e[i].ino;
			if (depth < MAX_DEPTH && !seen[d & 0xffff]) {
				seen[d & 0xffff] = 1;
				if (!some_dir || !strcmp(nm, "many"))
					some_dir = d; /* the writes' target */
				walk(d, depth + 1);
			}
		} else {
			some_file = l->e[i].ino;
			files_read++;
			read_file(l->e[i].ino, st.size);
		}
	}
	free(l);
}

/** A few writes of every kind: create, write (direct and indirect),
 *  append to a file found, truncate, mkdir, rename, unlink, rmdir. */
static void writes(void)
{
	static uint8_t data[80000];
	uint32_t ino, d;
	memset(data, 0x5a, sizeof data);
	if (CALL("create", ext2_create(&fs, EXT2_ROOT_INO, "new", 3, 0644,
				       &ino)) == 0) {
		CALL("write", ext2_write(&fs, ino, 0, data, 20000));
		CALL("write", ext2_write(&fs, ino, 60000, data, 5000));
	}
	if (some_file) {
		CALL("write", ext2_write(&fs, some_file, 4090, data, 3000));
		CALL("truncate", ext2_truncate(&fs, some_file, 100));
	}
	uint32_t to = some_dir ? some_dir : EXT2_ROOT_INO;
	if (CALL("mkdir", ext2_mkdir(&fs, EXT2_ROOT_INO, "nd", 2, 0755, &d)) == 0)
		CALL("create", ext2_create(&fs, d, "f", 1, 0644, &ino));
	CALL("rename", ext2_rename(&fs, EXT2_ROOT_INO, "new", 3, to, "moved", 5));
	CALL("rename", ext2_rename(&fs, EXT2_ROOT_INO, "sub", 3, EXT2_ROOT_INO,
				   "sub2", 4));
	/* a directory into another: up its ".." entries (not_ancestor) */
	CALL("rename", ext2_rename(&fs, EXT2_ROOT_INO, "nd", 2, to, "nd2", 3));
	CALL("unlink", ext2_unlink(&fs, EXT2_ROOT_INO, "small.txt", 9));
	CALL("unlink", ext2_unlink(&fs, d, "f", 1));
	CALL("rmdir", ext2_rmdir(&fs, to, "nd2", 3));
	CALL("sync", ext2_sync(&fs));
}

/** Exit with @status, or 16 if fs->zero is not all zeros: it follows
 *  fs->buf in struct ext2_fs, so a write past the scratch block lands
 *  there, inside one object, where ASan does not look (and nothing
 *  writes fs->zero, so a change stays until the case ends). */
_Noreturn static void case_exit(int status)
{
	static const uint8_t zeros[sizeof fs.zero];
	if (memcmp(fs.zero, zeros, sizeof zeros)) {
		fprintf(stderr, "fs->zero changed: a write past fs->buf\n");
		_exit(16);
	}
	_exit(status);
}

/** Half the time, s_inodes_count made to agree with the (changed)
 *  block count, blocks and inodes per group and first data block, as
 *  ext2_mount computes the groups: the change then passes the
 *  superblock's consistency check and reaches what lies behind it. */
static void sb_agree(bool show)
{
	if (htest_rand(&rng) % 2)
		return;
	uint32_t blocks = rd32(1024 + 4), fdb = rd32(1024 + 20);
	uint32_t bpg = rd32(1024 + 32), ipg = rd32(1024 + 40);
	uint32_t groups = bpg ? (blocks - fdb + bpg - 1) / bpg : 0;
	uint32_t inodes = groups * ipg;
	for (int i = 0; i < 4; i++)
		img[1024 + i] = (uint8_t)(inodes >> (8 * i));
	if (show)
		fprintf(stderr, "  superblock: s_inodes_count set to %u\n",
			inodes);
}

/* Child exit statuses besides 0 (mounted and walked without an EIO)
 * and the failures of run_case. */
#define EXIT_REFUSED 20 /* the mount failed (with a reason) */
#define EXIT_EIO 21     /* mounted; some calls failed with EIO/EINVAL */
#define EXIT_PRISTINE 22 /* the unchanged image did not walk whole */
#define PRISTINE_FILES 164u /* regular files of load_image's tree */

/* A case made by hand instead of random mutations (NULL: random). */
static void (*by_hand)(void);

static void put32_img(uint64_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		img[off + i] = (uint8_t)(v >> (8 * i));
}

/** The image byte of the first regular file's inode with a block. */
static uint64_t first_file_inode(void)
{
	for (unsigned i = 0; i < nregions[K_INODE]; i++) {
		uint64_t at = regions[K_INODE][i].off;
		if ((rd16(at) & EXT2_S_IFMT) == EXT2_S_IFREG && rd32(at + 40))
			return at;
	}
	return 0;
}

/** One case in the child: mutate, mount, walk, write, walk again.
 *  @nmut 0: the image unchanged, which must walk whole without an
 *  error; it is left in DIR_/walked.img for e2fsck. */
static void child_case(unsigned nmut, int kind, uint64_t seed, bool show)
{
	rng = seed;
	char what[160];
	if (by_hand)
		by_hand();
	for (unsigned m = 0; m < nmut && !by_hand; m++) {
		enum kind k = kind >= 0 ? (enum kind)kind
					: (enum kind)(htest_rand(&rng) % K_N);
		mutate(k, what, sizeof what);
		if (show)
			fprintf(stderr, "  %s\n", what);
		if (k == K_SB)
			sb_agree(show);
	}
	alarm(CASE_SECS);
	const struct ext2_dev *d = use_get ? &dev_with_get : &dev;
	/* the group table, as large as the (changed) superblock says */
	long n = CALL("mount", ext2_groups(&fs, d));
	struct ext2_group *groups = n > 0 ? malloc(ext2_group_bytes(&fs)) : NULL;
	if (n < 0 || !groups ||
	    CALL("mount", ext2_mount(&fs, d, groups, (uint32_t)n)) < 0)
		case_exit(EXIT_REFUSED);
	seen[EXT2_ROOT_INO] = 1;
	walk(EXT2_ROOT_INO, 0);
	unsigned first = files_read;
	writes();
	memset(seen, 0, sizeof seen);
	walk(EXT2_ROOT_INO, 0);
	if (nmut == 0 && !by_hand) {
		int fd = open(DIR_ "/walked.img", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		bool ok = fd >= 0 && write(fd, img, (size_t)nblk * EXT2_BLOCK) ==
					     (ssize_t)nblk * EXT2_BLOCK;
		if (fd >= 0)
			close(fd);
		if (!ok || failed_calls || first != PRISTINE_FILES)
			fprintf(stderr, "pristine: %u files, %u failed calls\n",
				first, failed_calls);
		case_exit(!ok || failed_calls || first != PRISTINE_FILES
				  ? EXIT_PRISTINE : 0);
	}
	case_exit(eio_calls ? EXIT_EIO : 0);
}

/* ---- the parent ---- */

static uint32_t want_bs = 4096; /* the block size of the next test's image */

/** Make the base image of want_bs-byte blocks (two block groups) and
 *  load it, unless it is loaded; 0 or -1. */
static int load_image(void)
{
	static bool locked;
	if (img && bs == want_bs)
		return 0;
	if (!locked)
		htest_lock(DIR_ ".lock"), locked = true;
	free(img), img = NULL;
	memset(nregions, 0, sizeof nregions);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, PATHS
		 "rm -rf " DIR_ " && mkdir -p " DIR_ "/tree/sub/deep " DIR_
		 "/tree/sub/many && cd " DIR_ "/tree && "
		 "head -c 100 /dev/urandom > small.txt && : > empty && "
		 "head -c 61440 /dev/zero | tr '\\0' 'i' > sub/indirect.bin && "
		 "printf a > sub/deep/sparse.bin && "
		 "printf z | dd of=sub/deep/sparse.bin bs=1 seek=4500000 "
		 "conv=notrunc 2>/dev/null && "
		 "for i in $(seq 1 160); do echo $i > sub/many/a-file-with-a-longer-name-$i; done && "
		 "cd - >/dev/null && mke2fs -q -F -t ext2 -b %u -g %u -N 512 "
		 "-d " DIR_ "/tree " IMG " 6M >/dev/null 2>&1",
		 want_bs, want_bs == 4096 ? 1024 : 8 * want_bs / 2);
	if (system(cmd))
		return -1;
	int fd = open(IMG, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return -1;
	nblk = (uint32_t)(st.st_size / EXT2_BLOCK);
	img = malloc((size_t)st.st_size);
	bool ok = read(fd, img, (size_t)st.st_size) == st.st_size;
	close(fd);
	return ok ? parse_image() : -1;
}

/* Outcomes of the passing cases of one test. */
struct tally {
	unsigned refused, eio, clean;
};

/** Run case @i (@nmut mutations of kind @kind, -1 any) in a child;
 *  NULL if it passed (its outcome counted in *@t), else why it failed. */
static const char *run_case(unsigned i, unsigned nmut, int kind, bool show,
			    struct tally *t)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull * (htest_env_num("EXT2_CORRUPT_SEED", 1) +
						 1000003ull * i + 17ull * (unsigned)(kind + 1)) +
			1;
	use_get = i % 2;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		child_case(nmut, kind, seed, show);
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return "fork or wait failed";
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return t->clean++, NULL;
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_REFUSED)
		return t->refused++, NULL;
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_EIO)
		return t->eio++, NULL;
	if (WIFSIGNALED(st))
		return WTERMSIG(st) == SIGALRM ? "endless loop (alarm)"
					       : "killed by a signal";
	switch (WEXITSTATUS(st)) {
	case 11: return "read past the device";
	case 12: return "read budget exceeded (a loop)";
	case 13: return "write past the device";
	case 14: return "unexpected errno";
	case 15: return "error without a reason";
	case 16: return "a write past fs->buf";
	case EXIT_PRISTINE: return "the unchanged image did not walk whole";
	default: return "crashed (ASan/UBSan report above)";
	}
}

/** @n cases of @nmut mutations of kind @kind; the failures reported
 *  (each with its mutations) and counted into @msg. */
static int run_cases(int kind, unsigned nmut, char *msg, size_t msz)
{
	/* a quarter of them on the image of 1 KiB blocks */
	unsigned n = htest_env_num("EXT2_CORRUPT_CASES", 400) * bs / 4096;
	unsigned fails = 0;
	unsigned only = htest_env_num("EXT2_CORRUPT_ONLY", ~0u);
	struct tally t = {0, 0, 0}, ignore;
	const char *name = kind < 0 ? "mixed" : kind_name[kind];
	for (unsigned i = 0; i < n; i++) {
		if (only != ~0u && i != only)
			continue;
		const char *why = run_case(i, nmut, kind, only != ~0u, &t);
		if (!why)
			continue;
		if (fails++ < 3) {
			fprintf(stderr, "case %u of kind %s: %s; mutations:\n", i,
				name, why);
			run_case(i, nmut, kind, true, &ignore); /* shows them */
		}
		if (fails == 1)
			snprintf(msg, msz, "case %u: %s", i, why);
	}
	fprintf(stderr, "%s (%u-byte blocks): %u cases: %u refused at mount, "
		"%u with EIO, %u without, %u failing\n", name, bs, n, t.refused,
		t.eio, t.clean, fails);
	return (int)fails;
}

#define KIND_TEST_BS(name, kind, nmut, size)                            \
	HTEST(name)                                                      \
	{                                                                \
		char msg[200] = "";                                      \
		want_bs = size;                                          \
		CHECK_EQ(load_image(), 0);                               \
		int fails = run_cases(kind, nmut, msg, sizeof msg);      \
		if (fails)                                               \
			HTEST_FAIL_("%d failing cases, first %s", fails, \
				    msg);                                \
	}
/* Each kind on 4 KiB blocks, and (a quarter as many cases) on 1 KiB;
 * the 4 KiB tests first, so that each image is made once. */
#define KIND_TESTS(suffix, size)                                                \
	KIND_TEST_BS(corrupt_superblock##suffix, K_SB, 1, size)                  \
	KIND_TEST_BS(corrupt_group_descriptors##suffix, K_GD, 1, size)           \
	KIND_TEST_BS(corrupt_block_bitmaps##suffix, K_BBM, 2, size)              \
	KIND_TEST_BS(corrupt_inode_bitmaps##suffix, K_IBM, 2, size)              \
	KIND_TEST_BS(corrupt_inodes##suffix, K_INODE, 1, size)                   \
	KIND_TEST_BS(corrupt_directory_entries##suffix, K_DIRENT, 1, size)       \
	KIND_TEST_BS(corrupt_indirect_blocks##suffix, K_IND, 1, size)            \
	KIND_TEST_BS(corrupt_double_indirect_blocks##suffix, K_DIND, 1, size)    \
	KIND_TEST_BS(corrupt_anything_three_times##suffix, -1, 3, size)

KIND_TESTS(, 4096)

/* The walk itself: the parse found every kind (else a kind's test
 * would test nothing), and the unchanged image mounts, walks whole
 * (every file read), takes every write without an error and is then
 * clean under e2fsck. */
static void pristine_walk(struct htest_ctx *htest_ctx_, uint32_t size)
{
	struct tally t = {0, 0, 0};
	want_bs = size;
	CHECK_EQ(load_image(), 0);
	for (int k = 0; k < K_N; k++)
		CHECK(nregions[k] > 0);
	CHECK(nregions[K_DIRENT] > 160);
	const char *why = run_case(0, 0, -1, false, &t);
	if (why)
		HTEST_FAIL_("%s", why);
	CHECK_EQ(system(PATHS "e2fsck -fn " DIR_ "/walked.img >" DIR_
			"/fsck.log 2>&1"), 0);
}

HTEST(pristine_image_walks_whole)
{
	pristine_walk(htest_ctx_, 4096);
}


/* A superblock that counts more blocks than the device has, and a
 * file's block just past the device's end (below the superblock's). */
static void sb_past_device(void)
{
	put32_img(1024 + 4, fsblk + 1); /* the group count stays the same */
	put32_img(first_file_inode() + 40, fsblk);
}

/* A block count of 0 and a first data block that makes the group count
 * 1 again (32-bit wrap), with the inode count to match. */
static void sb_zero_blocks(void)
{
	uint32_t ipg = rd32(1024 + 40);
	put32_img(1024 + 4, 0);
	put32_img(1024 + 20, 0xffffffffu);
	put32_img(1024, ipg);
}

/* A first data block of 2^32 - 1: the group descriptors' block (the
 * next) wraps to block 0, and the groups' first blocks wrap too. */
static void sb_wrapping_first_block(void)
{
	put32_img(1024 + 20, 0xffffffffu);
}

/** The ".." entry of the directory named @name (its second entry). */
static uint64_t dotdot_of(const char *name)
{
	uint32_t ino = 0;
	size_t len = strlen(name);
	for (unsigned i = 0; i < nregions[K_DIRENT] && !ino; i++) {
		uint64_t at = regions[K_DIRENT][i].off;
		if (img[at + 6] == len && !memcmp(img + at + 8, name, len))
			ino = rd32(at);
	}
	for (unsigned i = 0; ino && i < nregions[K_DIRENT]; i++) {
		uint64_t at = regions[K_DIRENT][i].off;
		if (regions[K_DIRENT][i].what == ino && img[at + 6] == 2 &&
		    !memcmp(img + at + 8, "..", 2))
			return at;
	}
	return 0;
}

/* A loop of ".." entries: sub/many's ".." names many itself, and the
 * writes move a directory into it (rename's walk up to the root). */
static void dotdot_loop(void)
{
	uint64_t at = dotdot_of("many");
	put32_img(at, rd32(at & ~(uint64_t)(bs - 1))); /* ".": first */
}

/* Each case, and whether the mount must refuse the image (a
 * superblock that cannot describe it). */
static const struct {
	void (*make)(void);
	bool refused;
} hand_cases[] = {{sb_past_device, true},
		  {sb_zero_blocks, true},
		  {sb_wrapping_first_block, true},
		  {dotdot_loop, false}};

static void by_hand_cases(struct htest_ctx *htest_ctx_, uint32_t size)
{
	want_bs = size;
	CHECK_EQ(load_image(), 0);
	for (size_t i = 0; i < sizeof hand_cases / sizeof *hand_cases; i++) {
		struct tally t = {0, 0, 0};
		by_hand = hand_cases[i].make;
		const char *why = run_case(0, 0, -1, false, &t);
		by_hand = NULL;
		if (why)
			HTEST_FAIL_("case %zu: %s", i, why);
		if (hand_cases[i].refused && !t.refused)
			HTEST_FAIL_("case %zu: mounted, should be refused", i);
	}
}

HTEST(corrupt_by_hand)
{
	by_hand_cases(htest_ctx_, 4096);
}

KIND_TESTS(_1k, 1024)

HTEST(pristine_image_walks_whole_1k)
{
	pristine_walk(htest_ctx_, 1024);
}

HTEST(corrupt_by_hand_1k)
{
	by_hand_cases(htest_ctx_, 1024);
}
