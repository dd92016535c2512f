/*
 * ubench=wake: wake-up latency under stress, paper 004's Figure 7
 * (cyclictest under hackbench-like load), once per balancing policy.
 *
 * The measured thread runs at the highest user priority, pinned to core
 * 1. It waits on a notification nobody signals with a 1 ms timeout
 * (62,500 counter ticks at 62.5 MHz: exact, no rounding) and takes
 * latency = wake-up time - (time before the call + 1 ms), in counter
 * ticks, wk_samples times (default 10,000; boot argument wake_samples=,
 * 100 to 10,000; 10 under bench_quick).
 * The figure includes the system-call entry, as cyclictest's includes
 * clock_nanosleep's. Under -icount shift=0 one nanosecond is one
 * instruction, so ticks * 16 are instructions (resolution 16).
 *
 * Stress on every core meanwhile, all threads of this program:
 *   hogs      ncpus + 2 CPU-bound threads, nice -5..5 in turn
 *   ping-pong one call/reply pair per core, client on core c, server
 *             on core c + 1
 *   churn     one thread that keeps creating a short thread (a spin of
 *             about 20,000 iterations) and reaping it
 * With a balancer (every policy but "off") the stress threads are
 * placed by the policy (bal_thread_spawn) and rebalanced on its timer;
 * mginkgo and fulcrum run at a 10 ms period, the "always balance" side.
 * Policies this kernel does not have are skipped (a line says so).
 *
 * Boot arguments: wake_policy=NAME runs one policy only; wake_nostress
 * measures an idle system (the floor); wake_stress=MASK keeps only some
 * stress (1 hogs, 2 ping-pong, 4 churn); wake_cpu=N measures on core N
 * instead of core 1; wake_stress_here puts every stress thread on the
 * measured core (the others idle: with policy off, the run where only
 * that core is busy; results named wake_latency_here_<policy> and so
 * on); wake_mttcg names the results
 * wake_latency_mttcg_<policy> in ns, for a run under multi-threaded TCG
 * (time, not instructions; `make bench` runs it on 2 cores, one vCPU per
 * host core).
 * Output per policy: BENCH wake_latency_<policy> insn 101 p0 .. p100
 * (so min, median and max are exact), BENCH-STAT lines for mean and
 * p99, a WAKE-HIST line (log2 buckets of instructions), BENCH
 * migrations_wake_<policy> (threads that changed core during the run,
 * from the load area's mig_in), and a WAKE-PATH-SEG line: which segment
 * of the wake_path plugin's output is this policy's (the measured
 * thread marks its waits with HINTs, NOPs to the core; with the plugin
 * loaded, tools/bench_report.py --wake-path-plugin adds the core's own
 * instructions from the waking interrupt to the thread's first
 * instruction after its wait: wake_path_<policy>, docs/bench-wake.md).
 *
 * On the instrumented kernel (build/kernel-irqstat.elf, which answers
 * FUL_SYS_IRQSTAT; the default kernel says ENOSYS and none of this is
 * printed) the controlling thread also reads the measured core's
 * IRQ-masked stretches (<fulcrum/irqstat.h>): reset when the policy's
 * run starts, then read and reset at each of its 100 ms wake-ups (a
 * window), the last at the run's end. Output: BENCH
 * wake_irqmask_<policy> (or wake_irqmask_mttcg_<policy>) with the
 * longest stretch of each window as samples, sorted (their 101
 * percentiles beyond 101 windows) (PMCCNTR: instructions
 * under icount, ns under multi-threaded TCG), BENCH-STAT fields for the
 * longest one's cause (max_kind, max_detail, max_end, max_resumed) and
 * the stretch count and mean, an IRQMASK-MAX line naming the cause and
 * an IRQMASK-HIST line (log2 buckets of every stretch of the run).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ful/ful.h>
#include <ful/load.h>

#include "../balancer/balancer.h"
#include "tests/user/tests/utest.h"
#include "ub.h"

#define WK_MAX_SAMPLES 10000
#define WK_MIN_SAMPLES 100
#define WK_QUICK_SAMPLES 10 /* under bench_quick */
#define WK_TIMEOUT_US 1000
#define WK_PRIO 250
#define WK_STRESS_PRIO 100
#define WK_MAX_THREADS 48
#define WK_NS_PER_TICK 16 /* at 62.5 MHz */
#define WK_MAX_WINDOWS 1024

