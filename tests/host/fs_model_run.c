/*
 * The runs of the file-system model test (fs_model.h): the image, made
 * by mke2fs once per shape and block size and mapped from a file that
 * e2fsck reads; the device the library goes through, which keeps an undo
 * log of each step (every block's bytes before the step first wrote it);
 * the steps, each judged against the model; the periodic checks; and the
 * narrowing of a failure found by a periodic check to its first step.
 *
 * A step whose result the model refuses, or that failed (or must change
 * nothing) and changed the image or the free counts, is a defect: it is
 * reported with its seed and step, undone from the undo log (the image)
 * and a copy of struct ext2_fs (the counts), and the run goes on, the
 * model unchanged. A mismatch found after a step was taken (a listing,
 * contents, e2fsck) stops the run: the model no longer says what the
 * image holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs_model.h"

#define IMG_DIR "build/host/fs_model"
#define IMG_PATH 256 /* an image's path, its logs' */
#define T0 1764000000u /* the clock at step 0; one second per step */

/* Two shapes: one block group with mke2fs's inode count, and three
 * groups with few inodes (a fill runs out of inodes, not blocks). */
const struct fsm_shape fsm_shapes[] = {
	{"one", 8192, 0, 0},
	{"groups", 6144, 2048, 384},
	{NULL, 0, 0, 0},
};

/* The block sizes of the runs: every size the library takes. */
const unsigned fsm_block_sizes[] = {1024, 2048, 4096, 0};
#define FSM_GROUPS 256
static struct ext2_group fsm_groups[FSM_GROUPS], fsm_groups_saved[FSM_GROUPS];

/* ---- the device ---- */

struct fsm_dev {
	uint8_t *img;       /* the image file, mapped */
	size_t size;
	uint32_t nblk;      /* device blocks of EXT2_BLOCK bytes */
	uint32_t *saved;    /* saved[b] == stamp: b is in this step's log */
	uint32_t stamp;     /* the step's number, from 1 */
	uint32_t *ublk;     /* the undo log: each block written ... */
	uint8_t *uold;      /* ... and its bytes before the step */
	size_t nu, cap;
	uint32_t now;       /* the library's clock */
	uint32_t past_end;  /* a block past the end asked for (+1), or 0 */
};

static int dev_check(struct fsm_dev *d, uint32_t blk)
{
	if (blk < d->nblk)
		return 0;
	if (!d->past_end)
		d->past_end = blk + 1;
	return -EIO;
}

static int dev_read(void *ctx, uint32_t blk, void *buf)
{
	struct fsm_dev *d = ctx;
	int err = dev_check(d, blk);
	if (!err)
		memcpy(buf, d->img + (size_t)blk * EXT2_BLOCK, EXT2_BLOCK);
	return err;
}

/** Keep block @blk's bytes before its first write of this step. */
static void undo_save(struct fsm_dev *d, uint32_t blk)
{
	if (d->saved[blk] == d->stamp)
		return;
	if (d->nu == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->ublk = realloc(d->ublk, d->cap * sizeof *d->ublk);
		d->uold = realloc(d->uold, d->cap * EXT2_BLOCK);
		if (!d->ublk || !d->uold)
			abort();
	}
	d->saved[blk] = d->stamp;
	d->ublk[d->nu] = blk;
	memcpy(d->uold + d->nu * EXT2_BLOCK, d->img + (size_t)blk * EXT2_BLOCK,
	       EXT2_BLOCK);
	d->nu++;
}

static int dev_write(void *ctx, uint32_t blk, const void *buf)
{
	struct fsm_dev *d = ctx;
	int err = dev_check(d, blk);
	if (!err) {
		undo_save(d, blk);
		memcpy(d->img + (size_t)blk * EXT2_BLOCK, buf, EXT2_BLOCK);
	}
	return err;
}

