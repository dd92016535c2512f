/*
 * Per-CPU state: one struct cpu per core, reached with this_cpu().
 *
 * Guards: [O] owner core only, IRQs masked (other cores may read for
 * statistics, racily); [A] atomic, any core; [I] set at bring-up.
 * No field of another core's struct cpu is ever written except its [A]
 * fields (each says who writes it): the mailbox (push), the pool
 * records' state (free), the trace mask and the race hook.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "arch.h"
#include "icc.h"
#include "irqstat.h"
#include "mbox.h"
#include "race.h"
#include "runqueue.h"
#include <fulcrum/loadwin.h>
#include <fulcrum/trace.h>

struct thread;
struct vspace;

struct cpu_stats {
	uint64_t switches;                 /* [O] */
	uint64_t ticks;                    /* [O] */
	uint64_t timeouts;                 /* [O] timeout timer interrupts */
	uint64_t busy, idle;               /* [O] counter ticks */
	uint64_t awake;                    /* [O] arch_cycles() outside wfi,
					    * up to the last wfi entry */
	uint64_t awake_since;              /* [O] arch_cycles() at wfi exit */
	uint64_t ipi_in[4];                /* [O] by SGI 8..11 */
	uint64_t ipi_out;                  /* [O] GIC SGI writes */
	uint64_t icc_posted[ICC_NKINDS];   /* [O] by this core as sender */
	uint64_t icc_handled[ICC_NKINDS];  /* [O] by this core as target */
	uint64_t icc_forwarded;            /* [O] */
	uint64_t migrations_in, migrations_out; /* [O] */
	uint64_t overlap;                  /* [O] switch-ins of a thread live elsewhere */
	uint64_t nonidle_while_parked;     /* [O] switch-ins to a thread while parked */
};

struct cpu {
	struct cpu *self;          /* [I] offset 0 */
	uint64_t bench_delta;      /* [O] offset 8, written by vectors_bench */
	unsigned id;               /* [I] */
	bool need_resched;         /* [O] switch at the next kernel exit */
	_Atomic bool parked;       /* [O] IPI_RUN_IDLE received, not yet woken */
	bool tick_on;              /* [O] a thread runs: ticks are due */
	bool idle_poll;            /* [O] idle loop polls the GIC (see sched.c);
				    * off while a benchmark times the IRQ path */
	uint64_t ipi_owed;         /* [O] cores owed an IPI_ICC by this core
				    * (bit per core) */
	bool lbe_owed;             /* [O] a balancer event owed its signal
				    * (lbevent.h) */
	_Atomic uint8_t lbe_wake;  /* [lbe.lock] written, read by the core
				    * without it: FUL_LBE_WAKE is armed for
				    * this core (a hint: lbe_fire decides) */
	race_hook_fn race_hook;    /* [A] copy of race_hook, read where this
				    * struct is at hand: race_hook_set stores
				    * it (atomic), race_point_cpu reads it
				    * (volatile: one aligned LDR, its offset
				    * folded, which GCC's atomic load is not) */
	uint32_t trace_mask;       /* [A] trace classes this core records
				    * (FUL_TRC_*): trace_set stores it from
				    * any core, the owner loads it (trace.h) */
	uint32_t trace_dec;        /* [O] balancer decision id of the move
				    * being made (FUL_SYS_MIGRATE), 0 none */
	struct ful_trace_rec *trace_ring; /* [I] this core's ring, NULL: none */
	struct ful_trace_ring_hdr *trace_rh; /* [I] its header; head: [O] */
	uint32_t trace_wrap;       /* [I] records per ring - 1 */
	uint32_t trace_sw;         /* [I] FUL_TR_SWITCH | id << 8: the first
				    * word of a switch record (trace.h) */
	struct thread *current;    /* [O] (a thread blocked while the core
				    * idles in place lazily stays current
				    * until the switch completes: sched.c) */
	struct vspace *vs_active;  /* [O] address space in TTBR0, NULL: none */
	struct thread *idle;       /* [I] */
	struct thread *handoff;    /* [O] READY, off the run queue: made ready
				    * while this core idled, runs next */
	uint64_t last_switch;      /* [O] counter value at the last switch,
				    * moved on past a wait that ended in
				    * place (sched_idle_charge) */
	uint64_t win_end;          /* [O] end of utilization window win.idx:
				    * the first switch or tick at or after
				    * it rolls the windows over (load.c) */
	uint64_t tick_interval;    /* [I] counter ticks per scheduler tick */
	uint64_t tick_due;         /* [O] counter value of the next tick, while
				    * tick_on (a firing before it is a stale
				    * one: sleepers have their own timer) */
	uint32_t pool_next;        /* [O] next pool slot to try */
	struct rq_link sleepers;   /* [O] sleeping threads, by deadline */
	struct cpu_stats stats;
#ifdef FUL_IRQSTAT
	struct cpu_irqstat irqstat; /* [O] the IRQ-masked stretches of the
				     * instrumented kernel (irqstat.h: other
				     * cores read fig through its seqcount) */
#endif
	struct ful_win win;        /* [O] busy time by window (loadwin.h),
				    * up to the last roll-over */
	uint64_t win_busy0;        /* [O] stats.busy at that roll-over */
	struct ful_win_par win_par; /* [O] copy of the load header's window
				     * parameters, taken at hdr.util_seq */
	unsigned win_seq;          /* [O] that util_seq */
	bool win_unpub;            /* [O] rolled at a tick: load_tick
				    * publishes the window figures */
	bool win_lastpm_ok;        /* [O] win_lastpm is of window win.idx
				    * (cleared at each publication of the
				    * window figures, lcpu_win) */
	uint16_t win_lastpm;       /* [O] the last window's permille as a
				    * reader of the record takes it, for
				    * util_now (load_win_now, at the first
				    * busy tick of a window) */
	struct runqueue rq;        /* [O] */
	struct mbox mbox __attribute__((aligned(CACHELINE))); /* [A] */
	struct icc_req pool[ICC_POOL_SIZE] __attribute__((aligned(CACHELINE)));
	/* pool: allocated by the owner ([O]); any core frees ([A] state) */
} __attribute__((aligned(CACHELINE)));

