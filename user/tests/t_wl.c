/*
 * workloads: paper 001's workloads (user/bench/wl_*.c, run by
 * ubench=alb) at 1 % of their benchmark work: each passes its own check
 * (a non-zero checksum) on this thread, and one thread per core
 * (through the balancer's placement, policy alb) computes the same
 * checksum at once in its own slot. A quick guard that the benchmark's
 * programs still compute what they claim, in make test.
 */
#include <stdatomic.h>
#include <string.h>

#include "../balancer/balancer.h"
#include "../bench/wl.h"
#include "utest.h"

#define WLT_SCALE 1

static const struct wl_def *const wlt_all[] = {
	&wl_lz77, &wl_crc, &wl_queens, &wl_matmul, &wl_memcpy};

struct wlt_thread {
	const struct wl_def *w;
	unsigned slot;
	uint64_t sum;
	struct ful_thread th;
};

static void wlt_main(void *arg)
{
	struct wlt_thread *t = arg;
	t->sum = t->w->work(t->slot);
}

/** Run @w on @n threads placed by the balancer; 0 or -FUL_E*. */
static int wlt_threads(const struct wl_def *w, struct wlt_thread *t,
		       unsigned n)
{
	int err = 0;
	for (unsigned i = 0; i < n; i++) {
		t[i] = (struct wlt_thread){.w = w, .slot = i};
		struct ful_thread_args a = {.fn = wlt_main,
					    .arg = &t[i],
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS,
					    .prio = 100,
					    .slice_ms = 10,
					    .name = w->name};
		if (!err)
			err = bal_thread_spawn(&a, &t[i].th);
	}
	for (unsigned i = 0; i < n; i++)
		if (t[i].th.mem)
			ful_thread_reap(&t[i].th, UT_TIMEOUT_US);
	return err;
}

UTEST(workloads, 1)
{
	static struct wlt_thread t[WL_MAX_THREADS];
	unsigned n = ut_ncpus() < WL_MAX_THREADS ? ut_ncpus() : WL_MAX_THREADS;
	UT_CHECK_EQ(bal_init("alb"), 0);
	for (unsigned k = 0; k < sizeof(wlt_all) / sizeof(wlt_all[0]); k++) {
		const struct wl_def *w = wlt_all[k];
		w->setup(WLT_SCALE);
		uint64_t ref = w->work(0);
		UT_CHECK(ref != 0);
		memset(t, 0, sizeof(t));
		UT_CHECK_EQ(wlt_threads(w, t, n), 0);
		for (unsigned i = 0; i < n; i++)
			UT_CHECK(t[i].sum == ref);
	}
}
