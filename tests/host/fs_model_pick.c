/*
 * The random choice of each step's operation for the file-system model
 * test (fs_model.h). Names come from a small pool, so that creates meet
 * existing names and renames and links land on them (renames on another
 * name of the same inode too); symlink targets cluster at the fast
 * symlink's limit and the block size; offsets cluster at the
 * block-map boundaries (the first block, the first indirect, the first
 * double-indirect one, the second indirect block under it); the mix is
 * interrupted now and then by a fill of the image's blocks or inodes to
 * ENOSPC, some steps of the mix on the full image, and a free of what
 * the fill took, with a squeeze between (one block freed and taken
 * again by a step that needs two, or refused). The choice depends only
 * on the seed and the model.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_model.h"

enum { PH_MIX, PH_FILL_BLOCKS, PH_FILL_INODES, PH_FULL, PH_SQUEEZE, PH_FREE };

#define FILL_PERIOD 1500u /* steps of the mix between fills, on average */
#define FILL_MAX 20000u   /* steps a fill or a free may take at most */
#define FILL_DIR "/fill"
/* a path's room for one more component and a parent that does not exist */
#define PICK_PATH_MAX (FSM_PATH - 2 * FSM_NAME_MAX - 8)

/** Gather @dir's subtree (its path @plen bytes long) into m->dirs and
 *  m->ents, leaving out lost+found and what has too long a path. A
 *  directory is an inode (m->max_dirs bounds them); entries are not
 *  (hard links), m->ents grows. */
static void collect(struct fsm *m, struct fsm_node *dir, size_t plen)
{
	if (m->ndirs < m->max_dirs)
		m->dirs[m->ndirs++] = dir;
	for (unsigned i = 0; i < dir->nent; i++) {
		struct fsm_dent *e = &dir->ent[i];
		size_t clen = plen + 1 + e->len;
		if (e->node->keep || clen > PICK_PATH_MAX)
			continue;
		if (m->nents == m->ents_cap) {
			m->ents_cap = m->ents_cap ? 2 * m->ents_cap : 256;
			m->ents = realloc(m->ents, m->ents_cap * sizeof *m->ents);
			if (!m->ents)
				abort();
		}
		m->ents[m->nents++] = (struct fsm_pick_ent){dir, i};
		if (e->node->type == FSM_DIR)
			collect(m, e->node, clen);
	}
}

/** The path of directory @dir into @out (FSM_PATH bytes): its length. */
static size_t dir_path(const struct fsm_node *dir, char *out)
{
	const struct fsm_node *up = dir->parent;
	if (!up) {
		out[0] = 0;
		return 0;
	}
	size_t len = dir_path(up, out);
	for (unsigned i = 0; i < up->nent; i++) {
		const struct fsm_dent *e = &up->ent[i];
		if (e->node == dir) {
			out[len] = '/';
			memcpy(out + len + 1, e->name, e->len + 1);
			return len + 1 + e->len;
		}
	}
	return len; /* not reached: a directory has its parent's entry */
}

/** The path of gathered entry @i into @out. */
static void ent_path(const struct fsm *m, unsigned i, char *out)
{
	const struct fsm_pick_ent *p = &m->ents[i];
	size_t len = dir_path(p->dir, out);
	out[len] = '/';
	memcpy(out + len + 1, p->dir->ent[p->i].name, p->dir->ent[p->i].len + 1);
}

/** A name: mostly one of a few short ones, some of 64 to 255 bytes,
 *  rarely one of 256 (ENAMETOOLONG). */
static void pick_name(struct fsm *m, char *out)
{
	unsigned r = (unsigned)fsm_below(m, 1000);
	if (r < 800) {
		snprintf(out, FSM_NAME_MAX + 1, "%c", 'a' + (int)fsm_below(m, 8));
	} else if (r < 950) {
		snprintf(out, FSM_NAME_MAX + 1, "n%u", (unsigned)fsm_below(m, 40));
	} else {
		unsigned len = r < 998 ? 64 + (unsigned)fsm_below(m, 192)
				       : FSM_NAME_MAX;
		int k = snprintf(out, FSM_NAME_MAX + 1, "L%u-",
				 (unsigned)fsm_below(m, 4));
		memset(out + k, 'x', len - (unsigned)k);
		out[len] = 0;
	}
}

