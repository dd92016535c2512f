/*
 * A fabricated load area (see lb_fake.h). Writers follow the kernel's
 * protocol: seq made odd, fields written, seq made even (release), and
 * every per-core figure recomputed from the thread records after each
 * change, as the kernel keeps them in step.
 */
#include <string.h>

#include <fulcrum/errno.h>
#include <fulcrum/weight.h>

#include "lb_fake.h"

#define W_RLX(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static void seq_begin(unsigned *seq)
{
	W_RLX(seq, *seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void seq_end(unsigned *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);
}

void lb_fake_util_par(struct ful_load_page *a, unsigned long epoch,
		      unsigned long win, unsigned long idx0);

static void tgen_bump(struct ful_load_page *a)
{
	__atomic_fetch_add(&a->hdr.tgen, 1, __ATOMIC_RELEASE);
}

void lb_fake_init(struct ful_load_page *a, unsigned ncpus)
{
	memset(a, 0, sizeof(*a));
	a->hdr.version = FUL_LOAD_VERSION;
	a->hdr.ncpus = ncpus;
	a->hdr.cpu_offset = 128;
	a->hdr.thread_offset = 4096;
	a->hdr.counter_freq = 62500000;
	a->hdr.tgen = 1;
	lb_fake_util_par(a, 0, a->hdr.counter_freq / 10, 0); /* 100 ms */
}

static struct ful_load_thread *rec(struct ful_load_page *a, unsigned tid)
{
	unsigned slot = FUL_TID_SLOT(tid);
	if (!tid || slot >= FUL_LOAD_THREADS || a->thread[slot].tid != tid)
		return NULL;
	return &a->thread[slot];
}

const struct ful_load_thread *lb_fake_thread(const struct ful_load_page *a,
					     unsigned tid)
{
	return rec((struct ful_load_page *)a, tid);
}

/** Recompute every core's nrunnable, nblocked, load and weight. */
static void fake_sync(struct ful_load_page *a)
{
	for (unsigned c = 0; c < a->hdr.ncpus && c < FUL_LOAD_CPUS; c++) {
		unsigned nrun = 0, nblk = 0;
		unsigned long load = 0, weight = 0;
		for (unsigned s = 0; s < a->hdr.nthreads; s++) {
			const struct ful_load_thread *t = &a->thread[s];
			if (!t->tid || t->cpu != c)
				continue;
			if (t->state == FUL_TS_READY ||
			    t->state == FUL_TS_RUNNING) {
				nrun++;
				load += t->slice_ms;
				weight += t->weight;
			} else if (t->state == FUL_TS_BLOCKED) {
				nblk++;
			}
		}
		struct ful_load_cpu *r = &a->cpu[c];
		seq_begin(&r->seq);
		W_RLX(&r->nrunnable, nrun);
		W_RLX(&r->nblocked, nblk);
		W_RLX(&r->load, load);
		W_RLX(&r->weight, weight);
		seq_end(&r->seq);
	}
}

bool lb_fake_add(struct ful_load_page *a, unsigned tid, unsigned cpu,
		 unsigned slice_ms, unsigned state)
{
	unsigned slot = FUL_TID_SLOT(tid);
	if (!tid || slot >= FUL_LOAD_THREADS || a->thread[slot].tid)
		return false;
	struct ful_load_thread *t = &a->thread[slot];
	seq_begin(&t->seq);
	t->tid = tid;
	t->cpu = (unsigned char)cpu;
	t->state = (unsigned char)state;
	t->flags = 0;
	t->nice = 0;
	t->slice_ms = slice_ms;
	t->weight = 1024;
	t->affinity = ful_cpus_first(a->hdr.ncpus);
	t->runtime = 0;
	seq_end(&t->seq);
	if (slot >= a->hdr.nthreads)
		a->hdr.nthreads = slot + 1;
	tgen_bump(a);
	fake_sync(a);
	return true;
}

void lb_fake_set_state(struct ful_load_page *a, unsigned tid, unsigned state)
{
	struct ful_load_thread *t = rec(a, tid);
	if (!t)
		return;
	seq_begin(&t->seq);
	W_RLX(&t->state, (unsigned char)state);
	seq_end(&t->seq);
	fake_sync(a); /* a state change does not bump tgen */
}

void lb_fake_set_affinity(struct ful_load_page *a, unsigned tid,
			  unsigned mask)
{
	struct ful_load_thread *t = rec(a, tid);
	unsigned online = (1u << a->hdr.ncpus) - 1;
	if (!t)
		return;
	mask = mask ? mask & online : online;
	seq_begin(&t->seq);
	W_RLX(&t->affinity, mask);
	W_RLX(&t->flags, (unsigned char)(mask == online
		? t->flags & ~FUL_LT_PINNED : t->flags | FUL_LT_PINNED));
	seq_end(&t->seq);
	tgen_bump(a);
}

void lb_fake_set_nice(struct ful_load_page *a, unsigned tid, int nice)
{
	struct ful_load_thread *t = rec(a, tid);
	if (!t)
		return;
	seq_begin(&t->seq);
	W_RLX(&t->nice, (signed char)nice);
	W_RLX(&t->weight, ful_weight_of_nice(nice));
	seq_end(&t->seq);
	tgen_bump(a);
	fake_sync(a);
}

void lb_fake_set_flags(struct ful_load_page *a, unsigned tid, unsigned flags)
{
	struct ful_load_thread *t = rec(a, tid);
	if (!t)
		return;
	seq_begin(&t->seq);
	W_RLX(&t->flags, (unsigned char)flags);
	seq_end(&t->seq);
	tgen_bump(a);
}

void lb_fake_move(struct ful_load_page *a, unsigned tid, unsigned cpu)
{
	struct ful_load_thread *t = rec(a, tid);
	if (!t || t->cpu == cpu)
		return;
	seq_begin(&t->seq);
	W_RLX(&t->cpu, (unsigned char)cpu);
	seq_end(&t->seq);
	tgen_bump(a);
	fake_sync(a);
}

void lb_fake_kill(struct ful_load_page *a, unsigned tid)
{
	struct ful_load_thread *t = rec(a, tid);
	if (!t)
		return;
	seq_begin(&t->seq);
	W_RLX(&t->state, (unsigned char)FUL_TS_DEAD);
	W_RLX(&t->tid, 0u);
	seq_end(&t->seq);
	tgen_bump(a);
	fake_sync(a);
}

unsigned lb_fake_apply(struct ful_load_page *a, struct ful_move *moves,
		       unsigned n)
{
	unsigned done = 0;
	for (unsigned i = 0; i < n; i++) {
		struct ful_load_thread *t = rec(a, moves[i].tid);
		if (!t) {
			moves[i].result = -FUL_ENOTHREAD;
		} else if (t->cpu == moves[i].cpu) {
			moves[i].result = FUL_MOVE_ALREADY;
		} else {
			lb_fake_move(a, moves[i].tid, moves[i].cpu);
			moves[i].result = FUL_MOVE_DONE;
			done++;
		}
	}
	return done;
}

void lb_fake_util_par(struct ful_load_page *a, unsigned long epoch,
		      unsigned long win, unsigned long idx0)
{
	struct ful_load_hdr *h = &a->hdr;
	seq_begin(&h->util_seq);
	W_RLX(&h->util_epoch, epoch);
	W_RLX(&h->util_win, win);
	W_RLX(&h->util_long, win * FUL_UTIL_LONG_WINS);
	W_RLX(&h->util_idx0, idx0);
	W_RLX(&h->util_win_ms, win * 1000 / h->counter_freq);
	seq_end(&h->util_seq);
}

void lb_fake_cpu_util(struct ful_load_page *a, unsigned cpu,
		      unsigned long stamp, int idle_open, unsigned long cur,
		      unsigned long lcur, unsigned short_pm, unsigned long_pm)
{
	struct ful_win_par p = {a->hdr.util_epoch, a->hdr.util_win,
				a->hdr.util_idx0};
	struct ful_load_cpu *r = &a->cpu[cpu];
	seq_begin(&r->seq);
	W_RLX(&r->stamp, stamp);
	W_RLX(&r->idle_open, (unsigned long)(idle_open != 0));
	W_RLX(&r->win_idx, p.win ? ful_win_index(&p, stamp) : 0);
	W_RLX(&r->busy, r->busy + cur + lcur); /* busy at least that */
	W_RLX(&r->win_base, r->busy - cur);
	W_RLX(&r->lwin_base, r->busy - cur - lcur);
	W_RLX(&r->util_short, short_pm);
	W_RLX(&r->util_long, long_pm);
	/* as the kernel's tick publishes it on a busy core (load_win_now):
	 * the figure at the stamp; none on an idle one */
	unsigned pm = 0;
	if (!idle_open && p.win)
		ful_util_cpu(r, &p, stamp, &pm, NULL);
	W_RLX(&r->util_now, idle_open || !p.win ? 0u : FUL_UTIL_NOW_OK | pm);
	seq_end(&r->seq);
}

void lb_fake_thread_util(struct ful_load_page *a, unsigned tid,
			 unsigned long idx, unsigned long cur,
			 unsigned long last)
{
	struct ful_load_thread *t = rec(a, tid);
	if (!t)
		return;
	seq_begin(&t->seq);
	W_RLX(&t->win_idx, idx);
	W_RLX(&t->win_base, t->runtime);
	W_RLX(&t->runtime, t->runtime + cur);
	W_RLX(&t->win_last, last);
	seq_end(&t->seq);
}
