/*
 * Paper 003's functional test cases 4-1 .. 4-6, each asserting what can
 * be observed: where a thread runs after a move, that a killed thread
 * never runs again, that a parked core runs nothing but idle until woken,
 * that a function ran on the target core, that an IPC hand-off woke the
 * receiver on its own core through TASK_IPC.
 */
#include "kport.h"
#include "syscall.h"
#include <fulcrum/load.h>
#include "probe.h"

static uint64_t handled(unsigned cpu, enum icc_kind k)
{
	return __atomic_load_n(&cpus[cpu].stats.icc_handled[k],
			       __ATOMIC_RELAXED);
}

static void note_cpu(void *arg)
{
	*(volatile uint32_t *)arg = this_cpu()->id;
}

/* 4-1: IPI_RUN_IDLE parks cpu1 (its work thread stops, the core still
 * takes interrupts), IPI_RE_SCHEDULE wakes it; other cores carry on. */
KTEST(icc_4_1_sleep_wake, 2)
{
	struct probe work1, other;
	unsigned other_cpu = machine.ncpus > 2 ? 2 : 0;
	KT_CHECK(probe_start(&work1, 1, 10) > 0);
	KT_CHECK(probe_start(&other, other_cpu, 10) > 0);
	KT_WAIT(atomic_load(&work1.count) > 100, KT_TIMEOUT_MS);

	icc_signal(1, IPI_RUN_IDLE);
	KT_WAIT(atomic_load(&cpus[1].parked) &&
			cpus[1].current == cpus[1].idle,
		KT_TIMEOUT_MS);
	uint64_t frozen = atomic_load(&work1.count);
	uint64_t leaks = cpus[1].stats.nonidle_while_parked;
	uint64_t other0 = atomic_load(&other.count);
	for (int i = 0; i < 20; i++) {
		uint32_t ran_on = 99;
		KT_CHECK_EQ(icc_call_copy(1, note_cpu, &ran_on, sizeof(ran_on)),
			    0);
		KT_CHECK_EQ(ran_on, 1);
	}
	KT_WAIT(atomic_load(&other.count) > other0 + 100, KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&work1.count), frozen);
	KT_CHECK_EQ(cpus[1].stats.nonidle_while_parked, leaks);

	icc_signal(1, IPI_RE_SCHEDULE);
	KT_WAIT(atomic_load(&work1.count) > frozen + 100, KT_TIMEOUT_MS);
	KT_CHECK(!atomic_load(&cpus[1].parked));
	probe_finish(&work1);
	probe_finish(&other);
}

/* 4-2: a ready thread that never ran on cpu0 moves in to cpu1. */
KTEST(icc_4_2_task_in, 2)
{
	struct probe p;
	uint64_t in0 = handled(1, ICC_TASK_IN);
	KT_CHECK(probe_start(&p, 0, 10) > 0); /* below us: stays READY */
	KT_CHECK_EQ(thread_migrate(p.tid, 1), 0);
	KT_WAIT(atomic_load(&p.count) > 100, KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&p.first_cpu), 1 + 1);
	KT_CHECK_EQ(atomic_load(&p.cpu), 1);
	KT_CHECK(handled(1, ICC_TASK_IN) >= in0 + 1);
	KT_CHECK_EQ(thread_lookup(p.tid)->migrations, 1);
	probe_finish(&p);
}

/* 4-3: cpu0 asks cpu1 (TASK_OUT) to send its running thread to cpu2. */
KTEST(icc_4_3_task_out, 2)
{
	struct probe p;
	unsigned dest = machine.ncpus > 2 ? 2 : 0;
	KT_CHECK(probe_start(&p, 1, 10) > 0);
	KT_WAIT(atomic_load(&p.count) > 100 && atomic_load(&p.cpu) == 1,
		KT_TIMEOUT_MS);
	uint64_t out0 = handled(1, ICC_TASK_OUT);
	uint64_t in0 = handled(dest, ICC_TASK_IN);
	KT_CHECK_EQ(thread_request(ICC_TASK_OUT, p.tid, dest, true), 0);
	KT_CHECK_EQ(handled(1, ICC_TASK_OUT), out0 + 1);
	uint64_t c0 = atomic_load(&p.count);
	KT_WAIT(atomic_load(&p.cpu) == dest && atomic_load(&p.count) > c0 + 100,
		KT_TIMEOUT_MS);
	KT_CHECK(handled(dest, ICC_TASK_IN) >= in0 + 1);
	KT_CHECK_EQ(atomic_load(&thread_lookup(p.tid)->cpu), dest);
	probe_finish(&p);
}

static void park_forever(void *arg)
{
	_Atomic uint32_t *ran = arg;
	atomic_fetch_add(ran, 1);
	for (;;)
		thread_park();
}

/* 4-4: TASK_KILL ends a running, a ready and a blocked thread; a killed
 * thread never runs again while its core carries on. */
