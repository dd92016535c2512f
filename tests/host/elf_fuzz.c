/* Host tests for kernel/elf.c on damaged images, part of the test_elf
 * binary (test_elf.c holds its main and the per-rule checks): every
 * truncation of four base images, and random mutations of their
 * headers, each judged against model_accepts() and broken(). */
#include "host_test.h"

#include <stdbool.h>

#include "elf.h"
#include "elf_util.h"

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