/** A path to make: a name in a directory mostly; else under a file
 *  (ENOTDIR) or under a directory that is not there (ENOENT). */
static void pick_new(struct fsm *m, char *out)
{
	char name[FSM_NAME_MAX + 1];
	unsigned r = (unsigned)fsm_below(m, 100);
	size_t len;
	pick_name(m, name);
	if (r < 95 || !m->nents) {
		len = dir_path(m->dirs[fsm_below(m, m->ndirs)], out);
		if (r >= 97)
			len += (size_t)snprintf(out + len, FSM_PATH - len, "/zz");
	} else {
		ent_path(m, (unsigned)fsm_below(m, m->nents), out);
		len = strlen(out);
	}
	snprintf(out + len, FSM_PATH - len, "/%s", name);
}

/** Is @t a type @args asks for (FSM_A_FILE, FSM_A_NODIR, FSM_A_DIR;
 *  none: any)? */
static bool type_wanted(enum fsm_type t, unsigned args)
{
	if (args & FSM_A_DIR)
		return t == FSM_DIR;
	if (args & FSM_A_FILE)
		return t == FSM_FILE;
	return !(args & FSM_A_NODIR) || t != FSM_DIR;
}

/** An existing path mostly (of the type @args asks for, mostly: the
 *  last of 8 tries), else a new one. */
static void pick_old(struct fsm *m, char *out, unsigned args)
{
	if (!m->nents || fsm_below(m, 100) < 8) {
		pick_new(m, out);
		return;
	}
	if ((args & FSM_A_SOMEDIR) && !fsm_below(m, 8))
		args = FSM_A_DIR;
	unsigned i = 0;
	for (int tries = 0; tries < 8; tries++) {
		i = (unsigned)fsm_below(m, m->nents);
		const struct fsm_pick_ent *p = &m->ents[i];
		if (type_wanted(p->dir->ent[p->i].node->type, args))
			break;
	}
	ent_path(m, i, out);
}

/** Another name of what @from names (a hard link), found from a random
 *  entry on: its path into @out; false if it has none. */
static bool other_name(struct fsm *m, const char *from, char *out)
{
	struct fsm_node *dir, *n;
	const char *name;
	size_t len;
	if (fsm_resolve(m, from, &n) || n->names < 2 ||
	    fsm_parent(m, from, &dir, &name, &len))
		return false;
	unsigned start = (unsigned)fsm_below(m, m->nents);
	for (unsigned k = 0; k < m->nents; k++) {
		unsigned i = (start + k) % m->nents;
		const struct fsm_pick_ent *p = &m->ents[i];
		const struct fsm_dent *e = &p->dir->ent[p->i];
		if (e->node == n && (p->dir != dir || e->len != len ||
				     memcmp(e->name, name, len))) {
			ent_path(m, i, out);
			return true;
		}
	}
	return false;
}

/** Where a rename or a link goes: a new name, an existing one, another
 *  name of the same inode, one in the same directory, or one inside
 *  the source entry. */
static void pick_to(struct fsm *m, const char *from, char *out)
{
	char name[FSM_NAME_MAX + 1];
	unsigned r = (unsigned)fsm_below(m, 100);
	if (r < 40 || !m->nents) {
		pick_new(m, out);
		return;
	}
	if (r < 70) {
		pick_old(m, out, 0);
		return;
	}
	if (r < 78 && other_name(m, from, out))
		return;
	pick_name(m, name);
	const char *slash = strrchr(from, '/');
	int keep = r < 90 && slash ? (int)(slash - from) : (int)strlen(from);
	snprintf(out, FSM_PATH, "%.*s/%s", keep, from, name);
}

/** An offset: near the start, near @size, at a block-map boundary, or
 *  anywhere up to two blocks past the second double-indirect one. */
