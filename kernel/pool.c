/*
 * Memory pools (pool.h): the root pool and the child pools that
 * POOL_CREATE carves out of a parent. Child pool records come from a
 * fixed table; a full table is an orderly -FUL_ENOMEM.
 */
#include "pool.h"
#include "spinlock.h"

struct pool root_pool;
static struct pool pools[POOL_MAX];
static spinlock_t pools_lock = SPINLOCK_INIT; /* leaf: slot allocation */

/* What a child pool costs its parent besides its budget. */
#define POOL_CHARGE(budget) (sizeof(struct pool) + (budget))

void pool_init_root(uint64_t limit)
{
	obj_init(&root_pool.obj, KOBJ_POOL); /* this reference is never dropped */
	atomic_store_explicit(&root_pool.used, 0, memory_order_relaxed);
	root_pool.limit = limit;
	root_pool.parent = NULL;
}

/** A free record of the pool table, claimed; or NULL. */
static struct pool *pool_slot_alloc(void)
{
	uint64_t flags = spin_lock_irqsave(&pools_lock);
	for (unsigned i = 0; i < POOL_MAX; i++) {
		if (!pools[i].in_use) {
			pools[i].in_use = true;
			spin_unlock_irqrestore(&pools_lock, flags);
			return &pools[i];
		}
	}
	spin_unlock_irqrestore(&pools_lock, flags);
	return NULL;
}

static void pool_slot_free(struct pool *p)
{
	uint64_t flags = spin_lock_irqsave(&pools_lock);
	p->in_use = false;
	spin_unlock_irqrestore(&pools_lock, flags);
}

int pool_create(struct pool *parent, uint64_t budget, struct pool **out)
{
	if (budget > parent->limit ||
	    !pool_charge(parent, POOL_CHARGE(budget)))
		return -FUL_ENOMEM;
	struct pool *p = pool_slot_alloc();
	if (!p) {
		pool_credit(parent, POOL_CHARGE(budget));
		return -FUL_ENOMEM;
	}
	obj_init(&p->obj, KOBJ_POOL);
	atomic_store_explicit(&p->used, 0, memory_order_relaxed);
	p->limit = budget;
	p->parent = parent;
	*out = p;
	return 0;
}

/**
 * The last reference is gone: no capability names @o and nothing charged
 * to it is left, so its whole budget goes back to its parent. Called by
 * the reaper (obj.c), no lock held.
 */
void pool_destroy(struct kobj *o)
{
	struct pool *p = container_of(o, struct pool, obj);
	uint64_t used = atomic_load_explicit(&p->used, memory_order_relaxed);
	if (!p->parent || used)
		panic("pool_destroy: %s pool with %lu bytes charged",
		      p->parent ? "child" : "root", used);
	struct pool *parent = p->parent;
	uint64_t charge = POOL_CHARGE(p->limit);
	pool_slot_free(p);
	pool_uncharge_obj(parent, charge);
}
