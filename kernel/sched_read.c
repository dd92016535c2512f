/*
 * Read-time accounting: a core's busy and idle time and a thread's run
 * time up to now, for THREAD_INFO and the debug console.
 *
 * The figures advance only at switches and ticks (sched_account_at): a
 * core's last_switch, stats.busy/idle and its running thread's runtime
 * change together, on that core, IRQs masked, and an idle core is
 * tickless, so a reader adds the open stretch since last_switch. They
 * are read where they are written: on the owner core with IRQs masked
 * (this core: at once; another: a call to it over the ICC layer). A
 * lock-free read from another core could pair a new last_switch with an
 * old run time and go backwards by up to a tick; a sequence count
 * would cost every switch, the IPC fastpath's included, for readers
 * that are rare. A thread not running needs no call: its run time is
 * final up to its last switch-out (on_cpu clear, acquire).
 */
#include "kernel.h"
#include "sched.h"
#include "thread.h"

/* One reading, made on the core it asks about; carried in the ICC
 * record (icc_call_copy). */
struct sched_reading {
	struct thread *t;       /* NULL: the core's figures */
	uint64_t busy_or_run;   /* the core's busy time, or @t's run time */
	uint64_t idle;          /* the core's idle time (t NULL) */
	uint32_t again;         /* @t runs on another core: ask its owner */
};
_Static_assert(sizeof(struct sched_reading) <= ICC_CALL_DATA,
	       "a reading fits in a CALL_FUNC record");

/**
 * ICC handler (or inline on this core), IRQs masked: fill @arg, a
 * struct sched_reading, from this core's figures. @t's run time is
 * final here unless it runs on another core (moved while it ran, not
 * yet switched out there): then again.
 */
static void sched_read_here(void *arg)
{
	struct sched_reading *r = arg;
	struct cpu *c = this_cpu();
	uint64_t open = arch_counter() - c->last_switch;
	struct thread *t = r->t;
	if (!t) {
		bool busy = c->current != c->idle;
		r->busy_or_run = c->stats.busy + (busy ? open : 0);
		r->idle = c->stats.idle + (busy ? 0 : open);
	} else if (c->current == t) {
		r->busy_or_run = t->runtime + open;
	} else {
		r->busy_or_run = t->runtime;
		r->again = atomic_load_explicit(&t->on_cpu,
						memory_order_acquire);
	}
}

/** Make reading @r on core @cpu; false if the call failed (the core
 *  kept IRQs masked for the whole timeout, or no record was free).
 *  Thread context. */
static bool sched_read_on(unsigned cpu, struct sched_reading *r)
{
	return icc_call_copy(cpu, sched_read_here, r, sizeof(*r)) == 0;
}

void sched_cpu_times(struct cpu *c, uint64_t *busy, uint64_t *idle)
{
	struct sched_reading r = {0};
	if (!sched_read_on(c->id, &r)) { /* up to its last switch only */
		r.busy_or_run = __atomic_load_n(&c->stats.busy,
						__ATOMIC_RELAXED);
		r.idle = __atomic_load_n(&c->stats.idle, __ATOMIC_RELAXED);
	}
	*busy = r.busy_or_run;
	*idle = r.idle;
}

uint64_t sched_thread_runtime(struct thread *t)
{
	for (unsigned tries = 0; tries < 1000; tries++) {
		/* Not running: its run time is final (acquire: the books of
		 * its last switch-out came before on_cpu was cleared). */
		if (!atomic_load_explicit(&t->on_cpu, memory_order_acquire))
			return __atomic_load_n(&t->runtime, __ATOMIC_RELAXED);
		unsigned cpu = atomic_load_explicit(&t->cpu,
						    memory_order_acquire);
		struct sched_reading r = {.t = t};
		if (cpu >= machine.ncpus || !sched_read_on(cpu, &r))
			break;
		if (!r.again)
			return r.busy_or_run;
		arch_cpu_relax();
	}
	return __atomic_load_n(&t->runtime, __ATOMIC_RELAXED);
}
