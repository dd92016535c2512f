/*
 * Operations on capabilities, frames, mappings and child tasks (workers
 * only), and the arena's set-up and teardown.
 *
 *   fz_op_cap          create, copy (within the zone, to MISC, into a
 *                      child task), delete, inspect arena slots
 *   fz_op_map          map and unmap arena frames on the shared grid
 *                      (which victims touch) and in child tasks
 *   fz_op_frame_exact  a private frame through its whole life, every
 *                      result exact: created zeroed, mapped twice, the
 *                      same bytes through both windows, unmapped
 *   fz_op_child        a thread in a child task (child.S), started or
 *                      killed before it is ever shared
 */
#include <string.h>

#include "fz.h"

static const struct {
	unsigned lo, n;
} fz_zones[] = {
    {FZ_EP_LO, FZ_EP_N}, {FZ_NTFN_LO, FZ_NTFN_N},     {FZ_FRAME_LO, FZ_FRAME_N},
    {FZ_VS_LO, FZ_VS_N}, {FZ_THREAD_LO, FZ_THREAD_N}, {FZ_MISC_LO, FZ_MISC_N},
};
enum { Z_EP, Z_NTFN, Z_FRAME, Z_VS, Z_THREAD, Z_MISC, Z_N };

static unsigned fz_zslot(struct fz_ctx *c, unsigned z)
{
	return fz_slot(c, fz_zones[z].lo, fz_zones[z].n);
}

static unsigned fz_rights(struct fz_ctx *c)
{
	return fz_below(&c->rng, 2) ? FUL_R_ALL : fz_below(&c->rng, 16);
}

/** Map the child code into the new task in @slot. */
static void fz_child_code_map(struct fz_ctx *c, unsigned slot)
{
	FZ_SYS(c, MAP, FZ_CAPS | FZ_E(STATE) | FZ_E(NOMEM), slot, FZ_SLOT_CODE,
	       FZ_CHILD_CODE_VA, FUL_R_READ | FUL_R_EXEC);
}

/** Create an object of a random kind in its zone. */
static void fz_cap_create(struct fz_ctx *c)
{
	static const unsigned long nrs[] = {
	    FUL_SYS_EP_CREATE, FUL_SYS_NTFN_CREATE, FUL_SYS_FRAME_CREATE,
	    FUL_SYS_VSPACE_CREATE};
	unsigned z = fz_below(&c->rng, 4);
	unsigned long a[7] = {FUL_SLOT_POOL, fz_zslot(c, z),
			      1 + fz_below(&c->rng, FZ_FRAME_PAGES)};
	long got = fz_sys(c, nrs[z], a, FZ_E(STATE) | FZ_E(NOMEM)).x0;
	if (got == 0 && z == Z_VS)
		fz_child_code_map(c, (unsigned)a[1]);
}

/** Copy an arena capability within this task, or into a child task. */
static void fz_cap_copy(struct fz_ctx *c)
{
	unsigned z = fz_below(&c->rng, Z_N);
	unsigned long badge =
	    fz_below(&c->rng, 4) ? 0 : 1 + (fz_next(&c->rng) & FZ_BITS);
	unsigned long a[7] = {fz_zslot(c, z), FUL_SLOT_SELF_VS, 0, fz_rights(c),
			      badge};
	/* A vspace stays in the VS zone of this task: one held by a child
	 * task could close a cycle of tasks that nothing frees. */
	bool child = z != Z_VS && !fz_below(&c->rng, 4);
	if (child) {
		a[1] = fz_zslot(c, Z_VS);
		a[2] = 1 + fz_below(&c->rng, FUL_CSLOTS - 1);
	} else {
		a[2] =
		    fz_zslot(c, z == Z_VS || fz_below(&c->rng, 2) ? z : Z_MISC);
	}
	fz_sys(c, FUL_SYS_CAP_COPY, a, FZ_CAPS | FZ_E(INVAL) | FZ_E(STATE));
}

