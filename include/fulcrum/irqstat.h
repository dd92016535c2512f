/*
 * IRQ-masked stretches per core (FUL_SYS_IRQSTAT, <fulcrum/syscall.h>):
 * the figures the instrumented kernel (build/kernel-irqstat.elf, built
 * with -DFUL_IRQSTAT; docs/tracing.md "The IRQ-stat kernel: IRQ-masked
 * stretches") keeps for each core. The default kernel keeps none and
 * answers FUL_SYS_IRQSTAT with -FUL_ENOSYS.
 *
 * A stretch runs from the moment a core masks IRQs at EL1 to the moment
 * it unmasks them: from an exception entry (the vector's first counter
 * read) to the eret, or to a point where the kernel unmasks (a
 * preemption window, the idle loop's unmask or wfi, a thread's
 * arch_irq_restore of an unmasked state), and again from each re-mask.
 * Lengths are in PMCCNTR_EL0 units: instructions under QEMU
 * -icount shift=0 (the global virtual clock: see docs/bench-wake.md for
 * what that includes), nanoseconds of host time under multi-threaded
 * TCG.
 */
#ifndef FULCRUM_IRQSTAT_H
#define FULCRUM_IRQSTAT_H

#include <stdint.h>

/* What opened a stretch: kind << 16 | detail (struct ful_irqstat's
 * max_cause). FUL_IRQS_RESUMED: it began at a re-mask after a window
 * or unmask inside the same kernel entry (e.g. the next chunk of a
 * FRAME_CREATE), not at the exception entry itself. */
#define FUL_IRQS_SYSCALL 1u  /* svc from EL0; detail: call number */
#define FUL_IRQS_EXC 2u      /* other sync exception from EL0; detail: ESR EC */
#define FUL_IRQS_IRQ_EL0 3u  /* IRQ taken from EL0; detail: first INTID */
#define FUL_IRQS_IRQ_EL1 4u  /* IRQ taken at EL1 (a window, the idle loop) */
#define FUL_IRQS_KERNEL 5u   /* masked by kernel code with IRQs on (a kernel
			      * thread, the idle loop's re-mask) */
#define FUL_IRQS_IDLE 6u     /* the idle loop after its wfi (masked wait):
			      * the interrupts it polls; detail: first INTID */
#define FUL_IRQS_NO_DETAIL 0xffffu
#define FUL_IRQS_CAUSE(kind, detail) ((kind) << 16 | ((detail) & 0xffffu))
#define FUL_IRQS_KIND(cause) (((cause) >> 16) & 0x7fffu)
#define FUL_IRQS_DETAIL(cause) ((cause) & 0xffffu)
#define FUL_IRQS_RESUMED 0x80000000u

/* How a stretch ended (max_end). */
#define FUL_IRQS_END_ERET 1u   /* eret to EL0, or to EL1 with IRQs on */
#define FUL_IRQS_END_UNMASK 2u /* arch_irq_enable / arch_irq_restore */
#define FUL_IRQS_END_WINDOW 3u /* a preemption window (arch_irq_window) */
#define FUL_IRQS_END_WFI 4u    /* the idle loop's wfi */

#define FUL_IRQSTAT_BUCKETS 32 /* hist[b]: 2^b <= len < 2^(b+1) (b 0: len
				* 0 or 1; the last bucket: everything above) */

/* FUL_SYS_IRQSTAT flags (x3). */
#define FUL_IRQSTAT_RESET 1u /* after the read (if any), clear the core's
			      * figures; a stretch open then restarts */

struct ful_irqstat {
	uint64_t max;       /* longest stretch since the reset */
	uint32_t max_cause; /* FUL_IRQS_CAUSE of what opened it */
	uint32_t max_end;   /* FUL_IRQS_END_* */
	uint64_t max_start; /* counter at its start */
	uint64_t count;     /* stretches ended since the reset */
	uint64_t total;     /* their summed lengths */
	uint64_t since;     /* the core's counter at the reset (0: boot) */
	uint64_t now;       /* the reading core's counter at the read (each
			     * core's PMCCNTR has its own origin) */
	uint64_t hist[FUL_IRQSTAT_BUCKETS];
};

#endif
