/*
 * Utilization windows (load.h, <fulcrum/load.h> version 3): each core
 * rolls its own busy-by-window state, and the state of the thread it
 * runs, over to a new window at its first switch or tick in it. The
 * switch path pays only two compares (sched_account: has the window
 * ended? sched_switch_books: is next's window the core's?); the roll
 * itself, pure arithmetic from <fulcrum/loadwin.h>, runs about once per
 * window per core and once per window per thread that runs in it.
 *
 * Writers: a core's window fields are [O] (that core, IRQs masked);
 * the window parameters in the header are written by load_win_set under
 * util_lock and hdr.util_seq, and each core copies them at its ticks.
 */
#include "load.h"
#include "kernel.h"
#include "spinlock.h"

static spinlock_t util_lock = SPINLOCK_INIT;

/** The header's parameters, consistently (retries while a change is
 *  being written). Any core, any context. */
static unsigned win_params_read(struct ful_win_par *p)
{
	const struct ful_load_hdr *h = &load_area.hdr;
	for (;;) {
		unsigned s = __atomic_load_n(&h->util_seq, __ATOMIC_ACQUIRE);
		p->epoch = *(const volatile unsigned long *)&h->util_epoch;
		p->win = *(const volatile unsigned long *)&h->util_win;
		p->idx0 = *(const volatile unsigned long *)&h->util_idx0;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(s & 1) && __atomic_load_n(&h->util_seq,
						__ATOMIC_RELAXED) == s)
			return s;
		arch_cpu_relax();
	}
}

/** Write new parameters: windows of @win_ms from @now on, indexes at
 *  least 2 beyond every one used so far (aligned to long windows).
 *  Serialized by util_lock; IRQs masked by the caller's lock. */
static void win_params_write(uint64_t now, uint64_t win_ms)
{
	struct ful_load_hdr *h = &load_area.hdr;
	struct ful_win_par old;
	uint64_t idx0 = 0;
	win_params_read(&old);
	if (old.win) {
		uint64_t i = ful_win_index(&old, now) + 2;
		idx0 = (i + FUL_UTIL_LONG_WINS - 1) / FUL_UTIL_LONG_WINS *
		       FUL_UTIL_LONG_WINS;
	}
	uint64_t win = ms_to_ticks(win_ms);
	seq_begin(&h->util_seq);
	h->util_epoch = now;
	h->util_win = win;
	h->util_long = win * FUL_UTIL_LONG_WINS;
	h->util_idx0 = idx0;
	h->util_win_ms = win_ms;
	seq_end(&h->util_seq);
}

void load_win_init(uint64_t win_ms)
{
	uint64_t flags = spin_lock_irqsave(&util_lock);
	win_params_write(arch_counter(), win_ms);
	spin_unlock_irqrestore(&util_lock, flags);
}

int load_win_set(uint64_t win_ms)
{
	if (win_ms < FUL_UTIL_WIN_MS_MIN || win_ms > FUL_UTIL_WIN_MS_MAX)
		return -FUL_EINVAL;
	load_win_init(win_ms);
	return 0;
}

/** Publish @c's window figures; inside a window of @l, with the busy
 *  figure they are relative to (lcpu_times). */
static inline void lcpu_win(struct cpu *c, struct ful_load_cpu *l)
{
	const struct ful_win *w = &c->win;
	uint64_t busy_now = w->cur + (c->stats.busy - c->win_busy0);
	l->win_idx = w->idx;
	l->win_base = c->stats.busy - busy_now;
	l->lwin_base = l->win_base - w->lcur;
	l->util_short = ful_win_permille(w->last, c->win_par.win);
	l->util_long = ful_win_permille(w->llast, c->win_par.win *
						  FUL_UTIL_LONG_WINS);
	c->win_lastpm_ok = false; /* load_win_now computes it if needed */
}

/** Publish thread @t's run time and windows, as its own fields have
 *  them, in one sequence window of its record. Its owner, IRQs masked. */