extern struct cpu cpus[MAX_CPUS];
extern _Atomic uint64_t cpus_online_mask;

static inline struct cpu *this_cpu(void)
{
	return arch_this_cpu();
}

/** The id of the core running the caller, read with IRQs masked so it is
 *  a real core id even if the caller migrates right after (thread code
 *  that only wants to report where it runs). */
static inline unsigned this_cpu_id(void)
{
	uint64_t flags = arch_irq_save();
	unsigned id = this_cpu()->id;
	arch_irq_restore(flags);
	return id;
}

/*
 * Lock token: proof that the holder runs on core `cpu` with IRQs masked,
 * the one context allowed to touch that core's run queue and the
 * scheduling state of the threads it owns. Obtain it with owner_enter()
 * (thread context) or owner_irq() (already masked). schedule() consumes
 * it: after a switch the caller may resume on another core.
 */
struct owner {
	struct cpu *cpu;
};

static inline struct owner owner_enter(uint64_t *flags)
{
	*flags = arch_irq_save();
	return (struct owner){this_cpu()};
}

static inline struct owner owner_irq(void)
{
	return (struct owner){this_cpu()};
}

static inline void icc_flush(void)
{
	struct cpu *c = this_cpu();
	if (c->ipi_owed | c->lbe_owed)
		icc_flush_owed(c);
}

static inline race_hook_fn race_hook_of(struct cpu *c)
{
	return *(race_hook_fn volatile *)&c->race_hook;
}

/** race_point() reading @c's copy of the hook: one load from a pointer
 *  the caller holds, no address to form (the mailbox's hot paths). */
static inline void race_point_cpu(struct cpu *c, enum race_point p,
				  void *arg)
{
	race_point_hook(race_hook_of(c), p, arg);
}

static inline bool cpu_is_online(unsigned cpu)
{
	return cpu < MAX_CPUS &&
	       (atomic_load_explicit(&cpus_online_mask, memory_order_acquire) >>
		cpu & 1);
}

#endif
