/*
 * IRQ-masked stretch figures of the instrumented kernel (-DFUL_IRQSTAT,
 * build/kernel-irqstat.elf): the portable part. The architecture stamps
 * the counter where a core masks and unmasks IRQs (arch/aarch64:
 * vectors.S, irqstat.c, the arch_irq_* hooks of arch_impl.h) and calls
 * irqstat_open / irqstat_close here; FUL_SYS_IRQSTAT reads and resets
 * a core's figures (<fulcrum/irqstat.h>). In the default kernel none of
 * this exists but the system call, which answers -FUL_ENOSYS.
 */
#ifndef KERNEL_IRQSTAT_H
#define KERNEL_IRQSTAT_H

#include "types.h"
#include <fulcrum/irqstat.h>

/*
 * One core's figures, in its struct cpu (percpu.h). Every field is [O]:
 * written only by the owner core with IRQs masked (the stamps are taken
 * while masked, by definition). Other cores read `fig` through `seq`
 * (odd while the owner writes it), never write it: a reset is run on
 * the owner core (an ICC call).
 */
struct cpu_irqstat {
	bool open;              /* [O] a stretch is running */
	uint32_t cause;         /* [O] FUL_IRQS_CAUSE of the running one */
	uint64_t t0;            /* [O] counter at its start */
	_Atomic uint32_t seq;   /* [O] written; any core reads (seqcount) */
	struct ful_irqstat fig; /* [O] written under odd seq; read by any
				 * core through seq */
};

#ifdef FUL_IRQSTAT
struct cpu;
/** Start a stretch on @c at counter @t0 for @cause unless one runs.
 *  IRQs masked, on @c's core. */
void irqstat_open(struct cpu *c, uint64_t t0, uint32_t cause);
/** End the running stretch of @c (if any) at counter @now, as @end
 *  (FUL_IRQS_END_*), and add it to the figures. IRQs masked, on @c's
 *  core. */
void irqstat_close(struct cpu *c, uint64_t now, uint32_t end);
#endif

/** The histogram bucket of a stretch of @len: floor(log2(len)) (0 for
 *  0 and 1), the last bucket for everything longer. */
static inline unsigned irqstat_bucket(uint64_t len)
{
	unsigned b = len < 2 ? 0 : 63u - (unsigned)__builtin_clzll(len);
	return b < FUL_IRQSTAT_BUCKETS ? b : FUL_IRQSTAT_BUCKETS - 1;
}

/** Add one stretch of @len counter units that began at counter @start,
 *  opened by @cause and ended as @end, to @s (the pure part of the
 *  figures, host-tested: tests/host/test_irqstat.c). Ties keep the
 *  first longest. Caller owns @s. */
static inline void irqstat_add(struct ful_irqstat *s, uint64_t len,
			       uint64_t start, uint32_t cause, uint32_t end)
{
	s->hist[irqstat_bucket(len)]++;
	s->count++;
	s->total += len;
	if (len > s->max || s->count == 1) {
		s->max = len;
		s->max_cause = cause;
		s->max_end = end;
		s->max_start = start;
	}
}

struct thread;
struct arch_uregs;
int64_t sys_irqstat(struct thread *t, struct arch_uregs *u);

#endif