void fz_op_cap(struct fz_ctx *c)
{
	unsigned k = fz_below(&c->rng, 10);
	unsigned long a[7] = {
	    fz_slot(c, FZ_ARENA_LO, FZ_ARENA_HI - FZ_ARENA_LO)};
	if (k < 3)
		fz_cap_create(c);
	else if (k < 7)
		fz_cap_copy(c);
	else if (k < 9)
		fz_sys(c, FUL_SYS_CAP_DELETE, a, FZ_E(BADCAP));
	else
		fz_sys(c, FUL_SYS_CAP_INFO, a, FZ_E(BADCAP));
}

static unsigned long fz_grid_va(struct fz_ctx *c)
{
	return FZ_GRID_VA + fz_below(&c->rng, FZ_GRID_N) * FZ_GRID_STEP;
}

void fz_op_map(struct fz_ctx *c)
{
	unsigned k = fz_below(&c->rng, 10);
	unsigned frame =
	    fz_below(&c->rng, 8) ? fz_zslot(c, Z_FRAME) : fz_zslot(c, Z_MISC);
	unsigned long rights =
	    FUL_R_READ | (fz_below(&c->rng, 2) ? FUL_R_WRITE : 0);
	unsigned vs = fz_zslot(c, Z_VS);
	if (k < 4)
		FZ_SYS(c, MAP, FZ_CAPS | FZ_E(STATE) | FZ_E(NOMEM),
		       FUL_SLOT_SELF_VS, frame, fz_grid_va(c), rights);
	else if (k < 7)
		FZ_SYS(c, UNMAP, FZ_E(STATE), FUL_SLOT_SELF_VS, fz_grid_va(c));
	else if (k < 9)
		FZ_SYS(c, MAP, FZ_CAPS | FZ_E(STATE) | FZ_E(NOMEM), vs, frame,
		       fz_grid_va(c), rights);
	else
		FZ_SYS(c, UNMAP, FZ_CAPS | FZ_E(STATE), vs, fz_grid_va(c));
}

/** Report the first word of @p (n words) that is not @want(i). */
static bool fz_words_ok(struct fz_ctx *c, const volatile unsigned long *p,
			unsigned long n, unsigned long seed, const char *what)
{
	for (unsigned long i = 0; i < n; i++) {
		unsigned long want =
		    seed ? seed ^ (i * 0x9e3779b97f4a7c15UL) : 0;
		if (p[i] != want) {
			unsigned long a[7] = {(unsigned long)&p[i], p[i], want};
			fz_bad(c, FZ_RESULTS, what, FUL_SYS_MAP, a, 0);
			return false;
		}
	}
	return true;
}

/** Fill @n words at @p with the pattern of @seed. */
static void fz_words_fill(volatile unsigned long *p, unsigned long n,
			  unsigned long seed)
{
	for (unsigned long i = 0; i < n; i++)
		p[i] = seed ^ (i * 0x9e3779b97f4a7c15UL);
}

/** The mapped part of fz_op_frame_exact: @slot is mapped at @va1. */
static void fz_frame_windows(struct fz_worker *w, unsigned slot,
			     unsigned long npages, unsigned long va1)
{
	struct fz_ctx *c = &w->c;
	unsigned long va2 = va1 + FZ_WIN2_OFF, words = npages * 512;
	unsigned long seed = fz_next(&c->rng) | 1;
	bool zero = fz_words_ok(c, (void *)va1, words, 0,
				"a new frame is not zeroed");
	if (zero) {
		fz_words_fill((void *)va1, words, seed);
		FZ_EXACT(c, MAP, -FUL_ESTATE, 0, FUL_SLOT_SELF_VS, slot, va1,
			 FUL_R_READ);
		if (npages > 1)
			FZ_EXACT(c, UNMAP, -FUL_ESTATE, 0, FUL_SLOT_SELF_VS,
				 va1 + FUL_PAGE_SIZE);
	}
	if (FZ_EXACT(c, MAP, 0, -FUL_ENOMEM, FUL_SLOT_SELF_VS, slot, va2,
		     FUL_R_READ) == 0) {
		if (zero)
			fz_words_ok(c, (void *)va2, words, seed,
				    "a second mapping shows other bytes");
		FZ_EXACT(c, UNMAP, 0, 0, FUL_SLOT_SELF_VS, va2);
	}
	FZ_EXACT(c, UNMAP, 0, 0, FUL_SLOT_SELF_VS, va1);
	FZ_EXACT(c, UNMAP, -FUL_ESTATE, 0, FUL_SLOT_SELF_VS, va1);
}

