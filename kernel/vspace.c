/*
 * Address-space objects: creation, mapping frames, translating user
 * pointers for the kernel, destruction. User memory is only ever reached
 * through vspace_lookup_page() and the kernel's linear map, so the kernel
 * never dereferences a user pointer and never faults on one.
 *
 * Charging: a vspace costs its pool VSPACE_CHARGE (its record, the
 * capability table and the mapping records) plus one page per
 * translation table it holds, root included. A MAP charges the table
 * pages it will allocate before it touches anything, so a MAP the pool
 * cannot pay for fails with -FUL_ENOMEM and changes nothing. Invariant:
 * the pool holds VSPACE_CHARGE + arch_vspace_tables() pages for @vs
 * (outside a MAP in progress, under vs->lock), all credited on destroy.
 */
#include "vspace.h"
#include "frame.h"
#include "kernel.h"
#include "page.h"
#include "percpu.h"
#include "pool.h"
#include "pwin.h"

static struct vspace vspaces[VSPACE_MAX];
static spinlock_t vspaces_lock = SPINLOCK_INIT; /* leaf: slot allocation */
static bool vspace_used[VSPACE_MAX];            /* [vspaces_lock] */

#define SLOTS_PAGES ((FUL_CSLOTS * sizeof(struct cap) + PAGE_SIZE - 1) / PAGE_SIZE)
#define MAPS_PAGES ((VS_MAPPINGS * sizeof(struct mapping) + PAGE_SIZE - 1) / PAGE_SIZE)

const uint64_t vspace_charge =
	sizeof(struct vspace) + (SLOTS_PAGES + MAPS_PAGES) * PAGE_SIZE;

/** What @vs costs its pool now: its fixed part and its tables. */
static uint64_t vspace_charged(struct vspace *vs)
{
	return vspace_charge +
	       (uint64_t)arch_vspace_tables(&vs->arch) * PAGE_SIZE;
}

static struct vspace *vspace_slot_alloc(void)
{
	uint64_t flags = spin_lock_irqsave(&vspaces_lock);
	for (unsigned i = 0; i < VSPACE_MAX; i++) {
		if (!vspace_used[i]) {
			vspace_used[i] = true;
			spin_unlock_irqrestore(&vspaces_lock, flags);
			vspaces[i].id = i;
			return &vspaces[i];
		}
	}
	spin_unlock_irqrestore(&vspaces_lock, flags);
	return NULL;
}

static void vspace_slot_free(struct vspace *vs)
{
	uint64_t flags = spin_lock_irqsave(&vspaces_lock);
	vspace_used[vs->id] = false;
	spin_unlock_irqrestore(&vspaces_lock, flags);
}

int vspace_create(struct pool *p, struct vspace **out)
{
	/* The fixed part and the root table, charged first. */
	uint64_t charge = vspace_charge + PAGE_SIZE;
	if (!pool_charge(p, charge))
		return -FUL_ENOMEM;
	struct vspace *vs = vspace_slot_alloc();
	if (!vs) {
		pool_credit(p, charge);
		return -FUL_ENOMEM;
	}
	vs->slots = page_alloc(SLOTS_PAGES);
	vs->maps = page_alloc(MAPS_PAGES);
	if (!vs->slots || !vs->maps ||
	    arch_vspace_init(&vs->arch, vs->id + 1) != 0) {
		if (vs->slots)
			page_free(vs->slots, SLOTS_PAGES);
		if (vs->maps)
			page_free(vs->maps, MAPS_PAGES);
		vspace_slot_free(vs);
		pool_credit(p, charge);
		return -FUL_ENOMEM;
	}
	vs->pool = p;
	vs->lock = (spinlock_t)SPINLOCK_INIT;
	obj_init(&vs->obj, KOBJ_VSPACE);
	*out = vs;
	return 0;
}

/** Unmap the pages of mapping @m. vspace lock held. */
static void mapping_remove(struct vspace *vs, struct mapping *m)
{
	arch_vspace_unmap_range(&vs->arch, m->va, m->npages);
	m->va = 0;
}

