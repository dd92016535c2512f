/*
 * The operations of the file-system model test (fs_model.h): for each
 * kind, what the model says its result must be (checked in the order
 * the library checks, so that of two errors the same one is expected)
 * and how the library is called.
 *
 * Adding an operation is a row of fsm_kinds and its model_ and lib_
 * functions. The model counts a node's names (link, unlink of one of
 * several names, a rename onto another name of the same inode, which
 * changes nothing) and has a symlink type (its target in ->target,
 * ->size its length), which ext2_write, _read and _truncate refuse and
 * a path cannot go through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_model.h"

/* ---- what the model says ---- */

/** ext2's name check: "." and ".." are not names, nor too long ones. */
static int name_ok(const char *name, size_t len)
{
	if (len == 0 || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	return len > EXT2_NAME_MAX ? -ENAMETOOLONG : 0;
}

/** The parent of @path, a directory without its last component (as
 *  ext2_create and ext2_mkdir check it). */
static int new_entry(struct fsm *m, const char *path, struct fsm_node **dir,
		     const char **name, size_t *len)
{
	int err = fsm_parent(m, path, dir, name, len);
	if (!err)
		err = name_ok(*name, *len);
	if (!err && (*dir)->type != FSM_DIR)
		err = -ENOTDIR;
	if (!err && fsm_dir_find(*dir, *name, *len))
		err = -EEXIST;
	return err;
}

/** The entry @path names in its parent *@dir (as ext2_unlink, ext2_rmdir
 *  and ext2_rename find it). */
static int old_entry(struct fsm *m, const char *path, struct fsm_node **dir,
		     struct fsm_dent **d)
{
	const char *name;
	size_t len;
	int err = fsm_parent(m, path, dir, &name, &len);
	if (!err)
		err = name_ok(name, len);
	if (!err && (*dir)->type != FSM_DIR)
		err = -ENOTDIR;
	if (!err && !(*d = fsm_dir_find(*dir, name, len)))
		err = -ENOENT;
	return err;
}

/** A new node gets the library's inode number: one no other has. */
static long adopt(struct fsm *m, struct fsm_node *n)
{
	uint32_t ino = m->ino_out;
	if (ino < EXT2_ROOT_INO || ino > m->inodes || m->by_ino[ino]) {
		snprintf(m->why, sizeof m->why,
			 "the library gave inode %u, %s", ino,
			 ino > m->inodes || ino < EXT2_ROOT_INO
				 ? "out of range" : "already in use");
		return FSM_WRONG;
	}
	n->ino = ino;
	m->by_ino[ino] = n;
	return 0;
}

/** Symlink @op's target into @buf (op->len bytes): bytes 1 to 255 from
 *  op->data, and a NUL at op->off - 1 if op->off. Model and library
 *  make it alike. */
static void target_of(const struct fsm_op *op, char *buf)
{
	fsm_fill((uint8_t *)buf, op->len, op->data);
	for (uint64_t i = 0; i < op->len; i++)
		buf[i] = (char)((uint8_t)buf[i] % 255 + 1);
	if (op->off && op->off <= op->len)
		buf[op->off - 1] = 0;
}

/** A new node of @type named op->a (a symlink: its target @op's). */
static long model_make(struct fsm *m, const struct fsm_op *op, bool apply,
		       enum fsm_type type)
{
	struct fsm_node *dir, *n;
	const char *name;
	size_t len;
	int err = new_entry(m, op->a, &dir, &name, &len);
	if (err || !apply)
		return err;
	n = fsm_node_new(m, type);
	if (type == FSM_SYMLINK) {
		n->target = malloc(op->len);
		if (!n->target)
			abort();
		target_of(op, n->target);
		n->size = op->len;
	}
	fsm_dir_add(m, dir, name, len, n);
	return adopt(m, n);
}

static long model_create(struct fsm *m, const struct fsm_op *op, bool apply)
{
	return model_make(m, op, apply, FSM_FILE);
}

static long model_mkdir(struct fsm *m, const struct fsm_op *op, bool apply)
{
	return model_make(m, op, apply, FSM_DIR);
}

/** ext2_symlink as the test calls it: op->a's parent, then the target
 *  (empty or with a NUL, then too long for a block), then the name. */
static long model_symlink(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *dir;
	const char *name;
	size_t len;
	int err = fsm_parent(m, op->a, &dir, &name, &len);
	if (!err && (!op->len || (op->off && op->off <= op->len)))
		err = -EINVAL;
	if (!err && op->len >= m->bs)
		err = -ENAMETOOLONG;
	return err ? err : model_make(m, op, apply, FSM_SYMLINK);
}

/** ext2_link as the test calls it: op->a resolved, op->b's parent, then
 *  the library's order: a directory, the link count, the new name. */
static long model_link(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *n, *dir;
	const char *name;
	size_t len;
	int err = fsm_resolve(m, op->a, &n);
	if (!err)
		err = fsm_parent(m, op->b, &dir, &name, &len);
	if (!err && n->type == FSM_DIR)
		err = -EPERM;
	if (!err && n->names >= EXT2_LINK_MAX)
		err = -EMLINK;
	if (!err)
		err = new_entry(m, op->b, &dir, &name, &len);
	if (err || !apply)
		return err;
	fsm_dir_add(m, dir, name, len, n);
	n->dirty = true;
	return 0;
}

/** ext2_unlink: a name of a file or a symlink. A file that keeps other
 *  names is compared whole at the next check, through them. */
static long model_unlink(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *dir;
	struct fsm_dent *d;
	int err = old_entry(m, op->a, &dir, &d);
	if (!err && d->node->type == FSM_DIR)
		err = -EISDIR;
	if (err || !apply)
		return err;
	struct fsm_node *n = d->node;
	fsm_dir_del(m, dir, d);
	if (n->type == FSM_FILE && n->names > 1)
		fsm_file_dirty(n, 0, n->size);
	fsm_node_unname(m, n);
	return 0;
}

static long model_rmdir(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *dir;
	struct fsm_dent *d;
	int err = old_entry(m, op->a, &dir, &d);
	if (!err && d->node->type != FSM_DIR)
		err = -ENOTDIR;
	if (!err && d->node->nent)
		err = -ENOTEMPTY;
	if (err || !apply)
		return err;
	struct fsm_node *n = d->node;
	fsm_dir_del(m, dir, d);
	fsm_node_unname(m, n);
	return 0;
}

/** ext2_rename's checks after both parents resolved: the source entry,
 *  the new name, a directory not into itself, what the new name holds. */
static int rename_check(struct fsm *m, const struct fsm_op *op,
			struct fsm_node **fdir, struct fsm_dent **f,
			struct fsm_node **tdir, const char **to, size_t *tlen)
{
	const char *from;
	size_t flen;
	int err = fsm_parent(m, op->a, fdir, &from, &flen);
	if (!err) /* the test's call resolves both parents first */
		err = fsm_parent(m, op->b, tdir, to, tlen);
	if (!err)
		err = old_entry(m, op->a, fdir, f);
	if (!err)
		err = name_ok(*to, *tlen);
	if (!err && (*tdir)->type != FSM_DIR)
		err = -ENOTDIR;
	struct fsm_node *n = err ? NULL : (*f)->node;
	if (!err && n->type == FSM_DIR && fsm_within(*tdir, n))
		err = -EINVAL;
	struct fsm_dent *t = err ? NULL : fsm_dir_find(*tdir, *to, *tlen);
	if (!t || t->node == n)
		return err;
	if ((t->node->type == FSM_DIR) != (n->type == FSM_DIR))
		return n->type == FSM_DIR ? -ENOTDIR : -EISDIR;
	return t->node->nent ? -ENOTEMPTY : 0;
}

static long model_rename(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *fdir, *tdir;
	struct fsm_dent *f, *t;
	const char *to;
	size_t tlen;
	int err = rename_check(m, op, &fdir, &f, &tdir, &to, &tlen);
	if (err)
		return err;
	struct fsm_node *n = f->node;
	t = fsm_dir_find(tdir, to, tlen);
	m->expect_noop = t && t->node == n; /* a name onto itself */
	if (!apply || m->expect_noop)
		return 0;
	fsm_dir_del(m, fdir, f);
	n->names--;
	if ((t = fsm_dir_find(tdir, to, tlen))) { /* replaced */
		struct fsm_node *old = t->node;
		fsm_dir_del(m, tdir, t);
		fsm_node_unname(m, old);
	}
	fsm_dir_add(m, tdir, to, tlen, n);
	n->dirty = true;
	return 0;
}

/** The file @path names for ext2_write/_read/_truncate: a regular
 *  file; -EISDIR for a directory, -EINVAL for a symlink. */
static int old_file(struct fsm *m, const char *path, struct fsm_node **n)
{
	int err = fsm_resolve(m, path, n);
	if (!err && (*n)->type == FSM_DIR)
		err = -EISDIR;
	if (!err && (*n)->type == FSM_SYMLINK)
		err = -EINVAL;
	return err;
}

static long model_write(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *n;
	int err = old_file(m, op->a, &n);
	if (!err && op->off + op->len > 0xffffffffull)
		err = -EFBIG;
	if (err)
		return err;
	m->expect_noop = op->len == 0; /* POSIX: "no other results" */
	if (apply)
		fsm_file_write(m, n, op->off, m->wbuf, op->len);
	return (long)op->len;
}

static long model_read(struct fsm *m, const struct fsm_op *op, bool apply)
{
	struct fsm_node *n;
	int err = old_file(m, op->a, &n);
	if (err)
		return err;
	m->expect_noop = true;
	uint64_t len = op->off >= n->size ? 0 : n->size - op->off;
	len = len < op->len ? len : op->len;
	if (!apply)
		return (long)len;
	fsm_file_read(m, n, op->off, m->mbuf, len);
	if (!memcmp(m->rbuf, m->mbuf, len))
		return (long)len;
	uint64_t i = 0;
	while (m->rbuf[i] == m->mbuf[i])
		i++;
	snprintf(m->why, sizeof m->why, "byte %llu of %.600s reads %#x, not %#x",
		 (unsigned long long)(op->off + i), op->a, m->rbuf[i],
		 m->mbuf[i]);
	return FSM_WRONG;
}

static long model_truncate(struct fsm *m, const struct fsm_op *op,
			   bool apply)
{
	struct fsm_node *n;
	int err = old_file(m, op->a, &n);
	if (!err && op->off > 0xffffffffull)
		err = -EFBIG;
	if (err || !apply)
		return err;
	fsm_file_truncate(m, n, op->off);
	return 0;
}

/* ---- how the library is called ---- */

/** ext2_namei of @path's parent into *@dir, its last component out. */
int fsm_lib_parent(struct fsm *m, const char *path, uint32_t *dir,
		   const char **name, size_t *len)
{
	char up[FSM_PATH];
	fsm_split(path, up, name, len);
	return ext2_namei(&m->fs, up, dir);
}

static long lib_create(struct fsm *m, const struct fsm_op *op)
{
	uint32_t dir;
	const char *name;
	size_t len;
	int err = fsm_lib_parent(m, op->a, &dir, &name, &len);
	return err ? err
		   : ext2_create(&m->fs, dir, name, len, 0644, &m->ino_out);
}

static long lib_mkdir(struct fsm *m, const struct fsm_op *op)
{
	uint32_t dir;
	const char *name;
	size_t len;
	int err = fsm_lib_parent(m, op->a, &dir, &name, &len);
	return err ? err
		   : ext2_mkdir(&m->fs, dir, name, len, 0755, &m->ino_out);
}

static long lib_symlink(struct fsm *m, const struct fsm_op *op)
{
	uint32_t dir;
	const char *name;
	size_t len;
	int err = fsm_lib_parent(m, op->a, &dir, &name, &len);
	target_of(op, (char *)m->wbuf);
	return err ? err
		   : ext2_symlink(&m->fs, dir, name, len, (char *)m->wbuf,
				  op->len, &m->ino_out);
}

static long lib_link(struct fsm *m, const struct fsm_op *op)
{
	uint32_t ino, dir;
	const char *name;
	size_t len;
	int err = ext2_namei(&m->fs, op->a, &ino);
	if (!err)
		err = fsm_lib_parent(m, op->b, &dir, &name, &len);
	return err ? err : ext2_link(&m->fs, dir, name, len, ino);
}

static long lib_unlink(struct fsm *m, const struct fsm_op *op)
{
	uint32_t dir;
	const char *name;
	size_t len;
	int err = fsm_lib_parent(m, op->a, &dir, &name, &len);
	return err ? err : ext2_unlink(&m->fs, dir, name, len);
}

static long lib_rmdir(struct fsm *m, const struct fsm_op *op)
{
	uint32_t dir;
	const char *name;
	size_t len;
	int err = fsm_lib_parent(m, op->a, &dir, &name, &len);
	return err ? err : ext2_rmdir(&m->fs, dir, name, len);
}

static long lib_rename(struct fsm *m, const struct fsm_op *op)
{
	uint32_t fdir, tdir;
	const char *from, *to;
	size_t flen, tlen;
	int err = fsm_lib_parent(m, op->a, &fdir, &from, &flen);
	if (!err)
		err = fsm_lib_parent(m, op->b, &tdir, &to, &tlen);
	return err ? err
		   : ext2_rename(&m->fs, fdir, from, flen, tdir, to, tlen);
}

static long lib_write(struct fsm *m, const struct fsm_op *op)
{
	uint32_t ino;
	int err = ext2_namei(&m->fs, op->a, &ino);
	fsm_fill(m->wbuf, op->len, op->data);
	return err ? err : ext2_write(&m->fs, ino, op->off, m->wbuf, op->len);
}

/* ext2_read promises nothing for a directory (F reads those with
 * ext2_readdir): the test does not ask. */
static long lib_read(struct fsm *m, const struct fsm_op *op)
{
	uint32_t ino;
	struct ext2_stat st;
	int err = ext2_namei(&m->fs, op->a, &ino);
	if (!err)
		err = ext2_stat(&m->fs, ino, &st);
	if (!err && (st.mode & EXT2_S_IFMT) == EXT2_S_IFDIR)
		err = -EISDIR;
	return err ? err : ext2_read(&m->fs, ino, op->off, m->rbuf, op->len);
}

static long lib_truncate(struct fsm *m, const struct fsm_op *op)
{
	uint32_t ino;
	int err = ext2_namei(&m->fs, op->a, &ino);
	return err ? err : ext2_truncate(&m->fs, ino, op->off);
}

/* The mix. inodes/blocks: what the operation may take at most (a
 * directory entry: a block, an indirect and a double indirect one; a
 * slow symlink's target: one more). link's a is a directory (EPERM)
 * one time in 8. */
const struct fsm_kind fsm_kinds[] = {
	{"create", 14, FSM_A_NEW, 1, 3, model_create, lib_create},
	{"mkdir", 6, FSM_A_NEW, 1, 4, model_mkdir, lib_mkdir},
	{"write", 26, FSM_A_OLD | FSM_A_FILE | FSM_RANGE | FSM_DATA, 0, 3,
	 model_write, lib_write},
	{"read", 8, FSM_A_OLD | FSM_A_FILE | FSM_RANGE, 0, 0, model_read,
	 lib_read},
	{"truncate", 9, FSM_A_OLD | FSM_A_FILE | FSM_SIZE, 0, 0,
	 model_truncate, lib_truncate},
	{"unlink", 9, FSM_A_OLD | FSM_A_NODIR, 0, 0, model_unlink, lib_unlink},
	{"rmdir", 6, FSM_A_OLD | FSM_A_DIR, 0, 0, model_rmdir, lib_rmdir},
	{"rename", 14, FSM_A_OLD | FSM_B_ANY, 0, 3, model_rename, lib_rename},
	{"link", 8, FSM_A_OLD | FSM_A_NODIR | FSM_A_SOMEDIR | FSM_B_ANY, 0, 3,
	 model_link, lib_link},
	{"symlink", 6, FSM_A_NEW | FSM_TARGET, 1, 4, model_symlink,
	 lib_symlink},
	{NULL, 0, 0, 0, 0, NULL, NULL},
};

/** The blocks @op may take at most: its kind's, plus a write's data
 *  blocks and the indirect blocks that map them. */
unsigned fsm_op_blocks(const struct fsm *m, const struct fsm_op *op)
{
	unsigned k = op->kind->blocks;
	if ((op->kind->args & FSM_DATA) && op->len) {
		uint64_t n = (op->off + op->len - 1) / m->bs - op->off / m->bs + 1;
		k += (unsigned)(n + n / (m->bs / 4) + 1);
	}
	return k;
}

/** One line for @op: what a reproduction needs. */
void fsm_op_text(const struct fsm_op *op, char *out, size_t n)
{
	const struct fsm_kind *k = op->kind;
	if (k->args & FSM_B_ANY)
		snprintf(out, n, "%s %s -> %s", k->name, op->a, op->b);
	else if (k->args & FSM_RANGE)
		snprintf(out, n, "%s %s off=%llu len=%llu", k->name, op->a,
			 (unsigned long long)op->off,
			 (unsigned long long)op->len);
	else if (k->args & FSM_SIZE)
		snprintf(out, n, "%s %s size=%llu", k->name, op->a,
			 (unsigned long long)op->off);
	else if (k->args & FSM_TARGET) /* nul: its NUL's position, -1: none */
		snprintf(out, n, "%s %s target=%llu nul=%lld", k->name, op->a,
			 (unsigned long long)op->len, (long long)op->off - 1);
	else
		snprintf(out, n, "%s %s", k->name, op->a);
}
