/*
 * Fulcrum load ABI, version 1: what the kernel publishes about every
 * core's and every thread's load, read by the rootserver's balancer
 * without a system call.
 *
 * The kernel maps the load area read-only into the rootserver at
 * FUL_LOAD_VADDR (FUL_LOAD_PAGES pages; also a READ frame capability in
 * FUL_SLOT_LOAD, so the rootserver may map it elsewhere). Layout:
 *
 *   offset 0     struct ful_load_hdr
 *   offset 128   struct ful_load_cpu cpu[FUL_LOAD_CPUS]
 *   offset 4096  struct ful_load_thread thread[FUL_LOAD_THREADS]
 *
 * Consistency: every ful_load_cpu and every ful_load_thread has its own
 * sequence counter. The writer (the core that owns the core or the
 * thread, with IRQs masked) makes seq odd, writes, then makes it even
 * again. A reader copies the record between two acquire loads of seq and
 * retries if either was odd or they differ (ful_load_read_* in
 * <ful/load.h> of libfulcrum). A snapshot of several records is
 * consistent per record, not across records: each core's figures are
 * exact for some instant, and two cores' instants differ by at most one
 * update each.
 *
 * Definitions (the paper's load L is `load`):
 *   runnable  READY or RUNNING (idle threads are never counted)
 *   blocked   owned by the core and BLOCKED: IPC, notification, sleep,
 *             park (INACTIVE threads are not counted). A thread moved
 *             while blocked counts on its new core from its next block
 *             on: the record keeps a single writer, its core
 *   load      sum of slice_ms over the core's runnable threads
 *   weight    sum of the nice weights of the same: Linux CFS's
 *             sched_prio_to_weight (<fulcrum/weight.h>: nice 0 = 1024,
 *             -20 = 88761, 19 = 15); a thread record's `weight` is its own
 *   busy/idle counter ticks the core spent running a thread / idling,
 *             up to `stamp`; with `switches` and `awake`, published at
 *             each tick and each switch to or from idle. An idle core
 *             has no tick, so the figures can be old: the stretch from
 *             `stamp` to now belongs to idle if `idle_open`, else to
 *             busy (ful_load_cpu_times adds it at read time)
 *   idle_open 1 if the core has been idle since `stamp`, 0 if it has run
 *             threads since: published with busy/idle; the stretch since
 *             `stamp` never changes kind without a new publication
 *             (added in version 2 from the padding)
 *   awake     the core's cycle counter (PMCCNTR_EL0; one count per
 *             instruction under QEMU -icount) summed over its periods
 *             outside wfi, up to its last wfi entry: the cost of
 *             everything the core did, kernel idle paths included
 *             (added in version 1 from the padding: 0 on older kernels)
 *   running   tid of the running thread, written at every switch as a
 *             single aligned store outside the sequence counter
 *   mig_in/   threads that arrived at / left the core. A thread moved
 *   mig_out   while blocked arrives when its owner changes, counted by
 *             the core it leaves: mig_in is added to atomically, outside
 *             the sequence counter. Once no thread is in flight, the
 *             sums of mig_in and of mig_out over the cores are equal
 */
#ifndef FULCRUM_LOAD_H
#define FULCRUM_LOAD_H

#define FUL_LOAD_VERSION 2
#define FUL_LOAD_VADDR 0x7fc00000UL
#define FUL_LOAD_PAGES 5
#define FUL_LOAD_CPUS 8
#define FUL_LOAD_THREADS 512 /* indexed by FUL_TID_SLOT(tid) */
#define FUL_TID_SLOT(tid) ((tid) & 0xfffu)

struct ful_load_hdr {
	unsigned int version;       /* FUL_LOAD_VERSION */
	unsigned int ncpus;         /* cores online: cpu[0..ncpus) */
	unsigned int nthreads;      /* entries in thread[] */
	unsigned int cpu_offset;    /* 128 */
	unsigned int thread_offset; /* 4096 */
	unsigned int pad0;
	unsigned long counter_freq; /* Hz of busy/idle/runtime/stamp */
	unsigned long tgen;         /* bumped (atomically, any core) whenever a
				     * thread is created, freed, changes owner
				     * core, slice, nice or affinity: a reader
				     * that indexes threads rebuilds on change */
	unsigned long pad[11];
};