/* The get callback: the mapped block itself (it stays valid). */
static const void *dev_get(void *ctx, uint32_t blk, int *err)
{
	struct fsm_dev *d = ctx;
	*err = dev_check(d, blk);
	return *err ? NULL : d->img + (size_t)blk * EXT2_BLOCK;
}

static uint32_t dev_now(void *ctx)
{
	return ((struct fsm_dev *)ctx)->now;
}

/** Put the image back as it was before the step. */
static void undo(struct fsm *m)
{
	struct fsm_dev *d = m->dev;
	for (size_t i = 0; i < d->nu; i++)
		memcpy(d->img + (size_t)d->ublk[i] * EXT2_BLOCK,
		       d->uold + i * EXT2_BLOCK, EXT2_BLOCK);
	memcpy(&m->fs, &m->saved, sizeof m->fs);
	memcpy(fsm_groups, fsm_groups_saved, sizeof fsm_groups);
}

/* ---- the image ---- */

/** The image file of a run of @o: one per process, so that runs at the
 *  same time (make test and make fs-fuzz) do not share it. */
static void img_path(const struct fsm_opts *o, char *out, size_t n)
{
	snprintf(out, n, IMG_DIR "/%s-%u.%ld.img", o->shape->name,
		 o->block_size, (long)getpid());
}

/** Remove the files of a run that passed (a failed one's stay). */
static void img_remove(const struct fsm_opts *o)
{
	char path[IMG_PATH + 16];
	img_path(o, path, IMG_PATH);
	unlink(path);
	strcat(path, ".fsck.log");
	unlink(path);
	img_path(o, path, IMG_PATH);
	strcat(path, ".mkfs.log");
	unlink(path);
}

/** mke2fs the shape of @o at @path: the same bytes every time (fixed
 *  clock, UUID and hash seed). 0 or -1 with the reason in @why. */
static int mkfs(const struct fsm_opts *o, const char *path, char *why)
{
	const struct fsm_shape *s = o->shape;
	char bs[16], g[16], n[16], size[24], log[IMG_PATH + 16];
	char *argv[24] = {"mke2fs", "-q", "-F", "-t", "ext2", "-b", bs,
			  "-U", "6b0e3a70-1d2c-4c55-9d1e-5a2f2c1c0001", "-E",
			  "hash_seed=6b0e3a70-1d2c-4c55-9d1e-5a2f2c1c0002"};
	int k = 11;
	snprintf(bs, sizeof bs, "%u", o->block_size);
	snprintf(g, sizeof g, "%u", s->group_kib * 1024 / o->block_size);
	snprintf(n, sizeof n, "%u", s->inodes);
	snprintf(size, sizeof size, "%uk", s->kib);
	if (s->group_kib)
		argv[k++] = "-g", argv[k++] = g;
	if (s->inodes)
		argv[k++] = "-N", argv[k++] = n;
	argv[k++] = (char *)path, argv[k++] = size;
	char *env[] = {"E2FSPROGS_FAKE_TIME=1764000000",
		       "PATH=/usr/sbin:/sbin:/usr/bin:/bin", NULL};
	snprintf(log, sizeof log, "%s.mkfs.log", path);
	unlink(path);
	int st = fsm_spawn(argv, log, env);
	if (st)
		snprintf(why, FSM_MSG, "mke2fs %s: exit %d (see %s)", path, st, log);
	return st ? -1 : 0;
}

/* Images as mke2fs made them, one per shape and block size. */
static struct pristine {
	const struct fsm_shape *shape;
	unsigned bs;
	uint8_t *bytes;
	size_t size;
} pristine[16];
static unsigned npristine;

