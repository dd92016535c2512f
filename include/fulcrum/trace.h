/*
 * Trace rings (docs/tracing.md, "The trace area"): one ring of fixed-size
 * records per core, written only by that core, read without a system
 * call through a read-only mapping.
 *
 * Layout of the trace area (FUL_TRACE_VADDR in the rootserver; any
 * holder of the SCHED capability gets a READ frame capability of it with
 * FUL_SYS_TRACE_FRAME): struct ful_trace_hdr in the first
 * FUL_TRACE_HDR_PAGES pages (a ring header for each of up to
 * FUL_TRACE_CPUS cores, the kernel's MAX_CPUS), then ncpus rings of
 * ring_recs records each, ring i at ring_offset + i * ring_recs *
 * sizeof(struct ful_trace_rec).
 *
 * Version 2 (this layout) covers every core; version 1 had one header
 * page and rings for the first 8 cores only. A reader checks version
 * first: tools/trace_export.py refuses a dump of another version.
 *
 * Ring size: boot argument trace_kib (KiB per core), a power of two in
 * FUL_TRACE_KIB_MIN..FUL_TRACE_KIB_MAX whose rings together take at
 * most FUL_TRACE_RINGS_MAX_KIB and a quarter of the free memory; without
 * it, FUL_TRACE_KIB_DEFAULT, halved while the rings of all online cores
 * would take more than FUL_TRACE_BUDGET_KIB (kernel/trace.c). A size that
 * breaks a rule is refused on the console and the default used.
 *
 * Reading a ring: h = head (acquire); copy the records of indexes
 * [max(start, last read, h - ring_recs), h) from slot index & (ring_recs
 * - 1); then h2 = head again: the records with index < h2 - ring_recs + 1
 * may have been overwritten while copied and are lost to this reader.
 * The kernel's lost count (ful_trace_lost) is the records overwritten
 * since start, whether or not anyone had read them.
 *
 * Timestamps are the generic timer's virtual counter (CNTVCT_EL0, the
 * kernel's time source, arch_counter()), at counter_freq Hz.
 */
#ifndef FULCRUM_TRACE_H
#define FULCRUM_TRACE_H

#include <stdint.h>

#define FUL_TRACE_VERSION 2
#define FUL_TRACE_VADDR 0x7e000000UL   /* up to 16 MiB + the header pages,
					* below FUL_LOAD_VADDR */
#define FUL_TRACE_CPUS 64              /* ring headers: the kernel's MAX_CPUS */
#define FUL_TRACE_HDR_PAGES 2          /* struct ful_trace_hdr's pages */
#define FUL_TRACE_KIB_DEFAULT 64       /* ring size per core, boot arg trace_kib */
#define FUL_TRACE_KIB_MIN 4
#define FUL_TRACE_KIB_MAX 16384        /* a power of two in between */
#define FUL_TRACE_RINGS_MAX_KIB 16384  /* all rings together: the window */
#define FUL_TRACE_BUDGET_KIB 4096      /* all rings, without trace_kib */

/* Event classes: bits of the FUL_SYS_TRACE_SET mask. */
#define FUL_TRC_SWITCH (1u << 0)  /* context switch */
#define FUL_TRC_WAKE (1u << 1)    /* a thread made ready */
#define FUL_TRC_MIGRATE (1u << 2) /* migration out and in */
#define FUL_TRC_SGI (1u << 3)     /* SGI sent (received: IRQ entry < 16) */
#define FUL_TRC_MBOX (1u << 4)    /* mailbox post and accept */
#define FUL_TRC_IRQ (1u << 5)     /* IRQ entry and exit (SGIs included) */
#define FUL_TRC_IPC (1u << 6)     /* IPC call and reply */
#define FUL_TRC_THREAD (1u << 7)  /* thread create and exit */
#define FUL_TRC_ALL 0xffu
#define FUL_TRC_SCHED (FUL_TRC_SWITCH | FUL_TRC_WAKE | FUL_TRC_MIGRATE | \
		       FUL_TRC_THREAD) /* what the ftrace export needs */

/* FUL_SYS_TRACE_SET flags (x2). */
#define FUL_TRACE_RESTART 1u /* every ring's start = its head: a new trace */

/* Thread states in records (the kernel's own numbering, which the switch
 * record stores as it finds it: kernel/trace.c checks they agree). */
