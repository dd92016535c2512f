/*
 * Utilization windows (<fulcrum/load.h>, version 3): the arithmetic of
 * rolling a window state over a stretch of time, pure and shared. The
 * kernel rolls each core's state (and the state of the thread it
 * charges) with it when a core reaches a new window; the readers of
 * libfulcrum (<ful/load.h>) roll a copy of a published record up to the
 * time they read, for a core that has not rolled (tickless idle). Same
 * code on both sides, so a reader's correction and the kernel's own roll
 * agree; unit-tested on the host (tests/host/test_loadwin.c).
 *
 * No library calls and no 128-bit arithmetic: 64-bit counters, a window
 * of at most 10 s at a counter of up to 2^32 Hz (2^36 ticks), and
 * every product below is bounded by 1000 * FUL_UTIL_LONG_WINS * win.
 */
#ifndef FULCRUM_LOADWIN_H
#define FULCRUM_LOADWIN_H

#include <fulcrum/load.h>

/** The window parameters of the header (util_epoch, util_win, util_idx0). */
struct ful_win_par {
	unsigned long epoch; /* counter value where window idx0 starts */
	unsigned long win;   /* short window length in counter ticks, > 0 */
	unsigned long idx0;  /* a multiple of FUL_UTIL_LONG_WINS */
};

/**
 * A window state: busy ticks (of a core, or run ticks of a thread) by
 * window, up to some instant t in window idx.
 *   cur    ticks in window idx up to t
 *   last   ticks in window idx - 1
 *   lcur   ticks in the complete short windows of long window
 *          idx / FUL_UTIL_LONG_WINS before idx
 *   llast  ticks in long window idx / FUL_UTIL_LONG_WINS - 1
 */
struct ful_win {
	unsigned long idx, cur, last, lcur, llast;
};

/** Start of short window @i (i >= p->idx0). */
static inline unsigned long ful_win_start(const struct ful_win_par *p,
					  unsigned long i)
{
	return p->epoch + (i - p->idx0) * p->win;
}

/** Index of the short window that contains counter value @t (idx0 for
 *  any time before the epoch). */
static inline unsigned long ful_win_index(const struct ful_win_par *p,
					  unsigned long t)
{
	return t < p->epoch ? p->idx0 : p->idx0 + (t - p->epoch) / p->win;
}

/** Ticks of [t0, t1) inside [a, b), if @busy; else 0. */
static inline unsigned long ful_win_ov(int busy, unsigned long t0,
				       unsigned long t1, unsigned long a,
				       unsigned long b)
{
	unsigned long lo = t0 > a ? t0 : a, hi = t1 < b ? t1 : b;
	return busy && hi > lo ? hi - lo : 0;
}

/** Close window w->idx with @b ticks in all; w moves to the next one. */
static inline void ful_win_close(struct ful_win *w, unsigned long b)
{
	w->last = b;
	if ((w->idx + 1) % FUL_UTIL_LONG_WINS == 0) {
		w->llast = w->lcur + b;
		w->lcur = 0;
	} else {
		w->lcur += b;
	}
	w->idx++;
	w->cur = 0;
}

/**
 * Roll @w over to window @i1 with nothing added (an idle stretch, or a
 * thread that did not run): the cheap case of ful_win_add, no division.
 * Nothing if @i1 <= w->idx.
 */
static inline void ful_win_skip(struct ful_win *w, unsigned long i1)
{
	const unsigned long R = FUL_UTIL_LONG_WINS;
	if (i1 <= w->idx)
		return;
	unsigned long b = w->cur, la = w->idx / R, l1 = i1 / R;
	w->last = i1 == w->idx + 1 ? b : 0;
	if (la == l1) {
		w->lcur += b;
	} else {
		w->llast = la + 1 == l1 ? w->lcur + b : 0;
		w->lcur = 0;
	}
	w->cur = 0;
	w->idx = i1;
}

/**
 * Add the stretch [@t0, @t1), all busy (@busy) or all not, to @w, which
 * holds the figures up to @t0 (w->idx is the window of t0), and roll
 * it over to the window of @t1: O(1) however many windows the stretch
 * spans (inlined: the kernel's roll runs it once per window, and a call
 * there costs more than its body's fast path). A state from before the
 * epoch (w->idx < p->idx0: the length changed since) restarts empty at
 * the epoch. @t1 <= @t0 or an idle stretch only rolls over (to the
 * window of @t1 if later: ful_win_skip); a @t1 in a window before
 * w->idx changes nothing.
 */
static inline __attribute__((always_inline)) void
ful_win_add(struct ful_win *w, const struct ful_win_par *p, unsigned long t0,
	    unsigned long t1, int busy)
{
	const unsigned long R = FUL_UTIL_LONG_WINS;
	if (w->idx < p->idx0)
		*w = (struct ful_win){.idx = p->idx0};
	if (t0 < p->epoch)
		t0 = p->epoch;
	unsigned long i1 = ful_win_index(p, t1);
	if (!busy || t1 <= t0) {
		ful_win_skip(w, i1);
		return;
	}
	if (i1 <= w->idx) {
		if (i1 == w->idx)
			w->cur += ful_win_ov(busy, t0, t1, t0, t1);
		return;
	}
	unsigned long s0 = ful_win_start(p, w->idx), s = s0 + p->win;
	ful_win_close(w, w->cur + ful_win_ov(busy, t0, t1, s0, s));
	unsigned long si1 = ful_win_start(p, i1);
	if (i1 > w->idx) { /* whole windows w->idx .. i1 - 1 in the stretch */
		unsigned long la = w->idx / R, l1 = i1 / R;
		if (la == l1) {
			w->lcur += ful_win_ov(busy, t0, t1, s, si1);
		} else {
			unsigned long ls1 = ful_win_start(p, l1 * R);
			unsigned long lp = ls1 - R * p->win;
			w->llast = (la == l1 - 1 ? w->lcur : 0) +
				   ful_win_ov(busy, t0, t1, s > lp ? s : lp, ls1);
			w->lcur = ful_win_ov(busy, t0, t1, ls1, si1);
		}
		w->last = ful_win_ov(busy, t0, t1, si1 - p->win, si1);
		w->idx = i1;
	}
	w->cur = ful_win_ov(busy, t0, t1, si1, t1);
}

