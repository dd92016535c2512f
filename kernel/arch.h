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
struct arch_uregs;
struct arch_vspace;
struct arch_context;

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
 * void arch_irq_window(void)
 *	Pre: IRQs masked. Takes every interrupt pending at the call (their
 *	handlers may switch threads), then masks again. Post: IRQs masked,
 *	possibly on another core.
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
 * void arch_context_switch_out(struct arch_context *prev)
 *	Called by the scheduler just before switching away from @prev:
 *	save user state the switch itself does not (lazy FP/SIMD). IRQs
 *	masked. Inline: nothing to do is the common case (IPC hand-offs).
 * uint64_t arch_context_tpidr(const struct arch_context *ctx)
 *	The user thread-pointer register saved in @ctx by the last switch
 *	away from its thread (for arch_fastpath_switch).
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
/** Handle every interrupt pending at this core without taking the
 *  exception (acknowledge, dispatch as an IRQ would, end), for an idle
 *  loop that waited with IRQs masked. Pre: IRQs masked. Post: the
 *  caller runs the kernel-exit work (reschedule, batched IPIs). Returns
 *  whether anything was pending. */
bool arch_irq_poll(void);
/** arch_irq_poll() for at most one interrupt: acknowledge, dispatch and
 *  end the highest-priority pending one, if any. Pre: IRQs masked. */
void arch_irq_poll_one(void);
/** Start secondary core @cpu (MPIDR @hwid); it enters kmain_secondary(cpu)
 *  on its own boot stack with the MMU on. Returns 0 or -FUL_EINVAL. */
int arch_cpu_start(unsigned cpu, uint64_t hwid);
/** Send IPI @kind to every core in @mask (bit per core index, up to
 *  MAX_CPUS). One register write on GICv2; one per cluster of 16 cores
 *  on GICv3. Pre: none (any context). Post: the SGIs are pending at the
 *  targets. */
void arch_send_ipi(uint64_t mask, enum ipi_kind kind);
/* Two timers per core: the tick timer (the scheduler's periodic tick,
 * its interrupt calls sched_tick) and the timeout timer (the first
 * sleeper's deadline, its interrupt calls sched_timeout). Apart, so that
 * a timeout that wakes a thread leaves the tick as it was programmed and
 * a tick leaves the timeouts. */
/** Program this core's tick timer to fire @ticks counter ticks from now.
 *  Pre: 1 <= @ticks <= ARCH_TIMER_MAX_TICKS (the hardware's range; a
 *  longer wait is armed in steps, see ktime_timer_delta). */
void arch_timer_arm(uint64_t ticks);
/** Stop this core's tick timer (tickless idle). */
void arch_timer_stop(void);
/** Is this core's tick timer armed? If so, *@due is the counter value it
 *  fires at (tests: what arch_timer_arm really programmed). */
bool arch_timer_due(uint64_t *due);
/** The same three for this core's timeout timer. */
void arch_timeout_arm(uint64_t ticks);
void arch_timeout_stop(void);
bool arch_timeout_due(uint64_t *due);
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
/**
 * The IPC fastpath's switch: save callee-saved state in @from as
 * arch_context_switch() does, load @tpidr (the next thread's user TLS
 * register, from its context), move to the stack that ends at @to_u, the
 * next thread's user frame (its kernel stack below the frame is
 * abandoned), call sched_fastpath_finish(@pass) there, and leave for EL0
 * with @to_u. Returns, in @from's context, when a later
 * arch_context_switch() resumes it, with that switch's pass value.
 * Pre: IRQs masked, the next thread's address space active.
 */
void *arch_fastpath_switch(struct arch_context *from,
			   struct arch_uregs *to_u, void *pass,
			   uint64_t tpidr);

/*
 * User mode. Inline, from <arch/arch_impl.h>: struct arch_uregs (a
 * thread's EL0 registers, saved at the top of its kernel stack on every
 * exception from EL0) with arch_uregs_get/set(u, i) (x0..x7 are the
 * system-call arguments and results), arch_uregs_sysno(u), arch_uregs_pc(u),
 * arch_uregs_sp(u), and arch_uregs_of(kstack_top), where they live.
 */
/** Fill @u so that entering it starts EL0 at @pc with stack @sp and
 *  x0..x2 = @a0..@a2, IRQs unmasked, every other register zero. */
void arch_uregs_init(struct arch_uregs *u, uint64_t pc, uint64_t sp,
		     uint64_t a0, uint64_t a1, uint64_t a2);
/** Leave the kernel for EL0 with the registers in @u. Pre: IRQs masked,
 *  @u == arch_uregs_of(top of the current kernel stack), the thread's
 *  address space is active. Does not return. */
void arch_user_enter(struct arch_uregs *u) __attribute__((noreturn));

/*
 * User address spaces (struct arch_vspace from <arch/arch_impl.h>).
 * Pages are named by their kernel address (the linear map); rights are
 * FUL_R_READ/WRITE/EXEC. The kernel never touches user virtual addresses:
 * it translates them with arch_vspace_lookup() and uses the kernel
 * address. Callers serialise map/unmap/lookup on one vspace (vspace.c
 * holds its lock); TLB maintenance is broadcast, so any core may call.
 */
