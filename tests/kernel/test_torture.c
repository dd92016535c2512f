/*
 * icc_torture: the ICC torture test (torture.h, docs/testing.md "The ICC
 * torture test").
 *
 * Boot arguments: torture_ops=N requests in all (default 3000, at most
 * TORT_IDS), seed=S, torture_delay=<max ns> for the delay injection
 * (race.c), torture_sync=<%> of moves, kills and calls waited for (10),
 * torture_lost_ms (torture_watch.c). The run: per core TORT_STRESSORS
 * stressors and TORT_MWORKERS M, TORT_IWORKERS I and TORT_PWORKERS P
 * workers, while this thread parks and wakes the other cores at random
 * and watches for lost wake-ups. Then, quiesced, every request must be
 * accounted for exactly once:
 *
 *   requests = handled + rejected (documented errors) + lost, lost = 0
 *   per mailbox kind, posted == handled on all cores together
 *   every CALL_FUNC accepted ran once, on its core; every message sent
 *   was received once, every call answered iff its caller got the reply
 *   every M incarnation ended once (exited or killed), none ran after a
 *   kill that returned 0, every worker sits on exactly one queue of its
 *   owner and none holds a wake token, pools free, nothing in flight,
 *   the run queues and load sums are back where they started, and one
 *   wake-up each stops the workers.
 *
 * The result line: TORTURE cpus=.. requests=.. handled=.. rejected=..
 * lost=.. dup=.. secs=.. req_per_s=.. seed=.. delay_ns=..
 */
#include "load.h"
#include "obj.h"
#include "race.h"
#include "audit.h"
#include "kipc.h"
#include "torture.h"

#define TORT_OPS_DEFAULT 3000
#define TORT_SYNC_DEFAULT 10 /* % of moves, kills and calls waited for */

struct torture T;

/* The machine before the run (the test thread alone on core 0). */
static struct {
	uint64_t posted[ICC_NKINDS], handled[ICC_NKINDS], forwarded;
	uint64_t delays, t0, t1;
	unsigned live;
	struct ful_load_cpu lc[MAX_CPUS];
	unsigned rq_nr[MAX_CPUS];
} tb;

static struct audit tort_audit;

#define TORT_FAIL(...) ktest_fail(kt, __FILE__, __LINE__, __VA_ARGS__)

/** Poll @cond (sleeping 1 ms) for up to @ms; false on a timeout. */
#define TORT_WAIT(cond, ms)                                               \
	({                                                                \
		uint64_t dl_ = arch_counter() + ms_to_ticks(ms);          \
		while (!(cond) && arch_counter() < dl_)                   \
			thread_sleep_ms(1);                               \
		(bool)(cond);                                             \
	})

static uint64_t forwarded_now(void)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < machine.ncpus; i++)
		n += __atomic_load_n(&cpus[i].stats.icc_forwarded,
				     __ATOMIC_RELAXED);
	return n;
}

static uint64_t delays_now(void)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < machine.ncpus; i++)
		n += race_delay_count(i);
	return n;
}

static void tort_base(void)
{
	for (unsigned k = 1; k < ICC_NKINDS; k++) {
		tb.posted[k] = icc_sum(true, k);
		tb.handled[k] = icc_sum(false, k);
	}
	tb.forwarded = forwarded_now();
	tb.delays = delays_now();
	tb.live = thread_count_live();
	for (unsigned i = 0; i < machine.ncpus; i++) {
		tb.lc[i] = load_area.cpu[i];
		tb.rq_nr[i] = cpus[i].rq.nr;
	}
}

