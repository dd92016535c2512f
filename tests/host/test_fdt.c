/*
 * Host tests for kernel/fdt.c on well-formed input: real QEMU virt
 * device trees (dumped at build time into FDT_DIR by the Makefile) and
 * hand-built ones, plus the header checks (magic, truncation).
 * Corrupted and fuzzed trees are in fdt_fuzz.c, linked into this same
 * binary; the helpers both use are in fdt_util.c.
 *
 * Inputs are heap buffers of exactly their size, so ASan traps any
 * read of fdt_parse() past the end.
 */
#define HTEST_MAIN
#include "host_test.h"

#include "fdt.h"
#include "fdt_util.h"

/* ---- the QEMU virt trees ---- */

/* QEMU virt's MPIDR of core @i: GICv3 clusters hold 16 cores (Aff1 =
 * i / 16, Aff0 = i % 16), GICv2 ones 8, but GICv2 stops at 8 cores. */
static uint64_t virt_hwid(unsigned gic, unsigned i)
{
	return gic == 3 ? (uint64_t)(i / 16) << 8 | (i % 16) : i;
}

/* QEMU virt's GIC: the distributor at 0x08000000; GICv2's CPU interface
 * at 0x08010000, or GICv3's one redistributor region from 0x080a0000
 * (0xf60000 bytes: 123 redistributors of 128 KiB). */
static void check_virt_gic(struct htest_ctx *htest_ctx_,
			   const struct virt_tree *t, const struct fdt_gic *g)
{
	CHECK_EQ(g->version, t->gic);
	CHECK(g->nregs >= 2);
	CHECK_EQ(g->base[0], 0x08000000);
	CHECK_EQ(g->size[0], 0x10000);
	if (t->gic == 3) {
		CHECK_EQ(g->nredist, 1);
		CHECK_EQ(g->base[1], 0x080a0000);
		CHECK_EQ(g->size[1], 0xf60000);
	} else {
		CHECK_EQ(g->base[1], 0x08010000);
	}
}

/* The Makefile's 280-character command line: 20 x "0123456789abcd". */
static void long_bootargs(char *out, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		out[i] = "0123456789abcd"[i % 14];
	out[n - 1] = 0;
}

static void check_virt(struct htest_ctx *htest_ctx_, const struct virt_tree *t,
		       const struct fdt_info *o)
{
	char want[300];
	CHECK_EQ(o->ram_base, 0x40000000);
	CHECK_EQ(o->ram_size, t->ram_size);
	CHECK_EQ(o->ncpus, t->ncpus);
	CHECK_EQ(o->ncpus_dtb, t->ncpus);
	for (unsigned i = 0; i < t->ncpus; i++)
		CHECK_EQ(o->cpu_hwid[i], virt_hwid(t->gic, i));
	check_virt_gic(htest_ctx_, t, &o->gic);
	for (unsigned i = t->ncpus; i < MAX_CPUS; i++)
		CHECK_EQ(o->cpu_hwid[i], 0);
	if (t->bootargs) {
		snprintf(want, sizeof(want), "%s", t->bootargs);
	} else {
		long_bootargs(want, sizeof(o->bootargs)); /* 255 chars */
		CHECK_EQ(strlen(o->bootargs), sizeof(o->bootargs) - 1);
	}
	if (strcmp(o->bootargs, want) != 0)
		HTEST_FAIL_("%s: bootargs \"%.100s\", want \"%.100s\"",
			    t->file, o->bootargs, want);
	/* QEMU virt: 32 virtio-mmio transports of 0x200 bytes from
	 * 0x0a000000, SPIs 16..47 (INTIDs 48..79), listed from the top. */
	CHECK_EQ(o->ndevs, 32);
	for (unsigned i = 0; i < o->ndevs; i++) {
		const struct fdt_dev *d = &o->devs[i];
		CHECK_EQ(d->size, 0x200);
		CHECK_EQ((d->base - 0x0a000000) % 0x200, 0);
		CHECK(d->base >= 0x0a000000 && d->base < 0x0a004000);
		CHECK_EQ(d->intid, 48 + (d->base - 0x0a000000) / 0x200);
	}
}

