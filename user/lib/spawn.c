/*
 * ful_spawn(): load an ELF boot module into a new task.
 *
 *   1. map the module frame read-only at FUL_SPAWN_SCRATCH_MOD and parse
 *      it with the kernel's own parser (kernel/elf.c, built into
 *      libfulcrum);
 *   2. create the vspace; for each PT_LOAD segment create a frame, map it
 *      writable at FUL_SPAWN_SCRATCH_SEG, copy the file bytes and zero the
 *      rest, unmap it, map it into the child with the segment's rights;
 *   3. stack and IPC buffer frames (fresh frames are zero);
 *      a mapping holds its frame, so the caller drops each frame cap
 *      once the frame is mapped into the child;
 *   4. caps into the child's slots and the caller's shared frames into
 *      its address space, then create and start the thread.
 *
 * The scratch windows are shared, so one spawn runs at a time.
 */
#include <string.h>

#include <ful/spawn.h>

#include "elf.h"
#include "lib.h"

static struct ful_spin spawn_lock;

int ful_module_find(const char *name)
{
	const struct ful_bootinfo *bi = ful_bootinfo();
	for (unsigned i = 0; i < bi->nmodules && i < FUL_MAX_MODULES; i++)
		if (strncmp(bi->modules[i].name, name, sizeof bi->modules[i].name) == 0)
			return (int)i;
	return -FUL_EINVAL;
}

int ful_spawn_named(const char *name, unsigned cpu, unsigned prio,
		    unsigned long arg0, unsigned long arg1,
		    const struct ful_cap_grant *caps, unsigned ncaps,
		    struct ful_task *out)
{
	int mod = ful_module_find(name);
	if (mod < 0)
		return mod;
	struct ful_spawn_args a = {.module = (unsigned)mod, .cpu = cpu,
				   .prio = prio, .arg0 = arg0, .arg1 = arg1,
				   .caps = caps, .ncaps = ncaps};
	return ful_spawn(&a, out);
}

/** Create a frame of @npages in a new slot of the caller; returns the
 *  slot or -FUL_E*. */
static long new_frame(unsigned pool, unsigned long npages)
{
	long slot = ful_slot_alloc();
	if (slot < 0)
		return slot;
	long err = ful_frame_create(pool, (unsigned)slot, npages);
	if (err < 0) {
		ful_slot_free((unsigned)slot);
		return err;
	}
	return slot;
}

/** Drop the caller's cap to a frame (its mappings keep it alive). */
static void drop_frame(long slot)
{
	ful_cap_delete((unsigned)slot);
	ful_slot_free((unsigned)slot);
}

/** A fresh (zeroed) frame of @npages mapped at @va in @vs with @rights. */
static long map_new(unsigned pool, unsigned vs, unsigned long va,
		    unsigned long npages, unsigned rights)
{
	long frame = new_frame(pool, npages);
	if (frame < 0)
		return frame;
	long err = ful_map(vs, (unsigned)frame, va, rights);
	drop_frame(frame);
	return err;
}

/** ELF_PF_* to FUL_R_* (every mapping needs READ). */
static unsigned seg_rights(uint32_t flags)
{
	return FUL_R_READ |
	       ((flags & ELF_PF_W) ? FUL_R_WRITE : 0) |
	       ((flags & ELF_PF_X) ? FUL_R_EXEC : 0);
}

/** Fill a new frame with segment @s of @img and map it into @t->vs. */
static long load_segment(struct ful_task *t, const struct ful_spawn_args *a,
			 const unsigned char *img, const struct elf_segment *s)
{
	unsigned long base = s->vaddr & ~(FUL_PAGE_SIZE - 1);
	unsigned long head = s->vaddr - base;
	unsigned long size = (head + s->memsz + FUL_PAGE_SIZE - 1) & ~(FUL_PAGE_SIZE - 1);
	if (size > FUL_SPAWN_SCRATCH_SIZE)
		return -FUL_ERANGE;

	long frame = new_frame(a->pool, size / FUL_PAGE_SIZE);
	if (frame < 0)
		return frame;
	long err = ful_map(a->self_vs, (unsigned)frame, FUL_SPAWN_SCRATCH_SEG,
			   FUL_R_READ | FUL_R_WRITE);
	if (err >= 0) {
		unsigned char *dst = (unsigned char *)FUL_SPAWN_SCRATCH_SEG;
		memset(dst, 0, head);
		memcpy(dst + head, img + s->offset, s->filesz);
		memset(dst + head + s->filesz, 0, size - head - s->filesz);
		ful_unmap(a->self_vs, FUL_SPAWN_SCRATCH_SEG);
		err = ful_map(t->vs, (unsigned)frame, base, seg_rights(s->flags));
	}
	drop_frame(frame);
	return err;
}

