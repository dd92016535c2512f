/*
 * badinput internals: the capability layout, the argument kinds the case
 * table is written in, and the functions the files share.
 *
 *   main.c     entry, moving the granted caps, fixtures, the report
 *   kinds.c    the values of each argument kind (filled at start-up)
 *   cases.c    the case table and the systematic run
 *   special.c  stateful cases: EXIT, no IPC buffer, reply caps,
 *              partial writes, stale kernel stack
 *   random.c   the randomized run (targeted, then fully random)
 */
#ifndef BADINPUT_BI_H
#define BADINPUT_BI_H

#include <stdbool.h>

#include <ful/ful.h>

#include "report.h"

/*
 * Capability slots. The random run's second phase names only slots of
 * the arena (1..BI_ARENA_END) or empty ones: every capability that could
 * hurt the task (its vspace, its thread with ADMIN, the pool, the
 * scheduling control, the report endpoint) lives at BI_HIDDEN_MIN and
 * above, and no generated value falls in [BI_HIDDEN_MIN, BI_HIDDEN_END).
 */
enum {
	BI_ARENA_END = 31,
	BI_HIDDEN_MIN = 200,
	H_VS = BI_HIDDEN_MIN, /* own vspace, ALL */
	H_THREAD,             /* own thread, ALL */
	H_REPORT,             /* report endpoint, WRITE */
	H_POOL,               /* pool, ALL */
	H_SCHED,              /* scheduling control, ALL */
	H_CONS,               /* console input, READ (never ADMIN: no bind) */
	F_EP, F_EP_R, F_EP_W, F_EP_NONE, F_EP_BADGED,
	F_NTFN, F_NTFN_R, F_NTFN_W, F_NTFN_BADGED,
	F_FRAME, F_FRAME_R, F_FRAME_W, F_FRAME2,
	F_SPARE, F_SPARE_R,   /* a second, empty task (vspace) */
	F_POOL_R, F_POOL_NONE, F_SCHED_R, F_THREAD_R, F_CONS_NONE,
	F_INACT,              /* a thread created and never started */
	F_INACT_NONE,         /* ... copied without rights */
	F_DEAD,               /* a thread that has exited */
	F_FREE,               /* always empty: a valid destination */
	F_REPLY, F_CALLER, F_NOIPC, F_SCRATCH,
	F_ARENA_EP, F_ARENA_NTFN, F_ARENA_FRAME, F_ARENA_SPARE, F_ARENA_THREAD,
	/* devices: granted IRQ control (ALL) and a device region (R|W) */
	H_IRQCTL, H_DEVMEM,
	F_IRQCTL_R,           /* IRQ control without ADMIN */
	F_DEVMEM_R, F_DEVMEM_NONE,
	F_IRQ,                /* a handler made here, never bound */
	F_IRQ_R,              /* ... copied with READ only */
	F_IRQ_BOUND,          /* a handler bound to F_IRQ_NTFN */
	F_IRQ_NTFN,
	F_DMA,                /* a DMA frame */
	F_PWIN,               /* a page window of 2 slots, mapped in F_SPARE */
	F_PWIN_RW,            /* ... copied without ADMIN */
	BI_HIDDEN_END,        /* <= 252: B_EMPTY names 252 and 255 */
};

/* Memory: mappings in F_SPARE, free addresses, the caller's buffers. */
#define BI_SPARE_VA_RW 0x10000000UL /* F_FRAME2 (2 pages), READ|WRITE */
#define BI_SPARE_VA_RO 0x10100000UL /* F_FRAME_R, READ */
#define BI_VA_FREE 0x30000000UL     /* nothing mapped here, anywhere */
#define BI_SPARE_VA_PWIN 0x10200000UL /* F_PWIN, READ|WRITE */
#define BI_IPCBUF FUL_TASK_IPCBUF_VADDR
#define BI_KADDR 0xffff000040200000UL /* the kernel image */

