/*
 * The file-system model test of F's ext2 library (user/servers/fs/ext2*.c):
 * a seeded random sequence of operations applied both to the library, on
 * an image made by mke2fs, and to a simple in-memory model (a tree of
 * names -> inodes with byte contents). Every operation's result is
 * compared with the one the model says it must have; a failed operation
 * must leave the image as it was (the device keeps an undo log of each
 * step's writes to tell); every few steps the directory listings and the
 * contents are compared with the model, and the image must pass
 * `e2fsck -fn`.
 *
 * Parts: fs_model_tree.c (the model), fs_model_ops.c (the operation
 * table), fs_model_pick.c (the random choice of operations and their
 * arguments), fs_model_run.c (the image, the device, the steps),
 * fs_model_check.c (the comparisons and e2fsck). Used by test_fs_model.c (make test)
 * and fs_fuzz.c (make fs-fuzz).
 */
#ifndef FS_MODEL_H
#define FS_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../user/servers/fs/ext2.h"

/* ---- what a run is given, and what it gives back ---- */

/* An image made by mke2fs for a run, in terms independent of the block
 * size, so that one shape serves every block size. */
struct fsm_shape {
	const char *name;
	unsigned kib;           /* image size */
	unsigned group_kib;     /* bytes per block group / 1024; 0: mke2fs's */
	unsigned inodes;        /* 0: mke2fs's default */
};

struct fsm_opts {
	const struct fsm_shape *shape;
	unsigned block_size;      /* of the file system: 1024, 2048, 4096 */
	uint64_t seed;
	unsigned long ops;        /* steps to run */
	unsigned cmp_every;       /* listings, changed files compared */
	unsigned fsck_every;      /* synced, e2fsck -fn, remounted, all compared */
	unsigned long trace_from; /* print every step from this one (0: none) */
	unsigned long exact_from; /* every check after every step from here */
	bool verbose;             /* each defect's first step, a summary */
};

#define FSM_MSG 768
/* make test's periodic checks (make fs-fuzz takes the same, so that a
 * seed replays exactly): listings and changed files every
 * FSM_CMP_EVERY steps, e2fsck and everything every FSM_FSCK_EVERY. */
#define FSM_CMP_EVERY 100u
#define FSM_FSCK_EVERY 1000u

struct fsm_result {
	unsigned long steps;      /* steps run */
	unsigned long fail_step;  /* the step a run-stopping check failed
				   * at or after (0: none) */
	unsigned long last_good;  /* the last step all checks passed after */
	bool exact;               /* fail_step is the first bad step */
	char fail[FSM_MSG];       /* the step's operation and what failed
				   * (without fail_step: the run's setup) */
	unsigned long defects;    /* defective steps undone, the run went on */
	unsigned long defect_step; /* the first of them */
	char defect[FSM_MSG];     /* the first of each kind, one per line */
	unsigned long enospc;     /* steps that met ENOSPC */
	unsigned long fscks;      /* e2fsck runs */
};

/** One run: make the image, run the steps, check. 0 if every check
 *  passed, else 1 with res->fail or res->defect saying what. A failure
 *  found by a periodic check is narrowed by running the same steps again
 *  with every check after every step, so res->fail_step is exact. */
int fsm_run(const struct fsm_opts *o, struct fsm_result *res);

/** The shapes make test runs, terminated by a NULL name. */
extern const struct fsm_shape fsm_shapes[];
/** The file-system block sizes the library takes, terminated by 0. */
extern const unsigned fsm_block_sizes[];

/* ---- internal to fs_model_*.c ---- */

#define FSM_NAME_MAX 256u  /* one past EXT2_NAME_MAX: ENAMETOOLONG */
#define FSM_PATH 2048u

/* Model node types: the values are ext2's directory entry file types. */
enum fsm_type { FSM_FILE = 1, FSM_DIR = 2, FSM_SYMLINK = 7 };

struct fsm_dent;

/* An inode of the model. A file's bytes are kept by blocks of the file
 * system's size (any size would do): blk[i] NULL reads as zeros. A file
 * or a symlink may have several names (hard links): one node, named by
 * that many entries, its link count. */
