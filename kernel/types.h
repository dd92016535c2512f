/* Basic freestanding types shared by every kernel file (portable). */
#ifndef KERNEL_TYPES_H
#define KERNEL_TYPES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The core limit: every per-core array (struct cpu, idle threads, boot
 * stacks, the load area's records, the GICv3 driver's tables) has
 * MAX_CPUS entries, and a set of cores is one 64-bit word (bit c: core
 * c). The load area's FUL_LOAD_CPUS is the same number (load.c checks). */
#define MAX_CPUS 64
#define CACHELINE 64

typedef uint32_t tid_t;

/* lib.c */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strncmp(const char *a, const char *b, size_t n);
int strcmp(const char *a, const char *b); /* slot index in the low 12 bits, generation above */

#endif