/** The bytes mke2fs makes for @o (made once per process). */
static const struct pristine *image_made(const struct fsm_opts *o, char *why)
{
	char path[IMG_PATH];
	for (unsigned i = 0; i < npristine; i++)
		if (pristine[i].shape == o->shape && pristine[i].bs == o->block_size)
			return &pristine[i];
	if (npristine == 16)
		return snprintf(why, FSM_MSG, "too many images"), NULL;
	img_path(o, path, sizeof path);
	mkdir(IMG_DIR, 0755);
	if (mkfs(o, path, why))
		return NULL;
	struct pristine *p = &pristine[npristine];
	FILE *f = fopen(path, "rb");
	p->size = (size_t)o->shape->kib * 1024;
	p->bytes = malloc(p->size);
	if (!f || fread(p->bytes, 1, p->size, f) != p->size) {
		snprintf(why, FSM_MSG, "cannot read %s", path);
		free(p->bytes);
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	p->shape = o->shape, p->bs = o->block_size;
	return &pristine[npristine++];
}

/** A fresh copy of @o's image in its file, mapped into @d. */
static int image_open(const struct fsm_opts *o, struct fsm_dev *d, char *why)
{
	char path[IMG_PATH];
	const struct pristine *p = image_made(o, why);
	if (!p)
		return -1;
	img_path(o, path, sizeof path);
	int fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)p->size))
		return snprintf(why, FSM_MSG, "cannot open %s", path), -1;
	d->img = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (d->img == MAP_FAILED)
		return snprintf(why, FSM_MSG, "cannot map %s", path), -1;
	memcpy(d->img, p->bytes, p->size);
	d->size = p->size;
	d->nblk = (uint32_t)(p->size / EXT2_BLOCK);
	d->saved = calloc(d->nblk, sizeof *d->saved);
	return 0;
}

static void image_close(struct fsm_dev *d)
{
	if (d->img && d->img != MAP_FAILED)
		munmap(d->img, d->size);
	free(d->saved);
	free(d->ublk);
	free(d->uold);
}

/* ---- results, defects, statistics ---- */

/* Result classes of the statistics; a result's text. */
static const struct {
	int err;
	const char *name;
} classes[] = {
	{0, "ok"},	      {ENOENT, "ENOENT"},   {EEXIST, "EEXIST"},
	{ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},   {ENOTEMPTY, "ENOTEMPTY"},
	{EINVAL, "EINVAL"},   {ENAMETOOLONG, "ENAMETOOLONG"},
	{EFBIG, "EFBIG"},     {ENOSPC, "ENOSPC"},   {EPERM, "EPERM"},
	{EMLINK, "EMLINK"},   {-1, "short"},	    {-2, "other"},
};
#define NCLASS (sizeof classes / sizeof classes[0])
_Static_assert(NCLASS <= sizeof ((struct fsm *)0)->stat[0] /
			       sizeof ((struct fsm *)0)->stat[0][0],
	       "struct fsm's stat has a column per class");

static unsigned class_of(long r)
{
	for (unsigned i = 1; i < NCLASS - 2; i++)
		if (r == -classes[i].err)
			return i;
	return r >= 0 ? 0 : NCLASS - 1;
}

static const char *result_text(long r, char *buf, size_t n)
{
	unsigned c = class_of(r);
	if (r >= 0 || c == NCLASS - 1)
		snprintf(buf, n, "%ld", r);
	else
		snprintf(buf, n, "-%s", classes[c].name);
	return buf;
}

/** A defect of class @cls met at this step (operation @op): counted;
 *  the first of its kind and class printed and kept in the result. */
static void defect(struct fsm *m, const struct fsm_op *op, const char *cls)
{
	char key[sizeof m->dkey[0]];
	unsigned i = 0;
	snprintf(key, sizeof key, "%s/%s", op->kind->name, cls);
	while (i < m->ndkeys && strcmp(m->dkey[i], key))
		i++;
	if (!m->res->defects++)
		m->res->defect_step = m->step;
	if (i < m->ndkeys || i == 16) {
		m->dcount[i < 16 ? i : 15]++;
		return;
	}
	memcpy(m->dkey[m->ndkeys], key, sizeof key);
	m->dcount[m->ndkeys++] = 1;
	if (m->o->verbose)
			printf("fs_model: DEFECT %s-%u seed %llu step %lu: %s: %s\n",
		       m->o->shape->name, m->bs, (unsigned long long)m->o->seed,
		       m->step, m->optext, m->why);
	size_t used = strlen(m->res->defect);
	snprintf(m->res->defect + used, sizeof m->res->defect - used,
		 "%sstep %lu: %s: %.160s", used ? "; " : "", m->step, m->optext,
		 m->why);
}

