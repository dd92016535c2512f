/*
 * Bad input to the inter-core paths (issue 19): a request for a core
 * that is offline or parked, a timeout of 2^64-1 on every blocking call
 * that takes one, and a sleep longer than the timer's range. The system
 * calls' side is the user-level bad-input suite's (tests/user/badinput); these
 * are the kernel's own entry points, and what becomes of a request once
 * it is posted.
 */
#include "ipc.h"
#include "obj.h"
#include "audit.h"
#include "kipc.h"

#define BI_HOLD_MS 50 /* how long bi_hold keeps a core, at most */

static _Atomic uint32_t bi_ran, bi_held, bi_release;

static void bi_note(void *arg)
{
	(void)arg;
	atomic_fetch_add(&bi_ran, 1);
}

static void bi_note_cpu(void *arg)
{
	*(uint32_t *)arg = this_cpu()->id;
}

/** CALL_FUNC: keep this core (IRQs masked, in its drain) until released
 *  or BI_HOLD_MS pass. Requests posted to it meanwhile wait in its
 *  mailbox, in order. */
static void bi_hold(void *arg)
{
	(void)arg;
	atomic_store(&bi_held, 1);
	uint64_t dl = arch_counter() + ms_to_ticks(BI_HOLD_MS);
	while (!atomic_load(&bi_release) && arch_counter() < dl)
		arch_cpu_relax();
	atomic_store(&bi_held, 0);
}

/** Hold @cpu (bi_hold) and wait until it is inside. */
static bool bi_hold_core(unsigned cpu)
{
	atomic_store(&bi_release, 0);
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (r) {
		r->fn = bi_hold;
		r->flags = ICC_F_AUTOFREE;
		icc_post(cpu, r);
		icc_flush();
	}
	arch_irq_restore(flags);
	while (r && !atomic_load(&bi_held))
		arch_cpu_relax();
	return r != NULL;
}

/** Post TASK_OUT of @tid to @dest straight to core @owner, as a request
 *  that passed its sender's checks arrives; the record, to wait for. */
static struct icc_req *bi_post_move(tid_t tid, unsigned owner, unsigned dest)
{
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_TASK_OUT);
	if (r) {
		r->tid = tid;
		r->dest = dest;
		icc_post(owner, r);
		icc_flush();
	}
	arch_irq_restore(flags);
	return r;
}

static void bi_park_forever(void *arg)
{
	atomic_fetch_add((_Atomic uint32_t *)arg, 1);
	for (;;)
		thread_park();
}

/** Every kernel entry that takes a core refuses offline core @cpu with
 *  -FUL_EINVAL, and neither posts nor runs anything. */
static void bi_offline_entries(struct ktest_ctx *kt, unsigned cpu, tid_t tid)
{
	struct thread_attr a = {.name = "bi", .prio = 10, .slice_ms = 1,
				.cpu = cpu};
	uint64_t word = 0;
	KT_CHECK_EQ(thread_request(ICC_TASK_OUT, tid, cpu, true), -FUL_EINVAL);
	KT_CHECK_EQ(thread_request(ICC_TASK_OUT, tid, cpu, false), -FUL_EINVAL);
	KT_CHECK_EQ(icc_call_sync(cpu, bi_note, NULL), -FUL_EINVAL);
	KT_CHECK_EQ(icc_call_copy(cpu, bi_note, &word, sizeof(word)),
		    -FUL_EINVAL);
	KT_CHECK_EQ(icc_signal(cpu, IPI_RE_SCHEDULE), -FUL_EINVAL);
	KT_CHECK_EQ(thread_create(&a, bi_note, NULL), -FUL_EINVAL);
	struct icc_req *r = bi_post_move(tid, 1, cpu);
	KT_CHECK(r != NULL);
	KT_CHECK_EQ(icc_wait(r, KT_TIMEOUT_MS), -FUL_EINVAL);
}

/*
 * A request naming an offline core: the cores QEMU did not start, the
 * first id past MAX_CPUS, and ids far beyond (~0: 1u << cpu would be
 * undefined). Every entry point refuses it (EINVAL), and so does the
 * owner of a thread when a TASK_OUT to such a core reaches it, in any
 * state: here blocked, then in flight (MIGRATING: pending_dest must not
 * record it). Nothing is posted, nothing runs, nothing moves.
 */
