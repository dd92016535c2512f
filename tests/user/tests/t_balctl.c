/*
 * Balancer control over IPC (<fulcrum/balctl.h>), against the
 * rootserver's own balancer (policy mginkgo at boot in utest runs; its
 * thread does not run, so nothing else changes it):
 *   balctl_errors  every error: unknown tunable, value out of range,
 *                  unknown policy, malformed requests, an unknown label,
 *                  a capability with another badge (EPERM), a copy
 *                  without WRITE and an empty slot (the kernel refuses
 *                  the call); after each, the state is unchanged
 *   balctl_change  a set and a policy switch, seen by the next get; the
 *                  boot state is put back
 *   balctl_scores  FUL_BAL_SCORES (top's score column): none under
 *                  mginkgo; under opzone a score for a user thread (a
 *                  multiple of 5 % within +-50 %), none for a kernel
 *                  thread or a stale id; malformed lengths refused; the
 *                  boot policy put back
 *   balctl_place   the placement capability (FUL_SLOT_PLACE): PLACE and
 *                  SETTLE only, nice out of range and malformed requests
 *                  refused; a thread created where PLACE said is named
 *                  by the decision's record after SETTLE (EXPLAIN); a
 *                  SETTLE on a thread never started ends in ETIMEOUT
 *                  within its bounded wait; ful_thread_spawn's
 *                  FUL_CPU_PLACE places as PLACE does
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/balctl.h>
#include <fulcrum/rootsrv.h>
#include <ful/load.h>

#include "utest.h"

/** Call @ep with @label, @len bytes of the IPC buffer; MR0 or -FUL_E*. */
static long bc_call(unsigned ep, unsigned long label, unsigned long len)
{
	struct ful_msg m = {.info = FUL_MSG(label, len)};
	long err = ful_call(ep, &m, 20000000UL);
	return err < 0 ? err : (long)m.mr[0];
}

/** FUL_BAL_GET into @st: the tunables' number or an error. */
static long bc_get(struct ful_bal_state *st)
{
	long r = bc_call(FUL_SLOT_BALANCER, FUL_BAL_GET, 0);
	memcpy(st, ful_ipcbuf(), sizeof(*st));
	return r;
}

static long bc_set(const char *name, long value)
{
	struct ful_bal_set s;
	memset(&s, 0, sizeof(s));
	strncpy(s.name, name, sizeof(s.name) - 1);
	s.value = value;
	memcpy(ful_ipcbuf(), &s, sizeof(s));
	return bc_call(FUL_SLOT_BALANCER, FUL_BAL_SET, sizeof(s));
}

static long bc_policy(const char *name)
{
	strcpy(ful_ipcbuf(), name);
	return bc_call(FUL_SLOT_BALANCER, FUL_BAL_POLICY, strlen(name) + 1);
}

/** The value of tunable @name in @st, or -999. */
static long bc_value(const struct ful_bal_state *st, const char *name)
{
	for (unsigned i = 0; i < st->n; i++)
		if (!strcmp(st->t[i].name, name))
			return st->t[i].value;
	return -999;
}

UTEST(balctl_errors, 1)
{
	struct ful_bal_state st0, st;
	long n = bc_get(&st0);
	UT_CHECK(n > 0 && n == (long)st0.n);
	UT_CHECK(!strcmp(st0.policy, "mginkgo"));
#define UNCHANGED()                                                     \
	do {                                                            \
		UT_CHECK_EQ(bc_get(&st), n);                            \
		UT_CHECK(!memcmp(&st, &st0, sizeof(st)));               \
	} while (0)
	UT_CHECK_EQ(bc_set("nosuch", 1), -FUL_BAL_ETUNABLE);
	UNCHANGED();
	UT_CHECK_EQ(bc_set("threshold_pct", 101), -FUL_BAL_ERANGE);
	UT_CHECK_EQ(bc_set("threshold_pct", -1), -FUL_BAL_ERANGE);
	UNCHANGED();
	UT_CHECK_EQ(bc_policy("nosuch"), -FUL_BAL_EPOLICY);
	UNCHANGED();
	/* Malformed: a set of the wrong size, names empty or without NUL,
	 * a get with bytes, a label that is no request. */
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_SET, 8), -FUL_BAL_EMSG);
	memset(ful_ipcbuf(), 'x', 64);
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_SET,
			    sizeof(struct ful_bal_set)), -FUL_BAL_EMSG);
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_POLICY, 64),
		    -FUL_BAL_EMSG);
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_POLICY, 0),
		    -FUL_BAL_EMSG);
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_GET, 4), -FUL_BAL_EMSG);
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_ROOT_REQ_OFF, 0),
		    -FUL_ENOSYS); /* the balancer badge cannot power off */
	UNCHANGED();
	/* Without the balancer capability: another badge of the same
	 * endpoint, a copy without WRITE, nothing at all. */
	UT_CHECK_EQ(bc_call(FUL_SYSPROG_SLOT_DONE, FUL_BAL_GET, 0),
		    -FUL_BAL_EPERM);
	long ro = ful_slot_alloc();
	UT_CHECK(ro > 0);
	UT_CHECK_EQ(ful_cap_copy(FUL_SLOT_BALANCER, FUL_SLOT_SELF_VS,
				 (unsigned)ro, FUL_R_READ, 0), 0);
	UT_CHECK_EQ(bc_call((unsigned)ro, FUL_BAL_GET, 0), -FUL_ERIGHTS);
	ful_slot_drop((unsigned)ro);
	long empty = ful_slot_alloc();
	UT_CHECK(empty > 0);
	UT_CHECK_EQ(bc_call((unsigned)empty, FUL_BAL_GET, 0), -FUL_EBADCAP);
	ful_slot_free((unsigned)empty);
	UNCHANGED();
