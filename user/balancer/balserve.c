/*
 * A task's own balancer, served to the processes it starts: the
 * benchmark of paper 001 runs the policy under test in its own task
 * (balancer.h) and its workloads are programs of their own, whose
 * threads that policy must place (FUL_CPU_PLACE). They ask on an
 * endpoint of this task, through a placement capability
 * (<fulcrum/balctl.h>, FUL_ROOT_BADGE_PLACE) that ful_proc_spawn hands
 * them in FUL_SLOT_PLACE. One thread answers, on the caller's core at a
 * priority above the workloads': a placement waits for nothing but the
 * balancer's lock, a SETTLE for the thread it names.
 */
#include <stdatomic.h>

#include <fulcrum/balctl.h>
#include <fulcrum/rootsrv.h>

#include "balancer.h"

#define BALSRV_PRIO 190 /* below the balancer thread, above every worker */

static struct {
	atomic_flag lock;
	long ep;    /* the endpoint (ALL), 0 until started */
	long place; /* the placement capability handed on */
	struct ful_thread th;
	_Atomic unsigned long places, settled; /* requests answered */
	_Atomic unsigned long first;           /* counter at the first PLACE */
} srv = {.lock = ATOMIC_FLAG_INIT};

/** Count request @m, answered (@r): placements and settled threads. */
static void balsrv_count(const struct ful_msg *m, const struct ful_msg *r)
{
	unsigned long label = FUL_MSG_LABEL(m->info);
	if ((long)r->mr[0] < 0)
		return;
	if (label == FUL_BAL_PLACE) {
		unsigned long zero = 0;
		atomic_compare_exchange_strong(&srv.first, &zero,
					       ful_counter());
		atomic_fetch_add(&srv.places, 1);
	} else if (label == FUL_BAL_SETTLE) {
		atomic_fetch_add(&srv.settled, 1);
	}
}

/** Answer requests on srv.ep for ever. */
static void balsrv_main(void *arg)
{
	(void)arg;
	struct ful_msg m;
	long err = ful_recv((unsigned)srv.ep, &m, FUL_FOREVER);
	for (;;) {
		if (err < 0) {
			err = ful_recv((unsigned)srv.ep, &m, FUL_FOREVER);
			continue;
		}
		struct ful_msg r;
		bal_ctl_request(&m, &r);
		balsrv_count(&m, &r);
		m = r;
		err = ful_reply_recv((unsigned)srv.ep, &m, FUL_FOREVER);
	}
}

/** Endpoint, badged copy and thread; 0 or -FUL_E* (nothing kept). */
static long balsrv_create(void)
{
	long ep = ful_slot_alloc(), place = ful_slot_alloc();
	long err = ep < 0 ? ep : place < 0 ? place : 0;
	if (!err)
		err = ful_ep_create(FUL_SLOT_POOL, (unsigned)ep);
	if (!err)
		err = ful_cap_copy((unsigned)ep, FUL_SLOT_SELF_VS,
				   (unsigned)place, FUL_R_WRITE,
				   FUL_ROOT_BADGE_PLACE);
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	struct ful_thread_args a = {.fn = balsrv_main,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS,
				    .prio = BALSRV_PRIO,
				    .cpu = si.cpu,
				    .name = "balserve"};
	srv.ep = ep;
	if (!err)
		err = ful_thread_spawn(&a, &srv.th);
	if (!err) {
		srv.place = place;
		return 0;
	}
	srv.ep = 0;
	if (place > 0)
		ful_slot_drop((unsigned)place);
	if (ep > 0)
		ful_slot_drop((unsigned)ep);
	return err;
}

long bal_serve_start(void)
{
	ful_flag_lock(&srv.lock);
	long err = srv.ep ? 0 : balsrv_create();
	long res = err ? err : srv.place;
	ful_flag_unlock(&srv.lock);
	return res;
}

void bal_serve_stats(struct bal_serve_stats *out, bool reset)
{
	out->places = atomic_load(&srv.places);
	out->settled = atomic_load(&srv.settled);
	out->first_place = atomic_load(&srv.first);
	if (reset)
		atomic_store(&srv.first, 0);
}
