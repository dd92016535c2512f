/*
 * Starting user space: build the rootserver's task from its boot module
 * (ELF), give it every capability (its task, its thread, the scheduling
 * controls, the memory pool, the bootinfo page, console input, one
 * read-only frame per boot module, the IRQ control, one device-memory
 * capability per device region) and start it on core 0. Everything else in user space is
 * started by the rootserver.
 */
#include "devmem.h"
#include "elf.h"
#include "frame.h"
#include "kernel.h"
#include "load.h"
#include "module.h"
#include "trace.h"
#include "page.h"
#include "pool.h"
#include "syscall.h"
#include <fulcrum/bootinfo.h>

/** The root pool with a reference for the object about to be made from
 *  it, which takes it over (pool.h); a failure here panics. */
static struct pool *root_pool_ref(void)
{
	obj_get(&root_pool.obj);
	return &root_pool;
}

#define PAGE_DOWN(x) ((x) & ~(uint64_t)(PAGE_SIZE - 1))
#define PAGE_UP(x) PAGE_DOWN((x) + PAGE_SIZE - 1)

/** A new frame of @pages holding @len bytes of @src, mapped at @va in
 *  @vs with @rights and, if @slot, given to the task in @slot (READ
 *  plus @rights). Returns the frame's kernel address. */
static uintptr_t root_frame(struct vspace *vs, unsigned pages, uintptr_t va,
			    unsigned rights, const void *src, size_t len,
			    uint64_t off, unsigned slot)
{
	struct frame *f;
	if (frame_create(root_pool_ref(), pages, &f) != 0)
		panic("rootserver: out of memory");
	if (len)
		memcpy((void *)(f->kva + off), src, len);
	if (va && vspace_map(vs, f, va, rights) != 0)
		panic("rootserver: cannot map %lx", va);
	struct cap c = {.type = FUL_CAP_FRAME,
			.rights = (uint8_t)(rights | FUL_R_READ), .obj = f};
	if (slot && cap_insert(vs, slot, &c) != 0)
		panic("rootserver: slot %u", slot);
	obj_put(&f->obj);
	return f->kva;
}

/** Load the ELF image @m into @vs; returns its entry point. */
static uint64_t root_load_elf(struct vspace *vs, const struct kmodule *m)
{
	struct elf_image img;
	if (elf_parse(m->start, m->size, &img) != 0)
		panic("rootserver: bad ELF image");
	for (unsigned i = 0; i < img.nseg; i++) {
		struct elf_segment *s = &img.seg[i];
		uint64_t base = PAGE_DOWN(s->vaddr);
		unsigned pages = (unsigned)((PAGE_UP(s->vaddr + s->memsz) - base) /
					    PAGE_SIZE);
		unsigned rights = FUL_R_READ |
				  (s->flags & ELF_PF_W ? FUL_R_WRITE : 0) |
				  (s->flags & ELF_PF_X ? FUL_R_EXEC : 0);
		root_frame(vs, pages, base, rights, m->start + s->offset,
			   s->filesz, s->vaddr - base, 0);
	}
	return img.entry;
}

static const struct kmodule *root_find_module(const char *name)
{
	for (unsigned i = 0; i < kmodules_count; i++)
		if (!strcmp(kmodules[i].name, name))
			return &kmodules[i];
	return NULL;
}

