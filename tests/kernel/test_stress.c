/*
 * ICC stress: for a bounded count, every core posts random requests
 * (migrate, kill and re-create, call, wake) to every other core while
 * workers run, yield, park and sleep. Then, with the moves quiesced:
 * every live worker is on exactly one queue of exactly its owner core,
 * no thread was ever switched in while live on another core, and every
 * request posted was handled exactly once.
 */
#include "audit.h"

#define STRESS_OPS_DEFAULT 400 /* per stressor; boot arg stress_ops=N */
#define WORKERS_PER_CPU 4

static struct {
	_Atomic uint32_t stop, exited, stressors_done;
	_Atomic tid_t tids[MAX_CPUS * WORKERS_PER_CPU];
	_Atomic uint64_t calls_posted, calls_done, kills, moves, wakes;
	uint64_t errors;
} st;

static void stress_worker(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 2654435761u + 1;
	while (!atomic_load(&st.stop)) {
		switch (rng_next(&seed) % 4) {
		case 0:
			thread_yield();
			break;
		case 1:
			thread_park(); /* a stressor's unpark wakes us */
			break;
		case 2:
			thread_sleep_ms(1);
			break;
		default:
			for (volatile int i = 0; i < 2000; i++)
				;
		}
	}
	atomic_fetch_add(&st.exited, 1);
}

static int stress_spawn(unsigned slot, unsigned cpu)
{
	struct thread_attr a = {.name = "sworker", .prio = 10, .slice_ms = 1,
				.cpu = cpu};
	int tid = thread_create(&a, stress_worker, (void *)(uintptr_t)slot);
	if (tid > 0)
		atomic_store(&st.tids[slot], (tid_t)tid);
	return tid;
}

static void stress_call(void *arg)
{
	(void)arg;
	atomic_fetch_add(&st.calls_done, 1);
}

static void stress_post_call(unsigned cpu)
{
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (r) {
		r->fn = stress_call;
		r->flags = ICC_F_AUTOFREE;
		atomic_fetch_add(&st.calls_posted, 1);
		icc_send(cpu, r);
		icc_flush();
	}
	arch_irq_restore(flags);
}

/** Kill one of this stressor's own workers and start a new one. */
static void stress_kill_recreate(unsigned slot, unsigned cpu)
{
	tid_t tid = atomic_load(&st.tids[slot]);
	if (thread_kill(tid) != 0) {
		st.errors++; /* only this stressor kills this slot's worker */
		return;
	}
	atomic_fetch_add(&st.kills, 1);
	atomic_fetch_add(&st.exited, 1); /* it will never reach its exit */
	if (stress_spawn(slot, cpu) < 0)
		st.errors++;
}

static void stressor(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg, n = machine.ncpus;
	unsigned nslots = n * WORKERS_PER_CPU;
	uint64_t seed = (me + 1) * 0x9e3779b97f4a7c15ull + bootarg_num("seed", 7);
	uint64_t ops = bootarg_num("stress_ops", STRESS_OPS_DEFAULT);
	for (unsigned op = 0; op < ops; op++) {
		unsigned cpu = (unsigned)(rng_next(&seed) % n);
		unsigned slot = (unsigned)(rng_next(&seed) % nslots);
		tid_t tid = atomic_load(&st.tids[slot]);
		switch (rng_next(&seed) % 4) {
		case 0:
			if (thread_request(ICC_TASK_OUT, tid, cpu, false) == 0)
				atomic_fetch_add(&st.moves, 1);
			break;
		case 1: /* own slots only: one stressor kills each worker */
			stress_kill_recreate(me * WORKERS_PER_CPU +
						     slot % WORKERS_PER_CPU,
					     cpu);
			break;
		case 2:
			stress_post_call(cpu);
			break;
		default:
			if (thread_unpark(tid) == 0)
				atomic_fetch_add(&st.wakes, 1);
		}
		if (op % 16 == 0)
			thread_sleep_ms(1); /* let this core's workers run */
	}
	atomic_fetch_add(&st.stressors_done, 1);
}

static struct audit audit;

KTEST(icc_stress, 2)
{
	unsigned n = machine.ncpus, nslots = n * WORKERS_PER_CPU;
	memset(&st, 0, sizeof(st));
	uint64_t posted0[ICC_NKINDS], handled0[ICC_NKINDS];
	for (unsigned k = 1; k < ICC_NKINDS; k++) {
		posted0[k] = icc_sum(true, k);
		handled0[k] = icc_sum(false, k);
	}
	unsigned live0 = thread_count_live();
	for (unsigned s = 0; s < nslots; s++)
		KT_CHECK(stress_spawn(s, s % n) > 0);
	for (unsigned c = 0; c < n; c++) {
		struct thread_attr a = {.name = "stressor", .prio = 100,
					.slice_ms = 1, .cpu = c};
		KT_CHECK(thread_create(&a, stressor, (void *)(uintptr_t)c) > 0);
	}
	/* Generous: under a loaded host each 1 ms sleep can take tens of ms
	 * (stress4 took 59 s at a host load of 14, 4.6 s on a quiet host). */
	KT_WAIT(atomic_load(&st.stressors_done) == n, 240000);
	KT_WAIT(pools_idle(), KT_TIMEOUT_MS);

	KT_CHECK(audit_all(&audit));
	KT_CHECK_EQ(audit.bad, 0);
	for (unsigned s = 0; s < nslots; s++) {
		struct thread *t = thread_lookup(atomic_load(&st.tids[s]));
		KT_CHECK(t != NULL);
		KT_CHECK_EQ(audit.seen[t - threads], 1);
	}

	atomic_store(&st.stop, 1);
	while (atomic_load(&st.exited) < atomic_load(&st.kills) + nslots) {
		for (unsigned s = 0; s < nslots; s++)
			thread_unpark(atomic_load(&st.tids[s]));
		thread_sleep_ms(1);
	}
	KT_WAIT(thread_count_live() == live0, KT_TIMEOUT_MS);
	KT_WAIT(pools_idle(), KT_TIMEOUT_MS);
	KT_CHECK_EQ(st.errors, 0);
	KT_CHECK_EQ(atomic_load(&st.calls_done), atomic_load(&st.calls_posted));
	for (unsigned k = 1; k < ICC_NKINDS; k++) {
		uint64_t p = icc_sum(true, k) - posted0[k];
		uint64_t h = icc_sum(false, k) - handled0[k];
		if (p != h) {
			ktest_fail(kt, __FILE__, __LINE__,
				   "kind %u: %lu posted, %lu handled", k, p, h);
			return;
		}
	}
	kprintf("  icc_stress: %lu moves, %lu kills, %lu calls, %lu wakes on %u cores\n",
		atomic_load(&st.moves), atomic_load(&st.kills),
		atomic_load(&st.calls_posted), atomic_load(&st.wakes), n);
}
