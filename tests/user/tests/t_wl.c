/*
 * workloads: paper 001's workload programs (user/workloads, run by
 * ubench=alb) at 1 % of their benchmark work, as processes:
 *   workloads       each program with one thread per core, its threads
 *                   placed by this program's own balancer (policy alb,
 *                   served to the child: bal_serve_start): it exits 0
 *                   (every thread computed its workload's checksum), the
 *                   balancer's log names each of its threads in a
 *                   placement, never on this program's core, and the served
 *                   counts grew by as many PLACE and SETTLE requests
 *   workloads_args  bad arguments (no threads, too many, an unknown
 *                   word) exit 2 without starting anything; a program
 *                   started with this program's own placement capability
 *                   (the rootserver's balancer) runs to its end too
 *   workloads_reclaimed  a process that made threads (it holds its own
 *                   vspace) gives its pool's bytes back after its end and
 *                   after a kill in the middle of its work (TASK_KILL
 *                   drops its capability to itself)
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <ful/posix.h>

#include "user/balancer/balancer.h"
#include "utest.h"

static const char *const wlt_all[] = {"lz77", "crc", "queens", "matmul",
				      "memcpy"};

/** Run @name with @argv (argv[0] its name) and placement capability
 *  @place (0: ours): its exit status, or -1 if it did not end. */
static int wlt_run(char *const argv[], unsigned place)
{
	struct ful_proc p;
	struct ful_proc_attr a = {.cpu = 0, .pool_kib = 256, .place = place};
	if (ful_proc_spawn(argv[0], argv, &a, &p))
		return -1;
	int st;
	if (ful_proc_wait(&p, &st, UT_TIMEOUT_US)) {
		ful_proc_kill(&p);
		return -1;
	}
	return st;
}

/** The placements logged from @from on that name a thread, and in
 *  *@cores the cores they chose (a mask). */
static unsigned wlt_placed(unsigned long from, unsigned *cores)
{
	unsigned n = 0;
	*cores = 0;
	for (unsigned long s = from; s < bal_log_next(); s++) {
		const struct lb_decision *d = lb_log_get(bal_log(), s);
		if (d && d->kind == LB_KIND_PLACE && d->nmoves &&
		    d->move[0].tid) {
			n++;
			*cores |= 1u << d->move[0].to;
		}
	}
	return n;
}

UTEST(workloads, 1)
{
	unsigned n = ut_ncpus() < 8 ? ut_ncpus() : 8;
	char th[16];
	snprintf(th, sizeof(th), "threads=%u", n);
	struct ful_sysinfo si;
	UT_CHECK_EQ(ful_sysinfo(&si), 0);
	UT_CHECK_EQ(bal_init("alb"), 0);
	long place = bal_serve_start();
	UT_CHECK(place > 0);
	for (unsigned k = 0; k < sizeof(wlt_all) / sizeof(wlt_all[0]); k++) {
		char *argv[] = {(char *)wlt_all[k], th, "scale=1", "-v", NULL};
		struct bal_serve_stats s0, s1;
		bal_serve_stats(&s0, false);
		unsigned long from = bal_log_next();
		UT_CHECK_EQ(wlt_run(argv, (unsigned)place), 0);
		bal_serve_stats(&s1, false);
		UT_CHECK_EQ(s1.places - s0.places, n);
		UT_CHECK_EQ(s1.settled - s0.settled, n);
		/* which cores depends on how far the threads before had
		 * got (at 1 % they may end before the next one is placed);
		 * never this program's core, which the policy leaves out */
		unsigned mask;
		UT_CHECK_EQ(wlt_placed(from, &mask), n);
		UT_CHECK(mask != 0);
		UT_CHECK(ut_ncpus() == 1 || !(mask & 1u << si.cpu));
	}
}

UTEST(workloads_args, 1)
{
	static char *const bad[][3] = {{"crc", "threads=0", NULL},
				       {"crc", "threads=9", NULL},
				       {"queens", "nice=20", NULL},
				       {"lz77", "fast", NULL},
				       {"memcpy", "scale=", NULL}};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st = wlt_run(bad[i], 0);
		UT_CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2);
	}
	char *ok[] = {"queens", "threads=2", "nice=3", "scale=1", NULL};
	UT_CHECK_EQ(wlt_run(ok, 0), 0);
}

/** Bytes charged to our pool now. */
static unsigned long wlt_used(void)
{
	struct ful_pool_info pi = {0};
	ful_pool_info(FUL_SLOT_POOL, &pi);
	return pi.used;
}

UTEST(workloads_reclaimed, 1)
{
	/* A process with threads holds its own vspace; its end (and a kill
	 * in the middle of its work) must still give every byte back. */
	char *ok[] = {"crc", "threads=3", "scale=1", NULL};
	UT_CHECK_EQ(wlt_run(ok, 0), 0);
	unsigned long before = wlt_used();
	UT_CHECK_EQ(wlt_run(ok, 0), 0);
	UT_WAIT(wlt_used() <= before);
	char *slow[] = {"matmul", "threads=3", "scale=10000", NULL};
	struct ful_proc p;
	struct ful_proc_attr a = {.cpu = 0, .pool_kib = 256};
	UT_CHECK_EQ(ful_proc_spawn("matmul", slow, &a, &p), 0);
	int st;
	UT_CHECK_EQ(ful_proc_wait(&p, &st, 50000), -FUL_ETIMEOUT);
	UT_CHECK_EQ(ful_proc_kill(&p), 0);
	UT_WAIT(wlt_used() <= before);
}