/** What the step changed of the image and the free counts: FSM_R_*
 *  roles, 0 if nothing; what, in m->why after @lead. */
static unsigned changed(struct fsm *m, const char *lead)
{
	struct fsm_dev *d = m->dev;
	size_t used = (size_t)snprintf(m->why, sizeof m->why, "%s", lead);
	unsigned roles = 0;
	uint32_t per = EXT2_BLOCK / m->bs;
	for (size_t i = 0; i < d->nu; i++) {
		const uint8_t *old = d->uold + i * EXT2_BLOCK;
		const uint8_t *now = d->img + (size_t)d->ublk[i] * EXT2_BLOCK;
		for (uint32_t k = 0; k < per; k++) {
			const uint8_t *o = old + k * m->bs, *p = now + k * m->bs;
			char what[FSM_MSG];
			if (!memcmp(o, p, m->bs) ||
			    fsm_block_free(m, d->img, d->ublk[i] * per + k))
				continue;
			fsm_block_change(m, d->ublk[i] * per + k, o, p, what,
					 sizeof what, &roles);
			if (used + 40 < sizeof m->why)
				used += (size_t)snprintf(m->why + used,
							 sizeof m->why - used,
							 "; %s", what);
		}
	}
	const struct ext2_fs *a = &m->saved, *b = &m->fs;
	bool counts = a->free_blocks != b->free_blocks ||
		      a->free_inodes != b->free_inodes ||
		      memcmp(fsm_groups, fsm_groups_saved, sizeof fsm_groups);
	if (counts && used + 40 < sizeof m->why)
		snprintf(m->why + used, sizeof m->why - used,
			 "; free blocks %u -> %u, inodes %u -> %u",
			 a->free_blocks, b->free_blocks, a->free_inodes,
			 b->free_inodes);
	return roles | (counts ? FSM_R_COUNTS : 0);
}

/** A defect's class: the wrong result, or what a step that must change
 *  nothing (@how) changed (@roles), e.g. "ENOSPC-changed:bbitmap,itable". */
static void defect_class(char *out, size_t n, const char *how, unsigned roles)
{
	static const char *const name[] = {"bbitmap", "ibitmap", "itable",
					   "super", "block", "counts"};
	size_t used = (size_t)snprintf(out, n, "%s%s", how,
				       roles ? "-changed" : "");
	char sep = ':';
	for (unsigned i = 0; i < 6 && used < n; i++) {
		if (roles & (1u << i)) {
			used += (size_t)snprintf(out + used, n - used, "%c%s",
						 sep, name[i]);
			sep = ',';
		}
	}
}

/* ---- a step ---- */

/** May @op have run out of space? Only if it could need more blocks or
 *  inodes than were free before it. */
static bool may_run_out(const struct fsm *m, const struct fsm_op *op)
{
	return m->saved.free_blocks < fsm_op_blocks(m, op) ||
	       m->saved.free_inodes < op->kind->inodes;
}

/** Is the library's result @got right where the model says @exp? A
 *  step that may run out of space may fail with ENOSPC, and a write
 *  may be short. Else m->why says what differs. */
