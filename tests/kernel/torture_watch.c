/*
 * The torture's lost wake-up watch (torture.h), run by the test thread
 * every few ms while the stressors run. A lost wake-up loses no request
 * (its record is handled), only its effect, and the next wake-up of the
 * same thread heals it: the run would hide it. Two watches:
 *
 * - P workers: a ping is sent only when the last one was answered, so a
 *   lost one leaves its worker parked and busy for good. Busy with the
 *   same ping for TORT_LOST_MS: lost.
 * - Every worker: BLOCKED with its wake token set and no wake record in
 *   flight is a thread a wake-up is about to reach (the waker between
 *   its two exchanges, or the owner between its own two, IRQs masked,
 *   microseconds: thread_wake_owed, thread_wake_consume). Seen so,
 *   without a step of progress, for TORT_LOST_MS: lost.
 *
 * TORT_LOST_MS (boot argument torture_lost_ms) is far beyond any host
 * preemption of a vCPU inside those windows.
 */
#include "torture.h"

#define TORT_LOST_MS_DEFAULT 2000

static uint64_t lost_ticks;

/* What the watch saw last of a worker (the test thread only). */
struct tort_seen {
	tid_t tid;
	uint64_t key;   /* its progress, or the pong its ping needs */
	uint64_t since; /* counter value when first seen so; 0: not */
};

static struct tort_seen stuck[TORT_MAX_W], ping[TORT_MAX_P];

void tort_watch_init(void)
{
	memset(stuck, 0, sizeof(stuck));
	memset(ping, 0, sizeof(ping));
	lost_ticks = ms_to_ticks(bootarg_num("torture_lost_ms",
					     TORT_LOST_MS_DEFAULT));
}

bool tort_wake_stuck(struct thread *t)
{
	return atomic_load(&t->state) == T_BLOCKED &&
	       atomic_load(&t->wake_token) && !atomic_load(&t->wake_inflight);
}

static void tort_lost(const char *what, tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	kprintf("TORTURE-LOST-WAKEUP %s: tid %u state %u on cpu%u, seed %lu\n",
		what, tid, t ? atomic_load(&t->state) : 0,
		t ? atomic_load(&t->cpu) : 0, T.seed);
	atomic_fetch_add(&T.lost_wakeups, 1);
}

/** Has @w been in state @key (and only that) since a time TORT_LOST_MS
 *  ago? @on: it is in a suspect state now. Reports it once. */
static bool tort_watch_key(struct tort_seen *w, bool on, tid_t tid,
			   uint64_t key, uint64_t now)
{
	if (!on) {
		w->since = 0;
		return false;
	}
	if (!w->since || w->tid != tid || w->key != key) {
		*w = (struct tort_seen){tid, key, now};
		return false;
	}
	if (now - w->since < lost_ticks)
		return false;
	w->since = 0;
	return true;
}

void tort_watch(void)
{
	uint64_t now = arch_counter();
	for (unsigned i = 0; i < T.nw; i++) {
		struct tort_wref w = tort_worker(i);
		struct thread *t = thread_lookup(w.tid);
		if (tort_watch_key(&stuck[i], t && tort_wake_stuck(t), w.tid,
				   atomic_load(w.progress), now))
			tort_lost("blocked with a token", w.tid);
	}
	for (unsigned i = 0; i < T.np; i++) {
		struct tort_pw *p = &T.pw[i];
		if (tort_watch_key(&ping[i], atomic_load(&p->busy), p->tid,
				   atomic_load(&p->need), now))
			tort_lost("ping unanswered", p->tid);
	}
}