/* The markers of the wake_path plugin (tools/plugin/wake_path.c, its
 * default immediates): HINTs of the unallocated HINT space, which the
 * core executes as NOPs. SEG: a policy's run begins (the plugin numbers
 * its segments 0, 1, ... as wk_nseg does here); ARM and MARK bracket
 * each wait (wk_wait). */
#define WK_HINT_SEG "hint #0x7d"
#define WK_HINT_ARM "hint #0x7e"
#define WK_HINT_MARK "hint #0x7f"

static const char *const wk_policies[] = {"off",   "mginkgo", "fulcrum",
					  "count", "alb",     "opzone"};

static struct wk {
	unsigned ncpus, nsamples;
	_Atomic unsigned stop, measured_done;
	long ntfn, eps[FUL_LOAD_CPUS];
	bool balanced, no_stress;
	bool mttcg; /* wake_mttcg: names wake_latency_mttcg_<p>, unit ns */
	unsigned mask; /* wake_stress=: 1 hogs, 2 ping-pong, 4 churn */
	unsigned cpu;  /* wake_cpu=: the measured core */
	bool here;     /* wake_stress_here: every stress thread on it */
	unsigned seg; /* the plugin's segment of this policy's run */
	struct ful_thread th[WK_MAX_THREADS];
	unsigned nth;
	unsigned long lat[WK_MAX_SAMPLES];
} wk;

/* The measured core's IRQ-masked stretches (instrumented kernel only). */
/** The infix of the result names: mttcg_ (wake_mttcg), here_
 *  (wake_stress_here), both, or none. */
static const char *wk_tag(void)
{
	return wk.mttcg ? (wk.here ? "mttcg_here_" : "mttcg_")
			: (wk.here ? "here_" : "");
}

static struct wk_irq {
	bool on;      /* FUL_SYS_IRQSTAT answered: the kernel keeps them */
	unsigned nwin;
	unsigned long win_max[WK_MAX_WINDOWS]; /* longest of each window */
	struct ful_irqstat all; /* the run: merged windows */
} wki;

/** Start the measured core's figures afresh (and learn whether the
 *  kernel keeps them). */
static void wk_irq_start(void)
{
	memset(&wki, 0, sizeof wki);
	wki.on = ful_irqstat(FUL_SLOT_SCHED, wk.cpu, NULL,
			     FUL_IRQSTAT_RESET) == 0;
}

/** End a window: read and reset the measured core's figures, merge. */
static void wk_irq_window(void)
{
	struct ful_irqstat s;
	if (!wki.on ||
	    ful_irqstat(FUL_SLOT_SCHED, wk.cpu, &s, FUL_IRQSTAT_RESET) ||
	    !s.count)
		return;
	if (wki.nwin < WK_MAX_WINDOWS)
		wki.win_max[wki.nwin++] = s.max;
	if (s.max > wki.all.max || !wki.all.count) {
		wki.all.max = s.max;
		wki.all.max_cause = s.max_cause;
		wki.all.max_end = s.max_end;
	}
	wki.all.count += s.count;
	wki.all.total += s.total;
	for (unsigned b = 0; b < FUL_IRQSTAT_BUCKETS; b++)
		wki.all.hist[b] += s.hist[b];
}

static const char *wk_irq_kind(uint32_t cause)
{
	static const char *const k[] = {"?",	   "syscall", "exception",
					"irq-el0", "irq-el1", "kernel",
					"idle"};
	unsigned i = FUL_IRQS_KIND(cause);
	return i < sizeof k / sizeof *k ? k[i] : "?";
}

static int wk_irq_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a,
		      y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/** The IRQ-masked figures of policy @p's run: 1 BENCH line (0 if the
 *  kernel keeps none). */
