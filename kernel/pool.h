/*
 * Memory pools: the budget every kernel object is charged to
 * (FUL_CAP_POOL). The unit is the byte, so that a 100-byte endpoint is
 * charged 100 bytes and not a page; a frame or a page table is charged
 * its pages times PAGE_SIZE. What each kind costs is in docs/objects.md
 * ("Kernel memory").
 *
 * Invariant: p->used is the sum of the charges of the live objects made
 * from @p (each keeps a reference to @p and credits its charge exactly
 * when it is destroyed) plus the charges of the calls in progress that
 * have charged and not yet made or undone their object. So
 * used <= limit, always.
 *
 * A pool is a reference-counted object (obj.h): its capabilities, every
 * object charged to it and every child pool hold a reference. A
 * creation (endpoint_create, frame_create, ..., pool_create) takes over
 * the reference its caller holds on the pool (the system call's
 * transient one from the capability lookup) when it succeeds, and
 * leaves it with the caller when it fails: no extra atomic on the
 * create path. The root
 * pool is static and never destroyed; a child pool (POOL_CREATE) is
 * charged sizeof(struct pool) plus its whole budget to its parent until
 * it is destroyed, which is only once nothing charged to it is left.
 */
#ifndef KERNEL_POOL_H
#define KERNEL_POOL_H

#include "kernel.h"
#include "obj.h"

#define POOL_MAX 64

struct pool {
	struct kobj obj;
	_Atomic uint64_t used; /* [A] bytes charged */
	uint64_t limit;        /* [I] bytes */
	struct pool *parent;   /* [I] charged for this pool; NULL: the root */
	bool in_use;           /* [pools_lock] table slot taken */
};

extern struct pool root_pool;

/** Set up the root pool with @limit bytes. Boot, once. */
void pool_init_root(uint64_t limit);

/** Charge @bytes to @p; false (nothing charged) if that would exceed
 *  its limit. Lock-free, any context. */
static inline bool pool_charge(struct pool *p, uint64_t bytes)
{
	uint64_t used = atomic_load_explicit(&p->used, memory_order_relaxed);
	do {
		if (bytes > p->limit - used)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(
		&p->used, &used, used + bytes, memory_order_relaxed,
		memory_order_relaxed));
	return true;
}

/** Give back @bytes charged to @p earlier. */
static inline void pool_credit(struct pool *p, uint64_t bytes)
{
	uint64_t old = atomic_fetch_sub_explicit(&p->used, bytes,
						 memory_order_relaxed);
	if (old < bytes)
		panic("pool: credit of %lu bytes, only %lu charged", bytes,
		      old);
}

/** The object charged @bytes to @p is destroyed: credit them and drop
 *  its reference. No lock held. */
static inline void pool_uncharge_obj(struct pool *p, uint64_t bytes)
{
	pool_credit(p, bytes);
	obj_put(&p->obj);
}

/** A child pool of @parent with @budget bytes, charged to @parent.
 *  0 (the child took over the caller's reference to @parent) or
 *  -FUL_ENOMEM (the parent's budget or the pool table). */
int pool_create(struct pool *parent, uint64_t budget, struct pool **out);

#endif
