/*
 * elf_util.h - helpers shared by the parts of the test_elf host binary
 * (test_elf.c: one check per loader rule and real binaries; elf_fuzz.c:
 * truncated and mutated images): the image builder, an exact-size
 * parse, and two checks independent of kernel/elf.c (broken(), the
 * promises of elf.h; model_accepts(), the rules).
 */
#ifndef FULCRUM_TESTS_ELF_UTIL_H
#define FULCRUM_TESTS_ELF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The standard image: text (RX, holds the headers), data + bss (RW)
 * and a PT_GNU_STACK; 0x900 bytes (build_std()). */
#define STD_SIZE 0x900
#define STD_ENTRY 0x400100

/* The image being built and the last parse result of the CHECK_*s. */
extern uint8_t img[CAP];
extern struct elf_image out;

static inline void put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

void build(uint64_t entry, const struct ph *ph, unsigned n);
void build_std(void);
void set_e(unsigned off, uint64_t v, unsigned n);
void set_p(unsigned i, unsigned off, uint64_t v);
int parse_copy(const uint8_t *src, size_t size, struct elf_image *o);
const char *broken(const uint8_t *b, size_t size, const struct elf_image *im);
bool model_accepts(const uint8_t *b, size_t size);

/* The checks on out, for HTEST bodies (host_test.h): segment @s is
 * exactly this; img[0, size) is rejected; it is accepted. */
#define CHECK_SEG(s, va, msz, fsz, off, fl)                                 \
	do {                                                                \
		CHECK_EQ((s).vaddr, va);                                    \
		CHECK_EQ((s).memsz, msz);                                   \
		CHECK_EQ((s).filesz, fsz);                                  \
		CHECK_EQ((s).offset, off);                                  \
		CHECK_EQ((s).flags, fl);                                    \
	} while (0)

/* Rejected: exactly -FUL_EINVAL, nseg 0. */
#define CHECK_REJECT(size)                                                  \
	do {                                                                \
		CHECK_EQ(parse_copy(img, (size), &out), -FUL_EINVAL);       \
		CHECK_EQ(out.nseg, 0);                                      \
	} while (0)

#define CHECK_ACCEPT(size) CHECK_EQ(parse_copy(img, (size), &out), 0)

#endif /* FULCRUM_TESTS_ELF_UTIL_H */
