/*
 * libfulcrum: the user-space side of the Fulcrum ABI.
 *
 *   <ful/syscall_raw.h>  ful_syscall(), the bare `svc #0`
 *   <ful/sys.h>          one typed inline wrapper per system call
 *   <ful/ful.h>          this file: task conventions, per-thread state,
 *                        counters, slot allocator, threads in this task
 *   <ful/spawn.h>        loading a boot module into a new task (rootserver)
 *
 * Programs are linked with picolibc: printf() goes to the kernel's debug
 * console one line at a time, malloc() draws on a heap in .bss, and
 * exit() ends the calling thread.
 */
#ifndef FUL_FUL_H
#define FUL_FUL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <fulcrum/bootinfo.h>
#include <fulcrum/errno.h>
#include <fulcrum/syscall.h>
#include <ful/sys.h>

/*
 * Capability slots of a task started by ful_spawn(). (The rootserver's
 * own slots are the FUL_SLOT_* of <fulcrum/bootinfo.h>.)
 */
#define FUL_CHILD_SLOT_VS 1     /* its own vspace, only if the parent asks (it pins the task) */
#define FUL_CHILD_SLOT_THREAD 2 /* its own (first) thread */
#define FUL_CHILD_SLOT_REPORT 3 /* endpoint to the parent: WRITE, badged */
#define FUL_CHILD_SLOT_ARG0 4   /* 4..7: further caps chosen by the parent */
#define FUL_CHILD_SLOT_ARGN 7
#define FUL_CHILD_FIRST_FREE 8  /* the child's own allocations start here */

/*
 * A system program (tests/user/tests, user/bench) is started by the rootserver
 * with part of the rootserver's own authority, at the rootserver's slot
 * numbers (FUL_SLOT_* of <fulcrum/bootinfo.h>: SELF_VS, SELF_THREAD,
 * SCHED, POOL, BOOTINFO, LOAD and the frames of the modules it may
 * start), with the bootinfo page and the load area mapped where the
 * rootserver has them, so code written for either runs in both. Its
 * report endpoint is in FUL_SYSPROG_SLOT_DONE (the rootserver's IPC
 * buffer slot, which a child never gets): one message there says "done".
 */
#define FUL_SYSPROG_SLOT_DONE FUL_SLOT_IPCBUF

/* Memory layout of a task started by ful_spawn() (same as the rootserver). */
#define FUL_TASK_IPCBUF_VADDR FUL_ROOT_IPCBUF_VADDR
#define FUL_TASK_STACK_TOP FUL_ROOT_STACK_TOP
#define FUL_TASK_STACK_PAGES FUL_ROOT_STACK_PAGES

/* The two words the creator passed in x0 and x1 to the first thread. */
extern unsigned long ful_arg0, ful_arg1;

/* The calling thread's IPC buffer (FUL_IPCBUF_SIZE bytes), from x2 at
 * thread entry. */
extern _Thread_local void *ful__ipcbuf;

static inline void *ful_ipcbuf(void)
{
	return ful__ipcbuf;
}

/** The cycle counter PMCCNTR_EL0 (the kernel enables EL0 access). */
static inline unsigned long ful_cycles(void)
{
	unsigned long c;
	__asm__ volatile("isb\n\tmrs %0, pmccntr_el0\n\tisb" : "=r"(c) : : "memory");
	return c;
}

/** The virtual system counter CNTVCT_EL0 (ticks at ful_counter_freq()). */
/** Print one "BENCH <name> <unit> <n> <samples...>" line (bench.c). */
void ful_bench_print(const char *name, const char *unit,
		     const unsigned long *s, unsigned n);

/** The cost of one ful_cycles() read (the least of ten back-to-back
 *  pairs), to subtract from a measured window. */
