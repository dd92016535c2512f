/*
 * Frame objects. A frame is created zeroed from the page allocator and
 * charged to a pool (its pages and its record, FRAME_CHARGE); it lives while anything refers to it (capabilities,
 * mappings, a thread's pinned IPC buffer) and is freed by the last
 * reference (obj.c).
 */
#include "frame.h"
#include "kernel.h"
#include "page.h"
#include "pool.h"
#include "spinlock.h"
#include <fulcrum/syscall.h>

static struct frame frames[FRAME_MAX];
static spinlock_t frames_lock = SPINLOCK_INIT; /* leaf: slot allocation */

/** A free slot of the frame table (refs == 0), claimed; or NULL. */
static struct frame *frame_slot_alloc(void)
{
	uint64_t flags = spin_lock_irqsave(&frames_lock);
	for (unsigned i = 0; i < FRAME_MAX; i++) {
		struct frame *f = &frames[i];
		if (!f->npages) {
			f->npages = ~0u; /* claimed until filled */
			spin_unlock_irqrestore(&frames_lock, flags);
			return f;
		}
	}
	spin_unlock_irqrestore(&frames_lock, flags);
	return NULL;
}

static void frame_slot_free(struct frame *f)
{
	uint64_t flags = spin_lock_irqsave(&frames_lock);
	f->npages = 0;
	spin_unlock_irqrestore(&frames_lock, flags);
}

int frame_create_unzeroed(struct pool *p, unsigned npages,
			  struct frame **out)
{
	if (npages == 0 || npages > FUL_FRAME_MAX_PAGES)
		return -FUL_ERANGE;
	if (!pool_charge(p, FRAME_CHARGE(npages)))
		return -FUL_ENOMEM;
	struct frame *f = frame_slot_alloc();
	void *mem = f ? page_alloc_raw(npages) : NULL;
	if (!mem) {
		if (f)
			frame_slot_free(f);
		pool_credit(p, FRAME_CHARGE(npages));
		return -FUL_ENOMEM;
	}
	obj_init(&f->obj, KOBJ_FRAME);
	f->kva = (uintptr_t)mem;
	f->kind = FRAME_RAM;
	f->pool = p;
	f->npages = npages;
	*out = f;
	return 0;
}

int frame_create(struct pool *p, unsigned npages, struct frame **out)
{
	int err = frame_create_unzeroed(p, npages, out);
	if (!err)
		memset((void *)(*out)->kva, 0, (size_t)npages * PAGE_SIZE);
	return err;
}

int frame_wrap(uintptr_t kva, unsigned npages, struct frame **out)
{
	struct frame *f = frame_slot_alloc();
	if (!f)
		return -FUL_ENOMEM;
	obj_init(&f->obj, KOBJ_FRAME);
	f->kva = kva;
	f->kind = FRAME_RAM;
	f->pool = NULL;
	f->npages = npages;
	*out = f;
	return 0;
}

void frame_destroy(struct kobj *o)
{
	struct frame *f = container_of(o, struct frame, obj);
	if (!f->pool)
		panic("frame_destroy: kernel memory frame %lx freed", f->kva);
	struct pool *p = f->pool;
	unsigned npages = f->npages;
	page_free((void *)f->kva, npages);
	frame_slot_free(f);
	pool_uncharge_obj(p, FRAME_CHARGE(npages));
}
