/* Host tests for kernel/page.c: the bitmap page allocator. */
#define HTEST_MAIN
#include "host_test.h"

#include <pthread.h>

#include "arch.h"
#include "page.h"

#define ARENA_SIZE (4u << 20) /* 4 MiB: 1024 pages, one of them the bitmap */
#define ARENA_PAGES (ARENA_SIZE / PAGE_SIZE)
#define POOL_PAGES (ARENA_PAGES - 1)

static uint8_t *arena;

/* A fresh 4 MiB arena full of garbage, handed to page_init. */
static uint8_t *arena_init(void)
{
	if (!arena)
		arena = aligned_alloc(PAGE_SIZE, ARENA_SIZE);
	if (!arena)
		return NULL;
	memset(arena, 0xA5, ARENA_SIZE);
	page_init((uintptr_t)arena, ARENA_SIZE);
	return arena;
}

static uint8_t *pool(void)
{
	return arena + PAGE_SIZE; /* just past the bitmap */
}

static bool all_bytes(const void *p, int v, size_t n)
{
	const uint8_t *b = p;
	/* All equal to b[0] iff the range equals itself shifted by one. */
	return n == 0 || (b[0] == (uint8_t)v && !memcmp(b, b + 1, n - 1));
}

static long page_index(const void *p)
{
	return ((const uint8_t *)p - pool()) / PAGE_SIZE;
}

HTEST(init_carves_bitmap_from_start)
{
	CHECK(arena_init() != NULL);
	CHECK_EQ(page_free_count(), POOL_PAGES);
	/* The bitmap page is cleared (all free); the pool is untouched. */
	CHECK(all_bytes(arena, 0, PAGE_SIZE));
	CHECK(all_bytes(pool(), 0xA5, PAGE_SIZE));
	uint8_t *p = page_alloc(1);
	CHECK(p == pool());
	CHECK_EQ(page_free_count(), POOL_PAGES - 1);
	/* The allocation is recorded in the bitmap at the arena start. */
	CHECK(!all_bytes(arena, 0, PAGE_SIZE));
}

HTEST(alloc_zero_pages_is_null)
{
	CHECK(arena_init() != NULL);
	CHECK(page_alloc(0) == NULL);
	CHECK_EQ(page_free_count(), POOL_PAGES);
}

HTEST(single_pages_until_exhaustion)
{
	static uint8_t *got[POOL_PAGES];
	static bool used[POOL_PAGES];
	CHECK(arena_init() != NULL);
	memset(used, 0, sizeof(used));
	for (unsigned i = 0; i < POOL_PAGES; i++) {
		uint8_t *p = page_alloc(1);
		CHECK(p != NULL);
		CHECK_EQ((uintptr_t)p % PAGE_SIZE, 0);
		CHECK(p >= pool() && p + PAGE_SIZE <= arena + ARENA_SIZE);
		long k = page_index(p);
		CHECK(!used[k]);
		used[k] = true;
		CHECK(all_bytes(p, 0, PAGE_SIZE));
		memset(p, (int)(i & 0xff) | 1, PAGE_SIZE);
		got[i] = p;
		CHECK_EQ(page_free_count(), POOL_PAGES - 1 - i);
	}
	CHECK(page_alloc(1) == NULL);
	CHECK(page_alloc(2) == NULL);
	CHECK_EQ(page_free_count(), 0);
	/* Nothing handed out overlapped: every page kept its stamp. */
	for (unsigned i = 0; i < POOL_PAGES; i++)
		CHECK(all_bytes(got[i], (int)(i & 0xff) | 1, PAGE_SIZE));
	CHECK(all_bytes(arena, 0xff, POOL_PAGES / 8)); /* bitmap full */

	/* Free one in the middle: the next allocation reuses it, zeroed. */
	page_free(got[500], 1);
	CHECK_EQ(page_free_count(), 1);
	uint8_t *p = page_alloc(1);
	CHECK(p == got[500]);
	CHECK(all_bytes(p, 0, PAGE_SIZE));
	CHECK(page_alloc(1) == NULL);

	for (unsigned i = 0; i < POOL_PAGES; i++)
		page_free(got[i], 1);
	CHECK_EQ(page_free_count(), POOL_PAGES);
	CHECK(all_bytes(arena, 0, PAGE_SIZE)); /* bitmap all free again */
	/* The whole pool as one run. */
	p = page_alloc(POOL_PAGES);
	CHECK(p == pool());
	CHECK(all_bytes(p, 0, (size_t)POOL_PAGES * PAGE_SIZE));
	CHECK_EQ(page_free_count(), 0);
	page_free(p, POOL_PAGES);
	CHECK(page_alloc(POOL_PAGES + 1) == NULL);
	CHECK_EQ(page_free_count(), POOL_PAGES);
}