static void lthread_times(struct thread *t)
{
	struct ful_load_thread *lt = t->lrec;
	seq_begin(&lt->seq);
	lt->runtime = t->runtime;
	lt->win_idx = t->win_idx;
	lt->win_base = t->win_base;
	lt->win_last = t->win_last;
	seq_end(&lt->seq);
}

/** Keep @w as thread @t's windows and publish them with its run time,
 *  unless @t was handed over while it ran (lthread_mine): then its new
 *  owner publishes them when it lands. The core running @t, IRQs
 *  masked. */
static inline void lthread_win_store(struct thread *t, const struct ful_win *w)
{
	t->win_idx = w->idx;
	t->win_last = w->last;
	t->win_base = t->runtime - w->cur;
	if (lthread_mine(t))
		lthread_times(t);
}

void load_thread_landed(struct owner o, struct thread *t)
{
	(void)o;
	lthread_times(t);
}

/** Roll thread @t's windows to the core's window at c->last_switch,
 *  @t having run from @t0 to then (@t0 == last_switch: it did not run),
 *  and publish them with its run time. Owner, IRQs masked. */
static void lthread_win(struct cpu *c, struct thread *t, uint64_t t0)
{
	uint64_t now = c->last_switch;
	struct ful_win w = {.idx = t->win_idx,
			    .cur = t->runtime - (now - t0) - t->win_base,
			    .last = t->win_last};
	ful_win_add(&w, &c->win_par, t0, now, 1);
	lthread_win_store(t, &w);
}

void load_win_enter(struct cpu *c, struct thread *t)
{
	/* It did not run since its window: a skip, no division. */
	struct ful_win w = {.idx = t->win_idx,
			    .cur = t->runtime - t->win_base,
			    .last = t->win_last};
	if (w.idx < c->win_par.idx0) /* from before a length change */
		w = (struct ful_win){.idx = c->win_par.idx0};
	ful_win_skip(&w, c->win.idx);
	lthread_win_store(t, &w);
}

/** Take new window parameters if the header's changed: restart this
 *  core's windows (and its running thread's) at their epoch, rolled to
 *  c->last_switch. true if it did. Owner, IRQs masked. */
static bool win_reparam(struct cpu *c)
{
	unsigned s = __atomic_load_n(&load_area.hdr.util_seq,
				     __ATOMIC_RELAXED);
	if (s == c->win_seq)
		return false;
	c->win_seq = win_params_read(&c->win_par);
	struct ful_win w = c->win;
	w.cur += c->stats.busy - c->win_busy0;
	ful_win_add(&w, &c->win_par, c->last_switch, c->last_switch, 0);
	c->win = w;
	c->win_busy0 = c->stats.busy;
	c->win_end = ful_win_start(&c->win_par, w.idx + 1);
	if (c->current != c->idle)
		lthread_win(c, c->current, c->last_switch);
	return true;
}

void load_win_roll(struct owner o, struct thread *prev, uint64_t t0,
		   bool publish)
{
	struct cpu *c = o.cpu;
	bool busy = prev != c->idle;
	if (!win_reparam(c)) {
		if (!c->win_par.win)
			return; /* before load_init: win_end stays 0 */
		uint64_t now = c->last_switch;
		struct ful_win w = c->win;
		w.cur += c->stats.busy - (busy ? now - t0 : 0) - c->win_busy0;
		ful_win_add(&w, &c->win_par, t0, now, busy);
		c->win = w;
		c->win_busy0 = c->stats.busy;
		c->win_end = ful_win_start(&c->win_par, w.idx + 1);
		if (busy && prev->win_idx != w.idx)
			lthread_win(c, prev, t0);
	}
	if (!publish) {
		c->win_unpub = true;
		return;
	}
	struct ful_load_cpu *l = lcpu(c);
	seq_begin(&l->seq);
	lcpu_times(c, l, !busy);
	lcpu_win(c, l);
	seq_end(&l->seq);
}

