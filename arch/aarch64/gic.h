/*
 * The interrupt controller behind one internal interface: GICv2
 * (gicv2.c: memory-mapped CPU interface, 8 cores at most) or GICv3
 * (gicv3.c: system-register CPU interface, affinity routing), chosen
 * once at boot by gic_init (gic.c) from the device tree and
 * ID_AA64PFR0_EL1.GIC. The hot calls (acknowledge, end, SGI send)
 * dispatch on gic_v3, a boolean written once before any core takes an
 * interrupt: one predictable branch.
 */
#ifndef ARCH_AARCH64_GIC_H
#define ARCH_AARCH64_GIC_H
#include <stdbool.h>
#include <stdint.h>

#define TIMER_PPI 30   /* CNTP, non-secure physical timer: the tick */
#define TIMEOUT_PPI 27 /* CNTV, virtual timer: the timeouts */

extern bool gic_v3; /* [I] set by gic_init on the boot core */

/* gic.c: the choice, and what does not depend on the version. */
void gic_init(void);
unsigned gic_version(void);

/* gicv2.c */
void gicv2_init(uint64_t gicd, uint64_t gicc);
void gicv2_init_cpu(void);
unsigned gicv2_lines(void);
void gicv2_mask(unsigned intid);
void gicv2_unmask(unsigned intid);
void gicv2_route(unsigned intid, unsigned cpu);
uint64_t gicv2_targets(unsigned intid);
void gicv2_raise(unsigned intid);
void gicv2_enable_spi(unsigned intid);

void gicv2_send_sgi(uint64_t mask, unsigned sgi);

/* GICv2's acknowledge and end, inline (the IRQ entry, the idle paths):
 * its CPU interface, kernel address. (The SGI send stays a call: inline
 * it saves one branch, which put sgi_trigger_gicv3 over its bound of
 * 1.5x sgi_trigger, 23 / 15.) */
extern uintptr_t gicv2_dist, gicv2_cpu; /* [I] set by gicv2_init */
#define GICC_IAR 0x0C
#define GICC_EOIR 0x10

/** GICC_IAR: acknowledge the highest-priority pending interrupt. */
static inline uint32_t gicv2_ack(void)
{
	return *(volatile uint32_t *)(gicv2_cpu + GICC_IAR);
}

/** GICC_EOIR: end interrupt @iar. */
static inline void gicv2_eoi(uint32_t iar)
{
	*(volatile uint32_t *)(gicv2_cpu + GICC_EOIR) = iar;
}

/* gicv3.c */
void gicv3_init(uint64_t gicd, const uint64_t *rbase, const uint64_t *rsize,
		unsigned nregions);
void gicv3_init_cpu(unsigned cpu);
unsigned gicv3_lines(void);
void gicv3_mask(unsigned intid);
void gicv3_unmask(unsigned intid);
void gicv3_route(unsigned intid, unsigned cpu);
uint64_t gicv3_targets(unsigned intid);
void gicv3_raise(unsigned intid);
void gicv3_enable_spi(unsigned intid);
void gicv3_send_sgi(uint64_t mask, unsigned sgi);

extern uint64_t gicv3_sgi_one[]; /* [I] ICC_SGI1R_EL1 for core c alone */

/** ICC_IAR1_EL1 / ICC_EOIR1_EL1 (GICv3's system-register interface). */
static inline uint32_t gicv3_ack(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, S3_0_C12_C12_0" : "=r"(v) :: "memory");
	return (uint32_t)v;
}

static inline void gicv3_eoi(uint32_t iar)
{
	__asm__ volatile("msr S3_0_C12_C12_1, %0" :: "r"((uint64_t)iar)
			 : "memory");
}

/* The interface the rest of arch/aarch64 uses. */
static inline uint32_t gic_ack(void)
{
	return gic_v3 ? gicv3_ack() : gicv2_ack();
}

static inline void gic_eoi(uint32_t iar)
{
	if (gic_v3)
		gicv3_eoi(iar);
	else
		gicv2_eoi(iar);
}

/** Send SGI @sgi to the cores in @mask (bit per core index). Makes the
 *  caller's earlier normal-memory stores (a mailbox post) visible
 *  before any target can take it. On GICv3 an SGI to one core, the
 *  common case (a mailbox post), is one precomputed ICC_SGI1R_EL1
 *  value: the `dsb ishst` orders the stores before the register write
 *  (a dmb does not order a system-register write), the isb issues it. */
static inline void gic_send_sgi(uint64_t mask, unsigned sgi)
{
	if (!gic_v3) {
		gicv2_send_sgi(mask, sgi);
	} else if (mask && !(mask & (mask - 1))) {
		uint64_t v = gicv3_sgi_one[__builtin_ctzll(mask)] |
			     (uint64_t)(sgi & 0xf) << 24;
		__asm__ volatile("dsb ishst\n\tmsr S3_0_C12_C11_5, %0\n\tisb"
				 :: "r"(v) : "memory");
	} else if (mask) {
		gicv3_send_sgi(mask, sgi);
	}
}

/** Per core, IRQs masked: SGIs 8..11 and the timer PPI enabled, the
 *  CPU interface on. */
static inline void gic_init_cpu(unsigned cpu)
{
	if (gic_v3)
		gicv3_init_cpu(cpu);
	else
		gicv2_init_cpu();
}

#define GIC_CALL(f, ...) (gic_v3 ? gicv3_##f(__VA_ARGS__) : gicv2_##f(__VA_ARGS__))
#endif
