/* The kernel's memcpy, memmove and memset against byte-by-byte
 * references, over every length up to 80 and every alignment of both
 * ends (the word loops, their tails and the unaligned paths). */
#include "kernel.h"
#include "probe.h"

#define LIB_LEN 80
#define LIB_BUF (LIB_LEN + 24)

static uint8_t lib_src[LIB_BUF] __attribute__((aligned(16)));
static uint8_t lib_dst[LIB_BUF] __attribute__((aligned(16)));
static uint8_t lib_ref[LIB_BUF] __attribute__((aligned(16)));

static void lib_fill(uint8_t *b, unsigned seed)
{
	for (unsigned i = 0; i < LIB_BUF; i++)
		b[i] = (uint8_t)(i * 37 + seed * 11 + 1);
}

static bool lib_same(void)
{
	for (unsigned i = 0; i < LIB_BUF; i++)
		if (lib_dst[i] != lib_ref[i])
			return false;
	return true;
}

KTEST(lib_memcpy_memset, 1)
{
	lib_fill(lib_src, 1);
	for (unsigned so = 0; so < 9; so++)
		for (unsigned dof = 0; dof < 9; dof++)
			for (unsigned n = 0; n <= LIB_LEN; n++) {
				lib_fill(lib_dst, 2);
				lib_fill(lib_ref, 2);
				for (unsigned i = 0; i < n; i++)
					lib_ref[dof + i] = lib_src[so + i];
				KT_CHECK(memcpy(lib_dst + dof, lib_src + so, n) ==
					 lib_dst + dof);
				KT_CHECK(lib_same());
			}
	for (unsigned dof = 0; dof < 9; dof++)
		for (unsigned n = 0; n <= LIB_LEN; n++) {
			lib_fill(lib_dst, 3);
			lib_fill(lib_ref, 3);
			for (unsigned i = 0; i < n; i++)
				lib_ref[dof + i] = 0xa5;
			KT_CHECK(memset(lib_dst + dof, 0xa5, n) == lib_dst + dof);
			KT_CHECK(lib_same());
		}
	/* Overlapping moves, both directions. */
	for (unsigned n = 0; n <= LIB_LEN; n++) {
		lib_fill(lib_dst, 4);
		lib_fill(lib_ref, 4);
		for (unsigned i = n; i-- > 0;)
			lib_ref[8 + i] = lib_ref[i];
		memmove(lib_dst + 8, lib_dst, n);
		KT_CHECK(lib_same());
		lib_fill(lib_dst, 5);
		lib_fill(lib_ref, 5);
		for (unsigned i = 0; i < n; i++)
			lib_ref[i] = lib_ref[i + 8];
		memmove(lib_dst, lib_dst + 8, n);
		KT_CHECK(lib_same());
	}
}
