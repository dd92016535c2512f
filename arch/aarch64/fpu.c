/*
 * Lazy FP/SIMD switching. The kernel never uses FP/SIMD (it is built with
 * -mgeneral-regs-only), so the registers always hold some user thread's
 * state. CPACR_EL1 traps EL0 FP use until the running thread's state is
 * loaded; a thread whose state is live is saved when switched out. A
 * thread that never touches FP/SIMD costs one flag test per switch.
 * Invariant: ctx->fp_live only while ctx's thread runs on this core.
 */
#include "../../kernel/arch.h"
#include "../../kernel/percpu.h"
#include "../../kernel/thread.h"

#define CPACR_FP_TRAP_EL0 (1ull << 20)
#define CPACR_FP_ON (3ull << 20)

void fpu_save(struct arch_fpstate *s);
void fpu_restore(const struct arch_fpstate *s);

void fpu_init_cpu(void)
{
	write_sysreg(cpacr_el1, CPACR_FP_TRAP_EL0);
	__asm__ volatile("isb");
}

void fpu_switch_out(struct arch_context *prev)
{
	fpu_save(&prev->fpstate);
	prev->fp_saved = true;
	prev->fp_live = false;
	write_sysreg(cpacr_el1, CPACR_FP_TRAP_EL0);
	__asm__ volatile("isb");
}

/** EL0 touched FP/SIMD: load the current thread's registers (zero for a
 *  first use) and stop trapping until it is switched out. */
void fpu_trap(void)
{
	struct arch_context *ctx = &this_cpu()->current->ctx;
	if (!ctx->fp_saved)
		ctx->fpstate = (struct arch_fpstate){0};
	write_sysreg(cpacr_el1, CPACR_FP_ON);
	__asm__ volatile("isb");
	fpu_restore(&ctx->fpstate);
	ctx->fp_live = true;
}
