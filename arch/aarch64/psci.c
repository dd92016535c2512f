/* PSCI 1.1 over HVC (QEMU virt without virtualization=on). */
#include "../../kernel/arch.h"
#include <arch/memlayout.h>

#define PSCI_CPU_ON 0xC4000003
#define PSCI_SYSTEM_OFF 0x84000008

static int64_t psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;
	__asm__ volatile("hvc #0"
			 : "+r"(x0)
			 : "r"(x1), "r"(x2), "r"(x3)
			 : "memory");
	return (int64_t)x0;
}

extern char secondary_entry[];

int arch_cpu_start(unsigned cpu, uint64_t hwid)
{
	uint64_t entry_pa = (uint64_t)secondary_entry - KVA_OFFSET;
	return psci_call(PSCI_CPU_ON, hwid, entry_pa, cpu) == 0 ? 0 : -1;
}

void arch_poweroff(void)
{
	psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

void arch_halt_cpu(void)
{
	arch_irq_disable();
	for (;;)
		__asm__ volatile("wfi");
}