static unsigned wk_irq_report(const char *p)
{
	if (!wki.on || !wki.nwin)
		return 0;
	static const char *const ends[] = {"?", "eret", "unmask", "window",
					   "wfi"};
	char name[64];
	snprintf(name, sizeof name, "wake_irqmask_%s%s",
		 wk_tag(), p);
	/* the windows' maxima, or their 101 percentiles if more (a BENCH
	 * line holds about 120 values): min, median and max exact */
	unsigned n = wki.nwin;
	unsigned long pct[101];
	qsort(wki.win_max, n, sizeof(wki.win_max[0]), wk_irq_cmp);
	for (unsigned k = 0; k <= 100 && n > 101; k++)
		pct[k] = wki.win_max[(unsigned long)k * (n - 1) / 100];
	ful_bench_print(name, wk.mttcg ? "ns" : "insn",
			n > 101 ? pct : wki.win_max, n > 101 ? 101 : n);
	printf("BENCH-STAT %s windows %u\n", name, n);
	uint32_t c = wki.all.max_cause;
	printf("BENCH-STAT %s max_kind %u\nBENCH-STAT %s max_detail %u\n"
	       "BENCH-STAT %s max_end %u\nBENCH-STAT %s max_resumed %u\n"
	       "BENCH-STAT %s stretches %lu\nBENCH-STAT %s stretch_mean %lu\n",
	       name, FUL_IRQS_KIND(c), name, FUL_IRQS_DETAIL(c), name,
	       wki.all.max_end, name, c & FUL_IRQS_RESUMED ? 1u : 0u, name,
	       (unsigned long)wki.all.count, name,
	       (unsigned long)(wki.all.total / wki.all.count));
	printf("IRQMASK-MAX %s %lu %s %u%s ended by %s (core %u, %u windows)\n",
	       p, (unsigned long)wki.all.max, wk_irq_kind(c),
	       FUL_IRQS_DETAIL(c), c & FUL_IRQS_RESUMED ? " resumed" : "",
	       wki.all.max_end < 5 ? ends[wki.all.max_end] : "?", wk.cpu,
	       wki.nwin);
	printf("IRQMASK-HIST %s", p);
	for (unsigned b = 0; b < FUL_IRQSTAT_BUCKETS; b++)
		if (wki.all.hist[b])
			printf(" <%lu:%lu", 1UL << (b + 1),
			       (unsigned long)wki.all.hist[b]);
	printf("\n");
	return 1;
}

static void wk_hog(void *arg)
{
	(void)arg;
	volatile unsigned long x = 0;
	while (!atomic_load_explicit(&wk.stop, memory_order_relaxed))
		x++;
}

static void wk_server(void *arg)
{
	unsigned ep = (unsigned)(unsigned long)arg;
	struct ful_msg m = {0};
	long r = ful_recv(ep, &m, 10000);
	while (!atomic_load(&wk.stop)) {
		m.info = FUL_MSG(1, 0);
		r = r ? ful_recv(ep, &m, 10000) : ful_reply_recv(ep, &m, 10000);
	}
}

static void wk_client(void *arg)
{
	unsigned ep = (unsigned)(unsigned long)arg;
	while (!atomic_load(&wk.stop)) {
		struct ful_msg m = {.info = FUL_MSG(2, 0), .mr = {1}};
		ful_call(ep, &m, 10000);
	}
}

static void wk_short(void *arg)
{
	(void)arg;
	volatile unsigned long x = 0;
	for (unsigned i = 0; i < 20000; i++)
		x++;
}

/** Spawn @fn(@arg) on @cpu (or where the policy places it). */
static int wk_spawn(void (*fn)(void *), void *arg, unsigned cpu, int nice,
		    struct ful_thread *out)
{
	if (wk.here)
		cpu = wk.cpu;
	struct ful_thread_args a = {.fn = fn, .arg = arg,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS,
				    .prio = WK_STRESS_PRIO, .cpu = cpu,
				    .slice_ms = 5, .nice = nice,
				    .stack_size = 8192, .name = "wk-stress"};
	return wk.balanced ? bal_thread_spawn(&a, out)
			   : ful_thread_spawn(&a, out);
}

static void wk_churn(void *arg)
{
	(void)arg;
	unsigned k = 0;
	while (!atomic_load(&wk.stop)) {
		struct ful_thread t;
		if (wk_spawn(wk_short, NULL, k++ % wk.ncpus, 0, &t) == 0)
			ful_thread_reap(&t, 2000000);
		else
			ful_yield();
	}
}

