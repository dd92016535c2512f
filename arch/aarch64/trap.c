/* AArch64 exception handling in C: IRQ decode, system calls, user
 * faults, the lazy FP trap, and fatal kernel exceptions. */
#include "../../kernel/arch.h"
#include "../../kernel/kernel.h"
#include "gic.h"
#include "trap.h"
#include "../../kernel/trace.h"
#include <arch/memlayout.h>

void uart_ack_irq(void);
void fpu_trap(void);

/**
 * IRQ entry (IRQs masked). Acknowledge one interrupt, hand it to the
 * portable kernel, signal end of interrupt, then the common exit path
 * (reschedule, batched IPIs). EOI comes before the exit path so a switch
 * away never leaves the GIC's active priority raised.
 */
/** End of interrupt @iar on GICv3 if @v3 (a constant at each inlined
 *  call), else on GICv2. */
static inline __attribute__((always_inline)) void irq_eoi(uint32_t iar,
							  bool v3)
{
	if (v3)
		gicv3_eoi(iar);
	else
		gicv2_eoi(iar);
}

/** Dispatch-EOI one acknowledged interrupt @iar, for one GIC version,
 *  after its IRQ_ENTRY trace record (its IRQ_EXIT: irq_done, after it):
 *  irq_dispatch tests gic_v3 once, not at every EOI. */
static inline __attribute__((always_inline)) void irq_dispatch_gic(
	uint32_t iar, bool v3)
{
	unsigned intid = iar & 0x3ff;

	trace_irq_entry(this_cpu(), intid);
	IRQSTAT_IRQ(intid);
	if (intid < 16) {
		irq_eoi(iar, v3);
		ipi_receive((enum ipi_kind)intid);
	} else if (intid == TIMER_PPI) {
		irq_eoi(iar, v3);
		sched_tick();
	} else if (intid == TIMEOUT_PPI) {
		irq_eoi(iar, v3);
		sched_timeout();
	} else if (intid == UART0_INTID) {
		uart_ack_irq();
		irq_eoi(iar, v3);
		console_rx_interrupt();
	} else if (intid < 1020) {
		/* A user-level handler's SPI is masked before the EOI, so
		 * it stays quiet until the handler acks (irq.c). */
		bool user = irq_user_interrupt(intid);
		irq_eoi(iar, v3);
		if (!user)
			kprintf("irq: unexpected intid %u\n", intid);
	}
}

/** The end of one interrupt's handling (its IRQ_EXIT record). */
static inline void irq_done(void)
{
	trace_irq_exit(this_cpu());
}

/** Dispatch-EOI one interrupt @iar (acknowledged on gic_v3's GIC). */
static void irq_dispatch(uint32_t iar)
{
	if (gic_v3)
		irq_dispatch_gic(iar, true);
	else
		irq_dispatch_gic(iar, false);
}

void irq_handle(struct trap_frame *f)
{
	(void)f;
	if (gic_v3)
		irq_dispatch_gic(gicv3_ack(), true);
	else
		irq_dispatch_gic(gicv2_ack(), false);
	irq_done();
	irq_exit();
}

bool arch_irq_poll(void)
{
	bool any = false;
	uint32_t iar;
	while (((iar = gic_ack()) & 0x3ff) < 1020) {
		irq_dispatch(iar);
		irq_done();
		any = true;
	}
	return any;
}

/** arch_irq_poll_one() for one GIC version (@v3 a constant). */
static inline __attribute__((always_inline)) void irq_poll_one_gic(bool v3)
{
	uint32_t iar = v3 ? gicv3_ack() : gicv2_ack();
	if ((iar & 0x3ff) < 1020) {
		irq_dispatch_gic(iar, v3);
		irq_done();
	}
}

void arch_irq_poll_one(void)
{
	if (gic_v3)
		irq_poll_one_gic(true);
	else
		irq_poll_one_gic(false);
}

static const char *const vector_names[16] = {
	"sync/EL1t", "irq/EL1t", "fiq/EL1t", "serror/EL1t",
	"sync/EL1h", "irq/EL1h", "fiq/EL1h", "serror/EL1h",
	"sync/EL0",  "irq/EL0",  "fiq/EL0",  "serror/EL0",
	"sync/EL0-32", "irq/EL0-32", "fiq/EL0-32", "serror/EL0-32",
};

#define EC_UNKNOWN 0x00
#define EC_FP 0x07
#define EC_ILLEGAL 0x0e
#define EC_SVC64 0x15
#define EC_SYSREG 0x18
#define EC_IABT_EL0 0x20
#define EC_PC_ALIGN 0x22
#define EC_DABT_EL0 0x24
#define EC_SP_ALIGN 0x26
#define EC_BRK 0x3c

/** Name a user data/instruction abort from its fault status code. */
static const char *abort_cause(uint64_t esr, bool data)
{
	unsigned fsc = esr & 0x3f;
	bool write = data && (esr & (1u << 6));
	if (fsc == 0x21)
		return "alignment fault";
	if ((fsc & 0x3c) == 0x04)
		return data ? (write ? "write to unmapped address"
				     : "read of unmapped address")
			    : "execute at unmapped address";
	if ((fsc & 0x3c) == 0x0c)
		return data ? (write ? "write without permission"
				     : "read without permission")
			    : "execute without permission";
	return data ? "data abort" : "instruction abort";
}

/** Synchronous exception from EL0: system call, FP trap or user fault
 *  (which kills only the faulting thread). From EL1 it is a kernel bug. */
void sync_handle(struct trap_frame *f, uint64_t kind)
{
	uint64_t esr = read_sysreg(esr_el1);
	if (kind != 8)
		panic("%s exception: esr %lx elr %lx far %lx",
		      vector_names[kind & 15], esr, f->elr,
		      read_sysreg(far_el1));
	switch (esr >> 26) {
	case EC_SVC64:
		syscall_entry(f);
		return;
	case EC_FP:
		fpu_trap();
		return;
	case EC_DABT_EL0:
		user_fault(f, abort_cause(esr, true), read_sysreg(far_el1));
	case EC_IABT_EL0:
		user_fault(f, abort_cause(esr, false), read_sysreg(far_el1));
	case EC_PC_ALIGN:
		user_fault(f, "misaligned pc", read_sysreg(far_el1));
	case EC_SP_ALIGN:
		user_fault(f, "misaligned sp", f->sp_el0);
	case EC_UNKNOWN:
		user_fault(f, "undefined instruction", f->elr);
	case EC_SYSREG:
		user_fault(f, "system register access", f->elr);
	case EC_ILLEGAL:
		user_fault(f, "illegal execution state", f->elr);
	case EC_BRK:
		user_fault(f, "breakpoint", f->elr);
	default:
		user_fault(f, "unhandled exception", esr);
	}
}

void bad_exception(struct trap_frame *f, uint64_t kind)
{
	panic("unexpected %s exception: esr %lx elr %lx",
	      vector_names[kind & 15], read_sysreg(esr_el1), f->elr);
}
