/* Spinlocks: test-and-test-and-set, IRQ-saving, `yield` while spinning. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "arch.h"

typedef struct {
	_Atomic uint32_t locked;
} spinlock_t;

#define SPINLOCK_INIT {0}

static inline void spin_lock_raw(spinlock_t *l)
{
	while (atomic_exchange_explicit(&l->locked, 1, memory_order_acquire)) {
		while (atomic_load_explicit(&l->locked, memory_order_relaxed))
			arch_cpu_relax();
	}
}

static inline void spin_unlock_raw(spinlock_t *l)
{
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

/** Take @l with IRQs masked; returns the IRQ state to give back. */
static inline uint64_t spin_lock_irqsave(spinlock_t *l)
{
	uint64_t flags = arch_irq_save();
	spin_lock_raw(l);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, uint64_t flags)
{
	spin_unlock_raw(l);
	arch_irq_restore(flags);
}

#endif
