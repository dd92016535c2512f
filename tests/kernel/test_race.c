/*
 * Races of issue 19, each forced with race points (race.h): a hook
 * stops the core that reaches a point until the other cores have made
 * the interleaving that broke the protocol. Every wait has a timeout.
 */
#include "race.h"
#include "syscall.h"
#include "probe.h"
#include <fulcrum/load.h>


static uint32_t state_of(struct thread *t)
{
	return atomic_load(&t->state);
}

static uint32_t cpu_of(struct thread *t)
{
	return atomic_load(&t->cpu);
}

/* ---- finding 2: the wake handler reads the owner, then the state ---- */

static struct wake_race {
	struct thread *t; /* the victim, T */
	tid_t tid;
	unsigned a, b;    /* T starts on a, runs on b, is moved back to a */
	_Atomic uint32_t t_masked, posted, go_park, woken, woken_cpu;
	_Atomic uint32_t entry_armed, reads_armed, entry_hit, reads_hit;
	_Atomic uint32_t helper_done, spin_timeouts;
} wr;

static void wr_spin(bool ok)
{
	if (!ok)
		atomic_fetch_add(&wr.spin_timeouts, 1);
}

/*
 * On core a, in its drain of T's TASK_IPC: at entry, wait until T runs
 * on b; between the two reads, let T block on b, a second waker set
 * the token (posting nothing: the record is here) and b move the
 * blocked T to a.
 */
static void wake_race_hook(enum race_point p, void *arg)
{
	if (arg != wr.t || this_cpu_id() != wr.a)
		return;
	if (p == RACE_WAKE_ENTRY && atomic_exchange(&wr.entry_armed, 0)) {
		atomic_store(&wr.entry_hit, 1);
		wr_spin(SPIN_UNTIL(state_of(wr.t) == T_RUNNING &&
					   cpu_of(wr.t) == wr.b,
				   HOOK_MS));
		atomic_store(&wr.reads_armed, 1);
	} else if (p == RACE_WAKE_READS &&
		   atomic_exchange(&wr.reads_armed, 0)) {
		atomic_store(&wr.reads_hit, 1);
		atomic_store(&wr.go_park, 1);
		wr_spin(SPIN_UNTIL(cpu_of(wr.t) == wr.a &&
					   atomic_load(&wr.helper_done),
				   HOOK_MS));
	}
}

/* T: with IRQs masked on a (its wake record arrives meanwhile), move
 * to b; there, park until woken. */
static void wake_victim_main(void *arg)
{
	(void)arg;
	uint64_t flags = arch_irq_save();
	atomic_store(&wr.t_masked, 1);
	wr_spin(SPIN_UNTIL(atomic_load(&wr.posted), HOOK_MS));
	/* Switched out here with the IPI_ICC for the record still pending:
	 * a handles the record only once T is gone. */
	thread_migrate(wr.tid, wr.b);
	arch_irq_restore(flags);
	wr_spin(SPIN_UNTIL(atomic_load(&wr.go_park), HOOK_MS));
	thread_park(); /* takes the helper's first token */
	thread_park(); /* blocks: only the second wake-up ends this */
	atomic_store(&wr.woken_cpu, this_cpu_id() + 1);
	atomic_store(&wr.woken, 1);
}

/* On b, below T: post T's record to a, then (T blocked on b) wake T
 * again and move it, blocked, to a. */
static void wake_helper_main(void *arg)
{
	(void)arg;
	wr_spin(SPIN_UNTIL(atomic_load(&wr.t_masked), HOOK_MS));
	thread_wake(wr.t); /* T is on a: its record goes to a's mailbox */
	atomic_store(&wr.posted, 1);
	wr_spin(SPIN_UNTIL(state_of(wr.t) == T_BLOCKED && cpu_of(wr.t) == wr.b,
			   HOOK_MS));
	thread_wake(wr.t); /* wake_inflight is 1: only the token is set */
	thread_migrate(wr.tid, wr.a);
	atomic_store(&wr.helper_done, 1);
}

/*
 * Issue 19, finding 2: the six steps of the lost wake-up, in order. The
 * handler on a read T's state (RUNNING, on b) before its owner; by the
 * time it read the owner, T had blocked on b with a token set and moved
 * to a, so the handler dropped the record without waking T.
 */
