/* Host tests for kernel/elf.c: the ELF64 executable parser. Every parse
 * runs on an exact-size heap copy of the image, so ASan reports any read
 * outside [img, img + size). */
#define HTEST_MAIN
#include "host_test.h"

#include <stdbool.h>
#include <unistd.h>

#include "elf.h"

#define PG FUL_PAGE_SIZE
#define CAP 0x4000 /* room for every hand-built image */
#define RX (ELF_PF_R | ELF_PF_X)
#define RW (ELF_PF_R | ELF_PF_W)
#define PT_NULL 0
#define PT_LOAD 1
#define PT_NOTE 4
#define PT_PHDR 6
#define PT_TLS 7
#define PT_GNU_STACK 0x6474e551u
#define PT_GNU_RELRO 0x6474e552u

/* Field offsets: ELF header, then program header (relative). */
enum { E_CLASS = 4, E_DATA = 5, E_IDVER = 6, E_OSABI = 7, E_TYPE = 16,
       E_MACHINE = 18, E_VERSION = 20, E_ENTRY = 24, E_PHOFF = 32,
       E_SHOFF = 40, E_EHSIZE = 52, E_PHENTSIZE = 54, E_PHNUM = 56,
       E_SHNUM = 60 };
enum { P_TYPE = 0, P_FLAGS = 4, P_OFFSET = 8, P_VADDR = 16, P_PADDR = 24,
       P_FILESZ = 32, P_MEMSZ = 40, P_ALIGN = 48 };

typedef unsigned __int128 u128;

struct ph {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz;
};

static uint8_t img[CAP];
static struct elf_image out;

static void put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Write into img an ELF header (entry @entry) and the @n program headers
 * @ph at offset 64; the rest of img is a non-zero payload pattern. */
static void build(uint64_t entry, const struct ph *ph, unsigned n)
{
	for (size_t i = 0; i < CAP; i++)
		img[i] = (uint8_t)(i * 131 + 7);
	memset(img, 0, 64 + 56 * (size_t)n);
	memcpy(img, "\177ELF", 4);
	img[E_CLASS] = 2;
	img[E_DATA] = 1;
	img[E_IDVER] = 1;
	put(img + E_TYPE, 2, 2);
	put(img + E_MACHINE, 183, 2);
	put(img + E_VERSION, 1, 4);
	put(img + E_ENTRY, entry, 8);
	put(img + E_PHOFF, 64, 8);
	put(img + E_EHSIZE, 64, 2);
	put(img + E_PHENTSIZE, 56, 2);
	put(img + E_PHNUM, n, 2);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = img + 64 + 56 * i;
		put(p + P_TYPE, ph[i].type, 4);
		put(p + P_FLAGS, ph[i].flags, 4);
		put(p + P_OFFSET, ph[i].offset, 8);
		put(p + P_VADDR, ph[i].vaddr, 8);
		put(p + P_PADDR, ph[i].vaddr, 8);
		put(p + P_FILESZ, ph[i].filesz, 8);
		put(p + P_MEMSZ, ph[i].memsz, 8);
		put(p + P_ALIGN, PG, 8);
	}
}

/* The standard image: text (RX, holds the headers), data + bss (RW)
 * and a PT_GNU_STACK; 0x900 bytes. */
#define STD_SIZE 0x900
#define STD_ENTRY 0x400100
static const struct ph std_ph[] = {
	{PT_LOAD, RX, 0, 0x400000, 0x800, 0x800},
	{PT_LOAD, RW, 0x800, 0x401800, 0x100, 0x3000},
	{PT_GNU_STACK, RW, 0, 0, 0, 0},
};

static void build_std(void)
{
	build(STD_ENTRY, std_ph, 3);
}

static void set_e(unsigned off, uint64_t v, unsigned n)
{
	put(img + off, v, n);
}

/* Set 8-byte field @off of program header @i (4 bytes for type, flags). */
static void set_p(unsigned i, unsigned off, uint64_t v)
{
	put(img + 64 + 56 * i + off, v, off < P_OFFSET ? 4 : 8);
}

/* elf_parse on an exact-size heap copy of @src[0, size) into a
 * garbage-filled out. */
static int parse_copy(const uint8_t *src, size_t size, struct elf_image *o)
{
	uint8_t *p = malloc(size);
	if (!p && size)
		abort();
	if (size)
		memcpy(p, src, size);
	memset(o, 0xA5, sizeof(*o));
	int r = elf_parse(p, size, o);
	free(p);
	return r;
}

#define CHECK_SEG(s, va, msz, fsz, off, fl)                                 \
	do {                                                                \
		CHECK_EQ((s).vaddr, va);                                    \
		CHECK_EQ((s).memsz, msz);                                   \
		CHECK_EQ((s).filesz, fsz);                                  \
		CHECK_EQ((s).offset, off);                                  \
		CHECK_EQ((s).flags, fl);                                    \
	} while (0)