HTEST(free_then_realloc_reuses)
{
	CHECK(arena_init() != NULL);
	uint8_t *a = page_alloc(4), *b = page_alloc(4), *c = page_alloc(4);
	CHECK(a && b && c);
	CHECK(b == a + 4 * PAGE_SIZE && c == b + 4 * PAGE_SIZE);
	memset(b, 0x5A, 4 * PAGE_SIZE);
	page_free(b, 4);
	CHECK_EQ(page_free_count(), POOL_PAGES - 8);
	uint8_t *d = page_alloc(4); /* first fit lands in the hole */
	CHECK(d == b);
	CHECK(all_bytes(d, 0, 4 * PAGE_SIZE));
	page_free(d, 4);
	uint8_t *e = page_alloc(2), *f = page_alloc(2);
	CHECK(e == b && f == b + 2 * PAGE_SIZE);
	uint8_t *g = page_alloc(1); /* hole full: after c */
	CHECK(g == c + 4 * PAGE_SIZE);
	CHECK_EQ(page_free_count(), POOL_PAGES - 13);
}

HTEST(contiguous_runs_with_fragmentation)
{
	static uint8_t *pg[POOL_PAGES];
	CHECK(arena_init() != NULL);
	for (unsigned i = 0; i < POOL_PAGES; i++) {
		pg[i] = page_alloc(1);
		CHECK(pg[i] == pool() + (size_t)i * PAGE_SIZE);
	}
	/* Free every other page: half the pool is free, no run of 2. */
	for (unsigned i = 0; i < POOL_PAGES; i += 2)
		page_free(pg[i], 1);
	unsigned nfree = (POOL_PAGES + 1) / 2;
	CHECK_EQ(page_free_count(), nfree);
	CHECK(page_alloc(2) == NULL);
	CHECK(page_alloc(3) == NULL);
	CHECK_EQ(page_free_count(), nfree);

	/* Open a run of 3 (pages 700..702) and one of 5 (100..104). */
	page_free(pg[701], 1);
	page_free(pg[101], 1);
	page_free(pg[103], 1);
	nfree += 3;
	CHECK_EQ(page_free_count(), nfree);
	uint8_t *r5 = page_alloc(5);
	CHECK(r5 == pg[100]);
	CHECK(all_bytes(r5, 0, 5 * PAGE_SIZE));
	uint8_t *r3 = page_alloc(3);
	CHECK(r3 == pg[700]);
	CHECK(page_alloc(3) == NULL);
	nfree -= 8;
	CHECK_EQ(page_free_count(), nfree);
	/* Singles still fill the remaining holes. */
	uint8_t *s = page_alloc(1);
	CHECK(s != NULL && page_index(s) % 2 == 0);
	CHECK(s != r5 && s != r3);
	page_free(s, 1);
	page_free(r5, 5);
	page_free(r3, 3);
	nfree += 8;
	CHECK_EQ(page_free_count(), nfree);
	CHECK(page_alloc(5) == pg[100]);
}

