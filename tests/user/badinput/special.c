/*
 * Cases that need state the table cannot hold: a thread without an IPC
 * buffer (message bytes it cannot send: ESTATE), threads that EXIT with
 * garbage arguments, a real reply capability (it can be saved once,
 * cannot be copied, is consumed by REPLY_TO), failed calls that must not
 * have written any of the caller's memory, and a failed MAP right after
 * a SEND left user data on the kernel stack.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bi.h"

char bi_raw_stack[1024] __attribute__((aligned(16)));

/* bi_raw_exit: EXIT with every argument register full of garbage, again
 * if it ever returned. No stack, no TLS: any thread can run it. */
__asm__(".pushsection .text.bi_raw_exit, \"ax\", %progbits\n"
	".global bi_raw_exit\n"
	".type bi_raw_exit, %function\n"
	".balign 4\n"
	"bi_raw_exit:\n"
	"	mov x0, #-1\n"
	"	mov x1, #0xffff000000000000\n"
	"	mov x2, #0x10000\n"
	"	mov x3, #255\n"
	"	mov x4, #256\n"
	"	mov x5, #-1\n"
	"	mov x6, #0\n"
	"	mov x7, #-1\n"
	"	mov x8, #2\n" /* FUL_SYS_EXIT */
	"	svc #0\n"
	"	b bi_raw_exit\n"
	".size bi_raw_exit, . - bi_raw_exit\n"
	".popsection\n");

long bi_raw_thread(unsigned slot, void (*entry)(void), unsigned long arg0,
		   unsigned long stack_top, unsigned cpu)
{
	struct ful_thread_attr a = {
		.entry = (unsigned long)entry, .sp = stack_top & ~15UL,
		.arg0 = arg0, .prio = 100, .cpu = cpu, .slice_ms = 10,
		.name = "bi-raw"};
	return ful_thread_create(H_POOL, H_VS, slot, &a);
}

/** Call @nr with @a, check for @expect (-FUL_E* or >= 0), count it. */
static void one(struct bi_run *r, unsigned nr, const unsigned long a[7],
		long expect, const char *what, unsigned flags)
{
	bi_check(r, nr, a, expect, bi_call(nr, a), what, flags);
	bi_count(r, nr);
}

#define ONE(r, nr, expect, what, flags, ...)                                \
	one((r), FUL_SYS_##nr, (const unsigned long[7]){__VA_ARGS__}, (expect), \
	    (what), (flags))

/* ---- a thread without an IPC buffer ---- */

struct noipc_res {
	long r[5];
	int done;
};

static struct noipc_res noipc;
static char noipc_stack[4096] __attribute__((aligned(16)));

/** Runs raw (no TLS): message bytes without an IPC buffer, then EXIT. */
static void noipc_main(struct noipc_res *res)
{
	res->r[0] = ful_syscall(FUL_SYS_SEND, F_EP, FUL_MSG(1, 1), 0, 0, 0, 0, 0).x0;
	res->r[1] = ful_syscall(FUL_SYS_CALL, F_EP, FUL_MSG(1, 8), 0, 0, 0, 0, 0).x0;
	res->r[2] = ful_syscall(FUL_SYS_REPLY_RECV, F_EP, FUL_MSG(1, 1), 0, 0, 0, 0, 0).x0;
	res->r[3] = ful_syscall(FUL_SYS_REPLY, 0, FUL_MSG(1, 1), 0, 0, 0, 0, 0).x0;
	res->r[4] = ful_syscall(FUL_SYS_SEND, F_EP, FUL_MSG(1, 0), 0, 0, 0, 0, 0).x0;
	__atomic_store_n(&res->done, 1, __ATOMIC_RELEASE);
	bi_raw_exit();
}

/** Wait (yielding) for *@flag; false after 20 s. */
static bool wait_flag(int *flag)
{
	unsigned long dl = ful_counter() + ful_counter_freq() * 20;
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (ful_counter() > dl)
			return false;
		ful_yield();
	}
	return true;
}

/** SEND, CALL, REPLY_RECV, REPLY with message bytes from a thread that
 *  has no IPC buffer: ESTATE; without bytes it may send (ETIMEOUT). */
