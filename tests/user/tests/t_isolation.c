/*
 * Isolation: a task cannot read or write another task's memory or the
 * kernel's, nor execute data, nor run privileged instructions. Each
 * time the offending thread (a faulter task, tests/user/faulter) dies, the
 * fault counter goes up by exactly one, and everything else goes on: a
 * victim task whose memory the faulter aimed at still answers with an
 * intact checksum, and the faulter's other thread still serves calls.
 *   isolation_read_other   loads from another task's private mapping
 *   isolation_write_other  stores to it; same addresses, separate memory
 *   isolation_kernel       loads, stores and jumps into kernel memory
 *   isolation_exec         executing data, writing code
 *   isolation_undef        undefined and privileged instructions, a
 *                          misaligned pc: only the faulting thread dies
 *   isolation_main_thread  the first thread of a task faults, a worker
 *                          thread of the same task lives on
 *   isolation_sp_align     a misaligned sp harms only its own thread
 */
#include <stdio.h>
#include <string.h>

#include "../faulter/faulter.h"
#include "t_ipc.h"

#define KERNEL_VA 0xffff000040200000UL /* the kernel image, linear map */
#define KERNEL_PA 0x40200000UL         /* the same, physical: user range */
#define ISO_SCRATCH_VA 0x4c000000UL    /* this program's window on a frame */
#define VICTIM_BYTES (IT_VICTIM_PAGES * FUL_PAGE_SIZE)

struct victim {
	long ep;
	struct ful_task *t;
	unsigned long secret_sum, region_sum;
};

/** it_sum() of the secret an IT_ECHO task makes from @seed. */
static unsigned long secret_sum(unsigned long seed)
{
	unsigned long h = 0xcbf29ce484222325UL;
	for (size_t i = 0; i < IT_SECRET_SIZE; i++)
		h = (h ^ it_secret_byte(seed, i)) * 0x100000001b3UL;
	return h;
}

/**
 * Start a victim (IT_ECHO, secret from @seed) on @cpu, with a frame of
 * IT_VICTIM_PAGES filled with a pattern and mapped at IT_VICTIM_VA in it
 * only: this program fills it through a window it then unmaps, and
 * keeps no capability to it.
 */
static void victim_start(struct ut *ut, struct it_fix *f, struct victim *v,
			 unsigned cpu, unsigned long seed)
{
	long err = 0, fr = ful_slot_alloc();
	IT_OK(v->ep = it_ep(f));
	v->t = it_peer(f, cpu, IT_ARG0(IT_ECHO, seed), 0, (unsigned)v->ep,
		       FUL_R_READ, 0, &err);
	IT_OK(err);
	v->secret_sum = secret_sum(seed);
	IT_OK(fr);
	err = ful_frame_create(FUL_SLOT_POOL, (unsigned)fr, IT_VICTIM_PAGES);
	if (err >= 0)
		err = ful_map(FUL_SLOT_SELF_VS, (unsigned)fr, ISO_SCRATCH_VA,
			      FUL_R_READ | FUL_R_WRITE);
	if (err >= 0) {
		unsigned char *p = (unsigned char *)ISO_SCRATCH_VA;
		for (size_t i = 0; i < VICTIM_BYTES; i++)
			p[i] = (unsigned char)(i * 13 + seed + (i >> 9));
		v->region_sum = it_sum(p, VICTIM_BYTES);
		err = ful_unmap(FUL_SLOT_SELF_VS, ISO_SCRATCH_VA);
	}
	if (err >= 0)
		err = ful_map(v->t->vs, (unsigned)fr, IT_VICTIM_VA,
			      FUL_R_READ | FUL_R_WRITE);
	ful_slot_drop((unsigned)fr);
	IT_OK(err);
}

/** The victim is alive and its secret and private region are intact. */
static void victim_check(struct ut *ut, const struct victim *v)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_SUM, 0),
			    .mr = {IT_VICTIM_VA, VICTIM_BYTES}};
	UT_CHECK_EQ(ful_call((unsigned)v->ep, &m, IT_TMO), 0);
	if (m.mr[0] != v->secret_sum || m.mr[1] != v->region_sum)
		ut_fail(ut, __FILE__, __LINE__, "victim memory changed: "
			"secret %s, region %s",
			m.mr[0] == v->secret_sum ? "intact" : "CHANGED",
			m.mr[1] == v->region_sum ? "intact" : "CHANGED");
}

/** After FLT_R_ARMED: wait until thread @slot is dead. A report in the
 *  meantime (FLT_R_SURVIVED) means the fault did not happen. */
