/*
 * Which GIC: the device tree's interrupt-controller node says v2
 * ("arm,cortex-a15-gic", "arm,gic-400") or v3 ("arm,gic-v3"), and
 * ID_AA64PFR0_EL1.GIC says whether this core has the GICv3
 * system-register interface. v3 needs both; a v3 node on a core
 * without the interface is a broken machine (panic). Without a GIC
 * node the kernel falls back to QEMU virt's GICv2 addresses.
 */
#include "../../kernel/fdt.h"
#include "../../kernel/kernel.h"
#include "gic.h"
#include <arch/memlayout.h>

bool gic_v3;

static struct fdt_info gic_fdt; /* only gic_init reads it, once */

unsigned gic_version(void)
{
	return gic_v3 ? 3 : 2;
}

/** Once, boot core, after kmain has read the machine facts. */
void gic_init(void)
{
	struct fdt_gic *g = &gic_fdt.gic;
	if (fdt_parse(arch_boot_dtb(), 1 << 20, &gic_fdt) != 0 ||
	    !g->version)
		*g = (struct fdt_gic){.version = 2, .nregs = 2,
				      .base = {GICD_PA, GICC_PA}};
	unsigned pfr0_gic = (read_sysreg(id_aa64pfr0_el1) >> 24) & 0xf;
	if (g->version == 3) {
		if (!pfr0_gic)
			panic("GICv3 in the device tree, but "
			      "ID_AA64PFR0_EL1.GIC is 0");
		if (g->nregs < 2)
			panic("GICv3: no redistributor region");
		unsigned n = g->nregs - 1 < g->nredist ? g->nregs - 1
						       : g->nredist;
		gic_v3 = true;
		gicv3_init(g->base[0], g->base + 1, g->size + 1, n);
	} else {
		if (g->nregs < 2)
			panic("GICv2: no CPU interface region");
		gicv2_init(g->base[0], g->base[1]);
	}
	kprintf("GICv%u: distributor 0x%lx, %u lines\n", gic_version(),
		(unsigned long)g->base[0], GIC_CALL(lines));
}
