/* Flattened device tree reader (portable, host-tested): just what the
 * kernel needs from QEMU's DTB. */
#ifndef KERNEL_FDT_H
#define KERNEL_FDT_H

#include "types.h"

#define FDT_MAX_DEVS 32

/* A device node user space may drive: a top-level node compatible with
 * "virtio,mmio", its first reg range and first interrupt. */
struct fdt_dev {
	uint64_t base, size;
	uint32_t intid; /* GIC INTID (SPI n: 32 + n), 0 if none */
};

/* The interrupt controller: a top-level node compatible with
 * "arm,gic-v3" (version 3) or "arm,cortex-a15-gic" / "arm,gic-400"
 * (version 2), and its first FDT_GIC_REGS reg ranges: v2 distributor,
 * CPU interface; v3 distributor, then the redistributor regions. */
#define FDT_GIC_REGS 4
struct fdt_gic {
	unsigned version; /* 2 or 3; 0: no GIC node found */
	unsigned nregs;   /* reg ranges kept, at most FDT_GIC_REGS */
	unsigned nredist; /* v3: #redistributor-regions (1 if absent) */
	uint64_t base[FDT_GIC_REGS], size[FDT_GIC_REGS];
};

struct fdt_info {
	uint64_t ram_base, ram_size;
	unsigned ncpus;                 /* at most MAX_CPUS */
	unsigned ncpus_dtb;             /* cpu nodes with a reg: may exceed */
	uint64_t cpu_hwid[MAX_CPUS];
	struct fdt_gic gic;
	char bootargs[256];
	unsigned ndevs;                 /* in DTB order, at most FDT_MAX_DEVS */
	struct fdt_dev devs[FDT_MAX_DEVS];
};

/** Parse @dtb (at most @max bytes). Returns 0, or -1 if it is not a
 *  valid device tree or has no memory node. */
int fdt_parse(const void *dtb, size_t max, struct fdt_info *out);

#endif
