/* Bitmap page allocator. One lock; allocation is rare (thread stacks,
 * page tables), so simplicity beats speed here. */
#include "page.h"
#include "spinlock.h"

static spinlock_t page_lock = SPINLOCK_INIT;
static uint64_t *bitmap; /* bit set = page in use */
static uintptr_t pool_base;
static uint64_t npages, nfree, hint;

static bool page_used(uint64_t i)
{
	return bitmap[i / 64] >> (i % 64) & 1;
}

static void page_mark(uint64_t i, unsigned n, bool used)
{
	for (uint64_t k = i; k < i + n; k++) {
		if (used)
			bitmap[k / 64] |= 1ull << (k % 64);
		else
			bitmap[k / 64] &= ~(1ull << (k % 64));
	}
}

void page_init(uintptr_t base, uint64_t size)
{
	uint64_t total = size / PAGE_SIZE;
	if (total > PAGE_MAX_PAGES)
		total = PAGE_MAX_PAGES;
	uint64_t map_bytes = ALIGN_UP((total + 7) / 8, PAGE_SIZE);
	bitmap = (uint64_t *)base;
	for (uint64_t i = 0; i < map_bytes / 8; i++)
		bitmap[i] = 0;
	pool_base = base + map_bytes;
	npages = total - map_bytes / PAGE_SIZE;
	nfree = npages;
	hint = 0;
}

/** First fit from @from; returns the first page index or npages. */
static uint64_t page_find(uint64_t from, unsigned n)
{
	uint64_t run = 0;
	for (uint64_t i = from; i < npages; i++) {
		run = page_used(i) ? 0 : run + 1;
		if (run == n)
			return i + 1 - n;
	}
	return npages;
}

void *page_alloc(unsigned n)
{
	void *p = page_alloc_raw(n);
	if (p)
		__builtin_memset(p, 0, (size_t)n * PAGE_SIZE);
	return p;
}

void *page_alloc_raw(unsigned n)
{
	if (n == 0)
		return NULL;
	uint64_t flags = spin_lock_irqsave(&page_lock);
	uint64_t i = page_find(hint, n);
	if (i == npages)
		i = page_find(0, n);
	void *p = NULL;
	if (i < npages) {
		page_mark(i, n, true);
		nfree -= n;
		hint = i + n;
		p = (void *)(pool_base + i * PAGE_SIZE);
	}
	spin_unlock_irqrestore(&page_lock, flags);
	return p;
}

void page_free(void *p, unsigned n)
{
	uint64_t i = ((uintptr_t)p - pool_base) / PAGE_SIZE;
	uint64_t flags = spin_lock_irqsave(&page_lock);
	page_mark(i, n, false);
	nfree += n;
	if (i < hint)
		hint = i;
	spin_unlock_irqrestore(&page_lock, flags);
}

uint64_t page_free_count(void)
{
	return nfree;
}
