/* AArch64 inline half of the arch contract (see kernel/arch.h). */
#ifndef ARCH_AARCH64_IMPL_H
#define ARCH_AARCH64_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define read_sysreg(r)                                           \
	({                                                       \
		uint64_t v_;                                     \
		__asm__ volatile("mrs %0, " STR(r) : "=r"(v_)); \
		v_;                                              \
	})
#define write_sysreg(r, v) \
	__asm__ volatile("msr " STR(r) ", %0" ::"r"((uint64_t)(v)))

/* FP/SIMD registers of a user thread (saved lazily, see fpu.c). */
struct arch_fpstate {
	__uint128_t q[32];
	uint64_t fpsr, fpcr;
};

/* Callee-saved state of a thread switched out by arch_context_switch(),
 * plus the user-visible per-thread registers the kernel itself never
 * uses: TPIDR_EL0 and the FP/SIMD file. */
struct arch_context {
	uint64_t x19_x28[10];
	uint64_t fp, lr, sp;
	uint64_t tpidr_el0;
	bool fp_live;  /* FP/SIMD registers of this core hold this thread's */
	bool fp_saved; /* fpstate holds valid (non-zero) user state */
	struct arch_fpstate fpstate __attribute__((aligned(16)));
};

static inline uint64_t arch_context_tpidr(const struct arch_context *ctx)
{
	return ctx->tpidr_el0;
}

/* fpu.c: save live FP/SIMD registers of @prev and trap the next use. */
void fpu_switch_out(struct arch_context *prev);

static inline void arch_context_switch_out(struct arch_context *prev)
{
	if (prev->fp_live)
		fpu_switch_out(prev);
}

/*
 * A thread's EL0 register state, saved by every exception from EL0 at the
 * top of its kernel stack (vectors.S builds it; FRAME_SIZE bytes).
 */
struct arch_uregs {
	uint64_t x[31];
	uint64_t sp_el0;
	uint64_t elr;
	uint64_t spsr;
	uint64_t bench_t0; /* vectors_bench scratch */
	uint64_t pad;
};

static inline uint64_t arch_uregs_get(const struct arch_uregs *u, unsigned i)
{
	return u->x[i];
}

static inline void arch_uregs_set(struct arch_uregs *u, unsigned i,
				  uint64_t v)
{
	u->x[i] = v;
}

static inline uint64_t arch_uregs_sysno(const struct arch_uregs *u)
{
	return u->x[8];
}

static inline uint64_t arch_uregs_pc(const struct arch_uregs *u)
{
	return u->elr;
}

static inline uint64_t arch_uregs_sp(const struct arch_uregs *u)
{
	return u->sp_el0;
}

/** Where exceptions from EL0 save the user registers of the thread whose
 *  kernel stack ends at @kstack_top. */
static inline struct arch_uregs *arch_uregs_of(uintptr_t kstack_top)
{
	return (struct arch_uregs *)kstack_top - 1;
}

/* A user address space: its translation table root and ASID. */
struct arch_vspace {
	uint64_t *root;  /* L0 table, kernel address */
	uint32_t tables; /* table pages it holds, root included */
	uint16_t asid;
	uint64_t ttbr;   /* TTBR0_EL1 value: root's physical address, ASID */
	/* 2 MiB region index + 1 known to have all its tables (0: none).
	 * Tables are freed only with the vspace, so it stays true. */
	uint64_t l3_hot;
};

/* kernel/arch.h: the number of table pages @v holds, root included. */
static inline unsigned arch_vspace_tables(const struct arch_vspace *v)
{
	return v->tables;
}


static inline struct cpu *arch_this_cpu(void)
{
	return (struct cpu *)read_sysreg(tpidr_el1);
}

static inline void arch_set_this_cpu(struct cpu *c)
{
	write_sysreg(tpidr_el1, (uint64_t)c);
}