/* ---- randomized, against a model of page ownership ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return htest_rand(&rng_state);
}

struct blk {
	uint8_t *p;
	unsigned n;
	uint8_t stamp;
};

static bool model_has_run(const int *owner, unsigned n)
{
	unsigned run = 0;
	for (unsigned i = 0; i < POOL_PAGES; i++) {
		run = owner[i] < 0 ? run + 1 : 0;
		if (run >= n)
			return true;
	}
	return false;
}

HTEST(randomized_against_model)
{
	enum { OPS = 20000, MAXB = 512 };
	static int owner[POOL_PAGES]; /* block index, or -1 */
	static struct blk blks[MAXB];
	unsigned nblk = 0, used = 0, nulls = 0;
	CHECK(arena_init() != NULL);
	rng_state = 0xC0FFEE1234567ull;
	for (unsigned i = 0; i < POOL_PAGES; i++)
		owner[i] = -1;
	for (unsigned op = 0; op < OPS; op++) {
		uint64_t r = rnd();
		if (nblk < MAXB && (r % 100 < 55 || nblk == 0)) {
			/* Mostly small, sometimes large runs. */
			unsigned n = (r >> 8) % 8 ? 1 + (r >> 16) % 8
						  : 1 + (r >> 16) % 64;
			uint8_t *p = page_alloc(n);
			if (!p) {
				if (model_has_run(owner, n))
					HTEST_FAIL_("op %u: page_alloc(%u) NULL "
						    "with a free run", op, n);
				nulls++;
				continue;
			}
			long k = page_index(p);
			CHECK_EQ((uintptr_t)p % PAGE_SIZE, 0);
			CHECK(k >= 0 && k + n <= POOL_PAGES);
			for (unsigned j = 0; j < n; j++)
				if (owner[k + j] >= 0)
					HTEST_FAIL_("op %u: page %ld given twice",
						    op, k + j);
			CHECK(all_bytes(p, 0, (size_t)n * PAGE_SIZE));
			struct blk *b = &blks[nblk];
			*b = (struct blk){p, n, (uint8_t)(r >> 32) | 1};
			memset(p, b->stamp, (size_t)n * PAGE_SIZE);
			for (unsigned j = 0; j < n; j++)
				owner[k + j] = (int)nblk;
			nblk++;
			used += n;
		} else {
			unsigned i = (unsigned)((r >> 8) % nblk);
			struct blk *b = &blks[i];
			if (!all_bytes(b->p, b->stamp, (size_t)b->n * PAGE_SIZE))
				HTEST_FAIL_("op %u: block of %u pages at page "
					    "%ld was overwritten",
					    op, b->n, page_index(b->p));
			page_free(b->p, b->n);
			long k = page_index(b->p);
			for (unsigned j = 0; j < b->n; j++)
				owner[k + j] = -1;
			used -= b->n;
			/* Move the last block into slot i. */
			nblk--;
			if (i != nblk) {
				blks[i] = blks[nblk];
				long kk = page_index(blks[i].p);
				for (unsigned j = 0; j < blks[i].n; j++)
					owner[kk + j] = (int)i;
			}
		}
		CHECK_EQ(page_free_count(), POOL_PAGES - used);
	}
	CHECK(nulls > 0); /* the pool did run dry at times */
	while (nblk) {
		struct blk *b = &blks[--nblk];
		CHECK(all_bytes(b->p, b->stamp, (size_t)b->n * PAGE_SIZE));
		page_free(b->p, b->n);
	}
	CHECK_EQ(page_free_count(), POOL_PAGES);
	CHECK(page_alloc(POOL_PAGES) == pool());
}

/* ---- region sizes ---- */