void fz_op_frame_exact(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	unsigned slot = fz_priv(c->id, FZ_P_FRAME);
	/* Mostly small: under multi-threaded TCG every page unmapped is a
	 * broadcast TLB invalidation that stops all the virtual cores. */
	unsigned long n =
	    1 + fz_below(&c->rng, fz_below(&c->rng, 8) ? 4 : FZ_FRAME_PAGES);
	unsigned long va1 = FZ_PRIV_VA + c->id * FZ_PRIV_STEP;
	if (FZ_EXACT(c, FRAME_CREATE, 0, -FUL_ENOMEM, FUL_SLOT_POOL, slot, n))
		return;
	if (FZ_EXACT(c, MAP, 0, -FUL_ENOMEM, FUL_SLOT_SELF_VS, slot, va1,
		     FUL_R_READ | FUL_R_WRITE) == 0)
		fz_frame_windows(w, slot, n, va1);
	if (fz_below(&c->rng, 3) == 0) /* share it with the others */
		FZ_SYS(c, CAP_COPY, FZ_E(STATE), slot, FUL_SLOT_SELF_VS,
		       fz_zslot(c, Z_FRAME), fz_rights(c), 0);
	FZ_EXACT(c, CAP_DELETE, 0, 0, slot);
	if (fz_below(&c->rng, 4) == 0)
		FZ_EXACT(c, CAP_DELETE, -FUL_EBADCAP, 0, slot);
}

/** Start or kill the new inactive thread in private @slot: exact, as
 *  nobody else knows it yet (EAGAIN: the request pool was full). */
static void fz_child_launch(struct fz_ctx *c, unsigned slot)
{
	if (fz_below(&c->rng, 5) == 0 &&
	    FZ_EXACT(c, THREAD_KILL, 0, -FUL_EAGAIN, slot) == 0) {
		FZ_EXACT(c, THREAD_START, -FUL_EDEAD, 0, slot);
		return;
	}
	FZ_EXACT(c, THREAD_START, 0, 0, slot);
	FZ_EXACT(c, THREAD_START, -FUL_ESTATE, -FUL_EDEAD, slot);
}

void fz_op_child(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	unsigned slot = fz_priv(c->id, FZ_P_THREAD);
	struct ful_thread_attr at = {.entry = FZ_CHILD_CODE_VA,
				     .sp = FZ_CHILD_CODE_VA + 0x10000,
				     .arg0 = 1 + fz_below(&c->rng, 20),
				     .prio = 1 + fz_below(&c->rng, 90),
				     .cpu = fz_below(&c->rng, fz.ncpus),
				     .slice_ms = 1 + fz_below(&c->rng, 20),
				     .nice = (int)fz_below(&c->rng, 40) - 20,
				     .name = "fz-child"};
	long tid =
	    FZ_SYS(c, THREAD_CREATE, FZ_CAPS | FZ_E(NOMEM), FUL_SLOT_POOL,
		   fz_zslot(c, Z_VS), slot, (unsigned long)&at)
		.x0;
	if (tid <= 0)
		return;
	atomic_fetch_add(&fz.child_threads, 1);
	fz_child_launch(c, slot);
	FZ_SYS(c, CAP_COPY, FZ_E(STATE), slot, FUL_SLOT_SELF_VS,
	       fz_zslot(c, Z_THREAD), fz_rights(c), 0);
	FZ_EXACT(c, CAP_DELETE, 0, 0, slot);
}

/* ---- set-up and teardown ---- */

/** The frame of child.S's code, and the read-only copies of the pool
 *  and the scheduling control in MISC (raw calls find them there). */
