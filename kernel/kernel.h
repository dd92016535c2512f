/* Kernel-wide services: console output, panic, assertions, and the
 * entry points the arch layer calls into. */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H

#include "arch.h"
#include "types.h"
#include <fulcrum/errno.h>
#include <stdarg.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ksnprintf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int kvsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define KASSERT(cond)                                                     \
	do {                                                              \
		if (unlikely(!(cond)))                                    \
			panic("assertion '%s' failed at %s:%d", #cond,    \
			      __FILE__, __LINE__);                        \
	} while (0)

/* Called by the arch layer, IRQs masked. */
void ipi_receive(enum ipi_kind kind);
void sched_tick(void);
/** The timeout timer's interrupt: wake the sleepers whose deadline has
 *  passed, arm it for the next one. IRQs masked. */
void sched_timeout(void);
void console_rx_interrupt(void);
void irq_exit(void);

/* Machine facts from the device tree (fdt.c), valid after kmain starts. */
struct machine {
	uint64_t ram_base, ram_size;
	unsigned ncpus;
	uint64_t cpu_hwid[MAX_CPUS];
	char bootargs[256];
};
extern struct machine machine;

/** The value of "key=value" in the boot arguments (separated by spaces
 *  or commas), copied to @out;
 *  returns false if the key is absent. A bare "key" yields "". */
bool bootarg(const char *key, char *out, size_t n);
/** The decimal value of boot argument @key, or @dflt. */
uint64_t bootarg_num(const char *key, uint64_t dflt);

/** Milliseconds to counter ticks, and back. */
uint64_t ms_to_ticks(uint64_t ms);
uint64_t ticks_to_us(uint64_t ticks);

#endif