KTEST(bad_offline_core, 2)
{
	static const unsigned far[] = {MAX_CPUS, MAX_CPUS + 1, 64, 1000, ~0u};
	_Atomic uint32_t ran = 0;
	struct thread_attr a = {.name = "bi-parked", .prio = 20, .slice_ms = 2,
				.cpu = 1};
	int tid = thread_create(&a, bi_park_forever, &ran);
	KT_CHECK(tid > 0);
	KT_WAIT(atomic_load(&ran) == 1 &&
			atomic_load(&thread_lookup(tid)->state) == T_BLOCKED,
		KT_TIMEOUT_MS);
	atomic_store(&bi_ran, 0);
	for (unsigned c = machine.ncpus; c < MAX_CPUS && !kt->failed; c++)
		bi_offline_entries(kt, c, (tid_t)tid);
	for (unsigned i = 0; i < sizeof(far) / sizeof(far[0]) && !kt->failed;
	     i++)
		bi_offline_entries(kt, far[i], (tid_t)tid);
	KT_CHECK_EQ(atomic_load(&bi_ran), 0);
	struct thread *t = thread_lookup((tid_t)tid);
	KT_CHECK(t && atomic_load(&t->cpu) == 1 &&
		 atomic_load(&t->state) == T_BLOCKED);
	KT_CHECK_EQ(thread_kill((tid_t)tid), 0);

	/* In flight: the TASK_OUT reaches core 1 before the thread's own
	 * TASK_IN (core 1 held while both are posted). */
	int err;
	a.name = "bi-inflight";
	struct thread *x = thread_create_inactive(&a, bi_park_forever, &ran, 0,
						  &err);
	KT_CHECK(x != NULL);
	tid_t xtid = atomic_load(&x->tid);
	thread_publish(x);
	KT_CHECK(bi_hold_core(1));
	unsigned offline = machine.ncpus < MAX_CPUS ? machine.ncpus : MAX_CPUS;
	struct icc_req *r = bi_post_move(xtid, 1, offline);
	KT_CHECK_EQ(thread_activate(x, xtid), 0);
	atomic_store(&bi_release, 1);
	KT_CHECK(r != NULL);
	KT_CHECK_EQ(icc_wait(r, KT_TIMEOUT_MS), -FUL_EINVAL);
	KT_WAIT(atomic_load(&ran) == 2 &&
			atomic_load(&x->state) == T_BLOCKED,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(x->pending_dest, -1);
	KT_CHECK_EQ(atomic_load(&x->cpu), 1);
	KT_CHECK_EQ(thread_kill(xtid), 0);
	KT_WAIT(pools_idle(), KT_TIMEOUT_MS);
}

static struct {
	_Atomic uint32_t parked, woken, woken_cpu;
} bp;

static void bi_park_once(void *arg)
{
	(void)arg;
	atomic_store(&bp.parked, 1);
	thread_park();
	atomic_store(&bp.woken_cpu, this_cpu_id());
	atomic_store(&bp.woken, 1);
}

static uint32_t state_of(tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	return t ? atomic_load(&t->state) : T_FREE;
}

static uint32_t cpu_of(tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	return t ? atomic_load(&t->cpu) : ~0u;
}

/** Core @b parked, with thread Z blocked on it: each kind of request
 *  aimed at it is handled there at once, and nothing runs there. */
static void bi_parked_requests(struct ktest_ctx *kt, unsigned b, tid_t z,
			       struct probe *x, struct probe *y)
{
	uint32_t ran_on = 99;
	KT_CHECK_EQ(icc_call_copy(b, bi_note_cpu, &ran_on, sizeof(ran_on)), 0);
	KT_CHECK_EQ(ran_on, b);                       /* CALL_FUNC */
	KT_CHECK(probe_start(x, b, 10) > 0);          /* TASK_IN: queued */
	KT_CHECK_EQ(thread_unpark(z), 0);             /* TASK_IPC: made ready */
	KT_CHECK_EQ(thread_migrate(y->tid, b), 0);    /* TASK_OUT in */
	KT_WAIT(state_of(z) == T_READY && cpu_of(y->tid) == b &&
			state_of(y->tid) == T_READY &&
			state_of(x->tid) == T_READY,
		KT_TIMEOUT_MS);
	uint64_t yc = atomic_load(&y->count);
	thread_sleep_ms(20);
	KT_CHECK_EQ(atomic_load(&x->count), 0);      /* none of them runs */
	KT_CHECK_EQ(atomic_load(&y->count), yc);
	KT_CHECK_EQ(atomic_load(&bp.woken), 0);
	KT_CHECK_EQ(thread_kill(y->tid), 0);          /* TASK_KILL */
	KT_CHECK(thread_lookup(y->tid) == NULL);
	KT_CHECK_EQ(thread_migrate(x->tid, this_cpu_id()), 0); /* TASK_OUT out */
	KT_WAIT(atomic_load(&x->count) > 0, KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&x->first_cpu), this_cpu_id() + 1);
}

