/*
 * ubench=migrate: migrate_running, the instructions from the migration
 * call to the moved thread running on its new core, on both cores.
 *
 * This program (core 0, prio 100) moves a thread T of its own (prio
 * 200) that is running in user mode on core 1 to core 0 with one
 * FUL_SYS_MIGRATE, the balancer's call. The window opens just before
 * the call (t0, on core 0) and closes at T's first counter read on core
 * 0 (t1). Under -icount shift=0 PMCCNTR is machine-wide virtual time,
 * one count per instruction of any core, so the window holds:
 *   core 0  the system call: entry, the move's checks, posting TASK_OUT,
 *           the SGI, waiting for the answer, the return; then the IRQ
 *           that brings T in (TASK_IN: accept, make ready, preempt),
 *           the switch to T and its return to user mode
 *   core 1  the IRQ taken from T in user mode: the TASK_OUT on the
 *           owner, the switch out of T to idle, posting TASK_IN and its
 *           SGI, and the way into wfi
 *   T       its own spinning, on core 1 until the IRQ and on core 0
 *           until it sees itself there: subtracted exactly (below)
 * Cores 2 and 3 sit in wfi (tickless idle) and execute nothing.
 *
 * T's spin (mr_spin) is written in assembly so that its length is
 * known, and it keeps a count of its passes in memory:
 *     1: add  x, x, #1      count a pass
 *        str  x, [count]    publish it
 *        ldr  w, [running]  load area: the tid running on core 0
 *        cmp  w, tid
 *        yield              hand the host thread to the next vCPU
 *        b.ne 1b
 *        isb
 *        mrs  t1, pmccntr_el0
 * (objdump -d of build/user/bench.elf shows exactly these eight
 * instructions in mr_spin.) Single-threaded TCG runs the vCPUs round
 * robin, and `yield` ends a vCPU's turn, so whenever core 0 runs, T is
 * stopped just after its `yield`. The caller reads T's count n0 right
 * before t0, so from t0 on T executes 6 instructions per pass (b.ne
 * taken, then add..yield) for n1 - n0 passes, n1 being its count at the
 * exit, then b.ne (not taken), isb and the mrs: 6 (n1 - n0) + 3. That
 * is subtracted from t1 - t0; t0 is read with `isb; mrs` and, as every
 * read, counts its own mrs, so nothing else is. Changing the number of
 * instructions per pass (MR_PAD nops) leaves the samples unchanged.
 *
 * T is brought back to core 1, blocked and unmeasured, between samples.
 * Deterministic under icount (bench_report.py --repeat 2 checks it); a
 * sample whose window holds a scheduler tick of core 0 or 1 (1 ms of
 * virtual time) would be longer, the same in every boot.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <fulcrum/bootinfo.h>
#include <ful/ful.h>
#include <ful/load.h>

#include "tests/user/tests/utest.h"

#define MR_RUNS 50
#define MR_WARMUP 5
#define MR_FROM 1
#define MR_TO 0
#ifndef MR_PAD
#define MR_PAD 0  /* nops added to each pass (a check of the subtraction) */
#endif
#define MR_STR_(x) #x
#define MR_STR(x) MR_STR_(x)
#define MR_PASS (6 + MR_PAD) /* instructions per pass of mr_spin */
#define MR_EXIT 3 /* b.ne not taken, isb, mrs */

struct mr {
	volatile unsigned long count; /* T's passes, written by mr_spin */
	volatile unsigned long t1, n1;
	_Atomic int quit;
	unsigned tid;
	long go;                      /* T waits here between samples */
	struct ful_thread th;
};

static unsigned long mr_samples[MR_RUNS];

/** The counter, with nothing after the read: one `isb; mrs`. */
static inline unsigned long mr_now(void)
{
	unsigned long c;
	__asm__ volatile("isb\n\tmrs %0, pmccntr_el0" : "=r"(c) : : "memory");
	return c;
}

/** Spin until the load area says this thread (@tid) runs on the core
 *  whose `running` is @run; *@count counts the passes. Returns the
 *  counter read on arrival; the final count in *@passes. */
static unsigned long mr_spin(const unsigned *run, unsigned tid,
			     volatile unsigned long *count,
			     unsigned long *passes)
{
	unsigned long n = 0, t1;
	unsigned w;
	__asm__ volatile("1:	add	%[n], %[n], #1\n"
			 "	str	%[n], [%[cnt]]\n"
			 "	ldr	%w[w], [%[run]]\n"
			 "	cmp	%w[w], %w[tid]\n"
			 "	.rept	" MR_STR(MR_PAD) "\n	nop\n	.endr\n"
			 "	yield\n"
			 "	b.ne	1b\n"
			 "	isb\n"
			 "	mrs	%[t1], pmccntr_el0\n"
			 : [n] "+r"(n), [t1] "=r"(t1), [w] "=&r"(w)
			 : [cnt] "r"(count), [run] "r"(run), [tid] "r"(tid)
			 : "cc", "memory");
	*passes = n;
	return t1;
}