#undef UNCHANGED
}

UTEST(balctl_change, 1)
{
	struct ful_bal_state st;
	UT_CHECK(bc_get(&st) > 0);
	UT_CHECK(!strcmp(st.policy, "mginkgo"));
	long t0 = bc_value(&st, "threshold_pct");
	UT_CHECK(t0 >= 0 && t0 != 25);
	UT_CHECK_EQ(bc_set("threshold_pct", 25), 0);
	UT_CHECK(bc_get(&st) > 0);
	UT_CHECK_EQ(bc_value(&st, "threshold_pct"), 25);
	UT_CHECK_EQ(bc_policy("fulcrum"), 0);
	UT_CHECK(bc_get(&st) > 0);
	UT_CHECK(!strcmp(st.policy, "fulcrum"));
	UT_CHECK(bc_value(&st, "max_moves") >= 0); /* fulcrum's own */
	UT_CHECK_EQ(bc_value(&st, "threshold_pct"), t0); /* its default */
	/* Back to the boot state. */
	UT_CHECK_EQ(bc_policy("mginkgo"), 0);
	UT_CHECK(bc_get(&st) > 0);
	UT_CHECK(!strcmp(st.policy, "mginkgo"));
	UT_CHECK_EQ(bc_value(&st, "threshold_pct"), t0);
}

/** FUL_BAL_SCORES for the @n ids @tids into @out: MR0 or -FUL_E*. */
static long bc_scores(const unsigned *tids, int *out, unsigned n)
{
	memcpy(ful_ipcbuf(), tids, n * sizeof(*tids));
	long r = bc_call(FUL_SLOT_BALANCER, FUL_BAL_SCORES, n * sizeof(*tids));
	memcpy(out, ful_ipcbuf(), n * sizeof(*out));
	return r;
}

/** A kernel thread's tid from the load area (0: none found). */
static unsigned bc_kernel_tid(void)
{
	const struct ful_load_page *pg = ful_load_area();
	for (unsigned i = 0; i < ful_load_nthreads(pg); i++) {
		struct ful_load_thread t;
		ful_load_read_thread(pg, i, &t);
		if (t.tid && (t.flags & FUL_LT_KERNEL))
			return t.tid;
	}
	return 0;
}

UTEST(balctl_scores, 1)
{
	struct ful_bal_state st;
	UT_CHECK(bc_get(&st) > 0);
	char boot[FUL_BAL_NAME_MAX];
	memcpy(boot, st.policy, sizeof(boot));
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	/* this thread, a kernel thread (if one is listed; else id 0), an id
	 * whose slot holds another thread */
	unsigned tids[3] = {si.tid, bc_kernel_tid(),
			    si.tid + FUL_TID_SLOT_MASK + 1};
	int sc[3];
	/* malformed: no id, a length not a multiple of 4 */
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_SCORES, 0),
		    -FUL_BAL_EMSG);
	UT_CHECK_EQ(bc_call(FUL_SLOT_BALANCER, FUL_BAL_SCORES, 6),
		    -FUL_BAL_EMSG);
	UT_CHECK_EQ(bc_policy("mginkgo"), 0);
	UT_CHECK_EQ(bc_scores(tids, sc, 3), 0);
	for (unsigned i = 0; i < 3; i++)
		UT_CHECK_EQ(sc[i], FUL_BAL_NOSCORE);
	UT_CHECK_EQ(bc_policy("opzone"), 0);
	UT_CHECK_EQ(bc_scores(tids, sc, 3), 1);
	UT_CHECK(sc[0] != FUL_BAL_NOSCORE);
	UT_CHECK(sc[0] >= -500 && sc[0] <= 500 && sc[0] % 50 == 0);
	UT_CHECK_EQ(sc[1], FUL_BAL_NOSCORE);
	UT_CHECK_EQ(sc[2], FUL_BAL_NOSCORE);
	UT_CHECK_EQ(bc_policy(boot), 0);
	UT_CHECK(bc_get(&st) > 0);
	UT_CHECK(!strcmp(st.policy, boot));
}

