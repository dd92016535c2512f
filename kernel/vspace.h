/*
 * Address spaces (vspace.c). A vspace is a task: user translation tables
 * (with an ASID), the frames mapped into them, and the task's capability
 * table. One lock guards all three. Threads of the task, capabilities to
 * it and transient holds keep it alive (obj.h).
 */
#ifndef KERNEL_VSPACE_H
#define KERNEL_VSPACE_H

#include "arch.h"
#include "cap.h"
#include "obj.h"
#include "spinlock.h"

#define VSPACE_MAX 128
#define VS_MAPPINGS 128

struct frame;
struct pool;
struct pwin;

struct mapping {
	uintptr_t va;        /* 0: unused */
	struct frame *frame; /* holds a reference; or NULL and: */
	struct pwin *win;    /* a page window, holding a reference */
	uint32_t npages;
	uint8_t rights;
};

struct vspace {
	struct kobj obj;
	spinlock_t lock;          /* guards arch, maps, slots; a leaf lock */
	struct arch_vspace arch;  /* [lock] */
	struct mapping *maps;     /* [lock] VS_MAPPINGS records */
	struct cap *slots;        /* [lock] FUL_CSLOTS capabilities */
	_Atomic uint32_t cap_seq; /* [lock] odd while a slot is written: the
				   * fastpath reads slots without the lock
				   * (cap_read_unlocked) */
	unsigned id;              /* [I] index; ASID = id + 1 */
	struct pool *pool;        /* [I] charged vspace_charge + a page per
				   * table; tables of a MAP charged here */
};

/** Bytes a vspace costs its pool besides its table pages. */
extern const uint64_t vspace_charge;

/** A new empty task charged to @p. -FUL_ENOMEM if the pool's budget, the
 *  vspace table or RAM is exhausted. On success it takes over the
 *  caller's reference to @p (pool.h). */
int vspace_create(struct pool *p, struct vspace **out);
/** Map all of @f at @va with @rights. -FUL_EINVAL (alignment, range,
 *  rights without READ), -FUL_ESTATE (overlaps a mapping), -FUL_ENOMEM
 *  (no mapping record left, or the vspace's pool cannot pay for the
 *  table pages the map needs: then nothing changed). */
int vspace_map(struct vspace *vs, struct frame *f, uintptr_t va,
	       unsigned rights);
/** Map page window @w at @va with @rights (its filled slots now, the
 *  others as pwin_set fills them). Errors as vspace_map, and
 *  -FUL_ESTATE if another task maps @w. Takes w->lock, then vs->lock. */
int vspace_map_pwin(struct vspace *vs, struct pwin *w, uintptr_t va,
		    unsigned rights);
/** Slot @i of window @w, mapped by @vs at @va, now holds the page at
 *  @kva (0: empty) with @rights: change the page table if @vs still
 *  maps @w there. -FUL_ENOMEM if a table page cannot be paid for (then
 *  nothing changed). w->lock held (so @vs is alive: pwin.c). */
int vspace_pwin_update(struct vspace *vs, struct pwin *w, uintptr_t va,
		       unsigned i, uintptr_t kva, unsigned rights);
/** Remove the mapping that starts at @va. -FUL_ESTATE if none does. */
int vspace_unmap(struct vspace *vs, uintptr_t va);
/** Copy @len bytes from user @uva of @vs to kernel @dst / from kernel
 *  @src to user @uva. -FUL_EFAULT unless every byte is mapped with READ
 *  (copy in) or WRITE (copy out). Takes the vspace lock. */
int vspace_copy_in(struct vspace *vs, void *dst, uint64_t uva, size_t len);
int vspace_copy_out(struct vspace *vs, uint64_t uva, const void *src,
		    size_t len);
/** vspace_copy_in of a buffer the call will write its results back to:
 *  every byte must also be mapped with WRITE, so that a bad buffer fails
 *  before the call has done anything. */
int vspace_copy_in_rw(struct vspace *vs, void *dst, uint64_t uva, size_t len);
/** 0 if every byte of [uva, uva + len) is mapped in @vs with @rights,
 *  else -FUL_EFAULT. */
int vspace_check(struct vspace *vs, uint64_t uva, size_t len,
		 unsigned rights);
/** The frame mapped at user @va with at least @rights, referenced, and
 *  the kernel address of @va; NULL if none (-FUL_EFAULT). */
struct frame *vspace_pin(struct vspace *vs, uint64_t va, unsigned rights,
			 uintptr_t *kva);
/** Activate @vs (NULL: none) on this core if not already. IRQs masked. */
void vspace_switch(struct vspace *vs);

#endif