/** Objects and threads; false (and a failure) if one could not be made. */
static bool tort_setup(struct ktest_ctx *kt)
{
	unsigned n = machine.ncpus;
	memset(&T, 0, sizeof(T));
	memset(tort_call_bits, 0, sizeof(tort_call_bits));
	memset(tort_inc_bits, 0, sizeof(tort_inc_bits));
	memset(tort_inc_killed, 0, sizeof(tort_inc_killed));
	memset(tort_msg_call, 0, sizeof(tort_msg_call));
	memset(tort_msg_ok, 0, sizeof(tort_msg_ok));
	memset(tort_msg_rx, 0, sizeof(tort_msg_rx));
	memset(tort_msg_answered, 0, sizeof(tort_msg_answered));
	memset(tort_msg_unsure, 0, sizeof(tort_msg_unsure));
	T.ncpus = n;
	T.nstress = n * TORT_STRESSORS;
	T.nm = n * TORT_MWORKERS;
	T.ni = n * TORT_IWORKERS;
	T.np = n * TORT_PWORKERS;
	T.nw = T.nm + T.ni + T.np;
	T.seed = bootarg_num("seed", 1);
	T.ops_total = bootarg_num("torture_ops", TORT_OPS_DEFAULT);
	T.sync_pct = bootarg_num("torture_sync", TORT_SYNC_DEFAULT);
	if (T.ops_total > TORT_IDS)
		T.ops_total = TORT_IDS;
	for (unsigned i = 0; i <= T.nstress; i++)
		T.st[i].seed = tort_seed(i, 0x53);
	for (unsigned i = 0; i < TORT_NEPS; i++)
		if (kipc_endpoint_create(&T.ep[i])) {
			TORT_FAIL("endpoint_create");
			return false;
		}
	for (unsigned i = 0; i < T.ni; i++)
		if (kipc_ntfn_create(&T.iw[i].ntfn)) {
			TORT_FAIL("ntfn_create");
			return false;
		}
	return true;
}

/** The workers, then the stressors. */
static bool tort_start(struct ktest_ctx *kt)
{
	struct tort_stats *me = &T.st[T.nstress];
	for (unsigned s = 0; s < T.nm; s++)
		tort_spawn(me, s, &me->seed);
	for (unsigned i = 0; i < T.ni; i++) {
		struct tort_iw *w = &T.iw[i];
		struct thread_attr a = {.name = "tort-i", .prio = 10 + i % 3,
					.slice_ms = 2, .cpu = i % T.ncpus};
		w->seed = tort_seed(i, 0x49);
		int tid = thread_create(&a, tort_iworker, w);
		if (tid < 0) {
			TORT_FAIL("I worker: %d", tid);
			return false;
		}
		w->tid = (tid_t)tid;
	}
	for (unsigned i = 0; i < T.np; i++) {
		struct thread_attr a = {.name = "tort-p", .prio = 12,
					.slice_ms = 1, .cpu = i % T.ncpus};
		int tid = thread_create(&a, tort_pworker, &T.pw[i]);
		if (tid < 0) {
			TORT_FAIL("P worker: %d", tid);
			return false;
		}
		T.pw[i].tid = (tid_t)tid;
	}
	for (unsigned i = 0; i < T.nstress; i++) {
		struct thread_attr a = {.name = "tort-s", .prio = 11,
					.slice_ms = 1, .cpu = i % T.ncpus};
		int tid = thread_create(&a, tort_stressor, &T.st[i]);
		if (tid < 0) {
			TORT_FAIL("stressor: %d", tid);
			return false;
		}
	}
	return !atomic_load(&T.spawn_fail);
}

/** While the stressors run: park a random other core for 0..2 ms, now
 *  and then (the requests aimed at it meanwhile are handled there; its
 *  threads wait), and watch for lost wake-ups. False if the stressors
 *  did not finish in time. */
static bool tort_run(uint64_t *parks)
{
	uint64_t seed = tort_seed(0, 0x50);
	unsigned me = this_cpu_id();
	/* Generous: a million requests take 6 min on 8 cores of TCG on 2
	 * busy host cores; this allows 85. */
	uint64_t dl = arch_counter() + ms_to_ticks(120000 + 5 * T.ops_total);
	tort_watch_init();
	for (unsigned n = 0; atomic_load(&T.stressors_done) < T.nstress; n++) {
		if (arch_counter() > dl)
			return false;
		if (n % 8 == 0)
			tort_watch();
		uint64_t r = rng_next(&seed);
		unsigned cpu = (unsigned)(r >> 8) % T.ncpus;
		if (r % 4 || cpu == me) {
			thread_sleep_ms(1);
			continue;
		}
		icc_signal(cpu, IPI_RUN_IDLE);
		(*parks)++;
		thread_sleep_ms((r >> 16) % 3);
		icc_signal(cpu, IPI_RE_SCHEDULE);
	}
	return true;
}

