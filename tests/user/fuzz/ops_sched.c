/*
 * Threads against threads: victims (threads of this task made to be
 * killed, migrated and re-sliced at any point, most often while they
 * wait in IPC), batch and single migration, THREAD_SET, checks a worker
 * makes on itself, and the wake-up rendezvous with the watchdog.
 *
 * A victim runs fz_victim_main: IPC with short timeouts on the arena,
 * notification waits, touches of the shared grid (which may fault: a
 * fault kills only the victim), yields and spins; now and then it ends
 * itself. It takes no lock and allocates nothing, so killing it at any
 * instruction leaves nothing behind. Its slot (struct fz_victim) goes
 * FREE -> BUSY -> LIVE: a worker spawns it, workers kill it (through
 * its own capability, under the slot's lock), the watchdog reaps it
 * once THREAD_INFO says it is gone, and fails the run if a kill that
 * returned 0 has not ended it within FZ_STUCK_US. The watchdog never
 * frees a victim's memory itself: the watchdog outranks the workers, so
 * waiting for malloc's lock held by a worker preempted on the
 * watchdog's core would last until ful_backoff's sleeps let it run. The next
 * spawner in the slot frees it, or the teardown.
 */
#include <malloc.h>
#include <string.h>

#include <ful/load.h>

#include "fz.h"

static bool fz_trylock(_Atomic int *l)
{
	int z = 0;
	return atomic_compare_exchange_strong(l, &z, 1);
}

static void fz_lock(_Atomic int *l)
{
	while (!fz_trylock(l))
		ful_yield();
}

