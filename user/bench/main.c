/*
 * The user-level benchmarks as a program of their own, started by the
 * rootserver as a system program (<ful/ful.h>) with ubench=<which>:
 *   ubench=ipc    one-way IPC windows (deterministic under -icount):
 *                 256-byte and register-only messages, client and server
 *                 in different tasks, on one core (1) or two (1 and 2)
 *   ubench=mttcg  cross-core / same-core round-trip time ratio, measured
 *                 with the system counter under multi-threaded TCG
 *   ubench=lb     balancing decisions on a fabricated load area (ub_lb.c)
 *   ubench=migrate  migrate_running: moving a thread running in user
 *                 mode, up to it running on its new core (ub_migrate.c)
 *   ubench=frame  FRAME_CREATE of 1, 64 and the most pages: the longest
 *                 system call (IRQs masked throughout; ub_frame.c)
 *   ubench=sys    null_syscall, signal_high_prio, map_16_pages and
 *                 map_1024_pages: seL4's published rows (ub_sys.c)
 *   ubench=matmul paper 000's matrix-multiplication experiment, balancing
 *                 off / mginkgo / fulcrum (ub_matmul.c; 3 or 4 cores)
 *   ubench=alb    paper 001's workloads (wl_*.c) under count and alb:
 *                 completion, migrations, imbalance (ub_alb.c)
 *   ubench=wake   wake-up latency of a pinned top-priority thread under
 *                 stress, per policy: paper 004's Figure 7 (ub_wake.c)
 *   ubench=files  F from a client: 4 KiB cached reads through the ring
 *                 and over IPC; files_mttcg: ring vs IPC round trips
 *                 (ub_files.c; boot arguments disk,cache=N,fs)
 *   ubench=forms / postmark / bonnie  paper 002's Figures 5, 7 and 8-10
 *                 over the 15 distribution forms (ub_storage.c)
 * With boot argument bench_quick, any of them at its smallest count
 * (ub.h; make bench-smoke).
 * Peers are the ipcpeer program (user/ipcpeer). This program waits on an
 * endpoint meanwhile, and so does the rootserver for it, so their core is
 * idle while windows are measured. At the end it says "done" on
 * FUL_SYSPROG_SLOT_DONE and the rootserver powers the machine off.
 */
#include <stdio.h>
#include <string.h>

#include <ful/spawn.h>

#include "../ipcpeer/ipcpeer.h"
#include "tests/user/tests/utest.h"
#include "ub.h"

#define BENCH_RUNS 50

#define RTT_CALLS 2000
#define RTT_REPEATS 5

bool ub_quick;

struct pair {
	struct ful_task server, client;
	long ep, report;
};

/** Wait until the thread in @slot is blocked (the server in its first
 *  receive). false after UT_TIMEOUT_US. */
static bool wait_blocked(unsigned slot)
{
	unsigned long dl = ful_counter() + ful_us_to_ticks(UT_TIMEOUT_US);
	struct ful_thread_info info;
	while (ful_thread_info(slot, &info) == 0 && info.state != FUL_TS_BLOCKED)
		if (ful_counter() > dl)
			return false;
		else
			ful_yield();
	return info.state == FUL_TS_BLOCKED;
}

/** Start a server on @scpu and a client on @ccpu (mode, arg) and wait
 *  for the client's report; its MR0 in *@result. 0 or -FUL_E*. */
static long run_pair(unsigned ccpu, unsigned scpu, unsigned long mode,
		     unsigned long arg, unsigned long *result)
{
	struct pair p = {.ep = ut_ep_new(), .report = ut_ep_new()};
	int mod = ful_module_find("ipcpeer");
	if (p.ep < 0 || p.report < 0 || mod < 0)
		return -FUL_ENOMEM;
	struct ful_cap_grant g = {.src = (unsigned)p.ep, .dst = 4,
				  .rights = FUL_R_ALL};
	struct ful_spawn_args sa = {.module = (unsigned)mod, .cpu = scpu,
				    .prio = 100, .arg0 = PEER_SERVER,
				    .caps = &g, .ncaps = 1};
	long err = ful_spawn(&sa, &p.server);
	if (!err && !wait_blocked(p.server.thread))
		err = -FUL_ETIMEOUT;
	struct ful_spawn_args ca = sa;
	ca.cpu = ccpu;
	ca.arg0 = mode;
	ca.arg1 = arg;
	ca.report_ep = (unsigned)p.report;
	if (!err)
		err = ful_spawn(&ca, &p.client);
	struct ful_msg m;
	if (!err)
		err = ful_recv((unsigned)p.report, &m, UT_TIMEOUT_US * 3);
	if (!err)
		*result = m.mr[0];
	ful_task_destroy(&p.client);
	ful_task_destroy(&p.server);
	ful_slot_drop((unsigned)p.ep);
	ful_slot_drop((unsigned)p.report);
	return err;
}

