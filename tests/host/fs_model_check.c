/*
 * The comparisons of the file-system model test (fs_model.h): the
 * library's view of a model node (type, link count, size, contents, a
 * symlink's target, a directory's entries with their inode numbers and
 * file types, "." and ".."), and e2fsck. Each puts what differs, with
 * the path, in m->why and returns -1.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs_model.h"

#define CHUNK (64u * 1024)

/* A directory as ext2_readdir gives it. */
struct listing {
	struct lent {
		char name[FSM_NAME_MAX + 1];
		unsigned len, type;
		uint32_t ino;
	} *e;
	unsigned n, cap;
};

static int listing_fn(void *arg, const char *name, size_t len, uint32_t ino,
		      unsigned type)
{
	struct listing *l = arg;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->e = realloc(l->e, l->cap * sizeof *l->e);
		if (!l->e)
			abort();
	}
	struct lent *e = &l->e[l->n++];
	len = len > FSM_NAME_MAX ? FSM_NAME_MAX : len;
	memcpy(e->name, name, len);
	e->name[len] = 0;
	e->len = (unsigned)len, e->type = type, e->ino = ino;
	return 0;
}

static int lent_cmp(const void *a, const void *b)
{
	const struct lent *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static int dent_cmp(const void *a, const void *b)
{
	const struct fsm_dent *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

/** "." and ".." of @d (at @path) in listing @l: each once, right; they
 *  are taken out of @l. */
static int check_dots(struct fsm *m, const struct fsm_node *d,
		      const char *path, uint32_t parent, struct listing *l)
{
	unsigned dots = 0, k = 0;
	for (unsigned i = 0; i < l->n; i++) {
		const struct lent *e = &l->e[i];
		bool dot = !strcmp(e->name, "."), dotdot = !strcmp(e->name, "..");
		if (!dot && !dotdot) {
			l->e[k++] = *e;
			continue;
		}
		uint32_t want = dot ? d->ino : parent;
		dots += dot ? 1 : 16;
		if (e->ino != want || e->type != FSM_DIR)
			return snprintf(m->why, sizeof m->why,
					"%s/%s: inode %u type %u, not %u type %u",
					path, e->name, e->ino, e->type, want,
					FSM_DIR), -1;
	}
	l->n = k;
	if (dots != 17)
		return snprintf(m->why, sizeof m->why,
				"%s: %u \".\" and %u \"..\" listed", path,
				dots % 16, dots / 16), -1;
	return 0;
}

/** Listing @l (no dots) against @d's entries, both sorted by name. */
static int check_names(struct fsm *m, const struct fsm_node *d,
		       const char *path, struct listing *l)
{
	const struct fsm_dent **md = malloc((d->nent + 1) * sizeof *md);
	for (unsigned i = 0; i < d->nent; i++)
		md[i] = &d->ent[i];
	qsort(md, d->nent, sizeof *md, dent_cmp);
	qsort(l->e, l->n, sizeof *l->e, lent_cmp);
	unsigned i = 0, j = 0;
	int err = 0;
	while (!err && (i < l->n || j < d->nent)) {
		const struct lent *e = i < l->n ? &l->e[i] : NULL;
		int c = !e ? 1 : j == d->nent ? -1 : strcmp(e->name, md[j]->name);
		if (c > 0)
			snprintf(m->why, sizeof m->why, "%s/%s made, not listed",
				 path, md[j]->name);
		else if (c < 0)
			snprintf(m->why, sizeof m->why,
				 "%s/%s (inode %u) listed %s", path, e->name,
				 e->ino, j && !strcmp(e->name, md[j - 1]->name)
						 ? "twice" : "but not made");
		else if (e->ino != md[j]->node->ino || e->type != md[j]->node->type)
			snprintf(m->why, sizeof m->why,
				 "%s/%s: inode %u type %u listed, not %u type %u",
				 path, e->name, e->ino, e->type,
				 md[j]->node->ino, md[j]->node->type);
		err = c || e->ino != md[j]->node->ino ||
		      e->type != md[j]->node->type;
		i++, j++;
	}
	free(md);
	return err ? -1 : 0;
}

/** Directory @d's entries as the library lists them, against the model. */
static int check_listing(struct fsm *m, const struct fsm_node *d,
			 const char *path, uint32_t parent)
{
	struct listing l = {0};
	uint64_t pos = 0;
	int err = ext2_readdir(&m->fs, d->ino, &pos, listing_fn, &l);
	if (err) {
		snprintf(m->why, sizeof m->why, "readdir %s: %d (%s)", path,
			 err, m->fs.why);
		err = -1;
	}
	if (!err)
		err = check_dots(m, d, path, parent, &l);
	if (!err)
		err = check_names(m, d, path, &l);
	free(l.e);
	return err;
}

/** File @f's bytes [@from, @to) as the library reads them, against the
 *  model, and nothing past its end. */
static int check_contents(struct fsm *m, const struct fsm_node *f,
			  const char *path, uint64_t from, uint64_t to)
{
	uint64_t off = from;
	long got = 0;
	for (to = to < f->size ? to : f->size; off < to && got >= 0; off += CHUNK) {
		uint64_t want = to - off < CHUNK ? to - off : CHUNK;
		if ((got = ext2_read(&m->fs, f->ino, off, m->rbuf, want)) !=
		    (long)want)
			break;
		if (fsm_file_same(m, f, off, m->rbuf, want))
			continue;
		fsm_file_read(m, f, off, m->mbuf, want);
		uint64_t i = 0;
		while (m->rbuf[i] == m->mbuf[i])
			i++;
		return snprintf(m->why, sizeof m->why,
				"%s: byte %llu is %#x, not %#x", path,
				(unsigned long long)(off + i), m->rbuf[i],
				m->mbuf[i]), -1;
	}
	if (off >= to) /* all read: then nothing at the end */
		got = ext2_read(&m->fs, f->ino, off = f->size, m->rbuf, 1);
	if (off < to || got)
		return snprintf(m->why, sizeof m->why,
				"%s: read at %llu gave %ld", path,
				(unsigned long long)off, got), -1;
	return 0;
}

/** Symlink @s's target as ext2_readlink gives it, into a buffer a byte
 *  longer: all of it, nothing more. */
static int check_target(struct fsm *m, const struct fsm_node *s,
			const char *path)
{
	long got = ext2_readlink(&m->fs, s->ino, (char *)m->rbuf, s->size + 1);
	if (got == (long)s->size && !memcmp(m->rbuf, s->target, s->size))
		return 0;
	uint64_t i = 0;
	while (got >= 0 && i < (uint64_t)got && i < s->size &&
	       m->rbuf[i] == (uint8_t)s->target[i])
		i++;
	return snprintf(m->why, sizeof m->why,
			"readlink %s: %ld bytes of %llu, first wrong at %llu",
			path, got, (unsigned long long)s->size,
			(unsigned long long)i), -1;
}

/** Node @n (at @path, in directory inode @parent) as the library sees
 *  it: type, links, size, a symlink's target; with FSM_CHK_LISTING a
 *  directory's entries, with FSM_CHK_CONTENTS a file's bytes. */
int fsm_check_node(struct fsm *m, struct fsm_node *n, const char *path,
		   uint32_t parent, unsigned what)
{
	struct ext2_stat st;
	int err = ext2_stat(&m->fs, n->ino, &st);
	if (err)
		return snprintf(m->why, sizeof m->why, "stat %s (inode %u): %d",
				path, n->ino, err), -1;
	unsigned type = (st.mode & EXT2_S_IFMT) >> 12; /* 8 file, 4 dir, 10 link */
	unsigned want_type = n->type == FSM_FILE ? 8 : n->type == FSM_DIR ? 4 : 10;
	unsigned links = n->type == FSM_DIR ? 2 + fsm_dir_subdirs(n) : n->names;
	uint64_t size = n->type == FSM_DIR ? st.size : n->size;
	if (type != want_type || st.links != links || st.size != size)
		return snprintf(m->why, sizeof m->why,
				"%s (inode %u): type %u links %u size %u, "
				"not type %u links %u size %llu",
				path, n->ino, type, st.links, st.size,
				want_type, links, (unsigned long long)size), -1;
	if (n->type == FSM_SYMLINK)
		return check_target(m, n, path);
	if (n->type == FSM_DIR && (what & FSM_CHK_LISTING))
		return check_listing(m, n, path, parent);
	if (n->type == FSM_FILE && (what & FSM_CHK_CONTENTS))
		return check_contents(m, n, path, 0, n->size);
	if (n->type == FSM_FILE && (what & FSM_CHK_CHANGED))
		return check_contents(m, n, path, n->dlo, n->dhi);
	return 0;
}

/** @dir's subtree (at @path, a buffer of FSM_PATH): if @all every node
 *  and file's contents, else the nodes changed since the last check and
 *  the bytes of files that changed. */
static int check_tree(struct fsm *m, struct fsm_node *dir, char *path,
		      size_t plen, uint32_t parent, bool all)
{
	if ((all || dir->dirty) &&
	    fsm_check_node(m, dir, plen ? path : "/", parent, FSM_CHK_LISTING))
		return -1;
	dir->dirty = false;
	for (unsigned i = 0; i < dir->nent; i++) {
		struct fsm_dent *e = &dir->ent[i];
		struct fsm_node *n = e->node;
		size_t clen = plen + 1 + e->len;
		if (clen >= FSM_PATH)
			clen = plen; /* too deep to name: the parent's path */
		else
			path[plen] = '/', memcpy(path + plen + 1, e->name, e->len + 1);
		int err = n->type == FSM_DIR
				  ? check_tree(m, n, path, clen, dir->ino, all)
			  : all || n->dirty
				  ? fsm_check_node(m, n, path, dir->ino,
						   all ? FSM_CHK_CONTENTS
						       : FSM_CHK_CHANGED)
				  : 0;
		path[plen] = 0;
		if (err)
			return -1;
		n->dirty = false;
		n->dlo = n->dhi = 0;
	}
	return 0;
}

/** The whole model against the library (@all), or what changed in it
 *  since the last check. */
int fsm_check_all(struct fsm *m, bool all)
{
	char path[FSM_PATH] = "";
	return check_tree(m, m->root, path, 0, EXT2_ROOT_INO, all);
}

/** Run @argv (a program of /usr/sbin, /sbin or the PATH) with its
 *  output into @log: its exit status, or -1. */
int fsm_spawn(char *const argv[], const char *log, char *const envp[])
{
	static const char *const dirs[] = {"/usr/sbin/", "/sbin/", ""};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC,
					 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid = -1;
	for (unsigned i = 0; i < 3 && pid < 0; i++) {
		char prog[256];
		snprintf(prog, sizeof prog, "%s%s", dirs[i], argv[0]);
		if (*dirs[i] && access(prog, X_OK))
			continue;
		if (posix_spawnp(&pid, prog, &fa, NULL, argv, envp))
			pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/** The first lines of e2fsck's log @log that name a problem, into @out. */
static void fsck_lines(const char *log, char *out, size_t n)
{
	FILE *f = fopen(log, "r");
	char line[256];
	size_t used = 0;
	out[0] = 0;
	while (f && fgets(line, sizeof line, f) && used + 2 < n) {
		if (!strncmp(line, "Pass ", 5) || !strncmp(line, "e2fsck ", 7) ||
		    strstr(line, "files,") || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		used += (size_t)snprintf(out + used, n - used, "%s%s",
					 used ? " / " : "", line);
	}
	if (f)
		fclose(f);
}

/** e2fsck -fn on image @img: 0 if clean, else -1 with its complaints. */
int fsm_fsck(struct fsm *m, const char *img)
{
	char log[FSM_PATH];
	snprintf(log, sizeof log, "%s.fsck.log", img);
	char *argv[] = {"e2fsck", "-fn", (char *)img, NULL};
	extern char **environ;
	int st = fsm_spawn(argv, log, environ);
	if (st == 0)
		return 0;
	char lines[FSM_MSG / 2];
	fsck_lines(log, lines, sizeof lines);
	snprintf(m->why, sizeof m->why, "e2fsck -fn exit %d: %s", st, lines);
	return -1;
}

/* ---- what a step changed, in words ---- */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/** The bits of a bitmap block that changed, as +N / -N with N the
 *  block or inode number of bit 0 plus the bit's index. */
static size_t bits_changed(const uint8_t *old, const uint8_t *now,
			   uint32_t nbytes, uint32_t first, char *out,
			   size_t n)
{
	size_t used = 0;
	for (uint32_t i = 0; i < nbytes * 8 && used + 16 < n; i++) {
		unsigned a = old[i / 8] >> (i % 8) & 1, b = now[i / 8] >> (i % 8) & 1;
		if (a != b)
			used += (size_t)snprintf(out + used, n - used, " %c%u",
						 b ? '+' : '-', first + i);
	}
	return used;
}

/* Inode fields a change is told by: name, byte offset, width. */
static const struct {
	const char *name;
	unsigned off, width;
} ifields[] = {
	{"mode", 0, 2},	    {"size", 4, 4},	{"ctime", 12, 4},
	{"mtime", 16, 4},   {"dtime", 20, 4},	{"links", 26, 2},
	{"blocks", 28, 4},  {"flags", 32, 4},	{"block[0]", 40, 4},
	{"block[12]", 88, 4}, {"block[13]", 92, 4}, {"size_high", 108, 4},
};

static uint32_t field(const uint8_t *p, unsigned k)
{
	return ifields[k].width == 2 ? (uint32_t)(p[ifields[k].off] |
						  p[ifields[k].off + 1] << 8)
				     : get32(p + ifields[k].off);
}

/** The inodes of an inode-table block that changed: each field that
 *  changed, new (old). */
static size_t inodes_changed(struct fsm *m, const uint8_t *old,
			     const uint8_t *now, uint32_t first, char *out,
			     size_t n)
{
	uint32_t isz = m->saved.inode_size ? m->saved.inode_size : 128;
	size_t used = 0;
	for (uint32_t k = 0; k < m->bs / isz && used + 40 < n; k++) {
		const uint8_t *o = old + k * isz, *p = now + k * isz;
		if (!memcmp(o, p, isz))
			continue;
		used += (size_t)snprintf(out + used, n - used, " inode %u:",
					 first + k);
		for (unsigned f = 0; f < sizeof ifields / sizeof ifields[0] &&
				     used + 40 < n; f++)
			if (field(o, f) != field(p, f))
				used += (size_t)snprintf(
					out + used, n - used, " %s %#x (%#x)",
					ifields[f].name, field(p, f), field(o, f));
	}
	return used;
}

/** Whether file-system block @blk is free in the image's block bitmap
 *  now (@img: the device's bytes). The library promises a failed step
 *  leaves every block in use as it was; a block free before and after
 *  may hold what the step wrote before it was undone. */
bool fsm_block_free(struct fsm *m, const uint8_t *img, uint32_t blk)
{
	const struct ext2_fs *fs = &m->saved;
	if (blk < fs->first_data_block || blk >= fs->blocks)
		return false;
	uint32_t rel = blk - fs->first_data_block;
	uint32_t g = rel / fs->blocks_per_group, bit = rel % fs->blocks_per_group;
	const uint8_t *bm = img + (size_t)fs->group[g].block_bitmap * m->bs;
	return !(bm[bit / 8] & (1u << (bit % 8)));
}

/** What changed in file-system block @blk (@old -> @now), in words;
 *  its role (FSM_R_*) added to *@roles. */
size_t fsm_block_change(struct fsm *m, uint32_t blk, const uint8_t *old,
			const uint8_t *now, char *out, size_t n,
			unsigned *roles)
{
	const struct ext2_fs *fs = &m->saved;
	uint32_t itb = fs->inodes_per_group * fs->inode_size / m->bs;
	for (uint32_t g = 0; g < fs->groups; g++) {
		const struct ext2_group *gr = &fs->group[g];
		uint32_t first = fs->first_data_block + g * fs->blocks_per_group;
		size_t k;
		if (blk == gr->block_bitmap) {
			*roles |= FSM_R_BBITMAP;
			k = (size_t)snprintf(out, n, "block bitmap %u:", g);
			return k + bits_changed(old, now, fs->blocks_per_group / 8,
						first, out + k, n - k);
		}
		if (blk == gr->inode_bitmap) {
			*roles |= FSM_R_IBITMAP;
			k = (size_t)snprintf(out, n, "inode bitmap %u:", g);
			return k + bits_changed(old, now, fs->inodes_per_group / 8,
						g * fs->inodes_per_group + 1,
						out + k, n - k);
		}
		if (blk >= gr->inode_table && blk < gr->inode_table + itb) {
			uint32_t ino = g * fs->inodes_per_group + 1 +
				       (blk - gr->inode_table) * (m->bs / fs->inode_size);
			*roles |= FSM_R_ITABLE;
			k = (size_t)snprintf(out, n, "inode table %u:", g);
			return k + inodes_changed(m, old, now, ino, out + k, n - k);
		}
	}
	if (blk <= fs->first_data_block + fs->gdt_blocks) {
		*roles |= FSM_R_SUPER;
		return (size_t)snprintf(out, n, "superblock or descriptors");
	}
	*roles |= FSM_R_BLOCK;
	return (size_t)snprintf(out, n, "block %u", blk);
}