/** Copy the caps of the slot convention into the child. */
static long give_caps(struct ful_task *t, const struct ful_spawn_args *a)
{
	/* A task holding a capability to itself outlives every other
	 * holder (the kernel frees a task when nothing refers to it), so
	 * slot 1 is filled only on request. */
	long err = a->vs_rights ? ful_cap_copy(t->vs, t->vs, FUL_CHILD_SLOT_VS,
					       a->vs_rights, 0)
				: 0;
	if (err >= 0 && a->report_ep)
		err = ful_cap_copy(a->report_ep, t->vs,
				   a->report_slot ? a->report_slot
						  : FUL_CHILD_SLOT_REPORT,
				   FUL_R_WRITE, a->report_badge);
	/* Slots 1 and 2 are the spawn's own; a taken slot fails the copy. */
	for (unsigned i = 0; err >= 0 && i < a->ncaps; i++) {
		const struct ful_cap_grant *g = &a->caps[i];
		if (g->dst < FUL_CHILD_SLOT_REPORT || g->dst >= FUL_CSLOTS)
			return -FUL_EINVAL;
		err = ful_cap_copy(g->src, t->vs, g->dst, g->rights, g->badge);
	}
	for (unsigned i = 0; err >= 0 && i < a->nmaps; i++)
		err = ful_map(t->vs, a->maps[i].frame, a->maps[i].va,
			      a->maps[i].rights);
	return err;
}

/** Create the first thread (cap in the caller and in child slot 2). */
static long make_thread(struct ful_task *t, const struct ful_spawn_args *a,
			uint64_t entry, const char *name)
{
	struct ful_thread_attr attr = {
		.entry = entry,
		.sp = FUL_TASK_STACK_TOP,
		.arg0 = a->arg0,
		.arg1 = a->arg1,
		.ipcbuf = FUL_TASK_IPCBUF_VADDR,
		.prio = a->prio,
		.cpu = a->cpu,
		.slice_ms = a->slice_ms ? a->slice_ms : 10,
		.nice = a->nice,
	};
	strncpy(attr.name, name, sizeof attr.name - 1);

	long slot = ful_slot_alloc();
	if (slot < 0)
		return slot;
	long tid = ful_thread_create(a->pool, t->vs, (unsigned)slot, &attr);
	if (tid < 0) {
		ful_slot_free((unsigned)slot);
		return tid;
	}
	t->thread = (unsigned)slot;
	t->tid = tid;
	return ful_cap_copy(t->thread, t->vs, FUL_CHILD_SLOT_THREAD,
			    a->thread_rights ? a->thread_rights : FUL_R_ALL, 0);
}

/** Parse the module (mapped at the scratch address) and build the task
 *  in @t; on error @t holds whatever was made so far. */
static long build(struct ful_task *t, const struct ful_spawn_args *a,
		  const struct ful_module *mod)
{
	const unsigned char *img = (const unsigned char *)FUL_SPAWN_SCRATCH_MOD;
	struct elf_image elf;
	long err = elf_parse(img, mod->size, &elf);
	if (err < 0)
		return err;

	long slot = ful_slot_alloc();
	if (slot < 0)
		return slot;
	if ((err = ful_vspace_create(a->pool, (unsigned)slot)) < 0) {
		ful_slot_free((unsigned)slot);
		return err;
	}
	t->vs = (unsigned)slot;

	for (unsigned i = 0; i < elf.nseg; i++)
		if ((err = load_segment(t, a, img, &elf.seg[i])) < 0)
			return err;

	err = map_new(a->pool, t->vs,
		      FUL_TASK_STACK_TOP - FUL_TASK_STACK_PAGES * FUL_PAGE_SIZE,
		      FUL_TASK_STACK_PAGES, FUL_R_READ | FUL_R_WRITE);
	if (err >= 0)
		err = map_new(a->pool, t->vs, FUL_TASK_IPCBUF_VADDR, 1,
			      FUL_R_READ | FUL_R_WRITE);
	if (err < 0)
		return err;
	if ((err = give_caps(t, a)) < 0)
		return err;
	if ((err = make_thread(t, a, elf.entry, mod->name)) < 0)
		return err;
	return ful_thread_start(t->thread);
}

/** Load module a->module into a new task and start it (see spawn.h). */
int ful_spawn(const struct ful_spawn_args *args, struct ful_task *out)
{
	struct ful_spawn_args a = *args;
	const struct ful_bootinfo *bi = ful_bootinfo();
	if (!a.pool)
		a.pool = FUL_SLOT_POOL;
	if (!a.self_vs)
		a.self_vs = FUL_SLOT_SELF_VS;
	memset(out, 0, sizeof *out);
	if (a.module >= bi->nmodules || a.module >= FUL_MAX_MODULES)
		return -FUL_EINVAL;
	const struct ful_module *mod = &bi->modules[a.module];
	if (mod->size > FUL_SPAWN_SCRATCH_SIZE)
		return -FUL_ERANGE;

	ful_spin_lock(&spawn_lock);
	long err = ful_map(a.self_vs, mod->slot, FUL_SPAWN_SCRATCH_MOD, FUL_R_READ);
	if (err >= 0) {
		err = build(out, &a, mod);
		ful_unmap(a.self_vs, FUL_SPAWN_SCRATCH_MOD);
	}
	ful_spin_unlock(&spawn_lock);
	if (err < 0)
		ful_task_destroy(out);
	return err < 0 ? (int)err : 0;
}

/** Kill the task and drop the caller's caps to it (see spawn.h). */
void ful_task_destroy(struct ful_task *t)
{
	if (t->thread) {
		ful_thread_kill(t->thread);
		ful_cap_delete(t->thread);
		ful_slot_free(t->thread);
	}
	if (t->vs) {
		ful_cap_delete(t->vs);
		ful_slot_free(t->vs);
	}
	memset(t, 0, sizeof *t);
}
