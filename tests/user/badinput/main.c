/*
 * badinput: calls every system call with bad arguments and checks the
 * documented error of each (see report.h for how the rootserver starts
 * it and what it reports, bi.h for the layout).
 *
 * Start-up moves the capabilities the rootserver granted (slots 1..5) to
 * hidden slots, then builds the fixtures the cases name: endpoints,
 * notifications, frames, a second task, reduced-rights copies, a thread
 * that never runs and one that has exited. Before it reports, it kills
 * its helper threads and deletes every capability to its own vspace, so
 * the task is freed once its thread ends.
 */
#include <stdio.h>
#include <string.h>

#include "bi.h"

static struct bi_report report;

long bi_call(unsigned long nr, const unsigned long a[7])
{
	return ful_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5], a[6]).x0;
}

/** Print one mismatch line (the first few of a run). */
static void print_mismatch(const struct bi_mismatch *m, unsigned flags)
{
	printf("badinput: %s %s(%lu) [%s]: expected %ld, got %ld; args %lx %lx "
	       "%lx %lx %lx %lx %lx\n",
	       (flags & BI_FIXED) ? "REGRESSION" : "MISMATCH",
	       bi_call_name(bi_nr_index(m->nr)),
	       m->nr, m->what, m->expected, m->got, m->args[0], m->args[1],
	       m->args[2], m->args[3], m->args[4], m->args[5], m->args[6]);
}

bool bi_check(struct bi_run *r, unsigned long nr, const unsigned long a[7],
	      long expect, long got, const char *what, unsigned flags)
{
	if (got == expect)
		return true;
	struct bi_mismatch m = {.nr = nr, .expected = expect, .got = got};
	memcpy(m.args, a, sizeof m.args);
	strncpy(m.what, what, sizeof m.what - 1);
	if (r->rep->mismatches++ == 0)
		r->rep->first = m;
	if (flags & BI_FIXED)
		r->rep->regressions++;
	if (r->printed < 24) {
		r->printed++;
		print_mismatch(&m, flags);
	}
	return false;
}

void bi_count(struct bi_run *r, unsigned long nr)
{
	unsigned i = bi_nr_index(nr);
	r->rep->per_call[i]++;
	if (r->count_cases)
		r->rep->cases++;
}

unsigned long bi_faults(void)
{
	struct ful_sysinfo si;
	return ful_sysinfo(&si) < 0 ? ~0UL : si.faults;
}

bool bi_wait_dead(unsigned slot)
{
	unsigned long dl = ful_counter() + ful_counter_freq() * 20;
	struct ful_thread_info info;
	while (ful_thread_info(slot, &info) != -FUL_EDEAD) {
		if (ful_counter() > dl)
			return false;
		ful_yield();
	}
	return true;
}

/* Set-up steps record the first failure here. */
#define SETUP(expr)                                                    \
	do {                                                           \
		long e_ = (expr);                                      \
		if (e_ < 0 && !report.setup_line) {                    \
			report.setup_line = __LINE__;                  \
			report.setup_err = (int)e_;                    \
		}                                                      \
	} while (0)

