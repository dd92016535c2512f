/*
 * fuzz: the multi-core system-call fuzzer (see fz.h for the files and
 * the capability layout). The rootserver starts it as a system program
 * when booted with fuzz=<seed>. Boot arguments:
 *   fuzz=S          the run's seed (each thread's generator derives
 *                   from it); every failure line prints it
 *   fuzz_calls=N    stop after N calls (all threads; default 100000
 *                   when fuzz_secs is not given)
 *   fuzz_secs=T     stop after T seconds
 *   fuzz_workers=W  worker threads (default 2 per core, 2..8)
 *   fuzz_victims=V  victim slots (default 2 per core, 2..12)
 *   fuzz_ops=M      only the operations of mask M (bit i: fz_ops[i];
 *                   to narrow a failure down)
 *
 * The main thread is the watchdog: every 20 ms it serves the wake-up
 * rendezvous, reaps dead victims, flags a call that has not returned
 * FZ_STUCK_US after its own timeout, a worker that makes no progress
 * outside calls for as long, and a worker that died. At the end it
 * tears everything down and takes the leak census again.
 *
 * Output: FUZZ-BAD lines as failures happen (each with the seed); a
 * FUZZ line with the figures of the run; the harness protocol with four
 * tests, fuzz_results (every result documented, every message intact,
 * every exact check), fuzz_progress (no stuck call, thread or late
 * wake-up), fuzz_leaks (the census) and fuzz_calls (the count reached,
 * every call number made); TEST-DONE. Then "done" to the rootserver.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/load.h>

#include "../tests/utest.h"
#include "fz.h"

struct fz_run fz;
const char fz_ro_zero[FUL_PAGE_SIZE] __attribute__((aligned(4096)));

#define FZ_TICK_US	 20000UL
#define FZ_DEFAULT_CALLS 100000UL

static unsigned long fz_op_mask = ~0UL; /* fuzz_ops: operations drawn */

static unsigned long fz_ms(unsigned long ticks)
{
	return ticks / (ful_counter_freq() / 1000);
}

static unsigned long fz_arg(const char *key, unsigned long def)
{
	char v[32];
	return ut_bootarg(key, v, sizeof v) && v[0] ? strtoul(v, NULL, 0) : def;
}

static unsigned fz_clamp(unsigned long v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : (unsigned)v;
}

/** The run's parameters from the boot arguments. */
static void fz_config(void)
{
	fz.seed = fz_arg("fuzz", 1);
	fz.ncpus = ut_ncpus();
	fz.max_secs = fz_arg("fuzz_secs", 0);
	fz.max_calls = fz_arg("fuzz_calls", fz.max_secs ? 0 : FZ_DEFAULT_CALLS);
	fz.nworkers =
	    fz_clamp(fz_arg("fuzz_workers", 2 * fz.ncpus), 2, FZ_MAX_WORKERS);
	fz.nvictims =
	    fz_clamp(fz_arg("fuzz_victims", 2 * fz.ncpus), 2, FZ_MAX_VICTIMS);
	fz.ro_page = (char *)fz_ro_zero;
	fz_op_mask = fz_arg("fuzz_ops", ~0UL);
}

/** Stop the run once its call count or its time is reached. */
static void fz_check_limits(void)
{
	if ((fz.max_calls && fz_calls_total() >= fz.max_calls) ||
	    (fz.max_secs && fz_ms(ful_counter() - fz.t0) >= fz.max_secs * 1000))
		atomic_store(&fz.stop, 1);
}

/* ---- workers ---- */

/* Operations on a thread context, which victims share. */
static void op_ipc(struct fz_worker *w)
{
	fz_op_ipc(&w->c);
}

static void op_ntfn(struct fz_worker *w)
{
	fz_op_ntfn(&w->c);
}

static void op_cap(struct fz_worker *w)
{
	fz_op_cap(&w->c);
}

static void op_map(struct fz_worker *w)
{
	fz_op_map(&w->c);
}

static void op_raw(struct fz_worker *w)
{
	fz_op_raw(&w->c);
}

/* A worker's operations and their weights; bit i of fuzz_ops is
 * entry i. */