/** Start the stress threads; 0 or -FUL_E*. */
static int wk_stress_start(void)
{
	int err = 0;
	unsigned n = wk.ncpus;
	for (unsigned i = 0; i < n + 2 && !err && (wk.mask & 1); i++)
		err = wk_spawn(wk_hog, NULL, i % n, (int)(i % 11) - 5,
			       &wk.th[wk.nth++]);
	for (unsigned c = 0; c < n && !err && (wk.mask & 2); c++) {
		void *ep = (void *)(unsigned long)wk.eps[c];
		err = wk_spawn(wk_server, ep, (c + 1) % n, 0, &wk.th[wk.nth++]);
		if (!err)
			err = wk_spawn(wk_client, ep, c, 0, &wk.th[wk.nth++]);
	}
	if (!err && (wk.mask & 4))
		err = wk_spawn(wk_churn, NULL, 0, 0, &wk.th[wk.nth++]);
	return err;
}

static void wk_stress_stop(void)
{
	atomic_store(&wk.stop, 1);
	for (unsigned i = 0; i < wk.nth; i++)
		if (!ful_thread_reap(&wk.th[i], 10000000))
			printf("wake: a stress thread did not end\n");
	wk.nth = 0;
}

/** ful_ntfn_wait(@ntfn, NULL, @timeout_us) with the plugin's markers:
 *  ARM the instruction before the svc, MARK the first one after it (one
 *  asm statement, so nothing the compiler schedules comes between). */
static inline long wk_wait(unsigned ntfn, unsigned long timeout_us)
{
	register unsigned long x0 __asm__("x0") = ntfn;
	register unsigned long x1 __asm__("x1") = 0;
	register unsigned long x2 __asm__("x2") = 0;
	register unsigned long x3 __asm__("x3") = 0;
	register unsigned long x4 __asm__("x4") = 0;
	register unsigned long x5 __asm__("x5") = 0;
	register unsigned long x6 __asm__("x6") = timeout_us;
	register unsigned long x7 __asm__("x7") = 0;
	register unsigned long x8 __asm__("x8") = FUL_SYS_NTFN_WAIT;
	__asm__ volatile(WK_HINT_ARM "\n\tsvc #0\n\t" WK_HINT_MARK
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4),
			   "+r"(x5), "+r"(x6), "+r"(x7)
			 : "r"(x8)
			 : "memory");
	return (long)x0;
}

/** Runs of the measured thread so far: the plugin's segment numbers. */
static unsigned wk_nseg;

/** The measured thread: pinned to core 1 by its spawn and affinity. */
static void wk_measured(void *arg)
{
	(void)arg;
	unsigned long step = ful_us_to_ticks(WK_TIMEOUT_US);
	__asm__ volatile(WK_HINT_SEG ::: "memory");
	wk.seg = wk_nseg++;
	for (unsigned i = 0; i < wk.nsamples; i++) {
		unsigned long t0 = ful_counter();
		wk_wait((unsigned)wk.ntfn, WK_TIMEOUT_US);
		unsigned long t1 = ful_counter();
		wk.lat[i] = t1 > t0 + step ? (t1 - t0 - step) * WK_NS_PER_TICK
					   : 0;
	}
	atomic_store(&wk.measured_done, 1);
}

static int wk_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a,
		      y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/** Print the distribution of policy @p: 2 BENCH lines. */
static unsigned wk_report(const char *p, unsigned long migrations)
{
	unsigned n = wk.nsamples;
	unsigned long pct[101], sum = 0, hist[24] = {0};
	qsort(wk.lat, n, sizeof(wk.lat[0]), wk_cmp);
	for (unsigned i = 0; i < n; i++) {
		sum += wk.lat[i];
		unsigned b = 0;
		while (b < 23 && (1UL << (b + 1)) <= wk.lat[i])
			b++;
		hist[b]++;
	}
	for (unsigned k = 0; k <= 100; k++)
		pct[k] = wk.lat[(unsigned long)k * (n - 1) / 100];
	char name[64];
	snprintf(name, sizeof name, "wake_latency_%s%s", wk_tag(),
		 p);
	ful_bench_print(name, wk.mttcg ? "ns" : "insn", pct, 101);
	printf("BENCH-STAT %s mean %lu\nBENCH-STAT %s p99 %lu\n"
	       "BENCH-STAT %s samples_taken %u\n", name, sum / n, name,
	       pct[99], name, n);
	printf("WAKE-HIST %s", p);
	for (unsigned b = 0; b < 24; b++)
		if (hist[b])
			printf(" <%lu:%lu", 1UL << (b + 1), hist[b]);
	printf("\n");
	snprintf(name, sizeof name, "migrations_wake_%s%s",
		 wk_tag(), p);
	ful_bench_print(name, "threads", &migrations, 1);
	/* which plugin segment is this policy's (tools/bench_report.py
	 * names the plugin's figures wake_path_<tag><policy> by it) */
	printf("WAKE-PATH-SEG %u wake_path_%s%s\n", wk.seg, wk_tag(), p);
	return 2;
}