extern char bi_scratch[2 * FUL_PAGE_SIZE];     /* writable, .bss */
extern const char bi_ro_zero[FUL_PAGE_SIZE];   /* read-only zeros */
extern unsigned bi_ncpus;
extern unsigned bi_tid; /* the caller's own thread */
extern unsigned long bi_intid; /* the SPI of F_IRQ (issued: IRQ_GET fails) */

/* Argument kinds: each names a small set of values (kinds.c). The B_*
 * kinds (from B_GARBAGE on) are the bad ones; the systematic run
 * enumerates every value of a case's first bad argument, the random run
 * picks any value of each. */
enum bi_kind {
	K_ZERO, K_ANY,
	V_INFO, V_LEN, V_LEN0, V_NPAGES, V_RIGHTS, V_BADGE0, V_BADGE,
	V_MAP_RIGHTS, V_MAP_RW, V_VADDR, V_CPU, V_BITS, V_ATTR,
	V_PTR_W, V_PTR_R, V_MOVES_N, V_TID, V_TA, V_TA_VAL,
	V_BUDGET, V_UTIL_MS, V_CONS_LEN, V_CONS_R, V_LBE_EV,
	V_EP, V_NTFN, V_FRAME, V_VS, V_SPARE, V_POOL, V_POOL_R, V_SCHED,
	V_THREAD_R, V_THREAD_INACT, V_FREE, V_ANYCAP, V_UNBADGEABLE,
	V_DEVMEM, V_DEVMEM_R, V_DEVMEM_RIGHTS, V_DEVMEM_RW, V_IRQCTL,
	V_INTID, V_IRQ, V_IRQ_BOUND,
	V_PWIN, V_PWIN_NPAGES, V_PWIN_SLOT, V_PWIN_RIGHTS, V_PWIN_RW, V_VA_FREE,
	B_GARBAGE, /* unused arguments full of garbage: must be ignored */
	B_RANGE, B_EMPTY, B_DST_RANGE, B_DST_USED,
	B_NOT_EP, B_NOT_NTFN, B_NOT_FRAME, B_NOT_VS, B_NOT_POOL,
	B_NOT_THREAD, B_NOT_SCHED, B_NOT_REPLY,
	B_EP_NO_R, B_EP_NO_W, B_NTFN_NO_R, B_NTFN_NO_W, B_FRAME_NO_R,
	B_VS_NO_ADMIN, B_POOL_NO_ADMIN, B_POOL_NO_R, B_SCHED_NO_ADMIN,
	B_THREAD_NO_ADMIN, B_THREAD_NO_R,
	B_BADGED, B_FRAME_RO, B_THREAD_RUNNING, B_THREAD_DEAD,
	B_THREAD_INACTIVE,
	B_PTR, B_PTR_CROSS, B_PTR_RO, B_ATTR_FIELD, B_ATTR_IPCBUF,
	B_DBG_LEN, B_INFO_LEN, B_INFO_BITS, B_NPAGES, B_NPAGES0,
	B_RIGHTS, B_BADGE, B_MAP_RIGHTS, B_VADDR, B_VADDR_USED,
	B_VADDR_UNMAPPED, B_VADDR_MALFORMED, B_CPU, B_CPU_HIGH, B_BITS0,
	B_MOVES_N, B_TID, B_TA, B_SLICE, B_NICE, B_AFFINITY,
	B_BUDGET, B_BUDGET0, B_BUDGET_BIG, B_UTIL_MS,
	B_NOT_CONS, B_CONS_NO_R, B_CONS_NO_ADMIN, B_CONS_LEN,
	B_LBE_EV, B_LBE_MASK,
	B_NOT_DEVMEM, B_DEVMEM_NO_R, B_DEVMEM_RO, B_DEVMEM_RIGHTS,
	B_DEVMEM_EXEC, B_NOT_IRQCTL, B_IRQCTL_NO_ADMIN, B_INTID,
	B_INTID_KERNEL, B_NOT_IRQ, B_IRQ_NO_ADMIN, B_IRQ_NO_W, B_IRQ_BOUND,
	B_IRQ_UNBOUND, B_FRAME_NOT_DMA, B_TRACE_MASK,
	B_NOT_PWIN, B_PWIN_NO_ADMIN, B_PWIN_NPAGES, B_PWIN_SLOT, B_FRAME_PAGE,
	B_PWIN_RIGHTS, B_PWIN_MAPPED, B_PWIN_EXEC,
	B_NOT_MAPPABLE, /* MAP's second argument: neither frame nor window */
	B_SLEEP_US,     /* SLEEP's time: forever (FUL_FOREVER, above 2^40 us) */
	K_TA_SLICE, K_TA_NICE, K_TA_AFFINITY, /* valid attrs with bad values */
	B_NR,
	BI_NKINDS
};

