/*
 * The randomized run, from a seeded xorshift64* generator.
 *
 * Phase 1 (targeted): a random row of the case table (cases.c), every
 * argument a random value of its kind: exactly the row's argument is bad,
 * the others are valid or harmless. The documented error is known and
 * checked exactly.
 *
 * Phase 2 (fully random): a random call number (invalid ones included)
 * with random arguments drawn from interesting values. Only the arena's
 * capabilities (slots 1..BI_ARENA_END) can be named, so nothing can reach
 * this task's vspace, its own thread with rights, the pool, the
 * scheduling control or the report endpoint; EXIT is never drawn and
 * blocking calls get timeout 0. Checked: the result is an error the call
 * documents, or a success of the documented form. Every BI_RESTORE calls
 * the arena is rebuilt (random calls delete what they can).
 */
#include <stdio.h>
#include <string.h>

#include "bi.h"

#define BI_RESTORE 512
#define BI_ARENA_FILLED 19 /* arena_restore() fills slots 1..19 */

extern char _end[]; /* user.ld: the end of the program image */

struct rng {
	unsigned long s;
};

/** xorshift64*. */
static unsigned long rng_next(struct rng *g)
{
	unsigned long x = g->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g->s = x;
	return x * 0x2545f4914f6cdd1dUL;
}

static unsigned rng_below(struct rng *g, unsigned n)
{
	return (unsigned)((rng_next(g) >> 32) % n);
}

/* ---- phase 1 ---- */

/** @n calls of random rows of the case table, random values. */
static void phase1(struct bi_run *r, struct rng *g, unsigned long n)
{
	const struct bi_values *nrs = &bi_kv[B_NR];
	for (unsigned long k = 0; k < n; k++) {
		const struct bi_case *c = &bi_cases[rng_below(g, bi_ncases)];
		unsigned vi[7];
		unsigned long a[7], nr;
		for (unsigned i = 0; i < 7; i++)
			vi[i] = rng_below(g, BI_MAXV);
		bi_case_args(c, vi, a, &nr);
		if (c->nr == BI_NR_INVALID)
			nr = nrs->v[rng_below(g, nrs->n)];
		bi_check(r, nr, a, -(long)c->expect, bi_call(nr, a), c->what,
			 c->flags);
		bi_count(r, nr);
	}
}

/* ---- phase 2: the arena ---- */

/** Rebuild the arena: slots 1..BI_ARENA_END get fresh copies of the
 *  arena objects; a new never-started thread; a new spare task. */
static void arena_restore(struct rng *g)
{
	static const struct { unsigned slot, src, rights; unsigned long badge; } a[] = {
		{1, F_ARENA_EP, FUL_R_ALL, 0}, {2, F_ARENA_EP, FUL_R_READ, 0},
		{3, F_ARENA_EP, FUL_R_WRITE, 0}, {4, F_ARENA_EP, FUL_R_ALL, 0x77},
		{5, F_ARENA_NTFN, FUL_R_ALL, 0}, {6, F_ARENA_NTFN, FUL_R_READ, 0},
		{7, F_ARENA_NTFN, FUL_R_ALL, 0x3}, {8, F_ARENA_FRAME, FUL_R_ALL, 0},
		{9, F_ARENA_FRAME, FUL_R_READ, 0}, {10, F_ARENA_SPARE, FUL_R_ALL, 0},
		{11, F_ARENA_SPARE, FUL_R_READ | FUL_R_WRITE, 0},
		{12, H_POOL, FUL_R_READ, 0}, {13, H_SCHED, FUL_R_READ, 0},
		{14, H_THREAD, FUL_R_READ, 0}, {15, F_ARENA_THREAD, FUL_R_ALL, 0},
		{16, F_DEAD, FUL_R_ALL, 0}, {17, F_ARENA_THREAD, 0, 0},
		{18, F_EP_R, FUL_R_ALL, 0}, {19, F_FRAME_R, FUL_R_ALL, 0},
	};
	unsigned long top = (unsigned long)bi_raw_stack + sizeof bi_raw_stack;
	for (unsigned s = 1; s <= BI_ARENA_END; s++)
		ful_cap_delete(s);
	ful_thread_kill(F_ARENA_THREAD);
	ful_cap_delete(F_ARENA_THREAD);
	bi_raw_thread(F_ARENA_THREAD, bi_raw_exit, 0, top, rng_below(g, bi_ncpus));
	ful_cap_delete(F_ARENA_SPARE);
	ful_vspace_create(H_POOL, F_ARENA_SPARE);
	for (unsigned i = 0; i < sizeof a / sizeof a[0]; i++)
		ful_cap_copy(a[i].src, H_VS, a[i].slot, a[i].rights, a[i].badge);
}

