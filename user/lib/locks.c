/*
 * Locks for picolibc (_RETARGETABLE_LOCKING): malloc, atexit and the
 * time functions take __lock___libc_recursive_mutex; stdio streams made
 * with fdopen() get dynamic locks. All are the same recursive spinlock,
 * owned by the holder's TPIDR_EL0 (unique per thread: its TLS block).
 * A waiter yields its core, then sleeps (ful_backoff), so a holder
 * preempted on the same core runs, whatever its priority.
 *
 * These definitions must win over the stubs in picolibc's libc.a: the
 * Makefile links libfulcrum's objects directly, before -lc.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/lock.h>

#include <ful/ful.h>

#include "lib.h"

struct __lock {
	struct ful_spin s;
};

struct __lock __lock___libc_recursive_mutex;

static inline unsigned long self(void)
{
	unsigned long tp;
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
	return tp;
}

/* A waiter's waits yield: a holder of its own priority preempted on
 * its core runs at once, and one on another core is seen to release
 * the lock within a system call. YIELD never passes the core to a
 * thread of lower priority, though, so a waiter above a holder on the
 * same core would spin for ever (it did: lb_stress's mover at priority
 * 150 waited for the balancer lock its test thread held at 100). So
 * after BACKOFF_YIELDS waits, one wait in BACKOFF_EVERY sleeps
 * BACKOFF_SLEEP_US, which gives such a holder the core. The sleeps are
 * short and rare: a holder that waits for I/O elsewhere (B's lock while
 * B waits for D) is still seen to release within a yield or one sleep,
 * where sleeps doubling to 1 ms could add up to 1 ms. */
#define BACKOFF_YIELDS 64
#define BACKOFF_EVERY 16
#define BACKOFF_SLEEP_US 20

void ful_backoff(unsigned *n)
{
	unsigned k = *n;
	/* after the yields, *n cycles through [BACKOFF_YIELDS, +EVERY) */
	*n = k + 1 < BACKOFF_YIELDS + BACKOFF_EVERY ? k + 1 : BACKOFF_YIELDS;
	if (k == BACKOFF_YIELDS)
		ful_sleep_us(BACKOFF_SLEEP_US);
	else
		ful_yield();
}

/** Take @l, recursively if this thread holds it already. */
void ful_spin_lock(struct ful_spin *l)
{
	unsigned long me = self();
	if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
		l->depth++;
		return;
	}
	for (unsigned n = 0;;) {
		unsigned long free_ = 0;
		if (atomic_compare_exchange_weak_explicit(&l->owner, &free_, me,
							  memory_order_acquire,
							  memory_order_relaxed))
			break;
		ful_backoff(&n);
	}
	l->depth = 1;
}

/** Release one level of @l. */
void ful_spin_unlock(struct ful_spin *l)
{
	if (--l->depth == 0)
		atomic_store_explicit(&l->owner, 0, memory_order_release);
}

/** Try once to take @l; 1 on success. */
static int spin_try(struct ful_spin *l)
{
	unsigned long me = self(), free_ = 0;
	if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
		l->depth++;
		return 1;
	}
	if (!atomic_compare_exchange_strong_explicit(&l->owner, &free_, me,
						     memory_order_acquire,
						     memory_order_relaxed))
		return 0;
	l->depth = 1;
	return 1;
}

void __retarget_lock_init(_LOCK_T *lock)
{
	*lock = calloc(1, sizeof(struct __lock));
}

void __retarget_lock_init_recursive(_LOCK_T *lock)
{
	__retarget_lock_init(lock);
}

void __retarget_lock_close(_LOCK_T lock)
{
	if (lock != &__lock___libc_recursive_mutex)
		free(lock);
}

void __retarget_lock_close_recursive(_LOCK_T lock)
{
	__retarget_lock_close(lock);
}

void __retarget_lock_acquire(_LOCK_T lock)
{
	if (lock)
		ful_spin_lock(&lock->s);
}

void __retarget_lock_acquire_recursive(_LOCK_T lock)
{
	__retarget_lock_acquire(lock);
}

int __retarget_lock_try_acquire(_LOCK_T lock)
{
	return lock ? spin_try(&lock->s) : 1;
}

int __retarget_lock_try_acquire_recursive(_LOCK_T lock)
{
	return __retarget_lock_try_acquire(lock);
}

void __retarget_lock_release(_LOCK_T lock)
{
	if (lock)
		ful_spin_unlock(&lock->s);
}

void __retarget_lock_release_recursive(_LOCK_T lock)
{
	__retarget_lock_release(lock);
}