static uint64_t pick_off(struct fsm *m, uint64_t size)
{
	uint64_t bs = m->bs, per = bs / 4;
	uint64_t b1 = EXT2_NDIR * bs, b2 = b1 + per * bs, b3 = b2 + per * bs;
	uint64_t edge[4] = {bs, b1, b2, b3};
	unsigned r = (unsigned)fsm_below(m, 100);
	uint64_t off;
	if (r < 30)
		off = fsm_below(m, 4 * bs);
	else if (r < 45)
		off = fsm_below(m, 16 * bs);
	else if (r < 60)
		off = size - fsm_below(m, (size < bs ? size : bs) + 1);
	else if (r < 90)
		off = edge[fsm_below(m, 4)] - bs + fsm_below(m, 2 * bs);
	else
		off = fsm_below(m, b3 + 2 * bs);
	return fsm_below(m, 5) ? off : off / bs * bs; /* aligned, a fifth */
}

static uint64_t pick_len(struct fsm *m)
{
	uint64_t bs = m->bs;
	unsigned r = (unsigned)fsm_below(m, 100);
	if (r < 55)
		return 1 + fsm_below(m, 2 * bs);
	if (r < 75)
		return bs * (1 + fsm_below(m, 4));
	if (r < 95)
		return 1 + fsm_below(m, 16 * bs);
	return r < 99 ? 1 + fsm_below(m, 128 * bs) : 0;
}

/** The range or size of @op (whose path is chosen) by its kind. */
static void pick_range(struct fsm *m, struct fsm_op *op)
{
	struct fsm_node *n;
	uint64_t size = !fsm_resolve(m, op->a, &n) ? n->size : 0;
	unsigned r = (unsigned)fsm_below(m, 100);
	if (op->kind->args & FSM_SIZE) {
		op->off = r < 2	   ? 0x100000000ull + fsm_below(m, m->bs) /* EFBIG */
			  : r < 20 ? 0
				   : pick_off(m, size);
	} else if (r == 0) { /* a range that ends past 4 GiB: EFBIG */
		op->off = 0xffffffffull - fsm_below(m, m->bs);
		op->len = 0xffffffffull - op->off + 1 + fsm_below(m, m->bs);
	} else {
		op->off = pick_off(m, size);
		op->len = pick_len(m);
	}
}

/** A symlink target's length and NUL (fs_model.h): one of a fast
 *  symlink's lengths or just past them mostly, the limits often (59,
 *  60 and 61 bytes about the fast one, the block size's edge, 4,095 and
 *  4,096), else any that fits a block; rarely empty, or with a NUL. */
static void pick_target(struct fsm *m, struct fsm_op *op)
{
	uint64_t bs = m->bs, fast = EXT2_FAST_LINK_MAX;
	const uint64_t edge[8] = {1, fast - 1, fast, fast + 1,
				  bs - 1, bs, 4095, 4096};
	unsigned r = (unsigned)fsm_below(m, 100);
	if (r < 35)
		op->len = 1 + fsm_below(m, fast + 1);
	else if (r < 60)
		op->len = edge[fsm_below(m, 8)];
	else
		op->len = r < 98 ? 1 + fsm_below(m, bs - 1) : 0;
	op->off = op->len && !fsm_below(m, 40) ? 1 + fsm_below(m, op->len) : 0;
}

static const struct fsm_kind *kind_named(const char *name)
{
	const struct fsm_kind *k = fsm_kinds;
	while (strcmp(k->name, name))
		k++;
	return k;
}

/** A step of the mix: a kind by weight, its arguments by its flags. */
static void pick_mix(struct fsm *m, struct fsm_op *op)
{
	unsigned total = 0;
	for (const struct fsm_kind *k = fsm_kinds; k->name; k++)
		total += k->weight;
	unsigned r = (unsigned)fsm_below(m, total);
	const struct fsm_kind *k = fsm_kinds;
	for (; r >= k->weight; k++)
		r -= k->weight;
	op->kind = k;
	if (k->args & FSM_A_NEW)
		pick_new(m, op->a);
	else
		pick_old(m, op->a, k->args);
	if (k->args & FSM_B_ANY)
		pick_to(m, op->a, op->b);
	if (k->args & (FSM_RANGE | FSM_SIZE))
		pick_range(m, op);
	if (k->args & FSM_TARGET)
		pick_target(m, op);
}