/*
 * A request for a parked core (IPI_RUN_IDLE): the core keeps handling
 * its mailbox, so a CALL_FUNC runs there, a kill ends a thread there, a
 * TASK_OUT moves a thread away from it; threads that arrive (TASK_IN,
 * a TASK_OUT towards it, a wake-up) wait on its run queue and run only
 * once it is woken (IPI_RE_SCHEDULE). Nothing hangs, nothing is lost.
 */
KTEST(bad_parked_core, 2)
{
	unsigned b = (this_cpu_id() + 1) % machine.ncpus;
	struct probe x, y;
	memset(&bp, 0, sizeof(bp));
	struct thread_attr a = {.name = "bi-z", .prio = 20, .slice_ms = 2,
				.cpu = b};
	int z = thread_create(&a, bi_park_once, NULL);
	KT_CHECK(z > 0);
	KT_CHECK(probe_start(&y, this_cpu_id(), 10) > 0); /* READY here */
	KT_WAIT(atomic_load(&bp.parked) && state_of((tid_t)z) == T_BLOCKED,
		KT_TIMEOUT_MS);
	KT_CHECK_EQ(icc_signal(b, IPI_RUN_IDLE), 0);
	KT_WAIT(atomic_load(&cpus[b].parked) && cpus[b].current == cpus[b].idle,
		KT_TIMEOUT_MS);
	uint64_t leaks = cpus[b].stats.nonidle_while_parked;
	bi_parked_requests(kt, b, (tid_t)z, &x, &y);
	uint64_t leaked = cpus[b].stats.nonidle_while_parked - leaks;
	KT_CHECK_EQ(icc_signal(b, IPI_RE_SCHEDULE), 0);
	KT_WAIT(atomic_load(&bp.woken), KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&bp.woken_cpu), b);
	KT_CHECK_EQ(leaked, 0);
	probe_finish(&x);
	KT_WAIT(thread_lookup((tid_t)z) == NULL && pools_idle(), KT_TIMEOUT_MS);
}

/* ---- timeouts of 2^64-1, sleeps beyond the timer's range ---- */

enum bi_call { BI_SLEEP, BI_WAIT, BI_SEND, BI_SERVE };

/* One blocking call, made by a thread of its own on core 1. */
static struct bi_block {
	enum bi_call call;
	uint64_t arg;           /* ms (BI_SLEEP) or the timeout in us */
	struct ntfn *n;
	struct endpoint *ep;
	struct ipc_msg m;       /* BI_SERVE: the second message received */
	_Atomic int result, result2;
	_Atomic uint32_t done;
} bb;

/** BI_SERVE: receive a call, answer it by REPLY_RECV and receive the
 *  next message that way, both with timeout bb.arg. */
static void bi_serve(void)
{
	struct ipc_msg m, reply = {.mr = {0xacc}};
	uint64_t token, token2;
	atomic_store(&bb.result, kipc_recv(bb.ep, bb.arg, &m, &token));
	reply.mr[1] = m.mr[0];
	atomic_store(&bb.result2, kipc_reply_recv(bb.ep, token, &reply, bb.arg,
						  &bb.m, &token2));
}

static void bi_block_main(void *arg)
{
	(void)arg;
	struct ipc_msg m = {.mr = {0x5e4d}};
	switch (bb.call) {
	case BI_SLEEP:
		thread_sleep_ms(bb.arg);
		break;
	case BI_WAIT:
		atomic_store(&bb.result, kipc_wait(bb.n, bb.arg, NULL));
		break;
	case BI_SEND:
		atomic_store(&bb.result, kipc_send(bb.ep, &m, false, bb.arg));
		break;
	case BI_SERVE:
		bi_serve();
		break;
	}
	atomic_store(&bb.done, 1);
}

