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

#ifdef FUL_IRQSTAT
/* The IRQ-stat kernel's entry, exit and dispatch hooks (irqstat.c). */
void arch_irqstat_enter(struct trap_frame *f, uint64_t kind);
void arch_irqstat_exit(struct trap_frame *f);
void arch_irqstat_irq(unsigned intid);
#define IRQSTAT_IRQ(intid) arch_irqstat_irq(intid)
#else
#define IRQSTAT_IRQ(intid) ((void)0)
#endif

#endif