static const struct {
	void (*fn)(struct fz_worker *w);
	unsigned weight;
} fz_ops[] = {
	{op_ipc, 22},            /* 0x001 endpoints, replies */
	{op_ntfn, 10},           /* 0x002 notifications */
	{op_cap, 12},            /* 0x004 create, copy, delete, inspect */
	{op_map, 8},             /* 0x008 the grid, child tasks */
	{fz_op_frame_exact, 3},  /* 0x010 a private frame, exact */
	{fz_op_child, 2},        /* 0x020 threads in child tasks */
	{fz_op_victim, 6},       /* 0x040 spawn and kill victims */
	{fz_op_move, 6},         /* 0x080 MIGRATE, THREAD_MIGRATE */
	{fz_op_set, 5},          /* 0x100 THREAD_SET */
	{fz_op_self, 4},         /* 0x200 checks of itself */
	{fz_op_rendezvous, 1},   /* 0x400 the wake-up rendezvous */
	{op_raw, 21},            /* 0x800 raw calls */
};
#define FZ_NOPS (sizeof fz_ops / sizeof fz_ops[0])

static unsigned fz_weight(unsigned i)
{
	return fz_op_mask >> i & 1 ? fz_ops[i].weight : 0;
}

/** One operation, drawn by weight. */
static void fz_step(struct fz_worker *w)
{
	unsigned total = 0, k;
	for (unsigned i = 0; i < FZ_NOPS; i++)
		total += fz_weight(i);
	k = fz_below(&w->c.rng, total ? total : 1);
	for (unsigned i = 0; i < FZ_NOPS; i++) {
		if (k < fz_weight(i)) {
			fz_ops[i].fn(w);
			return;
		}
		k -= fz_weight(i);
	}
	fz_op_raw(&w->c); /* fuzz_ops=0 */
}

static void fz_worker_main(void *arg)
{
	struct fz_worker *w = arg;
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	w->c.tid = si.tid;
	ful_ntfn_create(FUL_SLOT_POOL, fz_priv(w->c.id, FZ_P_RV));
	while (!atomic_load(&fz.go) && !fz_stopping())
		ful_yield();
	for (unsigned long k = 1; !fz_stopping(); k++) {
		fz_step(w);
		fz_rendezvous_peer(w);
		atomic_fetch_add_explicit(&w->c.hb, 1, memory_order_relaxed);
		if (k % 32 == 0)
			fz_check_limits();
	}
	atomic_store(&w->done, 1);
}

/** Start the workers, worker i on core i mod ncpus. They wait for
 *  fz.go: until then the main thread allocates, and no worker may hold
 *  malloc's lock (see ops_sched.c). */
static int fz_workers_start(void)
{
	for (unsigned i = 0; i < fz.nworkers; i++) {
		struct fz_worker *w = &fz.w[i];
		w->c.id = i;
		w->c.rng.s = fz_seed(fz.seed, i);
		w->c.reply = FZ_R_NONE;
		w->c.scratch = memalign(FUL_PAGE_SIZE, 2 * FUL_PAGE_SIZE);
		struct ful_thread_args a = {.fn = fz_worker_main,
					    .arg = w,
					    .pool = FUL_SLOT_POOL,
					    .vs = FUL_SLOT_SELF_VS,
					    .dst = FZ_SLOT_WORKER0 + i,
					    .prio = FZ_PRIO,
					    .cpu = i % fz.ncpus,
					    .slice_ms = 10,
					    .name = "fz-worker"};
		int err =
		    w->c.scratch ? ful_thread_spawn(&a, &w->th) : -FUL_ENOMEM;
		if (err < 0) {
			fz.nworkers = i; /* the watchdog waits for these */
			atomic_store(&fz.stop, 1);
			return err;
		}
	}
	return 0;
}

/* ---- the watchdog ---- */

struct fz_watch {
	unsigned long hb, since; /* the last heartbeat seen, and when */
	bool flagged;		 /* stuck or dead: not waited for */
};