static bool judge(struct fsm *m, const struct fsm_op *op, long exp, long got)
{
	char a[24], b[24];
	if (got == exp)
		return true;
	bool out = may_run_out(m, op);
	if (exp >= 0 && got == -ENOSPC && out)
		return true;
	if (exp > 0 && (op->kind->args & FSM_DATA) && got > 0 && got < exp &&
	    out)
		return true;
	snprintf(m->why, sizeof m->why, "the library says %s, the model %s%s%s",
		 result_text(got, a, sizeof a), result_text(exp, b, sizeof b),
		 got == -EIO ? ": " : "", got == -EIO ? m->fs.why : "");
	if (got == -ENOSPC)
		snprintf(m->why + strlen(m->why), sizeof m->why - strlen(m->why),
			 ", with %u blocks and %u inodes free",
			 m->saved.free_blocks, m->saved.free_inodes);
	return false;
}

/** Type, links and size of what @op's paths and their parents name. */
static int check_touched(struct fsm *m, const struct fsm_op *op)
{
	const char *paths[2] = {op->a, op->b};
	for (int i = 0; i < 2; i++) {
		struct fsm_node *dir, *n;
		const char *name;
		size_t len;
		if (!paths[i][0] || fsm_parent(m, paths[i], &dir, &name, &len))
			continue;
		char where[FSM_PATH];
		uint32_t up = dir->parent ? dir->parent->ino : EXT2_ROOT_INO;
		snprintf(where, sizeof where, "%.*s/", (int)(name - paths[i] - 1),
			 paths[i]);
		if (dir->type == FSM_DIR && fsm_check_node(m, dir, where, up, 0))
			return -1;
		if (!fsm_resolve(m, paths[i], &n) &&
		    fsm_check_node(m, n, paths[i], dir->ino, 0))
			return -1;
	}
	return 0;
}

/** Count @op's result @got, and the block-map levels a write reached. */
static void count(struct fsm *m, const struct fsm_op *op, long exp, long got)
{
	unsigned c = exp > 0 && got > 0 && got < exp ? NCLASS - 2 : class_of(got);
	m->stat[op->kind - fsm_kinds][c]++;
	if (got == -ENOSPC || c == NCLASS - 2)
		m->res->enospc++;
	if (!(op->kind->args & FSM_DATA) || got <= 0)
		return;
	uint64_t bs = m->bs, end = op->off + (uint64_t)got;
	uint64_t b1 = EXT2_NDIR * bs, b2 = b1 + bs / 4 * bs, b3 = b2 + bs / 4 * bs;
	m->reach[0] += end > b1, m->reach[1] += end > b2, m->reach[2] += end > b3;
}

/** Run one step: 0, or -1 if the run must stop (m->why). */
static int step(struct fsm *m)
{
	struct fsm_op op;
	struct fsm_dev *d = m->dev;
	char a[24], b[24];
	m->step++;
	d->stamp++, d->nu = 0, d->now = T0 + (uint32_t)m->step;
	fsm_pick(m, &op);
	fsm_op_text(&op, m->optext, sizeof m->optext);
	m->expect_noop = false;
	long exp = op.kind->model(m, &op, false);
	bool noop = m->expect_noop || exp < 0;
	memcpy(&m->saved, &m->fs, sizeof m->fs);
	memcpy(fsm_groups_saved, fsm_groups, sizeof fsm_groups);
	long got = m->last = op.kind->lib(m, &op);
	if (m->o->trace_from && m->step >= m->o->trace_from)
		printf("step %lu: %s = %s (model %s)\n", m->step, m->optext,
		       result_text(got, a, sizeof a), result_text(exp, b, sizeof b));
	count(m, &op, exp, got);
	bool right = judge(m, &op, exp, got);
	unsigned roles = right && (got < 0 || noop)
				 ? changed(m, "it must change nothing, it changed")
				 : 0;
	if (!right || roles) {
		char cls[64];
		defect_class(cls, sizeof cls,
			     !right ? "result"
			     : got < 0 ? classes[class_of(got)].name : "no-op",
			     roles);
		defect(m, &op, cls);
		undo(m);
		return 0;
	}
	if (got < 0)
		return 0;
	if (exp > 0 && got < exp)
		op.len = (uint64_t)got; /* a short write: what it wrote */
	if (op.kind->model(m, &op, true) == FSM_WRONG || check_touched(m, &op))
		return -1;
	return 0;
}