void vspace_destroy(struct kobj *o)
{
	struct vspace *vs = container_of(o, struct vspace, obj);
	/* Nothing refers to vs any more: no lock needed, and no core has it
	 * active (its threads are gone, and a core drops it on switch).
	 * Windows let go of it first: a pwin_set() that still sees vs holds
	 * the window's lock, so detaching waits for it (pwin.c). */
	struct kobj *drop[VS_MAPPINGS];
	unsigned n = 0;
	for (unsigned i = 0; i < VS_MAPPINGS; i++) {
		struct mapping *m = &vs->maps[i];
		if (!m->va)
			continue;
		if (m->win)
			pwin_detach(m->win, vs, m->va);
		drop[n++] = m->win ? &m->win->obj : &m->frame->obj;
	}
	struct pool *p = vs->pool;
	uint64_t charge = vspace_charged(vs);
	arch_vspace_destroy(&vs->arch);
	cap_table_clear(vs->slots);
	page_free(vs->slots, SLOTS_PAGES);
	page_free(vs->maps, MAPS_PAGES);
	vspace_slot_free(vs);
	pool_uncharge_obj(p, charge);
	for (unsigned i = 0; i < n; i++)
		obj_put(drop[i]);
}

/** Does [va, va + len) overlap an existing mapping? vspace lock held. */
static bool vspace_overlaps(struct vspace *vs, uintptr_t va, uint64_t len)
{
	for (unsigned i = 0; i < VS_MAPPINGS; i++) {
		struct mapping *m = &vs->maps[i];
		if (m->va && va < m->va + (uint64_t)m->npages * PAGE_SIZE &&
		    m->va < va + len)
			return true;
	}
	return false;
}

static struct mapping *vspace_free_record(struct vspace *vs)
{
	for (unsigned i = 0; i < VS_MAPPINGS; i++)
		if (!vs->maps[i].va)
			return &vs->maps[i];
	return NULL;
}

/**
 * Charge @vs's pool for the table pages a map of @npages at @va will
 * allocate; their number, or -FUL_ENOMEM (nothing charged). vs->lock
 * held: nothing else allocates tables meanwhile. Usually 0: one walk.
 */
static int vspace_charge_tables(struct vspace *vs, uintptr_t va,
				uint32_t npages)
{
	unsigned need = arch_vspace_tables_needed(&vs->arch, va, npages);
	if (need && !pool_charge(vs->pool, (uint64_t)need * PAGE_SIZE))
		return -FUL_ENOMEM;
	return (int)need;
}

/** After a map charged @need table pages and the table count went from
 *  @before to what it is now, give back what RAM did not provide (the
 *  map failed on the page allocator). vs->lock held. */
static void vspace_settle_tables(struct vspace *vs, unsigned before,
				 unsigned need)
{
	unsigned made = arch_vspace_tables(&vs->arch) - before;
	if (made > need)
		panic("vspace_map: %u table pages made, %u charged", made,
		      need);
	if (made < need)
		pool_credit(vs->pool, (uint64_t)(need - made) * PAGE_SIZE);
}

int vspace_map(struct vspace *vs, struct frame *f, uintptr_t va,
	       unsigned rights)
{
	uint64_t len = (uint64_t)f->npages * PAGE_SIZE;
	if ((va & (PAGE_SIZE - 1)) || va < FUL_USER_MIN ||
	    va > FUL_USER_MAX - len || !(rights & FUL_R_READ) ||
	    (rights & ~(FUL_R_READ | FUL_R_WRITE | FUL_R_EXEC)))
		return -FUL_EINVAL;
	unsigned arights = rights |
			   (f->kind == FRAME_DEVICE ? ARCH_MAP_DEVICE : 0);
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	struct mapping *m = vspace_free_record(vs);
	int err = vspace_overlaps(vs, va, len) ? -FUL_ESTATE
		  : !m			       ? -FUL_ENOMEM
						       : 0;
	int need = err ? 0 : vspace_charge_tables(vs, va, f->npages);
	unsigned before = arch_vspace_tables(&vs->arch);
	if (need < 0)
		err = need;
	if (!err) {
		uint64_t done;
		err = arch_vspace_map_range(&vs->arch, va, f->kva, f->npages,
					    arights, &done);
		if (err) /* undo the pages mapped so far */
			arch_vspace_unmap_range(&vs->arch, va, done);
	}
	if (need > 0)
		vspace_settle_tables(vs, before, (unsigned)need);
	if (!err) {
		*m = (struct mapping){va, f, NULL, f->npages, (uint8_t)rights};
		obj_get(&f->obj);
	}
	spin_unlock_irqrestore(&vs->lock, flags);
	return err;
}

