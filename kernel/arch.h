/*
 * The arch contract: every hook the portable kernel needs from a CPU
 * architecture. Portable code includes only this header; each
 * architecture supplies <arch/arch_impl.h> (inline hooks and
 * struct arch_context) and the out-of-line hooks declared below.
 * Implementations: arch/aarch64 (the real one), arch/fake (host twin
 * used by unit tests).
 */
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H

#include "types.h"

struct cpu;

/*
 * Inline hooks provided by <arch/arch_impl.h>:
 *
 * struct cpu *arch_this_cpu(void)
 *	Pre: arch_set_this_cpu() ran on this core. Post: the caller's
 *	per-CPU structure. Only stable while the caller cannot migrate
 *	(IRQs masked, or a thread pinned to its core).
 * void arch_set_this_cpu(struct cpu *c)
 *	Called once per core at bring-up, before anything else uses it.
 * uint64_t arch_irq_save(void) / void arch_irq_restore(uint64_t)
 *	Mask IRQs on this core and return the previous mask state;
 *	restore exactly that state. Nest freely.
 * void arch_irq_enable(void) / void arch_irq_disable(void)
 * bool arch_irq_enabled(void)
 * void arch_cpu_relax(void)
 *	Must be called in every spin loop iteration (emits `yield`): under
 *	QEMU TCG a spin without it can starve the vCPU it waits for.
 * void arch_wait_for_interrupt(void)
 *	Pre: IRQs masked (so a wake-up between the check and the sleep is
 *	not lost). Post: returns once an interrupt is pending; the caller
 *	unmasks to take it.
 * uint64_t arch_counter(void) / uint64_t arch_counter_freq(void)
 *	Monotonic system counter, same on every core; ticks per second.
 * uint64_t arch_cycles(void)
 *	The per-core cycle counter (PMCCNTR). Under QEMU -icount it
 *	advances exactly once per instruction. Bracketed by barriers.
 */
#include <arch/arch_impl.h>

/* SGI numbers of the inter-core signals (paper 003 uses 8..10). */
enum ipi_kind {
	IPI_RUN_IDLE = 8,     /* target parks: runs only its idle thread */
	IPI_RE_SCHEDULE = 9,  /* target reschedules; wakes a parked core */
	IPI_ICC = 10,         /* target drains its mailbox */
	IPI_STOP = 11,        /* panic: target stops for good */
};

/** Early, once, on the boot core: console, interrupt controller, timer. */
void arch_init(void);
/** Once per core (boot core too), IRQs masked: GIC CPU interface,
 *  banked PPIs/SGIs, PMU, vector base. */
void arch_init_cpu(unsigned cpu);
/** Start secondary core @cpu (MPIDR @hwid); it enters kmain_secondary(cpu)
 *  on its own boot stack with the MMU on. Returns 0 or -FUL_EINVAL. */
int arch_cpu_start(unsigned cpu, uint64_t hwid);
/** Send IPI @kind to every core in @mask. One register write on GICv2.
 *  Pre: none (any context). Post: the SGIs are pending at the targets. */
void arch_send_ipi(uint32_t mask, enum ipi_kind kind);
/** Program this core's tick timer to fire @ticks counter ticks from now. */
void arch_timer_arm(uint64_t ticks);
/** Stop this core's tick timer (tickless idle). */
void arch_timer_stop(void);
/** Console byte output (polled, no locking: callers serialise). */
void arch_console_putc(char c);
/** Non-blocking console input: a byte, or -1. */
int arch_console_getc(void);
/** Enable console receive interrupts routed to core 0. */
void arch_console_enable_rx_irq(void);
/** The device tree the boot loader left, as a kernel pointer. */
const void *arch_boot_dtb(void);
/** Kernel virtual range of RAM [ram_base, ram_base + ram_size) not used
 *  by the kernel image, the boot stacks or the device tree. */
void arch_free_ram(uint64_t ram_base, uint64_t ram_size, uintptr_t *start,
		   uintptr_t *end);
/** Benchmarks: switch this core to (or back from) the instrumented
 *  vector table; while on, every IRQ taken from EL1 stores its cycle
 *  count from the first instruction after entry to just before eret in
 *  this_cpu()->bench_delta. IRQs masked. */
void arch_bench_vectors(bool on);
/** Power the machine off. Does not return. */
void arch_poweroff(void) __attribute__((noreturn));
/** Stop this core for good: IRQs masked, wfi forever. */
void arch_halt_cpu(void) __attribute__((noreturn));

/** Set up @ctx so the first switch to it calls thread_start(prev, fn, arg)
 *  on the stack ending at @stack_top. */
void arch_context_init(struct arch_context *ctx, uintptr_t stack_top,
		       void (*fn)(void *), void *arg);
/**
 * Save callee-saved state in @from, resume @to. Returns, in the resumed
 * context, the @pass value given by whoever switched to it (the scheduler
 * passes the thread it switched away from). Pre: IRQs masked.
 */
void *arch_context_switch(struct arch_context *from, struct arch_context *to,
			  void *pass);

/* Provided by the portable kernel, called by arch code. */
void kmain_secondary(unsigned cpu) __attribute__((noreturn));
void thread_start(void *prev, void (*fn)(void *), void *arg)
	__attribute__((noreturn));

#endif