/** Fill the bootinfo page and hand each module over as a frame. */
static void root_bootinfo(struct vspace *vs, struct ful_bootinfo *bi)
{
	bi->magic = FUL_BOOTINFO_MAGIC;
	bi->ncpus = machine.ncpus;
	bi->pool_pages = (unsigned)(root_pool.limit / PAGE_SIZE);
	memcpy(bi->bootargs, machine.bootargs, sizeof(bi->bootargs));
	_Static_assert(sizeof(*bi) <= PAGE_SIZE, "bootinfo fits its page");
	if (kmodules_count > FUL_MAX_MODULES)
		kprintf("boot: %u modules, only the first %u handed over\n",
			(unsigned)kmodules_count, FUL_MAX_MODULES);
	for (unsigned i = 0; i < kmodules_count && i < FUL_MAX_MODULES; i++) {
		const struct kmodule *m = &kmodules[i];
		struct ful_module *bm = &bi->modules[bi->nmodules++];
		ksnprintf(bm->name, sizeof(bm->name), "%s", m->name);
		bm->slot = FUL_SLOT_MODULE0 + i;
		bm->size = m->size;
		root_frame(vs, (unsigned)(PAGE_UP(m->size) / PAGE_SIZE), 0, 0,
			   m->start, m->size, 0, bm->slot);
	}
	unsigned slot = FUL_SLOT_MODULE0 + bi->nmodules;
	struct cap c = {.type = FUL_CAP_IRQCTL, .rights = FUL_R_ALL};
	bi->irqctl_slot = slot;
	cap_insert(vs, slot++, &c);
	for (unsigned i = 0; i < devmem_count() && i < FUL_MAX_DEVREGIONS;
	     i++) {
		const struct fdt_dev *d;
		struct ful_devregion *r = &bi->devregions[bi->ndevregions++];
		c = (struct cap){.type = FUL_CAP_DEVMEM,
				 .rights = FUL_R_READ | FUL_R_WRITE,
				 .obj = devmem_region(i, &d)};
		*r = (struct ful_devregion){.paddr = d->base, .size = d->size,
					    .intid = d->intid, .slot = slot,
					    .compatible = "virtio,mmio"};
		cap_insert(vs, slot++, &c);
	}
	bi->first_free_slot = slot;
}

void root_task_start(void)
{
	const struct kmodule *m = root_find_module("rootserver");
	struct vspace *vs;
	if (!m || vspace_create(root_pool_ref(), &vs) != 0)
		panic("rootserver: no module or no memory");
	uint64_t entry = root_load_elf(vs, m);
	root_frame(vs, FUL_ROOT_STACK_PAGES,
		   FUL_ROOT_STACK_TOP - FUL_ROOT_STACK_PAGES * PAGE_SIZE,
		   FUL_R_READ | FUL_R_WRITE, NULL, 0, 0, 0);
	root_frame(vs, 1, FUL_ROOT_IPCBUF_VADDR, FUL_R_READ | FUL_R_WRITE,
		   NULL, 0, 0, FUL_SLOT_IPCBUF);
	struct ful_bootinfo *bi = (struct ful_bootinfo *)root_frame(
		vs, 1, FUL_BOOTINFO_VADDR, FUL_R_READ, NULL, 0, 0,
		FUL_SLOT_BOOTINFO);
	root_bootinfo(vs, bi);
	if (vspace_map(vs, load_frame(), FUL_LOAD_VADDR, FUL_R_READ) != 0)
		panic("rootserver: cannot map the load area");
	struct cap lc = {.type = FUL_CAP_FRAME, .rights = FUL_R_READ,
			 .obj = load_frame()};
	cap_insert(vs, FUL_SLOT_LOAD, &lc);
	/* The trace rings, read-only, if there are any (trace.c). */
	if (trace_frame() &&
	    vspace_map(vs, trace_frame(), FUL_TRACE_VADDR, FUL_R_READ) != 0)
		panic("rootserver: cannot map the trace rings");

	struct cap c = {.type = FUL_CAP_VSPACE, .rights = FUL_R_ALL, .obj = vs};
	cap_insert(vs, FUL_SLOT_SELF_VS, &c); /* immortal: it holds itself */
	c = (struct cap){.type = FUL_CAP_SCHED, .rights = FUL_R_ALL};
	cap_insert(vs, FUL_SLOT_SCHED, &c);
	c = (struct cap){.type = FUL_CAP_POOL, .rights = FUL_R_ALL,
			 .obj = &root_pool};
	cap_insert(vs, FUL_SLOT_POOL, &c);
	c = (struct cap){.type = FUL_CAP_CONSOLE, .rights = FUL_R_ALL};
	cap_insert(vs, FUL_SLOT_CONSOLE, &c);

	struct ful_thread_attr a = {.entry = entry, .sp = FUL_ROOT_STACK_TOP,
				    .ipcbuf = FUL_ROOT_IPCBUF_VADDR,
				    .prio = 100, .cpu = 0, .slice_ms = 10,
				    .name = "rootserver"};
	struct thread *t;
	if (uthread_create(root_pool_ref(), vs, &a, &t) != 0)
		panic("rootserver: cannot create its thread");
	c = (struct cap){.type = FUL_CAP_THREAD, .rights = FUL_R_ALL,
			 .data = atomic_load(&t->tid)};
	cap_insert(vs, FUL_SLOT_SELF_THREAD, &c);
	obj_put(&vs->obj);
	thread_activate(t, atomic_load(&t->tid));
}
