/* Host tests for user/policy's decision log, tunables, thread index
 * and the seqcount readers of <ful/load.h> (the policies' own decisions:
 * test_policy.c, test_policy_alb.c, test_opzone.c). */
#define HTEST_MAIN
#include "host_test.h"

#include <pthread.h>
#include <time.h>

#include "policy_fixture.h"

/* A round that repeats the record before it (no move, same figures and
 * outcome) is recognised, so the balancer can give its slot back. */
HTEST(log_repeats_only_identical_idle_rounds)
{
	static struct lb_log log;
	unsigned tid = 1;
	setup(4, "fulcrum");
	memset(&log, 0, sizeof(log));
	fill(1, 1, 10, &tid);
	fill(2, 1, 10, &tid);
	fill(3, 1, 10, &tid);
	struct lb_decision *a = lb_log_next(&log);
	CHECK_EQ(lb_rebalance(&pol, &snap, 1, LB_TRIG_TIMER, mv, 8, a), 0);
	CHECK(!lb_log_repeats(&log, a)); /* nothing before it */
	struct lb_decision *b = lb_log_next(&log);
	CHECK_EQ(lb_rebalance(&pol, &snap, 2, LB_TRIG_TIMER, mv, 8, b), 0);
	CHECK(lb_log_repeats(&log, b));
	lb_log_unnext(&log);
	CHECK_EQ(log.next, 1);
	b = lb_log_next(&log); /* another trigger: kept */
	CHECK_EQ(lb_rebalance(&pol, &snap, 3, LB_TRIG_DEMAND, mv, 8, b), 0);
	CHECK(!lb_log_repeats(&log, b));
	fill(1, 1, 10, &tid); /* other loads, a move: kept */
	fill(1, 1, 10, &tid);
	struct lb_decision *c = lb_log_next(&log);
	CHECK_EQ(lb_rebalance(&pol, &snap, 4, LB_TRIG_DEMAND, mv, 8, c), 1);
	CHECK(!lb_log_repeats(&log, c));
	lb_fake_apply(&area, mv, 1);
	c = lb_log_next(&log); /* no move after one: kept */
	CHECK_EQ(lb_rebalance(&pol, &snap, 5, LB_TRIG_DEMAND, mv, 8, c), 0);
	CHECK(!lb_log_repeats(&log, c));
}

/* ---- tunables ------------------------------------------------------- */