KTEST(wake_reads_owner_first, 2)
{
	wr = (struct wake_race){.a = this_cpu_id(), .entry_armed = 1};
	wr.b = (wr.a + 1) % machine.ncpus;
	struct thread_attr ha = {.name = "wr-helper", .prio = 10,
				 .slice_ms = 2, .cpu = wr.b};
	struct thread_attr ta = {.name = "wr-victim", .prio = 20,
				 .slice_ms = 2, .cpu = wr.a};
	int helper = thread_create(&ha, wake_helper_main, NULL);
	KT_CHECK(helper > 0);
	int err;
	wr.t = thread_create_inactive(&ta, wake_victim_main, NULL, 0, &err);
	KT_CHECK(wr.t != NULL);
	wr.tid = atomic_load(&wr.t->tid);
	thread_publish(wr.t);
	race_hook_set(wake_race_hook);
	thread_activate(wr.t, wr.tid);
	KT_WAIT(atomic_load(&wr.helper_done) || atomic_load(&wr.spin_timeouts),
		KT_TIMEOUT_MS);
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (!atomic_load(&wr.woken) && arch_counter() < dl)
		ktest_idle_wait();
	race_hook_set(NULL);
	bool woken = atomic_load(&wr.woken);
	if (!woken)
		thread_kill(wr.tid);
	KT_WAIT(thread_lookup(wr.tid) == NULL &&
			thread_lookup((tid_t)helper) == NULL,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&wr.spin_timeouts), 0);
	KT_CHECK(atomic_load(&wr.entry_hit) && atomic_load(&wr.reads_hit));
	if (!woken) {
		ktest_fail(kt, __FILE__, __LINE__,
			   "T never woken: the wake-up was lost");
		return;
	}
	KT_CHECK_EQ(atomic_load(&wr.woken_cpu), wr.a + 1);
}

/* ---- slot reuse: the wake handler reads the owner again ---- */

static struct reuse_race {
	struct thread *slot; /* a FREE slot whose last owner is a */
	unsigned a, b;       /* the handler runs on a; Y, the new occupant, on b */
	_Atomic uint32_t armed, hit, go, helper_done, woken_cpu;
	_Atomic uint32_t spin_timeouts;
	_Atomic tid_t ytid;
} rr;

static void rr_spin(bool ok)
{
	if (!ok)
		atomic_fetch_add(&rr.spin_timeouts, 1);
}

/* On a, in the handler of the FREE slot's record, between its reads of
 * the owner (a) and of the state: let b fill the slot with Y, start Y,
 * let it block and give it a token (posting nothing: the record is
 * here). */
static void reuse_hook(enum race_point p, void *arg)
{
	if (p != RACE_WAKE_READS || arg != rr.slot || this_cpu_id() != rr.a ||
	    !atomic_exchange(&rr.armed, 0))
		return;
	atomic_store(&rr.hit, 1);
	atomic_store(&rr.go, 1);
	rr_spin(SPIN_UNTIL(atomic_load(&rr.helper_done), HOOK_MS));
}

/* X: end at once, leaving its slot FREE with a as its last owner. */
static void reuse_x_main(void *arg)
{
	(void)arg;
}

/* Y: park until woken; say where. */
static void reuse_y_main(void *arg)
{
	(void)arg;
	thread_park();
	atomic_store(&rr.woken_cpu, this_cpu_id() + 1);
}

/** Fill slot rr.slot with Y, owned by b: the other slots the allocator
 *  hands out meanwhile go back at once (EMBRYO: nobody saw them). */
static struct thread *reuse_take_slot(void)
{
	struct thread_attr ya = {.name = "rr-y", .prio = 20, .slice_ms = 2,
				 .cpu = rr.b};
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		int err;
		struct thread *t =
		    thread_create_inactive(&ya, reuse_y_main, NULL, 0, &err);
		if (!t || t == rr.slot)
			return t;
		atomic_store(&t->state, T_FREE);
	}
	return NULL;
}

