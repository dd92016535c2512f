/*
 * Host tests of the utilization windows: <fulcrum/loadwin.h> (the roll
 * the kernel and the readers share) and the readers of <ful/load.h>
 * (ful_util_cpu, ful_util_thread). A brute-force model computes every
 * window's busy time from the list of busy stretches; the roll must
 * agree with it exactly at window edges, over long gaps, at counters
 * near 2^56 and 2^64, and across changes of the window length.
 */
#define HTEST_MAIN
#include "host_test.h"

#include <ful/load.h>

#define R FUL_UTIL_LONG_WINS

/* ---- the model: busy stretches, and each window's total from them ---- */

#define MAXS 512
struct model {
	unsigned long a[MAXS], b[MAXS]; /* busy stretches [a, b) */
	unsigned n;
};

static unsigned long m_busy(const struct model *m, unsigned long x0,
			    unsigned long x1)
{
	unsigned long sum = 0;
	for (unsigned i = 0; i < m->n; i++)
		sum += ful_win_ov(1, m->a[i], m->b[i], x0, x1);
	return sum;
}

/** What a state rolled to @t must hold (for windows from idx0 on). */
static struct ful_win m_state(const struct model *m,
			      const struct ful_win_par *p, unsigned long t)
{
	struct ful_win w = {.idx = ful_win_index(p, t)};
	unsigned long s = ful_win_start(p, w.idx);
	unsigned long li = w.idx / R * R;
	w.cur = m_busy(m, s > t ? t : s, t);
	if (w.idx > p->idx0)
		w.last = m_busy(m, s - p->win, s);
	w.lcur = m_busy(m, ful_win_start(p, li), s);
	if (li > p->idx0)
		w.llast = m_busy(m, ful_win_start(p, li - R), ful_win_start(p, li));
	return w;
}

static const char *w_diff(const struct ful_win *a, const struct ful_win *b,
			  char *buf, size_t n)
{
	if (a->idx == b->idx && a->cur == b->cur && a->last == b->last &&
	    a->lcur == b->lcur && a->llast == b->llast)
		return NULL;
	snprintf(buf, n,
		 "idx %lu/%lu cur %lu/%lu last %lu/%lu lcur %lu/%lu "
		 "llast %lu/%lu (rolled/model)",
		 a->idx, b->idx, a->cur, b->cur, a->last, b->last, a->lcur,
		 b->lcur, a->llast, b->llast);
	return buf;
}

/**
 * A random run from the epoch of @p: stretches of random kinds and
 * lengths (within a window, across one edge, across many windows and
 * long windows, exactly to an edge), each added to a state and the
 * state compared with the model after each. NULL or what differed.
 */
static const char *random_run(const struct ful_win_par *p, uint64_t seed,
			      unsigned steps, char *buf, size_t n)
{
	uint64_t rng = seed;
	struct model m = {.n = 0};
	struct ful_win w = {.idx = p->idx0};
	unsigned long t = p->epoch;
	for (unsigned k = 0; k < steps && m.n < MAXS; k++) {
		unsigned long len;
		switch (htest_rand(&rng) % 6) {
		case 0: len = htest_rand(&rng) % 3; break;
		case 1: len = htest_rand(&rng) % p->win; break;
		case 2: len = htest_rand(&rng) % (3 * p->win); break;
		case 3: len = htest_rand(&rng) % (25 * R * p->win); break;
		case 4: /* exactly to the next window edge */
			len = ful_win_start(p, ful_win_index(p, t) + 1) - t;
			break;
		default: /* to a long window's edge */
			len = ful_win_start(p, (ful_win_index(p, t) / R + 1) *
						       R) - t;
		}
		int busy = htest_rand(&rng) & 1;
		if (busy && len) {
			m.a[m.n] = t;
			m.b[m.n++] = t + len;
		}
		ful_win_add(&w, p, t, t + len, busy);
		t += len;
		struct ful_win want = m_state(&m, p, t);
		const char *d = w_diff(&w, &want, buf, n);
		if (d)
			return d;
	}
	return NULL;
}

HTEST(add_within_one_window)
{
	struct ful_win_par p = {.epoch = 1000, .win = 100, .idx0 = 0};
	struct ful_win w = {.idx = 0};
	ful_win_add(&w, &p, 1000, 1030, 1);
	ful_win_add(&w, &p, 1030, 1050, 0);
	ful_win_add(&w, &p, 1050, 1060, 1);
	CHECK_EQ(w.idx, 0);
	CHECK_EQ(w.cur, 40);
	CHECK_EQ(w.last, 0);
}

