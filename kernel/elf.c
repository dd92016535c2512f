/*
 * ELF64 executable parser. The image is untrusted: every field is read
 * byte by byte (no alignment assumed, no libc), and every offset and
 * length is checked against [img, img + size) with arithmetic that
 * cannot overflow before anything is read through it.
 *
 * Accepted: a static, position-dependent AArch64 executable whose
 * loadable segments fit the user address space. Section headers,
 * p_paddr, p_align, e_flags and EI_OSABI are ignored; so are program
 * headers other than PT_LOAD (PT_TLS, PT_GNU_STACK, PT_NOTE, ...).
 */
#include "elf.h"

#define EHDR_SIZE 64
#define PHDR_SIZE 56
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define EV_CURRENT 1
#define ET_EXEC 2
#define EM_AARCH64 183
#define PN_XNUM 0xffff
#define PT_LOAD 1
#define PF_RWX (ELF_PF_R | ELF_PF_W | ELF_PF_X)

/** The @n-byte little-endian value at @p (any alignment). */
static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = v << 8 | p[n];
	return v;
}

/** The ELF header rules. On success sets the program header table's
 *  offset and entry count; the table is then known to lie in the image. */
static int check_ehdr(const uint8_t *b, size_t size, uint64_t *phoff,
		      unsigned *phnum)
{
	/* Rule: the image holds a whole ELF header. */
	if (size < EHDR_SIZE)
		return -FUL_EINVAL;
	/* Rule: the magic number "\x7fELF". */
	if (b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F')
		return -FUL_EINVAL;
	/* Rule: 64-bit, little-endian, version 1 (e_ident and e_version). */
	if (b[4] != ELFCLASS64 || b[5] != ELFDATA2LSB)
		return -FUL_EINVAL;
	if (b[6] != EV_CURRENT || le(b + 20, 4) != EV_CURRENT)
		return -FUL_EINVAL;
	/* Rule: an AArch64 executable; ET_DYN (PIE) would need relocating. */
	if (le(b + 18, 2) != EM_AARCH64 || le(b + 16, 2) != ET_EXEC)
		return -FUL_EINVAL;
	/* Rule: program headers are Elf64_Phdr-sized. */
	if (le(b + 54, 2) != PHDR_SIZE)
		return -FUL_EINVAL;
	/* Rule: no extended numbering (the real count sits in section 0,
	 * and section headers are not read). */
	*phoff = le(b + 32, 8);
	*phnum = (unsigned)le(b + 56, 2);
	if (*phnum == PN_XNUM)
		return -FUL_EINVAL;
	/* Rule: the table lies in the image. phnum * 56 < 2^22: no overflow. */
	if (*phoff > size || (uint64_t)*phnum * PHDR_SIZE > size - *phoff)
		return -FUL_EINVAL;
	return 0;
}

/** The rules for the PT_LOAD header at @ph; fills @s. Returns 0, 1 if the
 *  segment is empty (memsz 0) and must be skipped, or -FUL_EINVAL. */
static int check_load(const uint8_t *ph, size_t size, struct elf_segment *s)
{
	uint32_t flags = (uint32_t)le(ph + 4, 4);

	s->offset = le(ph + 8, 8);
	s->vaddr = le(ph + 16, 8);
	s->filesz = le(ph + 32, 8);
	s->memsz = le(ph + 40, 8);
	s->flags = flags & PF_RWX;
	/* Rule: the file bytes are a prefix of the memory image. */
	if (s->filesz > s->memsz)
		return -FUL_EINVAL;
	/* Rule: the file bytes lie in the image; offset + filesz is never
	 * computed, so it cannot overflow. */
	if (s->offset > size || s->filesz > size - s->offset)
		return -FUL_EINVAL;
	/* Decision: an empty segment maps nothing; skip it, unchecked
	 * further, rather than fail. It does not count towards the limit. */
	if (s->memsz == 0)
		return 1;
	/* Rule: [vaddr, vaddr + memsz) lies in the user range, again
	 * without computing a sum that could overflow. */
	if (s->vaddr < FUL_USER_MIN || s->vaddr > FUL_USER_MAX ||
	    s->memsz > FUL_USER_MAX - s->vaddr)
		return -FUL_EINVAL;
	/* Rule: some access is asked for. Bits other than R, W, X
	 * (PF_MASKOS, PF_MASKPROC) are dropped and do not count. */
	if (s->flags == 0)
		return -FUL_EINVAL;
	/* Rule: W^X, never both writable and executable. */
	if ((s->flags & ELF_PF_W) && (s->flags & ELF_PF_X))
		return -FUL_EINVAL;
	return 0;
}

/** Do the non-empty, in-range segments @a and @b touch a common page?
 *  The loader maps whole pages, so that page would need both rights. */
static bool share_page(const struct elf_segment *a,
		       const struct elf_segment *b)
{
	uint64_t a0 = a->vaddr / FUL_PAGE_SIZE;
	uint64_t a1 = (a->vaddr + a->memsz - 1) / FUL_PAGE_SIZE;
	uint64_t b0 = b->vaddr / FUL_PAGE_SIZE;
	uint64_t b1 = (b->vaddr + b->memsz - 1) / FUL_PAGE_SIZE;
	return a0 <= b1 && b0 <= a1;
}

/** Does im->entry lie in an executable segment of @im? */
static bool entry_ok(const struct elf_image *im)
{
	for (unsigned i = 0; i < im->nseg; i++) {
		const struct elf_segment *s = &im->seg[i];
		if ((s->flags & ELF_PF_X) && im->entry >= s->vaddr &&
		    im->entry - s->vaddr < s->memsz)
			return true;
	}
	return false;
}

/** elf_parse() proper: the header, then each program header in file
 *  order, then the rules that relate segments to each other. */
static int parse(const uint8_t *b, size_t size, struct elf_image *out)
{
	uint64_t phoff;
	unsigned phnum;
	int err = check_ehdr(b, size, &phoff, &phnum);
	if (err)
		return err;
	out->entry = le(b + 24, 8);
	out->nseg = 0;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = b + phoff + (size_t)i * PHDR_SIZE;
		/* Rule: only PT_LOAD matters; other types are ignored. */
		if (le(ph, 4) != PT_LOAD)
			continue;
		struct elf_segment s;
		err = check_load(ph, size, &s);
		if (err < 0)
			return err;
		if (err > 0)
			continue;
		/* Rule: at most ELF_MAX_SEGS non-empty PT_LOAD segments. */
		if (out->nseg == ELF_MAX_SEGS)
			return -FUL_EINVAL;
		out->seg[out->nseg++] = s;
	}
	/* Rule: no two segments share a page. */
	for (unsigned i = 0; i < out->nseg; i++)
		for (unsigned j = i + 1; j < out->nseg; j++)
			if (share_page(&out->seg[i], &out->seg[j]))
				return -FUL_EINVAL;
	/* Rule: the entry point is in an executable segment (so there is
	 * at least one segment). */
	if (!entry_ok(out))
		return -FUL_EINVAL;
	return 0;
}

int elf_parse(const void *img, size_t size, struct elf_image *out)
{
	int err = parse(img, size, out);
	if (err)
		out->nseg = 0;
	return err;
}