/** Allocate an empty table for ASID @asid (1..65535). 0 or -FUL_ENOMEM.
 *  Table pages are counted (arch_vspace_tables) so that the kernel can
 *  charge each to the vspace's pool. */
int arch_vspace_init(struct arch_vspace *v, unsigned asid);
/* unsigned arch_vspace_tables(const struct arch_vspace *v), inline in
 * <arch/arch_impl.h>: the number of table pages @v holds now, its root
 * included. */
/** How many table pages mapping @npages pages from @va would allocate
 *  (exactly what arch_vspace_map of each page, in any order, allocates
 *  if nothing else changes @v meanwhile). Pre: as arch_vspace_map. */
unsigned arch_vspace_tables_needed(struct arch_vspace *v, uintptr_t va,
				   uint64_t npages);
/** Free every table (not the mapped pages) and invalidate the ASID on all
 *  cores. Pre: no core has @v active. */
void arch_vspace_destroy(struct arch_vspace *v);
/** Map the page at kernel address @kva at user @va. Pre: @va unmapped,
 *  page aligned, in [FUL_USER_MIN, FUL_USER_MAX). 0 or -FUL_ENOMEM. */
int arch_vspace_map(struct arch_vspace *v, uintptr_t va, uintptr_t kva,
		    unsigned rights);
/** arch_vspace_map() of @npages pages, physically contiguous from @kva,
 *  at @va on: one table walk per leaf table, one barrier. Pre: as
 *  arch_vspace_map for each page. Post: *@done pages from @va on are
 *  mapped (all of them on 0; on -FUL_ENOMEM the caller unmaps them). */
int arch_vspace_map_range(struct arch_vspace *v, uintptr_t va, uintptr_t kva,
			  uint64_t npages, unsigned rights, uint64_t *done);
/** Unmap user page @va (all cores' TLBs). Returns its kernel address or
 *  0 if nothing was mapped. */
uintptr_t arch_vspace_unmap(struct arch_vspace *v, uintptr_t va);
/** arch_vspace_unmap() of @npages pages from @va on, mapped or not: the
 *  entries cleared, then one broadcast invalidation (per page up to 32
 *  pages, the whole ASID above), one barrier. */
void arch_vspace_unmap_range(struct arch_vspace *v, uintptr_t va,
			     uint64_t npages);
/** The kernel address of the page mapping @va and its rights, or 0. */
uintptr_t arch_vspace_lookup(const struct arch_vspace *v, uintptr_t va,
			     unsigned *rights);
/** arch_vspace_map flag (beside the FUL_R_* rights): a device page,
 *  Device-nGnRE and execute-never; arch_vspace_lookup never returns it
 *  (the kernel does not touch user device mappings). */
#define ARCH_MAP_DEVICE (1u << 8)
/** Physical address of kernel linear-map address @kva, and back (a
 *  physical address outside RAM gives an address to map, not to touch). */
uint64_t arch_kva_to_phys(uintptr_t kva);
uintptr_t arch_phys_to_kva(uint64_t pa);

/*
 * Interrupt lines for user-level handlers (irq.c). SPIs only; any core.
 */
/** Number of interrupt lines (INTIDs 0 .. n - 1; SPIs from 32). */
unsigned arch_irq_lines(void);
/** Does the kernel itself use SPI @intid (the console UART)? */
bool arch_irq_kernel_owned(unsigned intid);
/** Stop / resume forwarding SPI @intid (a pending one is kept). */
void arch_irq_mask(unsigned intid);
void arch_irq_unmask(unsigned intid);
/** Deliver SPI @intid to core @cpu. */
void arch_irq_route(unsigned intid, unsigned cpu);
/** Tests: the cores SPI @intid is delivered to (a mask), and making it
 *  pending by hand. */
uint64_t arch_irq_targets(unsigned intid);
void arch_irq_raise(unsigned intid);
/** Called by the arch IRQ path for an SPI it does not handle itself,
 *  before its end of interrupt: true if a user-level handler took it
 *  (then it is masked until acked). IRQs masked. */
bool irq_user_interrupt(unsigned intid);

/** Make @v this core's user address space (NULL: none; EL0 accesses
 *  fault). IRQs masked. */
void arch_vspace_activate(const struct arch_vspace *v);


/* Provided by the portable kernel, called by arch code. */
struct arch_uregs;
/** A `svc` from EL0: decode and run the call, results in @u. IRQs masked
 *  on entry; may block and return on another core. */
void syscall_entry(struct arch_uregs *u);
/** The current thread faulted at EL0: report @cause and @addr and kill
 *  it. Does not return. */
void user_fault(struct arch_uregs *u, const char *cause, uint64_t addr)
	__attribute__((noreturn));
void kmain_secondary(unsigned cpu) __attribute__((noreturn));
void thread_start(void *prev, void (*fn)(void *), void *arg)
	__attribute__((noreturn));

#endif