/** Check worker @i: a call that never returns, no progress, death. */
static void fz_watch_worker(unsigned i, struct fz_watch *wt, unsigned long now)
{
	struct fz_worker *w = &fz.w[i];
	struct fz_ctx *c = &w->c;
	if (atomic_load(&w->done) || wt->flagged)
		return;
	unsigned long t0 = atomic_load(&c->cur.t0), hb = atomic_load(&c->hb);
	if (hb != wt->hb || !wt->since) {
		wt->hb = hb;
		wt->since = now;
	}
	unsigned long stalled_us = fz_ms(now - wt->since) * 1000;
	if (t0 && t0 < now &&
	    fz_ms(now - t0) * 1000 > c->cur.timeout_us + FZ_STUCK_US) {
		fz_bad(c, FZ_PROGRESS, "a call never returned", c->cur.nr,
		       c->cur.a, 0);
		wt->flagged = true;
		fz_diag_thread("worker", c->tid, FZ_SLOT_WORKER0 + i);
	} else if (!t0 && stalled_us > FZ_STUCK_US) {
		fz_bad(c, FZ_PROGRESS, "no progress outside calls for 20 s", 0,
		       NULL, (long)hb);
		wt->flagged = true;
		fz_diag_thread("worker", c->tid, FZ_SLOT_WORKER0 + i);
	} else if (ful_thread_dead(FZ_SLOT_WORKER0 + i) &&
		   !atomic_load(&w->done)) {
		fz_bad(c, FZ_PROGRESS, "a worker died (a fault?)", 0, NULL, 0);
		wt->flagged = true;
	}
	if (wt->flagged)
		atomic_store(&fz.stop, 1);
}

/** True once every worker is done or flagged. */
static bool fz_workers_over(const struct fz_watch *wt)
{
	for (unsigned i = 0; i < fz.nworkers; i++)
		if (!atomic_load(&fz.w[i].done) && !wt[i].flagged)
			return false;
	return true;
}

/** Watch the run until every worker is done (or flagged); false if one
 *  was flagged. */
static bool fz_watch(void)
{
	struct fz_watch wt[FZ_MAX_WORKERS] = {0};
	unsigned long last = fz.t0;
	for (;;) {
		ful_ntfn_wait(FZ_SLOT_TICK, NULL, FZ_TICK_US);
		unsigned long now = ful_counter();
		fz_rendezvous_serve();
		fz_victims_reap(false);
		fz_check_limits();
		for (unsigned i = 0; i < fz.nworkers; i++)
			fz_watch_worker(i, wt, now);
		fz_flush_bad(false);
		if (fz_ms(now - last) >= 10000) {
			last = now;
			fz_say("FUZZ-PROGRESS %lu s, %lu calls\n",
			       fz_ms(now - fz.t0) / 1000, fz_calls_total());
		}
		if (fz_workers_over(wt))
			break;
	}
	for (unsigned i = 0; i < fz.nworkers; i++)
		if (wt[i].flagged)
			return false;
	return true;
}

/* ---- teardown ---- */

/** Poll @done (with the watchdog's tick) for up to @us. */
static bool fz_wait_us(bool (*done)(void), unsigned long us)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(us);
	while (!done()) {
		if (ful_counter() > dl)
			return false;
		fz_victims_reap(true);
		ful_ntfn_wait(FZ_SLOT_TICK, NULL, 10000);
	}
	return true;
}

static bool fz_wait(bool (*done)(void))
{
	return fz_wait_us(done, FZ_STUCK_US);
}

static bool fz_victims_gone(void)
{
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++)
		if (atomic_load(&fz.v[i].state) != FZV_FREE)
			return false;
	return true;
}

/**
 * Victims end by themselves once the run stops (their waits are short),
 * and a stuck victim stops the run. Give them 2 s with the workers gone:
 * a stuck one that ends was held up by the others; one still in its call
 * is lost (FUZZ-DIAG).
 */
static void fz_victims_drain(void)
{
	fz_wait_us(fz_victims_gone, 2000000);
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++) {
		struct fz_victim *v = &fz.v[i];
		bool live = atomic_load(&v->state) == FZV_LIVE;
		if (v->stuck && !live)
			fz_say("FUZZ-DIAG the stuck victim %u ended within 2 s "
			       "of the workers (or a kill already under way "
			       "ended it): held up, not lost (seed %lu)\n",
			       i, fz.seed);
		else if (live && v->c.cur.t0)
			fz_say("FUZZ-DIAG victim %u (tid %lx) still in %s 2 s "
			       "after the workers ended: lost (seed %lu)\n",
			       i, v->th.tid, fz_call_name(v->c.cur.nr), fz.seed);
	}
}

static bool fz_workers_dead(void)
{
	for (unsigned i = 0; i < fz.nworkers; i++)
		if (!ful_thread_dead(FZ_SLOT_WORKER0 + i))
			return false;
	return true;
}

static unsigned fz_base_threads;

static bool fz_threads_back(void)
{
	return fz_census_threads() <= fz_base_threads;
}

/** Kill the victims, reap the workers, empty the arena, wait for every
 *  thread to end. False (and a failure) if something would not end. */
