/* MMIO accessors for the kernel's upper-half device mapping. */
#ifndef ARCH_AARCH64_MMIO_H
#define ARCH_AARCH64_MMIO_H

#include <arch/memlayout.h>
#include <stdint.h>

#define MMIO(pa) ((uintptr_t)(pa) + KVA_OFFSET)

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

static inline uint32_t mmio_read32(uintptr_t addr)
{
	return *(volatile uint32_t *)addr;
}

#endif