static void fz_unlock(_Atomic int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

static unsigned long fz_us(unsigned long ticks)
{
	return ticks / (ful_counter_freq() / 1000000);
}

/* ---- victims ---- */

void fz_touch_grid(struct fz_ctx *c)
{
	volatile unsigned long *p =
	    (void *)(FZ_GRID_VA + fz_below(&c->rng, FZ_GRID_N) * FZ_GRID_STEP +
		     fz_below(&c->rng, FZ_FRAME_PAGES) * FUL_PAGE_SIZE +
		     fz_below(&c->rng, 512) * 8);
	if (fz_below(&c->rng, 2))
		*p = fz_next(&c->rng);
	else
		(void)*p;
}

/** Spin a little, so that a kill or a move finds the victim running. */
static void fz_spin(struct fz_ctx *c)
{
	for (unsigned i = fz_below(&c->rng, 2000); i; i--)
		__asm__ volatile("" ::: "memory");
}

void fz_victim_main(void *arg)
{
	struct fz_victim *v = arg;
	struct fz_ctx *c = &v->c;
	while (!fz_stopping()) {
		unsigned k = fz_below(&c->rng, 100);
		if (k < 45)
			fz_op_ipc(c);
		else if (k < 70)
			fz_op_ntfn(c);
		else if (k < 73)
			fz_touch_grid(c);
		else if (k < 82)
			FZ_SYS(c, YIELD, 0, 0);
		else if (k < 83)
			break;
		else
			fz_spin(c);
		atomic_fetch_add_explicit(&c->hb, 1, memory_order_relaxed);
	}
	c->st.calls[FUL_SYS_EXIT]++;
	ful_exit();
}

/** Is @c in a call that blocks (an IPC wait, most likely)? */
static bool fz_in_wait(const struct fz_ctx *c)
{
	return atomic_load_explicit(&c->cur.t0, memory_order_relaxed) &&
	       c->cur.timeout_us;
}

/** A random victim slot; half of the time the first one after it that
 *  waits in a blocking call, if any: kills and moves of threads blocked
 *  in IPC are what the fuzzer is after. */
static struct fz_victim *fz_victim_waiting(struct fz_ctx *c)
{
	unsigned i = fz_below(&c->rng, fz.nvictims);
	for (unsigned k = 0; fz_below(&c->rng, 2) && k < fz.nvictims; k++) {
		struct fz_victim *v = &fz.v[(i + k) % fz.nvictims];
		if (atomic_load(&v->state) == FZV_LIVE && fz_in_wait(&v->c))
			return v;
	}
	return &fz.v[i];
}

/** A random worker; half of the time one that waits (in IPC, in the
 *  rendezvous), if any. */
static struct fz_worker *fz_worker_waiting(struct fz_ctx *c)
{
	unsigned i = fz_below(&c->rng, fz.nworkers);
	for (unsigned k = 0; fz_below(&c->rng, 2) && k < fz.nworkers; k++) {
		struct fz_worker *w = &fz.w[(i + k) % fz.nworkers];
		if (fz_in_wait(&w->c))
			return w;
	}
	return &fz.w[i];
}

/** Start victim @v (BUSY) in its slot; LIVE on success, else FREE. */
static void fz_victim_spawn(struct fz_worker *w, struct fz_victim *v)
{
	unsigned i = (unsigned)(v - fz.v);
	free(v->stale_mem);
	v->stale_mem = NULL;
	v->c.id = FZ_MAX_WORKERS + i;
	v->c.victim = true;
	v->c.rng.s = fz_next(&w->c.rng) | 1;
	v->c.reply = FZ_R_NONE;
	atomic_store(&v->c.cur.t0, 0); /* its predecessor may have died in one */
	v->killed_at = 0;
	v->stuck = false;
	struct ful_thread_args a = {.fn = fz_victim_main,
				    .arg = v,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS,
				    .dst = FZ_SLOT_VICTIM0 + i,
				    .prio = FZ_PRIO,
				    .cpu = fz_below(&w->c.rng, fz.ncpus),
				    .slice_ms = 1 + fz_below(&w->c.rng, 20),
				    .nice = (int)fz_below(&w->c.rng, 40) - 20,
				    .stack_size = 8192,
				    .name = "fz-victim"};
	if (ful_thread_spawn(&a, &v->th) < 0) {
		atomic_store(&v->state, FZV_FREE);
		return;
	}
	v->spawned++;
	atomic_fetch_add(&fz.victim_spawns, 1);
	/* Still BUSY: the watchdog does not reap it under the copy. */
	FZ_SYS(&w->c, CAP_COPY, FZ_E(STATE), FZ_SLOT_VICTIM0 + i,
	       FUL_SLOT_SELF_VS, fz_slot(&w->c, FZ_THREAD_LO, FZ_THREAD_N),
	       fz_below(&w->c.rng, 2) ? FUL_R_ALL : fz_below(&w->c.rng, 16), 0);
	atomic_store(&v->state, FZV_LIVE);
}

/** Kill live victim @v through its own capability: exact. */
static void fz_victim_kill(struct fz_worker *w, struct fz_victim *v)
{
	fz_lock(&v->lock);
	if (atomic_load(&v->state) == FZV_LIVE) {
		unsigned long a[7] = {FZ_SLOT_VICTIM0 + (unsigned)(v - fz.v)};
		long got = fz_sys(&w->c, FUL_SYS_THREAD_KILL, a,
				  FZ_E(DEAD) | FZ_E(AGAIN))
			       .x0;
		if (got == 0 && !v->killed_at) {
			v->killed_at = ful_counter();
			atomic_fetch_add(&fz.victim_kills, 1);
		}
	}
	fz_unlock(&v->lock);
}

void fz_op_victim(struct fz_worker *w)
{
	struct fz_victim *v = fz_victim_waiting(&w->c);
	unsigned st = FZV_FREE;
	if (!fz_stopping() &&
	    atomic_compare_exchange_strong(&v->state, &st, FZV_BUSY))
		fz_victim_spawn(w, v);
	else if (st == FZV_LIVE && fz_below(&w->c.rng, 2))
		fz_victim_kill(w, v);
	else if (st == FZV_LIVE) /* through any thread capability */
		FZ_SYS(&w->c, THREAD_KILL, FZ_CAPS | FZ_E(DEAD) | FZ_E(AGAIN),
		       fz_slot(&w->c, FZ_THREAD_LO, FZ_THREAD_N));
}

/** Core @cpu's record, or zeros if a writer keeps it torn. */
static void fz_diag_core(unsigned cpu, struct ful_load_cpu *lc)
{
	for (unsigned k = 0; k < 1000; k++)
		if (ful_load_try_cpu(ful_load_area(), cpu % FUL_LOAD_CPUS, lc))
			return;
	memset(lc, 0, sizeof *lc);
}

void fz_diag_thread(const char *who, long tid, unsigned slot)
{
	struct ful_thread_info i0 = {0}, i1 = {0};
	struct ful_load_cpu c0, c1;
	ful_thread_info(slot, &i0);
	fz_diag_core(i0.cpu, &c0);
	ful_ntfn_wait(FZ_SLOT_TICK, NULL, 1000000); /* then look again */
	ful_thread_info(slot, &i1);
	fz_diag_core(i0.cpu, &c1);
	const struct ful_load_thread *lt =
		&ful_load_area()->thread[FUL_TID_SLOT(tid) % FUL_LOAD_THREADS];
	fz_say("FUZZ-DIAG %s tid %lx, 1 s apart: state %u->%u, cpu %u->%u, "
	       "runtime %lu->%lu us (load area: state %u cpu %u); its core "
	       "cpu%u: switches %lu->%lu, running %x, %u runnable, %u "
	       "blocked (seed %lu)\n",
	       who, tid, i0.state, i1.state, i0.cpu, i1.cpu, i0.runtime_us,
	       i1.runtime_us, FUL_LOAD_RLX(&lt->state), FUL_LOAD_RLX(&lt->cpu),
	       i0.cpu, c0.switches, c1.switches, c1.running, c1.nrunnable,
	       c1.nblocked, fz.seed);
}

/** Reap @v if it has died; check a kill and its current call. */
static void fz_victim_check(struct fz_victim *v, bool final)
{
	struct ful_thread_info info;
	unsigned slot = FZ_SLOT_VICTIM0 + (unsigned)(v - fz.v);
	/* t0 first: a call that starts after `now` was read would have a
	 * t0 past it, and now - t0 would wrap into "stuck for ever". */
	unsigned long t0 = atomic_load(&v->c.cur.t0), now = ful_counter();
	if (ful_thread_info(slot, &info) == -FUL_EDEAD) {
		ful_cap_delete(slot);
		v->stale_mem = v->th.mem; /* freed by the next spawner */
		memset(&v->th, 0, sizeof v->th);
		atomic_store(&v->state, FZV_FREE);
		return;
	}
	if (v->killed_at && fz_us(now - v->killed_at) > FZ_STUCK_US) {
		unsigned long a[7] = {v->th.tid, info.state, info.cpu};
		fz_bad(NULL, FZ_PROGRESS,
		       "a victim killed with result 0 still lives",
		       FUL_SYS_THREAD_KILL, a, 0);
		v->killed_at = 0;
	}
	if (!final && t0 && t0 < now && !v->stuck &&
	    fz_us(now - t0) > v->c.cur.timeout_us + FZ_STUCK_US) {
		fz_bad(NULL, FZ_PROGRESS, "a victim's call never returned",
		       v->c.cur.nr, v->c.cur.a, 0);
		/* Stop first: no worker may kill it while it is looked at. */
		atomic_store(&fz.stop, 1);
		fz_diag_thread("victim", v->th.tid, slot);
		v->stuck = true; /* once; the teardown tells lost from late */
	}
}

void fz_victims_reap(bool final)
{
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++) {
		struct fz_victim *v = &fz.v[i];
		if (atomic_load(&v->state) != FZV_LIVE || !fz_trylock(&v->lock))
			continue;
		if (atomic_load(&v->state) == FZV_LIVE)
			fz_victim_check(v, final);
		fz_unlock(&v->lock);
	}
}