HTEST(add_to_the_edge_and_one_past)
{
	struct ful_win_par p = {.epoch = 0, .win = 100, .idx0 = 0};
	struct ful_win w = {.idx = 0};
	ful_win_add(&w, &p, 0, 100, 1); /* ends exactly at window 1 */
	CHECK_EQ(w.idx, 1);
	CHECK_EQ(w.cur, 0);
	CHECK_EQ(w.last, 100);
	CHECK_EQ(w.lcur, 100);
	ful_win_add(&w, &p, 100, 101, 1);
	CHECK_EQ(w.cur, 1);
	ful_win_add(&w, &p, 101, 199, 0);
	ful_win_add(&w, &p, 199, 200, 1); /* the last tick of window 1 */
	CHECK_EQ(w.idx, 2);
	CHECK_EQ(w.last, 2);
	CHECK_EQ(w.lcur, 102);
}

HTEST(add_across_many_windows)
{
	struct ful_win_par p = {.epoch = 0, .win = 100, .idx0 = 0};
	struct ful_win w = {.idx = 3, .cur = 7, .last = 9, .lcur = 50};
	/* busy from 350 (window 3) to 2750 (window 27) */
	ful_win_add(&w, &p, 350, 2750, 1);
	CHECK_EQ(w.idx, 27);
	CHECK_EQ(w.cur, 50);
	CHECK_EQ(w.last, 100);
	CHECK_EQ(w.lcur, 700);     /* windows 20..26 */
	CHECK_EQ(w.llast, 1000);   /* long window 1: all busy */
	/* idle for 3 long windows: everything but the index goes to 0 */
	ful_win_add(&w, &p, 2750, 6010, 0);
	CHECK_EQ(w.idx, 60);
	CHECK_EQ(w.cur + w.last + w.lcur + w.llast, 0);
}

HTEST(add_closes_partial_long_window)
{
	struct ful_win_par p = {.epoch = 0, .win = 100, .idx0 = 0};
	struct ful_win w = {.idx = 15, .cur = 20, .lcur = 300};
	ful_win_add(&w, &p, 1520, 2030, 1); /* to window 20 + 30 */
	CHECK_EQ(w.idx, 20);
	CHECK_EQ(w.llast, 300 + 20 + 80 + 400);
	CHECK_EQ(w.lcur, 0);
	CHECK_EQ(w.cur, 30);
	CHECK_EQ(w.last, 100);
}

HTEST(empty_stretch_only_rolls)
{
	struct ful_win_par p = {.epoch = 0, .win = 100, .idx0 = 0};
	struct ful_win w = {.idx = 4, .cur = 60, .last = 10, .lcur = 90};
	ful_win_add(&w, &p, 555, 555, 1);
	CHECK_EQ(w.idx, 5);
	CHECK_EQ(w.last, 60);
	CHECK_EQ(w.lcur, 150);
	CHECK_EQ(w.cur, 0);
	/* a time before the state's window changes nothing */
	ful_win_add(&w, &p, 300, 320, 1);
	CHECK_EQ(w.idx, 5);
	CHECK_EQ(w.cur, 0);
}