/* On b, below Y: once a's handler has read the owner, take the slot,
 * start Y there, wait until it blocks, and wake it: wake_inflight is
 * still 1 (the record is on a), so only the token is set. */
static void reuse_helper_main(void *arg)
{
	(void)arg;
	rr_spin(SPIN_UNTIL(atomic_load(&rr.go), HOOK_MS));
	struct thread *y = reuse_take_slot();
	if (y) {
		tid_t tid = atomic_load(&y->tid);
		atomic_store(&rr.ytid, tid);
		thread_publish(y);
		thread_activate(y, tid);
		sched_preempt_point();
		rr_spin(SPIN_UNTIL(state_of(y) == T_BLOCKED, HOOK_MS));
		thread_wake(y);
	}
	atomic_store(&rr.helper_done, 1);
}

/*
 * A wake-up record outlives its thread and reaches the slot's last
 * owner, a. The handler on a read the owner (a, the FREE slot's), then
 * the state: by then the slot held Y, owned by b, BLOCKED, with a
 * token. Read once, the owner said "here" and a woke Y on its own run
 * queue, a thread b owns (both cores scheduling one thread). Read again
 * after the state, it says b, and the record goes there.
 */
KTEST(wake_owner_after_reuse, 2)
{
	rr = (struct reuse_race){.a = this_cpu_id()};
	rr.b = (rr.a + 1) % machine.ncpus;
	struct thread_attr xa = {.name = "rr-x", .prio = 10, .slice_ms = 2,
				 .cpu = rr.a};
	int x = thread_create(&xa, reuse_x_main, NULL);
	KT_CHECK(x > 0);
	rr.slot = &threads[TID_SLOT((tid_t)x)];
	KT_WAIT(state_of(rr.slot) == T_FREE, KT_TIMEOUT_MS);
	KT_CHECK_EQ(cpu_of(rr.slot), rr.a);
	KT_CHECK_EQ(atomic_load(&rr.slot->wake_inflight), 0);
	struct thread_attr ha = {.name = "rr-helper", .prio = 10,
				 .slice_ms = 2, .cpu = rr.b};
	int helper = thread_create(&ha, reuse_helper_main, NULL);
	KT_CHECK(helper > 0);
	race_hook_set(reuse_hook);
	atomic_store(&rr.armed, 1);
	thread_wake(rr.slot); /* owned here: handled inline, on a */
	race_hook_set(NULL);
	KT_WAIT(atomic_load(&rr.woken_cpu) || atomic_load(&rr.spin_timeouts),
		KT_TIMEOUT_MS);
	tid_t y = atomic_load(&rr.ytid);
	if (!atomic_load(&rr.woken_cpu) && y)
		thread_kill(y);
	KT_WAIT(thread_lookup((tid_t)helper) == NULL &&
			(!y || thread_lookup(y) == NULL),
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&rr.spin_timeouts), 0);
	KT_CHECK(atomic_load(&rr.hit) && y);
	KT_CHECK_EQ(atomic_load(&rr.woken_cpu), rr.b + 1);
}

/* ---- finding 5: one writer per thread record ---- */

static struct lrec_race {
	struct thread *t; /* the thread whose record is watched, X */
	tid_t tid;
	unsigned a, b; /* the test (and X's creator) runs on a; X is b's */
	_Atomic uint32_t inside, max_inside, stable_while_shared;
	_Atomic uint32_t nonowner_in, owner_in, activated, helper_done;
	_Atomic uint32_t ran, spin_timeouts;
	_Atomic int set_result;
} lr;

static void lr_spin(bool ok)
{
	if (!ok)
		atomic_fetch_add(&lr.spin_timeouts, 1);
}

/*
 * Inside X's record window: count the writers in it. A writer that is
 * not X's owner keeps the window open until the owner has written too,
 * so the two writers the bug allowed meet every time.
 */