#define BI_MAXV 24

struct bi_values {
	unsigned n;
	unsigned long v[BI_MAXV];
};

extern struct bi_values bi_kv[BI_NKINDS];

/** Fill bi_kv[] (after the fixtures exist); 0, or -(1000 + kind) if a
 *  kind was left without values. */
int bi_kinds_init(void);
/** Is @k a bad kind (the argument a case is about)? */
static inline bool bi_kind_bad(unsigned k)
{
	return k >= B_GARBAGE;
}

/* Cases (cases.c). expect: a FUL_E* code, or 0 for "returns 0". */
enum { BI_FIXED = 1 }; /* found a kernel bug (fixed in c84c347): a
			* mismatch here is a regression */

struct bi_case {
	unsigned char nr;     /* FUL_SYS_*, or BI_NR_INVALID: numbers of B_NR */
	unsigned char expect;
	unsigned char flags;
	unsigned char arg[7]; /* enum bi_kind */
	const char *what;
};

extern const struct bi_case bi_cases[];
extern const unsigned bi_ncases;

/* Checking and bookkeeping (main.c). */
struct bi_run {
	struct bi_report *rep;
	unsigned printed; /* mismatch lines printed so far */
	bool count_cases; /* classes: per_call counts cases */
};

/** Issue system call @nr with @a; x0. */
long bi_call(unsigned long nr, const unsigned long a[7]);
/** Compare @got with @expect (-FUL_E* or >= 0); record a mismatch. */
bool bi_check(struct bi_run *r, unsigned long nr, const unsigned long a[7],
	      long expect, long got, const char *what, unsigned flags);
/** Count one checked call of @nr. */
void bi_count(struct bi_run *r, unsigned long nr);
/** Wait (yielding) until the thread in @slot has died; false on timeout. */
bool bi_wait_dead(unsigned slot);
/** Faults so far (SYSINFO). */
unsigned long bi_faults(void);

/** Build the arguments of case @c with value index @vi[i] for arg i. */
void bi_case_args(const struct bi_case *c, const unsigned vi[7],
		  unsigned long a[7], unsigned long *nr);
/** Systematic run: every case, every value of its bad argument. */
void bi_run_cases(struct bi_run *r);
/** Stateful cases (special.c). */
void bi_run_special(struct bi_run *r);
/** Randomized run (random.c). */
void bi_run_random(struct bi_run *r, unsigned long seed, unsigned long n1,
		   unsigned long n2);

/* Threads that run without libfulcrum's TLS (special.c). */
void bi_raw_exit(void); /* EXIT with garbage arguments, forever */
/** Create (not start) a raw thread running @entry(@arg0) in this task
 *  into @slot; its stack is @stack_top. Returns the tid or -FUL_E*. */
long bi_raw_thread(unsigned slot, void (*entry)(void), unsigned long arg0,
		   unsigned long stack_top, unsigned cpu);
extern char bi_raw_stack[1024];

#endif
