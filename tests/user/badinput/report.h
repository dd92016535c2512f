/*
 * Protocol between the rootserver's bad-input tests
 * (tests/user/tests/t_badinput.c) and the badinput program.
 *
 * The rootserver starts badinput with:
 *   slot 1  its own vspace, ALL (the program deletes every copy before
 *           it ends, or the task would pin itself)
 *   slot 2  its own thread, ALL
 *   slot 3  the report endpoint, WRITE, badged
 *   slot 4  the memory pool, ADMIN       (FUL_CHILD_SLOT_ARG0)
 *   slot 5  the scheduling control, ADMIN
 *   slot 6  console input, READ
 *   slot 7  the IRQ control, ALL
 *   slot 8  a device region (the first virtio-mmio one), READ|WRITE
 * and x0 = BI_ARG0(mode, seed), x1 = BI_ARG1(phase-1 calls, phase-2
 * calls). It ends with one message on slot 3: label BI_LABEL_REPORT, the
 * bytes of struct bi_report in the IPC buffer.
 */
#ifndef BADINPUT_REPORT_H
#define BADINPUT_REPORT_H

#include <fulcrum/syscall.h>

enum bi_mode {
	BI_MODE_CLASSES = 1, /* every call x every class of bad argument */
	BI_MODE_RANDOM,      /* seeded random bad calls, two phases */
	BI_MODE_PING,        /* one call/reply round trip on slot 3 */
};

#define BI_ARG0(mode, seed) ((unsigned long)(mode) | (unsigned long)(seed) << 8)
#define BI_MODE(a0) ((unsigned)((a0) & 0xff))
#define BI_SEED(a0) ((a0) >> 8)
#define BI_ARG1(n1, n2) ((unsigned long)(n1) | (unsigned long)(n2) << 32)
#define BI_N1(a1) ((a1) & 0xffffffffUL)
#define BI_N2(a1) ((a1) >> 32)

#define BI_REPORT_MAGIC 0x49444142u /* "BADI" */
#define BI_LABEL_REPORT 0xb1
#define BI_LABEL_PING 0xb2
/* per_call[] index of the invalid call numbers. */
#define BI_NR_INVALID FUL_SYS_COUNT
#define BI_NCALLS (FUL_SYS_COUNT + 1)
/* The reserved numbers (no call: ENOSYS) count as invalid ones. */
#define BI_NR_RESERVED(nr) (((nr) >= 38 && (nr) <= 39) || (nr) == 51)
/** per_call[] index of call number @nr. */
static inline unsigned bi_nr_index(unsigned long nr)
{
	return nr < FUL_SYS_COUNT && !BI_NR_RESERVED(nr) ? (unsigned)nr
							  : BI_NR_INVALID;
}
/* bi_mismatch.expected for "any documented result" (random phase 2). */
#define BI_EXPECT_DOCUMENTED 1000

struct bi_mismatch {
	unsigned long nr, args[7];
	long expected; /* -FUL_E*, a result >= 0, or BI_EXPECT_DOCUMENTED */
	long got;
	char what[40];
};

struct bi_report {
	unsigned magic, mode;
	unsigned long cases;      /* checked calls (classes) or phase-1 calls */
	unsigned long p2_calls;   /* random phase 2: fully random calls */
	unsigned long p2_ok;      /* ... of which succeeded */
	unsigned long mismatches; /* calls whose result was not the expected */
	unsigned long regressions; /* ... in rows of kernel bugs fixed since */
	unsigned long ticks;      /* counter ticks the run took */
	unsigned per_call[BI_NCALLS]; /* cases (classes) / calls (random) */
	unsigned setup_line;      /* != 0: fixture setup failed at this line */
	int setup_err;
	struct bi_mismatch first;
};

/** Short name of system call @nr (BI_NR_INVALID: the invalid ones). */
static inline const char *bi_call_name(unsigned nr)
{
	static const char *const names[BI_NCALLS] = {
		"debug_write", "yield", "exit", "send", "recv", "call",
		"reply", "reply_recv", "ntfn_signal", "ntfn_wait", "ntfn_poll",
		"cap_copy", "cap_delete", "cap_info", "ep_create",
		"ntfn_create", "frame_create", "vspace_create", "map", "unmap",
		"thread_create", "thread_start", "thread_kill",
		"thread_migrate", "thread_info", "reply_save", "reply_to",
		"sysinfo", "shutdown", "migrate", "thread_set", "pool_create",
		"pool_info", "util_set", "cons_bind", "cons_read",
		"lbe_bind", "lbe_arm", "(reserved)", "(reserved)",
		"devmem_map", "devmem_info", "irq_get", "irq_bind", "irq_ack",
		"irq_unbind", "dma_create", "dma_paddr", "trace_set",
		"trace_frame", "trace_dump", "(reserved)", "pwin_create",
		"pwin_set", "task_kill", "sched_kill", "irqstat",
		"(invalid)",
	};
	return nr < BI_NCALLS ? names[nr] : "?";
}

#endif