KTEST(icc_4_4_task_kill, 2)
{
	struct probe victim, bystander;
	KT_CHECK(probe_start(&victim, 1, 10) > 0);
	KT_CHECK(probe_start(&bystander, 1, 10) > 0);
	KT_WAIT(atomic_load(&victim.count) > 100 &&
			atomic_load(&bystander.count) > 100,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(thread_kill(victim.tid), 0);
	KT_CHECK_EQ(probe_ping(1, 3), 0); /* the switch-out has happened */
	uint64_t last = atomic_load(&victim.count);
	uint64_t b0 = atomic_load(&bystander.count);
	KT_WAIT(atomic_load(&bystander.count) > b0 + 1000, KT_TIMEOUT_MS);
	KT_CHECK_EQ(probe_ping(1, 3), 0);
	KT_CHECK_EQ(atomic_load(&victim.count), last);
	KT_CHECK(thread_lookup(victim.tid) == NULL);
	KT_CHECK_EQ(thread_kill(victim.tid), -FUL_ENOTHREAD);

	_Atomic uint32_t ran = 0;
	struct thread_attr a = {.name = "parker", .prio = 20, .slice_ms = 2,
				.cpu = 1};
	int blocked = thread_create(&a, park_forever, &ran);
	KT_CHECK(blocked > 0);
	KT_WAIT(atomic_load(&ran) == 1 &&
			atomic_load(&thread_lookup(blocked)->state) == T_BLOCKED,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(thread_kill(blocked), 0);
	KT_CHECK(thread_lookup(blocked) == NULL);
	/* a READY one: a probe below the bystander's... use cpu0, below us */
	struct probe ready;
	KT_CHECK(probe_start(&ready, 0, 10) > 0);
	KT_CHECK_EQ(atomic_load(&thread_lookup(ready.tid)->state), T_READY);
	KT_CHECK_EQ(thread_kill(ready.tid), 0);
	KT_CHECK(thread_lookup(ready.tid) == NULL);
	KT_CHECK_EQ(atomic_load(&ready.count), 0);
	probe_finish(&bystander);
}

/* 4-5: CALL_FUNC runs the function on each target core. */
KTEST(icc_4_5_call_func, 2)
{
	for (unsigned i = 0; i < machine.ncpus; i++) {
		uint64_t h0 = handled(i, ICC_CALL_FUNC);
		uint32_t ran_on = 99;
		KT_CHECK_EQ(icc_call_copy(i, note_cpu, &ran_on, sizeof(ran_on)),
			    0);
		KT_CHECK_EQ(ran_on, i);
		if (i != this_cpu_id())
			KT_CHECK_EQ(handled(i, ICC_CALL_FUNC), h0 + 1);
	}
	KT_CHECK_EQ(icc_call_sync(machine.ncpus, note_cpu, NULL), -FUL_EINVAL);
}

static _Atomic uint32_t hold_release;

/** Run in IRQ context on the target core: keep the request unfinished
 *  until the test lets go (bounded, so a failed test cannot hang it). */
static void hold_until_released(void *arg)
{
	(void)arg;
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (!atomic_load(&hold_release) && arch_counter() < dl)
		arch_cpu_relax();
}

/* A waiter that times out abandons its record; the handler frees it when
 * it completes, so a timeout does not cost the pool a record. */
KTEST(icc_wait_timeout_frees_record, 2)
{
	atomic_store(&hold_release, 0);
	uint64_t flags = arch_irq_save();
	unsigned target = (this_cpu_id() + 1) % machine.ncpus;
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (r) {
		r->fn = hold_until_released;
		r->arg = NULL;
		icc_send(target, r);
		icc_flush();
	}
	arch_irq_restore(flags);
	KT_CHECK(r != NULL);
	KT_CHECK_EQ(icc_wait(r, 1), -FUL_ETIMEOUT);
	KT_CHECK(atomic_load(&r->state) != REQ_FREE);
	atomic_store(&hold_release, 1);
	KT_WAIT(atomic_load(&r->state) == REQ_FREE, KT_TIMEOUT_MS);
	/* The pool still gives every record out. */
	flags = arch_irq_save();
	struct icc_req *got[ICC_POOL_SIZE];
	unsigned n = 0;
	while (n < ICC_POOL_SIZE && (got[n] = icc_req_alloc(ICC_CALL_FUNC)))
		n++;
	for (unsigned i = 0; i < n; i++)
		icc_req_free(got[i]);
	arch_irq_restore(flags);
	KT_CHECK_EQ(n, ICC_POOL_SIZE);
}

#define DEAD_FRAME_WORDS 128
#define DEAD_FRAME_FILL 0x5a5a5a5a5a5a5a5aull /* names no thread */

/** THREAD_SET's kernel half, in a frame of its own that is gone once it
 *  returns. */
static __attribute__((noinline)) int set_slice_in_frame(tid_t tid)
{
	return thread_set_attr(tid, FUL_TA_SLICE, 5);
}

/**
 * Lay 1 KiB of a known pattern where set_slice_in_frame's frames were,
 * let @target handle what it holds, wait until it has (@n CALL_FUNCs
 * handled there), and count the words that changed.
 */
static __attribute__((noinline)) unsigned dead_frame_writes(unsigned target,
							   uint64_t n)
{
	volatile uint64_t pad[DEAD_FRAME_WORDS];
	for (unsigned i = 0; i < DEAD_FRAME_WORDS; i++)
		pad[i] = DEAD_FRAME_FILL;
	atomic_store(&hold_release, 1);
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (handled(target, ICC_CALL_FUNC) < n && arch_counter() < dl)
		thread_sleep_ms(1);
	unsigned changed = 0;
	for (unsigned i = 0; i < DEAD_FRAME_WORDS; i++)
		changed += pad[i] != DEAD_FRAME_FILL;
	return changed;
}

/*
 * Issue 19, finding 4: a THREAD_SET whose wait times out must leave its
 * handler nothing on the caller's stack. The target core is held in a
 * CALL_FUNC until the wait (shortened to 50 ms) has given up; the
 * caller's frame is then reused, the target let go, and the late
 * handler must not write into the reused frame (it wrote its result
 * there, through a pointer to the dead request).
 */
KTEST(icc_call_timeout_leaves_stack_alone, 2)
{
	unsigned target = (this_cpu_id() + 1) % machine.ncpus;
	_Atomic uint32_t ran = 0;
	struct thread_attr a = {.name = "set-target", .prio = 20,
				.slice_ms = 2, .cpu = target};
	int tid = thread_create(&a, park_forever, &ran);
	KT_CHECK(tid > 0);
	KT_WAIT(atomic_load(&ran) == 1, KT_TIMEOUT_MS);
	atomic_store(&hold_release, 0);
	uint64_t h0 = handled(target, ICC_CALL_FUNC);
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (r) {
		r->fn = hold_until_released;
		r->flags = ICC_F_AUTOFREE;
		icc_send(target, r);
		icc_flush();
	}
	arch_irq_restore(flags);
	KT_CHECK(r != NULL);
	icc_call_timeout_ms = 50;
	int res = set_slice_in_frame((tid_t)tid);
	icc_call_timeout_ms = 10000;
	unsigned changed = dead_frame_writes(target, h0 + 2);
	KT_CHECK_EQ(handled(target, ICC_CALL_FUNC), h0 + 2);
	/* In time, the handler's result comes back through the copy. */
	int again = thread_set_attr((tid_t)tid, FUL_TA_SLICE, 7);
	uint32_t slice = thread_lookup((tid_t)tid)->slice_ms;
	KT_CHECK_EQ(thread_kill(tid), 0);
	KT_CHECK_EQ(res, -FUL_ETIMEOUT);
	KT_CHECK_EQ(changed, 0);
	KT_CHECK_EQ(again, 0);
	KT_CHECK_EQ(slice, 7);
	KT_CHECK_EQ(thread_set_attr((tid_t)tid, FUL_TA_SLICE, 5),
		    -FUL_ENOTHREAD);
	uint32_t big[ICC_CALL_DATA / 4 + 1];
	KT_CHECK_EQ(icc_call_copy(target, note_cpu, big, sizeof(big)),
		    -FUL_EINVAL);
}

static struct kport ipc_port;
static struct {
	uint64_t msg[4];
	_Atomic uint32_t cpu, done;
} ipc_rx;

static void ipc_receiver(void *arg)
{
	(void)arg;
	uint64_t m[4];
	if (kport_recv(&ipc_port, m) == 0) {
		for (int i = 0; i < 4; i++)
			ipc_rx.msg[i] = m[i];
		atomic_store(&ipc_rx.cpu, this_cpu_id());
		atomic_store(&ipc_rx.done, 1);
	}
}

/* 4-6: an IPC hand-off from cpu0 wakes a receiver blocked on each other
 * core, through a TASK_IPC request handled on the receiver's core. */
KTEST(icc_4_6_ipc, 2)
{
	for (unsigned dst = 1; dst < machine.ncpus; dst++) {
		atomic_store(&ipc_rx.done, 0);
		struct thread_attr a = {.name = "ipc-rx", .prio = 20,
					.slice_ms = 2, .cpu = dst};
		int tid = thread_create(&a, ipc_receiver, NULL);
		KT_CHECK(tid > 0);
		KT_WAIT(__atomic_load_n(&ipc_port.receiver, __ATOMIC_ACQUIRE) &&
				atomic_load(&thread_lookup(tid)->state) ==
					T_BLOCKED,
			KT_TIMEOUT_MS);
		uint64_t h0 = handled(dst, ICC_TASK_IPC);
		uint64_t m[4] = {0x1ac0 + dst, 2, 3, 4};
		KT_CHECK_EQ(kport_send(&ipc_port, m), 0);
		KT_WAIT(atomic_load(&ipc_rx.done), KT_TIMEOUT_MS);
		KT_CHECK_EQ(ipc_rx.msg[0], 0x1ac0 + dst);
		KT_CHECK_EQ(ipc_rx.msg[3], 4);
		KT_CHECK_EQ(atomic_load(&ipc_rx.cpu), dst);
		KT_CHECK(handled(dst, ICC_TASK_IPC) >= h0 + 1);
		KT_WAIT(thread_lookup((tid_t)tid) == NULL, KT_TIMEOUT_MS);
	}
	uint64_t m[4] = {0};
	KT_CHECK_EQ(kport_send(&ipc_port, m), -FUL_EAGAIN);
}
