/* Host tests of the utilization figures in the policy snapshot
 * (LB_NEED_ALL: per-core sliding utilization, the online average, a
 * thread's window usage), on the fabricated area of lb_fake.c. */
#define HTEST_MAIN
#include "host_test.h"

#include "lb.h"
#include "lb_fake.h"

static struct ful_load_page area;
static struct lb_snap snap;
static struct lb_loads loads;

#define W 1000ul /* window length in counter ticks */

static void setup(unsigned ncpus)
{
	lb_fake_init(&area, ncpus);
	lb_fake_util_par(&area, 0, W, 0);
	lb_snap_init(&snap, &area, 0);
}

static void refresh(unsigned long now)
{
	lb_snap_refresh(&snap, now, LB_NEED_ALL, LB_SNAP_TUNABLES(0, 20),
			&loads);
}

HTEST(snapshot_cpu_util_and_average)
{
	setup(4);
	/* core 0: busy since 5000 (window 5), its last window 600 permille;
	 * core 1: idle since 2300 (tickless), window 2 had 300 busy so far;
	 * core 2: published at 5000, 400 busy of window 5 so far, idle
	 * since; core 3: nothing ever. */
	lb_fake_cpu_util(&area, 0, 5000, 0, 0, 0, 600, 0);
	lb_fake_cpu_util(&area, 1, 2300, 1, 300, 2000, 1000, 0);
	lb_fake_cpu_util(&area, 2, 5400, 1, 400, 0, 0, 0);
	lb_fake_cpu_util(&area, 3, 0, 1, 0, 0, 0, 0);
	refresh(5500);
	CHECK_EQ(snap.util[0].short_pm, 500 + 300); /* 500 + half of 600 */
	CHECK_EQ(snap.util[1].short_pm, 0);           /* idle 3 windows */
	CHECK_EQ(snap.util[2].short_pm, 400);         /* 400 so far */
	CHECK_EQ(snap.util[3].short_pm, 0);
	CHECK_EQ(snap.util_avg_short, 300);            /* 1200 / 4 */
	/* long windows (10 000): the current one so far, none before */
	CHECK_EQ(snap.util[1].long_pm, 230);           /* 2300 of 10 000 */
	CHECK_EQ(snap.util[0].long_pm, 50);            /* 500 */
	CHECK_EQ(snap.util[2].long_pm, 40);
	/* 5 windows later: core 0 busy throughout, the last long window
	 * (0..10 000) had 5000 busy: sliding at 10 500 = 500 + 950 * 500 */
	refresh(10500);
	CHECK_EQ(snap.util[0].short_pm, 1000);
	CHECK_EQ(snap.util[0].long_pm, (500 + 9500 * 500 / 1000) / 10);
	/* the average follows the cores online */
	area.hdr.ncpus = 2;
	refresh(5500);
	CHECK_EQ(snap.util_avg_short, 400);
}

HTEST(snapshot_thread_window_usage)
{
	setup(2);
	lb_fake_add(&area, 7, 1, 10, FUL_TS_RUNNING);
	lb_fake_thread_util(&area, 7, 3, 250, 990);
	unsigned long cur, last;
	refresh(3999);
	CHECK(lb_snap_thread_util(&snap, 7, &cur, &last));
	CHECK_EQ(cur, 250);
	CHECK_EQ(last, 990);
	refresh(4000); /* the next window: it has not run in it yet */
	CHECK(lb_snap_thread_util(&snap, 7, &cur, &last));
	CHECK_EQ(cur, 0);
	CHECK_EQ(last, 250);
	refresh(5000);
	CHECK(lb_snap_thread_util(&snap, 7, &cur, &last));
	CHECK_EQ(cur + last, 0);
	/* not live */
	CHECK(!lb_snap_thread_util(&snap, 8, &cur, &last));
	lb_fake_kill(&area, 7);
	CHECK(!lb_snap_thread_util(&snap, 7, &cur, &last));
}

HTEST(snapshot_without_windows_reads_zero)
{
	setup(2);
	lb_fake_util_par(&area, 0, 0, 0); /* an area older than version 3 */
	lb_fake_cpu_util(&area, 0, 100, 0, 0, 0, 0, 0);
	refresh(5000);
	CHECK_EQ(snap.util[0].short_pm, 0);
	CHECK_EQ(snap.util_avg_long, 0);
	unsigned long cur, last;
	lb_fake_add(&area, 3, 0, 10, FUL_TS_READY);
	CHECK(!lb_snap_thread_util(&snap, 3, &cur, &last));
}
