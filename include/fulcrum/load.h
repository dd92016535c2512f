/*
 * Fulcrum load ABI, version 6: what the kernel publishes about every
 * core's and every thread's load, read by the rootserver's balancer
 * without a system call.
 *
 * The kernel maps the load area read-only into the rootserver at
 * FUL_LOAD_VADDR (FUL_LOAD_PAGES pages; also a READ frame capability in
 * FUL_SLOT_LOAD, so the rootserver may map it elsewhere). Layout:
 *
 *   offset 0     struct ful_load_hdr
 *   offset 128   struct ful_load_cpu cpu[FUL_LOAD_CPUS] (64 since version 5)
 *   offset 8320  struct ful_load_ev ev[FUL_LOAD_CPUS] (version 4: hdr.ev_offset;
 *                128 bytes each, like a core record: the kernel's idle
 *                exit reaches ev[c] at a constant offset from cpu[c];
 *                1152 with version 4's 8 cores)
 *   offset 20480 struct ful_load_thread thread[FUL_LOAD_THREADS] (64 bytes
 *                each since version 3: 8 pages; hdr.thread_offset, 4096
 *                in version 4)
 *
 * Version 5 (GICv3 and more cores): FUL_LOAD_CPUS went from 8
 * to 64, the kernel's core limit, so the core and event records take 5
 * pages instead of 1 and the area 13 pages instead of 9; a thread
 * record's affinity is a 64-bit set (ful_cpus_t, bit c for core c: it
 * took the record's last padding word, the record stays 64 bytes). A
 * reader that uses hdr.ev_offset and hdr.thread_offset, as libfulcrum
 * does, finds everything; the field order is unchanged.
 *
 * Version 6 (the operation-zone policy's cost): a core's
 * idle_open is a 32-bit word (it was an unsigned long holding 0 or 1),
 * and the other half of its 8 bytes is util_now, the core's short
 * sliding figure as of its last tick (below). Every other offset is
 * unchanged; a reader that copied idle_open as a 64-bit word must read
 * 32 bits.
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
 *             `stamp` never changes kind without a new publication. One
 *             exception, bounded: a core whose thread blocks with nothing
 *             else to run idles in place lazily (docs/load-area.md, "Lag
 *             of a wait in place"): until its next interrupt that is not
 *             the thread's own wake-up (one tick at most) nothing is
 *             published, and a wait that ends in place is counted as
 *             idle at the next publication. So a busy figure
 *             extrapolated to `now` may exceed what a later publication
 *             says by those waits (under one tick's worth in all):
 *             readers that subtract two reads taken less than a few
 *             ticks apart clamp at 0
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
 *
 * Utilization windows (version 3; <fulcrum/loadwin.h> has the arithmetic,
 * shared by the kernel and the readers). Time is cut into short windows
 * aligned to the system counter: window i is
 *     [util_epoch + (i - util_idx0) * util_win, ... + util_win)
 * for i >= util_idx0, and long window j is the FUL_UTIL_LONG_WINS short
 * windows FUL_UTIL_LONG_WINS*j .. FUL_UTIL_LONG_WINS*(j+1)-1 (util_idx0
 * is a multiple of it, so long windows are aligned too). Indexes only
 * grow, across changes of the length too: a change (boot argument
 * util_win=MS, FUL_SYS_UTIL_SET) starts new windows at a new epoch with
 * a util_idx0 at least 2 beyond every index used before, so no window
 * mixes lengths and a figure from before the change is recognized by
 * its index (< util_idx0) and counts as 0.
 *   A core's figures:
 *   win_idx   index of the short window the core's figures are in: the
 *             one containing `stamp` (never ahead of the counter)
 *   win_base  value of `busy` at the start of window win_idx, so
 *             busy - win_base is the busy time of window win_idx up to
 *             `stamp` (the open stretch after `stamp` is added at read
 *             time, as for busy/idle)
 *   lwin_base value of `busy` at the start of the long window that
 *             contains win_idx (win_base - lwin_base: its complete
 *             short windows)
 *   util_short  busy / length of window win_idx - 1, permille
 *   util_long   the same for long window win_idx / FUL_UTIL_LONG_WINS - 1
 *             (both 0 for a window before util_idx0). All five are
 *             written by the core with busy/idle/stamp in one window of
 *             the record, when it rolls its windows over: at its first
 *             tick or switch in a new window. An idle core (no tick)
 *             does not roll: ful_util_cpu (<ful/load.h>) rolls a copy to
 *             `now` at read time, from `stamp` and `idle_open`
 *   util_now  (version 6) FUL_UTIL_NOW_OK | the short sliding figure at
 *             `stamp`, permille (FUL_UTIL_NOW_PM): exactly what
 *             ful_util_cpu gives for this record at now = stamp. Written
 *             by the core at each of its ticks while a thread runs,
 *             after busy/stamp/win_* in the same window of the record,
 *             so a copy under the seqcount agrees with them; 0 at every
 *             other publication (a switch to or from idle, a roll at a
 *             switch, the core's start, a tick while idle): "none, roll
 *             the window fields to now yourself". So a word with
 *             FUL_UTIL_NOW_OK belongs to a busy core and is at most one
 *             tick (1 ms) old while the core ticks; an idle core (no
 *             tick) never has one. It is one aligned 32-bit word: a
 *             reader may load it alone, without the seqcount, and gets
 *             the figure of some tick (or 0), never a torn one. It saves
 *             a reader of a busy core the seven fields and the
 *             arithmetic of ful_util_cpu (the operation-zone policy)
 *   A thread's figures (written by its owner core only, like the rest):
 *   win_idx   short window index of win_base / the run time since it:
 *             the window of its last switch-in or tick; older than the
 *             current one when the thread has not run since
 *   win_base  value of `runtime` at the start of window win_idx (or at
 *             the thread's first run in it), so runtime - win_base is its
 *             run time in window win_idx (up to its last switch-out or
 *             tick: a running thread's figure is at most a tick old)
 *   win_last  counter ticks it ran in window win_idx - 1
 *             win_idx, win_base and win_last change together in a window
 *             of the record (with runtime) at the thread's first
 *             switch-in or tick in a new window; runtime alone is stored
 *             at each switch-out and tick (single store: no index change
 *             can hide between two copies of it, since every index change
 *             bumps seq). ful_util_thread gives the current and last
 *             window's run time as of `now`: 0 for a window the thread
 *             did not run in
 */
