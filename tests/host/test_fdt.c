/*
 * Host tests for kernel/fdt.c: parse real QEMU virt device trees (dumped
 * at build time into FDT_DIR by the Makefile), hand-built trees, and
 * corrupted ones.
 *
 * fdt_parse() must never read outside [dtb, dtb + max). Inputs are put
 * in heap buffers of exactly @max bytes so ASan traps any over-read.
 * Inputs that may crash run in a forked child, so one crash does not
 * take the whole binary down; a crash there means the kernel parser
 * read out of bounds, and fails the test. FDT_VERBOSE=1 keeps the
 * children's ASan reports on stderr.
 */
#define HTEST_MAIN
#include "host_test.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdt.h"

#ifndef FDT_DIR
#define FDT_DIR "build/host/dtb"
#endif

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

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static bool verbose_mode(void)
{
	const char *s = getenv("FDT_VERBOSE");
	return s && *s && strcmp(s, "0") != 0;
}

/* ---- loading the QEMU trees ---- */

struct blob {
	uint8_t *b;
	size_t len;
};

static const char *fdt_dir(void)
{
	const char *d = getenv("FDT_DIR");
	return d && *d ? d : FDT_DIR;
}

/* The whole file, in a heap buffer of exactly its size. */
static struct blob load_file(const char *name)
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
static struct blob pack(struct blob in)
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

static struct blob dup_blob(const uint8_t *b, size_t len)
{
	struct blob r = {malloc(len ? len : 1), len};
	if (r.b)
		memcpy(r.b, b, len);
	return r;
}

struct virt_tree {
	const char *file;
	unsigned ncpus;
	uint64_t ram_size;
	const char *bootargs; /* NULL: the 280-byte one, truncated */
	unsigned gic;         /* the GIC version QEMU was given */
};

static const struct virt_tree trees[] = {
	{"virt-smp1-128M.dtb", 1, 128ull << 20, "", 2},
	{"virt-smp4-256M.dtb", 4, 256ull << 20, "test=all foo", 2},
	{"virt-smp8-1G.dtb", 8, 1ull << 30, "console=ttyAMA0 demo", 2},
	{"virt-smp2-512M-long.dtb", 2, 512ull << 20, NULL, 2},
	{"virt-smp4-256M-gic3.dtb", 4, 256ull << 20, "", 3},
	{"virt-smp32-256M.dtb", 32, 256ull << 20, "", 3},
};

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

