/* Device memory (devmem.c): the MMIO regions of the device tree that
 * user-level drivers may map, as frame objects of kind FRAME_DEVICE. */
#ifndef KERNEL_DEVMEM_H
#define KERNEL_DEVMEM_H

#include "fdt.h"

struct frame;

/** Once, at boot, before the rootserver: a device frame for each device
 *  region of @fi (not overlapping RAM). */
void devmem_init(const struct fdt_info *fi);
/** Number of device regions. */
unsigned devmem_count(void);
/** Region @i (< devmem_count()): its frame (held by the kernel for ever)
 *  and its description. */
struct frame *devmem_region(unsigned i, const struct fdt_dev **dev);

#endif
