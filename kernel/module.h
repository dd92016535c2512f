/*
 * Boot modules: the user programs (static ELF images) packed into the
 * kernel image by the build (build/k/modules.S, from tools/gen_modules.py,
 * one per entry of USER_PROGS in the Makefile, in that order). Each image
 * is 8-byte aligned in .rodata; the kernel loads "rootserver" itself and
 * hands every module to it as a read-only frame capability.
 */
#ifndef KERNEL_MODULE_H
#define KERNEL_MODULE_H

struct kmodule {
	const char *name;
	const unsigned char *start;
	unsigned long size;
};

extern const struct kmodule kmodules[];
extern const unsigned kmodules_count;

#endif