/** Threads that arrived at some core so far (the load area). */
static unsigned long wk_mig_in(void)
{
	unsigned long sum = 0;
	for (unsigned c = 0; c < wk.ncpus; c++) {
		struct ful_load_cpu r;
		ful_load_read_cpu(ful_load_area(), c, &r);
		sum += r.mig_in;
	}
	return sum;
}

/** Set the balancer up with policy @p; false if this kernel lacks it. */
static bool wk_balancer(const char *p)
{
	wk.balanced = strcmp(p, "off") != 0;
	if (!wk.balanced)
		return true;
	if (bal_init(p))
		return false;
	if (!strcmp(p, "mginkgo") || !strcmp(p, "fulcrum"))
		bal_tune("period_ms", 10);
	return bal_start() == 0;
}

/** One policy's run; BENCH lines printed. */
static unsigned wk_run(const char *p)
{
	if (!wk_balancer(p)) {
		printf("wake: no policy %s in this kernel, skipped\n", p);
		return 0;
	}
	atomic_store(&wk.stop, 0);
	atomic_store(&wk.measured_done, 0);
	unsigned long m0 = wk_mig_in();
	struct ful_thread meas;
	struct ful_thread_args a = {.fn = wk_measured, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = WK_PRIO,
				    .cpu = wk.cpu, .slice_ms = 10,
				    .name = "wk-measured"};
	int err = wk.no_stress ? 0 : wk_stress_start();
	/* The IRQ-masked figures from before the measured thread starts,
	 * and at least one window read: a short run (bench_quick) can end
	 * before this thread first looks. */
	wk_irq_start();
	if (!err)
		err = ful_thread_spawn(&a, &meas);
	if (!err)
		err = (int)ful_thread_set(FUL_SLOT_SCHED, (unsigned)meas.tid,
					  FUL_TA_AFFINITY, 1ul << wk.cpu);
	if (!err) {
		do {
			ful_ntfn_wait((unsigned)wk.ntfn, NULL, 100000);
			wk_irq_window();
		} while (!atomic_load(&wk.measured_done));
	}
	unsigned long moved = wk_mig_in() - m0;
	wk_stress_stop();
	if (wk.balanced)
		bal_stop();
	if (err) {
		printf("wake: %s: set-up failed: %d\n", p, err);
		return 0;
	}
	ful_thread_reap(&meas, 10000000);
	return wk_report(p, moved) + wk_irq_report(p);
}

unsigned ub_wake_run(void)
{
	char v[16];
	wk.ncpus = ut_ncpus();
	wk.nsamples = WK_MAX_SAMPLES;
	if (ut_bootarg("wake_samples", v, sizeof v)) {
		unsigned long n = strtoul(v, NULL, 10);
		wk.nsamples = n >= WK_MIN_SAMPLES && n <= WK_MAX_SAMPLES
				      ? (unsigned)n
				      : wk.nsamples;
	}
	wk.nsamples = ub_count(wk.nsamples, WK_QUICK_SAMPLES);
	wk.ntfn = ut_ntfn_new();
	for (unsigned c = 0; c < wk.ncpus; c++)
		wk.eps[c] = ut_ep_new();
	wk.no_stress = ut_bootarg("wake_nostress", v, sizeof v);
	wk.mttcg = ut_bootarg("wake_mttcg", v, sizeof v);
	wk.mask = ut_bootarg("wake_stress", v, sizeof v)
			  ? (unsigned)strtoul(v, NULL, 0) & 7
			  : 7;
	wk.cpu = 1;
	if (ut_bootarg("wake_cpu", v, sizeof v))
		wk.cpu = (unsigned)strtoul(v, NULL, 10) % wk.ncpus;
	wk.here = ut_bootarg("wake_stress_here", v, sizeof v);
	char only[16] = "";
	ut_bootarg("wake_policy", only, sizeof only);
	unsigned n = 0;
	for (unsigned i = 0; i < sizeof wk_policies / sizeof *wk_policies; i++)
		if (!only[0] || !strcmp(only, wk_policies[i]))
			n += wk_run(wk_policies[i]);
	return n;
}
