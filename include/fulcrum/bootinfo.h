/*
 * What the kernel hands the rootserver: its well-known capability slots
 * and a read-only page at FUL_BOOTINFO_VADDR describing the machine and
 * the boot modules (the other user programs, ELF images packed into the
 * kernel image, each given as a read-only frame capability).
 */
#ifndef FULCRUM_BOOTINFO_H
#define FULCRUM_BOOTINFO_H

#include <fulcrum/syscall.h>

/* Rootserver capability slots. */
#define FUL_SLOT_SELF_VS 1     /* its own address space / cap table, ALL */
#define FUL_SLOT_SELF_THREAD 2 /* its own thread, ALL */
#define FUL_SLOT_SCHED 3       /* scheduling and migration controls, ALL */
#define FUL_SLOT_POOL 4        /* all free memory, ALL */
#define FUL_SLOT_BOOTINFO 5    /* the bootinfo frame, READ */
#define FUL_SLOT_IPCBUF 6      /* its IPC buffer frame, READ|WRITE */
#define FUL_SLOT_LOAD 7        /* the load area (<fulcrum/load.h>), READ */
#define FUL_SLOT_CONSOLE 8     /* console input (FUL_CAP_CONSOLE), ALL */
#define FUL_SLOT_BALANCER 9    /* empty at boot: the rootserver's service
				* endpoint (<fulcrum/rootsrv.h>) */
#define FUL_SLOT_MODULE0 10    /* module i is at FUL_SLOT_MODULE0 + i, READ */

/* Rootserver memory layout. */
#define FUL_BOOTINFO_VADDR 0x7fe00000UL
#define FUL_ROOT_IPCBUF_VADDR 0x7ff00000UL
#define FUL_ROOT_STACK_TOP 0x80000000UL
#define FUL_ROOT_STACK_PAGES 16

/* "FULCRUM2": 32 modules (1: 16) */
#define FUL_BOOTINFO_MAGIC 0x46554c4352554d32UL
#define FUL_MAX_MODULES 32

struct ful_module {
	char name[32];
	unsigned int slot;  /* frame capability holding the ELF image */
	unsigned int pad;
	unsigned long size; /* bytes of the image at the start of the frame */
};

/* Device regions the DTB lists that user space may drive (virtio-mmio
 * transports), each given as a FUL_CAP_DEVMEM capability (READ|WRITE). */
#define FUL_MAX_DEVREGIONS 32

struct ful_devregion {
	unsigned long paddr;
	unsigned long size;
	unsigned int intid; /* GIC INTID of its interrupt, 0 if none */
	unsigned int slot;  /* its FUL_CAP_DEVMEM capability */
	char compatible[16]; /* "virtio,mmio" */
};

struct ful_bootinfo {
	unsigned long magic;
	unsigned int ncpus;
	unsigned int nmodules;
	unsigned int first_free_slot;
	unsigned int pool_pages; /* budget of FUL_SLOT_POOL, in pages (POOL_INFO: bytes) */
	char bootargs[256];
	struct ful_module modules[FUL_MAX_MODULES];
	unsigned int irqctl_slot; /* FUL_CAP_IRQCTL, ALL */
	unsigned int ndevregions;
	struct ful_devregion devregions[FUL_MAX_DEVREGIONS];
};

#endif
