/*
 * The main of every workload program (wl.h). Arguments, each optional:
 *   threads=N  1..WL_MAX_THREADS threads (default 5, paper 001's count)
 *   nice=N     -20..19, every thread's nice value (default 0)
 *   scale=N    1..10000 percent of the default work (default 100)
 *   prio=N     1..199, the threads' priority (default 100)
 *   -v         one line at the end: the threads, cores and checksum
 * The threads start where the balancer behind FUL_SLOT_PLACE says
 * (<fulcrum/balctl.h>; without one, on this thread's core); this thread
 * then sleeps until the last one has finished, so that it adds nothing
 * to the load the balancer sees. Needs a pool and its own vspace
 * (ful_proc_attr.pool_kib). Exit status: 0 when every thread computed
 * the same non-zero checksum (each workload checks its own result), 1
 * when one did not or a thread could not start, 2 on a usage error.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/ful.h>

#include "wl.h"

#define WP_THREADS 5
#define WP_PRIO	   100
#define WP_SLICE   10
#define WP_REAP_US 5000000UL
#define WP_LOOK_US 100000 /* how often dead threads are looked for */

static struct {
	const struct wl_def *w;
	long done; /* notification: the last thread has finished */
	_Atomic unsigned left;
	uint64_t sum[WL_MAX_THREADS];
	unsigned cpu[WL_MAX_THREADS]; /* where each finished */
	_Atomic bool finished[WL_MAX_THREADS];
	struct ful_thread th[WL_MAX_THREADS];
} wp;

struct wp_args {
	unsigned threads, scale, prio;
	int nice;
	bool verbose;
};

static void wp_thread(void *arg)
{
	unsigned slot = (unsigned)(unsigned long)arg;
	wp.sum[slot] = wp.w->work(slot);
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	wp.cpu[slot] = si.cpu;
	atomic_store(&wp.finished[slot], true);
	if (atomic_fetch_sub(&wp.left, 1) == 1)
		ful_ntfn_signal((unsigned)wp.done, 1);
}

/** "key=N" with N in [lo, hi] into *@out: true if @arg is @key's. */
static bool wp_num(const char *arg, const char *key, long lo, long hi,
		   long *out, bool *bad)
{
	size_t n = strlen(key);
	if (strncmp(arg, key, n) || arg[n] != '=')
		return false;
	char *end;
	long v = strtol(arg + n + 1, &end, 10);
	if (!arg[n + 1] || *end || v < lo || v > hi)
		*bad = true;
	else
		*out = v;
	return true;
}

/** Parse @argv into @a: false on a usage error. */
static bool wp_parse(int argc, char **argv, struct wp_args *a)
{
	*a = (struct wp_args){WP_THREADS, 100, WP_PRIO, 0, false};
	bool bad = false;
	for (int i = 1; i < argc && !bad; i++) {
		long v;
		const char *s = argv[i];
		if (!strcmp(s, "-v"))
			a->verbose = true;
		else if (wp_num(s, "threads", 1, WL_MAX_THREADS, &v, &bad))
			a->threads = bad ? 0 : (unsigned)v;
		else if (wp_num(s, "nice", -20, 19, &v, &bad))
			a->nice = bad ? 0 : (int)v;
		else if (wp_num(s, "scale", 1, 10000, &v, &bad))
			a->scale = bad ? 0 : (unsigned)v;
		else if (wp_num(s, "prio", 1, 199, &v, &bad))
			a->prio = bad ? 0 : (unsigned)v;
		else
			bad = true;
	}
	return !bad;
}

/** Start the threads; how many started (the rest are counted done). */
static unsigned wp_start(const struct wp_args *a)
{
	atomic_store(&wp.left, a->threads);
	for (unsigned i = 0; i < a->threads; i++) {
		struct ful_thread_args t = {.fn = wp_thread,
					    .arg = (void *)(unsigned long)i,
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS,
					    .prio = a->prio,
					    .cpu = FUL_CPU_PLACE,
					    .slice_ms = WP_SLICE,
					    .nice = a->nice,
					    .name = wp.w->name};
		int err = ful_thread_spawn(&t, &wp.th[i]);
		if (err) {
			printf("%s: thread %u: error %d\n", wp.w->name, i, err);
			atomic_fetch_sub(&wp.left, a->threads - i);
			return i;
		}
	}
	return a->threads;
}

/** Sleep until the @n threads have finished; one that died first (a
 *  fault kills the thread, not the process) is named and counted as
 *  finished with no sum, so that the check fails instead of a hang. */
static void wp_wait(unsigned n)
{
	bool dead[WL_MAX_THREADS] = {0};
	unsigned long bits;
	while (atomic_load(&wp.left)) {
		ful_ntfn_wait((unsigned)wp.done, &bits, WP_LOOK_US);
		/* dead first: a thread sets finished before it ends, so
		 * once it is dead, finished no longer changes */
		for (unsigned i = 0; i < n; i++)
			if (!dead[i] && ful_thread_dead(wp.th[i].slot) &&
			    !atomic_load(&wp.finished[i])) {
				dead[i] = true;
				printf("%s: thread %u died\n", wp.w->name, i);
				atomic_fetch_sub(&wp.left, 1);
			}
	}
}

/** Did every one of the @n threads compute the same non-zero sum? */
static bool wp_check(unsigned n)
{
	bool ok = true;
	for (unsigned i = 0; i < n; i++)
		if (!wp.sum[i] || wp.sum[i] != wp.sum[0]) {
			printf("%s: thread %u computed a wrong result\n",
			       wp.w->name, i);
			ok = false;
		}
	return ok;
}

int wl_prog_main(const struct wl_def *w, int argc, char **argv)
{
	struct wp_args a;
	wp.w = w;
	if (!wp_parse(argc, argv, &a)) {
		printf("usage: %s [threads=1..%u] [nice=-20..19] "
		       "[scale=1..10000] [prio=1..199] [-v]\n", w->name,
		       WL_MAX_THREADS);
		return 2;
	}
	long slot = ful_slot_alloc();
	wp.done = slot < 0 ? slot : ful_ntfn_create(FUL_SLOT_POOL,
						    (unsigned)slot);
	if (wp.done < 0) {
		printf("%s: no notification: error %ld\n", w->name, wp.done);
		return 1;
	}
	wp.done = slot;
	w->setup(a.scale);
	unsigned n = wp_start(&a);
	wp_wait(n);
	for (unsigned i = 0; i < n; i++)
		if (!ful_thread_reap(&wp.th[i], WP_REAP_US))
			printf("%s: thread %u did not end\n", w->name, i);
	bool ok = n == a.threads && wp_check(n);
	if (a.verbose) {
		printf("%s (for %s): %u threads at nice %d on cores", w->name,
		       w->paper, n, a.nice);
		for (unsigned i = 0; i < n; i++)
			printf(" %u", wp.cpu[i]);
		printf(", checksum %#lx: %s\n", (unsigned long)wp.sum[0],
		       ok ? "ok" : "WRONG");
	}
	return ok ? 0 : 1;
}
