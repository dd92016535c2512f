/*
 * Utilization windows (load area version 3), black box:
 *   util_set_validates   FUL_SYS_UTIL_SET: range and capability checks,
 *                        the header's new epoch, length and indexes
 *   util_busy_idle_duty  one thread on a core, busy, then at 50 % duty
 *                        (its own sleeps), then blocked: the core's
 *                        sliding utilization (read-time corrected while
 *                        tickless), the published figures, another idle
 *                        core, the average, and the thread's run time in
 *                        the current and the last window
 * Windows of UW_MS (set through the call, put back to the default
 * after): long enough that the host's scheduling of the vCPUs (time
 * runs on while a vCPU is stopped) averages out. Every wait is on the
 * counter or a condition, with UT_WAIT's timeout; tolerances are in
 * scheduler ticks per window (UW_TOL_PM), wider for the duty cycle,
 * whose busy and idle halves the host's scheduling can stretch.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/load.h>

#include <ful/load.h>

#include "utest.h"

#define UW_MS 100
/* 4 ticks of 1 ms per window: the tick a record may lag, the tick the
 * thread's record may lag, sleep and wake-up edges, kernel work. */
#define UW_TOL_PM (4 * 1000 / UW_MS)
#define UW_TRIES 8 /* runs of the half-busy phase before it fails */

static struct ful_load_cpu uw_cpu(unsigned cpu)
{
	struct ful_load_cpu c;
	ful_load_read_cpu(ful_load_area(), cpu, &c);
	return c;
}

static struct ful_load_thread uw_thread(unsigned tid)
{
	struct ful_load_thread t;
	ful_load_read_thread(ful_load_area(), FUL_TID_SLOT(tid), &t);
	return t;
}

/** Yield until the counter reaches @t (waits on the counter). */
static void uw_until(unsigned long t)
{
	while (ful_counter() < t)
		ful_yield();
}

UTEST(util_set_validates, 1)
{
	const struct ful_load_page *pg = ful_load_area();
	struct ful_win_par old, p;
	ful_load_util_par(pg, &old);
	UT_CHECK(old.win > 0);
	UT_CHECK_EQ(pg->hdr.util_long, old.win * FUL_UTIL_LONG_WINS);
	static const unsigned long bad[] = {0, FUL_UTIL_WIN_MS_MIN - 1,
					    FUL_UTIL_WIN_MS_MAX + 1,
					    1UL << 32 | 100, ~0UL};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		UT_CHECK_EQ(ful_util_set(FUL_SLOT_SCHED, bad[i]), -FUL_EINVAL);
	UT_CHECK_EQ(ful_util_set(FUL_SLOT_POOL, 100), -FUL_ETYPE);
	UT_CHECK_EQ(pg->hdr.util_win, old.win); /* nothing changed */
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_util_set(FUL_SLOT_SCHED, UW_MS), 0);
	unsigned long t1 = ful_counter();
	ful_load_util_par(pg, &p);
	UT_CHECK_EQ(pg->hdr.util_win_ms, UW_MS);
	UT_CHECK_EQ(p.win, ful_counter_freq() * UW_MS / 1000);
	UT_CHECK_EQ(pg->hdr.util_long, p.win * FUL_UTIL_LONG_WINS);
	UT_CHECK(p.epoch >= t0 && p.epoch <= t1);
	UT_CHECK_EQ(p.idx0 % FUL_UTIL_LONG_WINS, 0);
	/* two beyond the window of the change (at the epoch; t1 may be in
	 * a later window if this vCPU was stopped after the call) */
	UT_CHECK(p.idx0 >= ful_win_index(&old, p.epoch) + 2);
	/* a core's figures from before read as restarted at the epoch */
	struct ful_load_cpu c = uw_cpu(0);
	struct ful_win w = ful_util_cpu_win(&c, &p, ful_counter());
	UT_CHECK(w.idx >= p.idx0);
	UT_CHECK_EQ(ful_util_set(FUL_SLOT_SCHED, FUL_UTIL_WIN_MS_DEFAULT), 0);
	ful_load_util_par(pg, &old);
	UT_CHECK(old.idx0 >= p.idx0 + 2);
}

struct uw {
	long ntfn, sleeper;
	_Atomic int mode; /* 0 spin, 1 duty cycle, 2 block, 3 quit */
	_Atomic int ack;  /* the mode the thread runs in */
	unsigned long win;
	struct ful_thread th;
};

/** Spin (mode 0); busy for the first half of every window and asleep
 *  for the second, by the counter (1); block on the notification (2);
 *  return (3). */