/** @ticks of a window of @len ticks in permille, at most 1000. */
static inline unsigned ful_win_permille(unsigned long ticks, unsigned long len)
{
	if (!len)
		return 0;
	unsigned long v = ticks >= len ? 1000 : ticks * 1000 / len;
	return (unsigned)v;
}

/**
 * Sliding utilization in permille over the @len ticks before @now,
 * from a state rolled to @now (w->idx is the window of @now, which
 * started at @ws; windows of @len ticks): the current window so far plus
 * the part of the last complete one that the sliding window still
 * covers, at that window's average rate. @cur and @last_pm are the
 * current window's ticks so far and the last one's permille.
 */
static inline unsigned ful_win_sliding(unsigned long cur, unsigned last_pm,
				       unsigned long now, unsigned long ws,
				       unsigned long len)
{
	unsigned long e = now > ws ? now - ws : 0;
	if (e > len)
		e = len;
	if (cur > e)
		cur = e;
	return ful_win_permille(cur + last_pm * (len - e) / 1000, len);
}

/*
 * Readers' side, pure, on consistent copies of records (the seqcount
 * readers are ful_load_read_* in <ful/load.h>; the kernel console uses
 * these too). A copy is rolled over to a counter value @now read after
 * it was made, the way the kernel would have at a tick there (the
 * stretch since `stamp` is idle if idle_open, else busy), so a tickless
 * idle core's old figures read right. A record from before a change of
 * the window length (win_idx < idx0) counts from the new epoch on only.
 * With p->win == 0 (an area older than version 3) they give 0.
 */

/** Core record @c as a window state, rolled over to @now. */
static inline struct ful_win ful_util_cpu_win(const struct ful_load_cpu *c,
					      const struct ful_win_par *p,
					      unsigned long now)
{
	unsigned long lw = p->win * FUL_UTIL_LONG_WINS;
	struct ful_win w = {
		.idx = c->win_idx,
		.cur = c->busy >= c->win_base ? c->busy - c->win_base : 0,
		.lcur = c->win_base >= c->lwin_base
				? c->win_base - c->lwin_base : 0,
		.last = (unsigned long)c->util_short * p->win / 1000,
		.llast = (unsigned long)c->util_long * lw / 1000,
	};
	ful_win_add(&w, p, c->stamp, now, !c->idle_open);
	return w;
}

/**
 * Core @c's utilization at @now, permille, over a sliding window of the
 * short length (@short_pm) and of the long one (@long_pm): the busy time
 * of the current window so far plus the share of the last complete
 * window that the sliding window still covers, at that window's rate.
 * Either pointer may be NULL.
 */
static inline void ful_util_cpu(const struct ful_load_cpu *c,
				const struct ful_win_par *p, unsigned long now,
				unsigned *short_pm, unsigned *long_pm)
{
	unsigned long lw = p->win * FUL_UTIL_LONG_WINS;
	if (!p->win) {
		if (short_pm)
			*short_pm = 0;
		if (long_pm)
			*long_pm = 0;
		return;
	}
	struct ful_win w = ful_util_cpu_win(c, p, now);
	unsigned long ws = ful_win_start(p, w.idx);
	unsigned long lws = ful_win_start(
		p, w.idx / FUL_UTIL_LONG_WINS * FUL_UTIL_LONG_WINS);
	if (short_pm)
		*short_pm = ful_win_sliding(w.cur, ful_win_permille(w.last, p->win),
					    now, ws, p->win);
	if (long_pm)
		*long_pm = ful_win_sliding(w.lcur + w.cur,
					   ful_win_permille(w.llast, lw), now,
					   lws, lw);
}

/** The average of @n cores' figures (ful_util_cpu of each online core,
 *  paper 004 section 3.2: the averaged view next to the per-core one);
 *  0 for no core. */
static inline unsigned ful_util_avg(const unsigned *pm, unsigned n)
{
	unsigned long sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += pm[i];
	return n ? (unsigned)((sum + n / 2) / n) : 0;
}

/**
 * Thread record @t's run time (counter ticks) in the window of @now
 * (@cur) and in the one before (@last): 0 for a window it did not run
 * in. Its record is at most a tick old while it runs (runtime is
 * published at switch-out and tick), exact while it does not.
 */
static inline void ful_util_thread(const struct ful_load_thread *t,
				   const struct ful_win_par *p,
				   unsigned long now, unsigned long *cur,
				   unsigned long *last)
{
	struct ful_win w = {
		.idx = t->win_idx,
		.cur = t->runtime >= t->win_base ? t->runtime - t->win_base : 0,
		.last = t->win_last,
	};
	if (p->win)
		ful_win_add(&w, p, now, now, 0);
	*cur = w.cur;
	*last = w.last;
}

#endif
