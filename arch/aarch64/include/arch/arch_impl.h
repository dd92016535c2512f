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

/* Callee-saved state of a thread switched out by arch_context_switch(). */
struct arch_context {
	uint64_t x19_x28[10];
	uint64_t fp, lr, sp;
};

static inline struct cpu *arch_this_cpu(void)
{
	return (struct cpu *)read_sysreg(tpidr_el1);
}

static inline void arch_set_this_cpu(struct cpu *c)
{
	write_sysreg(tpidr_el1, (uint64_t)c);
}

static inline uint64_t arch_irq_save(void)
{
	uint64_t daif = read_sysreg(daif);
	__asm__ volatile("msr daifset, #2" ::: "memory");
	return daif;
}

static inline void arch_irq_restore(uint64_t daif)
{
	__asm__ volatile("msr daif, %0" ::"r"(daif) : "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
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
	__asm__ volatile("dsb sy; wfi" ::: "memory");
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

static inline uint64_t arch_cycles(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, pmccntr_el0; isb" : "=r"(v)::"memory");
	return v;
}

#endif
