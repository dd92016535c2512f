/*
 * Loading a boot module (an ELF image in a frame capability, listed in
 * the bootinfo page) into a new task, and tearing it down. Rootserver
 * only: it needs the bootinfo page, a pool and ADMIN on its own vspace.
 *
 * The new task gets the layout and slots of <ful/ful.h>: its segments
 * where the ELF says, FUL_TASK_STACK_PAGES of stack below
 * FUL_TASK_STACK_TOP, an IPC buffer page at FUL_TASK_IPCBUF_VADDR, and
 * caps in slots 1..7 (FUL_CHILD_SLOT_*).
 */
#ifndef FUL_SPAWN_H
#define FUL_SPAWN_H

#include <ful/ful.h>

/* Scratch windows in the caller, 16 MiB each, used (under a lock) while
 * loading: the module image, then each segment's frame in turn. */
#define FUL_SPAWN_SCRATCH_MOD 0x40000000UL
#define FUL_SPAWN_SCRATCH_SEG 0x41000000UL
#define FUL_SPAWN_SCRATCH_SIZE (FUL_FRAME_MAX_PAGES * FUL_PAGE_SIZE)

/* A capability to copy into the child: caller's @src -> child's @dst. */
struct ful_cap_grant {
	unsigned src, dst; /* dst: from FUL_CHILD_SLOT_REPORT up, a slot the
			    * spawn does not fill itself (usually 4..7) */
	unsigned rights;
	unsigned long badge;
};

/* A frame of the caller to map into the child at @va (shared, not
 * copied: the bootinfo page or the load area of a system program). */
struct ful_map_grant {
	unsigned frame;
	unsigned rights;
	unsigned long va;
};

struct ful_spawn_args {
	unsigned module;            /* index into bootinfo->modules */
	unsigned cpu;               /* core of its first thread */
	unsigned prio;              /* 0..254 */
	unsigned slice_ms;          /* 0: 10 ms */
	int nice;
	unsigned long arg0, arg1;   /* x0, x1 of its first thread (ful_arg0/1) */
	unsigned vs_rights;         /* its slot 1; 0: empty (a self-capability makes the task immortal) */
	unsigned thread_rights;     /* its slot 2; 0: FUL_R_ALL */
	unsigned report_ep;         /* caller's endpoint for its slot 3 (WRITE); 0: none */
	unsigned long report_badge;
	unsigned report_slot;       /* child slot of report_ep; 0: FUL_CHILD_SLOT_REPORT */
	const struct ful_cap_grant *caps; /* more caps, slots 4..7 */
	unsigned ncaps;
	const struct ful_map_grant *maps; /* caller's frames mapped into it */
	unsigned nmaps;
	unsigned pool;              /* 0: FUL_SLOT_POOL */
	unsigned self_vs;           /* caller's own vspace; 0: FUL_SLOT_SELF_VS */
};

/* A task as its creator holds it: two slots of the caller. Its frames
 * are held by its mappings only (the caller keeps no frame caps). */
struct ful_task {
	unsigned vs;     /* the task's vspace (ALL) */
	unsigned thread; /* its first thread (ALL) */
	long tid;
};

/** Index of the boot module called @name, or -FUL_EINVAL. */
int ful_module_find(const char *name);

/** ful_spawn() of the module called @name on @cpu at @prio, with x0/x1 =
 *  @arg0/@arg1 and capabilities @caps; 0 or -FUL_E*. */
int ful_spawn_named(const char *name, unsigned cpu, unsigned prio,
		    unsigned long arg0, unsigned long arg1,
		    const struct ful_cap_grant *caps, unsigned ncaps,
		    struct ful_task *out);

/** Load module a->module into a new task and start its first thread.
 *  Returns 0 and fills @out, or -FUL_E* with nothing left behind. */
int ful_spawn(const struct ful_spawn_args *a, struct ful_task *out);

/** Kill the task's thread and delete every cap the caller holds for it
 *  (freeing the slots); @t is zeroed. */
void ful_task_destroy(struct ful_task *t);

#endif
