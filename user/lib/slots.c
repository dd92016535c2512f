/*
 * A bitmap of this task's free capability slots. The rootserver starts it
 * at bootinfo->first_free_slot; other tasks at FUL_CHILD_FIRST_FREE.
 */
#include <ful/ful.h>

#include "lib.h"

#define WORDS (FUL_CSLOTS / 64)

static struct ful_spin lock;
static unsigned long used[WORDS]; /* bit set: slot taken */
static int ready;

/** Mark [0, first) used and the rest free. Caller holds the lock. */
static void init_locked(unsigned first)
{
	for (unsigned i = 0; i < FUL_CSLOTS; i++) {
		unsigned long bit = 1UL << (i % 64);
		if (i < first || i == 0)
			used[i / 64] |= bit;
		else
			used[i / 64] &= ~bit;
	}
	ready = 1;
}

void ful_slot_init(unsigned first)
{
	ful_spin_lock(&lock);
	init_locked(first);
	ful_spin_unlock(&lock);
}

/** Lowest free slot, marked used; -FUL_ENOMEM if none. */
long ful_slot_alloc(void)
{
	long slot = -FUL_ENOMEM;
	ful_spin_lock(&lock);
	if (!ready)
		init_locked(FUL_CHILD_FIRST_FREE);
	for (unsigned w = 0; w < WORDS; w++) {
		if (~used[w]) {
			unsigned b = (unsigned)__builtin_ctzl(~used[w]);
			used[w] |= 1UL << b;
			slot = w * 64 + b;
			break;
		}
	}
	ful_spin_unlock(&lock);
	return slot;
}

void ful_slot_free(unsigned slot)
{
	if (slot == 0 || slot >= FUL_CSLOTS)
		return;
	ful_spin_lock(&lock);
	used[slot / 64] &= ~(1UL << (slot % 64));
	ful_spin_unlock(&lock);
}

void ful_slot_drop(unsigned slot)
{
	ful_cap_delete(slot);
	ful_slot_free(slot);
}