/** Switch to phase @ph for at most @steps steps. */
static void phase(struct fsm *m, int ph, unsigned steps)
{
	m->phase = ph;
	m->phase_left = steps;
}

/** Fill the blocks: files of 256 blocks in /fill, written 64 blocks at
 *  a time, until a write is refused or short. */
static bool pick_fill_blocks(struct fsm *m, struct fsm_op *op)
{
	struct fsm_node *f;
	if (m->last != m->fill_expect || m->fill_next > FILL_MAX) {
		phase(m, PH_FULL, 100 + (unsigned)fsm_below(m, 200));
		return false;
	}
	snprintf(op->a, FSM_PATH, FILL_DIR "/F%u", m->fill_next / 4);
	m->fill_expect = 0;
	if (fsm_resolve(m, FILL_DIR, &f)) {
		op->kind = kind_named("mkdir");
		snprintf(op->a, FSM_PATH, FILL_DIR);
	} else if (fsm_resolve(m, op->a, &f)) {
		op->kind = kind_named("create");
	} else {
		op->kind = kind_named("write");
		op->off = f->type == FSM_FILE ? f->size : 0;
		op->len = 64 * m->bs;
		m->fill_expect = (long)op->len;
		m->fill_next++;
	}
	return true;
}

/** Fill the inodes: empty files and fast symlinks, one in two, with
 *  names of 60 bytes in /fill until one is refused. */
static bool pick_fill_inodes(struct fsm *m, struct fsm_op *op)
{
	struct fsm_node *f;
	if (m->last < 0 || m->fill_next > FILL_MAX) {
		phase(m, PH_FULL, 100 + (unsigned)fsm_below(m, 200));
		return false;
	}
	if (fsm_resolve(m, FILL_DIR, &f)) {
		op->kind = kind_named("mkdir");
		snprintf(op->a, FSM_PATH, FILL_DIR);
		return true;
	}
	op->kind = kind_named(m->fill_next % 2 ? "symlink" : "create");
	op->len = 1 + fsm_below(m, EXT2_FAST_LINK_MAX - 1);
	snprintf(op->a, FSM_PATH, FILL_DIR "/i%05u-%.*s", m->fill_next++, 48,
		 "inode-fill-inode-fill-inode-fill-inode-fill-inode");
	return true;
}

/** A file of one data block among the direct ones (found from a random
 *  entry on), or any file: its path into @out; false if none. */
static bool one_block_file(struct fsm *m, char *out)
{
	unsigned from = (unsigned)fsm_below(m, m->nents), any = m->nents;
	for (unsigned k = 0; k < m->nents; k++) {
		unsigned i = (from + k) % m->nents;
		const struct fsm_node *n = m->ents[i].dir->ent[m->ents[i].i].node;
		if (n->type != FSM_FILE)
			continue;
		any = i;
		unsigned data = 0;
		for (uint32_t b = 0; b < n->nblk && data < 2; b++)
			data += n->blk[b] != NULL;
		if (data == 1 && n->nblk <= EXT2_NDIR)
			break;
	}
	if (any < m->nents)
		ent_path(m, any, out);
	return any < m->nents;
}

/** On a full image, free one block at a time and take it again with a
 *  directory, a file, a slow symlink or a hard link of a long name in
 *  /fill: a new directory and a slow symlink take a block, and /fill
 *  grows a block (past its direct blocks in time) for one entry in 19,
 *  so that the step that fails for space fails half way through. */
