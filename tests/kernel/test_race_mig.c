/*
 * Races of a thread moved while it runs, and of the readers of its
 * figures, each forced with race points (race.h): a hook holds the core
 * that reaches a point until the other cores have made the interleaving
 * that broke the protocol. Every wait has a timeout.
 */
#include "load.h"
#include "race.h"
#include "syscall.h"
#include "probe.h"

static uint32_t mr_cpu_of(struct thread *t)
{
	return atomic_load(&t->cpu);
}

/** Start @fn on @cpu at priority 20 as thread @name; the thread, its id
 *  in *@tid, or NULL if it could not be created (or is gone already). */
static struct thread *race_thread(const char *name, unsigned cpu,
				  void (*fn)(void *), tid_t *tid)
{
	struct thread_attr ta = {.name = name, .prio = 20, .slice_ms = 2,
				 .cpu = cpu};
	int r = thread_create(&ta, fn, NULL);
	*tid = r > 0 ? (tid_t)r : 0;
	return r > 0 ? thread_lookup((tid_t)r) : NULL;
}

/* ---- a thread moved while running is published MIGRATING first ---- */

static struct run_race {
	struct thread *t; /* T: runs on a, moves itself to b */
	tid_t tid;
	unsigned a, b;
	_Atomic uint32_t go, hit, read_done, ran_cpu, spin_timeouts;
	_Atomic int moved;
	struct ful_load_thread seen; /* T's record at the hand-over */
} rn;

static void rn_spin(bool ok)
{
	if (!ok)
		atomic_fetch_add(&rn.spin_timeouts, 1);
}

/* On a, T's new owner just stored: hold a until the record is read. */
static void run_race_hook(enum race_point p, void *arg)
{
	if (p != RACE_MIG_HANDOVER || arg != rn.t || this_cpu_id() != rn.a ||
	    atomic_exchange(&rn.hit, 1))
		return;
	rn_spin(SPIN_UNTIL(atomic_load(&rn.read_done), HOOK_MS));
}

/* T: move itself, running, from a to b; say where it ended. */
static void run_race_main(void *arg)
{
	(void)arg;
	rn_spin(SPIN_UNTIL(atomic_load(&rn.go), HOOK_MS));
	atomic_store(&rn.moved, thread_migrate(rn.tid, rn.b));
	atomic_store(&rn.ran_cpu, this_cpu_id() + 1);
}

/*
 * A running thread moved to b had its record published with core b at
 * the hand-over, but MIGRATING only at its switch-out on a: between the
 * two a reader saw it RUNNING on b, where it had not arrived (MIGRATE had
 * returned; a THREAD_SET from a third core then republished {b,
 * RUNNING}, the lb_stress failure). Read from a third core while a is
 * held right after the hand-over: MIGRATING.
 */
KTEST(mig_running_published_migrating, 3)
{
	rn = (struct run_race){0};
	rn.a = (this_cpu_id() + 1) % machine.ncpus;
	rn.b = (this_cpu_id() + 2) % machine.ncpus;
	rn.t = race_thread("rn-t", rn.a, run_race_main, &rn.tid);
	KT_CHECK(rn.t != NULL);
	race_hook_set(run_race_hook);
	atomic_store(&rn.go, 1);
	KT_WAIT(atomic_load(&rn.hit) || atomic_load(&rn.spin_timeouts),
		KT_TIMEOUT_MS);
	rn.seen = probe_read_lthread(rn.t);
	atomic_store(&rn.read_done, 1);
	KT_WAIT(atomic_load(&rn.ran_cpu) && thread_lookup(rn.tid) == NULL,
		KT_TIMEOUT_MS);
	race_hook_set(NULL);
	KT_CHECK_EQ(atomic_load(&rn.spin_timeouts), 0);
	KT_CHECK_EQ(atomic_load(&rn.moved), 0);
	KT_CHECK_EQ(atomic_load(&rn.ran_cpu), rn.b + 1);
	KT_CHECK_EQ(rn.seen.cpu, rn.b);
	KT_CHECK_EQ(rn.seen.state, FUL_TS_MIGRATING);
}

/* ---- its switch-out on the core it left writes no record ---- */

static struct out_race {
	struct thread *t; /* T: runs on a into a new window, moves to b */
	tid_t tid;
	unsigned a, b;
	_Atomic uint32_t go, handed, b_in, a_out, other_writer, ran_cpu;
	_Atomic uint32_t spin_timeouts;
	_Atomic uint64_t idx_handed, idx_out;
	_Atomic int moved, set_result;
} ot;

static void ot_spin(bool ok)
{
	if (!ok)
		atomic_fetch_add(&ot.spin_timeouts, 1);
}

/*
 * On a: at the hand-over (first hit), wait until b is inside T's record
 * window; at T's switch-out (second hit, sched_finish_switch) let b go
 * on. On b, inside the window of a THREAD_SET: wait for a's switch-out,
 * then check that nobody else wrote the record meanwhile.
 */
