/*
 * faulter: commits one kind of fault on purpose (see faulter.h), in its
 * first thread or in a worker thread, and reports around it so that the
 * isolation tests can tell "died at the fault" from "died too early" and
 * from "the fault did not happen".
 */
#include <stdbool.h>

#include <ful/ful.h>

#include "faulter.h"

/* A `ret` in a data page (mapped RW, never X). */
static volatile unsigned int data_code[4] __attribute__((aligned(16))) = {
	0xd65f03c0u, 0xd65f03c0u, 0xd65f03c0u, 0xd65f03c0u};

int main(void);

static unsigned kind_of(void)
{
	return (unsigned)(ful_arg0 & 0xff);
}

static unsigned worker_cpu(void)
{
	return (unsigned)((ful_arg0 >> 16) & 0xff);
}

static void report(unsigned long label, unsigned long a, unsigned long b,
		   unsigned long c)
{
	struct ful_msg m = {.info = FUL_MSG(label, 0), .mr = {a, b, c, 0}};
	ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
}

/** Loads, stores and a system call with sp 4 bytes off its alignment;
 *  sp is restored before returning. */
static unsigned long sp_misaligned(void)
{
	unsigned long v;
	__asm__ volatile("mov x9, sp\n\t"
			 "sub x10, x9, #52\n\t" /* 52 % 16 == 4 */
			 "mov sp, x10\n\t"
			 "ldr %0, [sp]\n\t"
			 "str %0, [sp, #8]\n\t"
			 "mov x8, #1\n\t" /* FUL_SYS_YIELD */
			 "svc #0\n\t"
			 "ldr %0, [sp, #8]\n\t"
			 "mov sp, x9"
			 : "=&r"(v)
			 :
			 : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
			   "x9", "x10", "memory");
	return v;
}

/** Commit the fault @kind (address @addr); returns only if it did not
 *  happen, with whatever value it read. */
static unsigned long commit(unsigned kind, unsigned long addr)
{
	unsigned long v = 0;
	switch (kind) {
	case FLT_READ:
		v = *(volatile unsigned long *)addr;
		break;
	case FLT_WRITE:
		*(volatile unsigned long *)addr = 0xbadbadbadbadUL;
		break;
	case FLT_EXEC:
		((void (*)(void))addr)();
		break;
	case FLT_EXEC_DATA:
		((void (*)(void))(unsigned long)data_code)();
		break;
	case FLT_WRITE_TEXT:
		*(volatile unsigned int *)(unsigned long)main = 0xd503201fu;
		break;
	case FLT_UDF:
		__asm__ volatile("udf #0" ::: "memory");
		break;
	case FLT_SYSREG:
		__asm__ volatile("mrs %0, sctlr_el1" : "=r"(v)::"memory");
		break;
	case FLT_DAIF:
		__asm__ volatile("msr daifset, #2" ::: "memory");
		__asm__ volatile("mrs %0, daif" : "=r"(v)::"memory");
		break;
	case FLT_HVC:
		__asm__ volatile("hvc #0" ::: "memory");
		break;
	case FLT_BRK:
		__asm__ volatile("brk #0" ::: "memory");
		break;
	case FLT_PC_ALIGN:
		__asm__ volatile("adr x9, 1f\n\t"
				 "add x9, x9, #2\n\t"
				 "br x9\n\t"
				 "1: nop\n\t"
				 "nop" ::: "x9", "memory");
		break;
	case FLT_SP_ALIGN:
		v = sp_misaligned();
		break;
	}
	return v;
}

/** Report FLT_R_ARMED, commit the fault, report FLT_R_SURVIVED. */
static void armed_commit(void)
{
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	report(FLT_R_ARMED, kind_of(), si.cpu, si.tid);
	unsigned long v = commit(kind_of(), ful_arg1);
	report(FLT_R_SURVIVED, kind_of(), v, 0);
}

/** Answer FLT_L_PING on FLT_SLOT_EP until FLT_L_QUIT, the endpoint goes
 *  away or nobody asks for FLT_IDLE_US. */
static void ping_server(void *arg)
{
	(void)arg;
	unsigned long pings = 0;
	struct ful_msg m;
	long rc = ful_recv(FLT_SLOT_EP, &m, FLT_IDLE_US);
	while (rc >= 0) {
		unsigned long label = FUL_MSG_LABEL(m.info);
		m.mr[0] = m.mr[0] + 1;
		m.mr[1] = ++pings;
		m.info = FUL_MSG(label, 0);
		if (label == FLT_L_QUIT) {
			ful_reply(&m);
			return;
		}
		rc = ful_reply_recv(FLT_SLOT_EP, &m, FLT_IDLE_US);
	}
}

static void worker_fault(void *arg)
{
	(void)arg;
	armed_commit();
}

/** Start @fn in a worker thread on worker_cpu(), then drop the task's
 *  capability to itself. */
static bool start_worker(void (*fn)(void *), struct ful_thread *w)
{
	struct ful_thread_args a = {.fn = fn, .pool = FLT_SLOT_POOL,
				    .vs = FUL_CHILD_SLOT_VS, .prio = 100,
				    .cpu = worker_cpu(), .name = "flt-worker"};
	int err = ful_thread_spawn(&a, w);
	ful_cap_delete(FUL_CHILD_SLOT_VS);
	if (err < 0) {
		report(FLT_R_ERROR, (unsigned long)err, 1, 0);
		return false;
	}
	return true;
}

/** FLT_F_SIBLING: the worker faults, this thread lives on. */
static void sibling_mode(void)
{
	struct ful_thread w;
	struct ful_thread_info info;
	if (!start_worker(worker_fault, &w))
		return;
	while (ful_thread_info(w.slot, &info) != -FUL_EDEAD)
		ful_yield();
	report(FLT_R_SIBLING_DEAD, 0, 0, 0);
	ping_server(NULL);
}

/** FLT_F_MAIN: this thread faults, the worker lives on. */
static void main_mode(void)
{
	struct ful_thread w;
	if (!start_worker(ping_server, &w))
		return;
	report(FLT_R_WORKER_UP, w.tid, 0, 0);
	armed_commit();
}

int main(void)
{
	if (ful_arg0 & FLT_F_SIBLING)
		sibling_mode();
	else if (ful_arg0 & FLT_F_MAIN)
		main_mode();
	else
		armed_commit();
	return 0;
}