static bool pick_squeeze(struct fsm *m, struct fsm_op *op)
{
	static const char *const make[5] = {"create", "mkdir", "create",
					    "symlink", "create"};
	unsigned k = m->fill_next++;
	struct fsm_node *d;
	if (fsm_resolve(m, FILL_DIR, &d) || d->type != FSM_DIR) {
		phase(m, PH_FREE, FILL_MAX); /* nowhere to squeeze */
		return false;
	}
	bool old = (k % 5 == 0 || k % 5 == 4) && one_block_file(m, op->a);
	if (old && k % 5 == 0) {
		op->kind = kind_named("unlink");
		return true;
	}
	op->kind = kind_named(old ? "link" : make[k % 5]);
	op->len = m->bs - 1; /* a symlink's target: a block's worth */
	snprintf(old ? op->b : op->a, FSM_PATH, FILL_DIR "/S%05u-%0200u", k, 0);
	return true;
}

/** Free what a fill took: /fill's files, its empty directories, then
 *  /fill itself. */
static bool pick_free(struct fsm *m, struct fsm_op *op)
{
	struct fsm_node *d;
	if (fsm_resolve(m, FILL_DIR, &d) || d->type != FSM_DIR) {
		phase(m, PH_MIX, 0);
		return false;
	}
	for (unsigned i = 0; i < d->nent; i++) {
		struct fsm_node *n = d->ent[i].node;
		if (n->type == FSM_DIR && n->nent)
			continue;
		op->kind = kind_named(n->type == FSM_DIR ? "rmdir" : "unlink");
		snprintf(op->a, FSM_PATH, FILL_DIR "/%s", d->ent[i].name);
		return true;
	}
	op->kind = kind_named("rmdir");
	snprintf(op->a, FSM_PATH, FILL_DIR);
	phase(m, PH_MIX, 0);
	return true;
}

/** Outside the fills the image should have room mostly: with less than
 *  an eighth of its blocks or inodes free, every other step cuts or
 *  removes a file or removes a directory; false for a step of the mix. */
static bool pick_room(struct fsm *m, struct fsm_op *op)
{
	struct fsm_node *n;
	bool blocks = m->fs.free_blocks < m->fs.blocks / 8;
	if ((!blocks && m->fs.free_inodes >= m->fs.inodes / 8) ||
	    fsm_below(m, 2))
		return false;
	pick_old(m, op->a, blocks ? FSM_A_FILE : 0);
	int err = fsm_resolve(m, op->a, &n);
	bool file = !err && n->type == FSM_FILE;
	op->kind = kind_named(!err && n->type == FSM_DIR ? "rmdir"
			      : blocks && fsm_below(m, 2) ? "truncate"
							  : "unlink");
	op->off = file ? fsm_below(m, n->size / 2 + 1) : 0;
	return true;
}

/** A step of the current phase, or false for one of the mix. */
static bool pick_phase(struct fsm *m, struct fsm_op *op)
{
	if (m->phase >= PH_FULL && m->phase_left-- == 0) {
		m->fill_next = 0;
		phase(m, m->phase + 1 <= PH_FREE ? m->phase + 1 : PH_MIX,
		      m->phase == PH_FULL ? 300 : FILL_MAX);
	}
	switch (m->phase) {
	case PH_MIX:
		if (fsm_below(m, FILL_PERIOD))
			return pick_room(m, op);
		m->fill_next = 0;
		m->last = m->fill_expect = 0;
		phase(m, fsm_below(m, 2) ? PH_FILL_BLOCKS : PH_FILL_INODES, 0);
		return pick_phase(m, op);
	case PH_FILL_BLOCKS:
		return pick_fill_blocks(m, op);
	case PH_FILL_INODES:
		return pick_fill_inodes(m, op);
	case PH_SQUEEZE:
		return pick_squeeze(m, op);
	case PH_FREE:
		return pick_free(m, op);
	default:
		return false;
	}
}

/** Choose step m->step's operation and its arguments into *@op. */
void fsm_pick(struct fsm *m, struct fsm_op *op)
{
	if (!m->picked_gen || m->picked_gen != m->names_gen) {
		m->ndirs = m->nents = 0;
		collect(m, m->root, 0);
		m->picked_gen = m->names_gen;
	}
	memset(op, 0, offsetof(struct fsm_op, a));
	op->a[0] = op->b[0] = 0;
	if (!pick_phase(m, op))
		pick_mix(m, op);
	op->data = fsm_rand(m);
}
