/*
 * GICv3 driver (QEMU virt, gic-version=3): the distributor with
 * affinity routing (ARE), one redistributor per core found by its
 * GICR_TYPER affinity in the regions the device tree gives, and the
 * system-register CPU interface (ICC_*_EL1). Every interrupt is
 * Group 1 (non-secure), signalled as IRQ. SGIs go out through
 * ICC_SGI1R_EL1, one write per cluster (cores sharing Aff3.Aff2.Aff1
 * and the same 16-core range of Aff0); an SPI goes to one core through
 * its GICD_IROUTER.
 */
#include "../../kernel/kernel.h"
#include "gic.h"
#include "mmio.h"

#define GICD_CTLR 0x0000
#define GICD_TYPER 0x0004
#define GICD_IGROUPR 0x0080
#define GICD_ISENABLER 0x0100
#define GICD_ICENABLER 0x0180
#define GICD_ISPENDR 0x0200
#define GICD_IPRIORITYR 0x0400
#define GICD_IROUTER 0x6000 /* 64 bits per INTID, SPIs only */
#define GICD_CTLR_RWP (1u << 31)
#define GICD_CTLR_ARE (1u << 4) /* ARE_NS in the non-secure view */
#define GICD_CTLR_GRP1 ((1u << 1) | (1u << 0)) /* both views: Group 1 on */
#define IROUTER_IRM (1ull << 31)

#define GICR_CTLR 0x0000
#define GICR_TYPER 0x0008 /* 64 bits: [63:32] affinity, [4] Last */
#define GICR_WAKER 0x0014
#define GICR_TYPER_VLPIS (1u << 1)
#define GICR_TYPER_LAST (1u << 4)
#define GICR_WAKER_SLEEP (1u << 1)  /* ProcessorSleep */
#define GICR_WAKER_ASLEEP (1u << 2) /* ChildrenAsleep */
#define GICR_SGI 0x10000            /* the SGI/PPI frame after RD_base */
#define GICR_IGROUPR0 0x0080
#define GICR_ISENABLER0 0x0100
#define GICR_ICENABLER0 0x0180
#define GICR_CTLR_RWP (1u << 3)

/* ICC system registers by encoding (the assembler's -mcpu=cortex-a53
 * does not name them). */
#define ICC_PMR_EL1 "S3_0_C4_C6_0"
#define ICC_BPR1_EL1 "S3_0_C12_C12_3"
#define ICC_SRE_EL1 "S3_0_C12_C12_5"
#define ICC_IGRPEN1_EL1 "S3_0_C12_C12_7"
#define ICC_SGI1R_EL1 "S3_0_C12_C11_5"

#define GICV3_MAX_REGIONS 4

static uintptr_t gicd;                      /* [I] distributor */
static uintptr_t rd_region[GICV3_MAX_REGIONS], rd_end[GICV3_MAX_REGIONS];
static unsigned rd_nregions;                /* [I] */
static uintptr_t rd_base[MAX_CPUS];         /* [I] each core's own RD_base */
/* [I] per core: ICC_SGI1R_EL1 without INTID and target list (Aff3,
 * Aff2, Aff1, range selector), its bit in the target list, and the two
 * together (the whole value for an SGI to that core alone, INTID 0). */
static uint64_t sgi_route[MAX_CPUS];
static uint16_t sgi_bit[MAX_CPUS];
uint64_t gicv3_sgi_one[MAX_CPUS]; /* gic.h's single-core fast path */

static inline void mmio_write64(uintptr_t a, uint64_t v)
{
	*(volatile uint64_t *)a = v;
}

static inline uint64_t mmio_read64(uintptr_t a)
{
	return *(volatile uint64_t *)a;
}

/** MPIDR-style affinity @hwid as GICR_TYPER / IROUTER pack it:
 *  Aff3.Aff2.Aff1.Aff0 in 32 bits. */
static uint32_t aff32(uint64_t hwid)
{
	return (uint32_t)(((hwid >> 32) & 0xff) << 24 | (hwid & 0xffffff));
}

/** IROUTER value naming the core of affinity @hwid (IRM 0). */
static uint64_t irouter_of(uint64_t hwid)
{
	return (hwid & 0xffffff) | (((hwid >> 32) & 0xff) << 32);
}