static void wait_fault_death(struct ut *ut, struct it_fix *f, unsigned slot,
			     unsigned kind)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	struct ful_msg m;
	while (!ful_thread_dead(slot)) {
		if (ful_recv(f->report, &m, 0) == 0) {
			ut_fail(ut, __FILE__, __LINE__, "kind %u did not fault "
				"(report %#lx, value %#lx)", kind,
				FUL_MSG_LABEL(m.info), m.mr[1]);
			return;
		}
		if (ful_counter() > dl) {
			ut_fail(ut, __FILE__, __LINE__, "kind %u: faulter "
				"neither died nor reported", kind);
			return;
		}
		ful_yield();
	}
}

/** Run a faulter of @kind at @addr on @cpu: it reaches the fault, dies
 *  of it, the fault counter goes up by one, the victim is intact. */
static void fault_once(struct ut *ut, struct it_fix *f, const struct victim *v,
		       unsigned kind, unsigned cpu, unsigned long addr)
{
	long err = 0;
	struct ful_msg m;
	unsigned long before = it_faults();
	struct it_spawn s = {.prog = "faulter", .cpu = cpu,
			     .arg0 = FLT_ARG0(kind, 0, 0), .arg1 = addr};
	struct ful_task *t = it_start(f, &s, &err);
	IT_OK(err);
	IT_REPORT(f, &m, FLT_R_ARMED);
	UT_CHECK_EQ(m.mr[1], cpu);
	wait_fault_death(ut, f, t->thread, kind);
	if (ut->failed)
		return;
	UT_CHECK_EQ(it_faults(), before + 1);
	it_kill(t);
	if (v)
		victim_check(ut, v);
}

/** fault_once() for @kind at each of @addrs, on every core in turn. */
static void fault_each(struct ut *ut, struct it_fix *f, const struct victim *v,
		       unsigned kind, const unsigned long *addrs, unsigned n)
{
	for (unsigned i = 0; i < n && !ut->failed; i++)
		fault_once(ut, f, v, kind, it_core(i), addrs[i]);
}

static void read_other_body(struct ut *ut, struct it_fix *f)
{
	struct victim v, v2;
	victim_start(ut, f, &v, it_core(1), 7);
	if (!ut->failed)
		victim_start(ut, f, &v2, it_core(2), 8);
	if (ut->failed)
		return;
	victim_check(ut, &v);
	victim_check(ut, &v2);
	const unsigned long addrs[] = {IT_VICTIM_VA, IT_VICTIM_VA + 0x1008,
				       IT_VICTIM_VA + VICTIM_BYTES - 8,
				       IT_VICTIM_VA + 0x2000};
	fault_each(ut, f, &v, FLT_READ, addrs, 4);
	/* The kernel will not read it on our behalf either. */
	UT_CHECK_EQ(ful_debug_write((const char *)IT_VICTIM_VA, 8), -FUL_EFAULT);
	if (!ut->failed)
		victim_check(ut, &v2);
}

UTEST(isolation_read_other, 1)
{
	IT_RUN(read_other_body);
}