static void out_race_hook(enum race_point p, void *arg)
{
	if (arg != ot.t)
		return;
	unsigned me = this_cpu_id();
	if (p == RACE_MIG_HANDOVER && me == ot.a) {
		if (!atomic_exchange(&ot.handed, 1)) {
			atomic_store(&ot.idx_handed, ot.t->win_idx);
			ot_spin(SPIN_UNTIL(atomic_load(&ot.b_in), HOOK_MS));
		} else if (!atomic_exchange(&ot.a_out, 1)) {
			atomic_store(&ot.idx_out, ot.t->win_idx);
		}
	} else if (p == RACE_LTHREAD_WINDOW && me == ot.b &&
		   !atomic_load(&ot.b_in)) {
		unsigned seq = *(volatile unsigned *)&ot.t->lrec->seq;
		atomic_store(&ot.b_in, 1);
		ot_spin(SPIN_UNTIL(atomic_load(&ot.a_out), HOOK_MS));
		if (*(volatile unsigned *)&ot.t->lrec->seq != seq)
			atomic_store(&ot.other_writer, 1);
	}
}

/* T: run on a until it holds the new window parameters and its window
 * has ended, IRQs masked from then on (no tick rolls it), then move to
 * b: its switch-out on a rolls its windows. */
static void out_race_main(void *arg)
{
	(void)arg;
	struct cpu *c = &cpus[ot.a];
	ot_spin(SPIN_UNTIL(atomic_load(&ot.go) &&
				   c->win_seq == load_area.hdr.util_seq,
			   HOOK_MS));
	uint64_t flags = arch_irq_save();
	ot_spin(SPIN_UNTIL(arch_counter() >= c->win_end, HOOK_MS));
	atomic_store(&ot.moved, thread_migrate(ot.tid, ot.b));
	arch_irq_restore(flags);
	atomic_store(&ot.ran_cpu, this_cpu_id() + 1);
}

/*
 * One writer per thread record: T, moved from a to b while it ran, had
 * its windows rolled and published by a at its switch-out, while b, its
 * owner since the hand-over, wrote the record for a THREAD_SET: two
 * writers of one sequence count, which can stay odd for ever. Windows
 * of 10 ms, so that the switch-out rolls; b is held inside its window
 * across that switch-out.
 */
KTEST(mig_switchout_one_writer, 3)
{
	ot = (struct out_race){0};
	ot.a = (this_cpu_id() + 1) % machine.ncpus;
	ot.b = (this_cpu_id() + 2) % machine.ncpus;
	uint64_t win_ms = load_area.hdr.util_win_ms;
	KT_CHECK_EQ(load_win_set(FUL_UTIL_WIN_MS_MIN), 0);
	ot.t = race_thread("ot-t", ot.a, out_race_main, &ot.tid);
	KT_CHECK(ot.t != NULL);
	race_hook_set(out_race_hook);
	atomic_store(&ot.go, 1);
	KT_WAIT((atomic_load(&ot.handed) && mr_cpu_of(ot.t) == ot.b) ||
			atomic_load(&ot.spin_timeouts),
		KT_TIMEOUT_MS);
	atomic_store(&ot.set_result,
		     thread_set_attr(ot.tid, FUL_TA_AFFINITY,
				     atomic_load(&cpus_online_mask)));
	KT_WAIT(atomic_load(&ot.ran_cpu) && thread_lookup(ot.tid) == NULL,
		KT_TIMEOUT_MS);
	race_hook_set(NULL);
	load_win_set(win_ms);
	KT_CHECK_EQ(atomic_load(&ot.spin_timeouts), 0);
	KT_CHECK_EQ(atomic_load(&ot.set_result), 0);
	KT_CHECK_EQ(atomic_load(&ot.moved), 0);
	KT_CHECK_EQ(atomic_load(&ot.ran_cpu), ot.b + 1);
	/* the switch-out did roll T's windows */
	KT_CHECK(atomic_load(&ot.idx_out) > atomic_load(&ot.idx_handed));
	KT_CHECK_EQ(atomic_load(&ot.other_writer), 0);
}

/* ---- a reader of the run time never pairs new and old figures ---- */

static struct acct_race {
	struct thread *t; /* T: spins on b */
	unsigned b;
	_Atomic uint32_t stop, armed, in_window, read_done, hits;
} ar;

/* On b, in a tick's accounting of T between its two halves: hold b
 * until the reader has read T's run time (or HOOK_MS / 200: a correct
 * reader waits for b, so this wait ends by its timeout). */
static void acct_race_hook(enum race_point p, void *arg)
{
	if (p != RACE_ACCOUNT_TICK || arg != ar.t ||
	    !atomic_exchange(&ar.armed, 0))
		return;
	atomic_fetch_add(&ar.hits, 1);
	atomic_store(&ar.in_window, 1);
	SPIN_UNTIL(atomic_load(&ar.read_done), HOOK_MS / 200);
}

static void acct_spin_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&ar.stop))
		arch_cpu_relax();
}