/* ---- moving and re-slicing threads ---- */

/** A tid to move or re-slice: a worker's (not for affinity), a
 *  victim's, one that never existed, or a stale one. */
static unsigned long fz_pick_tid(struct fz_worker *w, bool workers, bool *bogus,
				 struct fz_worker **target)
{
	struct fz_ctx *c = &w->c;
	unsigned k = fz_below(&c->rng, 10);
	*bogus = false;
	*target = NULL;
	if (workers && k < 4) {
		*target = fz_worker_waiting(c);
		return (unsigned long)(*target)->c.tid;
	}
	if (k < 8) /* live, dead or never spawned: all documented */
		return (unsigned long)fz_victim_waiting(c)->th.tid;
	*bogus = true; /* a slot beyond the thread table, or generation 0 */
	return k == 8 ? (fz_next(&c->rng) & 0xfffff000UL) |
			    (512 + fz_below(&c->rng, 3584))
		      : 1 + fz_below(&c->rng, 511);
}

/** A core: mostly online ones, sometimes one that is not. */
static unsigned fz_pick_cpu(struct fz_ctx *c, bool *bad)
{
	*bad = fz_below(&c->rng, 10) == 0;
	if (!*bad)
		return fz_below(&c->rng, fz.ncpus);
	return fz_below(&c->rng, 2) ? fz.ncpus + fz_below(&c->rng, 9)
				    : 0xffffffffu;
}