/* Tree @i of trees[], packed; .b is NULL if it cannot be read. */
static struct blob load_packed_tree(unsigned i)
{
	struct blob f = load_file(trees[i].file);
	if (!f.b)
		return f;
	struct blob p = pack(f);
	free(f.b);
	return p;
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
	for (unsigned i = 0; i < ARRAY_SIZE(trees); i++) {
		struct blob f = load_file(trees[i].file);
		if (!f.b)
			HTEST_FAIL_("cannot read %s/%s (make host-tests "
				    "dumps it with QEMU)",
				    fdt_dir(), trees[i].file);
		CHECK_EQ(rd32(f.b), FDT_MAGIC);
		CHECK(rd32(f.b + HDR_TOTALSIZE) <= f.len);
		struct fdt_info o;
		memset(&o, 0x5a, sizeof(o)); /* must be fully overwritten */
		CHECK_EQ(fdt_parse(f.b, f.len, &o), 0);
		check_virt(htest_ctx_, &trees[i], &o);
		if (htest_ctx_->failed)
			return;
		/* Packed: same answers from a buffer with no slack. */
		struct blob p = pack(f);
		CHECK(p.b != NULL);
		memset(&o, 0, sizeof(o));
		CHECK_EQ(fdt_parse(p.b, p.len, &o), 0);
		check_virt(htest_ctx_, &trees[i], &o);
		if (htest_ctx_->failed)
			return;
		/* max larger than totalsize: the slack is ignored. */
		wr32(f.b + HDR_TOTALSIZE, (uint32_t)p.len);
		memset(&o, 0, sizeof(o));
		CHECK_EQ(fdt_parse(f.b, f.len, &o), 0);
		check_virt(htest_ctx_, &trees[i], &o);
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

struct fdtb {
	uint8_t st[16384];  /* structure block */
	size_t stlen;
	char str[2048];     /* strings block */
	size_t strlen_;
};

static void fb_u32(struct fdtb *f, uint32_t v)
{
	wr32(f->st + f->stlen, v);
	f->stlen += 4;
}

static void fb_begin(struct fdtb *f, const char *name)
{
	fb_u32(f, TOK_BEGIN);
	size_t n = strlen(name) + 1;
	memcpy(f->st + f->stlen, name, n);
	f->stlen += n;
	while (f->stlen % 4)
		f->st[f->stlen++] = 0;
}

static void fb_end_node(struct fdtb *f)
{
	fb_u32(f, TOK_END_NODE);
}

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

static void fb_prop(struct fdtb *f, const char *name, const void *val,
		    uint32_t len)
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
static void fb_cells(struct fdtb *f, const char *name, unsigned n, ...)
{
	uint8_t v[64];
	va_list ap;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		wr32(v + 4 * i, va_arg(ap, uint32_t));
	va_end(ap);
	fb_prop(f, name, v, 4 * n);
}

static void fb_str(struct fdtb *f, const char *name, const char *s)
{
	fb_prop(f, name, s, (uint32_t)strlen(s) + 1);
}

/* Lay out header, reservation map, then strings before or after the
 * structure block, in a heap buffer of exactly totalsize bytes. */
static struct blob fb_finish(struct fdtb *f, bool strings_first)
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
static void fb_root_memory(struct fdtb *f, uint64_t base, uint64_t size)
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

/* ---- crash isolation ---- */

/* Builds case @i (deterministic in @i) into a fresh heap buffer of
 * exactly *max bytes. */
typedef struct blob (*case_gen)(unsigned i, const void *ctx);

enum { RES_OK = 0, RES_REJECT = 1, RES_BADRET = 2, RES_INSANE = 3 };

struct fuzz_res {
	unsigned ok, reject, badret, insane, crashes;
	unsigned crash_idx[8];
};

struct rec {
	uint32_t idx, what; /* what: 0xffffffff = starting, else RES_* */
};

static bool out_sane(const struct fdt_info *o)
{
	return o->ncpus <= MAX_CPUS &&
	       memchr(o->bootargs, 0, sizeof(o->bootargs)) != NULL;
}

/* Set in fuzz children: ASan's error hook then exits at once instead
 * of symbolizing a report (about 0.1 s each), unless FDT_VERBOSE. */
static volatile int in_fuzz_child;

void __asan_on_error(void);
void __asan_on_error(void)
{
	if (in_fuzz_child)
		_exit(97);
}

static void child_quiet(void)
{
	if (verbose_mode())
		return;
	in_fuzz_child = 1;
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
}

/* Run cases [0, n) through fdt_parse in child processes: one child runs
 * cases until it crashes, the next resumes after the crashing case. */
static void fuzz_run(unsigned n, case_gen gen, const void *ctx,
		     struct fuzz_res *res)
{
	memset(res, 0, sizeof(*res));
	unsigned next = 0;
	fflush(stdout);
	while (next < n) {
		int pfd[2];
		if (pipe(pfd) != 0)
			abort();
		pid_t pid = fork();
		if (pid < 0)
			abort();
		if (pid == 0) {
			close(pfd[0]);
			child_quiet();
			for (unsigned i = next; i < n; i++) {
				struct blob b = gen(i, ctx);
				struct rec r = {i, 0xffffffffu};
				if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
					_exit(3);
				struct fdt_info o;
				int ret = fdt_parse(b.b, b.len, &o);
				r.what = ret == -1 ? RES_REJECT
				       : ret != 0  ? RES_BADRET
				       : out_sane(&o) ? RES_OK : RES_INSANE;
				if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
					_exit(3);
				free(b.b);
			}
			_exit(0);
		}
		close(pfd[1]);
		struct rec r;
		long started = -1;
		unsigned resume = n;
		while (read(pfd[0], &r, sizeof(r)) == sizeof(r)) {
			if (r.what == 0xffffffffu) {
				started = r.idx;
				continue;
			}
			started = -1;
			resume = r.idx + 1;
			if (r.what == RES_OK)
				res->ok++;
			else if (r.what == RES_REJECT)
				res->reject++;
			else if (r.what == RES_BADRET)
				res->badret++;
			else
				res->insane++;
		}
		close(pfd[0]);
		int st = 0;
		waitpid(pid, &st, 0);
		if (started >= 0) {
			/* The child died inside fdt_parse(case started). */
			if (res->crashes < ARRAY_SIZE(res->crash_idx))
				res->crash_idx[res->crashes] = (unsigned)started;
			res->crashes++;
			next = (unsigned)started + 1;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			/* Died outside fdt_parse: a bug in this test. */
			fprintf(stderr, "fuzz child died outside fdt_parse\n");
			abort();
		} else {
			next = resume;
		}
	}
}

/* Fail the test if any input made fdt_parse read out of bounds. Returns
 * true if the test must fail. */
static bool overread_failure(struct htest_ctx *htest_ctx_, const char *test,
		      const struct fuzz_res *res, unsigned n, const char *what)
{
	(void)test;
	if (!res->crashes)
		return false;
	char idx[128] = "";
	size_t k = 0;
	for (unsigned i = 0; i < res->crashes && i < ARRAY_SIZE(res->crash_idx);
	     i++)
		k += (size_t)snprintf(idx + k, sizeof(idx) - k, "%s%u",
				      i ? "," : "", res->crash_idx[i]);
	snprintf(htest_ctx_->msg, HTEST_MSG_LEN,
		 "fdt_parse read out of bounds on %u of %u inputs (cases %s%s): %s",
		 res->crashes, n, idx,
		 res->crashes > ARRAY_SIZE(res->crash_idx) ? ",..." : "", what);
	htest_ctx_->failed = 1;
	return true;
}

/* ---- deterministic random numbers ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static uint32_t rng_next(struct rng *r)
{
	r->s = mix64(r->s);
	return (uint32_t)(r->s >> 32);
}

/* ---- fuzzing ---- */

static struct blob packed[ARRAY_SIZE(trees)];

static bool load_packed(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(trees); i++) {
		if (packed[i].b)
			continue;
		packed[i] = load_packed_tree(i);
		if (!packed[i].b)
			return false;
	}
	return true;
}

/* 1..4 random byte flips, or a whole word replaced by an interesting
 * value, inside the structure block of a packed QEMU tree. */
static struct blob gen_struct_mutation(unsigned i, const void *ctx)
{
	(void)ctx;
	static const uint32_t words[] = {0, 0xffffffffu, TOK_BEGIN,
					 TOK_END_NODE, TOK_PROP, TOK_NOP,
					 TOK_END, 0x7fffffffu, 0x100, 3, 4};
	struct rng r = {0xF00D0000ull + i};
	const struct blob *t = &packed[i % ARRAY_SIZE(trees)];
	struct blob b = dup_blob(t->b, t->len);
	uint32_t off = rd32(b.b + HDR_OFF_STRUCT);
	uint32_t size = rd32(b.b + HDR_SIZE_STRUCT);
	unsigned nflip = 1 + rng_next(&r) % 4;
	for (unsigned k = 0; k < nflip; k++) {
		uint32_t pos = off + rng_next(&r) % size;
		uint32_t v = rng_next(&r);
		if (v % 4 == 0) {
			pos &= ~3u;
			wr32(b.b + pos, words[(v >> 8) % ARRAY_SIZE(words)] ^
						((v >> 16) % 2 ? 0 : (v >> 20)));
		} else {
			b.b[pos] ^= (uint8_t)(1 + (v >> 8) % 255);
		}
	}
	return b;
}

/* Run @n inputs from @gen: none may crash (read out of bounds), each
 * must return 0 or -1 with a sane result; @both: both outcomes occur. */
static void fuzz_check(struct htest_ctx *htest_ctx_, const char *label,
		       struct blob (*gen)(unsigned, const void *), bool both)
{
	enum { N = 1000 };
	struct fuzz_res res;
	fuzz_run(N, gen, NULL, &res);
	printf("# %s: %u parsed, %u rejected, %u crashed\n", label, res.ok,
	       res.reject, res.crashes);
	CHECK_EQ(res.badret, 0);
	CHECK_EQ(res.insane, 0);
	CHECK_EQ(res.ok + res.reject + res.crashes, N);
	if (both)
		CHECK(res.ok > 0 && res.reject > 0);
	overread_failure(htest_ctx_, label, &res, N,
			 "every offset and length must be checked against max");
}

HTEST(fuzz_struct_block_mutations)
{
	CHECK(load_packed());
	fuzz_check(htest_ctx_, "struct mutations", gen_struct_mutation, true);
}

/* Random header fields (after the magic) of a packed QEMU tree; half
 * the time totalsize is kept valid so the walk really starts. */
static struct blob gen_header_mutation(unsigned i, const void *ctx)
{
	(void)ctx;
	struct rng r = {0xBEEF0000ull + i};
	const struct blob *t = &packed[i % ARRAY_SIZE(trees)];
	struct blob b = dup_blob(t->b, t->len);
	unsigned nflip = 1 + rng_next(&r) % 3;
	for (unsigned k = 0; k < nflip; k++) {
		uint32_t pos = 4 + rng_next(&r) % 36;
		b.b[pos] ^= (uint8_t)(1 + rng_next(&r) % 255);
	}
	if (rng_next(&r) % 2)
		wr32(b.b + HDR_TOTALSIZE, (uint32_t)b.len);
	return b;
}

HTEST(fuzz_header_mutations)
{
	CHECK(load_packed());
	fuzz_check(htest_ctx_, "header mutations", gen_header_mutation, false);
}

/* Random bytes; odd cases get a valid magic and totalsize <= max. */
static struct blob gen_random_bytes(unsigned i, const void *ctx)
{
	(void)ctx;
	struct rng r = {0x5EED0000ull + i};
	size_t len = rng_next(&r) % 4096;
	struct blob b = {malloc(len ? len : 1), len};
	for (size_t k = 0; k < len; k++)
		b.b[k] = (uint8_t)rng_next(&r);
	if (i % 2 && len >= 40) {
		wr32(b.b, FDT_MAGIC);
		wr32(b.b + HDR_TOTALSIZE, (uint32_t)(len - rng_next(&r) % 8));
		/* Keep the walk's start and the strings inside the buffer. */
		wr32(b.b + HDR_OFF_STRUCT, 40 + rng_next(&r) % (uint32_t)(len - 39));
		wr32(b.b + HDR_OFF_STRINGS, rng_next(&r) % (uint32_t)len);
	}
	return b;
}

/* Pure random bytes (even cases) never pass the magic check. */
HTEST(fuzz_random_bytes)
{
	fuzz_check(htest_ctx_, "random buffers", gen_random_bytes, false);
}

/* ---- one input per over-read, each a known bug class ---- */

static struct blob gen_one(unsigned i, const void *ctx)
{
	(void)i;
	const struct blob *b = ctx;
	return dup_blob(b->b, b->len);
}

/* Run @b (freed here) in a child. It must not crash; the result must be
 * 0 or -1 (@want_reject: -1). */
static void run_reproducer(struct htest_ctx *htest_ctx_, const char *test,
			   struct blob b, bool want_reject, const char *what)
{
	struct fuzz_res res;
	fuzz_run(1, gen_one, &b, &res);
	free(b.b);
	if (overread_failure(htest_ctx_, test, &res, 1, what))
		return;
	CHECK_EQ(res.badret + res.insane, 0);
	if (!res.crashes && want_reject)
		CHECK_EQ(res.reject, 1);
}

/* Offset of the first property named @name after the node @node. */
static uint32_t find_prop(const struct blob *t, const char *node,
			  const char *name)
{
	const uint8_t *b = t->b;
	const char *strs = (const char *)b + rd32(b + HDR_OFF_STRINGS);
	uint32_t p = rd32(b + HDR_OFF_STRUCT);
	uint32_t end = p + rd32(b + HDR_SIZE_STRUCT);
	bool in = node == NULL;
	while (p + 4 <= end) {
		uint32_t tok = rd32(b + p);
		if (tok == TOK_BEGIN) {
			const char *nm = (const char *)b + p + 4;
			if (node && !strncmp(nm, node, strlen(node)))
				in = true;
			p += 4 + ((uint32_t)strlen(nm) + 4) / 4 * 4;
		} else if (tok == TOK_PROP) {
			uint32_t len = rd32(b + p + 4);
			if (in && !strcmp(strs + rd32(b + p + 8), name))
				return p;
			p += 12 + (len + 3) / 4 * 4;
		} else if (tok == TOK_END) {
			break;
		} else {
			p += 4;
		}
	}
	return 0;
}

HTEST(overread_prop_nameoff)
{
	CHECK(load_packed());
	/* The strings block ends the packed buffer: nameoff = its size
	 * names the byte just past max. */
	struct blob b = dup_blob(packed[1].b, packed[1].len);
	uint32_t p = find_prop(&b, "memory", "reg");
	CHECK(p != 0);
	wr32(b.b + p + 8, rd32(b.b + HDR_SIZE_STRINGS));
	CHECK_EQ(rd32(b.b + HDR_OFF_STRINGS) + rd32(b.b + HDR_SIZE_STRINGS),
		 b.len);
	run_reproducer(htest_ctx_, "overread_prop_nameoff", b, false,
		       "a property name offset must lie inside the strings block");
}

HTEST(overread_header_strings_offset)
{
	CHECK(load_packed());
	struct blob b = dup_blob(packed[0].b, packed[0].len);
	wr32(b.b + HDR_OFF_STRINGS, (uint32_t)b.len);
	run_reproducer(htest_ctx_, "overread_header_strings_offset", b, false,
		       "the header offsets must lie inside totalsize and max");
}

HTEST(overread_prop_value_length)
{
	/* bootargs claims 200 bytes but the tree ends 4 bytes later
	 * (strings before struct, so the struct block ends the buffer). */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_begin(&fb, "chosen");
	fb_str(&fb, "bootargs", "abc");
	struct blob b = fb_finish(&fb, true);
	uint32_t p = find_prop(&b, "chosen", "bootargs");
	CHECK(p != 0);
	CHECK_EQ(p + 16, b.len);
	wr32(b.b + p + 4, 200);
	run_reproducer(htest_ctx_, "overread_prop_value_length", b, false,
		       "a property length must not run past the structure block");
}

HTEST(overread_prop_header)
{
	/* The buffer ends right after an FDT_PROP token: its len and
	 * nameoff words lie past max. */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_u32(&fb, TOK_PROP);
	struct blob b = fb_finish(&fb, true);
	run_reproducer(htest_ctx_, "overread_prop_header", b, false,
		       "a property header must fit before the end of the block");
}

HTEST(overread_cpu_address_cells)
{
	/* /cpus #address-cells = 0x40000001: 4 * cells wraps to 4, so a
	 * 4-byte reg passes the length check and be_cells() reads 4 GiB. */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_begin(&fb, "cpus");
	fb_cells(&fb, "#address-cells", 1, 0x40000001u);
	fb_begin(&fb, "cpu@0");
	fb_cells(&fb, "reg", 1, 0u);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	struct blob b = fb_finish(&fb, false);
	run_reproducer(htest_ctx_, "overread_cpu_address_cells", b, false,
		       "/cpus #address-cells must be 1 or 2");
}

HTEST(overread_node_name)
{
	/* The buffer ends inside a node name "memory" with no NUL:
	 * fdt_begin()'s name_is() reads the byte past max. */
	memset(&fb, 0, sizeof(fb));
	fb_begin(&fb, "");
	fb_u32(&fb, TOK_BEGIN);
	memcpy(fb.st + fb.stlen, "memory", 6);
	fb.stlen += 6;
	struct blob b = fb_finish(&fb, true);
	run_reproducer(htest_ctx_, "overread_node_name", b, true,
		       "a node name must be terminated inside the block");
}
