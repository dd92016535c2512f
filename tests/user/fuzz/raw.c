/*
 * Raw calls: a random call number (invalid ones included) with random
 * registers drawn from interesting values, checked against the
 * documented results alone. Workers only.
 *
 * Guards keep a raw call from hurting the fuzzer itself, never from
 * reaching the kernel with a bad value:
 *   - a value that names a slot outside the arena (the fuzzer's threads,
 *     its pool, its scheduling control, its own vspace, private slots)
 *     is moved out of the slot range;
 *   - EXIT is never drawn (it would end the worker);
 *   - a pointer a call writes through (SYSINFO, THREAD_INFO, MIGRATE)
 *     that falls in the fuzzer's memory goes to the worker's scratch
 *     pages; DEBUG_WRITE reads only zeros or unmapped memory (it would
 *     print them);
 *   - timeouts are at most 20 ms (every blocking call stays finite);
 *   - a message label of the fuzzer's own is changed (receivers check
 *     those);
 *   - a vspace capability is never copied into another task (a cycle of
 *     tasks holding each other would never be freed).
 */
#include "fz.h"

static const unsigned long fz_values[] = {
    0,
    1,
    2,
    3,
    7,
    8,
    15,
    16,
    17,
    63,
    64,
    255,
    256,
    257,
    511,
    512,
    513,
    1023,
    1024,
    1025,
    4095,
    4096,
    4097,
    10000,
    10001,
    100000,
    FUL_MSG(1, 0),
    FUL_MSG(1, 512),
    FUL_MSG(1, 513),
    FUL_MSG(0xffffffffUL, 0),
    FUL_MSG(7, 5) | (1UL << 12),
    1UL << 32,
    (1UL << 32) | 1,
    1UL << 48,
    1UL << 63,
    ~0UL,
    ~0UL - 1,
    0x7fffffffUL,
    0xffffffffUL,
    FUL_USER_MIN,
    FUL_USER_MAX,
    FUL_USER_MAX - FUL_PAGE_SIZE,
    FUL_USER_MAX - 8,
    0x30000000UL,
    0x30000008UL,
    FZ_GRID_VA,
    FZ_GRID_VA + FZ_GRID_STEP,
    FZ_CHILD_CODE_VA,
    FZ_GRID_VA + 8,
    0xffff000040200000UL,
    0xffff000000000000UL,
    0xffffffffffff0000UL,
    FUL_FRAME_MAX_PAGES,
    FUL_FRAME_MAX_PAGES + 1,
};
#define FZ_NVALUES (sizeof fz_values / sizeof fz_values[0])

/** One random register value; argument @i (slots come first). */
static unsigned long fz_raw_value(struct fz_ctx *c, unsigned i)
{
	unsigned pick = fz_below(&c->rng, 16);
	if (pick < (i < 3 ? 8u : 2u))
		return fz_slot(c, FZ_ARENA_LO, FZ_ARENA_HI - FZ_ARENA_LO);
	if (pick < 11)
		return fz_values[fz_below(&c->rng, FZ_NVALUES)];
	if (pick < 12)
		return fz_next(&c->rng);
	if (pick < 13)
		return fz.ncpus + fz_below(&c->rng, 3) - 1;
	if (pick < 15)
		return fz_below(&c->rng, 4097);
	return 1UL << fz_below(&c->rng, 64);
}

/** A random call number: mostly valid ones, never EXIT. */
static unsigned long fz_raw_nr(struct fz_ctx *c)
{
	for (;;) {
		unsigned long nr;
		unsigned k = fz_below(&c->rng, 32);
		if (k == 0)
			nr = FUL_SYS_COUNT + fz_below(&c->rng, 64);
		else if (k == 1)
			nr = fz_next(&c->rng) | (1UL << 63);
		else
			nr = fz_below(&c->rng, FUL_SYS_COUNT);
		if (nr != FUL_SYS_EXIT)
			return nr;
	}
}

