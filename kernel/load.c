/*
 * Load accounting (see load.h and <fulcrum/load.h>). The load area is a
 * static, page-aligned kernel array: the hooks below write straight into
 * it, so publishing costs no copy. Writers of a cpu record: its core
 * only, IRQs masked. Writers of a thread record: the thread's owner core
 * (state, run time, counted sums) or its creator before it starts.
 */
#include "load.h"
#include "frame.h"
#include "kernel.h"
#include "race.h"
#include "sched.h"

struct ful_load_page load_area __attribute__((aligned(4096)));
static struct frame *load_frame_obj;

_Static_assert(FUL_LOAD_CPUS == MAX_CPUS,
	       "the load area has a record for every core the kernel runs");

void load_init(void)
{
	struct ful_load_hdr *h = &load_area.hdr;
	h->version = FUL_LOAD_VERSION;
	h->ncpus = machine.ncpus;
	h->nthreads = MAX_THREADS;
	h->cpu_offset = (unsigned)offsetof(struct ful_load_page, cpu);
	h->thread_offset = (unsigned)offsetof(struct ful_load_page, thread);
	h->ev_offset = offsetof(struct ful_load_page, ev);
	h->counter_freq = arch_counter_freq();
	uint64_t ms = bootarg_num("util_win", FUL_UTIL_WIN_MS_DEFAULT);
	if (ms < FUL_UTIL_WIN_MS_MIN || ms > FUL_UTIL_WIN_MS_MAX) {
		kprintf("load: util_win=%lu out of %u..%u ms, using %u\n", ms,
			FUL_UTIL_WIN_MS_MIN, FUL_UTIL_WIN_MS_MAX,
			FUL_UTIL_WIN_MS_DEFAULT);
		ms = FUL_UTIL_WIN_MS_DEFAULT;
	}
	load_win_init(ms);
	if (frame_wrap((uintptr_t)&load_area, FUL_LOAD_PAGES,
		       &load_frame_obj) != 0)
		panic("load: no frame slot for the load area");
}

/**
 * Core @c starts, idle: publish that, with its clock (last_switch) as
 * the stamp. A core that stays idle from boot on never switches and,
 * tickless, never ticks, so nothing else would publish its record; a
 * zero record has idle_open 0 and reads as busy since counter 0 (100 %
 * utilization on a core that never ran anything).
 */
void load_cpu_start(struct cpu *c)
{
	struct ful_load_cpu *l = lcpu(c);
	seq_begin(&l->seq);
	lcpu_times(c, l, true);
	seq_end(&l->seq);
}

struct frame *load_frame(void)
{
	return load_frame_obj;
}

static inline void tgen_bump(void)
{
	atomic_fetch_add_explicit((_Atomic unsigned long *)&load_area.hdr.tgen,
				  1, memory_order_release);
}

/*
 * t->load_counted: @t's slice and weight are in its core's sums.
 * t->blocked_counted: @t is in its core's blocked count. Both change
 * only inside a sequence window of the owner's record, and every hot
 * path (make ready, switch) opens exactly one window.
 */
static inline void sums_enter(struct ful_load_cpu *l, struct thread *t)
{
	if (t->blocked_counted) {
		t->blocked_counted = false;
		l->nblocked--;
	}
	if (!t->load_counted) {
		t->load_counted = true;
		l->nrunnable++;
		l->load += t->slice_ms;
		l->weight += t->weight;
	}
}

static inline void sums_leave(struct ful_load_cpu *l, struct thread *t,
			      uint32_t st)
{
	if (t->load_counted) {
		t->load_counted = false;
		l->nrunnable--;
		l->load -= t->slice_ms;
		l->weight -= t->weight;
	}
	if ((st == T_BLOCKED) != t->blocked_counted) {
		/* blocked now, or leaving while still counted as blocked (a
		 * hand-off thread never switched to: see sched_make_ready) */
		t->blocked_counted = st == T_BLOCKED;
		l->nblocked += t->blocked_counted ? 1u : -1u;
	}
}

void load_enter(struct owner o, struct thread *t)
{
	struct ful_load_cpu *l = lcpu(o.cpu);
	if (!t->load_counted || t->blocked_counted) {
		seq_begin(&l->seq);
		sums_enter(l, t);
		seq_end(&l->seq);
	}
	lthread_state(t, thread_state_abi(atomic_load_explicit(
				 &t->state, memory_order_relaxed)));
}