static void uw_main(void *arg)
{
	struct uw *u = arg;
	unsigned long bits;
	for (;;) {
		int m = atomic_load(&u->mode);
		atomic_store(&u->ack, m);
		if (m == 3)
			return;
		if (m == 2) {
			ful_ntfn_wait((unsigned)u->ntfn, &bits, FUL_FOREVER);
			continue;
		}
		if (m == 1) {
			unsigned long t = ful_counter();
			unsigned long ws = t - t % u->win; /* epoch-free period */
			if (t < ws + u->win / 2)
				continue; /* the busy half */
			unsigned long left = ws + u->win - t;
			ful_ntfn_wait((unsigned)u->sleeper, &bits,
				      ful_ticks_to_us(left) + 1);
		}
	}
}

/** Core @cpu's sliding utilization now; *@avg: of every online core. */
static void uw_util(unsigned cpu, unsigned *s, unsigned *l, unsigned *avg)
{
	struct ful_win_par p;
	unsigned all[FUL_LOAD_CPUS];
	ful_load_util_par(ful_load_area(), &p);
	unsigned n = ful_load_ncpus(ful_load_area());
	for (unsigned c = 0; c < n; c++) {
		struct ful_load_cpu r = uw_cpu(c);
		ful_util_cpu(&r, &p, ful_counter(), &all[c], c == cpu ? l : NULL);
		if (c == cpu)
			*s = all[c];
	}
	*avg = ful_util_avg(all, n);
}

/** The thread's window figures at @now (a counter value read after this
 *  call starts), and checks that hold always. */
static void uw_twin_at(struct ut *ut, struct uw *u, unsigned long now,
		       unsigned long *cur, unsigned long *last)
{
	struct ful_win_par p;
	ful_load_util_par(ful_load_area(), &p);
	struct ful_load_thread t = uw_thread((unsigned)u->th.tid);
	if (ful_counter() > now)
		now = ful_counter();
	ful_util_thread(&t, &p, now, cur, last);
	UT_CHECK(t.win_idx <= ful_win_index(&p, now));
	UT_CHECK(*cur <= now - ful_win_start(&p, ful_win_index(&p, now)));
	UT_CHECK(*last <= p.win);
}

static void uw_twin(struct ut *ut, struct uw *u, unsigned long *cur,
		    unsigned long *last)
{
	uw_twin_at(ut, u, 0, cur, last);
}

/** Run mode @m on core @x for two long windows and a short one. */
static void uw_phase(struct ut *ut, struct uw *u, int m)
{
	atomic_store(&u->mode, m);
	UT_WAIT(atomic_load(&u->ack) == m);
	uw_until(ful_counter() + (2 * FUL_UTIL_LONG_WINS + 1) * u->win);
}