/* Values phase 2 draws arguments from (besides small and random ones). */
static unsigned long pool[64];
static unsigned npool;

/** Fill pool[]: slots, limits on both sides, the caller's writable
 *  buffers (zeroed after each call that may write them), read-only
 *  zeros, unmapped, kernel and non-canonical addresses. */
static void pool_init(void)
{
	unsigned long s = (unsigned long)bi_scratch, ro = (unsigned long)bi_ro_zero;
	const unsigned long v[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 40, 63, 64, 128, 255, 256, 257,
		100000, 511, 512, 513, 1023, 1024, 1025, 4096, 4097, 0x3ff,
		FUL_MSG(1, 512), FUL_MSG(1, 513), FUL_MSG(0xffffffffUL, 0),
		1UL << 10, 1UL << 15, 1UL << 32, (1UL << 32) | 1, 1UL << 48,
		1UL << 63, ~0UL, ~0UL - 1, 0x7fffffffUL, 0xffffffffUL, bi_ncpus,
		bi_ncpus - 1, s, s + FUL_PAGE_SIZE - 16, ro, BI_IPCBUF,
		BI_IPCBUF + FUL_PAGE_SIZE - 8, FUL_USER_MIN, BI_VA_FREE,
		BI_VA_FREE + 8, FUL_USER_MAX, FUL_USER_MAX - 8,
		FUL_USER_MAX - FUL_PAGE_SIZE, BI_KADDR, 0xffff000000000000UL,
		0xffffffffffff0000UL, FUL_FRAME_MAX_PAGES, FUL_FRAME_MAX_PAGES + 1,
	};
	npool = sizeof v / sizeof v[0];
	memcpy(pool, v, sizeof v);
}

/** Zero what a call may have written into the pool's buffers (a later
 *  DEBUG_WRITE from them then prints nothing). */
static void pool_scrub(void)
{
	memset(bi_scratch, 0, 64);
	memset(bi_scratch + FUL_PAGE_SIZE - 16, 0, 64);
	memset((void *)BI_IPCBUF, 0, 64);
	memset((void *)(BI_IPCBUF + FUL_PAGE_SIZE - 64), 0, 64);
}

/** One random value for argument @i; never a hidden slot. Capability
 *  arguments come first in every call, so x0..x2 are more often slots,
 *  mostly filled ones (the arena is filled up to BI_ARENA_FILLED). */
static unsigned long p2_value(struct rng *g, unsigned i)
{
	unsigned long v;
	unsigned pick = rng_below(g, 16);
	if (pick < (i < 3 ? 8u : 3u))
		v = rng_below(g, 8) ? rng_below(g, BI_ARENA_FILLED + 1)
				    : rng_below(g, BI_ARENA_END + 2);
	else if (pick < 12)
		v = pool[rng_below(g, npool)];
	else if (pick < 13)
		v = rng_next(g);
	else if (pick < 15)
		v = rng_below(g, 4097);
	else
		v = 1UL << rng_below(g, 64);
	return v >= BI_HIDDEN_MIN && v < BI_HIDDEN_END ? 0 : v;
}

/** A random call number: mostly valid ones, never EXIT. */
static unsigned long p2_nr(struct rng *g)
{
	for (;;) {
		unsigned long nr = rng_below(g, 16) == 0
					   ? bi_kv[B_NR].v[rng_below(g, bi_kv[B_NR].n)]
					   : rng_below(g, FUL_SYS_COUNT);
		if (nr != FUL_SYS_EXIT)
			return nr;
	}
}

/** Keep a random call harmless: no blocking, no vspace capability
 *  copied (a task holding itself would never be freed), no DEBUG_WRITE
 *  from the program image (it would print its bytes). */