/* ---- a run ---- */

/** Synced, checked by e2fsck -fn and mounted again (nothing kept in
 *  memory only), then the whole model compared; or without e2fsck the
 *  listings and the changed files. 0, or -1 with m->why. */
static int checkpoint(struct fsm *m, bool fsck)
{
	char path[IMG_PATH];
	int err = 0;
	if (fsck) {
		img_path(m->o, path, sizeof path);
		if ((err = ext2_sync(&m->fs)))
			return snprintf(m->why, sizeof m->why, "ext2_sync: %d (%s)",
					err, m->fs.why), -1;
		if (fsm_fsck(m, path))
			return -1;
		m->res->fscks++;
		struct ext2_dev dev = m->fs.dev;
		if ((err = ext2_mount(&m->fs, &dev, fsm_groups, FSM_GROUPS)))
			return snprintf(m->why, sizeof m->why,
					"mount after e2fsck: %d (%s)", err,
					m->fs.why), -1;
	}
	return fsm_check_all(m, fsck);
}

/** The model of a fresh image: the root and its lost+found. */
static int model_init(struct fsm *m)
{
	struct fsm_node *lf = fsm_node_new(m, FSM_DIR);
	m->root = fsm_node_new(m, FSM_DIR);
	m->root->ino = EXT2_ROOT_INO, m->root->names = 1;
	m->by_ino[EXT2_ROOT_INO] = m->root;
	fsm_dir_add(m, m->root, "lost+found", 10, lf);
	lf->keep = true;
	int err = ext2_lookup(&m->fs, EXT2_ROOT_INO, "lost+found", 10, &lf->ino);
	if (err || lf->ino > m->inodes)
		return snprintf(m->why, sizeof m->why,
				"no lost+found in the new image: %d", err), -1;
	m->by_ino[lf->ino] = lf;
	return 0;
}

/** Everything a run needs: the image mounted, the model, the buffers. */
static int run_init(struct fsm *m, struct fsm_dev *d)
{
	const struct fsm_opts *o = m->o;
	m->bs = o->block_size;
	m->rng = o->seed;
	m->dev = d;
	if (image_open(o, d, m->why))
		return -1;
	/* odd seeds read through the get callback, even ones by copies */
	struct ext2_dev dev = {dev_read, dev_write, dev_now, d,
			       o->seed & 1 ? dev_get : NULL, NULL};
	int err = ext2_mount(&m->fs, &dev, fsm_groups, FSM_GROUPS);
	if (err)
		return snprintf(m->why, sizeof m->why, "mount: %d (%s)", err,
				m->fs.why), -1;
	m->inodes = m->fs.inodes;
	m->by_ino = calloc(m->inodes + 1, sizeof *m->by_ino);
	m->max_dirs = m->inodes + 2;
	m->dirs = malloc(m->max_dirs * sizeof *m->dirs);
	m->buf_len = 132 * (size_t)m->bs + 64 * 1024;
	m->wbuf = malloc(m->buf_len);
	m->rbuf = malloc(m->buf_len);
	m->mbuf = malloc(m->buf_len);
	return model_init(m);
}

static void run_free(struct fsm *m, struct fsm_dev *d)
{
	fsm_tree_free(m);
	image_close(d);
	free(m->by_ino), free(m->dirs), free(m->ents);
	free(m->wbuf), free(m->rbuf), free(m->mbuf);
}