/** Start bi_block_main for @call(@arg) on core 1 and wait until it is
 *  blocked; its tid, or 0. */
static tid_t bi_block(struct ktest_ctx *kt, enum bi_call call, uint64_t arg)
{
	bb.call = call;
	bb.arg = arg;
	atomic_store(&bb.done, 0);
	struct thread_attr a = {.name = "bi-block", .prio = 20, .slice_ms = 2,
				.cpu = 1};
	int tid = thread_create(&a, bi_block_main, NULL);
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (tid > 0 && state_of((tid_t)tid) != T_BLOCKED &&
	       arch_counter() < dl)
		thread_sleep_ms(1);
	if (tid <= 0 || state_of((tid_t)tid) != T_BLOCKED) {
		ktest_fail(kt, __FILE__, __LINE__, "call %u did not block", call);
		return 0;
	}
	return (tid_t)tid;
}

/** @tid, blocked without a deadline, stays blocked: not on the sleepers
 *  list (no timer), still waiting 20 ms later. */
static void bi_check_forever(struct ktest_ctx *kt, tid_t tid)
{
	thread_sleep_ms(20);
	struct thread *t = thread_lookup(tid);
	KT_CHECK(t != NULL);
	KT_CHECK_EQ(atomic_load(&t->state), T_BLOCKED);
	KT_CHECK(!t->sleeping);
	KT_CHECK_EQ(atomic_load(&bb.done), 0);
}

/** A CALL_FUNC held up for BI_HOLD_MS, waited for with a timeout of
 *  2^64-1 ms: it must complete, not time out at once (a deadline of now
 *  plus 2^64-1 that wrapped would lie in the past). */
static void bi_icc_wait_forever(struct ktest_ctx *kt)
{
	KT_CHECK(bi_hold_core(1));
	uint64_t flags = arch_irq_save();
	struct icc_req *r = icc_req_alloc(ICC_CALL_FUNC);
	if (r) {
		r->fn = bi_note;
		icc_post(1, r);
		icc_flush();
	}
	arch_irq_restore(flags);
	KT_CHECK(r != NULL);
	uint32_t ran = atomic_load(&bi_ran);
	KT_CHECK_EQ(icc_wait(r, ~0ull), 0);
	KT_CHECK_EQ(atomic_load(&bi_ran), ran + 1);
}

/*
 * A timeout of 2^64-1 on every blocking call that takes one: icc_wait
 * (in ms), and the IPC waits through ipc_deadline (in us: FUL_FOREVER,
 * and anything above 2^40 us, means no deadline). Each blocks with no
 * timer until its partner comes: a notification wait until a signal, a
 * send until a receive, a receive and a REPLY_RECV until a call and a
 * send, the call until its reply. thread_sleep_ms(2^64-1) is in
 * bad_sleep_beyond_timer_range.
 */
KTEST(bad_timeout_forever, 2)
{
	KT_CHECK_EQ(ipc_deadline(FUL_FOREVER), ~0ull);
	KT_CHECK_EQ(ipc_deadline(FUL_FOREVER - 1), ~0ull);
	KT_CHECK_EQ(ipc_deadline((1ull << 40) + 1), ~0ull);
	KT_CHECK(ipc_deadline(1ull << 40) - arch_counter() >
		 ms_to_ticks(1000ull * 86400 * 12));
	bi_icc_wait_forever(kt);
	struct ntfn *n;
	struct endpoint *ep;
	KT_CHECK_EQ(kipc_ntfn_create(&n), 0);
	KT_CHECK_EQ(kipc_endpoint_create(&ep), 0);
	bb.n = n;
	bb.ep = ep;
	tid_t t = bi_block(kt, BI_WAIT, FUL_FOREVER);
	bi_check_forever(kt, t);
	kipc_signal(n, 4);
	KT_WAIT(atomic_load(&bb.done), KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&bb.result), 0);

	t = bi_block(kt, BI_SEND, FUL_FOREVER - 1);
	bi_check_forever(kt, t);
	struct ipc_msg m;
	uint64_t token;
	KT_CHECK_EQ(kipc_recv(ep, FUL_FOREVER, &m, &token), 0);
	KT_CHECK(m.mr[0] == 0x5e4d && token == 0);
	KT_WAIT(atomic_load(&bb.done), KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&bb.result), 0);

	t = bi_block(kt, BI_SERVE, FUL_FOREVER);
	bi_check_forever(kt, t);
	m = (struct ipc_msg){.mr = {0xca11}};
	KT_CHECK_EQ(kipc_send(ep, &m, true, FUL_FOREVER), 0);
	KT_CHECK(m.mr[0] == 0xacc && m.mr[1] == 0xca11);
	KT_WAIT(state_of(t) == T_BLOCKED, KT_TIMEOUT_MS);
	bi_check_forever(kt, t);
	m = (struct ipc_msg){.mr = {0x5e2d}};
	KT_CHECK_EQ(kipc_send(ep, &m, false, FUL_FOREVER), 0);
	KT_WAIT(atomic_load(&bb.done), KT_TIMEOUT_MS);
	KT_CHECK(atomic_load(&bb.result) == 0 && atomic_load(&bb.result2) == 0);
	KT_CHECK_EQ(bb.m.mr[0], 0x5e2d);
	KT_WAIT(thread_lookup(t) == NULL, KT_TIMEOUT_MS);
	obj_put((struct kobj *)ep);
	obj_put((struct kobj *)n);
}