/** Check one move result of a MIGRATE call. */
static bool fz_move_ok(int res, bool bogus, bool badcpu)
{
	if (badcpu)
		return res == -FUL_EINVAL;
	if (bogus)
		return res == -FUL_ENOTHREAD;
	return res == FUL_MOVE_DONE || res == FUL_MOVE_ALREADY ||
	       res == -FUL_ENOTHREAD || res == -FUL_ESTATE ||
	       res == -FUL_EAGAIN;
}

/** A batch FUL_SYS_MIGRATE: every result documented, the count right. */
static void fz_migrate_batch(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	struct ful_move mv[8];
	bool bogus[8], badcpu[8];
	struct fz_worker *tg[8];
	unsigned n = fz_below(&c->rng, 9);
	for (unsigned i = 0; i < n; i++) {
		mv[i] = (struct ful_move){
		    .tid = (unsigned)fz_pick_tid(w, true, &bogus[i], &tg[i]),
		    .cpu = fz_pick_cpu(c, &badcpu[i]),
		    .result = 0x5555};
		if (tg[i])
			atomic_fetch_add(&tg[i]->moved_begin, 1);
	}
	unsigned long a[7] = {FUL_SLOT_SCHED, (unsigned long)mv, n};
	long done = fz_sys(c, FUL_SYS_MIGRATE, a, 0).x0, want = 0;
	for (unsigned i = 0; i < n; i++) {
		if (tg[i])
			atomic_fetch_add(&tg[i]->moved_end, 1);
		want += mv[i].result == FUL_MOVE_DONE;
		if (done >= 0 &&
		    !fz_move_ok(mv[i].result, bogus[i], badcpu[i])) {
			unsigned long b[7] = {mv[i].tid, mv[i].cpu, i, n};
			fz_bad(c, FZ_RESULTS, "undocumented move result",
			       FUL_SYS_MIGRATE, b, mv[i].result);
		}
	}
	if (done >= 0 && done != want)
		fz_bad(c, FZ_RESULTS, "MIGRATE counted its moves wrong",
		       FUL_SYS_MIGRATE, a, done);
}

void fz_op_move(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	if (fz_below(&c->rng, 3)) {
		fz_migrate_batch(w);
		return;
	}
	bool bad;
	unsigned cpu = fz_pick_cpu(c, &bad);
	unsigned may =
	    FZ_CAPS | FZ_E(STATE) | FZ_E(DEAD) | FZ_E(AGAIN) | FZ_E(TIMEOUT);
	FZ_SYS(c, THREAD_MIGRATE, bad ? FZ_CAPS | FZ_E(INVAL) : may,
	       FUL_SLOT_SCHED, fz_slot(c, FZ_THREAD_LO, FZ_THREAD_N), cpu);
}

