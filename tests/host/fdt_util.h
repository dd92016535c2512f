/*
 * fdt_util.h - helpers shared by the parts of the test_fdt host binary
 * (test_fdt.c: QEMU virt and hand-built trees; fdt_fuzz.c: corrupted
 * trees): big-endian words, the QEMU virt trees the Makefile dumps
 * into FDT_DIR, and a builder for hand-made trees.
 *
 * Every blob is a heap buffer of exactly .len bytes, so ASan traps any
 * read of fdt_parse() past the end of its input.
 */
#ifndef FULCRUM_TESTS_FDT_UTIL_H
#define FULCRUM_TESTS_FDT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDT_MAGIC 0xd00dfeedu
#define TOK_BEGIN 1u
#define TOK_END_NODE 2u
#define TOK_PROP 3u
#define TOK_NOP 4u
#define TOK_END 9u

#define HDR_MAGIC 0
#define HDR_TOTALSIZE 4
#define HDR_OFF_STRUCT 8
#define HDR_OFF_STRINGS 12
#define HDR_SIZE_STRINGS 32
#define HDR_SIZE_STRUCT 36

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

struct blob {
	uint8_t *b;
	size_t len;
};

/* ---- the QEMU virt trees ---- */

struct virt_tree {
	const char *file;
	unsigned ncpus;
	uint64_t ram_size;
	const char *bootargs; /* NULL: the 280-byte one, truncated */
	unsigned gic;         /* the GIC version QEMU was given */
};

#define NVIRT_TREES 6
extern const struct virt_tree virt_trees[NVIRT_TREES];

const char *fdt_dir(void);
struct blob load_file(const char *name);
struct blob pack(struct blob in);
struct blob dup_blob(const uint8_t *b, size_t len);
struct blob load_packed_tree(unsigned i);

/* ---- hand-built trees ---- */

struct fdtb {
	uint8_t st[16384];  /* structure block */
	size_t stlen;
	char str[2048];     /* strings block */
	size_t strlen_;
};

void fb_u32(struct fdtb *f, uint32_t v);
void fb_begin(struct fdtb *f, const char *name);
void fb_end_node(struct fdtb *f);
void fb_prop(struct fdtb *f, const char *name, const void *val, uint32_t len);
void fb_cells(struct fdtb *f, const char *name, unsigned n, ...);
void fb_str(struct fdtb *f, const char *name, const char *s);
struct blob fb_finish(struct fdtb *f, bool strings_first);
void fb_root_memory(struct fdtb *f, uint64_t base, uint64_t size);

#endif /* FULCRUM_TESTS_FDT_UTIL_H */
