/*
 * The AArch64 side of the IRQ-stat kernel (-DFUL_IRQSTAT; the portable
 * figures are kernel/irqstat.c): the hooks the exception vectors
 * (vectors.S) and the arch_irq_* inlines (arch_impl.h) call where IRQs
 * get masked or unmasked at EL1. Counter: PMCCNTR_EL0 (arch_cycles),
 * the one the kernel benchmarks use. Every hook runs with IRQs masked
 * on the core whose figures it touches, so its struct cpu fields are
 * the owner's ([O], percpu.h). Empty in the default kernel.
 */
#ifdef FUL_IRQSTAT
#include "../../kernel/kernel.h"
#include "../../kernel/percpu.h"
#include "trap.h"

#define EC_SVC64 0x15

/** This core's struct cpu, or NULL before bring-up set it. */
static inline struct cpu *irqstat_cpu(void)
{
	return (struct cpu *)read_sysreg(tpidr_el1);
}

/**
 * Exception entry (vectors.S, after the registers are saved): open the
 * stretch at the counter the vector slot read first (FRAME_T0), with the
 * cause: the call number of an svc, the EC of another sync exception,
 * an IRQ (its INTID comes with arch_irqstat_irq). IRQs masked (entry).
 */
void arch_irqstat_enter(struct trap_frame *f, uint64_t kind)
{
	struct cpu *c = irqstat_cpu();
	if (!c)
		return;
	uint32_t cause;
	if (kind == 8) {
		uint64_t ec = read_sysreg(esr_el1) >> 26;
		cause = ec == EC_SVC64 ? FUL_IRQS_CAUSE(FUL_IRQS_SYSCALL, f->x[8])
				       : FUL_IRQS_CAUSE(FUL_IRQS_EXC, ec);
	} else {
		cause = FUL_IRQS_CAUSE(kind == 9 ? FUL_IRQS_IRQ_EL0
						 : FUL_IRQS_IRQ_EL1,
				       FUL_IRQS_NO_DETAIL);
	}
	/* Entry comes from IRQs on (EL0, or EL1 in a window): no stretch
	 * runs. If one did, an unmask went unseen: start afresh here. */
	c->irqstat.open = false;
	irqstat_open(c, f->bench_t0, cause);
}

/** Exception exit (vectors.S, before the registers are restored): the
 *  eret ends the stretch if it returns to IRQs on (EL0 always). */
void arch_irqstat_exit(struct trap_frame *f)
{
	struct cpu *c = irqstat_cpu();
	if (c && !(f->spsr & (1u << 7)))
		irqstat_close(c, arch_cycles(), FUL_IRQS_END_ERET);
}

/** The first interrupt an IRQ entry or the idle poll handles names the
 *  stretch's cause (trap.c). IRQs masked. */
void arch_irqstat_irq(unsigned intid)
{
	struct cpu *c = irqstat_cpu();
	if (!c || !c->irqstat.open)
		return;
	uint32_t cause = c->irqstat.cause;
	unsigned kind = FUL_IRQS_KIND(cause);
	if ((kind == FUL_IRQS_IRQ_EL0 || kind == FUL_IRQS_IRQ_EL1 ||
	     kind == FUL_IRQS_IDLE) &&
	    FUL_IRQS_DETAIL(cause) == FUL_IRQS_NO_DETAIL)
		c->irqstat.cause = (cause & ~0xffffu) | (intid & 0xffffu);
}

void arch_irqstat_mask(void)
{
	struct cpu *c = irqstat_cpu();
	if (c)
		irqstat_open(c, arch_cycles(),
			     FUL_IRQS_CAUSE(FUL_IRQS_KERNEL, FUL_IRQS_NO_DETAIL));
}

uint32_t arch_irqstat_unmask(uint32_t end)
{
	struct cpu *c = irqstat_cpu();
	if (!c || !(read_sysreg(daif) & (1u << 7)))
		return 0; /* IRQs on: nothing runs on this core */
	uint32_t cause = c->irqstat.cause;
	irqstat_close(c, arch_cycles(), end);
	return cause;
}

void arch_irqstat_resume(uint32_t cause)
{
	struct cpu *c = irqstat_cpu();
	if (c)
		irqstat_open(c, arch_cycles(), cause | FUL_IRQS_RESUMED);
}

void arch_irqstat_after_wfi(void)
{
	struct cpu *c = irqstat_cpu();
	if (c)
		irqstat_open(c, arch_cycles(),
			     FUL_IRQS_CAUSE(FUL_IRQS_IDLE, FUL_IRQS_NO_DETAIL));
}

_Static_assert(FUL_IRQS_CAUSE(FUL_IRQS_SYSCALL, 0xffff) < FUL_IRQS_RESUMED,
	       "cause and flag overlap");
#endif