static void lrec_hook(enum race_point p, void *arg)
{
	if (p != RACE_LTHREAD_WINDOW || arg != lr.t)
		return;
	uint32_t n = atomic_fetch_add(&lr.inside, 1) + 1;
	uint32_t max = atomic_load(&lr.max_inside);
	while (n > max && !atomic_compare_exchange_weak(&lr.max_inside, &max, n))
		;
	if (this_cpu_id() != cpu_of(lr.t)) {
		atomic_store(&lr.nonowner_in, 1);
		lr_spin(SPIN_UNTIL(atomic_load(&lr.owner_in), HOOK_MS));
	} else {
		/* A reader would take this half-written record as stable. */
		if (n > 1 && !(*(volatile unsigned *)&lr.t->lrec->seq & 1))
			atomic_store(&lr.stable_while_shared, 1);
		atomic_store(&lr.owner_in, 1);
	}
	atomic_fetch_sub(&lr.inside, 1);
}

/* X: stay alive until the helper has set its affinity. */
static void lrec_thread_main(void *arg)
{
	(void)arg;
	lr_spin(SPIN_UNTIL(atomic_load(&lr.helper_done), HOOK_MS));
	atomic_store(&lr.ran, 1);
}

/* On b, X's owner: THREAD_SET X's affinity while a starts X. */
static void lrec_helper_main(void *arg)
{
	(void)arg;
	lr_spin(SPIN_UNTIL(atomic_load(&lr.nonowner_in) ||
				   atomic_load(&lr.activated),
			   HOOK_MS));
	atomic_store(&lr.set_result,
		     thread_set_attr(lr.tid, FUL_TA_AFFINITY,
				     atomic_load(&cpus_online_mask)));
	atomic_store(&lr.helper_done, 1);
}

/*
 * Issue 19, finding 5: THREAD_START on a core other than the thread's
 * owner wrote the thread's load record there (thread_activate) while a
 * THREAD_SET on the owner wrote it too: two writers of one plain
 * sequence counter, which can be left odd so that every reader retries
 * forever. Here the starter is held inside its window until the owner
 * has entered the record too: at most one writer may ever be inside.
 */
KTEST(lrec_one_writer, 2)
{
	lr = (struct lrec_race){.a = this_cpu_id()};
	lr.b = (lr.a + 1) % machine.ncpus;
	struct thread_attr ha = {.name = "lr-helper", .prio = 10,
				 .slice_ms = 2, .cpu = lr.b};
	struct thread_attr xa = {.name = "lr-x", .prio = 5, .slice_ms = 2,
				 .cpu = lr.b};
	int helper = thread_create(&ha, lrec_helper_main, NULL);
	KT_CHECK(helper > 0);
	int err;
	lr.t = thread_create_inactive(&xa, lrec_thread_main, NULL, 0, &err);
	KT_CHECK(lr.t != NULL);
	lr.tid = atomic_load(&lr.t->tid);
	thread_publish(lr.t);
	race_hook_set(lrec_hook);
	KT_CHECK_EQ(thread_activate(lr.t, lr.tid), 0);
	atomic_store(&lr.activated, 1);
	KT_WAIT(atomic_load(&lr.helper_done) && atomic_load(&lr.ran),
		KT_TIMEOUT_MS);
	race_hook_set(NULL);
	KT_WAIT(thread_lookup(lr.tid) == NULL &&
			thread_lookup((tid_t)helper) == NULL,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&lr.spin_timeouts), 0);
	KT_CHECK_EQ(atomic_load(&lr.set_result), 0);
	KT_CHECK(atomic_load(&lr.owner_in));
	KT_CHECK_EQ(atomic_load(&lr.max_inside), 1);
	KT_CHECK_EQ(atomic_load(&lr.stable_while_shared), 0);
	KT_CHECK_EQ(lr.t->lrec->seq & 1, 0);
}

/* ---- finding 6: THREAD_START checks the id it looked up ---- */

static struct start_race {
	struct thread *x; /* the thread named, killed after the lookup */
	tid_t x_tid, w_tid;
	struct thread *w; /* the slot's next occupant, INACTIVE */
	unsigned tries;
	_Atomic uint32_t hit, x_ran, w_ran;
} sr;

static void start_race_main(void *arg)
{
	atomic_store((_Atomic uint32_t *)arg, 1);
}

/**
 * Between THREAD_START's lookup of X and its claim: kill X, then create
 * inactive threads (killing each at once) until one lands in X's slot,
 * W. Runs in the test thread. Each one is published: an EMBRYO cannot
 * be freed.
 */
