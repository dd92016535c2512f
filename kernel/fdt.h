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

struct fdt_info {
	uint64_t ram_base, ram_size;
	unsigned ncpus;
	uint64_t cpu_hwid[MAX_CPUS];
	char bootargs[256];
	unsigned ndevs;                 /* in DTB order, at most FDT_MAX_DEVS */
	struct fdt_dev devs[FDT_MAX_DEVS];
};

/** Parse @dtb (at most @max bytes). Returns 0, or -1 if it is not a
 *  valid device tree or has no memory node. */
int fdt_parse(const void *dtb, size_t max, struct fdt_info *out);

#endif
