/* Frames: runs of physical pages a task can map (frame.c). */
#ifndef KERNEL_FRAME_H
#define KERNEL_FRAME_H

#include "obj.h"
#include "page.h"

#define FRAME_MAX 2048

struct pool;

/* What a frame's pages are. */
enum frame_kind {
	FRAME_RAM = 0, /* ordinary memory */
	FRAME_DMA,     /* ordinary memory whose physical address its holder
			* may read (DMA_PADDR) */
	FRAME_DEVICE,  /* device registers (devmem.c): mapped Device-nGnRE,
			* never touched by the kernel, never destroyed */
};

struct frame {
	struct kobj obj;
	uintptr_t kva;      /* [I] kernel address of the first page (a
			     * device frame: arch_phys_to_kva of it) */
	uint32_t npages;    /* [I] */
	uint8_t kind;       /* [I] enum frame_kind */
	struct pool *pool;  /* [I] charged FRAME_CHARGE, credited on destroy */
};

/* Bytes a frame of @npages costs its pool: its pages and its record. */
#define FRAME_CHARGE(npages) \
	((uint64_t)(npages) * PAGE_SIZE + sizeof(struct frame))

/** A zeroed frame of @npages (1..FUL_FRAME_MAX_PAGES) charged to @p.
 *  -FUL_ENOMEM if the pool, the frame table or RAM is exhausted. On
 *  success the frame takes over the caller's reference to @p (pool.h). */
int frame_create(struct pool *p, unsigned npages, struct frame **out);
/** frame_create() without the zeroing: the pages hold old data, so the
 *  caller zeroes them before anything else can reach the frame. */
int frame_create_unzeroed(struct pool *p, unsigned npages,
			  struct frame **out);
/** A frame object for @npages of kernel memory at @kva (page aligned,
 *  in the linear map), charged to no pool. The caller keeps its first
 *  reference forever: such a frame is never destroyed. */
int frame_wrap(uintptr_t kva, unsigned npages, struct frame **out);

#endif
