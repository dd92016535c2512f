/* Host tests for kernel/elf.c: the ELF64 executable parser, one check
 * per rule and real cross-compiled binaries. Truncated and mutated
 * images are in elf_fuzz.c, linked into this same binary; the helpers
 * both use are in elf_util.c. Every parse runs on an exact-size heap
 * copy of the image, so ASan reports any read outside
 * [img, img + size). */
#define HTEST_MAIN
#include "host_test.h"

#include <stdbool.h>
#include <unistd.h>

#include "elf.h"
#include "elf_util.h"

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