/*
 * THREAD_INFO's run time read without a lock on another core could
 * pair the core's new last_switch with the thread's old run time (the
 * tick's accounting between its stores) and go backwards by up to a
 * tick. Read T's run time continuously while b is held inside that
 * accounting: the readings never decrease.
 */
KTEST(runtime_read_monotonic, 2)
{
	ar = (struct acct_race){.b = (this_cpu_id() + 1) % machine.ncpus};
	tid_t tid;
	ar.t = race_thread("ar-t", ar.b, acct_spin_main, &tid);
	KT_CHECK(ar.t != NULL);
	KT_WAIT(sched_thread_runtime(ar.t) > ms_to_ticks(3), KT_TIMEOUT_MS);
	race_hook_set(acct_race_hook);
	uint64_t last = sched_thread_runtime(ar.t), during = 0, after = 0;
	bool back = false;
	atomic_store(&ar.armed, 1);
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (!atomic_load(&ar.read_done) && arch_counter() < dl) {
		bool win = atomic_load(&ar.in_window);
		uint64_t r = sched_thread_runtime(ar.t);
		back |= r < last;
		last = r;
		if (win) {
			during = r;
			atomic_store(&ar.read_done, 1);
		}
	}
	after = sched_thread_runtime(ar.t);
	race_hook_set(NULL);
	atomic_store(&ar.stop, 1);
	KT_WAIT(thread_lookup(tid) == NULL, KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&ar.hits), 1);
	KT_CHECK(atomic_load(&ar.read_done));
	if (back || after < during)
		ktest_fail(kt, __FILE__, __LINE__,
			   "run time went backwards (read %lu in the tick's "
			   "accounting, %lu after)", during, after);
}

/* ---- loadcheck on a core whose window parameters are behind ---- */

static struct stale_race {
	struct thread *t; /* T: runs on a under new windows, then parks */
	unsigned a;
	_Atomic uint32_t go, parked, spin_timeouts;
	bool ok;          /* load_verify_cpu on the stale core */
	char why[160];
} sl;

/* T: run on a until a holds the new window parameters (its record then
 * has their numbering), then park until woken. */
static void stale_main(void *arg)
{
	(void)arg;
	struct cpu *c = &cpus[sl.a];
	if (!SPIN_UNTIL(atomic_load(&sl.go) &&
				c->win_seq == load_area.hdr.util_seq,
			HOOK_MS))
		atomic_fetch_add(&sl.spin_timeouts, 1);
	atomic_store(&sl.parked, 1);
	thread_park();
}

/* ICC handler on the stale core: its loadcheck, as its idle loop runs
 * it under boot argument loadcheck. */
static void stale_verify(void *arg)
{
	(void)arg;
	sl.ok = load_verify_cpu(owner_irq(), sl.why, sizeof(sl.why));
}

/*
 * UTIL_SET to shorter windows: a core that ran since takes the new
 * parameters at a tick and numbers its threads' windows by them, far
 * ahead of the old numbering. A thread of its moved, blocked, to an idle
 * core, which never ticks and still holds the old parameters: that
 * core's loadcheck found the thread's index "ahead of now" and panicked
 * a healthy kernel. The check reads the header's parameters.
 */
KTEST(loadcheck_stale_window_params, 3)
{
	sl = (struct stale_race){0};
	sl.a = (this_cpu_id() + 1) % machine.ncpus;
	unsigned b = (this_cpu_id() + 2) % machine.ncpus; /* idle */
	uint64_t win_ms = load_area.hdr.util_win_ms;
	tid_t tid;
	sl.t = race_thread("sl-t", sl.a, stale_main, &tid);
	KT_CHECK(sl.t != NULL);
	/* b holds the parameters of now: a thread runs there until a tick
	 * of b takes them, then b idles */
	struct probe pb;
	KT_CHECK(probe_start(&pb, b, 20) > 0);
	KT_WAIT(cpus[b].win_seq == load_area.hdr.util_seq && cpus[b].win_par.win,
		KT_TIMEOUT_MS);
	probe_finish(&pb);
	KT_CHECK_EQ(load_win_set(FUL_UTIL_WIN_MS_MIN), 0);
	atomic_store(&sl.go, 1);
	KT_WAIT(atomic_load(&sl.parked) &&
			atomic_load(&sl.t->state) == T_BLOCKED,
		KT_TIMEOUT_MS);
	int moved = thread_migrate(tid, b);
	bool stale = cpus[b].win_seq != load_area.hdr.util_seq;
	int called = icc_call_sync(b, stale_verify, NULL);
	thread_wake(sl.t);
	load_win_set(win_ms);
	KT_WAIT(thread_lookup(tid) == NULL, KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&sl.spin_timeouts), 0);
	KT_CHECK_EQ(moved, 0);
	KT_CHECK(stale); /* the case under test: b idled through the change */
	KT_CHECK_EQ(called, 0);
	if (!sl.ok)
		ktest_fail(kt, __FILE__, __LINE__, "loadcheck on cpu%u: %s", b,
			   sl.why);
}
