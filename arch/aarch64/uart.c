/* PL011 console: polled output, polled or interrupt-driven input. */
#include "../../kernel/arch.h"
#include "gic.h"
#include "mmio.h"

#define UART MMIO(UART0_PA)
#define UART_DR 0x00
#define UART_FR 0x18
#define UART_IMSC 0x38
#define UART_ICR 0x44
#define FR_RXFE (1u << 4)
#define FR_TXFF (1u << 5)

void arch_console_putc(char c)
{
	while (mmio_read32(UART + UART_FR) & FR_TXFF)
		arch_cpu_relax();
	mmio_write32(UART + UART_DR, (uint8_t)c);
}

int arch_console_getc(void)
{
	if (mmio_read32(UART + UART_FR) & FR_RXFE)
		return -1;
	return mmio_read32(UART + UART_DR) & 0xff;
}

void arch_console_enable_rx_irq(void)
{
	mmio_write32(UART + UART_IMSC, 1u << 4 | 1u << 6); /* RX, RX timeout */
	GIC_CALL(enable_spi, UART0_INTID);
}

/** Called from the IRQ path: clear the RX interrupt condition. */
void uart_ack_irq(void)
{
	mmio_write32(UART + UART_ICR, 0x7ff);
}
