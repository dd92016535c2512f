/*
 * The leak census, taken before the fuzzers start and after teardown:
 * the two must be equal.
 *
 *   pool_pages  pages the pool still gives out: frames of 4096 pages
 *               until it refuses, then halves down to one page
 *   eps, ntfns, vspaces, frames
 *               free entries of each kernel object table: objects
 *               created until the kernel says ENOMEM, each moved into a
 *               holder task's capability table (one task holds 255) so
 *               that the fuzzer's own table never runs out
 *   threads     thread records in use in the load area
 *
 * Everything a probe makes is deleted before it returns (deleting a
 * holder deletes what it holds). Page tables are charged to the pool by
 * the MAP that makes them and stay with the vspace until it is
 * destroyed, so fz_tables_warm makes the fuzzer's own before the first
 * census. What the census cannot see: the per-core ICC request pools (a
 * leak there shows as EAGAIN).
 */
#include <ful/load.h>

#include "fz.h"

unsigned fz_census_threads(void)
{
	const struct ful_load_page *pg = ful_load_area();
	unsigned n = 0, nt = ful_load_nthreads(pg);
	for (unsigned i = 0; i < nt; i++) /* one aligned word: no seqcount */
		n += FUL_LOAD_RLX(&pg->thread[i].tid) != 0;
	return n;
}

/** Pages the pool gives out now. 0 or -FUL_E*. */
static long fz_probe_pages(unsigned long *pages)
{
	unsigned slot = FZ_ARENA_LO;
	long err = 0;
	*pages = 0;
	for (unsigned long n = FUL_FRAME_MAX_PAGES; n && !err; n /= 2) {
		while (slot < FZ_ARENA_HI &&
		       !(err = ful_frame_create(FUL_SLOT_POOL, slot, n))) {
			*pages += n;
			slot++;
		}
		if (err == -FUL_ENOMEM)
			err = 0;
		else if (!err)
			err = -FUL_ERANGE; /* out of slots: cannot count */
	}
	for (unsigned s = FZ_ARENA_LO; s < slot; s++)
		ful_cap_delete(s);
	return err;
}

/** Create one object with call @nr (from the pool) into @slot. */
static long fz_create(unsigned long nr, unsigned slot)
{
	return ful_syscall(nr, FUL_SLOT_POOL, slot, 1, 0, 0, 0, 0).x0;
}

/**
 * Objects call @nr can still create: each is moved into a holder task.
 * The holders are vspaces too; for the vspace table they count. 0 or
 * -FUL_E*.
 */
static long fz_probe_objects(unsigned long nr, unsigned *count)
{
	const unsigned obj = FZ_ARENA_LO;
	unsigned holder = FZ_ARENA_HI, k = FUL_CSLOTS, holders = 0;
	long err;
	*count = 0;
	for (;;) {
		if (k == FUL_CSLOTS) { /* the holder is full: a new one */
			if (--holder <= obj ||
			    (err = fz_create(FUL_SYS_VSPACE_CREATE, holder))) {
				holder++;
				break;
			}
			holders++;
			k = 1;
		}
		if ((err = fz_create(nr, obj)))
			break;
		++*count;
		err = ful_cap_copy(obj, holder, k++, FUL_R_ALL, 0);
		ful_cap_delete(obj);
		if (err)
			break;
	}
	for (unsigned s = holder; s < FZ_ARENA_HI; s++)
		ful_cap_delete(s);
	if (nr == FUL_SYS_VSPACE_CREATE)
		*count += holders;
	return err == -FUL_ENOMEM ? 0 : err;
}

int fz_census_take(struct fz_census *out)
{
	long err = fz_probe_pages(&out->pool_pages);
	if (!err)
		err = fz_probe_objects(FUL_SYS_EP_CREATE, &out->eps);
	if (!err)
		err = fz_probe_objects(FUL_SYS_NTFN_CREATE, &out->ntfns);
	if (!err)
		err = fz_probe_objects(FUL_SYS_VSPACE_CREATE, &out->vspaces);
	if (!err)
		err = fz_probe_objects(FUL_SYS_FRAME_CREATE, &out->frames);
	out->threads = fz_census_threads();
	return (int)err;
}
