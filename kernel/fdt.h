/* Flattened device tree reader (portable, host-tested): just what the
 * kernel needs from QEMU's DTB. */
#ifndef KERNEL_FDT_H
#define KERNEL_FDT_H

#include "types.h"

struct fdt_info {
	uint64_t ram_base, ram_size;
	unsigned ncpus;
	uint64_t cpu_hwid[MAX_CPUS];
	char bootargs[256];
};

/** Parse @dtb (at most @max bytes). Returns 0, or -1 if it is not a
 *  valid device tree or has no memory node. */
int fdt_parse(const void *dtb, size_t max, struct fdt_info *out);

#endif