void load_leave(struct owner o, struct thread *t)
{
	struct ful_load_cpu *l = lcpu(o.cpu);
	uint32_t st = atomic_load_explicit(&t->state, memory_order_relaxed);
	if (t->load_counted || (st == T_BLOCKED) != t->blocked_counted) {
		seq_begin(&l->seq);
		sums_leave(l, t, st);
		seq_end(&l->seq);
	}
	lthread_state(t, thread_state_abi(st));
}

/*
 * A switch changes the sums only by what leaves with @prev and comes in
 * with @next. When nothing changes (preemption between counted threads)
 * no window is opened: only the flags, the state bytes and `running`
 * are written.
 */
void load_switch_slow(struct owner o, struct thread *prev,
		      struct thread *next)
{
	struct cpu *c = o.cpu;
	struct ful_load_cpu *l = lcpu(c);
	long dl = 0, dw = 0;
	int dn = 0, db = 0;
	uint32_t st = T_FREE;
	if (prev != c->idle) {
		st = atomic_load_explicit(&prev->state, memory_order_relaxed);
		if (st != T_MIGRATING) /* handed over: lthread_mine */
			prev->lrec->runtime = prev->runtime;
		if (st != T_READY && prev->load_counted) {
			prev->load_counted = false;
			dl -= prev->slice_ms, dw -= prev->weight, dn--;
		}
		if (st == T_BLOCKED && !prev->blocked_counted) {
			prev->blocked_counted = true;
			db++;
		}
	} else {
		lbe_wake(c); /* leaving idle (next is not idle: schedule) */
	}
	if (next != c->idle) {
		if (next->blocked_counted) { /* direct switch to a blocked one */
			next->blocked_counted = false;
			db--;
		}
		if (!next->load_counted) {
			next->load_counted = true;
			dl += next->slice_ms, dw += next->weight, dn++;
		}
	}
	bool idle_edge = prev == c->idle || next == c->idle;
	if (dl | dw | dn | db || idle_edge) {
		seq_begin(&l->seq);
		l->load += (unsigned long)dl;
		l->weight += (unsigned long)dw;
		l->nrunnable += (unsigned)dn;
		l->nblocked += (unsigned)db;
		if (idle_edge)
			lcpu_times(c, l, next == c->idle);
		seq_end(&l->seq);
	}
	if (prev != c->idle && st != T_MIGRATING)
		lthread_state(prev, thread_state_abi(st));
	if (next != c->idle)
		lthread_state(next, FUL_TS_RUNNING);
	l->running = next == c->idle ? 0
				     : atomic_load_explicit(&next->tid,
							    memory_order_relaxed);
}

/** Count an arrival at core @cpu: any core may (see mig_in in
 *  <fulcrum/load.h>), so the add is atomic and outside the window. */
static inline void mig_in_add(unsigned cpu)
{
	atomic_fetch_add_explicit(
		(_Atomic unsigned long *)&load_area.cpu[cpu].mig_in, 1,
		memory_order_relaxed);
}

void load_blocked_moved(struct owner o, struct thread *t, unsigned dest)
{
	/* A blocked thread lands on dest with this owner change: no TASK_IN
	 * will tell dest, so its arrival is counted here. */
	mig_in_add(dest);
	if (!t->blocked_counted)
		return;
	/* The new owner counts it from its next block on (see load.h). */
	struct ful_load_cpu *l = lcpu(o.cpu);
	seq_begin(&l->seq);
	t->blocked_counted = false;
	l->nblocked--;
	seq_end(&l->seq);
}

void load_tick(struct owner o)
{
	struct cpu *c = o.cpu;
	struct ful_load_cpu *l = lcpu(c);
	bool reparam = load_win_tick(o);
	bool busy = c->current != c->idle;
	if (busy && lthread_mine(c->current))
		c->current->lrec->runtime = c->current->runtime;
	seq_begin(&l->seq);
	lcpu_times(c, l, !busy);
	if (reparam)
		load_win_publish(c, l);
	if (busy) /* an idle core keeps 0: its figure falls while it idles */
		l->util_now = load_win_now(c);
	seq_end(&l->seq);
}

