/* AArch64 bring-up hooks: per-core init, timer, IPIs, context setup. */
#include "../../kernel/arch.h"
#include "gic.h"
#include "trap.h"
#include <arch/memlayout.h>

void arch_thread_trampoline(void);
void mmu_init_cpu(void);
void fpu_init_cpu(void);

_Static_assert(BOOT_STACK_CPUS == MAX_CPUS, "boot.S: a boot stack per core");

void arch_init(void)
{
	gic_init();
}

/**
 * Align this core's cycle counter with the system counter, so that a
 * benchmark window may start on one core and end on another. QEMU counts
 * PMCCNTR at 1 GHz of virtual time (one per instruction under -icount
 * shift=0) from the moment a core enables it; CNTVCT is one clock for
 * every core. At a CNTVCT edge, set PMCCNTR to the edge's time in
 * nanoseconds. The edge is seen within one 3-instruction loop pass, so
 * cores agree to within 3 instructions. (On hardware, cycle counters of
 * different cores are simply not comparable.)
 */
static void pmu_sync_cycles(void)
{
	uint64_t ns_per_tick = 1000000000ull / read_sysreg(cntfrq_el0);
	uint64_t v0 = read_sysreg(cntvct_el0), v;
	__asm__ volatile("1: mrs %0, cntvct_el0\n\tcmp %0, %1\n\tb.eq 1b"
			 : "=&r"(v) : "r"(v0) : "cc");
	write_sysreg(pmccntr_el0, v * ns_per_tick);
}

/** Per core, IRQs masked: vectors, GIC interface, PMU cycle counter,
 *  timer stopped until the scheduler arms it. */
void arch_init_cpu(unsigned cpu)
{
	write_sysreg(vbar_el1, (uint64_t)vectors);
	__asm__ volatile("isb");
	gic_init_cpu(cpu);
	write_sysreg(pmcr_el0, 1);
	write_sysreg(pmcntenset_el0, 1ull << 31);
	write_sysreg(pmccfiltr_el0, 0);
	write_sysreg(pmuserenr_el0, (1 << 2) | (1 << 3)); /* EL0 reads counters */
	write_sysreg(cntkctl_el1, 1 << 1);                 /* EL0 reads CNTVCT */
	pmu_sync_cycles();
	mmu_init_cpu();
	fpu_init_cpu();
	arch_timer_stop();
	arch_timeout_stop();
}

void arch_uregs_init(struct arch_uregs *u, uint64_t pc, uint64_t sp,
		     uint64_t a0, uint64_t a1, uint64_t a2)
{
	*u = (struct arch_uregs){0};
	u->elr = pc;
	u->sp_el0 = sp;
	u->spsr = 0; /* EL0t, DAIF clear: interrupts on */
	u->x[0] = a0;
	u->x[1] = a1;
	u->x[2] = a2;
}

void arch_send_ipi(uint64_t mask, enum ipi_kind kind)
{
	gic_send_sgi(mask, kind);
}

/** Fire in @ticks (1..ARCH_TIMER_MAX_TICKS): the timer sets its compare
 *  value to the counter plus TVAL sign-extended from 32 bits. */
void arch_timer_arm(uint64_t ticks)
{
	write_sysreg(cntp_tval_el0, ticks);
	write_sysreg(cntp_ctl_el0, 1);
}

void arch_timer_stop(void)
{
	write_sysreg(cntp_ctl_el0, 0);
}

/** The compare value: TVAL's write set it to the counter plus TVAL
 *  sign-extended, so a delta beyond 2^31 - 1 shows up here as a value
 *  in the past (or near 2^64). */
bool arch_timer_due(uint64_t *due)
{
	*due = read_sysreg(cntp_cval_el0);
	return read_sysreg(cntp_ctl_el0) & 1;
}

/* The timeout timer is the virtual timer (CNTV): EL1 owns it as it owns
 * CNTP, and CNTVOFF is 0 without EL2 code, so both count CNTVCT. */
void arch_timeout_arm(uint64_t ticks)
{
	write_sysreg(cntv_tval_el0, ticks);
	write_sysreg(cntv_ctl_el0, 1);
}

void arch_timeout_stop(void)
{
	write_sysreg(cntv_ctl_el0, 0);
}

bool arch_timeout_due(uint64_t *due)
{
	*due = read_sysreg(cntv_cval_el0);
	return read_sysreg(cntv_ctl_el0) & 1;
}

void arch_context_init(struct arch_context *ctx, uintptr_t stack_top,
		       void (*fn)(void *), void *arg)
{
	*ctx = (struct arch_context){0};
	ctx->x19_x28[0] = (uint64_t)fn;
	ctx->x19_x28[1] = (uint64_t)arg;
	ctx->lr = (uint64_t)arch_thread_trampoline;
	ctx->sp = stack_top & ~15ull;
}

/** Benchmarks only: switch this core between the normal and the
 *  instrumented vector table (see vectors.S). */
void arch_bench_vectors(bool on)
{
	write_sysreg(vbar_el1, (uint64_t)(on ? vectors_bench : vectors));
	__asm__ volatile("isb");
}

const void *arch_boot_dtb(void)
{
	return (const void *)(DTB_PA + KVA_OFFSET);
}

extern char _kernel_end[];

void arch_free_ram(uint64_t ram_base, uint64_t ram_size, uintptr_t *start,
		   uintptr_t *end)
{
	*start = ((uintptr_t)_kernel_end + 4095) & ~4095ul;
	*end = (uintptr_t)(ram_base + ram_size + KVA_OFFSET);
}

unsigned arch_irq_lines(void)
{
	return GIC_CALL(lines);
}

bool arch_irq_kernel_owned(unsigned intid)
{
	return intid == UART0_INTID;
}

void arch_irq_mask(unsigned intid)
{
	GIC_CALL(mask, intid);
}

void arch_irq_unmask(unsigned intid)
{
	GIC_CALL(unmask, intid);
}

void arch_irq_route(unsigned intid, unsigned cpu)
{
	GIC_CALL(route, intid, cpu);
}

uint64_t arch_irq_targets(unsigned intid)
{
	return GIC_CALL(targets, intid);
}

void arch_irq_raise(unsigned intid)
{
	GIC_CALL(raise, intid);
}
