/* GICv2 driver: distributor once, CPU interface and banked SGI/PPI
 * enables per core, SGI send, acknowledge and end of interrupt. */
#include "gic.h"
#include "mmio.h"

#define GICD MMIO(GICD_PA)
#define GICC MMIO(GICC_PA)
#define GICD_CTLR 0x000
#define GICD_ISENABLER 0x100
#define GICD_IPRIORITYR 0x400
#define GICD_ITARGETSR 0x800
#define GICD_SGIR 0xF00
#define GICC_CTLR 0x00
#define GICC_PMR 0x04
#define GICC_IAR 0x0C
#define GICC_EOIR 0x10

/** Once, boot core: enable the distributor. */
void gic_init(void)
{
	mmio_write32(GICD + GICD_CTLR, 1);
}

/** Per core: SGIs 8..11 and the timer PPI enabled, interface on. */
void gic_init_cpu(void)
{
	uint32_t sgis = (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11);
	mmio_write32(GICD + GICD_ISENABLER, sgis | (1u << TIMER_PPI));
	mmio_write32(GICC + GICC_PMR, 0xF0);
	mmio_write32(GICC + GICC_CTLR, 1);
}

/** Enable shared interrupt @intid, routed to core 0. */
void gic_enable_spi(unsigned intid)
{
	uintptr_t tgt = GICD + GICD_ITARGETSR + intid;
	*(volatile uint8_t *)tgt = 1;
	*(volatile uint8_t *)(GICD + GICD_IPRIORITYR + intid) = 0x80;
	mmio_write32(GICD + GICD_ISENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

/** Send SGI @sgi to the cores in @mask: one write reaches them all.
 *  The barrier makes prior normal-memory stores (a mailbox post)
 *  visible before any target can take the interrupt. */
void gic_send_sgi(uint32_t mask, unsigned sgi)
{
	__asm__ volatile("dmb ishst" ::: "memory");
	mmio_write32(GICD + GICD_SGIR, ((mask & 0xff) << 16) | sgi);
}

uint32_t gic_ack(void)
{
	return mmio_read32(GICC + GICC_IAR);
}

void gic_eoi(uint32_t iar)
{
	mmio_write32(GICC + GICC_EOIR, iar);
}