/** T: on each go, spin on core 1 until moved, stamp, block again. */
static void mr_thread(void *arg)
{
	struct mr *m = arg;
	const unsigned *run = &ful_load_area()->cpu[MR_TO].running;
	for (;;) {
		ful_ntfn_wait((unsigned)m->go, NULL, FUL_FOREVER);
		if (atomic_load(&m->quit))
			return;
		unsigned long n;
		m->t1 = mr_spin(run, m->tid, &m->count, &n);
		m->n1 = n;
	}
}

/** T's record says @state on @cpu. */
static bool mr_is(const struct mr *m, unsigned cpu, unsigned state)
{
	struct ful_load_thread t;
	ful_load_read_thread(ful_load_area(), FUL_TID_SLOT(m->tid), &t);
	return t.tid == m->tid && t.cpu == cpu && t.state == state;
}

static bool mr_spinning(const struct mr *m)
{
	return m->count != 0;
}

/** Stamped on core 0 and blocked there again. */
static bool mr_arrived(const struct mr *m)
{
	return m->t1 != 0 && mr_is(m, MR_TO, FUL_TS_BLOCKED);
}

/** Blocked on core 1, ready for a sample. */
static bool mr_home(const struct mr *m)
{
	return mr_is(m, MR_FROM, FUL_TS_BLOCKED);
}

static bool mr_dead(const struct mr *m)
{
	return ful_thread_dead(m->th.slot);
}

/** Wait (yielding) until @cond(@m); -FUL_ETIMEOUT after UT_TIMEOUT_US. */
static long mr_wait(bool (*cond)(const struct mr *), const struct mr *m)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	while (!cond(m))
		if (ful_counter() > dl)
			return -FUL_ETIMEOUT;
		else
			ful_yield();
	return 0;
}

/** One sample: T spinning on core 1 is moved here. 0 or -FUL_E*. */
static long mr_one(struct mr *m, unsigned long *sample)
{
	m->count = 0;
	m->t1 = 0;
	ful_ntfn_signal((unsigned)m->go, 1);
	if (mr_wait(mr_spinning, m))
		return -FUL_ETIMEOUT;
	struct ful_move mv = {m->tid, MR_TO, 99, 0};
	unsigned long n0 = m->count;
	unsigned long t0 = mr_now();
	long done = ful_migrate(FUL_SLOT_SCHED, &mv, 1);
	/* T outranks us: we run again once it has stamped and blocked. */
	if (done != 1 || mv.result != FUL_MOVE_DONE)
		return done < 0 ? done : mv.result;
	if (mr_wait(mr_arrived, m))
		return -FUL_ETIMEOUT;
	*sample = m->t1 - t0 - (MR_PASS * (m->n1 - n0) + MR_EXIT);
	/* Back to core 1, blocked, unmeasured. */
	mv = (struct ful_move){m->tid, MR_FROM, 99, 0};
	if (ful_migrate(FUL_SLOT_SCHED, &mv, 1) != 1)
		return mv.result;
	return mr_wait(mr_home, m);
}

static void mr_print(void)
{
	ful_bench_print("migrate_running", "instructions", mr_samples,
			MR_RUNS);
}

/** migrate_running; returns the number of BENCH lines (0 or 1). */
unsigned ub_migrate_run(void)
{
	static struct mr m;
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	long err = si.cpu == MR_TO ? 0 : -FUL_ESTATE;
	if (!err && (m.go = ut_ntfn_new()) < 0)
		err = m.go;
	struct ful_thread_args a = {.fn = mr_thread, .arg = &m,
				    .pool = FUL_SLOT_POOL,
				    .vs = FUL_SLOT_SELF_VS, .prio = 200,
				    .cpu = MR_FROM, .name = "migrated"};
	if (!err)
		err = ful_thread_spawn(&a, &m.th);
	if (!err) {
		m.tid = (unsigned)m.th.tid;
		err = mr_wait(mr_home, &m);
	}
	for (int i = -MR_WARMUP; !err && i < MR_RUNS; i++) {
		unsigned long s = 0;
		err = mr_one(&m, &s);
		if (i >= 0)
			mr_samples[i] = s;
	}
	if (m.th.tid > 0) {
		atomic_store(&m.quit, 1);
		ful_ntfn_signal((unsigned)m.go, 1);
		mr_wait(mr_dead, &m);
		ful_slot_drop(m.th.slot);
		free(m.th.mem);
	}
	if (err) {
		printf("ubench: migrate_running failed: %ld\n", err);
		return 0;
	}
	mr_print();
	return 1;
}