bool load_win_tick(struct owner o)
{
	bool pub = win_reparam(o.cpu) || o.cpu->win_unpub;
	o.cpu->win_unpub = false;
	return pub;
}

void load_win_publish(struct cpu *c, struct ful_load_cpu *l)
{
	lcpu_win(c, l);
}

uint32_t load_win_now(struct cpu *c)
{
	uint64_t win = c->win_par.win;
	if (!win)
		return 0;
	if (__builtin_expect(!c->win_lastpm_ok, 0)) {
		/* once per window, at its first busy tick: the last
		 * window's permille as the record has it (util_short), and
		 * what ful_util_cpu_win makes of that again */
		uint64_t pm = ful_win_permille(c->win.last, win);
		c->win_lastpm = (uint16_t)ful_win_permille(pm * win / 1000,
							   win);
		c->win_lastpm_ok = true;
	}
	/* the window of last_switch is c->win.idx (rolled at this tick),
	 * which started at win_end - win; its busy time so far is what the
	 * record's busy - win_base says */
	uint64_t cur = c->win.cur + (c->stats.busy - c->win_busy0);
	return FUL_UTIL_NOW_OK | ful_win_sliding(cur, c->win_lastpm,
						 c->last_switch,
						 c->win_end - win, win);
}

bool load_win_verify_cpu(struct owner o, char *why, size_t n)
{
	struct cpu *c = o.cpu;
	const struct ful_load_cpu *l = lcpu(c);
	const struct ful_win_par *p = &c->win_par;
	if (!p->win)
		return true; /* not set up yet */
	uint64_t lw = p->win * FUL_UTIL_LONG_WINS;
	unsigned at_stamp = 0;
	if (l->util_now)
		ful_util_cpu(l, p, l->stamp, &at_stamp, NULL);
	const char *bad =
		l->win_idx > ful_win_index(p, l->stamp) ? "index ahead of stamp"
		: l->util_now && (l->idle_open ||
				  l->util_now != (FUL_UTIL_NOW_OK | at_stamp))
			? "util_now not the figure at stamp"
		: l->busy - l->win_base > p->win      ? "window busy > length"
		: l->win_base - l->lwin_base > lw      ? "long busy > length"
		: l->util_short > 1000 || l->util_long > 1000 ? "permille > 1000"
		: c->win.idx != l->win_idx             ? "index not published"
							: NULL;
	if (bad)
		ksnprintf(why, n,
			  "cpu%u windows: %s (idx %lu at stamp %lu, busy %lu "
			  "base %lu lbase %lu, %u/%u permille, now 0x%x/%u, "
			  "win %lu)",
			  c->id, bad, l->win_idx, l->stamp, l->busy,
			  l->win_base, l->lwin_base, l->util_short,
			  l->util_long, l->util_now, at_stamp, p->win);
	return !bad;
}

bool load_win_verify_thread(struct owner o, const struct thread *t,
			    char *why, size_t n)
{
	(void)o;
	const struct ful_load_thread *lt = t->lrec;
	/* The header's parameters, not this core's copy: another core may
	 * have taken new ones first and rolled @t into their numbering,
	 * while this core, idle and tickless, still holds the old ones. */
	struct ful_win_par par;
	win_params_read(&par);
	const struct ful_win_par *p = &par;
	if (!p->win || lt->win_idx < p->idx0) /* from before a change */
		return true;
	uint64_t now_idx = ful_win_index(p, arch_counter());
	const char *bad = lt->win_idx > now_idx ? "index ahead of now"
			  : lt->runtime < lt->win_base ? "base above run time"
			  : lt->runtime - lt->win_base > p->win
				  ? "window run time > length"
			  : lt->win_last > p->win ? "last window > length"
						  : NULL;
	if (bad)
		ksnprintf(why, n,
			  "thread %s windows: %s (idx %lu, now %lu, run "
			  "time %lu base %lu last %lu, win %lu)",
			  t->name, bad, lt->win_idx, now_idx, lt->runtime,
			  lt->win_base, lt->win_last, p->win);
	return !bad;
}
