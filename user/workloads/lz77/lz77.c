/*
 * Workload "lz77": an LZ77 compressor over generated text (gzip's and
 * 7-zip's character: hash look-ups, match search, byte output). Each
 * pass generates a 16 KiB block of words from a small dictionary,
 * compresses it (4 KiB window, hash chains of depth 16, matches of 3 to
 * 18 bytes: 12-bit offset + 4-bit length, a flag byte per 8 items),
 * decompresses it and compares: the round trip is its own check, and
 * the compressed sizes and bytes go into the checksum.
 */
#include <string.h>

#include "../wl.h"

#define LZ_BLK	  16384
#define LZ_WIN	  4095
#define LZ_MIN	  3
#define LZ_MAX	  18
#define LZ_HBITS  12
#define LZ_DEPTH  16
#define LZ_NIL	  0xffffu
#define LZ_UNITS  200 /* blocks per thread at scale 100 */
#define LZ_OUTMAX (LZ_BLK + LZ_BLK / 8 + 8)

struct lz_state {
	uint8_t in[LZ_BLK], out[LZ_BLK], comp[LZ_OUTMAX];
	uint16_t head[1u << LZ_HBITS], prev[LZ_BLK];
};

static struct lz_state lz[WL_MAX_THREADS];
static unsigned lz_reps;

static const char *const lz_words[] = {
	"the ", "core ", "load ", "balance ", "thread ", "weight ", "of ",
	"a ", "migrate ", "queue ", "runnable ", "to ", "and ", "kernel ",
	"average ", "task ", "is ", "in ", "nice ", "timer ", "\n"};

static void lz_gen(uint8_t *p, uint32_t seed)
{
	const unsigned nw = sizeof(lz_words) / sizeof(lz_words[0]);
	unsigned i = 0;
	while (i < LZ_BLK) {
		seed = seed * 1103515245u + 12345u;
		const char *w = lz_words[(seed >> 16) % nw];
		while (*w && i < LZ_BLK)
			p[i++] = (uint8_t)*w++;
	}
}

static unsigned lz_hash(const uint8_t *p)
{
	uint32_t v = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
	return (v * 2654435761u) >> (32 - LZ_HBITS);
}

/** The longest match for position @i: its length (0: none), offset. */
static unsigned lz_find(struct lz_state *s, unsigned i, unsigned *off)
{
	unsigned best = 0, max = LZ_BLK - i < LZ_MAX ? LZ_BLK - i : LZ_MAX;
	unsigned cand = s->head[lz_hash(&s->in[i])];
	for (unsigned d = 0; d < LZ_DEPTH && cand != LZ_NIL; d++) {
		if (i - cand > LZ_WIN)
			break;
		unsigned n = 0;
		while (n < max && s->in[cand + n] == s->in[i + n])
			n++;
		if (n > best) {
			best = n;
			*off = i - cand;
		}
		cand = s->prev[cand];
	}
	return best >= LZ_MIN ? best : 0;
}

static void lz_insert(struct lz_state *s, unsigned i)
{
	if (i + LZ_MIN > LZ_BLK)
		return;
	unsigned h = lz_hash(&s->in[i]);
	s->prev[i] = s->head[h];
	s->head[h] = (uint16_t)i;
}

/** Compress s->in into s->comp; the compressed size. */
static unsigned lz_compress(struct lz_state *s)
{
	unsigned i = 0, o = 0, flags_at = 0, item = 8;
	memset(s->head, 0xff, sizeof(s->head));
	while (i < LZ_BLK) {
		if (item == 8) {
			flags_at = o++;
			s->comp[flags_at] = 0;
			item = 0;
		}
		unsigned off = 0;
		unsigned n = i + LZ_MIN <= LZ_BLK ? lz_find(s, i, &off) : 0;
		if (n) {
			unsigned code = off << 4 | (n - LZ_MIN);
			s->comp[flags_at] |= (uint8_t)(1u << item);
			s->comp[o++] = (uint8_t)code;
			s->comp[o++] = (uint8_t)(code >> 8);
			for (unsigned k = 0; k < n; k++)
				lz_insert(s, i + k);
			i += n;
		} else {
			s->comp[o++] = s->in[i];
			lz_insert(s, i++);
		}
		item++;
	}
	return o;
}

/** Decompress @n bytes of s->comp into s->out; false if malformed. */
static bool lz_decompress(struct lz_state *s, unsigned n)
{
	unsigned i = 0, o = 0;
	while (i < n && o < LZ_BLK) {
		unsigned flags = s->comp[i++];
		for (unsigned item = 0; item < 8 && i < n && o < LZ_BLK;
		     item++) {
			if (!(flags >> item & 1)) {
				s->out[o++] = s->comp[i++];
				continue;
			}
			unsigned code = s->comp[i] | s->comp[i + 1] << 8;
			unsigned off = code >> 4, len = (code & 15) + LZ_MIN;
			i += 2;
			if (off == 0 || off > o || o + len > LZ_BLK)
				return false;
			for (unsigned k = 0; k < len; k++, o++)
				s->out[o] = s->out[o - off];
		}
	}
	return o == LZ_BLK && i == n;
}

static void lz_setup(unsigned scale)
{
	lz_reps = wl_scaled(LZ_UNITS, scale);
}

static uint64_t lz_work(unsigned slot)
{
	struct lz_state *s = &lz[slot];
	uint64_t sum = WL_FNV_SEED;
	for (unsigned r = 0; r < lz_reps; r++) {
		lz_gen(s->in, 1000 + r);
		unsigned n = lz_compress(s);
		if (!lz_decompress(s, n) || memcmp(s->in, s->out, LZ_BLK))
			return 0;
		sum = wl_mix(wl_mix(sum, n), wl_fnv(s->comp, n));
	}
	return sum;
}

const struct wl_def wl_lz77 = {"lz77", "gzip / 7-zip", lz_setup, lz_work};
