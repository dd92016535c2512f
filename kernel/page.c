/* Bitmap page allocator. One lock; allocation is rare (thread stacks,
 * page tables), so simplicity beats speed here. */
#include "page.h"
#include "spinlock.h"

static spinlock_t page_lock = SPINLOCK_INIT;
static uint64_t *bitmap; /* bit set = page in use */
static uintptr_t pool_base;
static uint64_t npages, nfree, hint;

/** Mark pages @i..@i+@n-1 used or free: whole words at once where the
 *  range covers them (a 16 MiB frame is 64 stores, not 4,096 bit ops:
 *  this runs with IRQs masked). */
static void page_mark(uint64_t i, unsigned n, bool used)
{
	uint64_t end = i + n;
	for (uint64_t k = i; k < end;) {
		if (k % 64 == 0 && k + 64 <= end) {
			bitmap[k / 64] = used ? ~0ull : 0;
			k += 64;
			continue;
		}
		if (used)
			bitmap[k / 64] |= 1ull << (k % 64);
		else
			bitmap[k / 64] &= ~(1ull << (k % 64));
		k++;
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

/** First fit from @from; returns the first page index or npages. A
 *  word-aligned run of 64 pages is taken or skipped whole (all used: the
 *  run restarts; all free: it grows by 64), the rest bit by bit, so a
 *  search over a mostly full or mostly free map costs a load per 64
 *  pages (it runs with IRQs masked). */
static uint64_t page_find(uint64_t from, unsigned n)
{
	uint64_t run = 0; /* free pages just below i */
	for (uint64_t i = from; i < npages;) {
		uint64_t w = bitmap[i / 64];
		if (i % 64 == 0 && i + 64 <= npages && (w == 0 || w == ~0ull)) {
			if (w == ~0ull)
				run = 0;
			else if (run + 64 >= n)
				return i - run; /* the run reaches n in this word */
			else
				run += 64;
			i += 64;
			continue;
		}
		run = (w >> (i % 64) & 1) ? 0 : run + 1;
		if (run == n)
			return i + 1 - n;
		i++;
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