#define UT_NEAR(v, want, tol)                                              \
	do {                                                               \
		long v_ = (long)(v), w_ = (long)(want), t_ = (long)(tol);  \
		if (v_ < w_ - t_ || v_ > w_ + t_)                          \
			ut_fail(ut, __FILE__, __LINE__,                    \
				"%s = %ld, expected %ld +- %ld", #v, v_, w_, t_); \
	} while (0)

/** Core @x's record, copied consistently a few times: whenever it says
 *  idle since `stamp`, its util_now is 0 (an idle core has no figure
 *  ready: it falls while the core idles, and only a reader's roll to
 *  `now` gives it). */
static void uw_now_idle(struct ut *ut, unsigned x)
{
	const struct ful_load_cpu *r = &ful_load_area()->cpu[x];
	unsigned seen = 0;
	for (unsigned i = 0; i < 1000; i++) {
		unsigned s = ful_load_seq_begin(&r->seq);
		unsigned idle = FUL_LOAD_RLX(&r->idle_open);
		unsigned w = FUL_LOAD_RLX(&r->util_now);
		if (!ful_load_seq_ok(&r->seq, s))
			continue;
		if (idle) {
			UT_CHECK_EQ(w, 0);
			seen++;
		}
	}
	UT_CHECK(seen > 0);
}

static void duty_body(struct ut *ut, struct uw *u, unsigned x, int idle)
{
	unsigned s, l, avg, n = ut_ncpus();
	unsigned long cur, last, tick = ful_counter_freq() / 1000;
	struct ful_thread_args a = {.fn = uw_main, .arg = u,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 100,
				    .cpu = x, .name = "uw"};
	UT_CHECK_EQ(ful_thread_spawn(&a, &u->th), 0);
	/* Busy: the core and the thread ran all of the last windows. */
	uw_phase(ut, u, 0);
	uw_util(x, &s, &l, &avg);
	UT_NEAR(s, 1000, UW_TOL_PM);
	UT_NEAR(l, 1000, UW_TOL_PM);
	struct ful_load_cpu c = uw_cpu(x);
	UT_NEAR(c.util_short, 1000, UW_TOL_PM);
	UT_NEAR(c.util_long, 1000, UW_TOL_PM);
	/* util_now (version 6): the busy core's figure at its last tick,
	 * computed by the core (loadcheck holds it to the record) */
	unsigned w;
	UT_WAIT((w = FUL_LOAD_RLX(&ful_load_area()->cpu[x].util_now)) &
		FUL_UTIL_NOW_OK);
	UT_NEAR(FUL_UTIL_NOW_PM(w), 1000, UW_TOL_PM);
	UT_CHECK(avg * n >= (1000 - UW_TOL_PM));
	/* The running thread's record is as old as its core's last tick
	 * (`stamp`), which a stopped vCPU can delay by more than a tick.
	 * The stamp is read first: read after `now`, a tick in between
	 * made it later than `now` and the tolerance negative. */
	unsigned long stamp = uw_cpu(x).stamp, now = ful_counter();
	uw_twin_at(ut, u, now, &cur, &last);
	UT_NEAR(last, u->win, 2 * tick + (now - stamp));
	if (idle >= 0) {
		uw_util((unsigned)idle, &s, &l, &avg);
		UT_NEAR(s, 0, UW_TOL_PM);
		UT_NEAR(l, 0, UW_TOL_PM);
	}
	/* Half busy, half asleep in every window. The host may stop the
	 * vCPU between the end of a busy half and the sleep call (busy
	 * time to the guest): generous bounds here, and the thread's
	 * figure against its core's, which see the same time, within the
	 * tick its record may lag. A phase the host disturbed beyond them
	 * (2 host cores for all the vCPUs of a loaded machine) is run
	 * again, up to UW_TRIES times in all; broken accounting misses
	 * every time. */
	struct ful_win_par p;
	struct ful_win cw;
	for (int i = 1;; i++) {
		uw_phase(ut, u, 1);
		uw_util(x, &s, &l, &avg);
		ful_load_util_par(ful_load_area(), &p);
		c = uw_cpu(x);
		struct ful_load_thread t = uw_thread((unsigned)u->th.tid);
		now = ful_counter(); /* both rolled to the same time */
		cw = ful_util_cpu_win(&c, &p, now);
		ful_util_thread(&t, &p, now, &cur, &last);
		if ((s >= 250 && s <= 750 && l >= 350 && l <= 650 &&
		     last >= u->win / 4 && last <= u->win * 3 / 4) ||
		    i == UW_TRIES)
			break;
		printf("util: half-busy phase %d disturbed (s %u, l %u, "
		       "thread %lu/%lu), again\n", i, s, l, last, u->win);
	}
	UT_NEAR(s, 500, 250);
	UT_NEAR(l, 500, 150);
	UT_NEAR(last, cw.last, 2 * tick + u->win / 1000 + (now - c.stamp));
	UT_NEAR(last, u->win / 2, u->win / 4);
	/* Blocked: the core is tickless, its record old; read at read time
	 * it is idle, and the thread ran in neither window. */
	uw_phase(ut, u, 2);
	UT_WAIT((c = uw_cpu(x), c.idle_open && c.nrunnable == 0));
	uw_now_idle(ut, x);
	uw_until(ful_counter() + 2 * FUL_UTIL_LONG_WINS * u->win);
	uw_util(x, &s, &l, &avg);
	UT_NEAR(s, 0, UW_TOL_PM);
	UT_NEAR(l, 0, UW_TOL_PM);
	uw_twin(ut, u, &cur, &last);
	UT_CHECK_EQ(cur, 0);
	UT_CHECK_EQ(last, 0);
}

UTEST(util_busy_idle_duty, 2)
{
	static struct uw u;
	memset(&u, 0, sizeof(u));
	unsigned n = ut_ncpus(), x = n - 1;
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	/* an idle core other than x and this one, if there is one */
	int idle = -1;
	for (unsigned c = 0; c < n - 1 && idle < 0; c++) {
		struct ful_load_cpu r = uw_cpu(c);
		if (c != si.cpu && r.nrunnable == 0 && r.idle_open)
			idle = (int)c;
	}
	u.ntfn = ut_ntfn_new();
	u.sleeper = ut_ntfn_new();
	UT_CHECK(u.ntfn > 0 && u.sleeper > 0);
	UT_CHECK_EQ(ful_util_set(FUL_SLOT_SCHED, UW_MS), 0);
	u.win = ful_counter_freq() * UW_MS / 1000;
	duty_body(ut, &u, x, idle);
	atomic_store(&u.mode, 3);
	ful_ntfn_signal((unsigned)u.ntfn, 1);
	if (u.th.tid > 0 && !ful_thread_reap(&u.th, UT_TIMEOUT_US))
		ut_fail(ut, __FILE__, __LINE__, "uw did not end");
	ful_util_set(FUL_SLOT_SCHED, FUL_UTIL_WIN_MS_DEFAULT);
	ful_slot_drop((unsigned)u.ntfn);
	ful_slot_drop((unsigned)u.sleeper);
}