struct fsm_node {
	enum fsm_type type;
	uint32_t ino;          /* the library's inode number for it */
	unsigned names;        /* entries that name it (a directory: 1) */
	bool dirty;            /* changed since the last comparison ... */
	uint64_t dlo, dhi;     /* ... a file: these bytes (none if dlo >= dhi) */
	bool keep;             /* lost+found: never an operation's target */
	uint64_t size;         /* files; symlinks: the target's length */
	uint8_t **blk;
	uint32_t nblk;
	struct fsm_dent *ent;  /* directories: entries without . and .. */
	unsigned nent, cap;
	struct fsm_node *parent;
	char *target;          /* symlinks: size bytes, no NUL */
};

struct fsm_dent {
	char name[FSM_NAME_MAX + 1];
	unsigned len;
	struct fsm_node *node;
};

/* One step's operation and its arguments. */
struct fsm_kind;
struct fsm_op {
	const struct fsm_kind *kind;
	char a[FSM_PATH], b[FSM_PATH]; /* paths */
	uint64_t off, len;             /* write, read; truncate: off = size;
					* symlink: len = the target's length,
					* off = its NUL's position + 1 or 0 */
	uint64_t data;                 /* write, symlink: seed of its bytes */
};

struct fsm_dev;

/* A run's whole state. */
struct fsm {
	const struct fsm_opts *o;
	uint32_t bs;                /* file-system block size */
	uint64_t rng;
	unsigned long step;
	struct fsm_node *root;
	struct fsm_node **by_ino;   /* the model's node of each inode number */
	uint32_t inodes;
	struct ext2_fs fs, saved;   /* the library; its state before the step */
	struct fsm_dev *dev;
	uint32_t ino_out;           /* a new inode's number, from the library */
	bool expect_noop;           /* the step must change nothing */
	uint8_t *wbuf, *rbuf, *mbuf; /* write data, library and model reads */
	size_t buf_len;
	char why[FSM_MSG];          /* a mismatch the step found */
	/* the random mix's phase (fs_model_ops.c) */
	int phase;
	unsigned phase_left, fill_next;
	long last;                  /* the last step's library result */
	long fill_expect;           /* what it must be for a fill to go on */
	/* what the run found and saw (fs_model_run.c) */
	struct fsm_result *res;
	char optext[FSM_MSG];       /* the step's operation, in words */
	char dkey[16][80];          /* kinds of defect met, and how often */
	unsigned long dcount[16];
	unsigned ndkeys;
	unsigned long stat[16][16]; /* per kind: results by class */
	unsigned long reach[3];     /* writes into indirect, double, its 2nd */
	/* picking: the model's directories, and its entries as (directory,
	 * index), gathered again after a name changed */
	struct fsm_node **dirs;
	struct fsm_pick_ent {
		struct fsm_node *dir;
		unsigned i;
	} *ents;
	unsigned ndirs, nents, max_dirs, ents_cap;
	unsigned long names_gen;    /* bumped by every change of a name */
	unsigned long picked_gen;   /* names_gen when dirs, ents were made */
};

/* A model function's answer: the library's output was wrong (m->why). */
#define FSM_WRONG LONG_MIN

/* An operation kind: how its arguments are chosen, what the model says
 * of it, how the library is called. Adding one is a table row and the
 * two functions (fs_model_ops.c). */
#define FSM_A_NEW 1u    /* a: a name to make (a parent that exists, mostly) */
#define FSM_A_OLD 2u    /* a: an existing name, mostly */
#define FSM_A_FILE 4u   /* a: a regular file, mostly */
#define FSM_A_NODIR 512u /* a: a file or a symlink, mostly */
#define FSM_A_DIR 128u  /* a: a directory, mostly */
#define FSM_A_SOMEDIR 1024u /* a: one time in 8 a directory, mostly */
#define FSM_B_ANY 8u    /* b: a new or an existing name */
#define FSM_RANGE 16u   /* off, len: a byte range */
#define FSM_SIZE 32u    /* off: a file size */
#define FSM_DATA 64u    /* the range gets blocks (write) */
#define FSM_TARGET 256u /* len, off, data: a symlink's target */

