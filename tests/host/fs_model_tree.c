/*
 * The model of the file-system model test (fs_model.h): directories as
 * arrays of entries, files as arrays of blocks, and path resolution
 * giving the errors ext2_namei gives, in the same order (a symlink is
 * not a directory: a path goes through none). Invariants: a directory
 * has exactly one name (its parent's entry; root: none) and a parent
 * pointer; a file's or a symlink's names are the entries that name it,
 * its link count; a node with no names is freed; by_ino[n->ino] == n
 * for every named node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs_model.h"

/** splitmix64: the run's one random stream, from its seed. */
uint64_t fsm_rand(struct fsm *m)
{
	uint64_t z = (m->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/** A number in [0, n) (0 if n is 0). */
uint64_t fsm_below(struct fsm *m, uint64_t n)
{
	return n ? fsm_rand(m) % n : 0;
}

/** @len bytes that depend only on @seed and their position. */
void fsm_fill(uint8_t *buf, uint64_t len, uint64_t seed)
{
	uint64_t s = seed | 1;
	for (uint64_t i = 0; i < len; i++) {
		if (i % 8 == 0) { /* xorshift64 */
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		}
		buf[i] = (uint8_t)(s >> (8 * (i % 8)));
	}
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		abort();
	return p;
}

struct fsm_node *fsm_node_new(struct fsm *m, enum fsm_type type)
{
	(void)m;
	struct fsm_node *n = xcalloc(1, sizeof *n);
	n->type = type;
	n->dirty = true;
	return n;
}

static void node_free(struct fsm *m, struct fsm_node *n)
{
	for (uint32_t i = 0; i < n->nblk; i++)
		free(n->blk[i]);
	free(n->blk);
	free(n->ent);
	free(n->target);
	if (n->ino && n->ino <= m->inodes && m->by_ino[n->ino] == n)
		m->by_ino[n->ino] = NULL;
	free(n);
}

/** One name of @n is gone: free it with its last one. */
void fsm_node_unname(struct fsm *m, struct fsm_node *n)
{
	if (n->names > 1) {
		n->names--;
		n->dirty = true;
		return;
	}
	node_free(m, n);
}

static void tree_free(struct fsm *m, struct fsm_node *dir)
{
	for (unsigned i = 0; i < dir->nent; i++) {
		struct fsm_node *n = dir->ent[i].node;
		if (n->type == FSM_DIR)
			tree_free(m, n);
		else
			fsm_node_unname(m, n);
	}
	node_free(m, dir);
}

/** Free the whole model. */
void fsm_tree_free(struct fsm *m)
{
	if (m->root)
		tree_free(m, m->root);
	m->root = NULL;
}

struct fsm_dent *fsm_dir_find(struct fsm_node *dir, const char *name,
			      size_t len)
{
	for (unsigned i = 0; i < dir->nent; i++) {
		struct fsm_dent *d = &dir->ent[i];
		if (d->len == len && !memcmp(d->name, name, len))
			return d;
	}
	return NULL;
}

/** Add entry @name -> @n to @dir (the name is known to be new). */
void fsm_dir_add(struct fsm *m, struct fsm_node *dir, const char *name,
		 size_t len, struct fsm_node *n)
{
	if (dir->nent == dir->cap) {
		dir->cap = dir->cap ? 2 * dir->cap : 8;
		dir->ent = realloc(dir->ent, dir->cap * sizeof *dir->ent);
		if (!dir->ent)
			abort();
	}
	struct fsm_dent *d = &dir->ent[dir->nent++];
	memcpy(d->name, name, len);
	d->name[len] = 0;
	d->len = (unsigned)len;
	d->node = n;
	n->names++;
	if (n->type == FSM_DIR)
		n->parent = dir;
	dir->dirty = true;
	m->names_gen++;
}

/** Remove entry @d of @dir (its node's name count is the caller's). */
void fsm_dir_del(struct fsm *m, struct fsm_node *dir, struct fsm_dent *d)
{
	*d = dir->ent[--dir->nent];
	dir->dirty = true;
	m->names_gen++;
}

unsigned fsm_dir_subdirs(const struct fsm_node *dir)
{
	unsigned k = 0;
	for (unsigned i = 0; i < dir->nent; i++)
		k += dir->ent[i].node->type == FSM_DIR;
	return k;
}

/** Look up component @name in @cur as ext2_lookup does: a name too
 *  long, then not a directory, then absent. */
static int lookup(struct fsm_node *cur, const char *name, size_t len,
		  struct fsm_node **n)
{
	if (len > EXT2_NAME_MAX)
		return -ENAMETOOLONG;
	if (cur->type != FSM_DIR)
		return -ENOTDIR;
	struct fsm_dent *d = fsm_dir_find(cur, name, len);
	if (!d)
		return -ENOENT;
	*n = d->node;
	return 0;
}

/** The node of absolute @path, or the error ext2_namei gives. */
int fsm_resolve(struct fsm *m, const char *path, struct fsm_node **n)
{
	struct fsm_node *cur = m->root;
	while (*path) {
		while (*path == '/')
			path++;
		size_t len = strcspn(path, "/");
		if (!len)
			break;
		int err = lookup(cur, path, len, &cur);
		if (err)
			return err;
		path += len;
	}
	*n = cur;
	return 0;
}

void fsm_split(const char *path, char up[FSM_PATH], const char **name,
	       size_t *len)
{
	const char *slash = strrchr(path, '/');
	size_t plen = slash ? (size_t)(slash - path) : 0;
	memcpy(up, path, plen);
	up[plen] = 0;
	*name = slash ? slash + 1 : path;
	*len = strlen(*name);
}

/** Split @path into its parent (resolved into *@dir, which may not be a
 *  directory) and its last component *@name of *@len bytes. */
int fsm_parent(struct fsm *m, const char *path, struct fsm_node **dir,
	       const char **name, size_t *len)
{
	char up[FSM_PATH];
	fsm_split(path, up, name, len);
	return fsm_resolve(m, up, dir);
}

/** Is @n @top or inside @top's subtree? */
bool fsm_within(const struct fsm_node *n, const struct fsm_node *top)
{
	for (; n; n = n->parent)
		if (n == top)
			return true;
	return false;
}

/** Make @f's block array cover @nblk blocks. */
static void file_blocks(struct fsm_node *f, uint32_t nblk)
{
	if (nblk <= f->nblk)
		return;
	f->blk = realloc(f->blk, nblk * sizeof *f->blk);
	if (!f->blk)
		abort();
	memset(f->blk + f->nblk, 0, (nblk - f->nblk) * sizeof *f->blk);
	f->nblk = nblk;
}

void fsm_file_write(struct fsm *m, struct fsm_node *f, uint64_t off,
		    const uint8_t *src, uint64_t len)
{
	uint32_t bs = m->bs;
	if (len)
		file_blocks(f, (uint32_t)((off + len + bs - 1) / bs));
	for (uint64_t done = 0; done < len;) {
		uint64_t pos = off + done, in = pos % bs;
		uint64_t n = bs - in < len - done ? bs - in : len - done;
		uint8_t **b = &f->blk[pos / bs];
		if (!*b)
			*b = xcalloc(1, bs);
		memcpy(*b + in, src + done, n);
		done += n;
	}
	if (len && off + len > f->size)
		f->size = off + len;
	fsm_file_dirty(f, off, off + len);
}

/** Bytes [@lo, @hi) of file @f changed. */
void fsm_file_dirty(struct fsm_node *f, uint64_t lo, uint64_t hi)
{
	if (f->dlo >= f->dhi)
		f->dlo = lo, f->dhi = hi;
	f->dlo = lo < f->dlo ? lo : f->dlo;
	f->dhi = hi > f->dhi ? hi : f->dhi;
	f->dirty = true;
}

/** Bytes [@off, @off + @len) of @f, zeros past its end. */
void fsm_file_read(struct fsm *m, const struct fsm_node *f, uint64_t off,
		   uint8_t *dst, uint64_t len)
{
	uint32_t bs = m->bs;
	for (uint64_t done = 0; done < len;) {
		uint64_t pos = off + done, in = pos % bs;
		uint64_t n = bs - in < len - done ? bs - in : len - done;
		uint64_t i = pos / bs;
		if (i < f->nblk && f->blk[i] && pos < f->size)
			memcpy(dst + done, f->blk[i] + in, n);
		else
			memset(dst + done, 0, n);
		done += n;
	}
}

/** Are @len bytes at @buf file @f's bytes at @off? A hole is compared
 *  with zeros in place, without a copy. */
bool fsm_file_same(struct fsm *m, const struct fsm_node *f, uint64_t off,
		   const uint8_t *buf, uint64_t len)
{
	static const uint8_t zero[64 * 1024];
	uint32_t bs = m->bs;
	for (uint64_t done = 0; done < len;) {
		uint64_t pos = off + done, in = pos % bs;
		uint64_t n = bs - in < len - done ? bs - in : len - done;
		uint64_t i = pos / bs;
		const uint8_t *want = i < f->nblk && f->blk[i] ? f->blk[i] + in
							       : zero;
		if (pos + n > f->size || n > sizeof zero ||
		    memcmp(buf + done, want, n))
			return false;
		done += n;
	}
	return true;
}

/** Set @f's size: blocks past it dropped, the last one's tail zeroed
 *  (it reads as zeros if the file grows again). */
void fsm_file_truncate(struct fsm *m, struct fsm_node *f, uint64_t size)
{
	uint32_t bs = m->bs;
	uint64_t keep = (size + bs - 1) / bs;
	for (uint64_t i = keep; i < f->nblk; i++) {
		free(f->blk[i]);
		f->blk[i] = NULL;
	}
	if (keep < f->nblk)
		f->nblk = (uint32_t)keep;
	if (size % bs && keep <= f->nblk && f->blk[keep - 1])
		memset(f->blk[keep - 1] + size % bs, 0, bs - size % bs);
	uint64_t lo = size < f->size ? size : f->size;
	fsm_file_dirty(f, lo / bs * bs, size > f->size ? size : f->size);
	f->size = size;
}
