/*
 * ipcpeer: the two ends of the IPC benchmarks (see ubench.c).
 *
 * Windows (PMCCNTR, one per instruction under -icount shift=0):
 *   call  = from just before the client's svc (CALL) to just after the
 *           server's REPLY_RECV returns with the message;
 *   reply = from just before the server's svc (REPLY_RECV) to just after
 *           the client's CALL returns with the reply.
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
};

static unsigned long samples[2][PEER_MAX_RUNS];

static _Noreturn void server(void)
{
	struct ful_msg m = {0};
	unsigned long t1 = 0, t2;
	if (ful_recv(EP, &m, FUL_FOREVER) < 0)
		ful_exit();
	for (;;) {
		t1 = ful_cycles();
		m.mr[0] = t1;
		m.info = FUL_MSG(0, FUL_MSG_LEN(m.info));
		t2 = ful_cycles();
		m.mr[1] = t2;
		if (ful_reply_recv(EP, &m, FUL_FOREVER) < 0)
			ful_exit();
	}
}

static void client(unsigned long arg)
{
	unsigned len = PEER_LEN(arg), runs = PEER_RUNS(arg);
	unsigned long id = PEER_ID(arg), ovh = ful_cycles_overhead();
	unsigned char *buf = ful_ipcbuf();
	if (runs > PEER_MAX_RUNS || id >= 4)
		return;
	for (unsigned i = 0; i < len; i++)
		buf[i] = (unsigned char)i;
	for (int i = -PEER_WARMUP; i < (int)runs; i++) {
		struct ful_msg m = {.info = FUL_MSG(1, len)};
		unsigned long t0 = ful_cycles();
		long err = ful_call(EP, &m, FUL_FOREVER);
		unsigned long t3 = ful_cycles();
		if (err < 0 || FUL_MSG_LEN(m.info) != len) {
			printf("ipcpeer: call failed: %ld\n", err);
			return;
		}
		if (i >= 0) {
			samples[0][i] = m.mr[0] - t0 - ovh;
			samples[1][i] = t3 - m.mr[1] - ovh;
		}
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