/*
 * Balancer events (version 4, FUL_SYS_LBE_BIND / LBE_ARM in
 * <fulcrum/syscall.h>): ev[c] counts core c's scheduling events. Every
 * field of ev[c] has one writer, core c, IRQs masked (plain increments);
 * each is a single aligned 8-byte word, read without a seqcount (the
 * four counters are independent; only their growth means anything):
 *   wake      times core c left idle to run a thread (its switch books,
 *             every path: scheduler, hand-off, idle in place), counted
 *             while a notification is bound and c is in the `cores` of
 *             the last LBE_ARM (every core after an LBE_BIND)
 *   create    threads started (THREAD_START) by calls made on core c
 *   busy      ticks of core c with a thread running while c is in the
 *             watch mask of the last LBE_ARM (not counted otherwise)
 *   signals   notifications the events of core c sent (at most one per
 *             kind per LBE_ARM, over all cores)
 */
#ifndef FULCRUM_LOAD_H
#define FULCRUM_LOAD_H

#define FUL_LOAD_VERSION 6
#define FUL_LOAD_VADDR 0x7fc00000UL
/*
 * The limits are compile-time parameters: the kernel and the rootserver
 * build with the defaults (the ABI above, unchanged); a host program may
 * define larger ones before any include (the simulator, tools/sim, builds
 * the same policy sources with up to 256 cores and 16,384 thread
 * records). Up to 64 cores an affinity is one 64-bit word (the kernel's
 * layout; a host build with 32 cores or fewer keeps version 4's 32-bit
 * one); above 64 it no longer fits one word (ful_cpus_t,
 * <fulcrum/cpus.h>): the thread record grows, and that layout exists
 * only on the host (docs/simulator.md, "Limits as compile-time parameters").
 */
#ifndef FUL_LOAD_CPUS
#define FUL_LOAD_CPUS 64 /* the kernel's MAX_CPUS (kernel/types.h) */
#endif
#ifndef FUL_LOAD_THREADS
#define FUL_LOAD_THREADS 512 /* indexed by FUL_TID_SLOT(tid) */
#endif
#ifndef FUL_TID_SLOT_MASK
#define FUL_TID_SLOT_MASK 0xfffu
#endif
#define FUL_TID_SLOT(tid) ((tid) & FUL_TID_SLOT_MASK)
#if FUL_LOAD_CPUS < 1 || FUL_LOAD_CPUS > 256
#error "FUL_LOAD_CPUS: 1 to 256 (a thread record's cpu is one byte)"
#endif
#if FUL_LOAD_THREADS > FUL_TID_SLOT_MASK + 1
#error "FUL_LOAD_THREADS: more records than slots"
#endif
/* Pages: the header, the core and event records (5 pages with the
 * default 64 cores), then the thread records (64 bytes; 128 above 64
 * cores, host only). */
#define FUL_LOAD_CPU_PAGES ((128 + FUL_LOAD_CPUS * 256 + 4095) / 4096)
#if FUL_LOAD_CPUS <= 64
#define FUL_LOAD_TREC 64
#else
#define FUL_LOAD_TREC 128
#endif
#define FUL_LOAD_PAGES \
	(FUL_LOAD_CPU_PAGES + FUL_LOAD_THREADS * FUL_LOAD_TREC / 4096) /* 13 */

#include <fulcrum/cpus.h>
#define FUL_UTIL_LONG_WINS 10     /* short windows per long window */
#define FUL_UTIL_WIN_MS_DEFAULT 100
#define FUL_UTIL_WIN_MS_MIN 10    /* FUL_SYS_UTIL_SET, util_win= */
#define FUL_UTIL_WIN_MS_MAX 10000
#define FUL_UTIL_NOW_OK 0x80000000u  /* util_now holds a figure */
#define FUL_UTIL_NOW_PM(w) ((w) & 0xffffu)