static void write_other_body(struct ut *ut, struct it_fix *f)
{
	struct victim v, v2;
	struct ful_msg m;
	victim_start(ut, f, &v, it_core(1), 11);
	if (!ut->failed)
		victim_start(ut, f, &v2, it_core(1), 12);
	if (ut->failed)
		return;
	const unsigned long addrs[] = {IT_VICTIM_VA, IT_VICTIM_VA + 0x3ff8,
				       IT_VICTIM_VA + 0x1000, IT_VICTIM_VA + 0x10};
	fault_each(ut, f, &v, FLT_WRITE, addrs, 4);
	/* Nor write it on our behalf. */
	UT_CHECK_EQ(ful_sysinfo((struct ful_sysinfo *)IT_VICTIM_VA), -FUL_EFAULT);
	victim_check(ut, &v);
	/* Two tasks of one program: the same addresses, separate memory.
	 * v2 rewrites its secret; v's is untouched. */
	m = (struct ful_msg){.info = FUL_MSG(IT_L_SCRIBBLE, 0), .mr = {99}};
	UT_CHECK_EQ(ful_call((unsigned)v2.ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(m.mr[0], secret_sum(99));
	v2.secret_sum = secret_sum(99);
	victim_check(ut, &v2);
	victim_check(ut, &v);
}

UTEST(isolation_write_other, 1)
{
	IT_RUN(write_other_body);
}

static void kernel_body(struct ut *ut, struct it_fix *f)
{
	struct victim v;
	struct ful_thread_info info;
	victim_start(ut, f, &v, it_core(1), 21);
	if (ut->failed)
		return;
	const unsigned long addrs[] = {KERNEL_VA, KERNEL_VA + 0x1000, KERNEL_PA,
				       0xffffffffffff0000UL};
	fault_each(ut, f, &v, FLT_READ, addrs, 4);
	fault_each(ut, f, &v, FLT_WRITE, addrs, 4);
	fault_each(ut, f, &v, FLT_EXEC, addrs, 2);
	/* The kernel refuses kernel pointers in system calls too. */
	UT_CHECK_EQ(ful_debug_write((const char *)KERNEL_VA, 8), -FUL_EFAULT);
	UT_CHECK_EQ(ful_sysinfo((struct ful_sysinfo *)KERNEL_VA), -FUL_EFAULT);
	UT_CHECK_EQ(ful_thread_info(v.t->thread, (struct ful_thread_info *)KERNEL_VA),
		    -FUL_EFAULT);
	UT_CHECK_EQ(ful_thread_info(v.t->thread, &info), 0);
	victim_check(ut, &v);
}

UTEST(isolation_kernel, 1)
{
	IT_RUN(kernel_body);
}

static void exec_body(struct ut *ut, struct it_fix *f)
{
	struct victim v;
	victim_start(ut, f, &v, it_core(1), 31);
	if (ut->failed)
		return;
	fault_once(ut, f, &v, FLT_EXEC_DATA, it_core(0), 0);
	if (!ut->failed)
		fault_once(ut, f, &v, FLT_WRITE_TEXT, it_core(1), 0);
	if (!ut->failed) /* mapped (not executable) in the victim only */
		fault_once(ut, f, &v, FLT_EXEC, it_core(2), IT_VICTIM_VA);
}

UTEST(isolation_exec, 1)
{
	IT_RUN(exec_body);
}

/* ---- two-thread faulters: only the faulting thread dies ---- */

/**
 * Start a faulter with two threads on @cpu (its worker on @wcpu), in
 * mode @flags (FLT_F_SIBLING or FLT_F_MAIN) for @kind. Its surviving
 * thread serves pings on *@ep.
 */
static struct ful_task *faulter2(struct ut *ut, struct it_fix *f,
				 unsigned kind, unsigned long flags,
				 unsigned cpu, unsigned wcpu, long *ep)
{
	long err = it_ep(f);
	struct ful_task *t = NULL;
	if ((*ep = err) >= 0) {
		struct ful_cap_grant g[2] = {
			{(unsigned)*ep, FLT_SLOT_EP, FUL_R_READ, 0},
			{FUL_SLOT_POOL, FLT_SLOT_POOL, FUL_R_ALL, 0}};
		struct it_spawn s = {.prog = "faulter", .cpu = cpu,
				     .arg0 = FLT_ARG0(kind, flags, wcpu),
				     .caps = g, .ncaps = 2,
				     .vs_rights = FUL_R_ALL};
		t = it_start(f, &s, &err);
	}
	if (!t)
		ut_fail(ut, __FILE__, __LINE__, "faulter %u: %ld", kind, err);
	return t;
}

/** The thread serving @ep answers a ping (and, with @quit, ends). */
static void ping(struct ut *ut, long ep, unsigned long v, bool quit)
{
	struct ful_msg m = {.info = FUL_MSG(quit ? FLT_L_QUIT : FLT_L_PING, 0),
			    .mr = {v}};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(m.mr[0], v + 1);
}

/** The next report must be @label; FLT_R_SURVIVED means no fault. */
static void expect_report(struct ut *ut, struct it_fix *f, unsigned long label,
			  unsigned kind)
{
	struct ful_msg m;
	UT_CHECK_EQ(it_report(f, &m), 0);
	if (FUL_MSG_LABEL(m.info) == FLT_R_SURVIVED && label != FLT_R_SURVIVED)
		ut_fail(ut, __FILE__, __LINE__, "kind %u did not fault "
			"(value %#lx)", kind, m.mr[1]);
	else if (FUL_MSG_LABEL(m.info) == FLT_R_ERROR)
		ut_fail(ut, __FILE__, __LINE__, "faulter error %ld at %lu",
			(long)m.mr[0], m.mr[1]);
	else
		UT_CHECK_EQ(FUL_MSG_LABEL(m.info), label);
}

/** A worker thread commits @kind and dies; its sibling answers pings. */
static void sibling_fault(struct ut *ut, struct it_fix *f,
			  const struct victim *v, unsigned kind, unsigned i)
{
	long ep;
	unsigned long before = it_faults();
	struct ful_task *t = faulter2(ut, f, kind, FLT_F_SIBLING, it_core(i),
				      it_core(i + 1), &ep);
	if (!t)
		return;
	expect_report(ut, f, FLT_R_ARMED, kind);
	if (!ut->failed)
		expect_report(ut, f, FLT_R_SIBLING_DEAD, kind);
	if (ut->failed)
		return;
	UT_CHECK_EQ(it_faults(), before + 1);
	ping(ut, ep, 40 + kind, false);
	ping(ut, ep, 50 + kind, false);
	ping(ut, ep, 60 + kind, true);
	UT_WAIT(ful_thread_dead(t->thread));
	it_kill(t);
	victim_check(ut, v);
}

static void undef_body(struct ut *ut, struct it_fix *f)
{
	static const unsigned kinds[] = {FLT_UDF, FLT_SYSREG, FLT_DAIF, FLT_HVC,
					 FLT_BRK, FLT_PC_ALIGN};
	struct victim v;
	victim_start(ut, f, &v, it_core(1), 41);
	for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0] && !ut->failed; i++)
		sibling_fault(ut, f, &v, kinds[i], i);
}

