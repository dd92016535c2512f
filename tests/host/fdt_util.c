/*
 * fdt_util.c - the shared helpers of the test_fdt host binary (see
 * fdt_util.h): loading and packing the QEMU virt trees, and the
 * hand-made tree builder.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdt_util.h"

#ifndef FDT_DIR
#define FDT_DIR "build/host/dtb"
#endif

/* The Makefile's HOST_DTB_NAMES, with what each must parse to. */
const struct virt_tree virt_trees[NVIRT_TREES] = {
	{"virt-smp1-128M.dtb", 1, 128ull << 20, "", 2},
	{"virt-smp4-256M.dtb", 4, 256ull << 20, "test=all foo", 2},
	{"virt-smp8-1G.dtb", 8, 1ull << 30, "console=ttyAMA0 demo", 2},
	{"virt-smp2-512M-long.dtb", 2, 512ull << 20, NULL, 2},
	{"virt-smp4-256M-gic3.dtb", 4, 256ull << 20, "", 3},
	{"virt-smp32-256M.dtb", 32, 256ull << 20, "", 3},
};

/* Where the trees are: $FDT_DIR, else the Makefile's FDT_DIR. */
const char *fdt_dir(void)
{
	const char *d = getenv("FDT_DIR");
	return d && *d ? d : FDT_DIR;
}

/* The whole file, in a heap buffer of exactly its size. */
struct blob load_file(const char *name)
{
	struct blob r = {0};
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", fdt_dir(), name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return r;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n > 0 && fseek(f, 0, SEEK_SET) == 0) {
			r.b = malloc((size_t)n);
			if (r.b && fread(r.b, 1, (size_t)n, f) == (size_t)n)
				r.len = (size_t)n;
		}
	}
	fclose(f);
	if (!r.len) {
		free(r.b);
		r.b = NULL;
	}
	return r;
}

/* QEMU pads its trees to 1 MiB; "pack" a copy so it ends right after
 * its last block (struct or strings) and totalsize says so. Any read
 * past the real data then leaves the buffer. */
struct blob pack(struct blob in)
{
	struct blob r = {0};
	uint32_t end_struct = rd32(in.b + HDR_OFF_STRUCT) +
			      rd32(in.b + HDR_SIZE_STRUCT);
	uint32_t end_strings = rd32(in.b + HDR_OFF_STRINGS) +
			       rd32(in.b + HDR_SIZE_STRINGS);
	uint32_t end = end_struct > end_strings ? end_struct : end_strings;
	if (end > in.len)
		return r;
	r.b = malloc(end);
	if (!r.b)
		return r;
	memcpy(r.b, in.b, end);
	wr32(r.b + HDR_TOTALSIZE, end);
	r.len = end;
	return r;
}

/* A heap copy of @b[0, len), exactly @len bytes long. */
struct blob dup_blob(const uint8_t *b, size_t len)
{
	struct blob r = {malloc(len ? len : 1), len};
	if (r.b)
		memcpy(r.b, b, len);
	return r;
}

/* Tree @i of virt_trees[], packed; .b is NULL if it cannot be read. */
struct blob load_packed_tree(unsigned i)
{
	struct blob f = load_file(virt_trees[i].file);
	if (!f.b)
		return f;
	struct blob p = pack(f);
	free(f.b);
	return p;
}

/* ---- hand-built trees ---- */

void fb_u32(struct fdtb *f, uint32_t v)
{
	wr32(f->st + f->stlen, v);
	f->stlen += 4;
}

void fb_begin(struct fdtb *f, const char *name)
{
	fb_u32(f, TOK_BEGIN);
	size_t n = strlen(name) + 1;
	memcpy(f->st + f->stlen, name, n);
	f->stlen += n;
	while (f->stlen % 4)
		f->st[f->stlen++] = 0;
}

void fb_end_node(struct fdtb *f)
{
	fb_u32(f, TOK_END_NODE);
}

/* Offset of @s in the strings block, added if not there yet. */
static uint32_t fb_string(struct fdtb *f, const char *s)
{
	for (size_t off = 0; off < f->strlen_; off += strlen(f->str + off) + 1)
		if (!strcmp(f->str + off, s))
			return (uint32_t)off;
	size_t off = f->strlen_;
	memcpy(f->str + off, s, strlen(s) + 1);
	f->strlen_ += strlen(s) + 1;
	return (uint32_t)off;
}

void fb_prop(struct fdtb *f, const char *name, const void *val, uint32_t len)
{
	fb_u32(f, TOK_PROP);
	fb_u32(f, len);
	fb_u32(f, fb_string(f, name));
	memcpy(f->st + f->stlen, val, len);
	f->stlen += len;
	while (f->stlen % 4)
		f->st[f->stlen++] = 0;
}

/* A property of @n big-endian cells. */
void fb_cells(struct fdtb *f, const char *name, unsigned n, ...)
{
	uint8_t v[64];
	va_list ap;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		wr32(v + 4 * i, va_arg(ap, uint32_t));
	va_end(ap);
	fb_prop(f, name, v, 4 * n);
}

void fb_str(struct fdtb *f, const char *name, const char *s)
{
	fb_prop(f, name, s, (uint32_t)strlen(s) + 1);
}

/* Lay out header, reservation map, then strings before or after the
 * structure block, in a heap buffer of exactly totalsize bytes. */
struct blob fb_finish(struct fdtb *f, bool strings_first)
{
	size_t hdr = 40, rsv = 16;
	size_t total = hdr + rsv + f->stlen + f->strlen_;
	struct blob r = {calloc(1, total), total};
	if (!r.b)
		return r;
	size_t off_st = hdr + rsv + (strings_first ? f->strlen_ : 0);
	size_t off_str = hdr + rsv + (strings_first ? 0 : f->stlen);
	wr32(r.b + HDR_MAGIC, FDT_MAGIC);
	wr32(r.b + HDR_TOTALSIZE, (uint32_t)total);
	wr32(r.b + HDR_OFF_STRUCT, (uint32_t)off_st);
	wr32(r.b + HDR_OFF_STRINGS, (uint32_t)off_str);
	wr32(r.b + 16, (uint32_t)hdr);  /* off_mem_rsvmap */
	wr32(r.b + 20, 17);             /* version */
	wr32(r.b + 24, 16);             /* last_comp_version */
	wr32(r.b + HDR_SIZE_STRINGS, (uint32_t)f->strlen_);
	wr32(r.b + HDR_SIZE_STRUCT, (uint32_t)f->stlen);
	memcpy(r.b + off_st, f->st, f->stlen);
	memcpy(r.b + off_str, f->str, f->strlen_);
	return r;
}

/* Root with 2/2 cells and a memory node, as on QEMU virt. */
void fb_root_memory(struct fdtb *f, uint64_t base, uint64_t size)
{
	fb_begin(f, "");
	fb_cells(f, "#address-cells", 1, 2u);
	fb_cells(f, "#size-cells", 1, 2u);
	fb_begin(f, "memory@40000000");
	fb_str(f, "device_type", "memory");
	fb_cells(f, "reg", 4, (uint32_t)(base >> 32), (uint32_t)base,
		 (uint32_t)(size >> 32), (uint32_t)size);
	fb_end_node(f);
}
