/*
 * Kernel memory is charged to pools.
 *
 * pool_create_info   POOL_CREATE carves a child out of a parent (charged
 *                    its record and whole budget); POOL_INFO reads used
 *                    and limit; a child lives while anything made from
 *                    it does, and its budget then goes back.
 * pool_exhaust_*     one per object kind: make objects from a child pool
 *                    of N charges and a half until it fails. It must
 *                    fail with ENOMEM after exactly N, with the pool
 *                    used at N charges; meanwhile a partner thread on
 *                    the last core answers a call after every object,
 *                    and the root pool still gives. Deleting everything
 *                    brings both pools back to exactly where they were.
 * pool_map_tables    a MAP that needs page-table pages its vspace's
 *                    pool cannot pay for fails with ENOMEM and changes
 *                    nothing; one that needs no new table still works.
 *
 * Each prints a "pool:" line with what a kind costs (bytes, measured as
 * the change of the pool's used count), the figures of docs/objects.md,
 * "Kernel memory".
 */
#include <stdio.h>

#include "utest.h"

enum pt_kind { PK_EP, PK_NTFN, PK_FRAME, PK_VSPACE, PK_THREAD, PK_POOL, PK_N };

static const char *const pk_name[PK_N] = {
	"endpoint", "notification", "frame of 1 page", "vspace", "thread",
	"pool of budget 1",
};
/* Objects each exhaustion test makes before its pool is empty: small
 * enough for every fixed table (256 endpoints, 64 pools, ...), so that
 * the pool is what stops it. */
static const unsigned pk_count[PK_N] = {24, 24, 8, 6, 6, 16};

#define PT_MAX 32
#define PT_PING 1
#define PT_STOP 2
#define PT_PAGE FUL_PAGE_SIZE

/** Bytes charged to @pool now, or ~0 if it cannot be read. */
static unsigned long pt_used(unsigned pool)
{
	struct ful_pool_info pi;
	return ful_pool_info(pool, &pi) < 0 ? ~0UL : pi.used;
}

/** The entry of the threads these tests make: never started. */
static void pt_never_run(void)
{
	for (;;)
		ful_yield();
}

/** Make one object of kind @k from @pool into @slot: 0 or -FUL_E*. */
static long pt_make(unsigned k, unsigned pool, unsigned slot)
{
	struct ful_thread_attr a = {
		.entry = (unsigned long)pt_never_run, .sp = FUL_TASK_STACK_TOP,
		.prio = 1, .cpu = 0, .slice_ms = 10, .name = "pt-never-run"};
	long tid;
	switch (k) {
	case PK_EP:
		return ful_ep_create(pool, slot);
	case PK_NTFN:
		return ful_ntfn_create(pool, slot);
	case PK_FRAME:
		return ful_frame_create(pool, slot, 1);
	case PK_VSPACE:
		return ful_vspace_create(pool, slot);
	case PK_POOL:
		return ful_pool_create(pool, slot, 1);
	default:
		tid = ful_thread_create(pool, FUL_SLOT_SELF_VS, slot, &a);
		return tid < 0 ? tid : 0;
	}
}

/** Destroy what pt_make put in @slot and free the slot. A thread is
 *  named by value: it is killed, and gone once THREAD_INFO says so. */
static bool pt_unmake(unsigned k, unsigned slot)
{
	if (k == PK_THREAD) {
		ful_thread_kill(slot);
		unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
		while (!ful_thread_dead(slot)) {
			if (ful_counter() > dl)
				return false;
			ful_yield();
		}
	}
	ful_slot_drop(slot);
	return true;
}

/** What one object of kind @k costs: the change of the root pool's used
 *  count when one is made; the count must come back when it is
 *  destroyed. -1 on failure (reported). */
static long pt_charge(struct ut *ut, unsigned k)
{
	long s = ful_slot_alloc();
	unsigned long u0 = pt_used(FUL_SLOT_POOL);
	long err = s < 0 ? s : pt_make(k, FUL_SLOT_POOL, (unsigned)s);
	unsigned long u1 = pt_used(FUL_SLOT_POOL);
	if (err < 0 || !pt_unmake(k, (unsigned)s)) {
		ut_fail(ut, __FILE__, __LINE__, "making a %s: %ld", pk_name[k],
			err);
		return -1;
	}
	if (pt_used(FUL_SLOT_POOL) != u0) {
		ut_fail(ut, __FILE__, __LINE__, "a %s left %ld bytes charged",
			pk_name[k], (long)(pt_used(FUL_SLOT_POOL) - u0));
		return -1;
	}
	return (long)(u1 - u0);
}