HTEST(qemu_virt_trees)
{
	for (unsigned i = 0; i < NVIRT_TREES; i++) {
		struct blob f = load_file(virt_trees[i].file);
		if (!f.b)
			HTEST_FAIL_("cannot read %s/%s (make host-tests "
				    "dumps it with QEMU)",
				    fdt_dir(), virt_trees[i].file);
		CHECK_EQ(rd32(f.b), FDT_MAGIC);
		CHECK(rd32(f.b + HDR_TOTALSIZE) <= f.len);
		struct fdt_info o;
		memset(&o, 0x5a, sizeof(o)); /* must be fully overwritten */
		CHECK_EQ(fdt_parse(f.b, f.len, &o), 0);
		check_virt(htest_ctx_, &virt_trees[i], &o);
		if (htest_ctx_->failed)
			return;
		/* Packed: same answers from a buffer with no slack. */
		struct blob p = pack(f);
		CHECK(p.b != NULL);
		memset(&o, 0, sizeof(o));
		CHECK_EQ(fdt_parse(p.b, p.len, &o), 0);
		check_virt(htest_ctx_, &virt_trees[i], &o);
		if (htest_ctx_->failed)
			return;
		/* max larger than totalsize: the slack is ignored. */
		wr32(f.b + HDR_TOTALSIZE, (uint32_t)p.len);
		memset(&o, 0, sizeof(o));
		CHECK_EQ(fdt_parse(f.b, f.len, &o), 0);
		check_virt(htest_ctx_, &virt_trees[i], &o);
		if (htest_ctx_->failed)
			return;
		free(p.b);
		free(f.b);
	}
}

HTEST(bad_magic_rejected)
{
	struct blob p = load_packed_tree(1);
	CHECK(p.b != NULL);
	struct fdt_info o;
	for (unsigned byte = 0; byte < 4; byte++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			p.b[byte] ^= (uint8_t)(1u << bit);
			CHECK_EQ(fdt_parse(p.b, p.len, &o), -1);
			p.b[byte] ^= (uint8_t)(1u << bit);
		}
	}
	/* Little-endian magic (a byte-swapped tree) is not accepted. */
	wr32(p.b, 0xedfe0dd0);
	CHECK_EQ(fdt_parse(p.b, p.len, &o), -1);
	wr32(p.b, FDT_MAGIC);
	CHECK_EQ(fdt_parse(p.b, p.len, &o), 0);
	free(p.b);
}

HTEST(truncated_buffer_rejected)
{
	struct blob p = load_packed_tree(2);
	CHECK(p.b != NULL);
	struct fdt_info o;
	/* max below the header size: not even the header is read. */
	for (size_t max = 0; max < 40; max++) {
		struct blob t = dup_blob(p.b, max);
		CHECK(t.b != NULL);
		CHECK_EQ(fdt_parse(t.b, max, &o), -1);
		free(t.b);
	}
	/* max below totalsize: rejected, from a buffer of exactly max. */
	static const size_t cuts[] = {40, 41, 64, 100, 1000, 4096};
	for (unsigned i = 0; i < ARRAY_SIZE(cuts) + 3; i++) {
		size_t max = i < ARRAY_SIZE(cuts) ? cuts[i]
			   : p.len - 1 - (i - ARRAY_SIZE(cuts)) * 7;
		struct blob t = dup_blob(p.b, max);
		CHECK(t.b != NULL);
		CHECK_EQ(fdt_parse(t.b, max, &o), -1);
		free(t.b);
	}
	/* Exactly totalsize is enough. */
	CHECK_EQ(fdt_parse(p.b, p.len, &o), 0);
	CHECK_EQ(o.ncpus, 8);
	free(p.b);
}

/* ---- hand-built trees ---- */

/* The tree builder (18 KiB: static, not on the stack). */
static struct fdtb fb;

HTEST(built_tree_basics)
{
	for (int order = 0; order < 2; order++) {
		memset(&fb, 0, sizeof(fb));
		fb_root_memory(&fb, 0x80000000ull, 0x123456789000ull);
		fb_u32(&fb, TOK_NOP); /* NOPs anywhere are skipped */
		fb_begin(&fb, "cpus");
		fb_cells(&fb, "#address-cells", 1, 2u);
		fb_cells(&fb, "#size-cells", 1, 0u);
		fb_begin(&fb, "cpu-map"); /* not a cpu */
		fb_cells(&fb, "reg", 2, 0xdeadu, 0xbeefu);
		fb_end_node(&fb);
		fb_begin(&fb, "cpu@0");
		fb_u32(&fb, TOK_NOP);
		fb_cells(&fb, "reg", 2, 0u, 0u);
		fb_end_node(&fb);
		fb_begin(&fb, "cpu@100");
		fb_cells(&fb, "reg", 2, 0x1u, 0x100u);
		fb_end_node(&fb);
		fb_begin(&fb, "cpu");
		fb_cells(&fb, "reg", 2, 0u, 0x10203u);
		fb_end_node(&fb);
		fb_end_node(&fb);
		fb_begin(&fb, "soc");
		fb_begin(&fb, "memory@0"); /* depth 2: not the RAM node */
		fb_cells(&fb, "reg", 4, 0u, 0u, 0u, 0x1000u);
		fb_end_node(&fb);
		fb_begin(&fb, "chosen"); /* depth 2: not /chosen */
		fb_str(&fb, "bootargs", "wrong");
		fb_end_node(&fb);
		fb_end_node(&fb);
		fb_begin(&fb, "chosen");
		fb_str(&fb, "stdout-path", "/pl011@9000000");
		fb_str(&fb, "bootargs", "hello world");
		fb_end_node(&fb);
		fb_end_node(&fb);
		fb_u32(&fb, TOK_END);
		struct blob b = fb_finish(&fb, order);
		CHECK(b.b != NULL);
		struct fdt_info o;
		CHECK_EQ(fdt_parse(b.b, b.len, &o), 0);
		CHECK_EQ(o.ram_base, 0x80000000ull);
		CHECK_EQ(o.ram_size, 0x123456789000ull);
		CHECK_EQ(o.ncpus, 3);
		CHECK_EQ(o.cpu_hwid[0], 0);
		CHECK_EQ(o.cpu_hwid[1], 0x100000100ull);
		CHECK_EQ(o.cpu_hwid[2], 0x10203);
		CHECK(!strcmp(o.bootargs, "hello world"));
		free(b.b);
	}
}