static int fz_code_init(void)
{
	const unsigned long tmp = FZ_PRIV_VA - FZ_PRIV_STEP;
	long err = ful_frame_create(FUL_SLOT_POOL, FZ_SLOT_CODE, 1);
	if (!err)
		err = ful_map(FUL_SLOT_SELF_VS, FZ_SLOT_CODE, tmp,
			      FUL_R_READ | FUL_R_WRITE);
	if (err)
		return (int)err;
	memcpy((void *)tmp, fz_child_code, fz_child_code_end - fz_child_code);
	return (int)ful_unmap(FUL_SLOT_SELF_VS, tmp);
}

/**
 * Make every page table the run will need in the fuzzer's own vspace:
 * map a page into each 2 MiB region it maps into (the grid, the set-up
 * window, each worker's private windows), then unmap it. MAP charges a
 * table page to the pool when it makes one and the vspace keeps it until
 * it is destroyed (docs/objects.md, "Kernel memory"), so without this the
 * census after the run sees those tables as pool pages lost. Called
 * before the first census; 0 or -FUL_E*.
 */
int fz_tables_warm(void)
{
	long err = ful_frame_create(FUL_SLOT_POOL, FZ_SLOT_CODE, 1);
	for (unsigned i = 0; !err && i <= FZ_MAX_WORKERS + 1; i++) {
		/* the grid, then FZ_PRIV_VA - FZ_PRIV_STEP (the set-up
		 * window of fz_code_init), then each worker's */
		unsigned long va = i == 0 ? FZ_GRID_VA
				   : FZ_PRIV_VA - FZ_PRIV_STEP + (i - 1) * FZ_PRIV_STEP;
		err = ful_map(FUL_SLOT_SELF_VS, FZ_SLOT_CODE, va, FUL_R_READ);
		if (!err)
			err = ful_unmap(FUL_SLOT_SELF_VS, va);
	}
	ful_cap_delete(FZ_SLOT_CODE);
	return (int)err;
}

int fz_arena_init(void)
{
	struct fz_ctx *c = &fz.w[0].c; /* set-up calls are counted as w0's */
	int err = fz_code_init();
	if (err)
		return err;
	for (unsigned i = 0; i < 10; i++) {
		FZ_EXACT(c, EP_CREATE, 0, 0, FUL_SLOT_POOL, FZ_EP_LO + i);
		FZ_EXACT(c, FRAME_CREATE, 0, 0, FUL_SLOT_POOL, FZ_FRAME_LO + i,
			 1 + i % FZ_FRAME_PAGES);
	}
	for (unsigned i = 0; i < 6; i++)
		FZ_EXACT(c, NTFN_CREATE, 0, 0, FUL_SLOT_POOL, FZ_NTFN_LO + i);
	for (unsigned i = 0; i < 3; i++)
		if (!FZ_EXACT(c, VSPACE_CREATE, 0, 0, FUL_SLOT_POOL,
			      FZ_VS_LO + i))
			fz_child_code_map(c, FZ_VS_LO + i);
	FZ_EXACT(c, CAP_COPY, 0, 0, FUL_SLOT_POOL, FUL_SLOT_SELF_VS, FZ_MISC_LO,
		 FUL_R_READ, 0);
	FZ_EXACT(c, CAP_COPY, 0, 0, FUL_SLOT_SCHED, FUL_SLOT_SELF_VS,
		 FZ_MISC_LO + 1, FUL_R_READ, 0);
	FZ_EXACT(c, CAP_COPY, 0, 0, FZ_EP_LO, FUL_SLOT_SELF_VS, FZ_MISC_LO + 2,
		 FUL_R_ALL, 7);
	return 0;
}

void fz_arena_clear(void)
{
	for (unsigned s = FZ_ARENA_LO; s < FUL_CSLOTS; s++)
		ful_cap_delete(s);
	for (unsigned i = 0; i < FZ_GRID_N; i++)
		ful_unmap(FUL_SLOT_SELF_VS, FZ_GRID_VA + i * FZ_GRID_STEP);
	for (unsigned w = 0; w < FZ_MAX_WORKERS; w++) {
		unsigned long va = FZ_PRIV_VA + w * FZ_PRIV_STEP;
		ful_unmap(FUL_SLOT_SELF_VS, va);
		ful_unmap(FUL_SLOT_SELF_VS, va + FZ_WIN2_OFF);
	}
	ful_cap_delete(FZ_SLOT_CODE);
}
