/*
 * Sets of cores (ful_cpus_t): a thread's affinity in the load area and
 * the policies' eligible cores. Included by <fulcrum/load.h> after
 * FUL_LOAD_CPUS is fixed.
 *
 * Up to 32 cores a set is an unsigned int, bit c for core c, and up to
 * 64 (the kernel's limit, and the load ABI's since version 5) an
 * unsigned long: every operation below is the one-instruction bit
 * operation the policies wrote out by hand before. Above 64 cores (host
 * builds only: the simulator) it is an array of 64-bit words passed by
 * value, with the same operations.
 *
 * Iteration keeps the shape the narrow code had, shifting a copy of the
 * set one core at a time until it is empty:
 *     for (ful_cpus_t it = m; !ful_cpus_empty(it); c++, it = ful_cpus_shr1(it))
 *             if (ful_cpus_low(it)) ... core c ...
 */
#ifndef FULCRUM_CPUS_H
#define FULCRUM_CPUS_H

#include <stdbool.h>

#if FUL_LOAD_CPUS <= 32

typedef unsigned int ful_cpus_t;

/* Macros, not functions: each is the expression the policies wrote out
 * by hand before, so the rootserver's code is the same instruction for
 * instruction (its decision benchmarks count instructions). */
#if FUL_LOAD_CPUS < 32 /* cores 0 .. n - 1, n <= FUL_LOAD_CPUS */
#define ful_cpus_first(n) ((1u << (n)) - 1)
#else
#define ful_cpus_first(n) ((n) >= 32 ? ~0u : (1u << (n)) - 1)
#endif
#define ful_cpus_none() 0u
#define ful_cpus_all() (~0u)
#define ful_cpus_one(c) (1u << (c))
#define ful_cpus_has(m, c) (((m) >> (c)) & 1u)
#define ful_cpus_and(a, b) ((a) & (b))
#define ful_cpus_or(a, b) ((a) | (b))
#define ful_cpus_andnot(a, b) ((a) & ~(b)) /* @a without @b's cores */
#define ful_cpus_empty(m) (!(m))
#define ful_cpus_eq(a, b) ((a) == (b))
#define ful_cpus_several(m) (((m) & ((m) - 1)) != 0) /* two cores or more */
#define ful_cpus_count(m) ((unsigned)__builtin_popcount(m))
/* Iteration: whether the lowest core of @m is in it; @m without it. */
#define ful_cpus_low(m) ((m) & 1u)
#define ful_cpus_shr1(m) ((m) >> 1)

#elif FUL_LOAD_CPUS <= 64 /* the kernel's ABI since load version 5 */

typedef unsigned long ful_cpus_t;

#if FUL_LOAD_CPUS < 64 /* cores 0 .. n - 1, n <= FUL_LOAD_CPUS */
#define ful_cpus_first(n) ((1ul << (n)) - 1)
#else
#define ful_cpus_first(n) ((n) >= 64 ? ~0ul : (1ul << (n)) - 1)
#endif
#define ful_cpus_none() 0ul
#define ful_cpus_all() (~0ul)
#define ful_cpus_one(c) (1ul << (c))
#define ful_cpus_has(m, c) (((m) >> (c)) & 1ul)
#define ful_cpus_and(a, b) ((a) & (b))
#define ful_cpus_or(a, b) ((a) | (b))
#define ful_cpus_andnot(a, b) ((a) & ~(b))
#define ful_cpus_empty(m) (!(m))
#define ful_cpus_eq(a, b) ((a) == (b))
#define ful_cpus_several(m) (((m) & ((m) - 1)) != 0)
#define ful_cpus_count(m) ((unsigned)__builtin_popcountl(m))
#define ful_cpus_low(m) ((m) & 1ul)
#define ful_cpus_shr1(m) ((m) >> 1)

#else /* host builds with more than 64 cores */

#define FUL_CPUS_WORDS ((FUL_LOAD_CPUS + 63) / 64)

typedef struct {
	unsigned long w[FUL_CPUS_WORDS];
} ful_cpus_t;

static inline ful_cpus_t ful_cpus_none(void)
{
	return (ful_cpus_t){{0}};
}

static inline ful_cpus_t ful_cpus_all(void)
{
	ful_cpus_t m;
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		m.w[i] = ~0UL;
	return m;
}

static inline ful_cpus_t ful_cpus_first(unsigned n)
{
	ful_cpus_t m = ful_cpus_none();
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++) {
		unsigned lo = i * 64;
		m.w[i] = n >= lo + 64 ? ~0UL : n > lo ? (1UL << (n - lo)) - 1 : 0;
	}
	return m;
}

static inline ful_cpus_t ful_cpus_one(unsigned c)
{
	ful_cpus_t m = ful_cpus_none();
	if (c < FUL_CPUS_WORDS * 64)
		m.w[c / 64] = 1UL << (c % 64);
	return m;
}

static inline bool ful_cpus_has(ful_cpus_t m, unsigned c)
{
	return c < FUL_CPUS_WORDS * 64 && ((m.w[c / 64] >> (c % 64)) & 1);
}

static inline ful_cpus_t ful_cpus_and(ful_cpus_t a, ful_cpus_t b)
{
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		a.w[i] &= b.w[i];
	return a;
}

static inline ful_cpus_t ful_cpus_or(ful_cpus_t a, ful_cpus_t b)
{
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		a.w[i] |= b.w[i];
	return a;
}

static inline ful_cpus_t ful_cpus_andnot(ful_cpus_t a, ful_cpus_t b)
{
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		a.w[i] &= ~b.w[i];
	return a;
}

static inline bool ful_cpus_empty(ful_cpus_t m)
{
	unsigned long any = 0;
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		any |= m.w[i];
	return !any;
}

static inline bool ful_cpus_eq(ful_cpus_t a, ful_cpus_t b)
{
	unsigned long diff = 0;
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		diff |= a.w[i] ^ b.w[i];
	return !diff;
}

static inline unsigned ful_cpus_count(ful_cpus_t m)
{
	unsigned n = 0;
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		n += (unsigned)__builtin_popcountl(m.w[i]);
	return n;
}

static inline bool ful_cpus_several(ful_cpus_t m)
{
	return ful_cpus_count(m) >= 2;
}

static inline bool ful_cpus_low(ful_cpus_t m)
{
	return m.w[0] & 1;
}

static inline ful_cpus_t ful_cpus_shr1(ful_cpus_t m)
{
	for (unsigned i = 0; i < FUL_CPUS_WORDS; i++)
		m.w[i] = m.w[i] >> 1 |
			 (i + 1 < FUL_CPUS_WORDS ? m.w[i + 1] << 63 : 0);
	return m;
}

#endif

#endif