/* ---- the partner: answers calls on another core meanwhile ---- */

struct pt_partner {
	long ep;
	struct ful_thread th;
};

/** Answer each call with mr0 + 1 until a PT_STOP call. */
static void pt_server(void *arg)
{
	struct pt_partner *p = arg;
	struct ful_msg m;
	long err = ful_recv((unsigned)p->ep, &m, FUL_FOREVER);
	while (!err && FUL_MSG_LABEL(m.info) == PT_PING) {
		m.mr[0]++;
		m.info = 0;
		err = ful_reply_recv((unsigned)p->ep, &m, FUL_FOREVER);
	}
	if (!err)
		ful_reply(&m);
}

/** A call round trip with the partner: true if it answered @i + 1. */
static bool pt_ping(struct pt_partner *p, unsigned long i)
{
	struct ful_msg m = {.info = FUL_MSG(PT_PING, 0), .mr = {i}};
	return ful_call((unsigned)p->ep, &m, UT_TIMEOUT_US) == 0 &&
	       m.mr[0] == i + 1;
}

/** Start the partner on the last core, above the tests' priority. */
static bool pt_partner_start(struct ut *ut, struct pt_partner *p)
{
	p->ep = ut_ep_new();
	struct ful_thread_args a = {.fn = pt_server, .arg = p,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 110,
				    .cpu = ut_ncpus() - 1, .name = "pt-partner"};
	if (p->ep < 0 || ful_thread_spawn(&a, &p->th) != 0) {
		ut_fail(ut, __FILE__, __LINE__, "no partner thread");
		return false;
	}
	return true;
}

static void pt_partner_stop(struct pt_partner *p)
{
	struct ful_msg m = {.info = FUL_MSG(PT_STOP, 0)};
	ful_call((unsigned)p->ep, &m, UT_TIMEOUT_US);
	ful_thread_reap(&p->th, UT_TIMEOUT_US);
	ful_slot_drop((unsigned)p->ep);
}

/* ---- exhaustion, one kind at a time ---- */

struct pt_result {
	long charge;           /* bytes one object costs */
	unsigned long budget;  /* the child pool's */
	unsigned long cost;    /* what the child cost the root pool */
	unsigned made;         /* objects made before the failure */
	long err;              /* the failure */
	struct ful_pool_info at_fail; /* the child pool then */
	bool pings_ok;         /* the partner answered every call */
	bool root_gives;       /* the root pool still made an endpoint */
	bool unmade;           /* every object destroyed */
	unsigned long left;    /* bytes still charged to the child after */
};

/** Fill child pool @cs with objects of kind @k, calling the partner after
 *  each; then destroy them. */
static void pt_fill(unsigned k, unsigned cs, struct pt_partner *pp,
		    struct pt_result *r)
{
	long slots[PT_MAX];
	r->pings_ok = true;
	while (r->made < PT_MAX) {
		long s = ful_slot_alloc();
		r->err = s < 0 ? s : pt_make(k, cs, (unsigned)s);
		if (r->err < 0) {
			if (s >= 0)
				ful_slot_free((unsigned)s);
			break;
		}
		slots[r->made++] = s;
		r->pings_ok &= pt_ping(pp, r->made);
	}
	ful_pool_info(cs, &r->at_fail);
	r->pings_ok &= pt_ping(pp, 1000);
	long ep = ut_ep_new();
	r->root_gives = ep > 0;
	if (ep > 0)
		ful_slot_drop((unsigned)ep);
	r->unmade = true;
	for (unsigned i = 0; i < r->made; i++)
		r->unmade &= pt_unmake(k, (unsigned)slots[i]);
	r->left = pt_used(cs);
}

