/* AArch64 trap frame, as saved by vectors.S. */
#ifndef ARCH_AARCH64_TRAP_H
#define ARCH_AARCH64_TRAP_H

#include <stdint.h>

#include <arch/arch_impl.h>

#define trap_frame arch_uregs

_Static_assert(sizeof(struct trap_frame) == 288, "FRAME_SIZE in memlayout.h");
_Static_assert(__builtin_offsetof(struct trap_frame, bench_t0) == 272,
	       "FRAME_T0 in memlayout.h");

extern char vectors[], vectors_bench[];

#endif