enum ful_trace_state {
	FUL_TR_ST_FREE, FUL_TR_ST_EMBRYO, FUL_TR_ST_READY, FUL_TR_ST_RUNNING,
	FUL_TR_ST_BLOCKED, FUL_TR_ST_MIGRATING, FUL_TR_ST_DEAD,
	FUL_TR_ST_INACTIVE, FUL_TR_ST_STARTING,
};

/* Record types, and what a, b, c, d, e and arg carry. Thread ids are
 * full tids (slot and generation); cores are indexes. */
enum ful_trace_type {
	FUL_TR_SWITCH = 1,  /* a prev tid, b next tid, arg prev state
			     * (FUL_TR_ST_*); c, d, e not written (prios:
			     * WAKE, THREAD_CREATE) */
	FUL_TR_WAKE,        /* a tid, b target core (this one), c waker: the
			     * tid running here (a cross-core waker posted a
			     * TASK_IPC: MBOX_POST on its core), d prio */
	FUL_TR_MIG_OUT,     /* a tid, b destination core, c decision id
			     * (0: none), arg its state (FUL_TR_ST_*) */
	FUL_TR_MIG_IN,      /* a tid, b source core (0xff unknown), c
			     * decision id */
	FUL_TR_SGI_SEND,    /* a target core mask, arg SGI number */
	FUL_TR_MBOX_POST,   /* a tid the request is about (0: none), b
			     * target core, arg ICC kind */
	FUL_TR_MBOX_ACCEPT, /* a tid (0: none), arg ICC kind */
	FUL_TR_IRQ_ENTRY,   /* a interrupt id (0..15: an SGI received) */
	FUL_TR_IRQ_EXIT,    /* of the last IRQ_ENTRY (no nesting); a 0 */
	FUL_TR_IPC_CALL,    /* a caller tid, b receiver tid, c label, arg 1:
			     * fastpath */
	FUL_TR_IPC_REPLY,   /* a replier tid, b caller tid, c label, arg 1:
			     * fastpath */
	FUL_TR_THREAD_CREATE, /* a tid, b core, arg prio, c..e the first
			       * 12 bytes of its name */
	FUL_TR_THREAD_EXIT, /* a tid */
	FUL_TR_NTYPES
};

struct ful_trace_rec {
	uint64_t ts;   /* CNTVCT_EL0 */
	uint8_t type;  /* enum ful_trace_type */
	uint8_t cpu;   /* the ring's core */
	uint16_t arg;
	uint32_t a, b, c, d, e;
};

struct ful_trace_ring_hdr {
	uint64_t head;  /* records ever written; one writer: its core */
	uint64_t start; /* head at the last FUL_TRACE_RESTART */
	uint32_t mask;  /* the classes this core records */
	uint32_t pad[11];
};

struct ful_trace_hdr {
	uint32_t version;      /* FUL_TRACE_VERSION */
	uint32_t ncpus;        /* rings: one per online core */
	uint32_t rec_size;     /* sizeof(struct ful_trace_rec) */
	uint32_t ring_recs;    /* records per ring, a power of two */
	uint64_t counter_freq; /* Hz of ts */
	uint64_t ring_offset;  /* bytes from the area's start to ring 0 */
	uint64_t size;         /* bytes of the whole area */
	uint32_t mask;         /* the classes last set */
	uint32_t pad[7];
	struct ful_trace_ring_hdr ring[FUL_TRACE_CPUS];
};

_Static_assert(sizeof(struct ful_trace_rec) == 32, "trace record size");
_Static_assert(sizeof(struct ful_trace_ring_hdr) == 64, "one line per ring");
_Static_assert(sizeof(struct ful_trace_hdr) <= FUL_TRACE_HDR_PAGES * 4096,
	       "trace header pages");
_Static_assert(FUL_TRACE_VADDR + FUL_TRACE_HDR_PAGES * 4096 +
		       FUL_TRACE_RINGS_MAX_KIB * 1024UL <= 0x7fc00000UL,
	       "the trace window ends below FUL_LOAD_VADDR");

/** Records of ring @r lost (overwritten) since its start. */
static inline uint64_t ful_trace_lost(const struct ful_trace_hdr *h,
				      const struct ful_trace_ring_hdr *r,
				      uint64_t head)
{
	uint64_t n = head - r->start;
	return n > h->ring_recs ? n - h->ring_recs : 0;
}

#endif