UTEST(isolation_undef, 1)
{
	IT_RUN(undef_body);
}

static void main_thread_body(struct ut *ut, struct it_fix *f)
{
	long ep;
	unsigned long before = it_faults();
	struct ful_task *t = faulter2(ut, f, FLT_UDF, FLT_F_MAIN, it_core(1),
				      it_core(2), &ep);
	if (!t)
		return;
	expect_report(ut, f, FLT_R_WORKER_UP, FLT_UDF);
	if (!ut->failed)
		expect_report(ut, f, FLT_R_ARMED, FLT_UDF);
	if (!ut->failed)
		wait_fault_death(ut, f, t->thread, FLT_UDF);
	if (ut->failed)
		return;
	UT_CHECK_EQ(it_faults(), before + 1);
	ping(ut, ep, 7, false); /* the worker: the task lives on */
	ping(ut, ep, 8, true);
}

UTEST(isolation_main_thread, 1)
{
	IT_RUN(main_thread_body);
}

/** Threads cannot start with a misaligned sp or pc. */
static void misaligned_create(struct ut *ut, struct it_fix *f)
{
	long slot = it_slot(f);
	IT_OK(slot);
	struct ful_thread_attr a = {.entry = 0x400000, .sp = FUL_ROOT_STACK_TOP - 8,
				    .prio = 100, .cpu = 0, .slice_ms = 10};
	UT_CHECK_EQ(ful_thread_create(FUL_SLOT_POOL, FUL_SLOT_SELF_VS,
				      (unsigned)slot, &a), -FUL_EINVAL);
	a.sp = FUL_ROOT_STACK_TOP - 16;
	a.entry = 0x400002;
	UT_CHECK_EQ(ful_thread_create(FUL_SLOT_POOL, FUL_SLOT_SELF_VS,
				      (unsigned)slot, &a), -FUL_EINVAL);
	UT_CHECK_EQ(ful_cap_info((unsigned)slot), -FUL_EBADCAP);
}

/**
 * A worker runs with sp 4 bytes off (loads, stores, a system call).
 * The architecture faults it only if SCTLR_EL1.SA0 is set, and QEMU
 * never checks sp alignment: so it either dies of an sp alignment fault
 * (counted once) or runs on and restores sp. Either way only that
 * thread is concerned: its sibling and the other tasks go on.
 */
static void sp_align_body(struct ut *ut, struct it_fix *f)
{
	long ep;
	struct ful_msg m;
	struct victim v;
	misaligned_create(ut, f);
	if (!ut->failed)
		victim_start(ut, f, &v, it_core(1), 51);
	if (ut->failed)
		return;
	unsigned long before = it_faults();
	struct ful_task *t = faulter2(ut, f, FLT_SP_ALIGN, FLT_F_SIBLING,
				      it_core(1), it_core(2), &ep);
	if (!t)
		return;
	expect_report(ut, f, FLT_R_ARMED, FLT_SP_ALIGN);
	UT_CHECK_EQ(it_report(f, &m), 0);
	if (FUL_MSG_LABEL(m.info) == FLT_R_SURVIVED) {
		printf("isolation_sp_align: misaligned sp did not fault\n");
		UT_CHECK_EQ(it_faults(), before);
		expect_report(ut, f, FLT_R_SIBLING_DEAD, FLT_SP_ALIGN);
	} else {
		UT_CHECK_EQ(FUL_MSG_LABEL(m.info), FLT_R_SIBLING_DEAD);
		UT_CHECK_EQ(it_faults(), before + 1);
	}
	ping(ut, ep, 3, true);
	victim_check(ut, &v);
}

UTEST(isolation_sp_align, 1)
{
	IT_RUN(sp_align_body);
}