static bool fz_teardown(void)
{
	atomic_store(&fz.stop, 1);
	fz_victims_drain();
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++)
		if (atomic_load(&fz.v[i].state) == FZV_LIVE)
			ful_thread_kill(FZ_SLOT_VICTIM0 + i);
	if (!fz_wait(fz_victims_gone)) {
		fz_bad_text(FZ_PROGRESS, "victims did not die at teardown");
		return false;
	}
	if (!fz_wait(fz_workers_dead)) {
		fz_bad_text(FZ_PROGRESS, "workers did not end at teardown");
		return false;
	}
	for (unsigned i = 0; i < fz.nworkers; i++) {
		ful_cap_delete(FZ_SLOT_WORKER0 + i);
		free(fz.w[i].th.mem);
		free(fz.w[i].c.scratch);
	}
	/* Nobody else takes malloc's lock now. */
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++)
		free(fz.v[i].stale_mem);
	fz_arena_clear();
	if (!fz_wait(fz_threads_back)) {
		fz_bad_text(FZ_PROGRESS, "threads still alive after teardown");
		return false;
	}
	return true;
}

/* ---- the report ---- */

/** Compare the census before (@a) and after (@b). */
static void fz_census_check(const struct fz_census *a,
			    const struct fz_census *b)
{
	static const char *const names[] = {"pool pages",    "endpoints",
					    "notifications", "vspaces",
					    "frames",	     "threads"};
	unsigned long va[] = {a->pool_pages, a->eps,	a->ntfns,
			      a->vspaces,    a->frames, a->threads};
	unsigned long vb[] = {b->pool_pages, b->eps,	b->ntfns,
			      b->vspaces,    b->frames, b->threads};
	for (unsigned i = 0; i < 6; i++) {
		/* Fewer live threads after is no leak: a thread of another
		 * task (the rootserver's) that was ending at the first
		 * census has since gone (seen once, 3 before, 2 after). */
		if (va[i] == vb[i] || (i == 5 && vb[i] < va[i]))
			continue;
		char text[120];
		snprintf(text, sizeof text, "%s: %lu %s before, %lu after",
			 names[i], va[i], i == 5 ? "live" : "free", vb[i]);
		fz_bad_text(FZ_LEAKS, text);
	}
}

static unsigned long fz_busy0[FUL_LOAD_CPUS], fz_idle0[FUL_LOAD_CPUS];

/** Remember (@start) or print how busy each core was during the run. */
static void fz_cores(bool start)
{
	char line[200];
	int n = snprintf(line, sizeof line, "FUZZ-CORES busy%%");
	for (unsigned i = 0; i < fz.ncpus && i < FUL_LOAD_CPUS; i++) {
		struct ful_load_cpu lc;
		ful_load_read_cpu(ful_load_area(), i, &lc);
		if (start) {
			fz_busy0[i] = lc.busy;
			fz_idle0[i] = lc.idle;
			continue;
		}
		unsigned long b = lc.busy - fz_busy0[i],
			      d = lc.idle - fz_idle0[i];
		n += snprintf(line + n, sizeof line - n, " %lu",
			      b * 100 / (b + d ? b + d : 1));
	}
	if (!start)
		fz_say("%s\n", line);
}

/** Print the figures of the run. */
static void fz_print_figures(unsigned long ticks)
{
	struct fz_stats st;
	fz_stats_sum(&st);
	unsigned long calls = fz_calls_total(),
		      ms = fz_ms(ticks) ? fz_ms(ticks) : 1;
	fz_say("FUZZ calls=%lu secs=%lu.%03lu calls_per_s=%lu seed=%lu cpus=%u "
	       "workers=%u victims=%u\n",
	       calls, ms / 1000, ms % 1000, calls * 1000 / ms, fz.seed,
	       fz.ncpus, fz.nworkers, fz.nvictims);
	char line[900];
	int n = snprintf(line, sizeof line, "FUZZ-CALLS");
	for (unsigned i = 0; i < FZ_NCALLS && n < (int)sizeof line; i++)
		n += snprintf(line + n, sizeof line - n, " %s=%lu",
			      fz_call_name(i), st.calls[i]);
	fz_say("%s\n", line);
	n = snprintf(line, sizeof line, "FUZZ-RESULTS ok=%lu", st.ok);
	for (unsigned e = 1; e < FUL_NERRNO && n < (int)sizeof line; e++)
		n += snprintf(line + n, sizeof line - n, " -%u=%lu", e,
			      st.err[e]);
	fz_say("%s\n", line);
	fz_say(
	    "FUZZ-THREADS victims=%lu kills=%lu child=%lu late_wakeups=%lu\n",
	    atomic_load(&fz.victim_spawns), atomic_load(&fz.victim_kills),
	    atomic_load(&fz.child_threads), atomic_load(&fz.late_wakeups));
}

