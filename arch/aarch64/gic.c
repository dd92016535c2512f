/* GICv2 driver: distributor once, CPU interface and banked SGI/PPI
 * enables per core, SGI send, acknowledge and end of interrupt. */
#include "gic.h"
#include "mmio.h"

#define GICD MMIO(GICD_PA)
#define GICC MMIO(GICC_PA)
#define GICD_CTLR 0x000
#define GICD_TYPER 0x004
#define GICD_ICENABLER 0x180
#define GICD_ISPENDR 0x200
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

/** Interrupt lines the distributor implements (32 * (ITLinesNumber + 1),
 *  at most 1020). */
unsigned gic_lines(void)
{
	unsigned n = 32 * ((mmio_read32(GICD + GICD_TYPER) & 0x1f) + 1);
	return n > 1020 ? 1020 : n;
}

/** Stop forwarding @intid (its pending state is kept). */
void gic_mask(unsigned intid)
{
	mmio_write32(GICD + GICD_ICENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

void gic_unmask(unsigned intid)
{
	mmio_write32(GICD + GICD_ISENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

/** Send SPI @intid to core @cpu only (one byte of ITARGETSR, which
 *  GICv2 allows to be written alone; QEMU's core i is CPU interface i),
 *  at the priority gic_enable_spi gives SPIs. */
void gic_route(unsigned intid, unsigned cpu)
{
	*(volatile uint8_t *)(GICD + GICD_IPRIORITYR + intid) = 0x80;
	*(volatile uint8_t *)(GICD + GICD_ITARGETSR + intid) =
		(uint8_t)(1u << cpu);
}

uint32_t gic_targets(unsigned intid)
{
	return *(volatile uint8_t *)(GICD + GICD_ITARGETSR + intid);
}

/** Make SPI @intid pending, as its device would (tests). */
void gic_raise(unsigned intid)
{
	mmio_write32(GICD + GICD_ISPENDR + 4 * (intid / 32),
		     1u << (intid % 32));
}