HTEST(built_tree_limits)
{
	/* More cpus than MAX_CPUS: the first MAX_CPUS are kept. */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_begin(&fb, "cpus");
	fb_cells(&fb, "#address-cells", 1, 1u);
	for (unsigned i = 0; i < MAX_CPUS + 4; i++) {
		char name[32];
		snprintf(name, sizeof(name), "cpu@%x", i);
		fb_begin(&fb, name);
		fb_cells(&fb, "reg", 1, 0x80000000u | i);
		fb_end_node(&fb);
	}
	fb_end_node(&fb);
	/* bootargs of exactly 255 and 256 characters. */
	char a255[256], a256[257];
	memset(a255, 'x', 255);
	a255[255] = 0;
	memset(a256, 'y', 256);
	a256[256] = 0;
	fb_begin(&fb, "chosen");
	fb_str(&fb, "bootargs", a256);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	struct blob b = fb_finish(&fb, false);
	struct fdt_info o;
	CHECK_EQ(fdt_parse(b.b, b.len, &o), 0);
	CHECK_EQ(o.ncpus, MAX_CPUS);
	CHECK_EQ(o.ncpus_dtb, MAX_CPUS + 4); /* kmain says so, runs 64 */
	for (unsigned i = 0; i < MAX_CPUS; i++)
		CHECK_EQ(o.cpu_hwid[i], 0x80000000u | i);
	CHECK_EQ(strlen(o.bootargs), 255);
	CHECK(o.bootargs[0] == 'y');
	free(b.b);

	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_begin(&fb, "chosen");
	fb_str(&fb, "bootargs", a255);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	b = fb_finish(&fb, true);
	CHECK_EQ(fdt_parse(b.b, b.len, &o), 0);
	CHECK(!strcmp(o.bootargs, a255));
	CHECK_EQ(o.ncpus, 0);
	free(b.b);
}

HTEST(built_tree_rejections)
{
	struct fdt_info o;
	/* No memory node. */
	memset(&fb, 0, sizeof(fb));
	fb_begin(&fb, "");
	fb_begin(&fb, "chosen");
	fb_str(&fb, "bootargs", "x");
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	struct blob b = fb_finish(&fb, false);
	CHECK_EQ(fdt_parse(b.b, b.len, &o), -1);
	free(b.b);
	/* A memory node whose reg is too short for 2+2 cells. */
	memset(&fb, 0, sizeof(fb));
	fb_begin(&fb, "");
	fb_begin(&fb, "memory@40000000");
	fb_cells(&fb, "reg", 2, 0x40000000u, 0x1000000u);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	b = fb_finish(&fb, false);
	CHECK_EQ(fdt_parse(b.b, b.len, &o), -1);
	free(b.b);
	/* An unknown token. */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_u32(&fb, 0x17);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	b = fb_finish(&fb, false);
	CHECK_EQ(fdt_parse(b.b, b.len, &o), -1);
	free(b.b);
	/* The walk stops at FDT_END: a memory node after it is not seen. */
	memset(&fb, 0, sizeof(fb));
	fb_begin(&fb, "");
	fb_u32(&fb, TOK_END);
	fb_begin(&fb, "memory");
	fb_cells(&fb, "reg", 4, 0u, 0x40000000u, 0u, 0x1000000u);
	fb_end_node(&fb);
	fb_end_node(&fb);
	b = fb_finish(&fb, false);
	CHECK_EQ(fdt_parse(b.b, b.len, &o), -1);
	free(b.b);
}
