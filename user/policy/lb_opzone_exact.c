/*
 * opzone's readers off its common path (lb_opzone.h): the tunables
 * derived again after a change, the window parameters read again after a
 * change or a roll, and a core without a util_now word (idle, or not
 * ticked since it left idle) read and rolled to `now` exactly. Out of
 * line and in a file of their own, so that lb_opzone.c keeps the
 * decisions.
 */
#include "lb_opzone.h"

/** oz_derive's work: the bound of the configured zone and spot, the
 *  windows in counter ticks at frequency @f, the record head. */
__attribute__((noinline)) void oz_derive_all(const struct lb_policy *p,
					     unsigned long f)
{
	static const unsigned spot[3] = {OZ_LOW, OZ_MID, OZ_HIGH};
	long z = p->tun[OZ_T_ZONE].value;
	unsigned b = z == OZ_COLD  ? OZ_LOW
		     : z == OZ_HOT ? OZ_HIGH - 1 /* 80 % is already hot */
				   : spot[p->tun[OZ_T_SPOT].value];
	oz.tun.bound = b;
	oz.tun.task_bound = z == OZ_WARM ? (int)b : -1;
	oz.tun.prize = (unsigned long)p->tun[OZ_T_PRIZE].value * f / 1000;
	oz.tun.punish = (unsigned long)p->tun[OZ_T_PUNISH].value * f / 1000;
	oz.tun.head.zone = (unsigned char)z;
	oz.tun.head.spot = (unsigned char)p->tun[OZ_T_SPOT].value;
	oz.tun.head.cpus_avg = (unsigned char)p->tun[OZ_T_AVG].value;
	oz.tun.head.bound = (unsigned short)b;
	oz.tun.head.figure = 0;
	oz.tun.freq = f;
	oz.tun.gen = p->gen;
}

/**
 * Core record @r's utilization over the short sliding window at k.now,
 * permille, by the general rule of the snapshot's LB_NEED_ALL reader
 * (ful_util_cpu), for a record whose window is not the decision's (an
 * idle core that has not rolled over, a record from before a change of
 * the window length or stamped after `now`). Out of line: oz_cpu_exact
 * handles the common case.
 */
static __attribute__((noinline)) unsigned
oz_cpu_util_slow(const struct ful_load_page *a, const struct ful_load_cpu *r,
		 unsigned long now, unsigned long stamp, unsigned long idle,
		 unsigned long widx, unsigned long cur, unsigned pm)
{
	unsigned long win = oz.win.par.win, ws = oz.win.ws, idx = oz.win.idx;
	if (!win)
		return 0;
	if (widx < oz.win.par.idx0 || stamp > now || widx > idx) {
		struct ful_load_cpu c;
		ful_load_read_cpu(a, (unsigned)(r - a->cpu), &c);
		ful_util_cpu(&c, &oz.win.par, now, &pm, NULL);
		return pm;
	}
	pm = widx + 1 == idx
		     ? ful_win_permille(cur + (idle ? 0 : ws - stamp), win)
		     : (idle ? 0 : 1000);
	cur = idle ? 0 : now - ws;
	return ful_win_sliding(cur, pm, now, ws, win);
}

/** oz_clock's rare case: the window parameters changed (read them
 *  again), or `now` left the last window (compute its index again).
 *  Returns `now` - the window's start, within [0, win]. */
__attribute__((noinline)) unsigned long
oz_clock_roll(const struct ful_load_page *a, unsigned long now, unsigned seq)
{
	if (seq != oz.win.seq) {
		ful_load_util_par(a, &oz.win.par);
		oz.win.seq = seq & 1 ? 1 : seq; /* odd: read again next time */
	}
	unsigned long win = oz.win.par.win;
	oz.win.idx = win ? ful_win_index(&oz.win.par, now) : ~0ul; /* none */
	oz.win.ws = win ? ful_win_start(&oz.win.par, oz.win.idx) : now;
	unsigned long e = now > oz.win.ws ? now - oz.win.ws : 0;
	return e > win ? win : e;
}

/**
 * Core @c's utilization over the short sliding window at @now,
 * permille, exactly what ful_util_cpu gives (a host test compares the
 * two on 2,000 random core states), and its load (*@loadp), under one
 * seqcount copy of 7 fields: for a core whose record has no util_now
 * (an idle core, or one that has not ticked since it left idle). A
 * record in the decision's window (a core that ran, or went idle, since
 * the window began) is the common case, straight-line: the window's busy
 * time so far (with the open stretch since `stamp` if busy), at most e,
 * plus the last window's rate over the rest (ful_win_sliding's formula);
 * any other goes to oz_cpu_util_slow. Out of line: oz_record_cpu reads a
 * busy core's one word.
 */
__attribute__((noinline)) unsigned
oz_cpu_exact(const struct ful_load_page *ar, unsigned c, unsigned long now,
	     unsigned long *loadp)
{
	const struct ful_load_cpu *r = &ar->cpu[c];
	const struct oz_clk k = oz_clock(ar, now);
	unsigned long load, stamp, idle, widx, busy, base, pm;
	unsigned seq;
	do {
		seq = ful_load_seq_begin(&r->seq);
		load = FUL_LOAD_RLX(&r->load);
		stamp = FUL_LOAD_RLX(&r->stamp);
		idle = FUL_LOAD_RLX(&r->idle_open);
		widx = FUL_LOAD_RLX(&r->win_idx);
		busy = FUL_LOAD_RLX(&r->busy);
		base = FUL_LOAD_RLX(&r->win_base);
		pm = FUL_LOAD_RLX(&r->util_short);
	} while (!ful_load_seq_ok(&r->seq, seq));
	*loadp = load;
	unsigned long cur = busy >= base ? busy - base : 0;
	if (__builtin_expect(widx != k.idx || stamp > k.now, 0))
		return oz_cpu_util_slow(ar, r, k.now, stamp, idle, widx, cur,
					(unsigned)pm);
	cur += idle ? 0 : k.now - stamp;
	cur = (cur > k.e ? k.e : cur) + pm * k.tail / 1000;
	/* ful_win_permille, win != 0 here (oz_clock) */
	return (unsigned)(cur >= k.win ? 1000 : cur * 1000 / k.win);
}
