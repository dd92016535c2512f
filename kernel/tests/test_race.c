/*
 * Races of issue 19, each forced with race points (race.h): a hook
 * stops the core that reaches a point until the other cores have made
 * the interleaving that broke the protocol. Every wait has a timeout.
 */
#include "../race.h"
#include "probe.h"

/* Spin (IRQ context allowed) until @cond or @ms pass; false on timeout. */
#define SPIN_UNTIL(cond, ms)                                             \
	({                                                               \
		uint64_t dl_ = arch_counter() + ms_to_ticks(ms);         \
		while (!(cond) && arch_counter() < dl_)                  \
			arch_cpu_relax();                                \
		(bool)(cond);                                            \
	})

#define HOOK_MS 10000

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
	atomic_store(&race_hook, wake_race_hook);
	thread_activate(wr.t);
	KT_WAIT(atomic_load(&wr.helper_done) || atomic_load(&wr.spin_timeouts),
		KT_TIMEOUT_MS);
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (!atomic_load(&wr.woken) && arch_counter() < dl)
		ktest_idle_wait();
	atomic_store(&race_hook, NULL);
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