HTEST(tiny_and_odd_regions)
{
	CHECK(arena_init() != NULL);
	/* One page: all bitmap, nothing to hand out. */
	page_init((uintptr_t)arena, PAGE_SIZE);
	CHECK_EQ(page_free_count(), 0);
	CHECK(page_alloc(1) == NULL);
	/* Less than a page. */
	page_init((uintptr_t)arena, 100);
	CHECK_EQ(page_free_count(), 0);
	CHECK(page_alloc(1) == NULL);
	/* A partial trailing page is not used. */
	page_init((uintptr_t)arena, 3 * PAGE_SIZE + 100);
	CHECK_EQ(page_free_count(), 2);
	uint8_t *a = page_alloc(1), *b = page_alloc(1);
	CHECK(a == arena + PAGE_SIZE && b == arena + 2 * PAGE_SIZE);
	CHECK(page_alloc(1) == NULL);
	page_free(a, 1);
	CHECK(page_alloc(2) == NULL);
	page_free(b, 1);
	CHECK(page_alloc(2) == arena + PAGE_SIZE);
}

HTEST(bitmap_spanning_two_pages)
{
	/* 129 MiB = 33024 pages: the bitmap needs 4128 bytes, two pages. */
	const uint64_t size = 129ull << 20;
	const uint64_t total = size / PAGE_SIZE, pages = total - 2;
	uint8_t *big = aligned_alloc(PAGE_SIZE, size);
	CHECK(big != NULL);
	memset(big, 0xA5, 2 * PAGE_SIZE);
	page_init((uintptr_t)big, size);
	CHECK_EQ(page_free_count(), pages);
	uint8_t *p = page_alloc(1);
	CHECK(p == big + 2 * PAGE_SIZE);
	/* The last page of the region, reached through a long run. */
	uint8_t *rest = page_alloc((unsigned)(pages - 2));
	CHECK(rest == big + 3 * PAGE_SIZE);
	uint8_t *last = page_alloc(1);
	CHECK(last == big + size - PAGE_SIZE);
	CHECK(page_alloc(1) == NULL);
	CHECK_EQ(page_free_count(), 0);
	page_free(p, 1);
	page_free(rest, (unsigned)(pages - 2));
	page_free(last, 1);
	CHECK_EQ(page_free_count(), pages);
	free(big);
}

HTEST(clamped_to_page_max_pages)
{
	/* A region over 4 GiB is clamped to PAGE_MAX_PAGES: the bitmap is
	 * 128 KiB. Only the bitmap is touched by page_init, so an arena of
	 * that size stands in for the whole region (nothing is allocated). */
	const uint64_t map = PAGE_MAX_PAGES / 8;
	uint8_t *m = aligned_alloc(PAGE_SIZE, map);
	CHECK(m != NULL);
	memset(m, 0xA5, map);
	page_init((uintptr_t)m, 6ull << 30);
	CHECK_EQ(page_free_count(), PAGE_MAX_PAGES - map / PAGE_SIZE);
	CHECK(all_bytes(m, 0, map));
	free(m);
	CHECK(arena_init() != NULL); /* leave no dangling allocator state */
}

/* ---- several "cores" at once ---- */

#define THREADS 4

struct worker {
	unsigned id;
	unsigned bad_stamp, bad_zero, bad_irq, allocs;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct { uint8_t *p; unsigned n; } held[16] = {{0}};
	uint64_t s = 0x1234567ull * (w->id + 1);
	for (unsigned op = 0; op < 20000; op++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		unsigned slot = s % 16;
		if (held[slot].p) {
			if (!all_bytes(held[slot].p, (int)w->id + 1,
				       (size_t)held[slot].n * PAGE_SIZE))
				w->bad_stamp++;
			page_free(held[slot].p, held[slot].n);
			held[slot].p = NULL;
		} else {
			unsigned n = 1 + (s >> 20) % 4;
			uint8_t *p = page_alloc(n);
			if (!arch_irq_enabled())
				w->bad_irq++; /* irqsave/restore unbalanced */
			if (!p)
				continue;
			w->allocs++;
			if (!all_bytes(p, 0, (size_t)n * PAGE_SIZE))
				w->bad_zero++;
			memset(p, (int)w->id + 1, (size_t)n * PAGE_SIZE);
			held[slot].p = p;
			held[slot].n = n;
		}
	}
	for (unsigned i = 0; i < 16; i++)
		if (held[i].p)
			page_free(held[i].p, held[i].n);
	return NULL;
}