static bool cores_unparked(void)
{
	for (unsigned i = 0; i < machine.ncpus; i++)
		if (atomic_load(&cpus[i].parked))
			return false;
	return true;
}

/** Reap every M worker found gone; how many are still dying (DEAD, not
 *  yet switched out). */
static unsigned tort_reap_all(void)
{
	struct tort_stats *me = &T.st[T.nstress];
	unsigned dying = 0;
	for (unsigned s = 0; s < T.nm; s++) {
		tid_t tid = atomic_load(&T.slot[s].tid);
		struct thread *t = thread_lookup(tid);
		if (!t)
			tort_reap(me, s, tid, &me->seed);
		else if (atomic_load(&t->state) == T_DEAD)
			dying++;
	}
	return dying;
}

/** Each live worker sits in exactly one place on its owner core, and
 *  none is blocked holding a wake token (at rest nobody wakes anyone:
 *  a token left means a wake-up that was never applied). */
static void tort_check_places(struct ktest_ctx *kt)
{
	if (!audit_all(&tort_audit)) {
		TORT_FAIL("audit not run");
		return;
	}
	if (tort_audit.bad)
		TORT_FAIL("%u threads out of place", tort_audit.bad);
	for (unsigned i = 0; i < T.nw; i++) {
		tid_t tid = tort_worker(i).tid;
		struct thread *t = thread_lookup(tid);
		if (!t && i < T.nm && !tid)
			continue; /* killed at the end, not replaced */
		if (!t || tort_audit.seen[t - threads] != 1)
			TORT_FAIL("worker %u (tid %u) seen %u times", i, tid,
				  t ? tort_audit.seen[t - threads] : 0);
		if (t && tort_wake_stuck(t)) {
			atomic_fetch_add(&T.lost_wakeups, 1);
			TORT_FAIL("worker %u (tid %u) blocked with a wake token "
				  "at rest", i, tid);
		}
	}
}

/** One unpark for every worker, and (@signal) a signal for each I
 *  worker. */
static void tort_wake_all(bool signal)
{
	for (unsigned i = 0; i < T.nw; i++)
		thread_unpark(tort_worker(i).tid);
	for (unsigned i = 0; signal && i < T.ni; i++)
		tort_signal(&T.iw[i], 1ull << 63);
}

/** Nothing in flight and every worker gone or at rest in tort_hold:
 *  nothing moves. */
static bool tort_all_held(void)
{
	if (!pools_idle())
		return false;
	for (unsigned i = 0; i < T.nw; i++) {
		struct tort_wref w = tort_worker(i);
		struct thread *t = thread_lookup(w.tid);
		if (t && (atomic_load(&t->state) != T_BLOCKED ||
			  !atomic_load(w.holding)))
			return false;
	}
	return true;
}

/** Stop the workers, all parked in tort_hold, with exactly one wake-up
 *  each: a worker still blocked after that has lost its wake-up. */
static void tort_stop(struct ktest_ctx *kt)
{
	atomic_store(&T.stop, 1);
	tort_wake_all(false);
	if (TORT_WAIT(thread_count_live() == tb.live, KT_TIMEOUT_MS))
		return;
	for (unsigned i = 0; i < T.nw; i++) {
		tid_t tid = tort_worker(i).tid;
		struct thread *t = thread_lookup(tid);
		if (t)
			TORT_FAIL("worker %u (tid %u) did not stop: state %u on "
				  "cpu%u (a lost wake-up?)", i, tid,
				  atomic_load(&t->state), atomic_load(&t->cpu));
	}
}

/* ---- the accounting ---- */

static struct {
	uint64_t issued[TOP_N], oc[TOP_N][OC_N], marks_due;
	uint64_t state[T_STARTING + 1], offline, parked, self;
	uint64_t requests, handled, rejected, lost, bad, dup;
	uint64_t posted[ICC_NKINDS], done[ICC_NKINDS];
	uint64_t ipc_ops[IOP_N], ipc_ok[IOP_N], ipc_to[IOP_N];
} ts;

static const char *const tort_op_name[TOP_N] = {
	"migrate", "migrate_async", "kill", "kill_async", "call",
	"call_async", "wake", "ping", "signal", "thread_set", "start"};
static const char *const tort_oc_name[OC_N] = {
	"done", "posted", "einval", "estate", "enothread", "edead", "eagain",
	"LOST", "BAD"};