static _Atomic int bc_ran;

static void bc_thread(void *arg)
{
	(void)arg;
	atomic_store(&bc_ran, 1);
}

/** EXPLAIN of @tid through the balancer capability: the text. */
static const char *bc_explain(unsigned long tid, long *told)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_BAL_EXPLAIN, 0), .mr = {tid}};
	long err = ful_call(FUL_SLOT_BALANCER, &m, 20000000UL);
	*told = err < 0 ? err : (long)m.mr[0];
	return ful_ipcbuf();
}

UTEST(balctl_place, 1)
{
	/* The placement capability: PLACE and SETTLE, nothing else. */
	UT_CHECK_EQ(bc_call(FUL_SLOT_PLACE, FUL_BAL_GET, 0), -FUL_BAL_EPERM);
	strcpy(ful_ipcbuf(), "count");
	UT_CHECK_EQ(bc_call(FUL_SLOT_PLACE, FUL_BAL_POLICY, 6),
		    -FUL_BAL_EPERM);
	UT_CHECK_EQ(ful_place(20, NULL), -FUL_BAL_ERANGE);
	UT_CHECK_EQ(ful_place(-21, NULL), -FUL_BAL_ERANGE);
	UT_CHECK_EQ(bc_call(FUL_SLOT_PLACE, FUL_BAL_PLACE, 8), -FUL_BAL_EMSG);
	UT_CHECK_EQ(ful_place_settle(0, 0), 0); /* no thread: nothing to wait */
	UT_CHECK_EQ(bc_call(FUL_SYSPROG_SLOT_DONE, FUL_BAL_PLACE, 0),
		    -FUL_BAL_EPERM); /* another badge */
	/* A thread placed by the rootserver's policy: it starts on the core
	 * the decision names, and the decision's record names it. */
	unsigned long seq = 0;
	long cpu = ful_place(-5, &seq);
	UT_CHECK(cpu >= 0 && cpu < (long)ut_ncpus());
	atomic_store(&bc_ran, 0);
	struct ful_thread th;
	struct ful_thread_args a = {.fn = bc_thread, .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 110,
				    .cpu = (unsigned)cpu, .nice = -5,
				    .name = "placed"};
	UT_CHECK_EQ(ful_thread_spawn(&a, &th), 0);
	UT_CHECK_EQ(ful_place_settle(th.tid, seq), 0);
	long told;
	const char *text = bc_explain((unsigned long)th.tid, &told);
	char want[32];
	snprintf(want, sizeof(want), "placed on cpu%ld", cpu);
	UT_CHECK(told >= 1);
	UT_CHECK(strstr(text, want) != NULL);
	UT_WAIT(atomic_load(&bc_ran));
	UT_CHECK(ful_thread_reap(&th, UT_TIMEOUT_US));
	/* A thread created and never started does not hold the server
	 * beyond SETTLE's bounded wait. */
	static char ipcb[FUL_IPCBUF_SIZE] __attribute__((aligned(FUL_IPCBUF_SIZE)));
	static unsigned long stk[64] __attribute__((aligned(16)));
	struct ful_thread_attr ta = {.entry = (unsigned long)bc_thread,
				     .sp = (unsigned long)&stk[64],
				     .ipcbuf = (unsigned long)ipcb,
				     .prio = 90, .cpu = (unsigned)cpu,
				     .slice_ms = 10};
	long slot = ful_slot_alloc();
	UT_CHECK(slot > 0);
	long tid = ful_thread_create(FUL_SLOT_POOL, FUL_SLOT_SELF_VS,
				     (unsigned)slot, &ta);
	UT_CHECK(tid > 0);
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_place_settle(tid, seq), -FUL_BAL_ETIMEOUT);
	UT_CHECK(ful_ticks_to_us(ful_counter() - t0) < 10000000UL);
	ful_slot_drop((unsigned)slot);
	/* FUL_CPU_PLACE does the same in ful_thread_spawn. */
	atomic_store(&bc_ran, 0);
	a.cpu = FUL_CPU_PLACE;
	UT_CHECK_EQ(ful_thread_spawn(&a, &th), 0);
	UT_WAIT(atomic_load(&bc_ran));
	text = bc_explain((unsigned long)th.tid, &told);
	UT_CHECK(told >= 1 && strstr(text, "placed on cpu") != NULL);
	UT_CHECK(ful_thread_reap(&th, UT_TIMEOUT_US));
}
