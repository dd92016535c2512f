/*
 * The trace rings' system calls (docs/tracing.md "System calls and boot
 * arguments", <fulcrum/trace.h>): TRACE_SET, TRACE_FRAME, TRACE_DUMP.
 */
#include "frame.h"
#include "kernel.h"
#include "syscall.h"
#include "trace.h"

/** TRACE_SET(sched, mask, flags): SCHED ADMIN; mask beyond FUL_TRC_ALL
 *  or unknown flags (EINVAL); no rings (ESTATE). Returns the previous
 *  mask. */
int64_t sys_trace_set(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	if ((ARG(1) & ~(uint64_t)FUL_TRC_ALL) ||
	    (ARG(2) & ~(uint64_t)FUL_TRACE_RESTART))
		return -FUL_EINVAL;
	struct frame *f = trace_frame();
	if (!f)
		return -FUL_ESTATE;
	const struct ful_trace_hdr *h = (const void *)f->kva;
	uint32_t old = h->mask;
	trace_set((uint32_t)ARG(1), (unsigned)ARG(2));
	return old;
}

/** TRACE_FRAME(sched, dst): SCHED READ; a READ frame capability of the
 *  trace area in slot dst (EBADCAP out of range, ESTATE occupied); no
 *  rings (ESTATE). */
int64_t sys_trace_frame(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_READ, &s);
	if (err)
		return err;
	if (ARG(1) == 0 || ARG(1) >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	if (!trace_frame())
		return -FUL_ESTATE;
	struct cap c = {.type = FUL_CAP_FRAME, .rights = FUL_R_READ,
			.obj = trace_frame()};
	return cap_insert(t->vs, ARG(1), &c);
}

/** TRACE_DUMP(sched): SCHED ADMIN; tracing on or no rings (ESTATE).
 *  Prints every ring on the console (trace.c's framing). */
int64_t sys_trace_dump(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	return trace_dump();
}
