/*
 * fulsim's internal state, shared by the engine (sim_core.c) and the
 * load area writer (sim_area.c).
 */
#ifndef SIM_INT_H
#define SIM_INT_H

#include "sim.h"

/* A thread being simulated. */
struct sthread {
	const struct sim_tdesc *d;
	unsigned tid;            /* index + 1: slot FUL_TID_SLOT(tid) */
	unsigned cpu;            /* owner core (destination while in flight) */
	unsigned char state;     /* FUL_TS_*: INACTIVE until released */
	unsigned weight;
	unsigned long slice;     /* ns: slice_ms scaled by weight / 1024 in
				  * whole ticks, as the kernel's
				  * slice_ticks_of (at least one tick) */
	unsigned iph, loop;      /* current phase, loops done */
	unsigned long left;      /* ns of CPU still to run in this burst */
	unsigned long runtime;   /* ns run in all */
	unsigned long run_from;  /* while RUNNING: since when */
	double wfrom;            /* its work clock then (icount, jitter:
				  * sim_clock.c) */
	unsigned long gen;       /* bumped to cancel its pending event */
	int next, prev;          /* run queue links (-1: none) */
	struct ful_win win;      /* run time by window (opzone reads it) */
	unsigned long win_base;
	/* A server: callers waiting (FIFO through qnext), the one served. */
	int qhead, qtail, qnext, serving;
	bool in_rq;
};

/* A core being simulated. */
struct score {
	int head, tail;          /* run queue, FIFO (one priority) */
	unsigned nready;
	int cur;                 /* running thread, -1: idle */
	unsigned long slice_end; /* when cur's slice runs out (a tick) */
	unsigned long gen;       /* bumped to cancel its pending event */
	unsigned long last_switch;
	unsigned long busy, idle, switches, mig_in, mig_out;
	unsigned long load, weight;
	unsigned nblocked;
	struct ful_win win;      /* busy time by window, up to last_switch */
	double speed;            /* jitter: work per ns now (sim_clock.c) */
	double wclk;             /* jitter: this core's work clock, ns... */
	unsigned long wlast;     /* ...brought up to this time */
};

enum ev_kind { EV_RELEASE, EV_CORE, EV_WAKE, EV_LAND, EV_TIMER, EV_DEMAND,
	       EV_SPEED };

struct event {
	unsigned long t;
	unsigned long seq;       /* FIFO among equal times: deterministic */
	unsigned kind, who;      /* who: thread index or core */
	unsigned long gen;
};

struct sim {
	const struct sim_workload *w;
	const struct sim_conf *c;
	struct sim_result *r;
	unsigned ncpus, nthreads, alive;
	unsigned long nready_total; /* READY threads over all cores */
	unsigned long now;
	struct sthread *t;
	struct score cpu[SIM_MAX_CPUS];
	struct event *heap;
	unsigned long nheap, capheap, evseq;
	struct ful_load_page *area;
	struct ful_win_par par;
	struct lb_policy pol;
	struct lb_snap snap;
	struct lb_log log;
	unsigned long mig_ready_ns, mig_running_ns;
	unsigned long period;    /* ns between timer rounds */
	bool in_balance;         /* no trigger from inside a round */
	unsigned nbusy;          /* cores running a thread */
	double wclk;             /* work clock (icount, sim_clock.c), ns */
	unsigned long wlast;     /* s->now when w was last brought up */
	/* The weight imbalance's integral (c->track_imb, sim_core.c): the
	 * figure held since imb_last, and its integral up to then. */
	double imb_now, imb_sum;
	unsigned long imb_last;
};

/** (Re)arm core @c's event (sim_core.c); @pending: re-armed from
 *  elsewhere, a slice running out right now is still to be handled. */
void cpu_arm_as(struct sim *s, unsigned c, bool pending);

/* sim_clock.c: the work clocks (plain, icount, per-core speed jitter). */
/** CPU work @t (running) has done since its mark, ns at full speed. */
unsigned long work_ran(struct sim *s, const struct sthread *t);
/** @t's progress counts from now on. */
void work_mark(struct sim *s, struct sthread *t);
/** When @t's burst (running on @c) ends at the rates of now. */
unsigned long work_end(struct sim *s, unsigned c, const struct sthread *t);
/** The number of busy cores moves by @dir (icount: every running core is
 *  re-armed). */
void work_busy(struct sim *s, int dir);
/** Jitter: the cores' speeds at 0 and the first epoch's event. */
void speed_init(struct sim *s);
/** Jitter: a new epoch (EV_SPEED): new speeds, running cores re-armed. */
void speed_epoch(struct sim *s);

/* sim_event.c: the event queue. */
/** Queue an event of @kind for @who at time @t (@gen: the generation it
 *  is for; a later one cancels it). */
void ev_push(struct sim *s, unsigned long t, unsigned kind, unsigned who,
	     unsigned long gen);
/** The earliest event (the queue must not be empty), off the queue. */
struct event ev_pop(struct sim *s);

/* sim_area.c: the load area, written as the kernel writes it. */
void area_init(struct sim *s);
void area_thread(struct sim *s, struct sthread *t);
void area_cpu(struct sim *s, unsigned c);
/** Core @c's record as its tick publishes it (rolled to its stamp
 *  first): area_cpu plus util_now, the sliding figure at `stamp`. */
void area_tick_cpu(struct sim *s, unsigned c);
void area_tgen(struct sim *s);
/** Core @c's windows and busy/idle up to @t (a switch or a tick there;
 *  last_switch <= t <= s->now). */
void area_roll_cpu(struct sim *s, unsigned c, unsigned long t);
/** Thread @t ran from t->run_from to s->now: its run time and windows. */
void area_roll_thread(struct sim *s, struct sthread *t);

#endif