struct bi_timer {
	uint64_t now, due;
	bool on;
};

static void bi_read_timer(void *arg)
{
	struct bi_timer *tm = arg;
	tm->now = arch_counter();
	tm->on = arch_timeout_due(&tm->due);
}

/**
 * Thread @tid sleeps on core 1 (idle otherwise) until a deadline beyond
 * the timer's range. Its core's timeout timer must be armed within the range
 * (CNTP_TVAL_EL0 is signed 32-bit: a TVAL of the whole delta put the
 * compare value in the past, and the timer fired continuously, or near
 * 2^64, and the sleep never ended), not after the deadline, and fire at
 * most a few times meanwhile.
 */
static void bi_check_armed(struct ktest_ctx *kt, tid_t tid)
{
	struct thread *t = thread_lookup(tid);
	KT_CHECK(t != NULL && t->sleeping);
	uint64_t deadline = t->sleep_until;
	KT_CHECK(deadline - arch_counter() > ARCH_TIMER_MAX_TICKS);
	uint64_t fired0 = __atomic_load_n(&cpus[1].stats.timeouts,
					  __ATOMIC_RELAXED);
	struct bi_timer tm;
	KT_CHECK_EQ(icc_call_copy(1, bi_read_timer, &tm, sizeof(tm)), 0);
	KT_CHECK(tm.on);
	KT_CHECK(tm.due > tm.now && tm.due - tm.now <= ARCH_TIMER_MAX_TICKS);
	KT_CHECK(tm.due <= deadline);
	thread_sleep_ms(50);
	uint64_t fired = __atomic_load_n(&cpus[1].stats.timeouts,
					 __ATOMIC_RELAXED) - fired0;
	KT_CHECK(fired < 10);
	KT_CHECK_EQ(state_of(tid), T_BLOCKED);
	KT_CHECK_EQ(atomic_load(&bb.done), 0);
}

/*
 * A sleep longer than the timer's range (34 s at 62.5 MHz), checked in
 * a fraction of a second: the real sleeps of 35 s and 40 s are
 * timer_sleep_beyond_range (make test-long). thread_sleep_ms of 35 s
 * and of 2^64-1 ms (the deadline saturates), each then cancelled by a
 * kill, and a notification wait of 35 s that a signal ends early.
 */
KTEST(bad_sleep_beyond_timer_range, 2)
{
	static const uint64_t sleeps[] = {35000, ~0ull};
	for (unsigned i = 0; i < 2 && !kt->failed; i++) {
		tid_t t = bi_block(kt, BI_SLEEP, sleeps[i]);
		bi_check_armed(kt, t);
		KT_CHECK_EQ(thread_kill(t), 0);
		KT_CHECK(thread_lookup(t) == NULL);
	}
	struct ntfn *n;
	KT_CHECK_EQ(kipc_ntfn_create(&n), 0);
	bb.n = n;
	tid_t t = bi_block(kt, BI_WAIT, 35000000);
	bi_check_armed(kt, t);
	kipc_signal(n, 1);
	KT_WAIT(atomic_load(&bb.done), KT_TIMEOUT_MS);
	KT_CHECK_EQ(atomic_load(&bb.result), 0);
	KT_WAIT(thread_lookup(t) == NULL, KT_TIMEOUT_MS);
	obj_put((struct kobj *)n);
}
