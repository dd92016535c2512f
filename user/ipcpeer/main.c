/*
 * ipcpeer: the two ends of the IPC benchmarks (see ubench.c).
 *
 * Windows (PMCCNTR, one per instruction under -icount shift=0), as
 * sel4bench defines its one-way figures: the receiver's counter read
 * right after its svc returns minus the sender's read right before its
 * svc (registers already loaded), minus the cost of one counter read:
 *   call  = client's svc (CALL) to the server's REPLY_RECV return;
 *   reply = server's svc (REPLY_RECV) to the client's CALL return.
 * The server stamps the first in MR0 and the start of the second in MR1
 * of every reply. Under icount the counter is one instruction count for
 * the whole machine, so a cross-core window counts both cores' paths.
 */
#include <stdio.h>

#include <ful/ful.h>

#include "ipcpeer.h"

#define EP 4 /* FUL_CHILD_SLOT_ARG0 */

static const char *const bench_names[][2] = {
	{"ipc_call_same_core", "ipc_reply_same_core"},
	{"ipc_call_cross_core", "ipc_reply_cross_core"},
	{"ipc_call_short_same_core", "ipc_reply_short_same_core"},
	{"ipc_call_short_cross_core", "ipc_reply_short_cross_core"},
	/* the short same-core pair, booted with fastpath=0 */
	{"ipc_call_short_slowpath", "ipc_reply_short_slowpath"},
};

static unsigned long samples[2][PEER_MAX_RUNS];

/**
 * System call @nr with @m's message (CALL or REPLY_RECV on @ep, waiting
 * forever) that reads the cycle counter right before its svc (*@before)
 * and right after it returns (*@after): nothing but the svc between.
 * The reply or received message replaces @m. Returns x0.
 */
static long svc_timed(unsigned long nr, unsigned ep, struct ful_msg *m,
		      unsigned long *before, unsigned long *after)
{
	register unsigned long x0 __asm__("x0") = ep;
	register unsigned long x1 __asm__("x1") = m->info;
	register unsigned long x2 __asm__("x2") = m->mr[0];
	register unsigned long x3 __asm__("x3") = m->mr[1];
	register unsigned long x4 __asm__("x4") = m->mr[2];
	register unsigned long x5 __asm__("x5") = m->mr[3];
	register unsigned long x6 __asm__("x6") = FUL_FOREVER;
	register unsigned long x7 __asm__("x7") = 0;
	register unsigned long x8 __asm__("x8") = nr;
	unsigned long t0, t1;
	__asm__ volatile("isb\n\tmrs %9, pmccntr_el0\n\tisb\n\t"
			 "svc #0\n\t"
			 "isb\n\tmrs %10, pmccntr_el0\n\tisb"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4),
			   "+r"(x5), "+r"(x6), "+r"(x7), "+r"(x8),
			   "=&r"(t0), "=&r"(t1)
			 :
			 : "memory");
	*before = t0;
	*after = t1;
	if ((long)x0 >= 0)
		*m = (struct ful_msg){.badge = x1, .info = x6,
				      .mr = {x2, x3, x4, x5}};
	return (long)x0;
}

static _Noreturn void server(void)
{
	struct ful_msg m = {0};
	unsigned long t1 = 0, t2 = 0;
	if (ful_recv(EP, &m, FUL_FOREVER) < 0)
		ful_exit();
	t1 = ful_cycles();
	for (;;) {
		/* this reply carries the arrival of the call just received
		 * (t1) and the departure of the previous reply (t2) */
		m.mr[0] = t1;
		m.mr[1] = t2;
		m.info = FUL_MSG(0, FUL_MSG_LEN(m.info));
		if (svc_timed(FUL_SYS_REPLY_RECV, EP, &m, &t2, &t1) < 0)
			ful_exit();
	}
}

static void client(unsigned long arg)
{
	unsigned len = PEER_LEN(arg), runs = PEER_RUNS(arg);
	unsigned long id = PEER_ID(arg), ovh = ful_cycles_overhead();
	unsigned char *buf = ful_ipcbuf();
	if (runs > PEER_MAX_RUNS || id >= 5)
		return;
	for (unsigned i = 0; i < len; i++)
		buf[i] = (unsigned char)i;
	unsigned long t3_prev = 0;
	for (int i = -PEER_WARMUP; i <= (int)runs; i++) {
		struct ful_msg m = {.info = FUL_MSG(1, len)};
		unsigned long t0, t3;
		long err = svc_timed(FUL_SYS_CALL, EP, &m, &t0, &t3);
		if (err < 0 || FUL_MSG_LEN(m.info) != len) {
			printf("ipcpeer: call failed: %ld\n", err);
			return;
		}
		/* mr0: this call's arrival; mr1: the departure of the
		 * previous reply, which arrived at t3_prev */
		if (i >= 0 && i < (int)runs)
			samples[0][i] = m.mr[0] - t0 - ovh;
		if (i > 0)
			samples[1][i - 1] = t3_prev - m.mr[1] - ovh;
		t3_prev = t3;
	}
	ful_bench_print(bench_names[id][0], "instructions", samples[0], runs);
	ful_bench_print(bench_names[id][1], "instructions", samples[1], runs);
}

/** Round trips for the multi-threaded TCG ratio: total counter ticks. */
static unsigned long rtt(unsigned long n)
{
	unsigned long t0 = ful_counter();
	for (unsigned long i = 0; i < n; i++) {
		struct ful_msg m = {.info = FUL_MSG(1, 0)};
		if (ful_call(EP, &m, FUL_FOREVER) < 0)
			return 0;
	}
	return ful_counter() - t0;
}

int main(void)
{
	struct ful_msg done = {.info = FUL_MSG(0, 0)};
	switch (ful_arg0) {
	case PEER_SERVER:
		server();
	case PEER_CLIENT:
		client(ful_arg1);
		break;
	case PEER_RTT:
		done.mr[0] = rtt(ful_arg1);
		break;
	default:
		return 1;
	}
	ful_send(FUL_CHILD_SLOT_REPORT, &done, FUL_FOREVER);
	return 0;
}