static unsigned popcount64(uint64_t x)
{
	x -= x >> 1 & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)(x * 0x0101010101010101ull >> 56);
}

/** Bits set in [0, @n) of @map. */
static uint64_t tort_bits(_Atomic uint64_t *map, uint32_t n)
{
	uint64_t c = 0;
	for (uint32_t i = 0; i < n / 64; i++)
		c += popcount64(atomic_load(&map[i]));
	if (n % 64)
		c += popcount64(atomic_load(&map[n / 64]) &
				((1ull << (n % 64)) - 1));
	return c;
}

/** Add up the stressors' (and the test's) counts, by outcome class. */
static void tort_sum(struct ktest_ctx *kt)
{
	for (unsigned i = 0; i <= T.nstress; i++) {
		struct tort_stats *s = &T.st[i];
		for (unsigned op = 0; op < TOP_N; op++) {
			ts.issued[op] += s->issued[op];
			for (unsigned oc = 0; oc < OC_N; oc++)
				ts.oc[op][oc] += s->oc[op][oc];
		}
		for (unsigned st = 0; st <= T_STARTING; st++)
			ts.state[st] += s->target_state[st];
		ts.marks_due += s->call_marks_due;
		ts.offline += s->to_offline;
		ts.parked += s->to_parked;
		ts.self += s->to_self;
		if (s->bad_res)
			TORT_FAIL("%s returned %d: not a documented outcome "
				  "(tid %u then in state %u)",
				  tort_op_name[s->bad_op], s->bad_res, s->bad_tid,
				  s->bad_state);
	}
	for (unsigned op = 0; op < TOP_N; op++) {
		ts.requests += ts.issued[op];
		ts.handled += ts.oc[op][OC_DONE] + ts.oc[op][OC_POSTED];
		for (unsigned oc = OC_EINVAL; oc <= OC_EAGAIN; oc++)
			ts.rejected += ts.oc[op][oc];
		ts.lost += ts.oc[op][OC_LOST];
		ts.bad += ts.oc[op][OC_BAD];
	}
	if (ts.oc[TOP_MIGRATE][OC_LOST] + ts.oc[TOP_KILL][OC_LOST] +
	    ts.oc[TOP_CALL][OC_LOST])
		TORT_FAIL("waited-for requests timed out (lost)");
}

/** Every mailbox record posted was handled, once: the asynchronous
 *  requests are confirmed here and by the CALL_FUNC marks. */
static void tort_check_mailbox(struct ktest_ctx *kt)
{
	for (unsigned k = 1; k < ICC_NKINDS; k++) {
		ts.posted[k] = icc_sum(true, k) - tb.posted[k];
		ts.done[k] = icc_sum(false, k) - tb.handled[k];
		if (ts.posted[k] == ts.done[k])
			continue;
		TORT_FAIL("mailbox kind %u: %lu posted, %lu handled", k,
			  ts.posted[k], ts.done[k]);
		if (ts.posted[k] > ts.done[k])
			ts.lost += ts.posted[k] - ts.done[k];
		else
			ts.dup += ts.done[k] - ts.posted[k];
	}
	uint64_t marks = tort_bits(tort_call_bits, atomic_load(&T.call_next));
	if (marks != ts.marks_due)
		TORT_FAIL("CALL_FUNC: %lu accepted, %lu ran", ts.marks_due,
			  marks);
	if (marks < ts.marks_due)
		ts.lost += ts.marks_due - marks;
	else
		ts.dup += marks - ts.marks_due;
	if (atomic_load(&T.misrouted))
		TORT_FAIL("%lu CALL_FUNCs ran on the wrong core",
			  atomic_load(&T.misrouted));
	if (!pools_idle())
		TORT_FAIL("a pool record or a thread still in flight");
}

/** Every M incarnation ended exactly once; every message was seen once,
 *  every call answered iff its caller got the answer. */