HTEST(random_runs_match_the_model)
{
	static const struct ful_win_par ps[] = {
		{.epoch = 0, .win = 7, .idx0 = 0},
		{.epoch = 12345, .win = 100, .idx0 = 40},
		{.epoch = (1ul << 56) - 5000, .win = 6250000, .idx0 = 0},
		{.epoch = (1ul << 56) + 3, .win = 625000000, .idx0 = 1000},
		{.epoch = ~0ul - (1ul << 44), .win = 62500, .idx0 = 70},
	};
	char buf[256];
	for (unsigned i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (uint64_t seed = 1; seed <= 40; seed++) {
			const char *d = random_run(&ps[i], seed * 7919 + i,
						   300, buf, sizeof(buf));
			if (d)
				HTEST_FAIL_("params %u seed %lu: %s", i,
					    (unsigned long)seed, d);
		}
}

HTEST(length_change_restarts_at_the_epoch)
{
	struct ful_win_par old = {.epoch = 0, .win = 100, .idx0 = 0};
	struct ful_win w = {.idx = 0};
	ful_win_add(&w, &old, 0, 1234, 1); /* window 12 */
	CHECK_EQ(w.idx, 12);
	/* at 1250 the length becomes 40: indexes from 20 (>= 12 + 2,
	 * a multiple of R) */
	struct ful_win_par p = {.epoch = 1250, .win = 40, .idx0 = 20};
	ful_win_add(&w, &p, 1234, 1300, 1); /* idle is unknown before 1250 */
	CHECK_EQ(w.idx, 21);
	CHECK_EQ(w.cur, 10);
	CHECK_EQ(w.last, 40);
	CHECK_EQ(w.lcur, 40);
	CHECK_EQ(w.llast, 0);
	/* a state that has not heard of it yet rolls from the epoch */
	struct ful_win s = {.idx = 12, .cur = 30, .last = 100, .llast = 999};
	ful_win_add(&s, &p, 1290, 1290, 0);
	CHECK_EQ(s.idx, 21);
	CHECK_EQ(s.cur + s.last + s.lcur + s.llast, 0);
}

HTEST(permille_and_sliding)
{
	CHECK_EQ(ful_win_permille(50, 100), 500);
	CHECK_EQ(ful_win_permille(200, 100), 1000);
	CHECK_EQ(ful_win_permille(5, 0), 0);
	/* 30 % into a window busy so far, the last one 80 %: 300 + 560 */
	CHECK_EQ(ful_win_sliding(300, 800, 1300, 1000, 1000), 860);
	/* at the window's start: the last window only */
	CHECK_EQ(ful_win_sliding(0, 800, 1000, 1000, 1000), 800);
	/* large counters: window of 10 s at 2^32 Hz, its last tick */
	unsigned long len = 10ul << 32;
	CHECK_EQ(ful_win_sliding(len - 1, 0, (1ul << 60) + len - 1,
				 1ul << 60, len), 999);
	CHECK_EQ(ful_win_sliding(len - 1, 1000, (1ul << 60) + len - 1,
				 1ul << 60, len), 1000);
}

/* ---- the readers of <ful/load.h> ---- */

static struct ful_load_cpu rec_from(const struct ful_win *w,
				    const struct ful_win_par *p,
				    unsigned long busy, unsigned long stamp,
				    int idle_open)
{
	struct ful_load_cpu c = {0};
	c.busy = busy;
	c.stamp = stamp;
	c.idle_open = (unsigned long)idle_open;
	c.win_idx = w->idx;
	c.win_base = busy - w->cur;
	c.lwin_base = c.win_base - w->lcur;
	c.util_short = ful_win_permille(w->last, p->win);
	c.util_long = ful_win_permille(w->llast, p->win * R);
	return c;
}

HTEST(cpu_reader_corrects_a_tickless_idle_core)
{
	/* windows of 1000; busy [0, 1500), idle since: stamp 1500 */
	struct ful_win_par p = {.epoch = 0, .win = 1000, .idx0 = 0};
	struct ful_win w = {.idx = 0};
	ful_win_add(&w, &p, 0, 1500, 1);
	struct ful_load_cpu c = rec_from(&w, &p, 1500, 1500, 1);
	unsigned s, l;
	ful_util_cpu(&c, &p, 1500, &s, &l);
	CHECK_EQ(s, 1000); /* 500 of window 1 + all of the window before */
	CHECK_EQ(l, 150);  /* window 0 of the long window: 1500 of 10000 */
	ful_util_cpu(&c, &p, 2000, &s, NULL); /* window 1 exactly */
	CHECK_EQ(s, 500);
	ful_util_cpu(&c, &p, 2500, &s, NULL); /* half of window 1 */
	CHECK_EQ(s, 250);
	ful_util_cpu(&c, &p, 3000, &s, &l); /* at window 3: window 2 idle */
	CHECK_EQ(s, 0);
	CHECK_EQ(l, 150);
	ful_util_cpu(&c, &p, 25000, &s, &l); /* long window 1 was idle */
	CHECK_EQ(s, 0);
	CHECK_EQ(l, 0);
	/* the same core busy since stamp instead */
	c.idle_open = 0;
	ful_util_cpu(&c, &p, 25000, &s, &l);
	CHECK_EQ(s, 1000);
	CHECK_EQ(l, 1000);
	/* a reader's clock behind the stamp: the record as it is */
	ful_util_cpu(&c, &p, 1400, &s, NULL);
	CHECK_EQ(s, 1000);
}

HTEST(cpu_reader_matches_the_kernel_roll)
{
	/* A record published at t0, read at t1, must read as the kernel's
	 * own roll at t1 would publish (the roll is the same function). */
	struct ful_win_par p = {.epoch = (1ul << 56) + 17, .win = 625, .idx0 = 30};
	uint64_t rng = 99;
	for (unsigned k = 0; k < 2000; k++) {
		struct ful_win w = {.idx = p.idx0};
		unsigned long t = p.epoch, busy = 1ul << 40;
		unsigned nst = 1 + htest_rand(&rng) % 8;
		for (unsigned i = 0; i < nst; i++) {
			unsigned long len = htest_rand(&rng) % (30 * p.win);
			int b = htest_rand(&rng) & 1;
			ful_win_add(&w, &p, t, t + len, b);
			t += len, busy += b ? len : 0;
		}
		int open_busy = htest_rand(&rng) & 1;
		struct ful_load_cpu c = rec_from(&w, &p, busy, t, !open_busy);
		unsigned long now = t + htest_rand(&rng) % (40 * p.win);
		struct ful_win k2 = w;
		ful_win_add(&k2, &p, t, now, open_busy);
		struct ful_win r = ful_util_cpu_win(&c, &p, now);
		/* the record carries last and llast in permille: compare the
		 * exact fields exactly and those to a permille */
		CHECK_EQ(r.idx, k2.idx);
		CHECK_EQ(r.cur, k2.cur);
		CHECK_EQ(r.lcur, k2.lcur);
		CHECK(r.last + p.win / 1000 + 1 >= k2.last &&
		      r.last <= k2.last + p.win / 1000 + 1);
		CHECK(r.llast + p.win * R / 1000 + 1 >= k2.llast &&
		      r.llast <= k2.llast + p.win * R / 1000 + 1);
	}
}

HTEST(cpu_average)
{
	unsigned v[4] = {1000, 0, 500, 251};
	CHECK_EQ(ful_util_avg(v, 4), 438);
	CHECK_EQ(ful_util_avg(v, 1), 1000);
	CHECK_EQ(ful_util_avg(v, 0), 0);
}

HTEST(thread_reader_stale_indexes)
{
	struct ful_win_par p = {.epoch = 1000, .win = 100, .idx0 = 10};
	struct ful_load_thread t = {0};
	t.win_idx = 15, t.runtime = 5070, t.win_base = 5000, t.win_last = 90;
	unsigned long cur, last;
	ful_util_thread(&t, &p, 1000 + 5 * 100 + 99, &cur, &last); /* 15 */
	CHECK_EQ(cur, 70);
	CHECK_EQ(last, 90);
	ful_util_thread(&t, &p, 1000 + 6 * 100, &cur, &last); /* 16 */
	CHECK_EQ(cur, 0);
	CHECK_EQ(last, 70);
	ful_util_thread(&t, &p, 1000 + 7 * 100, &cur, &last); /* 17 */
	CHECK_EQ(cur, 0);
	CHECK_EQ(last, 0);
	ful_util_thread(&t, &p, 1000 + 4 * 100, &cur, &last); /* reader
							      * behind */
	CHECK_EQ(cur, 70);
	CHECK_EQ(last, 90);
	/* counters near 2^56 and run time near 2^56 */
	struct ful_win_par q = {.epoch = (1ul << 56) - 50, .win = 100, .idx0 = 0};
	t.win_idx = 1, t.runtime = (1ul << 56) + 3, t.win_base = (1ul << 56) - 20;
	ful_util_thread(&t, &q, (1ul << 56) + 60, &cur, &last); /* window 1 */
	CHECK_EQ(cur, 23);
	ful_util_thread(&t, &q, (1ul << 56) + 150, &cur, &last); /* 2 */
	CHECK_EQ(last, 23);
	/* the length changed: a record from before counts as 0 */
	struct ful_win_par r = {.epoch = 2000, .win = 40, .idx0 = 20};
	t.win_idx = 15, t.runtime = 5070, t.win_base = 5000;
	ful_util_thread(&t, &r, 2000, &cur, &last);
	CHECK_EQ(cur + last, 0);
	/* a torn order can never show: base above runtime reads 0 */
	t.win_idx = 20, t.win_base = 6000;
	ful_util_thread(&t, &r, 2001, &cur, &last);
	CHECK_EQ(cur, 0);
}