/** Is @v an address of the fuzzer's own memory (image, heap, stacks,
 *  bootinfo, load area, IPC buffer, grid, private windows)? */
static bool fz_own_memory(unsigned long v)
{
	return (v >= 0x400000UL && v < 0x80000000UL) ||
	       (v >= FZ_GRID_VA &&
		v < FZ_PRIV_VA + FZ_MAX_WORKERS * FZ_PRIV_STEP);
}

static bool fz_ipc_info_arg(unsigned long nr)
{
	return nr == FUL_SYS_SEND || nr == FUL_SYS_CALL ||
	       nr == FUL_SYS_REPLY || nr == FUL_SYS_REPLY_RECV ||
	       nr == FUL_SYS_REPLY_TO;
}

static bool fz_blocks(unsigned long nr)
{
	return nr == FUL_SYS_SEND || nr == FUL_SYS_RECV || nr == FUL_SYS_CALL ||
	       nr == FUL_SYS_REPLY_RECV || nr == FUL_SYS_NTFN_WAIT;
}

/** Apply the guards of the file comment to call @nr with @a. */
static void fz_raw_guard(struct fz_ctx *c, unsigned long nr, unsigned long a[7])
{
	for (unsigned i = 0; i < 7; i++)
		if (a[i] && a[i] < FUL_CSLOTS &&
		    (a[i] < FZ_ARENA_LO || a[i] >= FZ_ARENA_HI))
			a[i] |= FUL_CSLOTS; /* out of the slot range */
	unsigned long scratch = (unsigned long)c->scratch +
				(fz_below(&c->rng, 2) ? FUL_PAGE_SIZE - 16 : 0);
	if (nr == FUL_SYS_SYSINFO && fz_own_memory(a[0]))
		a[0] = scratch;
	if ((nr == FUL_SYS_THREAD_INFO || nr == FUL_SYS_MIGRATE) &&
	    fz_own_memory(a[1]))
		a[1] = scratch;
	if (nr == FUL_SYS_DEBUG_WRITE && fz_own_memory(a[0]))
		a[0] =
		    (unsigned long)fz.ro_page; /* a page of zeros: prints "" */
	if (fz_blocks(nr))
		a[6] %= 20001;
	if (nr == FUL_SYS_SLEEP && a[0] != FUL_FOREVER)
		a[0] %= 20001; /* FOREVER: EINVAL, at once */
	if (fz_ipc_info_arg(nr) && FUL_MSG_LABEL(a[1]) >= FZ_L_SEND &&
	    FUL_MSG_LABEL(a[1]) <= FZ_L_ANON)
		a[1] ^= 1UL << 40;
	/* the trace rings: never switched on, never dumped (the console) */
	if (nr == FUL_SYS_TRACE_SET)
		a[1] |= 1UL << 40;
	if (nr == FUL_SYS_TRACE_DUMP)
		a[0] = 0;
	/* a task's threads are the other workers' (their model expects
	 * them alive): TASK_KILL and SCHED_KILL only ever see a bad
	 * capability here */
	if (nr == FUL_SYS_TASK_KILL || nr == FUL_SYS_SCHED_KILL)
		a[0] |= FUL_CSLOTS;
	if (nr == FUL_SYS_CAP_COPY && a[0] >= FZ_VS_LO &&
	    a[0] < FZ_VS_LO + FZ_VS_N)
		a[1] = 0;
}

void fz_op_raw(struct fz_ctx *c)
{
	unsigned long nr = fz_raw_nr(c), a[7];
	for (unsigned i = 0; i < 7; i++)
		a[i] = fz_raw_value(c, i);
	fz_raw_guard(c, nr, a);
	struct ful_ret r = fz_sys(c, nr, a, FZ_ANY);
	c->reply = FZ_R_UNKNOWN;
	if (r.x0 == 0 && nr == FUL_SYS_NTFN_WAIT && r.x1 == 0)
		fz_bad(c, FZ_RESULTS, "wait succeeded with no bits", nr, a, 0);
}
