/* GICv2 driver: distributor once, CPU interface and banked SGI/PPI
 * enables per core, SGI send, acknowledge and end of interrupt. At most
 * 8 cores: a target list is one byte (QEMU's core i is CPU interface i). */
#include "gic.h"
#include "mmio.h"

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

/* [I] kernel addresses, set by gicv2_init; gic.h's inline acknowledge
 * and end use gicv2_cpu too */
uintptr_t gicv2_dist, gicv2_cpu;

/** Once, boot core: remember the frames, enable the distributor. */
void gicv2_init(uint64_t gicd_pa, uint64_t gicc_pa)
{
	gicv2_dist = MMIO(gicd_pa);
	gicv2_cpu = MMIO(gicc_pa);
	mmio_write32(gicv2_dist + GICD_CTLR, 1);
}

/** Per core: SGIs 8..11 and the timer PPI enabled, interface on. */
void gicv2_init_cpu(void)
{
	uint32_t sgis = (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11);
	mmio_write32(gicv2_dist + GICD_ISENABLER, sgis | (1u << TIMER_PPI) |
		     (1u << TIMEOUT_PPI));
	mmio_write32(gicv2_cpu + GICC_PMR, 0xF0);
	mmio_write32(gicv2_cpu + GICC_CTLR, 1);
}

/** Enable shared interrupt @intid, routed to core 0. */
void gicv2_enable_spi(unsigned intid)
{
	*(volatile uint8_t *)(gicv2_dist + GICD_ITARGETSR + intid) = 1;
	*(volatile uint8_t *)(gicv2_dist + GICD_IPRIORITYR + intid) = 0x80;
	mmio_write32(gicv2_dist + GICD_ISENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

/** Send SGI @sgi to the cores in @mask (0..7): one write reaches them
 *  all. The barrier makes prior normal-memory stores (a mailbox post)
 *  visible before any target can take the interrupt. */
void gicv2_send_sgi(uint64_t mask, unsigned sgi)
{
	__asm__ volatile("dmb ishst" ::: "memory");
	mmio_write32(gicv2_dist + GICD_SGIR,
		     (uint32_t)((mask & 0xff) << 16) | sgi);
}

/** Interrupt lines the distributor implements (32 * (ITLinesNumber + 1),
 *  at most 1020). */
unsigned gicv2_lines(void)
{
	unsigned n = 32 * ((mmio_read32(gicv2_dist + GICD_TYPER) & 0x1f) + 1);
	return n > 1020 ? 1020 : n;
}

/** Stop forwarding @intid (its pending state is kept). */
void gicv2_mask(unsigned intid)
{
	mmio_write32(gicv2_dist + GICD_ICENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

void gicv2_unmask(unsigned intid)
{
	mmio_write32(gicv2_dist + GICD_ISENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

/** Send SPI @intid to core @cpu (< 8) only (one byte of ITARGETSR, which
 *  GICv2 allows to be written alone), at the priority gicv2_enable_spi
 *  gives SPIs. */
void gicv2_route(unsigned intid, unsigned cpu)
{
	*(volatile uint8_t *)(gicv2_dist + GICD_IPRIORITYR + intid) = 0x80;
	*(volatile uint8_t *)(gicv2_dist + GICD_ITARGETSR + intid) =
		(uint8_t)(1u << cpu);
}

uint64_t gicv2_targets(unsigned intid)
{
	return *(volatile uint8_t *)(gicv2_dist + GICD_ITARGETSR + intid);
}

/** Make SPI @intid pending, as its device would (tests). */
void gicv2_raise(unsigned intid)
{
	mmio_write32(gicv2_dist + GICD_ISPENDR + 4 * (intid / 32),
		     1u << (intid % 32));
}