static void pt_exhaust(struct ut *ut, unsigned k)
{
	struct pt_result r = {.charge = pt_charge(ut, k)};
	if (r.charge < 0)
		return;
	UT_CHECK(r.charge > 0);
	unsigned long start = pt_used(FUL_SLOT_POOL);
	struct pt_partner pp;
	if (!pt_partner_start(ut, &pp))
		return;
	unsigned n = pk_count[k];
	r.budget = n * (unsigned long)r.charge + (unsigned long)r.charge / 2;
	unsigned long root0 = pt_used(FUL_SLOT_POOL);
	long cs = ful_slot_alloc();
	long err = ful_pool_create(FUL_SLOT_POOL, (unsigned)cs, r.budget);
	r.cost = pt_used(FUL_SLOT_POOL) - root0;
	if (!err)
		pt_fill(k, (unsigned)cs, &pp, &r);
	ful_slot_drop((unsigned)cs);
	pt_partner_stop(&pp);
	printf("pool: %s charges %ld bytes; a pool of %lu bytes gave %u, "
	       "then %ld\n", pk_name[k], r.charge, r.budget, r.made, r.err);
	UT_CHECK_EQ(err, 0);
	UT_CHECK(r.cost > r.budget);
	UT_CHECK_EQ(r.err, -FUL_ENOMEM);
	UT_CHECK_EQ(r.made, n);
	UT_CHECK_EQ(r.at_fail.used, n * (unsigned long)r.charge);
	UT_CHECK(r.at_fail.limit - r.at_fail.used < (unsigned long)r.charge);
	UT_CHECK(r.pings_ok);
	UT_CHECK(r.root_gives);
	UT_CHECK(r.unmade);
	UT_CHECK_EQ(r.left, 0);
	/* The child's budget and the partner went back too. */
	UT_WAIT(pt_used(FUL_SLOT_POOL) == start);
}

UTEST(pool_exhaust_endpoint, 1) { pt_exhaust(ut, PK_EP); }
UTEST(pool_exhaust_ntfn, 1) { pt_exhaust(ut, PK_NTFN); }
UTEST(pool_exhaust_frame, 1) { pt_exhaust(ut, PK_FRAME); }
UTEST(pool_exhaust_vspace, 1) { pt_exhaust(ut, PK_VSPACE); }
UTEST(pool_exhaust_thread, 1) { pt_exhaust(ut, PK_THREAD); }
UTEST(pool_exhaust_pool, 1) { pt_exhaust(ut, PK_POOL); }

/* ---- pools of pools ---- */

UTEST(pool_create_info, 1)
{
	struct ful_pool_info root, c, g;
	UT_CHECK_EQ(ful_pool_info(FUL_SLOT_POOL, &root), 0);
	UT_CHECK(root.used > 0 && root.used <= root.limit);
	long cs = ful_slot_alloc(), gs = ful_slot_alloc(), x = ful_slot_alloc();
	long ep = ful_slot_alloc();
	UT_CHECK_EQ(ful_pool_create(FUL_SLOT_POOL, (unsigned)cs, 65536), 0);
	UT_CHECK_EQ(ful_pool_info((unsigned)cs, &c), 0);
	UT_CHECK_EQ(c.used, 0);
	UT_CHECK_EQ(c.limit, 65536);
	unsigned long rec = pt_used(FUL_SLOT_POOL) - root.used - 65536;
	UT_CHECK(rec > 0 && rec < 4096);
	/* A grandchild is charged to the child, its objects to itself. */
	UT_CHECK_EQ(ful_pool_create((unsigned)cs, (unsigned)gs, 8192), 0);
	UT_CHECK_EQ(pt_used((unsigned)cs), rec + 8192);
	UT_CHECK_EQ(ful_pool_create((unsigned)cs, (unsigned)x, 65536),
		    -FUL_ENOMEM);
	UT_CHECK_EQ(ful_pool_create((unsigned)gs, (unsigned)x, 8192),
		    -FUL_ENOMEM);
	UT_CHECK_EQ(ful_ep_create((unsigned)gs, (unsigned)ep), 0);
	UT_CHECK_EQ(ful_pool_info((unsigned)gs, &g), 0);
	UT_CHECK(g.used > 0);
	UT_CHECK_EQ(pt_used((unsigned)cs), rec + 8192);
	/* Deleting the capabilities of the pools does not free them while
	 * the endpoint lives: the root pool still pays for the child. */
	ful_slot_drop((unsigned)cs);
	ful_slot_drop((unsigned)gs);
	UT_CHECK_EQ(pt_used(FUL_SLOT_POOL), root.used + rec + 65536);
	/* The endpoint was the last thing: both pools go, the budget back. */
	ful_slot_drop((unsigned)ep);
	ful_slot_free((unsigned)x);
	UT_WAIT(pt_used(FUL_SLOT_POOL) == root.used);
	printf("pool: a pool charges its parent its budget plus %lu bytes\n",
	       rec);
}