static void tort_check_ends(struct ktest_ctx *kt)
{
	uint32_t incs = atomic_load(&T.inc_next);
	uint64_t ended = tort_bits(tort_inc_bits, incs);
	uint64_t started = incs - atomic_load(&T.spawn_fail);
	if (ended != started ||
	    atomic_load(&T.mexits) + atomic_load(&T.killed) != ended)
		TORT_FAIL("M workers: %lu started, %lu ended (%lu exited, "
			  "%lu killed)", started, ended, atomic_load(&T.mexits),
			  atomic_load(&T.killed));
	uint32_t msgs = atomic_load(&T.msg_next);
	uint64_t wrong = 0;
	for (uint32_t id = 0; id < msgs && id < TORT_MSGS; id++) {
		bool call = tort_bit(tort_msg_call, id);
		bool ok = tort_bit(tort_msg_ok, id);
		bool rx = tort_bit(tort_msg_rx, id);
		bool ans = tort_bit(tort_msg_answered, id);
		bool unsure = tort_bit(tort_msg_unsure, id);
		if (!call)
			wrong += ok != rx || ans || unsure;
		else if (unsure) /* answered by REPLY_RECV: ok only if seen */
			wrong += (ok && !rx) || ans;
		else
			wrong += ok != ans || (ans && !rx);
	}
	if (wrong)
		TORT_FAIL("%lu IPC messages not delivered exactly once", wrong);
	ts.lost += wrong;
	ts.dup += atomic_load(&T.dup);
	if (atomic_load(&T.zombies))
		TORT_FAIL("%lu steps of killed workers", atomic_load(&T.zombies));
	if (atomic_load(&T.lost_wakeups))
		TORT_FAIL("%lu lost wake-ups", atomic_load(&T.lost_wakeups));
	ts.lost += atomic_load(&T.lost_wakeups);
	if (atomic_load(&T.dup) || atomic_load(&T.crossed) ||
	    atomic_load(&T.bad_ipc))
		TORT_FAIL("duplicates %lu, crossed replies %lu, bad IPC "
			  "results %lu", atomic_load(&T.dup),
			  atomic_load(&T.crossed), atomic_load(&T.bad_ipc));
	for (unsigned i = 0; i < T.ni; i++)
		for (unsigned op = 0; op < IOP_N; op++) {
			ts.ipc_ops[op] += T.iw[i].ops[op];
			ts.ipc_ok[op] += T.iw[i].ok[op];
			ts.ipc_to[op] += T.iw[i].timeout[op];
		}
}

/** Run queues and load sums back where they started. */
static void tort_check_sums(struct ktest_ctx *kt)
{
	for (unsigned i = 0; i < machine.ncpus; i++) {
		struct ful_load_cpu *l = &load_area.cpu[i], *b = &tb.lc[i];
		if (l->nrunnable != b->nrunnable || l->nblocked != b->nblocked ||
		    l->load != b->load || l->weight != b->weight ||
		    cpus[i].rq.nr != tb.rq_nr[i])
			TORT_FAIL("cpu%u: runnable %u blocked %u load %lu rq %u, "
				  "was %u %u %lu %u", i, l->nrunnable,
				  l->nblocked, l->load, cpus[i].rq.nr,
				  b->nrunnable, b->nblocked, b->load,
				  tb.rq_nr[i]);
	}
}

/* ---- the report ---- */

static void tort_report_ops(void)
{
	for (unsigned op = 0; op < TOP_N; op++) {
		char line[200];
		int len = ksnprintf(line, sizeof(line), "  torture: %-13s %8lu =",
				    tort_op_name[op], ts.issued[op]);
		for (unsigned oc = 0; oc < OC_N; oc++)
			if (ts.oc[op][oc])
				len += ksnprintf(line + len, sizeof(line) - len,
						 " %s %lu", tort_oc_name[oc],
						 ts.oc[op][oc]);
		kprintf("%s\n", line);
	}
	kprintf("  torture: targets: ready %lu running %lu blocked %lu "
		"migrating %lu inactive %lu dead %lu gone %lu; cores: own %lu "
		"parked %lu offline %lu\n", ts.state[T_READY],
		ts.state[T_RUNNING], ts.state[T_BLOCKED], ts.state[T_MIGRATING],
		ts.state[T_INACTIVE] + ts.state[T_STARTING], ts.state[T_DEAD],
		ts.state[T_FREE] + ts.state[T_EMBRYO], ts.self, ts.parked,
		ts.offline);
}

