/*
 * opzone's private declarations (lb_opzone.c, the policy and its common
 * path; lb_opzone_exact.c, its readers off that path): the tunables'
 * indices, the zones and spots, and the state kept across decisions.
 * Not part of the policy interface (lb.h).
 */
#ifndef LB_OPZONE_H
#define LB_OPZONE_H

#include "lb.h"

enum {
	OZ_T_ZONE = LB_T_COMMON, /* 0 cold, 1 warm, 2 hot */
	OZ_T_SPOT,               /* warm: 0 low, 1 mid, 2 high */
	OZ_T_AVG,                /* cpus_avg */
	OZ_T_PRIZE,              /* prize_ms */
	OZ_T_PUNISH,             /* punish_ms */
	OZ_T_COUNT
};

enum { OZ_COLD, OZ_WARM, OZ_HOT };

#define OZ_LOW 300u   /* permille: low spot, top of the cold zone */
#define OZ_MID 500u
#define OZ_HIGH 800u  /* high spot, bottom of the hot zone */
#define OZ_STEP 50    /* a prize or a punishment: 5 % */
#define OZ_ADJ_MAX 500
/* Entries of the busiest core's thread index a decision looks at in
 * all, from the core's cursor round robin, stopping at the first
 * candidate (oz_candidate): the decision stays O(1) in the number of
 * threads (a constant, not a tunable: lb.h has room for
 * LB_MAX_TUNABLES). */
#define OZ_PROBE 4

/* A task's score, by thread slot. */
struct oz_task {
	unsigned tid;          /* 0: unused */
	short adj;             /* permille, multiple of OZ_STEP */
	bool high;             /* in a high stretch */
	bool punished;         /* punished during it */
	unsigned long since;   /* its start (snapshot clock, counter ticks) */
	unsigned long seen;    /* time of the last look (0: never) */
	unsigned long runtime; /* its runtime then */
};

/* The window parameters and the window of the last decision, kept
 * across decisions (oz_clock): read again only when hdr.util_seq moves,
 * the window index computed again only when `now` left that window. */
struct oz_win {
	unsigned seq;          /* hdr.util_seq they were read at; odd: none */
	struct ful_win_par par;
	unsigned long idx, ws; /* a window and its start */
};

/* What the tunables give (oz_derive), kept while the policy's gen and
 * the area's counter frequency stay: the zone's bound, prize_ms and
 * punish_ms in counter ticks, and the first bytes of a decision's
 * utilization part (zone, spot, cpus_avg, bound; figure 0), which a
 * decision copies as one word. */
struct oz_tun {
	unsigned long gen, freq; /* gen ~0: nothing derived yet */
	unsigned bound;          /* balance only above it, permille */
	int task_bound;          /* warm: a task moves only if its score is
				  * above it (the spot); else -1 */
	unsigned long prize, punish;
	struct lb_dutil head;
};

_Static_assert(offsetof(struct lb_dutil, figure) == 6 &&
		       sizeof(struct lb_dutil) >= 8,
	       "oz_record copies zone, spot, cpus_avg and bound as one word");

/* Per core: the task of the highest rank its walk has weighed (kept:
 * its rank then stands for it until it is weighed again), and where
 * the next walk of its thread index starts (oz_candidate). */
struct oz_core {
	unsigned best;         /* tid, 0: none */
	unsigned rank;         /* its rank when it was last weighed: its
				* score << 16 | its usage, so that the
				* higher rank, ties to the higher usage,
				* is one compare (both below 2^16) */
	short adj;             /* and its adjustment then */
	unsigned cursor;
	unsigned long tgen;    /* the index's tgen then: while hdr.tgen stays,
				* its tid, core and affinity do too */
	ful_cpus_t aff;        /* so its affinity then (empty: all) is its
				* affinity now (32 bytes up to 64 cores: an
				* entry's address is a shift) */
};

/* The policy's state besides the task table, in one object, so that one
 * base register reaches all of it in a decision (three objects took an
 * address of their own at each use: about 9 adrp/add pairs a decision). */
struct oz_state {
	struct oz_tun tun;
	struct oz_win win;
	struct oz_core core[FUL_LOAD_CPUS];
};
extern struct oz_state oz;

/** The window of the decision, as values (oz_clock): passed by value
 *  so that they stay in registers across the stores into the decision
 *  record (a pointer to them could alias those). */
struct oz_clk {
	unsigned long now, idx, e, tail, win;
};

/** oz_derive's work: the bound of the configured zone and spot, the
 *  windows in counter ticks at frequency @f, the record head. */
void oz_derive_all(const struct lb_policy *p, unsigned long f);
/** oz_clock's rare case (lb_opzone_exact.c). */
unsigned long oz_clock_roll(const struct ful_load_page *a, unsigned long now,
			    unsigned seq);
/** Core @c's utilization, read and rolled to @now exactly, and its load
 *  in *@loadp (lb_opzone_exact.c). */
unsigned oz_cpu_exact(const struct ful_load_page *ar, unsigned c,
		      unsigned long now, unsigned long *loadp);

/** The window parameters and the window of @now (oz.win: read again
 *  only when they changed or `now` left the last window). */
static inline __attribute__((always_inline)) struct oz_clk
oz_clock(const struct ful_load_page *a, unsigned long now)
{
	unsigned seq = __atomic_load_n(&a->hdr.util_seq, __ATOMIC_ACQUIRE);
	unsigned long e = now - oz.win.ws; /* in [0, win) if no roll */
	if (__builtin_expect(seq != oz.win.seq || e >= oz.win.par.win, 0))
		e = oz_clock_roll(a, now, seq);
	unsigned long win = oz.win.par.win;
	return (struct oz_clk){.now = now,
			       .idx = oz.win.idx, /* ~0 if no window: the
						   * general reader */
			       .e = e, .tail = win - e, .win = win};
}

#endif