/** Map page @kva at @va, charging the table pages it needs. vs->lock
 *  held; @va unmapped. 0 or -FUL_ENOMEM (nothing changed). */
static int vspace_map_page(struct vspace *vs, uintptr_t va, uintptr_t kva,
			   unsigned rights)
{
	int need = vspace_charge_tables(vs, va, 1);
	if (need < 0)
		return need;
	unsigned before = arch_vspace_tables(&vs->arch);
	int err = arch_vspace_map(&vs->arch, va, kva, rights);
	if (need > 0)
		vspace_settle_tables(vs, before, (unsigned)need);
	return err;
}

int vspace_map_pwin(struct vspace *vs, struct pwin *w, uintptr_t va,
		    unsigned rights)
{
	uint64_t len = (uint64_t)w->npages * PAGE_SIZE;
	if ((va & (PAGE_SIZE - 1)) || va < FUL_USER_MIN ||
	    va > FUL_USER_MAX - len || !(rights & FUL_R_READ) ||
	    (rights & ~(FUL_R_READ | FUL_R_WRITE)))
		return -FUL_EINVAL;
	uint64_t flags = spin_lock_irqsave(&w->lock);
	spin_lock_raw(&vs->lock);
	struct mapping *m = vspace_free_record(vs);
	int err = w->vs || vspace_overlaps(vs, va, len) ? -FUL_ESTATE
		  : !m					 ? -FUL_ENOMEM
							 : 0;
	uint32_t i;
	for (i = 0; !err && i < w->npages; i++) {
		struct pwin_slot *s = &w->slot[i];
		if (s->f)
			err = vspace_map_page(vs, va + i * PAGE_SIZE,
					      s->f->kva + s->page * PAGE_SIZE,
					      s->rights & rights);
	}
	if (err) /* undo the pages mapped so far (an empty one: no-op) */
		while (i--)
			arch_vspace_unmap(&vs->arch, va + i * PAGE_SIZE);
	if (!err) {
		*m = (struct mapping){va, NULL, w, w->npages, (uint8_t)rights};
		obj_get(&w->obj);
		w->vs = vs;
		w->va = va;
	}
	spin_unlock_raw(&vs->lock);
	spin_unlock_irqrestore(&w->lock, flags);
	return err;
}

int vspace_pwin_update(struct vspace *vs, struct pwin *w, uintptr_t va,
		       unsigned i, uintptr_t kva, unsigned rights)
{
	spin_lock_raw(&vs->lock); /* IRQs masked by w->lock */
	struct mapping *m = NULL;
	for (unsigned k = 0; k < VS_MAPPINGS && !m; k++)
		if (vs->maps[k].va == va && vs->maps[k].win == w)
			m = &vs->maps[k];
	uintptr_t at = va + (uintptr_t)i * PAGE_SIZE;
	/* the tables first: a failed charge leaves the old page in place */
	int need = m && kva ? vspace_charge_tables(vs, at, 1) : 0;
	int err = need < 0 ? need : 0;
	if (m && !err) {
		unsigned before = arch_vspace_tables(&vs->arch);
		arch_vspace_unmap(&vs->arch, at);
		/* out of RAM here leaves the slot's page unmapped */
		if (kva)
			err = arch_vspace_map(&vs->arch, at, kva,
					      rights & m->rights);
		if (need > 0)
			vspace_settle_tables(vs, before, (unsigned)need);
	}
	spin_unlock_raw(&vs->lock);
	return err;
}

int vspace_unmap(struct vspace *vs, uintptr_t va)
{
	if ((va & (PAGE_SIZE - 1)) || va < FUL_USER_MIN || va >= FUL_USER_MAX)
		return -FUL_EINVAL;
	struct kobj *o = NULL;
	struct pwin *w = NULL;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	for (unsigned i = 0; va && i < VS_MAPPINGS; i++) {
		struct mapping *m = &vs->maps[i];
		if (m->va == va) {
			w = m->win;
			o = w ? &w->obj : &m->frame->obj;
			mapping_remove(vs, m);
			break;
		}
	}
	spin_unlock_irqrestore(&vs->lock, flags);
	if (!o)
		return -FUL_ESTATE;
	if (w) /* a pwin_set meanwhile found no mapping: it changed nothing */
		pwin_detach(w, vs, va);
	obj_put(o);
	return 0;
}

/** Kernel address of user @uva if its page is mapped with @rights, else
 *  0. vspace lock held. */
