/* ELF64 executable parser (portable, host-tested): shared by the kernel,
 * which loads the rootserver, and the rootserver, which loads everything
 * else. Depends only on the C freestanding headers and the Fulcrum ABI. */
#ifndef KERNEL_ELF_H
#define KERNEL_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fulcrum/errno.h>
#include <fulcrum/syscall.h>

#define ELF_MAX_SEGS 8
#define ELF_PF_X 1
#define ELF_PF_W 2
#define ELF_PF_R 4

/** One PT_LOAD segment: copy @filesz bytes from image offset @offset to
 *  @vaddr, zero the rest up to @memsz. @flags is ELF_PF_* (R, W, X only). */
struct elf_segment {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t flags;
};

struct elf_image {
	uint64_t entry;
	unsigned nseg;
	struct elf_segment seg[ELF_MAX_SEGS];
};

/** Parse and validate an AArch64 ELF64 executable of @size bytes at @img.
 *  Returns 0 and fills @out with its PT_LOAD segments (in file order), or
 *  -FUL_EINVAL for anything malformed (see the rules in elf.c); on error
 *  out->nseg is 0 and the rest of @out is unspecified. Accepted segments
 *  lie inside the image and [FUL_USER_MIN, FUL_USER_MAX), are never both
 *  writable and executable, share no page, and the entry point lies in an
 *  executable one. */
int elf_parse(const void *img, size_t size, struct elf_image *out);

#endif