static void tort_report(uint64_t parks)
{
	uint64_t us = ticks_to_us(tb.t1 - tb.t0);
	uint64_t rate = us ? ts.requests * 1000000 / us : 0;
	tort_report_ops();
	kprintf("  torture: mailbox posted = handled: TASK_IN %lu TASK_OUT %lu "
		"TASK_KILL %lu CALL_FUNC %lu TASK_IPC %lu; forwarded %lu, "
		"delays %lu, parks %lu\n", ts.done[ICC_TASK_IN],
		ts.done[ICC_TASK_OUT], ts.done[ICC_TASK_KILL],
		ts.done[ICC_CALL_FUNC], ts.done[ICC_TASK_IPC],
		forwarded_now() - tb.forwarded, delays_now() - tb.delays, parks);
	kprintf("  torture: ipc (ok/timed out): send %lu/%lu call %lu/%lu recv "
		"%lu/%lu wait %lu/%lu reply %lu/%lu (caller gone)\n",
		ts.ipc_ok[IOP_SEND], ts.ipc_to[IOP_SEND], ts.ipc_ok[IOP_CALL],
		ts.ipc_to[IOP_CALL], ts.ipc_ok[IOP_RECV], ts.ipc_to[IOP_RECV],
		ts.ipc_ok[IOP_WAIT], ts.ipc_to[IOP_WAIT], ts.ipc_ok[IOP_REPLY],
		ts.ipc_to[IOP_REPLY]);
	kprintf("  torture: M workers %u started %u (exited %lu, killed %lu), "
		"their own moves and wakes %lu\n", T.nm,
		atomic_load(&T.inc_next), atomic_load(&T.mexits),
		atomic_load(&T.killed), atomic_load(&T.worker_ops));
	kprintf("TORTURE cpus=%u requests=%lu handled=%lu rejected=%lu lost=%lu "
		"dup=%lu secs=%lu.%03lu req_per_s=%lu seed=%lu delay_ns=%lu\n",
		T.ncpus, ts.requests, ts.handled, ts.rejected, ts.lost, ts.dup,
		us / 1000000, us / 1000 % 1000, rate, T.seed,
		bootarg_num("torture_delay", 0));
}

/** After the run: bring every worker to rest (one wake-up each, and a
 *  signal for the I workers' waits without a timeout), account the
 *  last kills, check where every thread is, then stop them. */
static void tort_finish(struct ktest_ctx *kt, bool ran)
{
	for (unsigned i = 0; i < T.ncpus; i++)
		if (i != this_cpu_id())
			icc_signal(i, IPI_RE_SCHEDULE);
	if (!TORT_WAIT(cores_unparked(), KT_TIMEOUT_MS))
		TORT_FAIL("a core stayed parked");
	atomic_store(&T.no_respawn, 1);
	atomic_store(&T.hold, 1);
	tort_wake_all(true);
	if (!TORT_WAIT(tort_all_held(), KT_TIMEOUT_MS))
		TORT_FAIL("workers or requests did not come to rest");
	if (tort_reap_all())
		TORT_FAIL("killed workers never switched out");
	if (ran)
		tort_check_places(kt);
	tort_stop(kt);
	if (!TORT_WAIT(pools_idle(), KT_TIMEOUT_MS))
		TORT_FAIL("requests still in flight after the stop");
}

KTEST(icc_torture, 2)
{
	memset(&ts, 0, sizeof(ts));
	tort_base();
	uint64_t parks = 0;
	bool ran = tort_setup(kt) && tort_start(kt);
	tb.t0 = arch_counter();
	if (ran && !tort_run(&parks)) {
		TORT_FAIL("stressors not done in time: %lu of %lu requests",
			  atomic_load(&T.ops_next), T.ops_total);
		ran = false;
	}
	tb.t1 = arch_counter();
	tort_finish(kt, ran);
	tort_sum(kt);
	tort_check_mailbox(kt);
	tort_check_ends(kt);
	tort_check_sums(kt);
	for (unsigned i = 0; i < TORT_NEPS; i++)
		if (T.ep[i])
			obj_put((struct kobj *)T.ep[i]);
	for (unsigned i = 0; i < T.ni; i++)
		if (T.iw[i].ntfn)
			obj_put((struct kobj *)T.iw[i].ntfn);
	tort_report(parks);
	if (kt->failed)
		kprintf("TORTURE-FAIL seed=%lu: %s\n", T.seed, kt->why);
}