struct ful_load_hdr {
	unsigned int version;       /* FUL_LOAD_VERSION */
	unsigned int ncpus;         /* cores online: cpu[0..ncpus) */
	unsigned int nthreads;      /* entries in thread[] */
	unsigned int cpu_offset;    /* 128 */
	unsigned int thread_offset; /* 20480 (4096 in version 4) */
	unsigned int util_seq;      /* seqcount of the util_* fields (odd
				     * while a length change writes them) */
	unsigned long counter_freq; /* Hz of busy/idle/runtime/stamp */
	unsigned long tgen;         /* bumped (atomically, any core) whenever a
				     * thread is created, freed, changes owner
				     * core, slice, nice or affinity: a reader
				     * that indexes threads rebuilds on change */
	unsigned long util_epoch;   /* counter value where window util_idx0
				     * starts */
	unsigned long util_win;     /* short window length, counter ticks */
	unsigned long util_long;    /* long window length: util_win *
				     * FUL_UTIL_LONG_WINS */
	unsigned long util_idx0;    /* index of the window at util_epoch */
	unsigned long util_win_ms;  /* util_win in ms (as set) */
	unsigned long ev_offset;    /* 8320: offset of ev[] (version 4; 1152
				     * with version 4's 8 cores) */
	unsigned long pad[5];
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
	unsigned int idle_open;  /* 1: idle since stamp, 0: busy since (an
				  * unsigned long before version 6) */
	unsigned int util_now;   /* version 6: FUL_UTIL_NOW_OK | short
				  * sliding figure at stamp, or 0 */
	unsigned long win_idx;   /* short window of stamp (see above) */
	unsigned long win_base;  /* busy at the start of window win_idx */
	unsigned long lwin_base; /* busy at the start of its long window */
	unsigned int util_short; /* permille busy, short window win_idx - 1 */
	unsigned int util_long;  /* permille busy, the last long window */
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
	ful_cpus_t affinity;    /* cores it may run on, bit per core
				 * (unsigned long up to 64 cores, the
				 * kernel's; unsigned int up to 32) */
	unsigned long runtime;  /* counter ticks run, updated at switch-out
				 * and tick */
	unsigned long win_idx;  /* short window of win_base (see above) */
	unsigned long win_base; /* runtime at the start of window win_idx */
	unsigned long win_last; /* ticks run in window win_idx - 1 */
#if FUL_LOAD_CPUS <= 32
	unsigned long pad[1];   /* version 5 (64 cores): the affinity's */
#endif
};

/* A core's balancer events (version 4; see "Balancer events" above). */
struct ful_load_ev {
	unsigned long wake;     /* idle exits of the core */
	unsigned long create;   /* THREAD_STARTs called on it */
	unsigned long busy;     /* its ticks while watched, a thread running */
	unsigned long signals;  /* notifications its events sent */
	unsigned long pad[12];
};

struct ful_load_page {
	struct ful_load_hdr hdr;
	struct ful_load_cpu cpu[FUL_LOAD_CPUS];
	struct ful_load_ev ev[FUL_LOAD_CPUS];
	unsigned char pad[FUL_LOAD_CPU_PAGES * 4096 - 128 -
			  FUL_LOAD_CPUS * (128 + 128)];
	struct ful_load_thread thread[FUL_LOAD_THREADS];
};

#if FUL_LOAD_CPUS <= 64
_Static_assert(sizeof(struct ful_load_thread) == 64, "load ABI: thread record");
#else
_Static_assert(sizeof(struct ful_load_thread) <= 128, "load: thread record");
#endif
#if FUL_LOAD_CPUS == 64 && FUL_LOAD_THREADS == 512
_Static_assert(FUL_LOAD_PAGES == 13, "load ABI: pages");
#endif
_Static_assert(sizeof(struct ful_load_hdr) == 128, "load ABI: header");
_Static_assert(sizeof(struct ful_load_cpu) == 128, "load ABI: cpu record");
_Static_assert(sizeof(struct ful_load_ev) == 128, "load ABI: event record");
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
	unsigned int decision; /* the balancer decision id that asked for it
				* (its seq + 1), 0 none: recorded in the
				* trace rings' migration records (was pad) */
};

/* FUL_SYS_THREAD_SET attributes (thread named by tid, SCHED capability). */
#define FUL_TA_AFFINITY 1 /* value: core mask, 64 bits (bit c: core c;
			   * version 5: was refused above 32 bits); 0
			   * means every core; EINVAL if it names no
			   * online core; ESTATE, and no change, if the
			   * thread is not started and the mask leaves
			   * out its core (it cannot move yet) */
#define FUL_TA_SLICE 2    /* value: slice in ms, 1..10000 */
#define FUL_TA_NICE 3     /* value: -20..19 (two's complement in x3) */

#endif