/* ---- page tables ---- */

#define PT_VA 0x10000000UL      /* 2 MiB aligned, in the first GiB */
#define PT_2M (2UL << 20)
#define PT_1G (1UL << 30)

UTEST(pool_map_tables, 1)
{
	long vcharge = pt_charge(ut, PK_VSPACE);
	if (vcharge < 0)
		return;
	unsigned long budget = (unsigned long)vcharge + 3 * PT_PAGE + PT_PAGE / 2;
	long cs = ful_slot_alloc(), vs = ful_slot_alloc();
	long f1 = ful_slot_alloc(), f2 = ful_slot_alloc(), f16 = ful_slot_alloc();
	unsigned long root0 = pt_used(FUL_SLOT_POOL);
	UT_CHECK_EQ(ful_pool_create(FUL_SLOT_POOL, (unsigned)cs, budget), 0);
	UT_CHECK_EQ(ful_vspace_create((unsigned)cs, (unsigned)vs), 0);
	UT_CHECK_EQ(ful_frame_create(FUL_SLOT_POOL, (unsigned)f1, 1), 0);
	UT_CHECK_EQ(ful_frame_create(FUL_SLOT_POOL, (unsigned)f2, 1), 0);
	UT_CHECK_EQ(ful_frame_create(FUL_SLOT_POOL, (unsigned)f16, 16), 0);
	unsigned long u0 = pt_used((unsigned)cs);
	UT_CHECK_EQ(u0, vcharge);
	/* An empty vspace: the first page needs an L1, an L2 and an L3
	 * table, all charged to the vspace's pool. */
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)f1, PT_VA, FUL_R_READ), 0);
	UT_CHECK_EQ(pt_used((unsigned)cs), u0 + 3 * PT_PAGE);
	/* Half a page left: a page in the same 2 MiB needs no table. */
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)f2, PT_VA + PT_PAGE,
			    FUL_R_READ), 0);
	UT_CHECK_EQ(pt_used((unsigned)cs), u0 + 3 * PT_PAGE);
	/* 16 pages across the next 2 MiB boundary need one more L3 table,
	 * another GiB an L2 and an L3: no budget, nothing mapped. */
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)f16, PT_VA + PT_2M - 8 * PT_PAGE,
			    FUL_R_READ), -FUL_ENOMEM);
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)f16, PT_VA + PT_1G,
			    FUL_R_READ), -FUL_ENOMEM);
	UT_CHECK_EQ(pt_used((unsigned)cs), u0 + 3 * PT_PAGE);
	UT_CHECK_EQ(ful_unmap((unsigned)vs, PT_VA + PT_2M - 8 * PT_PAGE),
		    -FUL_ESTATE);
	UT_CHECK_EQ(ful_unmap((unsigned)vs, PT_VA + PT_1G), -FUL_ESTATE);
	/* The same frame where the tables exist maps, and the first two
	 * mappings are still there. */
	UT_CHECK_EQ(ful_map((unsigned)vs, (unsigned)f16, PT_VA + 8 * PT_PAGE,
			    FUL_R_READ), 0);
	UT_CHECK_EQ(ful_unmap((unsigned)vs, PT_VA), 0);
	UT_CHECK_EQ(ful_unmap((unsigned)vs, PT_VA + PT_PAGE), 0);
	UT_CHECK_EQ(ful_unmap((unsigned)vs, PT_VA + 8 * PT_PAGE), 0);
	/* Tables stay with the vspace until it is destroyed. */
	UT_CHECK_EQ(pt_used((unsigned)cs), u0 + 3 * PT_PAGE);
	ful_slot_drop((unsigned)vs);
	UT_WAIT(pt_used((unsigned)cs) == 0);
	ful_slot_drop((unsigned)cs);
	ful_slot_drop((unsigned)f1);
	ful_slot_drop((unsigned)f2);
	ful_slot_drop((unsigned)f16);
	UT_WAIT(pt_used(FUL_SLOT_POOL) == root0);
	printf("pool: a page-table page charges %lu bytes to its vspace's "
	       "pool; a MAP it cannot pay for changes nothing\n", PT_PAGE);
}