/* img[0, size) must be rejected with exactly -FUL_EINVAL, nseg 0. */
#define CHECK_REJECT(size)                                                  \
	do {                                                                \
		CHECK_EQ(parse_copy(img, (size), &out), -FUL_EINVAL);       \
		CHECK_EQ(out.nseg, 0);                                      \
	} while (0)

#define CHECK_ACCEPT(size) CHECK_EQ(parse_copy(img, (size), &out), 0)

/* NULL if @im, accepted for the @size-byte image @b, keeps every promise
 * of elf.h and lists exactly the non-empty PT_LOAD headers of @b in file
 * order; else what is broken. Independent of elf.c: 128-bit sums. */
static const char *broken(const uint8_t *b, size_t size,
			  const struct elf_image *im)
{
	bool entry_x = false;
	if (im->nseg == 0 || im->nseg > ELF_MAX_SEGS)
		return "nseg out of range";
	for (unsigned i = 0; i < im->nseg; i++) {
		const struct elf_segment *s = &im->seg[i];
		if (s->memsz == 0 || s->filesz > s->memsz)
			return "bad sizes";
		if ((u128)s->offset + s->filesz > size)
			return "file bytes outside the image";
		if (s->vaddr < FUL_USER_MIN ||
		    (u128)s->vaddr + s->memsz > FUL_USER_MAX)
			return "outside the user range";
		if (s->flags == 0 || (s->flags & ~7u))
			return "bad flags";
		if ((s->flags & ELF_PF_W) && (s->flags & ELF_PF_X))
			return "W+X";
		if ((s->flags & ELF_PF_X) && im->entry >= s->vaddr &&
		    (u128)im->entry < (u128)s->vaddr + s->memsz)
			entry_x = true;
		for (unsigned j = 0; j < i; j++) {
			const struct elf_segment *t = &im->seg[j];
			u128 slo = s->vaddr & ~(PG - 1), tlo = t->vaddr & ~(PG - 1);
			u128 shi = ((u128)s->vaddr + s->memsz + PG - 1) & ~(u128)(PG - 1);
			u128 thi = ((u128)t->vaddr + t->memsz + PG - 1) & ~(u128)(PG - 1);
			if (slo < thi && tlo < shi)
				return "two segments share a page";
		}
	}
	if (!entry_x)
		return "entry not in an X segment";
	/* Cross-check against the raw table. */
	uint64_t phoff = get(b + E_PHOFF, 8);
	unsigned n = (unsigned)get(b + E_PHNUM, 2), k = 0;
	if (size < 64 || (u128)phoff + 56 * n > size)
		return "table outside the image";
	if (im->entry != get(b + E_ENTRY, 8))
		return "entry differs";
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *p = b + phoff + 56 * i;
		if (get(p + P_TYPE, 4) != PT_LOAD || get(p + P_MEMSZ, 8) == 0)
			continue;
		if (k >= im->nseg)
			return "a PT_LOAD is missing";
		const struct elf_segment *s = &im->seg[k++];
		if (s->vaddr != get(p + P_VADDR, 8) ||
		    s->memsz != get(p + P_MEMSZ, 8) ||
		    s->filesz != get(p + P_FILESZ, 8) ||
		    s->offset != get(p + P_OFFSET, 8) ||
		    s->flags != (get(p + P_FLAGS, 4) & 7))
			return "a segment differs from its header";
	}
	return k == im->nseg ? NULL : "extra segments";
}

/* An independent model of the rules: should @b[0, size) be accepted? */
static bool model_accepts(const uint8_t *b, size_t size)
{
	u128 lo[ELF_MAX_SEGS], hi[ELF_MAX_SEGS]; /* byte ranges */
	unsigned fl[ELF_MAX_SEGS], k = 0;
	if (size < 64 || memcmp(b, "\177ELF", 4) || b[E_CLASS] != 2 ||
	    b[E_DATA] != 1 || b[E_IDVER] != 1 || get(b + E_VERSION, 4) != 1 ||
	    get(b + E_TYPE, 2) != 2 || get(b + E_MACHINE, 2) != 183 ||
	    get(b + E_PHENTSIZE, 2) != 56)
		return false;
	u128 phoff = get(b + E_PHOFF, 8);
	unsigned n = (unsigned)get(b + E_PHNUM, 2);
	if (n == 0xffff || phoff + 56 * n > size)
		return false;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *p = b + (size_t)phoff + 56 * i;
		u128 off = get(p + P_OFFSET, 8), va = get(p + P_VADDR, 8);
		u128 fsz = get(p + P_FILESZ, 8), msz = get(p + P_MEMSZ, 8);
		unsigned f = (unsigned)get(p + P_FLAGS, 4) & 7;
		if (get(p + P_TYPE, 4) != PT_LOAD)
			continue;
		if (fsz > msz || off + fsz > size)
			return false;
		if (msz == 0)
			continue;
		if (va < FUL_USER_MIN || va + msz > FUL_USER_MAX || f == 0 ||
		    (f & 3) == 3 || k == ELF_MAX_SEGS)
			return false;
		lo[k] = va;
		hi[k] = va + msz;
		fl[k++] = f;
	}
	u128 entry = get(b + E_ENTRY, 8);
	bool entry_x = false;
	for (unsigned i = 0; i < k; i++) {
		/* Pages [lo / PG, ceil(hi / PG)) must be disjoint. */
		for (unsigned j = 0; j < i; j++)
			if (lo[i] / PG < (hi[j] + PG - 1) / PG &&
			    lo[j] / PG < (hi[i] + PG - 1) / PG)
				return false;
		if ((fl[i] & ELF_PF_X) && entry >= lo[i] && entry < hi[i])
			entry_x = true;
	}
	return entry_x;
}