static void gicd_wait_rwp(void)
{
	while (mmio_read32(gicd + GICD_CTLR) & GICD_CTLR_RWP)
		arch_cpu_relax();
}

/**
 * Once, boot core, before any core enables its interface: distributor
 * off, affinity routing on, every SPI Group 1 and disabled, then
 * Group 1 enabled. Each core's SGI target fields are precomputed from
 * the device tree's MPIDRs (machine.cpu_hwid).
 */
void gicv3_init(uint64_t gicd_pa, const uint64_t *rbase,
		const uint64_t *rsize, unsigned nregions)
{
	gicd = MMIO(gicd_pa);
	if (nregions > GICV3_MAX_REGIONS)
		nregions = GICV3_MAX_REGIONS;
	for (unsigned i = 0; i < nregions; i++) {
		if (rbase[i] + rsize[i] > 0x40000000ull)
			panic("GICv3: redistributors at 0x%lx beyond the "
			      "device map", (unsigned long)rbase[i]);
		rd_region[i] = MMIO(rbase[i]);
		rd_end[i] = MMIO(rbase[i] + rsize[i]);
	}
	rd_nregions = nregions;
	mmio_write32(gicd + GICD_CTLR, 0);
	gicd_wait_rwp();
	mmio_write32(gicd + GICD_CTLR, GICD_CTLR_ARE);
	gicd_wait_rwp();
	unsigned lines = gicv3_lines();
	for (unsigned i = 32; i < lines; i += 32) {
		mmio_write32(gicd + GICD_ICENABLER + i / 8, ~0u);
		mmio_write32(gicd + GICD_IGROUPR + i / 8, ~0u);
	}
	gicd_wait_rwp();
	mmio_write32(gicd + GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_GRP1);
	gicd_wait_rwp();
	for (unsigned c = 0; c < machine.ncpus; c++) {
		uint64_t h = machine.cpu_hwid[c];
		unsigned aff0 = h & 0xff;
		sgi_route[c] = ((h >> 8) & 0xff) << 16 |   /* Aff1 */
			       ((h >> 16) & 0xff) << 32 |  /* Aff2 */
			       ((h >> 32) & 0xffull) << 48 | /* Aff3 */
			       (uint64_t)(aff0 / 16) << 44; /* RS */
		sgi_bit[c] = (uint16_t)(1u << (aff0 % 16));
		gicv3_sgi_one[c] = sgi_route[c] | sgi_bit[c];
	}
}

/** The RD_base of the redistributor whose affinity is @aff, or 0. */
static uintptr_t gicv3_find_rd(uint32_t aff)
{
	for (unsigned i = 0; i < rd_nregions; i++) {
		for (uintptr_t rd = rd_region[i]; rd < rd_end[i];) {
			uint64_t typer = mmio_read64(rd + GICR_TYPER);
			if ((uint32_t)(typer >> 32) == aff)
				return rd;
			if (typer & GICR_TYPER_LAST)
				break;
			rd += typer & GICR_TYPER_VLPIS ? 0x40000 : 0x20000;
		}
	}
	return 0;
}

/**
 * Per core @cpu, IRQs masked: find and wake its redistributor, make
 * its SGIs and PPIs Group 1, enable SGIs 8..11 and the timer PPI, then
 * the system-register interface: SRE, priority mask, Group 1 on.
 */
void gicv3_init_cpu(unsigned cpu)
{
	uint64_t mpidr = read_sysreg(mpidr_el1);
	uintptr_t rd = gicv3_find_rd(aff32(mpidr));
	if (!rd)
		panic("GICv3: no redistributor for cpu%u (MPIDR 0x%lx)", cpu,
		      (unsigned long)mpidr);
	rd_base[cpu] = rd;
	uint32_t w = mmio_read32(rd + GICR_WAKER);
	mmio_write32(rd + GICR_WAKER, w & ~GICR_WAKER_SLEEP);
	while (mmio_read32(rd + GICR_WAKER) & GICR_WAKER_ASLEEP)
		arch_cpu_relax();
	uintptr_t sgi = rd + GICR_SGI;
	uint32_t on = (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11) |
		      (1u << TIMER_PPI) | (1u << TIMEOUT_PPI);
	mmio_write32(sgi + GICR_ICENABLER0, ~on);
	while (mmio_read32(rd + GICR_CTLR) & GICR_CTLR_RWP)
		arch_cpu_relax();
	mmio_write32(sgi + GICR_IGROUPR0, ~0u);
	mmio_write32(sgi + GICR_ISENABLER0, on);

	uint64_t sre;
	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	__asm__ volatile("msr " ICC_SRE_EL1 ", %0\n\tisb" :: "r"(sre | 1));
	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	if (!(sre & 1))
		panic("GICv3: cpu%u: ICC_SRE_EL1.SRE stays 0", cpu);
	__asm__ volatile("msr " ICC_PMR_EL1 ", %0" :: "r"(0xF0ull));
	__asm__ volatile("msr " ICC_BPR1_EL1 ", %0" :: "r"(0ull));
	__asm__ volatile("msr " ICC_IGRPEN1_EL1 ", %0\n\tisb" :: "r"(1ull));
}