static void no_ipcbuf(struct bi_run *r)
{
	static const struct { unsigned nr; long expect; const char *what; } exp[] = {
		{FUL_SYS_SEND, -FUL_ESTATE, "bytes without an IPC buffer"},
		{FUL_SYS_CALL, -FUL_ESTATE, "bytes without an IPC buffer"},
		{FUL_SYS_REPLY_RECV, -FUL_ESTATE, "bytes without an IPC buffer"},
		{FUL_SYS_REPLY, -FUL_ESTATE, "bytes without an IPC buffer"},
		{FUL_SYS_SEND, -FUL_ETIMEOUT, "no bytes, no IPC buffer: fine"},
	};
	unsigned long faults = bi_faults();
	unsigned long top = (unsigned long)noipc_stack + sizeof noipc_stack;
	long tid = bi_raw_thread(F_NOIPC, (void (*)(void))noipc_main,
				 (unsigned long)&noipc, top, 0);
	bool ok = tid >= 0 && ful_thread_start(F_NOIPC) == 0 &&
		  wait_flag(&noipc.done);
	for (unsigned i = 0; i < sizeof exp / sizeof exp[0]; i++) {
		unsigned long a[7] = {F_EP, i == 4 ? 0 : FUL_MSG(1, 1)};
		bi_check(r, exp[i].nr, a, exp[i].expect, ok ? noipc.r[i] : tid,
			 exp[i].what, 0);
		bi_count(r, exp[i].nr);
	}
	bool dead = ok && bi_wait_dead(F_NOIPC);
	unsigned long a[7] = {~0UL, ~0UL, ~0UL, ~0UL, ~0UL, ~0UL, ~0UL};
	bi_check(r, FUL_SYS_EXIT, a, 1, dead && bi_faults() == faults,
		 "garbage args: thread ends, no fault", 0);
	bi_count(r, FUL_SYS_EXIT);
	ful_cap_delete(F_NOIPC);
}

/* ---- a real reply capability ---- */

struct caller_res {
	long err;
	unsigned long mr0;
	int done;
};

/** A thread of this task that calls F_EP once. */
static void caller_main(void *arg)
{
	struct caller_res *c = arg;
	struct ful_msg m = {.info = FUL_MSG(7, 0), .mr = {0xabc}};
	c->err = ful_call(F_EP, &m, 20UL * 1000000);
	c->mr0 = m.mr[0];
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
}

/** With the call received and its reply saved in F_REPLY: everything a
 *  reply capability must refuse. */
static void reply_cap_cases(struct bi_run *r)
{
	const struct bi_values *len = &bi_kv[B_INFO_LEN], *bits = &bi_kv[B_INFO_BITS];
	ONE(r, REPLY, -FUL_ESTATE, "reply was saved away", 0, 0, 0);
	ONE(r, CAP_INFO, FUL_CAP_REPLY | FUL_R_WRITE << 8, "a reply cap", 0, F_REPLY);
	ONE(r, CAP_COPY, -FUL_ETYPE, "src is a reply cap", 0, F_REPLY, H_VS, F_FREE, FUL_R_ALL);
	ONE(r, CAP_COPY, -FUL_ETYPE, "order: reply src before dst_vs rights", BI_FIXED,
	    F_REPLY, F_SPARE_R, F_FREE, FUL_R_ALL);
	ONE(r, CAP_COPY, -FUL_ETYPE, "order: reply src before dst_vs slot", BI_FIXED,
	    F_REPLY, 40, F_FREE, FUL_R_ALL);
	ONE(r, SEND, -FUL_ETYPE, "reply cap as endpoint", 0, F_REPLY, 0);
	ONE(r, NTFN_SIGNAL, -FUL_ETYPE, "reply cap as ntfn", 0, F_REPLY, 1);
	ONE(r, THREAD_START, -FUL_ETYPE, "reply cap as thread", 0, F_REPLY);
	ONE(r, MAP, -FUL_ETYPE, "reply cap as frame", 0, F_SPARE, F_REPLY, BI_VA_FREE, FUL_R_READ);
	for (unsigned i = 0; i < len->n; i++)
		ONE(r, REPLY_TO, -FUL_ERANGE, "info len > 512", 0, F_REPLY, len->v[i]);
	for (unsigned i = 0; i < bits->n; i++)
		ONE(r, REPLY_TO, -FUL_EINVAL, "info reserved bits", 0, F_REPLY, bits->v[i]);
	ONE(r, REPLY_TO, 0, "the reply itself", 0, F_REPLY, 0, 0xdef);
	ONE(r, REPLY_TO, -FUL_EBADCAP, "reply cap used up", 0, F_REPLY, 0);
}

/** Receive a call from a helper thread, then REPLY_SAVE and the reply
 *  capability cases. */