struct fsm_kind {
	const char *name;
	unsigned weight;   /* share of the random mix */
	unsigned args;     /* FSM_* */
	unsigned inodes;   /* it may take this many inodes ... */
	unsigned blocks;   /* ... and blocks (FSM_DATA: plus the range's) */
	/* The result the model expects (0, a length, -errno); with @apply
	 * the step's library result was right: change the model as the
	 * library did and check its outputs (FSM_WRONG if wrong). */
	long (*model)(struct fsm *m, const struct fsm_op *op, bool apply);
	/* Call the library: its result. */
	long (*lib)(struct fsm *m, const struct fsm_op *op);
};

extern const struct fsm_kind fsm_kinds[];

/* fs_model_tree.c */
uint64_t fsm_rand(struct fsm *m);
uint64_t fsm_below(struct fsm *m, uint64_t n);
struct fsm_node *fsm_node_new(struct fsm *m, enum fsm_type type);
void fsm_node_unname(struct fsm *m, struct fsm_node *n);
void fsm_tree_free(struct fsm *m);
struct fsm_dent *fsm_dir_find(struct fsm_node *dir, const char *name,
			      size_t len);
void fsm_dir_add(struct fsm *m, struct fsm_node *dir, const char *name,
		 size_t len, struct fsm_node *n);
void fsm_dir_del(struct fsm *m, struct fsm_node *dir, struct fsm_dent *d);
unsigned fsm_dir_subdirs(const struct fsm_node *dir);
int fsm_resolve(struct fsm *m, const char *path, struct fsm_node **n);
/** @path's parent into @up and its last component *@name (*@len bytes,
 *  pointing into @path). */
void fsm_split(const char *path, char up[FSM_PATH], const char **name,
	       size_t *len);
int fsm_parent(struct fsm *m, const char *path, struct fsm_node **dir,
	       const char **name, size_t *len);
bool fsm_within(const struct fsm_node *n, const struct fsm_node *top);
void fsm_file_write(struct fsm *m, struct fsm_node *f, uint64_t off,
		    const uint8_t *src, uint64_t len);
void fsm_file_read(struct fsm *m, const struct fsm_node *f, uint64_t off,
		   uint8_t *dst, uint64_t len);
bool fsm_file_same(struct fsm *m, const struct fsm_node *f, uint64_t off,
		   const uint8_t *buf, uint64_t len);
void fsm_file_dirty(struct fsm_node *f, uint64_t lo, uint64_t hi);
void fsm_file_truncate(struct fsm *m, struct fsm_node *f, uint64_t size);
void fsm_fill(uint8_t *buf, uint64_t len, uint64_t seed);

/* fs_model_check.c */
#define FSM_CHK_LISTING 1u  /* a directory's entries */
#define FSM_CHK_CONTENTS 2u /* a file's bytes */
#define FSM_CHK_CHANGED 4u  /* a file's bytes changed since the last check */
int fsm_check_node(struct fsm *m, struct fsm_node *n, const char *path,
		   uint32_t parent, unsigned what);
int fsm_check_all(struct fsm *m, bool all);
int fsm_spawn(char *const argv[], const char *log, char *const envp[]);
int fsm_fsck(struct fsm *m, const char *img);
/* What a block that changed is to the file system. */
#define FSM_R_BBITMAP 1u
#define FSM_R_IBITMAP 2u
#define FSM_R_ITABLE 4u
#define FSM_R_SUPER 8u
#define FSM_R_BLOCK 16u  /* data, directory or indirect */
#define FSM_R_COUNTS 32u /* the free counts in struct ext2_fs */
bool fsm_block_free(struct fsm *m, const uint8_t *img, uint32_t blk);
size_t fsm_block_change(struct fsm *m, uint32_t blk, const uint8_t *old,
			const uint8_t *now, char *out, size_t n,
			unsigned *roles);

/* fs_model_pick.c */
void fsm_pick(struct fsm *m, struct fsm_op *op);

/* fs_model_ops.c */
void fsm_op_text(const struct fsm_op *op, char *out, size_t n);
unsigned fsm_op_blocks(const struct fsm *m, const struct fsm_op *op);
int fsm_lib_parent(struct fsm *m, const char *path, uint32_t *dir,
		   const char **name, size_t *len);

#endif