HTEST(tunables_by_name)
{
	long v = 0;
	CHECK_EQ(lb_policy_init(&pol, "nope"), LB_E_NAME);
	CHECK_EQ(lb_policy_init(&pol, "mginkgo"), 0);
	CHECK(!strcmp(pol.name, "mginkgo"));
	CHECK_EQ(lb_tunable_get(&pol, "threshold_pct", &v), 0);
	CHECK_EQ(v, 20);
	CHECK_EQ(lb_tunable_get(&pol, "period_ms", &v), 0);
	CHECK_EQ(v, 100);
	CHECK_EQ(lb_tunable_get(&pol, "include_root", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(lb_tunable_get(&pol, "max_moves", &v), LB_E_NAME);
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", 101), LB_E_RANGE);
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", -1), LB_E_RANGE);
	CHECK_EQ(lb_tunable_set(&pol, "period_ms", 0), LB_E_RANGE);
	CHECK_EQ(lb_tunable_set(&pol, "include_root", 2), LB_E_RANGE);
	CHECK_EQ(lb_tunable_set(&pol, "bogus", 1), LB_E_NAME);
	CHECK_EQ(lb_tunable_get(&pol, "threshold_pct", &v), 0);
	CHECK_EQ(v, 20); /* unchanged by the refused sets */
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", 0), 0);
	CHECK_EQ(lb_tunable_set(&pol, "period_ms", 10000), 0);
	CHECK_EQ(lb_policy_init(&pol, "fulcrum"), 0);
	CHECK_EQ(lb_tunable_get(&pol, "max_moves", &v), 0);
	CHECK_EQ(v, 8);
	CHECK_EQ(lb_tunable_set(&pol, "max_moves", LB_MAX_MOVES + 1),
		 LB_E_RANGE);
	CHECK_EQ(lb_tunable_get(&pol, "idle_trigger", &v), 0);
	CHECK_EQ(v, 1);
}

HTEST(threshold_changes_states)
{
	unsigned tid = 1;
	setup(4, "mginkgo");
	fill(1, 11, 10, &tid);
	fill(2, 10, 10, &tid);
	fill(3, 9, 10, &tid); /* 110 / 100 / 90 */
	CHECK_EQ(rebalance(), 0);
	CHECK_EQ(dec.reason, LB_R_BALANCED);
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", 5), 0);
	CHECK_EQ(rebalance(), 1); /* 110 > 105, 90 < 95; 90 + 10 < 110 */
	CHECK(lb_state(&dec, 1) == LB_ST_HEAVY && lb_state(&dec, 3) == LB_ST_LIGHT);
	CHECK_EQ(dec.conf.threshold_pct, 5);
	/* Exactly on a threshold is normal (equation 1 is strict). */
	CHECK_EQ(lb_tunable_set(&pol, "threshold_pct", 10), 0);
	CHECK_EQ(rebalance(), 0);
	CHECK(lb_state(&dec, 1) == LB_ST_NORMAL && lb_state(&dec, 3) == LB_ST_NORMAL);
}

/* ---- snapshot and index --------------------------------------------- */

HTEST(index_rebuilt_only_on_tgen)
{
	unsigned tid = 1;
	setup(4, "mginkgo");
	fill(1, 100, 10, &tid);
	fill(2, 50, 10, &tid);
	fill(3, 50, 10, &tid);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(snap.builds, 1);
	place(10); /* placement never needs the index */
	CHECK_EQ(snap.builds, 1);
	lb_fake_set_state(&area, 1, FUL_TS_BLOCKED); /* no tgen bump */
	rebalance();
	CHECK_EQ(snap.builds, 1);
	lb_fake_add(&area, tid++, 2, 10, FUL_TS_READY);
	rebalance();
	CHECK_EQ(snap.builds, 2);
}

HTEST(pick_does_not_scan_all_threads)
{
	unsigned tid = 1;
	setup(4, "mginkgo");
	fill(1, 200, 10, &tid);
	fill(2, 150, 10, &tid);
	fill(3, 100, 10, &tid); /* 2000 / 1500 / 1000: A 1500 */
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(snap.probes, 1);
	CHECK_EQ(mv[0].tid, 1);
	/* Slices differ: the smallest wins wherever it sits. */
	lb_fake_kill(&area, 150);
	lb_fake_add(&area, 150, 1, 3, FUL_TS_READY);
	snap.probes = 0;
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(mv[0].tid, 150);
	CHECK_EQ(snap.probes, 1);
	/* Worst case: every smaller slice blocked -> one probe each. */
	for (unsigned t = 1; t <= 9; t++)
		lb_fake_set_state(&area, t, FUL_TS_BLOCKED);
	lb_fake_set_state(&area, 150, FUL_TS_BLOCKED);
	snap.probes = 0;
	CHECK_EQ(rebalance(), 1);
	CHECK_EQ(mv[0].tid, 10);
	CHECK_EQ(snap.probes, 11);
}

HTEST(pick_sees_stale_index_entries)
{
	unsigned tid = 1;
	setup(4, "mginkgo");
	fill(1, 4, 10, &tid);
	CHECK_EQ(rebalance(), 1); /* builds the index */
	/* The kernel moves tid 1 but the index is not rebuilt yet: pick
	 * re-reads the live record and skips it. */
	area.thread[1].cpu = 2;
	struct lb_cand c;
	CHECK(lb_snap_pick(&snap, 1, 3, NULL, 0, &c));
	CHECK_EQ(c.tid, 2);
	unsigned skip[1] = {2};
	CHECK(lb_snap_pick(&snap, 1, 3, skip, 1, &c));
	CHECK_EQ(c.tid, 3);
	CHECK(!lb_snap_pick(&snap, 2, 3, NULL, 0, &c)); /* not indexed there */
}

/* ---- decision log --------------------------------------------------- */

HTEST(json_rebalance_line)
{
	static struct lb_log log;
	char buf[LB_JSON_MAX];
	unsigned tid = 1;
	setup(4, "mginkgo");
	fill(1, 1, 100, &tid);
	fill(1, 1, 50, &tid);
	fill(2, 2, 50, &tid);
	fill(3, 1, 50, &tid);
	struct lb_decision *d = lb_log_next(&log);
	CHECK_EQ(lb_rebalance(&pol, &snap, 12345, LB_TRIG_TIMER, mv, 4, d), 1);
	int n = lb_decision_json(d, buf, sizeof(buf));
	CHECK(n > 0 && n < (int)sizeof(buf));
	const char *want =
		"{\"seq\":0,\"t\":12345,\"policy\":\"mginkgo\","
		"\"kind\":\"rebalance\",\"trigger\":\"timer\","
		"\"gate\":\"heavy_light\",\"ncpus\":4,\"root\":0,"
		"\"include_root\":0,\"threshold_pct\":20,"
		"\"load\":[0,150,100,50],\"nrun\":null,"
		"\"avg\":100.00,\"hi\":120.00,\"lo\":80.00,"
		"\"state\":[\"excluded\",\"heavy\",\"normal\",\"light\"],"
		"\"moves\":[{\"tid\":2,\"slice\":50,\"from\":1,\"to\":3,"
		"\"from_after\":100,\"to_after\":100}],"
		"\"reject\":null,\"reason\":\"moved\"}";
	if (strcmp(buf, want))
		HTEST_FAIL_("got %.400s", buf);
	CHECK_EQ(n, (int)strlen(want));
}

HTEST(json_place_and_nothing_lines)
{
	static struct lb_log log;
	char buf[LB_JSON_MAX];
	setup(3, "fulcrum");
	lb_fake_add(&area, 1, 1, 10, FUL_TS_READY);
	struct lb_new_thread t = {.slice_ms = 7};
	struct lb_decision *d = lb_log_next(&log);
	CHECK_EQ(lb_place(&pol, &snap, 5, &t, d), 2);
	lb_decision_json(d, buf, sizeof(buf));
	CHECK(strstr(buf, "\"kind\":\"place\",\"trigger\":\"create\"") != NULL);
	CHECK(strstr(buf, "\"moves\":[{\"tid\":null,\"slice\":7,\"from\":null,"
			  "\"to\":2,\"from_after\":null,\"to_after\":7}]") != NULL);
	CHECK(strstr(buf, "\"reason\":\"placed\"}") != NULL);
	CHECK(strstr(buf, "\"avg\":5.00,\"hi\":6.00,\"lo\":4.00") != NULL);
	/* Nothing to do: empty moves, a reason. */
	d = lb_log_next(&log);
	lb_fake_add(&area, 2, 2, 10, FUL_TS_READY);
	CHECK_EQ(lb_rebalance(&pol, &snap, 6, LB_TRIG_DEMAND, mv, 4, d), 0);
	lb_decision_json(d, buf, sizeof(buf));
	CHECK(strstr(buf, "{\"seq\":1,\"t\":6,\"policy\":\"fulcrum\"") == buf);
	CHECK(strstr(buf, "\"trigger\":\"demand\",\"gate\":\"none\"") != NULL);
	CHECK(strstr(buf, "\"moves\":[],\"reject\":null,"
			  "\"reason\":\"balanced\"}") != NULL);
	/* A turned-down candidate is logged. */
	setup(3, "mginkgo");
	lb_fake_add(&area, 1, 1, 10, FUL_TS_READY);
	d = lb_log_next(&log);
	CHECK_EQ(lb_rebalance(&pol, &snap, 7, LB_TRIG_TIMER, mv, 4, d), 0);
	lb_decision_json(d, buf, sizeof(buf));
	CHECK(strstr(buf, "\"reject\":{\"tid\":1,\"slice\":10,\"from\":1,"
			  "\"to\":2,\"from_after\":0,\"to_after\":10},"
			  "\"reason\":\"new_overload\"}") != NULL);
}

HTEST(json_truncation_and_worst_case)
{
	char small[16], big[LB_JSON_MAX];
	struct lb_decision d = {.policy = "fulcrum", .conf.ncpus = 8,
				.kind = LB_KIND_REBALANCE,
				.nmoves = LB_MAX_MOVES, .has_reject = true};
	for (unsigned c = 0; c < 8; c++) {
		d.v.load[c] = 5120000;
		d.v.nrun[c] = 512;
	}
	d.seq = d.time = ~0UL;
	d.v.has_nrun = true;
	d.conf.mask = 0xff;
	d.conf.neligible = 1;
	d.sum = ~0UL / 200; /* the largest A the formula takes */
	for (unsigned i = 0; i < LB_MAX_MOVES; i++)
		d.move[i] = (struct lb_dmove){~0u, ~0u, 7, 7, ~0UL, ~0UL, 0, 0};
	d.reject = d.move[0];
	int n = lb_decision_json(&d, big, sizeof(big));
	CHECK(n > 0 && n < LB_JSON_MAX);
	CHECK_EQ(n, (int)strlen(big));
	CHECK_EQ(lb_decision_json(&d, small, sizeof(small)), n);
	CHECK_EQ(strlen(small), sizeof(small) - 1);
	CHECK(!memcmp(small, big, sizeof(small) - 1));
}

HTEST(log_ring_wraps)
{
	static struct lb_log log;
	for (unsigned i = 0; i < LB_LOG_SIZE + 5; i++) {
		struct lb_decision *d = lb_log_next(&log);
		CHECK_EQ(d->seq, i);
		d->time = i * 10;
	}
	CHECK(lb_log_get(&log, 0) == NULL);
	CHECK(lb_log_get(&log, 4) == NULL);
	CHECK(lb_log_get(&log, LB_LOG_SIZE + 5) == NULL);
	const struct lb_decision *d = lb_log_get(&log, 5);
	CHECK(d && d->seq == 5 && d->time == 50);
	d = lb_log_get(&log, LB_LOG_SIZE + 4);
	CHECK(d && d->seq == LB_LOG_SIZE + 4);
}

/* ---- seqcount readers ----------------------------------------------- */

HTEST(seq_odd_is_retried)
{
	struct ful_load_cpu c;
	struct ful_load_thread t;
	lb_fake_init(&area, 4);
	lb_fake_add(&area, 1, 2, 30, FUL_TS_READY);
	CHECK(ful_load_try_cpu(&area, 2, &c));
	CHECK(c.load == 30 && c.nrunnable == 1 && !(c.seq & 1));
	area.cpu[2].seq++; /* a writer is inside */
	CHECK(!ful_load_try_cpu(&area, 2, &c));
	unsigned nrun;
	unsigned long load;
	CHECK(!ful_load_try_cpu_load(&area, 2, &nrun, &load));
	area.cpu[2].seq++;
	CHECK(ful_load_try_cpu_load(&area, 2, &nrun, &load));
	CHECK(ful_load_try_thread(&area, 1, &t));
	CHECK(t.tid == 1 && t.cpu == 2 && t.slice_ms == 30);
	area.thread[1].seq++;
	CHECK(!ful_load_try_thread(&area, 1, &t));
	area.thread[1].seq++;
	ful_load_read_thread(&area, 1, &t);
	CHECK_EQ(t.slice_ms, 30);
}

struct writer_arg {
	_Atomic int stop;
	_Atomic int started;
	unsigned long writes;
};

/** Keep rewriting core 1's record with every field = k, k = 1, 2, ... */
static void *seq_writer(void *p)
{
	struct writer_arg *w = p;
	struct ful_load_cpu *c = &area.cpu[1];
	for (unsigned long k = 1; !w->stop; k++) {
		__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&c->nrunnable, (unsigned)k, __ATOMIC_RELAXED);
		__atomic_store_n(&c->load, k, __ATOMIC_RELAXED);
		__atomic_store_n(&c->busy, k, __ATOMIC_RELAXED);
		__atomic_store_n(&c->switches, k, __ATOMIC_RELAXED);
		__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELEASE);
		w->writes = k;
		w->started = 1;
	}
	return NULL;
}

HTEST(seq_torn_copies_never_escape)
{
	struct writer_arg w = {0};
	pthread_t th;
	lb_fake_init(&area, 4);
	CHECK_EQ(pthread_create(&th, NULL, seq_writer, &w), 0);
	while (!w.started)
		;
	unsigned long bad = 0, torn = 0, reads = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct ful_load_cpu c;
		for (int i = 0; i < 1000; i++, reads++) {
			if (!ful_load_try_cpu(&area, 1, &c)) {
				torn++;
				continue;
			}
			bad += c.load != c.nrunnable || c.busy != c.load ||
			       c.switches != c.load;
		}
		ful_load_read_cpu(&area, 1, &c);
		bad += c.busy != c.load;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L +
		 (t1.tv_nsec - t0.tv_nsec) < 200000000L);
	w.stop = 1;
	pthread_join(th, NULL);
	CHECK_EQ(bad, 0);
	CHECK(reads > 1000);
	printf("# seqcount: %lu reads, %lu torn (retried), %lu writes\n",
	       reads, torn, w.writes);
}
