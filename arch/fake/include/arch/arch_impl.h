/*
 * Host (Linux, pthreads) twin of the inline half of the arch contract
 * (see kernel/arch.h), so portable kernel code builds and runs in the
 * host unit tests. One host thread plays one core: the current-CPU
 * pointer and the IRQ mask are thread-local. Standard headers only.
 */
#ifndef ARCH_FAKE_IMPL_H
#define ARCH_FAKE_IMPL_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#ifndef CLOCK_MONOTONIC
#error "arch/fake needs POSIX clock_gettime: build with -D_POSIX_C_SOURCE=200809L"
#endif

struct cpu;

/* Never switched on the host; only its size and layout matter. */
struct arch_context {
	uint64_t regs[13];
};

static inline uint64_t arch_context_tpidr(const struct arch_context *ctx)
{
	return ctx->regs[12];
}

static inline void arch_context_switch_out(struct arch_context *prev)
{
	(void)prev; /* no FP state on the host twin */
}

/* State of the fake "core" a host thread plays. Weak definitions, so
 * every translation unit that includes this header shares one copy per
 * thread (a test's arch_set_this_cpu() is seen by kernel code). */
_Thread_local struct cpu *arch_fake_cpu_ __attribute__((weak));
_Thread_local bool arch_fake_irq_masked_ __attribute__((weak));

static inline struct cpu *arch_this_cpu(void)
{
	return arch_fake_cpu_;
}

static inline void arch_set_this_cpu(struct cpu *c)
{
	arch_fake_cpu_ = c;
}

/* Returns the previous state: 1 if IRQs were masked (like DAIF.I). */
static inline uint64_t arch_irq_save(void)
{
	uint64_t was = arch_fake_irq_masked_;
	arch_fake_irq_masked_ = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return was;
}

static inline void arch_irq_restore(uint64_t flags)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	arch_fake_irq_masked_ = flags != 0;
}

static inline void arch_irq_enable(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	arch_fake_irq_masked_ = false;
}

static inline void arch_irq_disable(void)
{
	arch_fake_irq_masked_ = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline bool arch_irq_enabled(void)
{
	return !arch_fake_irq_masked_;
}

/* The host twin has no interrupts to take: the window is a no-op. */
static inline void arch_irq_window(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Give the CPU away: host threads outnumber cores under test load. */
static inline void arch_cpu_relax(void)
{
	sched_yield();
}

/* No interrupts on the host: behave like a spurious wake-up. */
static inline void arch_wait_for_interrupt(void)
{
	sched_yield();
}

/* Nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t arch_counter(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t arch_counter_freq(void)
{
	return 1000000000u;
}

/* The range of the AArch64 timer's TVAL, so host tests see its limit. */
#define ARCH_TIMER_MAX_TICKS 0x7fffffffull

/* No portable cycle counter: per-thread CPU time in ns stands in. */
static inline uint64_t arch_cycles(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