/** Move the granted caps (slots 1..6) to the hidden slots. */
static void move_granted(void)
{
	SETUP(ful_cap_copy(1, 1, H_VS, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(2, H_VS, H_THREAD, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(3, H_VS, H_REPORT, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(4, H_VS, H_POOL, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(5, H_VS, H_SCHED, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(6, H_VS, H_CONS, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(7, H_VS, H_IRQCTL, FUL_R_ALL, 0));
	SETUP(ful_cap_copy(8, H_VS, H_DEVMEM, FUL_R_ALL, 0));
	for (unsigned s = 1; s <= 8; s++)
		SETUP(ful_cap_delete(s));
}

/** Copy @src to @dst in this task with @rights and @badge. */
static long copy(unsigned src, unsigned dst, unsigned rights,
		 unsigned long badge)
{
	return ful_cap_copy(src, H_VS, dst, rights, badge);
}

/** Endpoint, notification and frame fixtures with their rights copies. */
static void make_objects(void)
{
	SETUP(ful_ep_create(H_POOL, F_EP));
	SETUP(copy(F_EP, F_EP_R, FUL_R_READ, 0));
	SETUP(copy(F_EP, F_EP_W, FUL_R_WRITE, 0));
	SETUP(copy(F_EP, F_EP_NONE, 0, 0));
	SETUP(copy(F_EP, F_EP_BADGED, FUL_R_ALL, 0x55));
	SETUP(ful_ntfn_create(H_POOL, F_NTFN));
	SETUP(copy(F_NTFN, F_NTFN_R, FUL_R_READ, 0));
	SETUP(copy(F_NTFN, F_NTFN_W, FUL_R_WRITE, 0));
	SETUP(copy(F_NTFN, F_NTFN_BADGED, FUL_R_ALL, 0x5));
	SETUP(ful_frame_create(H_POOL, F_FRAME, 1));
	SETUP(copy(F_FRAME, F_FRAME_R, FUL_R_READ, 0));
	SETUP(copy(F_FRAME, F_FRAME_W, FUL_R_WRITE, 0));
	SETUP(ful_frame_create(H_POOL, F_FRAME2, 2));
	SETUP(ful_vspace_create(H_POOL, F_SPARE));
	SETUP(copy(F_SPARE, F_SPARE_R, FUL_R_READ | FUL_R_WRITE | FUL_R_EXEC, 0));
	SETUP(ful_map(F_SPARE, F_FRAME2, BI_SPARE_VA_RW, FUL_R_READ | FUL_R_WRITE));
	SETUP(ful_map(F_SPARE, F_FRAME_R, BI_SPARE_VA_RO, FUL_R_READ));
	SETUP(copy(H_POOL, F_POOL_R, FUL_R_READ, 0));
	SETUP(copy(H_POOL, F_POOL_NONE, 0, 0));
	SETUP(copy(H_SCHED, F_SCHED_R, FUL_R_READ, 0));
	SETUP(copy(H_THREAD, F_THREAD_R, FUL_R_READ, 0));
	SETUP(copy(H_CONS, F_CONS_NONE, 0, 0));
}

/** Device fixtures: reduced copies of the IRQ control and the device
 *  region, a DMA frame, and two handlers of SPIs nobody else holds (the
 *  first free ones from the region's own: other badinput tasks run at
 *  the same time), one bound to a notification of its own. The SPIs are
 *  those of virtio-mmio transports without a device: they never fire. */
static void make_devices(void)
{
	struct ful_devmem_info di;
	SETUP(copy(H_IRQCTL, F_IRQCTL_R, FUL_R_READ | FUL_R_WRITE, 0));
	SETUP(copy(H_DEVMEM, F_DEVMEM_R, FUL_R_READ, 0));
	SETUP(copy(H_DEVMEM, F_DEVMEM_NONE, 0, 0));
	SETUP(ful_dma_create(H_POOL, F_DMA, 1));
	SETUP(ful_pwin_create(H_POOL, F_PWIN, 2));
	SETUP(copy(F_PWIN, F_PWIN_RW, FUL_R_READ | FUL_R_WRITE, 0));
	SETUP(ful_map(F_SPARE, F_PWIN, BI_SPARE_VA_PWIN,
		      FUL_R_READ | FUL_R_WRITE));
	SETUP(ful_devmem_info(H_DEVMEM, &di));
	unsigned long intid = di.intid;
	while (intid < di.intid + 32 &&
	       ful_irq_get(H_IRQCTL, F_IRQ, intid) == -FUL_ESTATE)
		intid++;
	bi_intid = intid;
	SETUP(ful_cap_info(F_IRQ));
	while (++intid < di.intid + 32 &&
	       ful_irq_get(H_IRQCTL, F_IRQ_BOUND, intid) == -FUL_ESTATE)
		;
	SETUP(ful_cap_info(F_IRQ_BOUND));
	SETUP(copy(F_IRQ, F_IRQ_R, FUL_R_READ, 0));
	SETUP(ful_ntfn_create(H_POOL, F_IRQ_NTFN));
	SETUP(ful_irq_bind(F_IRQ_BOUND, F_IRQ_NTFN, 1));
}

/** The thread fixtures: one never started, one that has exited (the
 *  EXIT case: it calls EXIT with garbage in every argument). */
static void make_threads(struct bi_run *r)
{
	unsigned long top = (unsigned long)bi_raw_stack + sizeof bi_raw_stack;
	SETUP(bi_raw_thread(F_INACT, bi_raw_exit, 0, top, 0));
	SETUP(copy(F_INACT, F_INACT_NONE, 0, 0));
	unsigned long faults = bi_faults();
	SETUP(bi_raw_thread(F_DEAD, bi_raw_exit, 0, top, bi_ncpus - 1));
	SETUP(ful_thread_start(F_DEAD));
	bool dead = bi_wait_dead(F_DEAD);
	unsigned long a[7] = {~0UL, ~0UL, ~0UL, ~0UL, ~0UL, ~0UL, ~0UL};
	bi_check(r, FUL_SYS_EXIT, a, 1, dead && bi_faults() == faults,
		 "garbage args: thread ends, no fault", 0);
	bi_count(r, FUL_SYS_EXIT);
}

/** Kill the helper threads and drop every cap that keeps this task. */
static void teardown(void)
{
	ful_thread_kill(F_INACT);
	ful_thread_kill(F_ARENA_THREAD);
	ful_cap_delete(F_SPARE);
	ful_cap_delete(F_SPARE_R);
	ful_cap_delete(F_ARENA_SPARE);
	for (unsigned s = 1; s <= BI_ARENA_END; s++)
		ful_cap_delete(s);
	ful_cap_delete(H_VS);
}

/** Send the report to the rootserver (slot H_REPORT). */
static void send_report(void)
{
	report.magic = BI_REPORT_MAGIC;
	memcpy(ful_ipcbuf(), &report, sizeof report);
	struct ful_msg m = {.info = FUL_MSG(BI_LABEL_REPORT, sizeof report)};
	long err = ful_send(H_REPORT, &m, FUL_FOREVER);
	if (err < 0)
		printf("badinput: report not delivered: %ld\n", err);
}

/** BI_MODE_PING: one call/reply round trip on the report endpoint. */
static void ping(void)
{
	struct ful_msg m = {.info = FUL_MSG(BI_LABEL_PING, 0), .mr = {41}};
	long err = ful_call(H_REPORT, &m, 20UL * 1000000);
	report.cases = 1;
	if (err < 0 || m.mr[0] != 42)
		report.mismatches = 1;
}

/** Run @mode (report.h) once the fixtures are in place. */
static void run_mode(struct bi_run *run, unsigned mode)
{
	switch (mode) {
	case BI_MODE_CLASSES:
		bi_run_cases(run);
		bi_run_special(run);
		break;
	case BI_MODE_RANDOM:
		bi_run_random(run, BI_SEED(ful_arg0), BI_N1(ful_arg1),
			      BI_N2(ful_arg1));
		break;
	case BI_MODE_PING:
		ping();
		break;
	default:
		report.setup_line = __LINE__;
		report.setup_err = -FUL_EINVAL;
	}
}

int main(void)
{
	unsigned mode = BI_MODE(ful_arg0);
	struct bi_run run = {.rep = &report, .count_cases = mode == BI_MODE_CLASSES};
	struct ful_sysinfo si;
	unsigned long t0 = ful_counter();
	ful_sysinfo(&si);
	bi_ncpus = si.ncpus;
	bi_tid = si.tid;
	report.mode = mode;
	move_granted();
	if (mode != BI_MODE_PING) {
		make_objects();
		make_devices();
		make_threads(&run);
		SETUP(bi_kinds_init());
	}
	if (!report.setup_line)
		run_mode(&run, mode);
	if (report.setup_line)
		printf("badinput: set-up failed at line %u: %d\n",
		       report.setup_line, report.setup_err);
	teardown();
	report.ticks = ful_counter() - t0;
	send_report();
	return 0;
}