static void start_race_hook(enum race_point p, void *arg)
{
	if (p != RACE_START_LOOKED_UP || arg != sr.x ||
	    atomic_exchange(&sr.hit, 1))
		return;
	if (thread_kill(sr.x_tid) != 0)
		return;
	struct thread_attr a = {.name = "sr-w", .prio = 20, .slice_ms = 2,
				.cpu = this_cpu_id()};
	for (sr.tries = 0; sr.tries <= MAX_THREADS; sr.tries++) {
		int err;
		struct thread *t =
			thread_create_inactive(&a, start_race_main, &sr.w_ran,
					       0, &err);
		if (!t)
			return;
		tid_t tid = atomic_load(&t->tid);
		thread_publish(t);
		if (t == sr.x) {
			sr.w = t;
			sr.w_tid = tid;
			return;
		}
		thread_kill(tid);
	}
}

/*
 * Issue 19, finding 6: THREAD_START looked its thread up, then claimed
 * the slot with INACTIVE -> MIGRATING. If the thread was killed in
 * between and its slot reused by another INACTIVE thread, that thread
 * was started instead (possibly another task's). The start must fail
 * with EDEAD and leave the new occupant INACTIVE.
 */
KTEST(start_checks_id, 1)
{
	sr = (struct start_race){0};
	struct thread_attr a = {.name = "sr-x", .prio = 20, .slice_ms = 2,
				.cpu = (this_cpu_id() + 1) % machine.ncpus};
	int err;
	sr.x = thread_create_inactive(&a, start_race_main, &sr.x_ran, 0, &err);
	KT_CHECK(sr.x != NULL);
	sr.x_tid = atomic_load(&sr.x->tid);
	thread_publish(sr.x);
	race_hook_set(start_race_hook);
	int res = thread_start_tid(sr.x_tid);
	race_hook_set(NULL);
	KT_CHECK(atomic_load(&sr.hit));
	KT_CHECK(sr.w != NULL); /* the slot was reused */
	uint32_t w_state = atomic_load(&sr.w->state);
	/* W is still startable, by its own id, and runs once. */
	int again = thread_start_tid(sr.w_tid);
	KT_WAIT(atomic_load(&sr.w_ran) && thread_lookup(sr.w_tid) == NULL,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(res, -FUL_EDEAD);
	KT_CHECK_EQ(w_state, T_INACTIVE);
	KT_CHECK_EQ(again, 0);
	KT_CHECK_EQ(atomic_load(&sr.x_ran), 0);
	KT_CHECK_EQ(thread_start_tid(sr.x_tid), -FUL_EDEAD);
}

/* ---- a move that came while the thread flew: passed on, never READY ---- */

static struct land_race {
	struct thread *t; /* T: moved a -> b, pinned to c while it flies */
	tid_t tid;
	unsigned a, b, c;
	_Atomic uint32_t busy_on, pushed, pinned, landed, read_done, ran_cpu;
	_Atomic uint32_t spin_timeouts;
	_Atomic int pin_result;
	struct ful_load_thread seen; /* T's record while it landed on b */
} lar;

static void lar_spin(bool ok)
{
	if (!ok)
		atomic_fetch_add(&lar.spin_timeouts, 1);
}

/*
 * On a, T's TASK_IN about to go to b: hold it until the pinner on c has
 * set T's affinity to c alone (handled on b, T's owner, while T flies:
 * pending_dest). On b, T landed: hold it there until the test thread
 * has read T's record.
 */
static void land_race_hook(enum race_point p, void *arg)
{
	if (p == RACE_MBOX_PUSH && arg == &lar.t->mig_req &&
	    this_cpu_id() == lar.a && !atomic_exchange(&lar.pushed, 1)) {
		lar_spin(SPIN_UNTIL(atomic_load(&lar.pinned), HOOK_MS));
	} else if (p == RACE_MIG_LANDED && arg == lar.t &&
		   this_cpu_id() == lar.b && !atomic_exchange(&lar.landed, 1)) {
		lar_spin(SPIN_UNTIL(atomic_load(&lar.read_done), HOOK_MS));
	}
}

static void land_t_main(void *arg)
{
	(void)arg;
	atomic_store(&lar.ran_cpu, this_cpu_id() + 1);
}

/* On b: keep b busy, so that a thread made ready there is queued (an
 * idle core would take it as its hand-off, published only when run). */
static void land_busy_main(void *arg)
{
	(void)arg;
	atomic_store(&lar.busy_on, 1);
	lar_spin(SPIN_UNTIL(atomic_load(&lar.ran_cpu) ||
				    atomic_load(&lar.spin_timeouts),
			    HOOK_MS));
}

/* On c: pin T to c once its TASK_IN is on its way to b. */
static void land_pinner_main(void *arg)
{
	(void)arg;
	lar_spin(SPIN_UNTIL(atomic_load(&lar.pushed), HOOK_MS));
	atomic_store(&lar.pin_result,
		     thread_set_attr(lar.tid, FUL_TA_AFFINITY, 1ull << lar.c));
	atomic_store(&lar.pinned, 1);
}

/*
 * The rare lb_stress failure (a worker READY on a core outside its
 * affinity): T, moved from a to b, is pinned to c while it flies, so b
 * keeps the move on to c until T lands. The landing made T ready on b
 * (published READY on b, affinity {c}) and only then moved it on: a
 * reader in between saw a thread on a core it may not use (b busy: T
 * queued there, its record READY). T must be
 * passed on to c without ever being READY on b, and run on c.
 */
KTEST(mig_landing_passes_on, 3)
{
	lar = (struct land_race){.a = this_cpu_id()};
	lar.b = (lar.a + 1) % machine.ncpus;
	lar.c = (lar.a + 2) % machine.ncpus;
	struct thread_attr pa = {.name = "lar-pin", .prio = 10, .slice_ms = 2,
				 .cpu = lar.c};
	struct thread_attr ta = {.name = "lar-t", .prio = 5, .slice_ms = 2,
				 .cpu = lar.a};
	struct thread_attr ba = {.name = "lar-busy", .prio = 10, .slice_ms = 2,
				 .cpu = lar.b};
	int pinner = thread_create(&pa, land_pinner_main, NULL);
	KT_CHECK(pinner > 0);
	int busy = thread_create(&ba, land_busy_main, NULL);
	KT_CHECK(busy > 0);
	KT_WAIT(atomic_load(&lar.busy_on), KT_TIMEOUT_MS);
	int tid = thread_create(&ta, land_t_main, NULL); /* READY below us */
	KT_CHECK(tid > 0);
	lar.tid = (tid_t)tid;
	lar.t = thread_lookup(lar.tid);
	KT_CHECK(lar.t != NULL);
	race_hook_set(land_race_hook);
	int moved = thread_migrate(lar.tid, lar.b);
	KT_WAIT(atomic_load(&lar.landed) || atomic_load(&lar.spin_timeouts),
		KT_TIMEOUT_MS);
	lar.seen = probe_read_lthread(lar.t);
	atomic_store(&lar.read_done, 1);
	KT_WAIT(atomic_load(&lar.ran_cpu) && thread_lookup(lar.tid) == NULL &&
			thread_lookup((tid_t)pinner) == NULL &&
			thread_lookup((tid_t)busy) == NULL,
		KT_TIMEOUT_MS);
	race_hook_set(NULL);
	KT_CHECK_EQ(moved, 0);
	KT_CHECK_EQ(atomic_load(&lar.spin_timeouts), 0);
	KT_CHECK_EQ(atomic_load(&lar.pin_result), 0);
	KT_CHECK(atomic_load(&lar.landed));
	KT_CHECK_EQ(lar.seen.tid, lar.tid);
	KT_CHECK_EQ(lar.seen.affinity, 1ull << lar.c);
	if (lar.seen.state != FUL_TS_MIGRATING &&
	    !(lar.seen.affinity >> lar.seen.cpu & 1)) {
		ktest_fail(kt, __FILE__, __LINE__,
			   "T seen in state %u on cpu%u, affinity %lx",
			   lar.seen.state, lar.seen.cpu,
			   (unsigned long)lar.seen.affinity);
		return;
	}
	KT_CHECK_EQ(atomic_load(&lar.ran_cpu), lar.c + 1);
}