static void p2_guard(unsigned long nr, unsigned long a[7])
{
	switch (nr) {
	case FUL_SYS_SEND: case FUL_SYS_RECV: case FUL_SYS_CALL:
	case FUL_SYS_REPLY_RECV: case FUL_SYS_NTFN_WAIT:
		a[6] = 0;
		break;
	case FUL_SYS_CAP_COPY:
		if (a[0] && a[0] < FUL_CSLOTS &&
		    (ful_cap_info((unsigned)a[0]) & 0xff) == FUL_CAP_VSPACE)
			a[0] = 0;
		break;
	case FUL_SYS_LBE_BIND: /* never a bind: no trace */
		if (!(a[2] & ~(unsigned long)FUL_LBE_ALL))
			a[2] |= 1;
		break;
	case FUL_SYS_TRACE_SET: /* never switched on: no trace */
		a[1] |= 1UL << 40;
		break;
	case FUL_SYS_TRACE_DUMP: /* never a dump on the console */
		a[0] = 0;
		break;
	case FUL_SYS_SLEEP: /* a short sleep, or FOREVER's EINVAL */
		if (a[0] != FUL_FOREVER)
			a[0] %= 1000;
		break;
	case FUL_SYS_SCHED_KILL: /* never a kill: a bad capability */
		a[0] |= FUL_CSLOTS;
		break;
	case FUL_SYS_UTIL_SET: /* never a valid length: no trace */
		if (a[1] >= FUL_UTIL_WIN_MS_MIN && a[1] <= FUL_UTIL_WIN_MS_MAX)
			a[1] = 0;
		break;
	case FUL_SYS_DEBUG_WRITE:
		if (a[0] >= 0x400000 && a[0] < (unsigned long)_end &&
		    !(a[0] >= (unsigned long)bi_scratch &&
		      a[0] < (unsigned long)bi_scratch + sizeof bi_scratch) &&
		    a[0] != (unsigned long)bi_ro_zero)
			a[0] = (unsigned long)bi_ro_zero;
		break;
	}
}


/** Is @got a documented result of call @nr with @a? */
static bool p2_documented(unsigned long nr, const unsigned long a[7], long got)
{
	if (nr >= FUL_SYS_COUNT)
		return got == -FUL_ENOSYS;
	if (got < 0)
		return got > -FUL_NERRNO && (ful_sys_errors(nr) >> -got & 1);
	switch (nr) {
	case FUL_SYS_DEBUG_WRITE:
		return (unsigned long)got == a[1];
	case FUL_SYS_CAP_INFO:
		return (got & 0xff) >= FUL_CAP_THREAD &&
		       (got & 0xff) <= FUL_CAP_PWIN && (got >> 8) <= FUL_R_ALL;
	case FUL_SYS_THREAD_CREATE:
	case FUL_SYS_DMA_PADDR:
		return got > 0;
	case FUL_SYS_MIGRATE:
		return (unsigned long)got <= a[2];
	case FUL_SYS_TASK_KILL: /* the number of threads it killed */
		return got >= 0;
	default:
		return got == 0;
	}
}

/* Phase-2 results: [0] successes, [e] -FUL_E<e>. */
static unsigned long p2_hist[FUL_NERRNO];

/** @n fully random calls. */
static void phase2(struct bi_run *r, struct rng *g, unsigned long n)
{
	pool_init();
	pool_scrub();
	ful_ep_create(H_POOL, F_ARENA_EP);
	ful_ntfn_create(H_POOL, F_ARENA_NTFN);
	ful_frame_create(H_POOL, F_ARENA_FRAME, 1);
	for (unsigned long k = 0; k < n; k++) {
		if (k % BI_RESTORE == 0)
			arena_restore(g);
		unsigned long nr = p2_nr(g), a[7];
		for (unsigned i = 0; i < 7; i++)
			a[i] = p2_value(g, i);
		p2_guard(nr, a);
		long got = bi_call(nr, a);
		if (nr == FUL_SYS_SYSINFO || nr == FUL_SYS_THREAD_INFO ||
		    nr == FUL_SYS_POOL_INFO)
			pool_scrub();
		if (!p2_documented(nr, a, got))
			bi_check(r, nr, a, BI_EXPECT_DOCUMENTED, got,
				 "random: undocumented result", 0);
		else if (got >= 0)
			r->rep->p2_ok++;
		if (got <= 0 && got > -FUL_NERRNO)
			p2_hist[-got]++;
		bi_count(r, nr);
		r->rep->p2_calls++;
	}
}

void bi_run_random(struct bi_run *r, unsigned long seed, unsigned long n1,
		   unsigned long n2)
{
	struct rng g = {seed ? seed * 0x9e3779b97f4a7c15UL : 0x2545f4914f6cdd1dUL};
	unsigned long t0 = ful_counter();
	phase1(r, &g, n1);
	unsigned long t1 = ful_counter();
	r->rep->cases = n1;
	phase2(r, &g, n2);
	unsigned long t2 = ful_counter(), ms = ful_counter_freq() / 1000;
	printf("badinput: random seed %lu: phase 1 %lu calls in %lu ms, phase 2 "
	       "%lu calls (%lu succeeded) in %lu ms, %lu mismatches\n",
	       seed, n1, (t1 - t0) / ms, n2, r->rep->p2_ok, (t2 - t1) / ms,
	       r->rep->mismatches);
	printf("badinput: phase 2 results: 0 (or more) %lu", p2_hist[0]);
	for (unsigned e = 1; e < FUL_NERRNO; e++)
		if (p2_hist[e])
			printf(", -%u %lu", e, p2_hist[e]);
	printf("\n");
}
