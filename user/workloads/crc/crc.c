/*
 * Workload "crc": CRC-32 (IEEE, reflected, table-driven) of a large
 * generated buffer, again and again (the character of an audio encoder's
 * or a checksummer's inner loop: a linear pass over memory with table
 * look-ups; stands in for flac-audio). Checked against the bit-by-bit
 * CRC of the same buffer, computed once, and the standard check value
 * of "123456789".
 */
#include <stddef.h>

#include "../wl.h"

#define CRC_BUF	  (128 * 1024)
#define CRC_UNITS 600 /* passes per thread at scale 100 */
#define CRC_POLY  0xedb88320u

static uint8_t crc_buf[CRC_BUF];
static uint32_t crc_tab[256];
static uint32_t crc_ref;
static unsigned crc_reps;

static uint32_t crc_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = ~0u;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (unsigned k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC_POLY & -(c & 1));
	}
	return ~c;
}

static uint32_t crc_table(const uint8_t *p, size_t n)
{
	uint32_t c = ~0u;
	for (size_t i = 0; i < n; i++)
		c = crc_tab[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

static void crc_setup(unsigned scale)
{
	uint32_t x = 2463534242u;
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = i;
		for (unsigned k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC_POLY & -(c & 1));
		crc_tab[i] = c;
	}
	for (size_t i = 0; i < CRC_BUF; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		crc_buf[i] = (uint8_t)x;
	}
	crc_ref = crc_bitwise(crc_buf, CRC_BUF);
	if (crc_bitwise((const uint8_t *)"123456789", 9) != 0xcbf43926u)
		crc_ref = 0; /* every run then fails */
	crc_reps = wl_scaled(CRC_UNITS, scale);
}

static uint64_t crc_work(unsigned slot)
{
	(void)slot;
	uint64_t sum = WL_FNV_SEED;
	for (unsigned r = 0; r < crc_reps; r++) {
		__asm__ volatile("" ::: "memory");
		uint32_t c = crc_table(crc_buf, CRC_BUF);
		if (c != crc_ref)
			return 0;
		sum = wl_mix(sum, c);
	}
	return sum;
}

const struct wl_def wl_crc = {"crc", "flac-audio", crc_setup, crc_work};