void load_thread_state(struct thread *t)
{
	lthread_state(t, thread_state_abi(atomic_load_explicit(
				 &t->state, memory_order_relaxed)));
}

void load_thread_static(struct thread *t, unsigned cpu)
{
	struct ful_load_thread *lt = t->lrec;
	seq_begin(&lt->seq);
	lt->tid = atomic_load_explicit(&t->tid, memory_order_relaxed);
	lt->cpu = (uint8_t)cpu;
	uint64_t online = atomic_load_explicit(&cpus_online_mask,
					       memory_order_relaxed);
	uint64_t aff = t->affinity & online;
	lt->flags = (uint8_t)((t->vs ? 0 : FUL_LT_KERNEL) |
			      (aff != online ? FUL_LT_PINNED : 0));
	lt->nice = t->nice;
	lt->slice_ms = t->slice_ms;
	lt->weight = t->weight;
	lt->affinity = aff;
	race_point(RACE_LTHREAD_WINDOW, t);
	seq_end(&lt->seq);
	tgen_bump();
}

void load_thread_free(struct owner o, struct thread *t)
{
	struct ful_load_cpu *l = lcpu(o.cpu);
	seq_begin(&l->seq);
	sums_leave(l, t, T_DEAD);
	seq_end(&l->seq);
	struct ful_load_thread *lt = t->lrec;
	seq_begin(&lt->seq);
	lt->tid = 0;
	lt->state = FUL_TS_DEAD;
	lt->runtime = 0; /* the slot's next thread starts from 0 */
	lt->win_idx = lt->win_base = lt->win_last = 0;
	seq_end(&lt->seq);
	tgen_bump();
}

void load_set_slice(struct owner o, struct thread *t, uint32_t slice_ms)
{
	bool counted = t->load_counted;
	if (counted)
		load_leave(o, t);
	t->slice_ms = slice_ms;
	t->slice_ticks = slice_ticks_of(slice_ms, t->weight);
	if (t->slice_left > t->slice_ticks)
		t->slice_left = t->slice_ticks;
	if (counted)
		load_enter(o, t);
	load_thread_static(t, o.cpu->id);
}

void load_set_nice(struct owner o, struct thread *t, int nice)
{
	bool counted = t->load_counted;
	if (counted)
		load_leave(o, t);
	t->nice = (int8_t)nice;
	t->weight = nice_to_weight(nice);
	t->slice_ticks = slice_ticks_of(t->slice_ms, t->weight);
	if (t->slice_left > t->slice_ticks)
		t->slice_left = t->slice_ticks;
	if (counted)
		load_enter(o, t);
	load_thread_static(t, o.cpu->id);
}

void load_count_migration(struct owner o, bool in)
{
	struct ful_load_cpu *l = lcpu(o.cpu);
	if (in) {
		mig_in_add(o.cpu->id);
		return;
	}
	seq_begin(&l->seq);
	l->mig_out++;
	seq_end(&l->seq);
}


/**
 * Is @t owned by o.cpu (not its idle thread)? Then its state in *@st.
 * The owner is read first: a core that gives a thread away stores its
 * new state (MIGRATING, or BLOCKED kept) before the new owner (release),
 * so a thread seen owned here is never seen in the state it had on the
 * core it left (RUNNING there, say). The owner is read again after the
 * state: a FREE slot keeps its last owner, and another core may fill
 * and start it between the two reads (thread_owner_stable).
 */
static bool load_owned_here(struct owner o, struct thread *t, uint32_t *st)
{
	return t != o.cpu->idle && thread_owner_stable(t, st) == o.cpu->id;
}

/** Count what o.cpu's records should say, from the thread table. */
static void load_recount(struct owner o, uint64_t *load, unsigned *nrun,
			 unsigned *nblk, uint64_t *weight)
{
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[i];
		uint32_t st;
		if (!load_owned_here(o, t, &st))
			continue;
		if ((st == T_READY || st == T_RUNNING) &&
		    t != o.cpu->handoff) { /* counted at its switch */
			*load += t->slice_ms;
			*weight += t->weight;
			(*nrun)++;
		}
		if ((st == T_BLOCKED || t == o.cpu->handoff) &&
		    t->blocked_counted) {
			(*nblk)++; /* not: handed over while blocked (load.h) */
		}
	}
	/* Moved while it ran and not switched out yet: owned by its new
	 * core, still in this one's sums until its switch-out here. */
	struct thread *cur = o.cpu->current;
	if (cur != o.cpu->idle && !lthread_mine(cur) && cur->load_counted) {
		*load += cur->slice_ms;
		*weight += cur->weight;
		(*nrun)++;
	}
}