/* ---- valid images ---- */

HTEST(std_image_parses_exactly)
{
	build_std();
	CHECK_ACCEPT(STD_SIZE);
	CHECK_EQ(out.entry, STD_ENTRY);
	CHECK_EQ(out.nseg, 2);
	CHECK_SEG(out.seg[0], 0x400000, 0x800, 0x800, 0, RX);
	CHECK_SEG(out.seg[1], 0x401800, 0x3000, 0x100, 0x800, RW);
	CHECK(broken(img, STD_SIZE, &out) == NULL);
	CHECK(model_accepts(img, STD_SIZE));
}

HTEST(other_phdr_types_and_sections_ignored)
{
	const struct ph ph[] = {
		{PT_PHDR, ELF_PF_R, 64, 0x400040, 56 * 8, 56 * 8},
		{PT_NULL, 0, ~0ull, ~0ull, ~0ull, 1},
		{PT_LOAD, RX, 0, 0x400000, 0x800, 0x800},
		{PT_NOTE, ELF_PF_R, 0x300, 0x400300, 0x24, 0x24},
		{PT_TLS, ELF_PF_R, 0x800, 0x401800, 0x18, 0x60},
		{PT_LOAD, RW, 0x800, 0x401800, 0x100, 0x3000},
		{PT_GNU_STACK, RW | ELF_PF_X, 0, 0, 0, 0},
		{PT_GNU_RELRO, ELF_PF_R, 0x800, 0x401800, 0x40, 0x40},
	};
	build(STD_ENTRY, ph, 8);
	/* Garbage section headers, ehsize and OS ABI: all ignored. */
	set_e(E_SHOFF, ~0ull, 8);
	set_e(E_SHNUM, 0xffff, 2);
	set_e(E_EHSIZE, 7, 2);
	img[E_OSABI] = 3;
	CHECK_ACCEPT(STD_SIZE);
	CHECK_EQ(out.nseg, 2);
	CHECK_SEG(out.seg[0], 0x400000, 0x800, 0x800, 0, RX);
	CHECK_SEG(out.seg[1], 0x401800, 0x3000, 0x100, 0x800, RW);
	CHECK(broken(img, STD_SIZE, &out) == NULL);
}

HTEST(max_segments_in_file_order)
{
	struct ph ph[ELF_MAX_SEGS];
	/* Descending addresses: the result keeps file order, unsorted. */
	for (unsigned i = 0; i < ELF_MAX_SEGS; i++)
		ph[i] = (struct ph){PT_LOAD, i == 3 ? RX : i % 2 ? RW : ELF_PF_R,
				    0x100 * i, 0x500000 - 0x10000 * i, 0x100,
				    0x1000 + i};
	build(0x500000 - 0x30000 + 0x40, ph, ELF_MAX_SEGS);
	CHECK_ACCEPT(0x800);
	CHECK_EQ(out.nseg, ELF_MAX_SEGS);
	for (unsigned i = 0; i < ELF_MAX_SEGS; i++)
		CHECK_SEG(out.seg[i], ph[i].vaddr, ph[i].memsz, 0x100,
			  0x100 * i, ph[i].flags);
	CHECK(broken(img, 0x800, &out) == NULL);
}

HTEST(empty_segments_are_skipped)
{
	/* memsz 0 PT_LOADs: skipped even at vaddr 0 with no flags, and not
	 * counted towards ELF_MAX_SEGS. */
	struct ph ph[2 * ELF_MAX_SEGS];
	for (unsigned i = 0; i < ELF_MAX_SEGS; i++) {
		ph[2 * i] = (struct ph){PT_LOAD, 0, 0x40, 0, 0, 0};
		ph[2 * i + 1] = (struct ph){PT_LOAD, RX, 0, 0x400000 + PG * i,
					    0x10, 0x10};
	}
	build(0x400000, ph, 2 * ELF_MAX_SEGS);
	CHECK_ACCEPT(0x800);
	CHECK_EQ(out.nseg, ELF_MAX_SEGS);
	CHECK_SEG(out.seg[7], 0x407000, 0x10, 0x10, 0, RX);
	CHECK(broken(img, 0x800, &out) == NULL);
	/* ... but an empty segment must still be well formed in the file. */
	set_p(0, P_FILESZ, 1);
	CHECK_REJECT(0x800);
	set_p(0, P_FILESZ, 0);
	set_p(0, P_OFFSET, 0x801);
	CHECK_REJECT(0x800);
}

