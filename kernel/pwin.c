/*
 * Page-window objects (pwin.h): creation, slots, destruction. The task
 * that maps a window sees each slot change at once: pwin_set() holds the
 * window's lock and updates the mapping vspace under its lock
 * (vspace_pwin_update). A vspace being destroyed detaches from its
 * windows (pwin_detach) before it tears its tables down, so a window
 * that still points at a vspace while holding its lock points at a
 * live one.
 */
#include "pwin.h"
#include "frame.h"
#include "kernel.h"
#include "pool.h"
#include "vspace.h"
#include <fulcrum/syscall.h>

static struct pwin pwins[PWIN_MAX];
static spinlock_t pwins_lock = SPINLOCK_INIT; /* leaf: entry allocation */

/** A free entry of the window table, claimed; or NULL. */
static struct pwin *pwin_entry_alloc(void)
{
	uint64_t flags = spin_lock_irqsave(&pwins_lock);
	for (unsigned i = 0; i < PWIN_MAX; i++) {
		if (!pwins[i].npages) {
			pwins[i].npages = ~0u; /* claimed until filled */
			spin_unlock_irqrestore(&pwins_lock, flags);
			return &pwins[i];
		}
	}
	spin_unlock_irqrestore(&pwins_lock, flags);
	return NULL;
}

static void pwin_entry_free(struct pwin *w)
{
	uint64_t flags = spin_lock_irqsave(&pwins_lock);
	w->npages = 0;
	spin_unlock_irqrestore(&pwins_lock, flags);
}

int pwin_create(struct pool *p, unsigned npages, struct pwin **out)
{
	_Static_assert(FUL_PWIN_MAX_PAGES * sizeof(struct pwin_slot) <= PAGE_SIZE,
		       "a window's slots fill at most one page");
	if (npages == 0 || npages > FUL_PWIN_MAX_PAGES)
		return -FUL_ERANGE;
	if (!pool_charge(p, PWIN_CHARGE))
		return -FUL_ENOMEM;
	struct pwin *w = pwin_entry_alloc();
	struct pwin_slot *s = w ? page_alloc(1) : NULL; /* zeroed: empty */
	if (!s) {
		if (w)
			pwin_entry_free(w);
		pool_credit(p, PWIN_CHARGE);
		return -FUL_ENOMEM;
	}
	obj_init(&w->obj, KOBJ_PWIN);
	w->lock = (spinlock_t)SPINLOCK_INIT;
	w->pool = p;
	w->slot = s;
	w->vs = NULL;
	w->va = 0;
	w->npages = npages;
	*out = w;
	return 0;
}

void pwin_destroy(struct kobj *o)
{
	struct pwin *w = container_of(o, struct pwin, obj);
	/* No mapping holds it (a mapping holds a reference), so no lock. */
	if (w->vs)
		panic("pwin_destroy: still mapped at %lx", w->va);
	for (unsigned i = 0; i < w->npages; i++)
		if (w->slot[i].f)
			obj_put(&w->slot[i].f->obj);
	struct pool *p = w->pool;
	page_free(w->slot, 1);
	pwin_entry_free(w);
	pool_uncharge_obj(p, PWIN_CHARGE);
}

int pwin_set(struct pwin *w, unsigned i, struct frame *f, unsigned page,
	     unsigned rights)
{
	if (i >= w->npages || (f && page >= f->npages))
		return -FUL_ERANGE;
	uintptr_t kva = f ? f->kva + (uintptr_t)page * PAGE_SIZE : 0;
	uint64_t flags = spin_lock_irqsave(&w->lock);
	int err = w->vs ? vspace_pwin_update(w->vs, w, w->va, i, kva, rights)
			: 0;
	struct frame *old = NULL;
	if (!err) {
		old = w->slot[i].f;
		if (f)
			obj_get(&f->obj);
		w->slot[i] = (struct pwin_slot){f, page, (uint8_t)rights};
	}
	spin_unlock_irqrestore(&w->lock, flags);
	if (old)
		obj_put(&old->obj);
	return err;
}

void pwin_detach(struct pwin *w, struct vspace *vs, uintptr_t va)
{
	uint64_t flags = spin_lock_irqsave(&w->lock);
	if (w->vs == vs && w->va == va)
		w->vs = NULL;
	spin_unlock_irqrestore(&w->lock, flags);
}