HTEST(concurrent_alloc_free)
{
	CHECK(arena_init() != NULL);
	pthread_t th[THREADS];
	static struct worker ws[THREADS];
	for (unsigned i = 0; i < THREADS; i++) {
		ws[i] = (struct worker){.id = i};
		CHECK_EQ(pthread_create(&th[i], NULL, worker, &ws[i]), 0);
	}
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (unsigned i = 0; i < THREADS; i++) {
		CHECK_EQ(ws[i].bad_stamp, 0);
		CHECK_EQ(ws[i].bad_zero, 0);
		CHECK_EQ(ws[i].bad_irq, 0);
		CHECK(ws[i].allocs > 1000);
	}
	CHECK_EQ(page_free_count(), POOL_PAGES);
	CHECK(page_alloc(POOL_PAGES) == pool());
}

HTEST(irq_state_restored)
{
	CHECK(arena_init() != NULL);
	CHECK(arch_irq_enabled());
	void *p = page_alloc(1);
	CHECK(arch_irq_enabled());
	page_free(p, 1);
	CHECK(arch_irq_enabled());
	uint64_t f = arch_irq_save();
	CHECK(!arch_irq_enabled());
	p = page_alloc(1);
	CHECK(!arch_irq_enabled()); /* still masked: restore, not enable */
	page_free(p, 1);
	CHECK(!arch_irq_enabled());
	arch_irq_restore(f);
	CHECK(arch_irq_enabled());
}

/* The word-at-a-time search and marking (page.c) against a model that
 * goes page by page: random sizes (1 to 300 pages, so runs start and
 * end inside words and span several), random frees, the same first fit
 * from the same hint. */
HTEST(word_search_matches_a_page_by_page_model)
{
	static bool used[POOL_PAGES];
	static struct { long at; unsigned n; } live[4096];
	unsigned nlive = 0;
	uint64_t hint = 0;
	CHECK(arena_init() != NULL);
	memset(used, 0, sizeof used);
	srand(7);
	for (int step = 0; step < 20000; step++) {
		if (nlive && (rand() % 3 == 0 || nlive == 4096)) {
			unsigned k = (unsigned)rand() % nlive;
			page_free(pool() + live[k].at * PAGE_SIZE, live[k].n);
			for (unsigned j = 0; j < live[k].n; j++)
				used[live[k].at + j] = false;
			if ((uint64_t)live[k].at < hint)
				hint = (uint64_t)live[k].at;
			live[k] = live[--nlive];
			continue;
		}
		unsigned n = 1 + (unsigned)rand() % (rand() % 4 ? 8 : 300);
		long want = -1;
		for (int pass = 0; pass < 2 && want < 0; pass++) {
			unsigned run = 0;
			for (uint64_t i = pass ? 0 : hint; i < POOL_PAGES; i++) {
				run = used[i] ? 0 : run + 1;
				if (run == n) {
					want = (long)(i + 1 - n);
					break;
				}
			}
		}
		uint8_t *p = page_alloc_raw(n);
		CHECK_EQ(p ? page_index(p) : -1, want);
		if (!p)
			continue;
		for (unsigned j = 0; j < n; j++)
			used[want + j] = true;
		hint = (uint64_t)want + n;
		live[nlive].at = want, live[nlive].n = n, nlive++;
	}
	for (unsigned k = 0; k < nlive; k++)
		page_free(pool() + live[k].at * PAGE_SIZE, live[k].n);
	CHECK_EQ(page_free_count(), POOL_PAGES);
}
