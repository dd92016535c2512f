/*
 * Requests to a thread's owner core and what they answer: two kills of
 * one thread that arrive together, an affinity set before the thread
 * starts.
 */
#include "syscall.h"
#include "probe.h"

static struct kill_race {
	_Atomic uint32_t masked, go, spin_timeouts;
} kr;

/* X: spin with IRQs masked until both kills wait in this core's
 * mailbox, then take them (one IPI, one drain) and spin until killed. */
static void kill_race_main(void *arg)
{
	(void)arg;
	uint64_t flags = arch_irq_save();
	atomic_store(&kr.masked, 1);
	if (!SPIN_UNTIL(atomic_load(&kr.go), HOOK_MS))
		atomic_fetch_add(&kr.spin_timeouts, 1);
	arch_irq_restore(flags);
	for (;;)
		arch_cpu_relax();
}

/** Post a TASK_KILL for @tid to @cpu, to be waited for; NULL if none
 *  is free. IRQs masked. */
static struct icc_req *kill_post(unsigned cpu, tid_t tid)
{
	struct icc_req *r = icc_req_alloc(ICC_TASK_KILL);
	if (!r)
		return NULL;
	r->tid = tid;
	r->dest = 0;
	r->decision = 0;
	r->flags = 0;
	icc_post(cpu, r);
	return r;
}

/*
 * Two kills of one running thread handled in one drain: the first
 * makes it DEAD (it is switched out and freed at the IRQ's exit), the
 * second finds it DEAD. That answered EDEAD, which SCHED_KILL does not
 * document; a thread that is already dying is no live thread:
 * ENOTHREAD, as if the kill had come a moment later.
 */
KTEST(kill_twice_enothread, 2)
{
	kr = (struct kill_race){0};
	unsigned b = (this_cpu_id() + 1) % machine.ncpus;
	struct thread_attr xa = {.name = "kr-x", .prio = 20, .slice_ms = 2,
				 .cpu = b};
	int tid = thread_create(&xa, kill_race_main, NULL);
	KT_CHECK(tid > 0);
	KT_WAIT(atomic_load(&kr.masked), KT_TIMEOUT_MS);
	uint64_t flags = arch_irq_save();
	struct icc_req *r1 = kill_post(b, (tid_t)tid);
	struct icc_req *r2 = r1 ? kill_post(b, (tid_t)tid) : NULL;
	icc_flush();
	arch_irq_restore(flags);
	atomic_store(&kr.go, 1);
	int res1 = r1 ? icc_wait(r1, KT_TIMEOUT_MS) : -FUL_EAGAIN;
	int res2 = r2 ? icc_wait(r2, KT_TIMEOUT_MS) : -FUL_EAGAIN;
	KT_WAIT(thread_lookup((tid_t)tid) == NULL, KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&kr.spin_timeouts), 0);
	KT_CHECK_EQ(res1, 0);
	KT_CHECK_EQ(res2, -FUL_ENOTHREAD);
	KT_CHECK_EQ(thread_kill((tid_t)tid), -FUL_ENOTHREAD);
}

static _Atomic uint32_t aff_ran_cpu;

static void aff_main(void *arg)
{
	(void)arg;
	atomic_store(&aff_ran_cpu, this_cpu_id() + 1);
}

/*
 * THREAD_SET affinity on a thread not started yet, with a mask that
 * leaves out its core: it cannot move yet, so ESTATE; it stored the
 * mask all the same, and the thread then started outside its affinity
 * (a MIGRATE back was refused). Refused, nothing changes; a mask with
 * its core is taken, and the thread starts there.
 */
KTEST(affinity_before_start, 2)
{
	unsigned a = this_cpu_id(), b = (a + 1) % machine.ncpus;
	struct thread_attr xa = {.name = "af-x", .prio = 20, .slice_ms = 2,
				 .cpu = b};
	int err;
	struct thread *x = thread_create_inactive(&xa, aff_main, NULL, 0, &err);
	KT_CHECK(x != NULL);
	tid_t tid = atomic_load(&x->tid);
	thread_publish(x);
	atomic_store(&aff_ran_cpu, 0);
	uint64_t before = x->affinity;
	int refused = thread_set_attr(tid, FUL_TA_AFFINITY, 1ull << a);
	uint64_t after_refused = x->affinity;
	int taken = thread_set_attr(tid, FUL_TA_AFFINITY, 1ull << b);
	uint64_t after_taken = x->affinity;
	int started = thread_start_tid(tid);
	KT_WAIT(atomic_load(&aff_ran_cpu) && thread_lookup(tid) == NULL,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(refused, -FUL_ESTATE);
	KT_CHECK_EQ(after_refused, before);
	KT_CHECK_EQ(taken, 0);
	KT_CHECK_EQ(after_taken, 1ull << b);
	KT_CHECK_EQ(started, 0);
	KT_CHECK_EQ(atomic_load(&aff_ran_cpu), b + 1);
}
