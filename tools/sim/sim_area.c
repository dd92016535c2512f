/*
 * The simulator's load area: the records of <fulcrum/load.h> written the
 * way the kernel writes them (kernel/load.c, kernel/loadwin.c), so the
 * policies read exactly what they read on the machine. Single-threaded,
 * so the sequence counters only need to end even; they are still
 * bumped (odd, then even) as the protocol says.
 *
 *   per core: nrunnable, nblocked, load, weight at every change;
 *             busy/idle/stamp/idle_open, switches and the utilization
 *             windows at every switch; a busy core's record as at its
 *             last 1 ms tick, with util_now, before each decision
 *             (area_tick_cpu: the kernel publishes at every tick, which
 *             the readers' roll from `stamp` reproduces, but util_now,
 *             the figure opzone reads, is the one at the tick); running
 *             at every switch
 *   per thread: cpu, state, slice, nice, weight at every change; run
 *             time and windows at switch-out; tgen bumped on creation,
 *             exit and every change of owner
 */
#include <string.h>

#include "sim_int.h"

static void seq_bump(unsigned *seq)
{
	*seq += 1;
}

void area_init(struct sim *s)
{
	struct ful_load_page *a = s->area;
	memset(a, 0, sizeof(*a));
	a->hdr.version = FUL_LOAD_VERSION;
	a->hdr.ncpus = s->ncpus;
	a->hdr.nthreads = s->nthreads + 1;
	a->hdr.cpu_offset = 128;
	a->hdr.thread_offset = (unsigned)((char *)a->thread - (char *)a);
	a->hdr.counter_freq = 1000000000UL; /* ns */
	a->hdr.tgen = 1;
	s->par = (struct ful_win_par){.epoch = 0,
				      .win = FUL_UTIL_WIN_MS_DEFAULT * SIM_MS,
				      .idx0 = 0};
	a->hdr.util_epoch = 0;
	a->hdr.util_win = s->par.win;
	a->hdr.util_long = s->par.win * FUL_UTIL_LONG_WINS;
	a->hdr.util_idx0 = 0;
	a->hdr.util_win_ms = FUL_UTIL_WIN_MS_DEFAULT;
}

void area_tgen(struct sim *s)
{
	s->area->hdr.tgen++;
}

void area_thread(struct sim *s, struct sthread *t)
{
	struct ful_load_thread *r = &s->area->thread[FUL_TID_SLOT(t->tid)];
	seq_bump(&r->seq);
	r->tid = t->state == FUL_TS_DEAD ? 0 : t->tid;
	r->cpu = (unsigned char)t->cpu;
	r->state = t->state;
	r->flags = 0;
	r->nice = (signed char)t->d->nice;
	r->slice_ms = t->d->slice_ms;
	r->weight = t->weight;
	r->affinity = ful_cpus_first(s->ncpus);
	r->runtime = t->runtime;
	r->win_idx = t->win.idx;
	r->win_base = t->win_base;
	r->win_last = t->win.last;
	seq_bump(&r->seq);
}

/** The published window figures of core @c (lcpu_win of the kernel). */
static void cpu_win(struct sim *s, struct score *k, struct ful_load_cpu *l)
{
	const struct ful_win *w = &k->win;
	l->win_idx = w->idx;
	l->win_base = k->busy - w->cur;
	l->lwin_base = l->win_base - w->lcur;
	l->util_short = ful_win_permille(w->last, s->par.win);
	l->util_long = ful_win_permille(w->llast,
					s->par.win * FUL_UTIL_LONG_WINS);
}

void area_cpu(struct sim *s, unsigned c)
{
	struct score *k = &s->cpu[c];
	struct ful_load_cpu *l = &s->area->cpu[c];
	seq_bump(&l->seq);
	l->nrunnable = k->nready + (k->cur >= 0);
	l->nblocked = k->nblocked;
	l->running = k->cur >= 0 ? s->t[k->cur].tid : 0;
	l->load = k->load;
	l->weight = k->weight;
	l->busy = k->busy;
	l->idle = k->idle;
	l->stamp = k->last_switch;
	l->idle_open = k->cur < 0;
	l->mig_in = k->mig_in;
	l->mig_out = k->mig_out;
	l->switches = k->switches;
	cpu_win(s, k, l);
	l->util_now = 0; /* as the kernel's every publication but a tick's */
	seq_bump(&l->seq);
}

void area_tick_cpu(struct sim *s, unsigned c)
{
	struct ful_load_cpu *l = &s->area->cpu[c];
	area_cpu(s, c);
	unsigned pm = 0;
	ful_util_cpu(l, &s->par, l->stamp, &pm, NULL);
	seq_bump(&l->seq);
	l->util_now = FUL_UTIL_NOW_OK | pm;
	seq_bump(&l->seq);
}

void area_roll_cpu(struct sim *s, unsigned c, unsigned long t1)
{
	struct score *k = &s->cpu[c];
	unsigned long t0 = k->last_switch;
	bool busy = k->cur >= 0;
	if (t1 <= t0)
		return;
	if (busy)
		k->busy += t1 - t0;
	else
		k->idle += t1 - t0;
	ful_win_add(&k->win, &s->par, t0, t1, busy);
	k->last_switch = t1;
}

void area_roll_thread(struct sim *s, struct sthread *t)
{
	unsigned long t0 = t->run_from, t1 = s->now;
	if (t1 > t0) {
		t->runtime += t1 - t0;
		ful_win_add(&t->win, &s->par, t0, t1, 1);
	}
	t->win_base = t->runtime - t->win.cur;
	t->run_from = t1;
}