/*
 * The instrumented kernel (-DFUL_IRQSTAT, kernel/irqstat.h) stamps every
 * change of the IRQ mask here and in vectors.S: a stretch opens where
 * IRQs get masked and closes where they get unmasked. The default
 * kernel compiles none of it (IRQSTAT_* expand to nothing).
 */
#ifdef FUL_IRQSTAT
#include <fulcrum/irqstat.h>
/** IRQs were on and are now masked: open a stretch (irqstat.c). */
void arch_irqstat_mask(void);
/** IRQs are about to be unmasked: close the running stretch as @end;
 *  returns its cause. Does nothing if IRQs are on already. */
uint32_t arch_irqstat_unmask(uint32_t end);
/** IRQs masked again after a window: reopen with @cause, marked
 *  FUL_IRQS_RESUMED. */
void arch_irqstat_resume(uint32_t cause);
/** The idle loop's wfi returned (IRQs masked): open an idle stretch. */
void arch_irqstat_after_wfi(void);
#define IRQSTAT_MASKED_FROM(daif) \
	do { \
		if (!((daif) & (1u << 7))) \
			arch_irqstat_mask(); \
	} while (0)
#define IRQSTAT_UNMASK_TO(daif) \
	do { \
		if (!((daif) & (1u << 7))) \
			arch_irqstat_unmask(FUL_IRQS_END_UNMASK); \
	} while (0)
#define IRQSTAT_UNMASK() arch_irqstat_unmask(FUL_IRQS_END_UNMASK)
#define IRQSTAT_MASK() arch_irqstat_mask()
#else
#define IRQSTAT_MASKED_FROM(daif) ((void)0)
#define IRQSTAT_UNMASK_TO(daif) ((void)0)
#define IRQSTAT_UNMASK() ((void)0)
#define IRQSTAT_MASK() ((void)0)
#endif

static inline uint64_t arch_irq_save(void)
{
	uint64_t daif = read_sysreg(daif);
	__asm__ volatile("msr daifset, #2" ::: "memory");
	IRQSTAT_MASKED_FROM(daif);
	return daif;
}

static inline void arch_irq_restore(uint64_t daif)
{
	IRQSTAT_UNMASK_TO(daif);
	__asm__ volatile("msr daif, %0" ::"r"(daif) : "memory");
}

static inline void arch_irq_enable(void)
{
	IRQSTAT_UNMASK();
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
	IRQSTAT_MASK();
}

/* The isb makes the unmasking take effect before the mask is set again,
 * so an interrupt pending at the call is taken in between. */
static inline void arch_irq_window(void)
{
#ifdef FUL_IRQSTAT
	uint32_t cause = arch_irqstat_unmask(FUL_IRQS_END_WINDOW);
#endif
	__asm__ volatile("msr daifclr, #2\n\tisb\n\tmsr daifset, #2" :::
				 "memory");
#ifdef FUL_IRQSTAT
	arch_irqstat_resume(cause);
#endif
}

static inline bool arch_irq_enabled(void)
{
	return !(read_sysreg(daif) & (1u << 7));
}

static inline void arch_cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

static inline void arch_wait_for_interrupt(void)
{
#ifdef FUL_IRQSTAT
	/* A masked wfi delays nothing: a pending interrupt ends it. */
	arch_irqstat_unmask(FUL_IRQS_END_WFI);
#endif
	__asm__ volatile("dsb sy; wfi" ::: "memory");
#ifdef FUL_IRQSTAT
	arch_irqstat_after_wfi();
#endif
}

static inline uint64_t arch_counter(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}

static inline uint64_t arch_counter_freq(void)
{
	return read_sysreg(cntfrq_el0);
}

/* CNTP_TVAL_EL0 is a signed 32-bit down-counter: a larger value would
 * be read as negative, a compare value in the past (arch_timer_arm). */
#define ARCH_TIMER_MAX_TICKS 0x7fffffffull

static inline uint64_t arch_cycles(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, pmccntr_el0; isb" : "=r"(v)::"memory");
	return v;
}

#endif