struct ful_load_cpu {
	unsigned int seq;       /* odd while being written */
	unsigned int nrunnable; /* READY + RUNNING */
	unsigned int nblocked;  /* see "blocked" above */
	unsigned int running;   /* tid of the running thread, 0 while idle */
	unsigned long load;     /* sum of slice_ms of the runnable threads */
	unsigned long weight;   /* sum of their weights */
	unsigned long busy;     /* counter ticks running a thread */
	unsigned long idle;     /* counter ticks idle */
	unsigned long stamp;    /* counter value of the last busy/idle update */
	unsigned long mig_in;   /* threads that arrived */
	unsigned long mig_out;  /* threads that left */
	unsigned long switches;
	unsigned long awake;    /* cycle counter (PMCCNTR) outside wfi, up
				 * to the core's last wfi entry */
	unsigned long idle_open; /* 1: idle since stamp, 0: busy since */
	unsigned long pad[4];
};

/* ful_load_thread.flags */
#define FUL_LT_KERNEL 1u /* a kernel thread: cannot be migrated from EL0 */
#define FUL_LT_PINNED 2u /* affinity is not all online cores */

struct ful_load_thread {
	unsigned int seq;       /* odd while being written */
	unsigned int tid;       /* 0: slot unused */
	unsigned char cpu;      /* owner core (destination while MIGRATING) */
	unsigned char state;    /* enum ful_thread_state */
	unsigned char flags;    /* FUL_LT_* */
	signed char nice;       /* -20..19 */
	unsigned int slice_ms;
	unsigned int weight;
	unsigned int affinity;  /* cores it may run on, bit per core */
	unsigned long runtime;  /* counter ticks run, updated at switch-out */
};

struct ful_load_page {
	struct ful_load_hdr hdr;
	struct ful_load_cpu cpu[FUL_LOAD_CPUS];
	unsigned char pad[4096 - 128 - FUL_LOAD_CPUS * 128];
	struct ful_load_thread thread[FUL_LOAD_THREADS];
};

_Static_assert(sizeof(struct ful_load_hdr) == 128, "load ABI: header");
_Static_assert(sizeof(struct ful_load_cpu) == 128, "load ABI: cpu record");
_Static_assert(sizeof(struct ful_load_thread) == 32, "load ABI: thread record");
_Static_assert(sizeof(struct ful_load_page) <= FUL_LOAD_PAGES * 4096,
	       "load ABI: size");

/*
 * Batch migration (FUL_SYS_MIGRATE): an array of moves, each filled in
 * by the kernel with its result:
 *   FUL_MOVE_DONE     the thread now belongs to `cpu` (if it was running
 *                     elsewhere it has been switched out and handed over;
 *                     it runs there as soon as that core schedules it)
 *   FUL_MOVE_ALREADY  it already belonged to `cpu`; nothing done
 *   -FUL_ENOTHREAD    no live thread has that tid
 *   -FUL_EINVAL       cpu is not an online core
 *   -FUL_ESTATE       a kernel thread, a dead thread, or `cpu` is outside
 *                     its affinity
 *   -FUL_EAGAIN       the mailbox pool of a core was exhausted; retry
 * No thread is ever lost: a move either completes or leaves the thread
 * where it was, runnable or blocked as before.
 */
#define FUL_MIGRATE_MAX 64 /* moves per call */
#define FUL_MOVE_DONE 0
#define FUL_MOVE_ALREADY 1

struct ful_move {
	unsigned int tid;
	unsigned int cpu;
	int result; /* out */
	unsigned int pad;
};

/* FUL_SYS_THREAD_SET attributes (thread named by tid, SCHED capability). */
#define FUL_TA_AFFINITY 1 /* value: core mask; 0 means every core */
#define FUL_TA_SLICE 2    /* value: slice in ms, 1..10000 */
#define FUL_TA_NICE 3     /* value: -20..19 (two's complement in x3) */

#endif