/**
 * The scheduler's own books against the thread table: every READY
 * thread owned here is on the run queue or is the hand-off, a RUNNING
 * one is the current thread, and a sleeping one is BLOCKED. A thread
 * READY but on no queue would never run again (the lost-thread shape
 * the fuzzer found on 4 cores). docs/testing.md, "Checks under every
 * test", has the check. Owner, IRQs masked.
 */
static bool load_verify_sched(struct owner o, char *why, size_t n)
{
	struct cpu *c = o.cpu;
	unsigned ready = 0;
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[i];
		uint32_t st;
		if (!load_owned_here(o, t, &st) || st == T_FREE ||
		    st == T_EMBRYO) /* a creator may be filling it in */
			continue;
		if (st == T_READY && t != c->handoff)
			ready++;
		if ((st == T_RUNNING && t != c->current) ||
		    (t->sleeping && st != T_BLOCKED) ||
		    (t == c->handoff && st != T_READY)) {
			ksnprintf(why, n,
				  "cpu%u thread %s tid %x state %u sleeping %u "
				  "current %s handoff %s",
				  c->id, t->name, atomic_load(&t->tid), st,
				  t->sleeping, c->current->name,
				  c->handoff ? c->handoff->name : "-");
			return false;
		}
	}
	if (ready != c->rq.nr || !rq_check(&c->rq)) {
		ksnprintf(why, n, "cpu%u %u READY threads, %u queued%s", c->id,
			  ready, c->rq.nr, rq_check(&c->rq) ? "" : ", queue broken");
		return false;
	}
	return true;
}

bool load_verify_cpu(struct owner o, char *why, size_t n)
{
	uint64_t load = 0, weight = 0;
	unsigned nrun = 0, nblk = 0;
	/* With the records, the scheduler's own detector (sched.c): under
	 * "loadcheck" the user suites see it too, not only the kernel's. */
	if (o.cpu->stats.overlap) {
		ksnprintf(why, n, "cpu%u switched in a thread live elsewhere",
			  o.cpu->id);
		return false;
	}
	if (!load_verify_sched(o, why, n))
		return false;
	load_recount(o, &load, &nrun, &nblk, &weight);
	struct ful_load_cpu *l = lcpu(o.cpu);
	if (l->load != load || l->nrunnable != nrun || l->nblocked != nblk ||
	    l->weight != weight || (l->seq & 1)) {
		ksnprintf(why, n,
			  "cpu%u load %lu/%lu runnable %u/%u blocked %u/%u "
			  "weight %lu/%lu seq %u (published/actual)",
			  o.cpu->id, l->load, load, l->nrunnable, nrun,
			  l->nblocked, nblk, l->weight, weight, l->seq);
		return false;
	}
	if (!load_win_verify_cpu(o, why, n))
		return false;
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[i];
		struct ful_load_thread *lt = &load_area.thread[i];
		uint32_t st;
		/* MIGRATING: the core it left may still publish its
		 * switch-out. An INACTIVE thread is checked too: its record
		 * was complete before it became visible (thread_publish). */
		if (!load_owned_here(o, t, &st) || st == T_FREE ||
		    st == T_EMBRYO || st == T_MIGRATING)
			continue;
		bool handoff = t == o.cpu->handoff; /* state published at
						       * its switch */
		if (lt->tid != atomic_load(&t->tid) ||
		    (!handoff && lt->state != thread_state_abi(st)) ||
		    lt->cpu != o.cpu->id || lt->slice_ms != t->slice_ms) {
			ksnprintf(why, n,
				  "thread %s: published tid %x state %u cpu %u "
				  "slice %u, actual %x %u %u %u",
				  t->name, lt->tid, lt->state, lt->cpu,
				  lt->slice_ms, atomic_load(&t->tid),
				  thread_state_abi(st), o.cpu->id, t->slice_ms);
			return false;
		}
		if (!load_win_verify_thread(o, t, why, n))
			return false;
	}
	return true;
}
