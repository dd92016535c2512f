/* Memory pools: the budget object creation draws on (FUL_CAP_POOL). */
#ifndef KERNEL_POOL_H
#define KERNEL_POOL_H

#include "types.h"

struct pool {
	_Atomic uint64_t used; /* pages charged */
	uint64_t limit;        /* [I] pages */
};

extern struct pool root_pool;

/** Charge @pages to @p; false if that would exceed its limit. */
static inline bool pool_charge(struct pool *p, uint64_t pages)
{
	uint64_t used = atomic_load_explicit(&p->used, memory_order_relaxed);
	do {
		if (used + pages > p->limit)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(
		&p->used, &used, used + pages, memory_order_relaxed,
		memory_order_relaxed));
	return true;
}

static inline void pool_credit(struct pool *p, uint64_t pages)
{
	atomic_fetch_sub_explicit(&p->used, pages, memory_order_relaxed);
}

#endif