HTEST(boundaries_that_are_accepted)
{
	/* First byte of the user range; an X-only and an R-only segment. */
	const struct ph ph[] = {
		{PT_LOAD, ELF_PF_X, 0, FUL_USER_MIN, 0x10, 0x10},
		{PT_LOAD, ELF_PF_R, 0x10, FUL_USER_MIN + PG, 0, PG},
		/* Ends exactly at FUL_USER_MAX; file bytes end at the image end. */
		{PT_LOAD, RW, 0x100, FUL_USER_MAX - 0x300, 0x800, 0x300},
	};
	build(FUL_USER_MIN + 0xf, ph, 3);
	img[STD_SIZE - 1] = 0x5a;
	set_p(2, P_FILESZ, STD_SIZE - 0x100);
	set_p(2, P_MEMSZ, STD_SIZE - 0x100);
	set_p(2, P_VADDR, FUL_USER_MAX - (STD_SIZE - 0x100));
	CHECK_ACCEPT(STD_SIZE); /* entry = last byte of the X segment */
	CHECK_EQ(out.nseg, 3);
	CHECK_EQ(out.seg[0].flags, ELF_PF_X);
	CHECK_EQ(out.seg[1].flags, ELF_PF_R);
	CHECK_EQ(out.seg[2].vaddr + out.seg[2].memsz, FUL_USER_MAX);
	CHECK(broken(img, STD_SIZE, &out) == NULL);
	/* Adjacent pages are fine: segment 1 ends exactly where a page
	 * starts and segment 2 starts there. */
	set_p(2, P_VADDR, FUL_USER_MIN + 2 * PG);
	CHECK_ACCEPT(STD_SIZE);
}

HTEST(unaligned_offsets_and_image)
{
	/* vaddr and offset need not agree modulo the page size, nor be
	 * aligned; the phdr table need not be aligned either. */
	const struct ph ph[] = {
		{PT_LOAD, RX, 0x123, 0x400456, 0x333, 0x333},
		{PT_LOAD, RW, 0x457, 0x402001, 0x11, 0x999},
	};
	build(0x400456, ph, 2);
	memmove(img + 67, img + 64, 2 * 56);
	set_e(E_PHOFF, 67, 8);
	CHECK_ACCEPT(0x500);
	CHECK_SEG(out.seg[0], 0x400456, 0x333, 0x333, 0x123, RX);
	CHECK_SEG(out.seg[1], 0x402001, 0x999, 0x11, 0x457, RW);
	/* The image itself at an odd address (exactly size bytes after it). */
	uint8_t *p = malloc(0x501);
	CHECK(p != NULL);
	memcpy(p + 1, img, 0x500);
	struct elf_image o2;
	int r = elf_parse(p + 1, 0x500, &o2);
	free(p);
	CHECK_EQ(r, 0);
	CHECK_EQ(o2.nseg, 2);
	CHECK_SEG(o2.seg[1], 0x402001, 0x999, 0x11, 0x457, RW);
}

HTEST(flags_beyond_rwx_are_dropped)
{
	build_std();
	set_p(0, P_FLAGS, 0xf0f00000u | RX);
	CHECK_ACCEPT(STD_SIZE);
	CHECK_EQ(out.seg[0].flags, RX);
}

/* ---- one rejection per rule ---- */

HTEST(reject_short_image)
{
	build_std();
	for (size_t n = 0; n < 64; n++)
		CHECK_REJECT(n);
	/* Whole header but truncated phdr table or payload. */
	for (size_t n = 64; n < STD_SIZE; n++)
		CHECK_REJECT(n);
	CHECK_ACCEPT(STD_SIZE);
}

