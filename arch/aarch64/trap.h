/* AArch64 trap frame, as saved by vectors.S. */
#ifndef ARCH_AARCH64_TRAP_H
#define ARCH_AARCH64_TRAP_H

#include <stdint.h>

struct trap_frame {
	uint64_t x[31];
	uint64_t sp_el0;
	uint64_t elr;
	uint64_t spsr;
	uint64_t bench_t0; /* vectors_bench scratch */
	uint64_t pad;
};

_Static_assert(sizeof(struct trap_frame) == 288, "FRAME_SIZE in memlayout.h");
_Static_assert(__builtin_offsetof(struct trap_frame, bench_t0) == 272,
	       "FRAME_T0 in memlayout.h");

extern char vectors[], vectors_bench[];

#endif
