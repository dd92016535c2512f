/* Physical page allocator (portable, host-tested): a bitmap over the
 * free RAM after the kernel image, first fit for runs of pages. */
#ifndef KERNEL_PAGE_H
#define KERNEL_PAGE_H

#include "types.h"

#define PAGE_SIZE 4096
#define PAGE_MAX_PAGES (1u << 20) /* 4 GiB of RAM */

/** Manage [base, base + size) (kernel virtual addresses, page aligned).
 *  The bitmap itself is carved from the start of the region. */
void page_init(uintptr_t base, uint64_t size);
/** @n contiguous zeroed pages, or NULL. Any core, any context. */
void *page_alloc(unsigned n);
/** page_alloc() without the zeroing: the caller zeroes before anyone
 *  else can see the pages. */
void *page_alloc_raw(unsigned n);
/** Give back @n pages at @p, as returned by page_alloc(@n). */
void page_free(void *p, unsigned n);
uint64_t page_free_count(void);

#endif