static inline unsigned long ful_cycles_overhead(void)
{
	unsigned long best = ~0UL;
	for (int i = 0; i < 10; i++) {
		unsigned long a = ful_cycles(), b = ful_cycles();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

static inline unsigned long ful_counter(void)
{
	unsigned long c;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(c) : : "memory");
	return c;
}

/** CNTFRQ_EL0: the frequency of ful_counter(), in Hz. */
static inline unsigned long ful_counter_freq(void)
{
	unsigned long f;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}

/** @us microseconds in ticks of ful_counter(), exact for any frequency
 *  (62.5 MHz on QEMU virt is not a whole number of MHz), saturating at
 *  ~0UL (FUL_FOREVER stays forever). */
static inline unsigned long ful_us_to_ticks(unsigned long us)
{
	unsigned long f = ful_counter_freq();
	unsigned __int128 t = (unsigned __int128)(us / 1000000) * f +
			      (us % 1000000) * f / 1000000;
	return t > ~0UL ? ~0UL : (unsigned long)t;
}

/** @ticks of ful_counter() in microseconds, exact and without overflow
 *  for any uptime (two divisions, no 128-bit one). */
static inline unsigned long ful_ticks_to_us(unsigned long ticks)
{
	unsigned long f = ful_counter_freq();
	return ticks / f * 1000000 + ticks % f * 1000000 / f;
}

/** The bootinfo page (the rootserver and the system programs). */
static inline const struct ful_bootinfo *ful_bootinfo(void)
{
	return (const struct ful_bootinfo *)FUL_BOOTINFO_VADDR;
}

/* ---- slot allocator (slots.c): free slots of this task's cap table ---- */

/** Make [@first, FUL_CSLOTS) the allocatable slots (all free). Without a
 *  call, the allocator starts at FUL_CHILD_FIRST_FREE. */
void ful_slot_init(unsigned first);
/** A free slot, or -FUL_ENOMEM. Thread-safe. */
long ful_slot_alloc(void);
/** Return @slot to the allocator (the cap in it should be deleted). */
void ful_slot_free(unsigned slot);
/** Delete the capability in @slot and return the slot to the allocator. */
void ful_slot_drop(unsigned slot);

/* ---- extra threads in this task (thread.c) ---- */

struct ful_thread_args {
	void (*fn)(void *arg); /* the thread runs fn(arg), then ful_exit() */
	void *arg;
	unsigned pool;         /* pool to create the thread from */
	unsigned vs;           /* this task's vspace (needs ADMIN) */
	unsigned dst;          /* slot for the thread cap; 0: ful_slot_alloc() */
	void *ipcbuf;          /* FUL_IPCBUF_SIZE-aligned, writable; NULL: malloc'd */
	unsigned prio;         /* 0..254 */
	unsigned cpu;          /* FUL_CPU_PLACE: where the balancer says */
	unsigned slice_ms;     /* 0: 10 ms */
	int nice;
	size_t stack_size;     /* 0: 16 KiB */
	const char *name;      /* NULL: "thread" */
};

struct ful_thread {
	long tid;
	unsigned slot;         /* the thread cap in this task */
	void *mem;             /* stack + TLS (+ IPC buffer): free() once dead */
};

/* ful_thread_args.cpu: let the balancer place the thread. The program
 * asks the placement capability in its FUL_SLOT_PLACE
 * (<fulcrum/balctl.h>: FUL_BAL_PLACE with the thread's nice, and once
 * the thread runs FUL_BAL_SETTLE); without one, the thread starts on
 * the caller's core and the balancer's rounds move it if they must. */
#define FUL_CPU_PLACE 0xffffffffu

/** Start a thread in this task running a->fn(a->arg), with its own
 *  stack and TLS block (picolibc errno, stdio line buffer) taken from
 *  malloc. Returns 0 and fills @out, or -FUL_E* (nothing left behind). */
int ful_thread_spawn(const struct ful_thread_args *a, struct ful_thread *out);

/** FUL_BAL_PLACE on FUL_SLOT_PLACE: the core for a new thread of
 *  @nice, and in *@seq (may be NULL) the decision's number for
 *  ful_place_settle; or -FUL_E* (-FUL_EBADCAP: no capability), or
 *  -FUL_BAL_E* as the balancer answers. */
long ful_place(int nice, unsigned long *seq);
/** FUL_BAL_SETTLE: wait until thread @tid, created where ful_place()
 *  said (decision @seq), is counted on its core. 0 or an error. */
long ful_place_settle(long tid, unsigned long seq);

/** One wait of a thread that polls for what another thread of its task
 *  does (a lock's release, a thread's end), *@n its waits so far (0
 *  before the first): 64 yields, then one 20 us sleep in 16 waits, so
 *  that a thread of lower priority on the same core runs too (a yield
 *  passes the core only to threads of the caller's priority).
 *  Every user-level lock waits with it (locks.c). */
void ful_backoff(unsigned *n);
/** Take test-and-set lock @f, shared by threads of this task, waiting
 *  with ful_backoff; ful_flag_unlock releases it. */
static inline void ful_flag_lock(atomic_flag *f)
{
	for (unsigned n = 0;
	     atomic_flag_test_and_set_explicit(f, memory_order_acquire);)
		ful_backoff(&n);
}
static inline void ful_flag_unlock(atomic_flag *f)
{
	atomic_flag_clear_explicit(f, memory_order_release);
}
/** Has the thread in @slot died (THREAD_INFO says EDEAD)? */
static inline bool ful_thread_dead(unsigned slot)
{
	struct ful_thread_info info;
	return ful_thread_info(slot, &info) == -FUL_EDEAD;
}

/** Reclaim @t, a thread of this task that is ending: wait (ful_backoff,
 *  at most @timeout_us) until it has died, then drop its capability, free
 *  its stack and clear @t. Nothing to do if it never started (tid <= 0).
 *  A thread still alive is left alone, its stack in use: false. */
bool ful_thread_reap(struct ful_thread *t, unsigned long timeout_us);

/** The errors system call @nr may return, as a mask of 1 << FUL_E*
 *  (sys_errors.c); an unknown number: ENOSYS only. */
unsigned ful_sys_errors(unsigned long nr);

/** Write the calling thread's pending partial line of stdout/stderr. */
void ful_stdio_flush(void);

#endif