/** The run's statistics: results per kind, writes per block-map level. */
static void summary(struct fsm *m, double cpu)
{
	const struct fsm_opts *o = m->o;
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	double fsck = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("fs_model: %s-%u seed %llu: %lu steps in %.1f s CPU (e2fsck "
	       "and mke2fs so far: %.1f s), %lu met "
	       "ENOSPC, %lu e2fsck, %lu defects; writes reaching the "
	       "indirect block %lu, the double indirect %lu, its second "
	       "indirect %lu\n",
	       o->shape->name, m->bs, (unsigned long long)o->seed, m->step, cpu,
	       fsck, m->res->enospc, m->res->fscks, m->res->defects, m->reach[0],
	       m->reach[1], m->reach[2]);
	for (const struct fsm_kind *k = fsm_kinds; k->name; k++) {
		char line[512];
		size_t used = (size_t)snprintf(line, sizeof line, "  %-9s", k->name);
		for (unsigned c = 0; c < NCLASS; c++)
			if (m->stat[k - fsm_kinds][c])
				used += (size_t)snprintf(line + used, sizeof line - used,
							 " %s %lu", classes[c].name,
							 m->stat[k - fsm_kinds][c]);
		printf("%s\n", line);
	}
	for (unsigned i = 0; i < m->ndkeys; i++)
		printf("  defect %s: %lu steps\n", m->dkey[i], m->dcount[i]);
}

/** The periodic check due after this step: 2 with e2fsck, 1 without, 0. */
static int check_due(const struct fsm *m)
{
	const struct fsm_opts *o = m->o;
	if ((o->exact_from && m->step >= o->exact_from) || m->step == o->ops)
		return 2;
	if (o->fsck_every && m->step % o->fsck_every == 0)
		return 2;
	return o->cmp_every && m->step % o->cmp_every == 0;
}

/** Run @o's steps once, without narrowing. */
static int run_once(const struct fsm_opts *o, struct fsm_result *res)
{
	struct fsm *m = calloc(1, sizeof *m);
	struct fsm_dev d = {0};
	clock_t t0 = clock();
	memset(res, 0, sizeof *res);
	m->o = o, m->res = res;
	int err = run_init(m, &d);
	if (err)
		snprintf(res->fail, sizeof res->fail, "%s", m->why);
	while (!err && m->step < o->ops) {
		int due = 0;
		if (!(err = step(m)) && (due = check_due(m)))
			err = checkpoint(m, due == 2);
		if (err) {
			snprintf(res->fail, sizeof res->fail, "%.300s: %s%.400s",
				 m->optext, due ? "checks after it: " : "", m->why);
			res->fail_step = m->step;
		} else if (due == 2) {
			res->last_good = m->step;
		}
	}
	res->steps = m->step;
	res->exact = res->fail_step && o->exact_from && m->step >= o->exact_from;
	if (o->verbose)
		summary(m, (double)(clock() - t0) / CLOCKS_PER_SEC);
	run_free(m, &d);
	if (!res->fail_step && !res->fail[0])
		img_remove(o);
	free(m);
	return err || res->defects ? 1 : 0;
}

int fsm_run(const struct fsm_opts *o, struct fsm_result *res)
{
	int r = run_once(o, res);
	if (!res->fail_step || o->exact_from)
		return r;
	/* the same steps again, every check after each from the last good */
	struct fsm_opts again = *o;
	struct fsm_result *exact = malloc(sizeof *exact);
	again.exact_from = res->last_good + 1;
	again.ops = res->fail_step;
	again.verbose = false;
	again.trace_from = 0;
	printf("fs_model: %s-%u seed %llu: failed after step %lu; running "
	       "steps %lu-%lu again with every check after each\n",
	       o->shape->name, o->block_size, (unsigned long long)o->seed,
	       res->fail_step, again.exact_from, again.ops);
	run_once(&again, exact);
	if (exact->fail_step && exact->exact) {
		res->fail_step = exact->fail_step;
		res->exact = true;
		snprintf(res->fail, sizeof res->fail, "%s", exact->fail);
	}
	free(exact);
	return r;
}