static void reply_flow(struct bi_run *r)
{
	static struct caller_res res;
	struct ful_thread_args ta = {.fn = caller_main, .arg = &res,
				     .pool = H_POOL, .vs = H_VS, .dst = F_CALLER,
				     .prio = 100, .cpu = bi_ncpus - 1};
	struct ful_thread th = {0};
	struct ful_msg m;
	long err = ful_thread_spawn(&ta, &th);
	if (err >= 0)
		err = ful_recv(F_EP, &m, 20UL * 1000000);
	unsigned long a[7] = {F_EP};
	if (!bi_check(r, FUL_SYS_RECV, a, 0, err, "set-up: the call arrives", 0))
		return;
	const struct bi_values *dst = &bi_kv[B_DST_RANGE];
	for (unsigned i = 0; i < dst->n; i++)
		ONE(r, REPLY_SAVE, -FUL_EBADCAP, "pending: dst out of range", 0, dst->v[i]);
	ONE(r, REPLY_SAVE, -FUL_ESTATE, "pending: dst occupied", 0, F_EP);
	ONE(r, REPLY_SAVE, 0, "pending: saved", 0, F_REPLY);
	ONE(r, REPLY_SAVE, -FUL_ESTATE, "saved already", 0, F_SCRATCH);
	reply_cap_cases(r);
	bool done = wait_flag(&res.done);
	bi_check(r, FUL_SYS_CALL, a, 0xdef, done && res.err == 0 ? (long)res.mr0 : -1,
		 "the caller gets the reply", 0);
	if (done && bi_wait_dead(F_CALLER))
		free(th.mem);
	ful_cap_delete(F_CALLER);
	ful_cap_delete(F_REPLY);
}

/* ---- failed calls must not write ---- */

/** SYSINFO, THREAD_INFO and POOL_INFO into a range that runs off the map: EFAULT,
 *  and the mapped part left alone. */
static void partial_writes(struct bi_run *r)
{
	volatile unsigned long *tail =
		(volatile unsigned long *)(BI_IPCBUF + FUL_PAGE_SIZE - 8);
	const long sentinel = 0x5a5a1234a5a5L;
	unsigned long a[7] = {(unsigned long)tail};

	*tail = (unsigned long)sentinel;
	ONE(r, SYSINFO, -FUL_EFAULT, "info runs off the map", 0, (unsigned long)tail);
	bi_check(r, FUL_SYS_SYSINFO, a, sentinel, (long)*tail,
		 "failed call wrote the mapped part", BI_FIXED);
	bi_count(r, FUL_SYS_SYSINFO);

	*tail = (unsigned long)sentinel;
	ONE(r, THREAD_INFO, -FUL_EFAULT, "info runs off the map", 0, F_THREAD_R,
	    (unsigned long)tail);
	a[0] = F_THREAD_R, a[1] = (unsigned long)tail;
	bi_check(r, FUL_SYS_THREAD_INFO, a, sentinel, (long)*tail,
		 "failed call wrote the mapped part", 0);
	bi_count(r, FUL_SYS_THREAD_INFO);

	*tail = (unsigned long)sentinel;
	ONE(r, POOL_INFO, -FUL_EFAULT, "info runs off the map", 0, F_POOL_R,
	    (unsigned long)tail);
	a[0] = F_POOL_R, a[1] = (unsigned long)tail;
	bi_check(r, FUL_SYS_POOL_INFO, a, sentinel, (long)*tail,
		 "failed call wrote the mapped part", 0);
	bi_count(r, FUL_SYS_POOL_INFO);
}

/*
 * Stale kernel stack (the sys_map bug fixed in c84c347): a failed frame
 * lookup left sys_map's local capability uninitialised and it was
 * released anyway. Its stack bytes are what the previous system call
 * left: SEND's staged message, so MR1's low byte became its type and MR3
 * its object, and the kernel obj_put() an address user space chose. Here
 * a counted type and an object at 0x8: a kernel with the bug takes a data
 * abort (an IRQ between the two calls may clobber the slot, hence the
 * rounds); a fixed one answers EBADCAP.
 */
static void stale_stack(struct bi_run *r)
{
	for (unsigned round = 0; round < 16; round++) {
		ful_syscall(FUL_SYS_SEND, F_EP, 0, FUL_CAP_FRAME, FUL_CAP_FRAME,
			    FUL_CAP_FRAME, 0x8, 0);
		ONE(r, MAP, -FUL_EBADCAP, "stale stack: frame slot empty",
		    BI_FIXED, F_SPARE, 40, BI_VA_FREE, FUL_R_READ);
	}
}

void bi_run_special(struct bi_run *r)
{
	no_ipcbuf(r);
	reply_flow(r);
	partial_writes(r);
	stale_stack(r);
}