/** Why fuzz_calls fails, or NULL: the count, and every call made. */
static const char *fz_calls_problem(char *buf, size_t n)
{
	struct fz_stats st;
	fz_stats_sum(&st);
	unsigned long calls = fz_calls_total();
	if (calls < fz.max_calls || !calls) {
		snprintf(buf, n, "%lu calls, wanted %lu (seed %lu)", calls,
			 fz.max_calls, fz.seed);
		return buf;
	}
	for (unsigned i = 0; i < FZ_NCALLS; i++) {
		if (st.calls[i])
			continue;
		snprintf(buf, n, "no call of %s (seed %lu)", fz_call_name(i),
			 fz.seed);
		return buf;
	}
	return NULL;
}

/** One TEST line; returns 1 if it failed. */
static unsigned fz_test(const char *name, const char *why)
{
	if (!why) {
		fz_say("TEST-PASS fuzz_%s\n", name);
		return 0;
	}
	fz_say("TEST-FAIL fuzz_%s :: %s\n", name, why);
	return 1;
}

/** The protocol: four tests, TEST-DONE. Returns the failures. */
static unsigned fz_report(bool census_ok)
{
	static const char *const names[FZ_NCLASSES] = {"results", "progress",
						       "leaks"};
	char why[FZ_NCLASSES][480], calls[120];
	unsigned failed = 0;
	fz_flush_bad(true);
	for (unsigned k = 0; k < FZ_NCLASSES; k++) {
		unsigned long n = atomic_load(&fz.bad[k]);
		snprintf(why[k], sizeof why[k], "%lu failures; first: %s", n,
			 fz_first_bad(k));
		if (k == FZ_LEAKS && !census_ok && !n)
			snprintf(why[k], sizeof why[k],
				 "no census after a stuck thread or a failed "
				 "probe (seed %lu)", fz.seed);
		bool bad = n || (k == FZ_LEAKS && !census_ok);
		failed += fz_test(names[k], bad ? why[k] : NULL);
	}
	failed += fz_test("calls", fz_calls_problem(calls, sizeof calls));
	fz_say("TEST-DONE %u %u\n", 4 - failed, failed);
	return failed;
}

/** Set up, run, watch, tear down; true if the census could be taken
 *  after teardown (into @after). */
static bool fz_run(const struct fz_census *before, struct fz_census *after,
		   unsigned long *ticks)
{
	int err = (int)ful_ntfn_create(FUL_SLOT_POOL, FZ_SLOT_TICK);
	if (!err)
		err = fz_arena_init();
	fz.t0 = ful_counter();
	fz_cores(true);
	if (!err)
		err = fz_workers_start();
	else
		fz.nworkers = 0;
	atomic_store(&fz.go, 1);
	if (err) {
		char text[80];
		snprintf(text, sizeof text, "set-up failed: %d", err);
		fz_bad_text(FZ_PROGRESS, text);
	}
	bool ok = fz_watch();
	*ticks = ful_counter() - fz.t0;
	fz_cores(false);
	fz_base_threads = before->threads;
	ok = ok && !err && fz_teardown();
	ful_cap_delete(FZ_SLOT_TICK);
	return ok && fz_census_take(after) == 0;
}

int main(void)
{
	struct fz_census before, after;
	unsigned long ticks;
	fz_config();
	if (!ut_wait_alone())
		fz_say("fuzz: my core is not quiet at the start\n");
	fz_say("fuzz: seed %lu, %u cores, %u workers, %u victims, %lu calls, "
	       "%lu s\n",
	       fz.seed, fz.ncpus, fz.nworkers, fz.nvictims, fz.max_calls,
	       fz.max_secs);
	bool census_ok = fz_tables_warm() == 0 && fz_census_take(&before) == 0;
	census_ok = fz_run(&before, &after, &ticks) && census_ok;
	if (census_ok)
		fz_census_check(&before, &after);
	fz_print_figures(ticks);
	struct ful_msg m = {.mr = {fz_report(census_ok)}};
	ful_send(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	return 0;
}