/** The deterministic one-way windows; returns how many BENCH lines. */
static unsigned ubench_ipc(const char *which)
{
	static const struct { unsigned len, cross, id; } runs[] = {
		{256, 0, 0}, {256, 1, 1}, {0, 0, 2}, {0, 1, 3},
	};
	char fp[8];
	/* Booted with fastpath=0: the short same-core pair only, under its
	 * own names (ipc_*_short_slowpath), beside the fastpath's. */
	bool slow = ut_bootarg("fastpath", fp, sizeof fp) && fp[0] == '0';
	unsigned lines = 0;
	if (slow) {
		unsigned long r;
		long err = run_pair(1, 1, PEER_CLIENT,
				    PEER_ARG(0, BENCH_RUNS, 4), &r);
		if (err)
			printf("ubench: ipc slowpath run failed: %ld\n", err);
		return err ? 0 : 2;
	}
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		unsigned long r;
		/* ubench=same / ubench=cross: one kind only (for profiling) */
		if ((!strcmp(which, "same") && runs[i].cross) ||
		    (!strcmp(which, "cross") && !runs[i].cross))
			continue;
		long err = run_pair(1, runs[i].cross ? 2 : 1, PEER_CLIENT,
				    PEER_ARG(runs[i].len, BENCH_RUNS, runs[i].id),
				    &r);
		if (err)
			printf("ubench: ipc run %u failed: %ld\n", i, err);
		else
			lines += 2;
	}
	return lines;
}

/** Cross-core over same-core round-trip time, in percent, RTT_REPEATS
 *  times, each pair of runs back to back in this boot. */
static unsigned ubench_mttcg(void)
{
	unsigned long ratio[RTT_REPEATS];
	for (unsigned i = 0; i < RTT_REPEATS; i++) {
		unsigned long same = 0, cross = 0;
		if (run_pair(1, 1, PEER_RTT, RTT_CALLS, &same) ||
		    run_pair(1, 2, PEER_RTT, RTT_CALLS, &cross) || !same) {
			printf("ubench: mttcg run %u failed\n", i);
			return 0;
		}
		ratio[i] = cross * 100 / same;
		printf("ubench: %u round trips: same core %lu ticks, cross core "
		       "%lu ticks\n", RTT_CALLS, same, cross);
	}
	ful_bench_print("ipc_rtt_cross_over_same_mttcg", "percent", ratio,
			RTT_REPEATS);
	return 1;
}

/** Run the benchmarks @which names; prints BENCH lines, then BENCH-DONE. */
static void ubench_run(const char *which)
{
	unsigned n = 0;
	if (!strcmp(which, "lb")) {
		n = ub_lb_run();
	} else if (!strcmp(which, "migrate") && ut_ncpus() >= 2) {
		n = ub_migrate_run();
	} else if (!strcmp(which, "frame")) {
		n = ub_frame_run();
	} else if (!strcmp(which, "sys")) {
		n = ub_sys_run();
	} else if (!strcmp(which, "disk")) {
		n = ub_disk_run();
	} else if (!strcmp(which, "forms") || !strcmp(which, "postmark") ||
		   !strcmp(which, "bonnie") || !strcmp(which, "forms_mttcg") ||
		   !strcmp(which, "forms_b") || !strcmp(which, "bonnie_split")) {
		n = ub_storage_run(which);
	} else if (!strcmp(which, "files")) {
		n = ub_files_run(false);
	} else if (!strcmp(which, "files_mttcg")) {
		n = ub_files_run(true);
	} else if (!strcmp(which, "cache")) {
		n = ub_cache_run();
	} else if (!strcmp(which, "wake") && ut_ncpus() >= 2) {
		n = ub_wake_run();
	} else if (ut_ncpus() < 3) {
		printf("ubench: needs at least 3 cores\n");
	} else if (!strcmp(which, "mttcg")) {
		n = ubench_mttcg();
	} else if (!strcmp(which, "matmul")) {
		n = ub_matmul_run();
	} else if (!strcmp(which, "alb")) {
		n = ub_alb_run();
	} else {
		n = ubench_ipc(which);
	}
	printf("BENCH-DONE %u\n", n);
}

int main(void)
{
	char which[64] = "ipc", quick[8];
	ful_slot_init(ful_bootinfo()->first_free_slot);
	ut_bootarg("ubench", which, sizeof(which));
	ub_quick = ut_bootarg("bench_quick", quick, sizeof(quick));
	if (!ut_wait_alone())
		printf("bench: my core is not quiet at the start\n");
	ubench_run(which);
	struct ful_msg m = {0};
	ful_send(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	return 0;
}