/** A THREAD_SET value for @attr; *@bad if the call must refuse it. */
static unsigned long fz_set_value(struct fz_ctx *c, unsigned attr, bool *bad)
{
	unsigned long online = fz.ncpus >= 64 ? ~0ul : (1ul << fz.ncpus) - 1;
	*bad = fz_below(&c->rng, 10) == 0;
	switch (attr) {
	case FUL_TA_SLICE:
		return *bad ? (fz_below(&c->rng, 2) ? 0 : 10001)
			    : 1 + fz_below(&c->rng, 50);
	case FUL_TA_NICE:
		return *bad ? (unsigned long)(fz_below(&c->rng, 2) ? 20L : -21L)
			    : (unsigned long)((long)fz_below(&c->rng, 40) - 20);
	case FUL_TA_AFFINITY:
		/* A set of cores, 64 bits (load version 5): bad if it
		 * names no online core; on 64 cores there is none. */
		if (*bad && fz.ncpus < 64)
			return 1UL << (fz.ncpus +
				       fz_below(&c->rng, 64 - fz.ncpus));
		*bad = false;
		return fz_below(&c->rng, 4) ? fz_next(&c->rng) & online : 0;
	default:
		*bad = true;
		return fz_next(&c->rng);
	}
}

void fz_op_set(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	static const unsigned attrs[] = {FUL_TA_SLICE, FUL_TA_NICE,
					 FUL_TA_AFFINITY, 0, 4};
	unsigned attr =
	    attrs[fz_below(&c->rng, 20) < 18 ? fz_below(&c->rng, 3)
					     : 3 + fz_below(&c->rng, 2)];
	bool bogus, bad;
	struct fz_worker *tg;
	/* A worker's affinity is its own to set (fz_op_self checks it). */
	unsigned long tid =
	    fz_pick_tid(w, attr != FUL_TA_AFFINITY, &bogus, &tg);
	unsigned long v = fz_set_value(c, attr, &bad);
	if (attr == FUL_TA_AFFINITY && !bad && !(v & (fz.ncpus >= 64 ? ~0ul : (1ul << fz.ncpus) - 1)))
		v = 0; /* a random mask with no online core: every core */
	unsigned long a[7] = {FUL_SLOT_SCHED, tid, attr, v};
	if (bad)
		fz_exact(c, FUL_SYS_THREAD_SET, a, -FUL_EINVAL, 0);
	else if (bogus)
		fz_exact(c, FUL_SYS_THREAD_SET, a, -FUL_ENOTHREAD, 0);
	else
		fz_sys(c, FUL_SYS_THREAD_SET, a,
		       FZ_E(NOTHREAD) | FZ_E(STATE) | FZ_E(AGAIN));
}

/* ---- a worker's checks of itself ---- */

/** SYSINFO: the caller's tid, the core count; its core. */
static unsigned fz_self_cpu(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	struct ful_sysinfo si;
	unsigned long a[7] = {(unsigned long)&si};
	if (fz_sys(c, FUL_SYS_SYSINFO, a, 0).x0 != 0)
		return ~0u;
	if (si.tid != (unsigned long)c->tid || si.ncpus != fz.ncpus ||
	    si.cpu >= fz.ncpus) {
		unsigned long b[7] = {si.tid, si.ncpus, si.cpu};
		fz_bad(c, FZ_RESULTS, "SYSINFO does not describe the caller",
		       FUL_SYS_SYSINFO, b, 0);
	}
	return si.cpu;
}

/** Pin this worker to a random set of cores: it must then run on one
 *  of them (nobody else changes a worker's affinity). */
static void fz_self_pin(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	unsigned long online = fz.ncpus >= 64 ? ~0ul : (1ul << fz.ncpus) - 1;
	unsigned long mask = fz_next(&c->rng) & online;
	long got = FZ_SYS(c, THREAD_SET, FZ_E(AGAIN), FUL_SLOT_SCHED, c->tid,
			  FUL_TA_AFFINITY, mask)
		       .x0;
	unsigned cpu = fz_self_cpu(w);
	if (got == 0 && mask && cpu < 64 && !(mask >> cpu & 1)) {
		unsigned long a[7] = {FUL_SLOT_SCHED, c->tid, FUL_TA_AFFINITY,
				      mask, cpu};
		fz_bad(c, FZ_RESULTS, "runs outside the affinity just set",
		       FUL_SYS_THREAD_SET, a, got);
	}
}

