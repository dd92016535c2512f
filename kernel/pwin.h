/*
 * Page windows (pwin.c): a run of page slots, each empty or naming one
 * page of a frame, that one task maps like a frame. Whoever holds the
 * window capability with ADMIN fills and empties slots; every change
 * shows at once in the task that maps the window, without a capability
 * to that task's address space. This is how F, the file server, puts B's
 * cache lines into a client's OMF window (paper 002 II.D): zero copy,
 * and F never holds the client's vspace.
 *
 * Lock order: a window's lock before the mapping vspace's lock
 * (vspace.h). The back pointer to the mapping vspace is weak: the vspace
 * clears it when it unmaps the window or is destroyed.
 */
#ifndef KERNEL_PWIN_H
#define KERNEL_PWIN_H

#include "obj.h"
#include "page.h"
#include "spinlock.h"

#define PWIN_MAX 64
/* What a window costs its pool: its record and its page of slots. */
#define PWIN_CHARGE (PAGE_SIZE + sizeof(struct pwin))

struct frame;
struct pool;
struct vspace;

struct pwin_slot {
	struct frame *f; /* holds a reference; NULL: empty */
	uint32_t page;   /* page of f */
	uint8_t rights;  /* FUL_R_READ, maybe FUL_R_WRITE */
};

struct pwin {
	struct kobj obj;
	spinlock_t lock;        /* guards slot, vs, va; before vs->lock */
	uint32_t npages;        /* [I] 1..FUL_PWIN_MAX_PAGES; 0: free entry */
	struct pool *pool;      /* [I] charged PWIN_CHARGE */
	struct pwin_slot *slot; /* [lock] npages of them (one page) */
	struct vspace *vs;      /* [lock] the task mapping it, or NULL */
	uintptr_t va;           /* [lock] where, if vs */
};

/** An empty window of @npages charged to @p; takes over the caller's
 *  reference to @p. -FUL_ERANGE, -FUL_ENOMEM. */
int pwin_create(struct pool *p, unsigned npages, struct pwin **out);
/** Put page @page of @f (NULL: empty the slot) in slot @i with @rights,
 *  and into the mapping task at once. -FUL_ERANGE (slot or page out of
 *  range), -FUL_ENOMEM (the task's pool cannot pay for a table page:
 *  nothing changed). Takes w->lock, then the vspace's. */
int pwin_set(struct pwin *w, unsigned i, struct frame *f, unsigned page,
	     unsigned rights);
/** @vs no longer maps @w at @va (unmap, vspace destroy). Takes w->lock. */
void pwin_detach(struct pwin *w, struct vspace *vs, uintptr_t va);

#endif