HTEST(reject_bad_magic)
{
	for (unsigned i = 0; i < 4; i++) {
		build_std();
		img[i] ^= 0x20;
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_not_elfclass64)
{
	static const uint8_t bad[] = {0, 1, 3, 0xff};
	for (unsigned i = 0; i < sizeof(bad); i++) {
		build_std();
		img[E_CLASS] = bad[i];
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_not_little_endian)
{
	static const uint8_t bad[] = {0, 2, 3};
	for (unsigned i = 0; i < sizeof(bad); i++) {
		build_std();
		img[E_DATA] = bad[i];
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_not_ev_current)
{
	build_std();
	img[E_IDVER] = 0;
	CHECK_REJECT(STD_SIZE);
	img[E_IDVER] = 2;
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_e(E_VERSION, 0, 4);
	CHECK_REJECT(STD_SIZE);
	set_e(E_VERSION, 0x101, 4);
	CHECK_REJECT(STD_SIZE);
}

HTEST(reject_not_aarch64)
{
	static const uint16_t bad[] = {0, 3, 40 /* ARM */, 62 /* x86-64 */,
				       183 + 256, 0xffff};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_std();
		set_e(E_MACHINE, bad[i], 2);
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_not_et_exec)
{
	static const uint16_t bad[] = {0, 1 /* REL */, 3 /* DYN: PIE */,
				       4 /* CORE */, 0x102, 0xfe00};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_std();
		set_e(E_TYPE, bad[i], 2);
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_bad_phentsize)
{
	static const uint16_t bad[] = {0, 32, 55, 57, 64, 56 + 256};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_std();
		set_e(E_PHENTSIZE, bad[i], 2);
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_phdr_table_outside_image)
{
	build_std();
	set_e(E_PHOFF, STD_SIZE, 8); /* starts at the end */
	CHECK_REJECT(STD_SIZE);
	set_e(E_PHOFF, STD_SIZE - 3 * 56 + 1, 8); /* last byte past the end */
	CHECK_REJECT(STD_SIZE);
	set_e(E_PHOFF, ~0ull - 55, 8); /* phoff + 56 wraps to 0 */
	CHECK_REJECT(STD_SIZE);
	set_e(E_PHOFF, 1ull << 63, 8);
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_e(E_PHNUM, (STD_SIZE - 64) / 56 + 1, 2); /* too many entries */
	CHECK_REJECT(STD_SIZE);
	/* The table at the very end of the image is fine. */
	build_std();
	memcpy(img + STD_SIZE - 3 * 56, img + 64, 3 * 56);
	set_e(E_PHOFF, STD_SIZE - 3 * 56, 8);
	CHECK_ACCEPT(STD_SIZE);
	CHECK_EQ(out.nseg, 2);
}

HTEST(reject_extended_phnum)
{
	/* e_phnum PN_XNUM (0xffff) means "the count is in section 0": not a
	 * count, even when 0xffff headers would fit in the image. */
	size_t size = 64 + 56 * (size_t)0xffff;
	uint8_t *big = calloc(1, size);
	CHECK(big != NULL);
	build_std();
	memcpy(big, img, 64 + 3 * 56); /* the rest: PT_NULL headers */
	put(big + E_PHNUM, 0xfffe, 2);
	int ok = parse_copy(big, size, &out);
	put(big + E_PHNUM, 0xffff, 2);
	int xnum = parse_copy(big, size, &out);
	free(big);
	CHECK_EQ(ok, 0);
	CHECK_EQ(xnum, -FUL_EINVAL);
	CHECK_EQ(out.nseg, 0);
}

HTEST(reject_too_many_load_segments)
{
	struct ph ph[ELF_MAX_SEGS + 1];
	for (unsigned i = 0; i <= ELF_MAX_SEGS; i++)
		ph[i] = (struct ph){PT_LOAD, RX, 0, 0x400000 + PG * i, 0x10, 0x10};
	build(0x400000, ph, ELF_MAX_SEGS + 1);
	CHECK_REJECT(0x800);
	set_e(E_PHNUM, ELF_MAX_SEGS, 2);
	CHECK_ACCEPT(0x800);
}

HTEST(reject_filesz_above_memsz)
{
	build_std();
	set_p(1, P_FILESZ, 0x3001);
	set_p(1, P_OFFSET, 0);
	CHECK_REJECT(0x4000);
	set_p(1, P_FILESZ, 0x3000);
	CHECK_ACCEPT(0x4000);
}

HTEST(reject_file_bytes_outside_image)
{
	build_std();
	set_p(1, P_FILESZ, STD_SIZE - 0x800 + 1); /* one byte past the end */
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_p(1, P_OFFSET, STD_SIZE + 1); /* starts past the end, filesz 0x100 */
	CHECK_REJECT(STD_SIZE);
	set_p(1, P_FILESZ, 0);
	CHECK_REJECT(STD_SIZE);
	set_p(1, P_OFFSET, ~0ull - 0x7f); /* offset + filesz wraps */
	set_p(1, P_FILESZ, 0x100);
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_p(1, P_FILESZ, ~0ull); /* huge filesz, huge memsz */
	set_p(1, P_MEMSZ, ~0ull);
	CHECK_REJECT(STD_SIZE);
	/* An empty file part may start right at the end of the image. */
	build_std();
	set_p(1, P_OFFSET, STD_SIZE);
	set_p(1, P_FILESZ, 0);
	CHECK_ACCEPT(STD_SIZE);
}

HTEST(reject_outside_user_range)
{
	static const struct { uint64_t va, msz; } bad[] = {
		{0, 0x100},
		{FUL_USER_MIN - PG, 0x100},
		{FUL_USER_MIN - 1, 0x100},
		{FUL_USER_MAX - 0x1000, 0x1001},
		{FUL_USER_MAX, 1},
		{FUL_USER_MAX + PG, PG},
		{~0ull - 0xfff, 0x2000},     /* vaddr + memsz wraps */
		{0x402000, ~0ull - 0x401fff}, /* also wraps, to exactly 0 */
		{0xffff000000080000ull, 0x1000}, /* a kernel address */
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_std();
		set_p(1, P_VADDR, bad[i].va);
		set_p(1, P_MEMSZ, bad[i].msz);
		CHECK_REJECT(STD_SIZE);
	}
}

HTEST(reject_no_access_flags)
{
	build_std();
	set_p(1, P_FLAGS, 0);
	CHECK_REJECT(STD_SIZE);
	set_p(1, P_FLAGS, 0xf0000000u); /* PF_MASKPROC only */
	CHECK_REJECT(STD_SIZE);
}

HTEST(reject_writable_and_executable)
{
	build_std();
	set_p(0, P_FLAGS, RX | ELF_PF_W);
	CHECK_REJECT(STD_SIZE);
	set_p(0, P_FLAGS, ELF_PF_W | ELF_PF_X);
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_p(1, P_FLAGS, RW | ELF_PF_X); /* data RWX */
	CHECK_REJECT(STD_SIZE);
}

HTEST(reject_segments_sharing_a_page)
{
	static const struct { uint64_t va, msz; } bad[] = {
		{0x400800, 0x100},  /* same page as text's tail */
		{0x3ff000, 0x1001}, /* ends in text's first page */
		{0x400000, 0x800},  /* identical range */
		{0x3f0000, 0x20000}, /* contains text */
		{0x400fff, 1},      /* last byte of text's page */
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_std();
		set_p(1, P_VADDR, bad[i].va);
		set_p(1, P_MEMSZ, bad[i].msz);
		CHECK_REJECT(STD_SIZE);
	}
	/* Disjoint bytes, shared page: text ends at 0x400801. */
	build_std();
	set_p(0, P_MEMSZ, 0x801);
	set_p(1, P_VADDR, 0x400802);
	CHECK_REJECT(STD_SIZE);
	set_p(1, P_VADDR, 0x401000);
	CHECK_ACCEPT(STD_SIZE);
}

HTEST(reject_entry_not_in_exec_segment)
{
	static const uint64_t bad[] = {0, 0x3fffff, 0x400800 /* one past */,
				       0x401800 /* in RW data */, 0x401fff,
				       ~0ull};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_std();
		set_e(E_ENTRY, bad[i], 8);
		CHECK_REJECT(STD_SIZE);
	}
	build_std();
	set_p(0, P_FLAGS, ELF_PF_R); /* nothing executable at all */
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_e(E_PHNUM, 0, 2); /* no program headers */
	CHECK_REJECT(STD_SIZE);
	build_std();
	set_e(E_ENTRY, 0x4007ff, 8); /* last byte: accepted */
	CHECK_ACCEPT(STD_SIZE);
}

/* ---- real binaries ---- */

/* The file @path, in an exact-size heap buffer (NULL if unreadable). */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n)) &&
	    fread(b, 1, (size_t)n, f) == (size_t)n)
		*size = (size_t)n;
	else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* Link @src with the cross compiler and @flags into @dir/a.out and parse
 * it. Returns false (a skip) if the toolchain cannot build it. */