/**
 * Send SGI @sgi to the cores in @mask (two or more: gic_send_sgi does
 * one core inline): one ICC_SGI1R_EL1 write per cluster that holds
 * targets (one for every core of QEMU virt's first 16). Barriers as in
 * gic_send_sgi. Any context.
 */
void gicv3_send_sgi(uint64_t mask, unsigned sgi)
{
	__asm__ volatile("dsb ishst" ::: "memory");
	while (mask) {
		unsigned c = (unsigned)__builtin_ctzll(mask);
		if (c >= MAX_CPUS)
			break;
		uint64_t route = sgi_route[c], tl = 0;
		for (uint64_t m = mask; m; m &= m - 1) {
			unsigned d = (unsigned)__builtin_ctzll(m);
			if (d < MAX_CPUS && sgi_route[d] == route) {
				tl |= sgi_bit[d];
				mask &= ~(1ull << d);
			}
		}
		uint64_t v = route | (uint64_t)(sgi & 0xf) << 24 | tl;
		__asm__ volatile("msr " ICC_SGI1R_EL1 ", %0" :: "r"(v));
	}
	__asm__ volatile("isb" ::: "memory");
}

/** Interrupt lines the distributor implements (32 * (ITLinesNumber + 1),
 *  at most 1020). */
unsigned gicv3_lines(void)
{
	unsigned n = 32 * ((mmio_read32(gicd + GICD_TYPER) & 0x1f) + 1);
	return n > 1020 ? 1020 : n;
}

/** Stop forwarding SPI @intid (its pending state is kept); returns once
 *  the distributor has taken the change (RWP), so an end of interrupt
 *  right after cannot see the line forwarded again. */
void gicv3_mask(unsigned intid)
{
	mmio_write32(gicd + GICD_ICENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
	gicd_wait_rwp();
}

void gicv3_unmask(unsigned intid)
{
	mmio_write32(gicd + GICD_ISENABLER + 4 * (intid / 32),
		     1u << (intid % 32));
}

/** Send SPI @intid to core @cpu only: its IROUTER names the core's
 *  affinity (IRM 0), at the priority SPIs get. */
void gicv3_route(unsigned intid, unsigned cpu)
{
	*(volatile uint8_t *)(gicd + GICD_IPRIORITYR + intid) = 0x80;
	mmio_write64(gicd + GICD_IROUTER + 8 * intid,
		     irouter_of(machine.cpu_hwid[cpu]));
}

/** Enable SPI @intid, routed to core 0. */
void gicv3_enable_spi(unsigned intid)
{
	gicv3_route(intid, 0);
	gicv3_unmask(intid);
}

/** The core SPI @intid is routed to, as a mask (every core if IRM). */
uint64_t gicv3_targets(unsigned intid)
{
	uint64_t r = mmio_read64(gicd + GICD_IROUTER + 8 * intid);
	if (r & IROUTER_IRM)
		return machine.ncpus >= 64 ? ~0ull
					   : (1ull << machine.ncpus) - 1;
	uint64_t mask = 0;
	for (unsigned c = 0; c < machine.ncpus; c++)
		if (irouter_of(machine.cpu_hwid[c]) == (r & ~IROUTER_IRM))
			mask |= 1ull << c;
	return mask;
}

/** Make SPI @intid pending, as its device would (tests). */
void gicv3_raise(unsigned intid)
{
	mmio_write32(gicd + GICD_ISPENDR + 4 * (intid / 32),
		     1u << (intid % 32));
}
