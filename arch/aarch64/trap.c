/* AArch64 exception handling in C: IRQ decode and fault reporting. */
#include "../../kernel/arch.h"
#include "../../kernel/kernel.h"
#include "gic.h"
#include "trap.h"
#include <arch/memlayout.h>

void uart_ack_irq(void);

/**
 * IRQ entry (IRQs masked). Acknowledge one interrupt, hand it to the
 * portable kernel, signal end of interrupt, then the common exit path
 * (reschedule, batched IPIs). EOI comes before the exit path so a switch
 * away never leaves the GIC's active priority raised.
 */
void irq_handle(struct trap_frame *f)
{
	(void)f;
	uint32_t iar = gic_ack();
	unsigned intid = iar & 0x3ff;

	if (intid < 16) {
		gic_eoi(iar);
		ipi_receive((enum ipi_kind)intid);
	} else if (intid == TIMER_PPI) {
		gic_eoi(iar);
		sched_tick();
	} else if (intid == UART0_INTID) {
		uart_ack_irq();
		gic_eoi(iar);
		console_rx_interrupt();
	} else if (intid < 1020) {
		gic_eoi(iar);
		kprintf("irq: unexpected intid %u\n", intid);
	}
	irq_exit();
}

static const char *const vector_names[16] = {
	"sync/EL1t", "irq/EL1t", "fiq/EL1t", "serror/EL1t",
	"sync/EL1h", "irq/EL1h", "fiq/EL1h", "serror/EL1h",
	"sync/EL0",  "irq/EL0",  "fiq/EL0",  "serror/EL0",
	"sync/EL0-32", "irq/EL0-32", "fiq/EL0-32", "serror/EL0-32",
};

/** Synchronous exception. Kernel faults are fatal; user faults arrive
 *  with the user-space issue. */
void sync_handle(struct trap_frame *f, uint64_t kind)
{
	panic("%s exception: esr %lx elr %lx far %lx",
	      vector_names[kind & 15], read_sysreg(esr_el1), f->elr,
	      read_sysreg(far_el1));
}

void bad_exception(struct trap_frame *f, uint64_t kind)
{
	panic("unexpected %s exception: esr %lx elr %lx",
	      vector_names[kind & 15], read_sysreg(esr_el1), f->elr);
}
