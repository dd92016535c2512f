/*
 * elf_util.c - the shared helpers of the test_elf host binary (see
 * elf_util.h).
 */
#include <stdlib.h>
#include <string.h>

#include "elf_util.h"

uint8_t img[CAP];
struct elf_image out;

/* Write into img an ELF header (entry @entry) and the @n program headers
 * @ph at offset 64; the rest of img is a non-zero payload pattern. */
void build(uint64_t entry, const struct ph *ph, unsigned n)
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

/* The standard image's program headers (see STD_SIZE). */
static const struct ph std_ph[] = {
	{PT_LOAD, RX, 0, 0x400000, 0x800, 0x800},
	{PT_LOAD, RW, 0x800, 0x401800, 0x100, 0x3000},
	{PT_GNU_STACK, RW, 0, 0, 0, 0},
};

void build_std(void)
{
	build(STD_ENTRY, std_ph, 3);
}

/* Set the @n-byte field @off of the ELF header. */
void set_e(unsigned off, uint64_t v, unsigned n)
{
	put(img + off, v, n);
}

/* Set 8-byte field @off of program header @i (4 bytes for type, flags). */
void set_p(unsigned i, unsigned off, uint64_t v)
{
	put(img + 64 + 56 * i + off, v, off < P_OFFSET ? 4 : 8);
}

/* elf_parse on an exact-size heap copy of @src[0, size) into a
 * garbage-filled out. */
int parse_copy(const uint8_t *src, size_t size, struct elf_image *o)
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

/* NULL if @im, accepted for the @size-byte image @b, keeps every promise
 * of elf.h and lists exactly the non-empty PT_LOAD headers of @b in file
 * order; else what is broken. Independent of elf.c: 128-bit sums. */
const char *broken(const uint8_t *b, size_t size,
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
bool model_accepts(const uint8_t *b, size_t size)
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