/** Move this worker: unless another worker moved it meanwhile, it must
 *  then run on the core it asked for. */
static void fz_self_move(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	unsigned long b0 = atomic_load(&w->moved_begin);
	bool quiet = atomic_load(&w->moved_end) == b0; /* none in flight */
	unsigned dest = fz_below(&c->rng, fz.ncpus);
	unsigned long a[7] = {FUL_SLOT_SCHED, FZ_SLOT_WORKER0 + c->id, dest};
	long got = fz_sys(c, FUL_SYS_THREAD_MIGRATE, a,
			  FZ_E(STATE) | FZ_E(AGAIN) | FZ_E(TIMEOUT))
		       .x0;
	unsigned cpu = fz_self_cpu(w);
	if (got == 0 && quiet && atomic_load(&w->moved_begin) == b0 &&
	    cpu != dest)
		fz_bad(c, FZ_RESULTS, "not on the core it moved itself to",
		       FUL_SYS_THREAD_MIGRATE, a, cpu);
}

void fz_op_self(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	unsigned k = fz_below(&c->rng, 4);
	if (k == 0) {
		fz_self_pin(w);
	} else if (k == 1) {
		fz_self_move(w);
	} else {
		struct ful_thread_info info;
		unsigned long a[7] = {FZ_SLOT_WORKER0 + c->id,
				      (unsigned long)&info};
		if (fz_sys(c, FUL_SYS_THREAD_INFO, a, 0).x0 == 0 &&
		    (info.tid != (unsigned)c->tid ||
		     info.state != FUL_TS_RUNNING || info.prio != FZ_PRIO ||
		     info.cpu >= fz.ncpus))
			fz_bad(c, FZ_RESULTS, "THREAD_INFO of itself is wrong",
			       FUL_SYS_THREAD_INFO, a, info.state);
	}
}

/* ---- the wake-up rendezvous ----
 *
 * A worker waits on its private notification with a 5 s timeout after
 * asking to be signalled; the next worker (after each of its steps) or
 * the watchdog (every tick) signals it. A wake-up that comes more than
 * FZ_LATE_US after the signal is a lost one that the timeout rescued:
 * other workers migrate the waiting worker meanwhile, the window of
 * finding 2 of issue 19.
 */

void fz_op_rendezvous(struct fz_worker *w)
{
	struct fz_ctx *c = &w->c;
	unsigned long a[7] = {fz_priv(c->id, FZ_P_RV)};
	a[6] = FZ_RV_TIMEOUT_US;
	atomic_store(&w->rv_sig, 0);
	atomic_store(&w->rv_req, ful_counter());
	long got = fz_sys(c, FUL_SYS_NTFN_WAIT, a, FZ_E(TIMEOUT)).x0;
	unsigned long now = ful_counter(), sig = atomic_load(&w->rv_sig);
	atomic_store(&w->rv_req, 0);
	if (sig && now > sig && fz_us(now - sig) > FZ_LATE_US) {
		atomic_fetch_add(&fz.late_wakeups, 1);
		a[1] = fz_us(now - sig);
		fz_bad(c, FZ_PROGRESS,
		       "woke long after its signal (lost wake-up?)",
		       FUL_SYS_NTFN_WAIT, a, got);
	}
}

/** Signal worker @i's rendezvous if it waits and nobody has yet. */
static void fz_rendezvous_signal(unsigned i)
{
	struct fz_worker *w = &fz.w[i];
	unsigned long zero = 0;
	if (!atomic_load(&w->rv_req) ||
	    !atomic_compare_exchange_strong(&w->rv_sig, &zero, ful_counter()))
		return;
	ful_ntfn_signal(fz_priv(i, FZ_P_RV), 1);
}

void fz_rendezvous_serve(void)
{
	for (unsigned i = 0; i < fz.nworkers; i++)
		fz_rendezvous_signal(i);
}

void fz_rendezvous_peer(struct fz_worker *w)
{
	fz_rendezvous_signal((w->c.id + 1) % fz.nworkers);
}