static uintptr_t vspace_lookup_page(struct vspace *vs, uint64_t uva,
				    unsigned rights)
{
	if (uva < FUL_USER_MIN || uva >= FUL_USER_MAX)
		return 0;
	unsigned have;
	uintptr_t kva = arch_vspace_lookup(&vs->arch, uva & ~(PAGE_SIZE - 1),
					   &have);
	if (!kva || (have & rights) != rights)
		return 0;
	return kva + (uva & (PAGE_SIZE - 1));
}

/** Is every byte of [uva, uva + len) mapped with @rights? Lock held. */
static bool vspace_range_ok(struct vspace *vs, uint64_t uva, size_t len,
			    unsigned rights)
{
	if (uva + len < uva)
		return false;
	if (!len)
		return true;
	for (uint64_t p = uva & ~(PAGE_SIZE - 1); p < uva + len; p += PAGE_SIZE)
		if (!vspace_lookup_page(vs, p, rights))
			return false;
	return true;
}

/** Copy @len bytes between user @uva and kernel @k through @p, the
 *  kernel address of @uva (its page holds all of them). */
static void copy_one_page(uintptr_t p, void *k, size_t len, bool out)
{
	if (out)
		memcpy((void *)p, k, len);
	else
		memcpy(k, (const void *)p, len);
}

/** Copy between user @uva and kernel @k, page by page, all or nothing:
 *  a call that fails leaves user memory untouched. Every page must be
 *  mapped with @need. Within one page (most calls: a record, a name)
 *  one lookup both checks and translates; across pages every page is
 *  checked first. */
static int vspace_copy(struct vspace *vs, uint64_t uva, void *k, size_t len,
		       unsigned need, bool out)
{
	int err = 0;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	if (len && (uva & (PAGE_SIZE - 1)) + len <= PAGE_SIZE) {
		uintptr_t p = vspace_lookup_page(vs, uva, need);
		if (p)
			copy_one_page(p, k, len, out);
		else
			err = -FUL_EFAULT;
	} else if (!vspace_range_ok(vs, uva, len, need)) {
		err = -FUL_EFAULT;
	} else {
		for (char *kp = k; len;) {
			size_t chunk = PAGE_SIZE - (uva & (PAGE_SIZE - 1));
			chunk = chunk > len ? len : chunk;
			copy_one_page(vspace_lookup_page(vs, uva, need), kp,
				      chunk, out);
			uva += chunk;
			kp += chunk;
			len -= chunk;
		}
	}
	spin_unlock_irqrestore(&vs->lock, flags);
	return err;
}

int vspace_check(struct vspace *vs, uint64_t uva, size_t len,
		 unsigned rights)
{
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	bool ok = vspace_range_ok(vs, uva, len, rights);
	spin_unlock_irqrestore(&vs->lock, flags);
	return ok ? 0 : -FUL_EFAULT;
}

int vspace_copy_in(struct vspace *vs, void *dst, uint64_t uva, size_t len)
{
	return vspace_copy(vs, uva, dst, len, FUL_R_READ, false);
}

int vspace_copy_in_rw(struct vspace *vs, void *dst, uint64_t uva, size_t len)
{
	return vspace_copy(vs, uva, dst, len, FUL_R_READ | FUL_R_WRITE, false);
}

int vspace_copy_out(struct vspace *vs, uint64_t uva, const void *src,
		    size_t len)
{
	return vspace_copy(vs, uva, (void *)src, len, FUL_R_WRITE, true);
}

struct frame *vspace_pin(struct vspace *vs, uint64_t va, unsigned rights,
			 uintptr_t *kva)
{
	struct frame *f = NULL;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	uintptr_t p = vspace_lookup_page(vs, va, rights);
	for (unsigned i = 0; p && i < VS_MAPPINGS; i++) {
		struct mapping *m = &vs->maps[i];
		if (m->va && va >= m->va &&
		    va < m->va + (uint64_t)m->npages * PAGE_SIZE) {
			if (!m->frame) /* a window's page: not pinned */
				break;
			f = m->frame;
			obj_get(&f->obj);
			*kva = p;
			break;
		}
	}
	spin_unlock_irqrestore(&vs->lock, flags);
	return f;
}

void vspace_switch(struct vspace *vs)
{
	struct cpu *c = this_cpu();
	if (c->vs_active == vs)
		return;
	c->vs_active = vs;
	arch_vspace_activate(vs ? &vs->arch : NULL);
}