static bool cross_parse(const char *dir, const char *src, const char *flags,
			const char **why)
{
	const char *cross = getenv("CROSS") ? getenv("CROSS")
					    : "aarch64-linux-gnu-";
	char path[256], cmd[1024];
	size_t size = 0;
	snprintf(path, sizeof(path), "%s/t.c", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%sgcc -O2 -static -no-pie %s -o %s/a.out "
		 "%s >/dev/null 2>&1", cross, flags, dir, path);
	if (system(cmd) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/a.out", dir);
	uint8_t *b = read_file(path, &size);
	if (!b)
		return false;
	memset(&out, 0xA5, sizeof(out));
	int r = elf_parse(b, size, &out);
	*why = r ? "rejected" : broken(b, size, &out);
	if (!*why && (out.nseg != 2 || out.seg[0].flags != RX ||
		      out.seg[1].flags != RW))
		*why = "expected text RX + data RW";
	free(b);
	return true;
}

HTEST(real_cross_compiled_binaries)
{
#define BARE "int counter = 5; static char bss[10000]; const char m[] = \"hi\";\n" \
	"void _start(void) { bss[counter] = m[1]; for (;;) counter++; }\n"
#define LIBC "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n"
	static const struct { const char *src, *flags; } cases[] = {
		{BARE, "-nostdlib"},
		{BARE, "-nostdlib -Wl,-z,max-page-size=4096"},
		{BARE, "-nostdlib -Wl,-Ttext-segment=0x10000"},
		{LIBC, ""}, /* static glibc: PT_TLS, PT_GNU_RELRO, PT_NOTE */
	};
	enum { NCASES = sizeof(cases) / sizeof(cases[0]) };
	char dir[] = "/tmp/test_elf.XXXXXX";
	unsigned done = 0;
	CHECK(mkdtemp(dir) != NULL);
	for (unsigned i = 0; i < NCASES; i++) {
		const char *why = NULL;
		if (!cross_parse(dir, cases[i].src, cases[i].flags, &why))
			continue;
		done++;
		if (why)
			HTEST_FAIL_("real binary (%s): %s", cases[i].flags, why);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_elf: could not remove %s\n", dir);
	printf("# real binaries: %u of %u built and parsed%s\n", done, NCASES,
	       done ? "" : " (no cross compiler: skipped)");
}

/* ---- fuzzing ---- */

static unsigned fuzz_case = ~0u;

/* Called by ASan before it reports an error: name the fuzz input. */
void __asan_on_error(void);
void __asan_on_error(void)
{
	if (fuzz_case != ~0u)
		fprintf(stderr, "test_elf: ASan error in fuzz case %u\n",
			fuzz_case);
}

struct base {
	uint8_t b[CAP];
	size_t size;
	unsigned hdr;  /* bytes of ehdr + phdrs */
	size_t need;   /* shortest valid cut: headers and all file bytes */
};

#define NBASES 4
static struct base bases[NBASES];

/* Save img, @size bytes with @nph program headers, as base @i. */
static void save_base(unsigned i, size_t size, unsigned nph)
{
	struct base *bs = &bases[i];
	memcpy(bs->b, img, CAP);
	bs->size = size;
	bs->hdr = bs->need = 64 + 56 * nph;
	for (unsigned k = 0; k < nph; k++) {
		const uint8_t *p = img + 64 + 56 * k;
		size_t end = get(p + P_OFFSET, 8) + get(p + P_FILESZ, 8);
		if (get(p + P_TYPE, 4) == PT_LOAD && end > bs->need)
			bs->need = end;
	}
}

static void make_bases(void)
{
	const struct ph many[] = {
		{PT_PHDR, ELF_PF_R, 64, 0x400040, 56 * 10, 56 * 10},
		{PT_LOAD, ELF_PF_R, 0, 0x400000, 0x300, 0x300},
		{PT_LOAD, RX, 0x300, 0x401300, 0x300, 0x300},
		{PT_TLS, ELF_PF_R, 0x600, 0x402600, 0x10, 0x40},
		{PT_LOAD, RW, 0x600, 0x402600, 0x100, 0x100},
		{PT_LOAD, RW, 0x700, 0x403700, 0x100, 0x5000},
		{PT_LOAD, ELF_PF_R, 0x800, 0x409000, 0, 0},
		{PT_LOAD, ELF_PF_X, 0x800, 0x409800, 0x80, 0x80},
		{PT_GNU_STACK, RW, 0, 0, 0, 0},
		{PT_LOAD, ELF_PF_R, 0x880, 0x7ffffff000ull, 0x80, 0x1000},
	};
	const struct ph odd[] = {
		{PT_LOAD, RX, 0x123, 0x10456, 0x333, 0x333},
		{PT_LOAD, RW, 0x457, 0x12001, 0x11, 0x999},
	};
	build_std();
	save_base(0, STD_SIZE, 3);
	build(0x401400, many, 10);
	save_base(1, 0xa00, 10);
	build(0x10788, odd, 2);
	save_base(2, 0x500, 2);
	/* ELF_MAX_SEGS loads, one empty, one note: one mutation from 9. */
	struct ph full[ELF_MAX_SEGS + 2];
	for (unsigned i = 0; i < ELF_MAX_SEGS; i++)
		full[i] = (struct ph){PT_LOAD, i ? RW : RX, 0x300 + 0x10 * i,
				      0x20000 + 2 * PG * i, 0x10, PG + 0x10 * i};
	full[ELF_MAX_SEGS] = (struct ph){PT_LOAD, RW, 0x380, 0x30000, 0, 0};
	full[ELF_MAX_SEGS + 1] = (struct ph){PT_NOTE, ELF_PF_R, 0x390,
					     0x31000, 0x10, 0x10};
	build(0x20004, full, ELF_MAX_SEGS + 2);
	save_base(3, 0x400, ELF_MAX_SEGS + 2);
}

/* A value likely to sit on a rule's boundary for a field now holding @old. */
static uint64_t interesting(uint64_t *rs, uint64_t old, size_t size)
{
	static const uint64_t fixed[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 56, 64, 183, 0xffff, 0xffffffffull,
		~0ull, ~0ull - 55, 1ull << 63, FUL_USER_MIN, FUL_USER_MIN - 1,
		FUL_USER_MAX, FUL_USER_MAX - 1, FUL_USER_MAX - PG, PT_TLS,
		PT_GNU_STACK, 0x400000, 0x401000, 0x401800,
	};
	uint64_t r = htest_rand(rs);
	int64_t d = (int64_t)(r >> 32) % 9 - 4;
	switch ((r >> 8) % 6) {
	case 0: return fixed[(r >> 16) % (sizeof(fixed) / sizeof(fixed[0]))];
	case 1: return old + (uint64_t)d;
	case 2: return old + (uint64_t)d * PG;
	case 3: return size + (uint64_t)d;
	case 4: return htest_rand(rs);
	default: return htest_rand(rs) % 0x10000;
	}
}

/* 1..4 mutations of @b: bit flips, random bytes or boundary values in
 * the header fields; sometimes a truncation. Returns the new size. */
static size_t mutate(uint8_t *b, const struct base *base, uint64_t *rs)
{
	static const struct { uint8_t off, len; } ef[] = {
		{E_CLASS, 1}, {E_DATA, 1}, {E_IDVER, 1}, {E_TYPE, 2},
		{E_MACHINE, 2}, {E_VERSION, 4}, {E_ENTRY, 8}, {E_PHOFF, 8},
		{E_PHENTSIZE, 2}, {E_PHNUM, 2},
	}, pf[] = {
		{P_TYPE, 4}, {P_FLAGS, 4}, {P_OFFSET, 8}, {P_VADDR, 8},
		{P_FILESZ, 8}, {P_MEMSZ, 8},
	};
	size_t size = base->size;
	unsigned nph = (base->hdr - 64) / 56;
	unsigned n = 1 + htest_rand(rs) % 4;
	for (unsigned k = 0; k < n; k++) {
		uint64_t r = htest_rand(rs);
		unsigned pos = (unsigned)(r >> 32) % base->hdr, off, len;
		switch (r % 4) {
		case 0:
			b[pos] ^= (uint8_t)(1u << ((r >> 8) % 8));
			continue;
		case 1:
			b[pos] = (uint8_t)(r >> 16);
			continue;
		case 2:
			off = ef[(r >> 8) % (sizeof(ef) / sizeof(ef[0]))].off;
			len = ef[(r >> 8) % (sizeof(ef) / sizeof(ef[0]))].len;
			break;
		default:
			off = 64 + 56 * ((r >> 16) % nph) +
			      pf[(r >> 8) % (sizeof(pf) / sizeof(pf[0]))].off;
			len = pf[(r >> 8) % (sizeof(pf) / sizeof(pf[0]))].len;
			break;
		}
		put(b + off, interesting(rs, get(b + off, len), size), len);
	}
	if (htest_rand(rs) % 8 == 0)
		size = htest_rand(rs) % (size + 1);
	return size;
}

/* Parse @b[0, size) from an exact-size copy; check the result against
 * the model and the invariants. NULL if fine, else what went wrong. */
static const char *fuzz_one(const uint8_t *b, size_t size, bool *accepted)
{
	static struct elf_image o;
	int r = parse_copy(b, size, &o);
	*accepted = r == 0;
	if (r != 0 && r != -FUL_EINVAL)
		return "returned neither 0 nor -FUL_EINVAL";
	if (r != 0 && o.nseg != 0)
		return "rejected but nseg != 0";
	if (*accepted != model_accepts(b, size))
		return r ? "rejected, the model accepts" : "accepted, the model rejects";
	return r ? NULL : broken(b, size, &o);
}

HTEST(fuzz_truncation_at_every_length)
{
	make_bases();
	for (unsigned i = 0; i < NBASES; i++) {
		for (size_t len = 0; len <= bases[i].size; len++) {
			bool ok;
			const char *why = fuzz_one(bases[i].b, len, &ok);
			if (why)
				HTEST_FAIL_("base %u cut to %zu: %s", i, len, why);
			/* Accepted exactly while nothing needed is cut off. */
			if (ok != (len >= bases[i].need))
				HTEST_FAIL_("base %u cut to %zu: %s", i, len,
					    ok ? "accepted" : "rejected");
		}
		printf("# truncation: base %u, %zu lengths, %zu accepted\n", i,
		       bases[i].size + 1, bases[i].size + 1 - bases[i].need);
	}
}

HTEST(fuzz_random_mutations)
{
	enum { N = 20000 };
	static uint8_t b[CAP];
	uint64_t rs = 0xE1F0E1F0ull;
	unsigned acc = 0;
	make_bases();
	for (fuzz_case = 0; fuzz_case < N; fuzz_case++) {
		const struct base *base = &bases[htest_rand(&rs) % NBASES];
		memcpy(b, base->b, CAP);
		size_t size = mutate(b, base, &rs);
		bool ok;
		const char *why = fuzz_one(b, size, &ok);
		if (why)
			HTEST_FAIL_("fuzz case %u (size %zu): %s", fuzz_case,
				    size, why);
		acc += ok;
	}
	fuzz_case = ~0u;
	printf("# fuzz: %u mutations, %u accepted, %u rejected\n", N, acc,
	       N - acc);
	/* Both outcomes must be common, or the fuzz tests nothing. */
	CHECK(acc > N / 50 && acc < N - N / 50);
}
