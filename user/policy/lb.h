/*
 * Load balancing policies: the snapshot of the kernel's load area, the
 * policy interface, and the decision log. Plain portable C (no system
 * call, no malloc): built into the rootserver and into the host tests.
 *
 *   snapshot   per-core figures copied from the load area at each
 *              decision, plus a per-core index of threads ordered by
 *              (slice_ms, tid), or (weight, tid) for alb, rebuilt only
 *              when hdr.tgen or the order asked for changes
 *   policy     a name, tunables, place() (new thread -> core) and
 *              rebalance() (snapshot -> at most `max` moves); both fill
 *              a decision record
 *   log        a ring of decision records, each printable as one JSON
 *              line (keys: see lb_decision_json() in lb_log.c and
 *              docs/balancer.md, "Decision log")
 *
 * Policies: "mginkgo" (paper 000, as published) and "fulcrum" (the
 * refinement: idle trigger, several moves per round, no new overload);
 * "alb" (paper 001: average weight of tasks) and "count" (its baseline:
 * the number of runnable tasks); "opzone" (paper 004: operation zones on
 * utilization, task scores).
 */
#ifndef LB_H
#define LB_H

#include <stdbool.h>
#include <stddef.h>

#include <ful/load.h>
#include <fulcrum/syscall.h>
#include <fulcrum/weight.h>

/* A core in a decision record: one byte up to 254 cores (the rootserver's
 * build), two above (host builds with FUL_LOAD_CPUS up to 256, where core
 * 255 must differ from "no core"). */
#if FUL_LOAD_CPUS < 255
typedef unsigned char lb_cpu_t;
#define LB_NO_CPU 0xffu        /* "no core" in cores and in decision records */
#else
typedef unsigned short lb_cpu_t;
#define LB_NO_CPU 0xffffu
#endif
#define LB_MAX_MOVES 16        /* moves one rebalance may make (and log) */
#define LB_MAX_TUNABLES 8
#define LB_LOG_SIZE 64         /* records kept by the ring */
/* Enough for any record as one JSON line (about 40 bytes per core). */
#define LB_JSON_MAX (FUL_LOAD_CPUS <= 32 ? 4096 : 1024 + FUL_LOAD_CPUS * 64)

/* ---- snapshot ------------------------------------------------------- */

/* Figures a policy needs besides each core's load (struct lb_policy
 * needs). load alone is one 8-byte field, read atomically without the
 * seqcount; LB_NEED_NRUN reads load and nrunnable as a consistent pair
 * (seqcount); LB_NEED_ALL also copies the rest of each core record. */
#define LB_NEED_NRUN 1u
#define LB_NEED_ALL 2u
#define LB_NEED_MAX 4u /* set by lb_rebalance: s->max is wanted */
#define LB_NEED_WEIGHT 8u /* load, nrunnable and weight, each one atomic
			   * word (no seqcount), and the weights' total,
			   * least and most weighted core: cheaper than
			   * LB_NEED_ALL (alb) */
#define LB_NEED_COUNT 16u /* the same with the runnable counts' total,
			   * least and largest instead (count) */
#define LB_NEED_SELF 32u  /* none: the policy reads each core itself, with
			   * the figures it needs besides the load (opzone:
			   * utilization, under one seqcount), and fills
			   * d->v.load and d->sum; s->min / s->max are
			   * LB_NO_CPU */

#define LB_UTIL_NONE 0xffffu /* lb_dutil util[]: not read ("null") */

/* Per-core load and runnable count: what every decision is based on. */
struct lb_loads {
	unsigned long load[FUL_LOAD_CPUS]; /* sum of slice_ms of the runnable */
	unsigned nrun[FUL_LOAD_CPUS];      /* runnable threads (if has_nrun) */
	bool has_nrun;                     /* LB_NEED_NRUN or LB_NEED_ALL */
	bool has_weight;                   /* LB_NEED_WEIGHT or LB_NEED_ALL;
					    * meaningful only if has_nrun */
	unsigned long weight[FUL_LOAD_CPUS]; /* sum of the runnable's weights
					      * (if has_weight); with
					      * LB_NEED_COUNT the runnable
					      * counts (the figure count
					      * balances), has_weight false */
};

/* The rest of a core record (only with LB_NEED_ALL). */
struct lb_cpu_ext {
	unsigned nblocked, running;
	unsigned long weight, busy, idle, stamp;
};

/* A core's utilization at the refresh's `now`, permille, over a sliding
 * short and long window (ful_util_cpu: corrected for a tickless idle
 * core); only with LB_NEED_ALL. */
struct lb_util {
	unsigned short_pm, long_pm;
};

/* What a decision is made under besides the loads: the online cores and
 * the policy's include_root and threshold_pct, and what follows from them.
 * It changes only when one of those does, so the snapshot derives it then
 * (lb_snap_refresh) and each decision record copies it as one word. */
#if FUL_LOAD_CPUS <= 8
union lb_conf {
	struct {
		unsigned char ncpus;         /* online cores */
		unsigned char root_cpu;      /* the rootserver's, LB_NO_CPU if
					      * none or not online */
		unsigned char include_root;  /* the rootserver's core takes part */
		unsigned char threshold_pct; /* T of paper 000, in percent */
		unsigned char mask;          /* eligible cores */
		unsigned char neligible;     /* popcount(mask) */
	};
	unsigned long word;
};
#else /* the same fields, wide enough for FUL_LOAD_CPUS (not one word) */
union lb_conf {
	struct {
		unsigned short ncpus, root_cpu;
		unsigned char include_root, threshold_pct;
		unsigned short neligible;
		ful_cpus_t mask;
	};
};
#endif

/* The policy tunables the snapshot derives conf from, as one word. */
#define LB_SNAP_TUNABLES(include_root, threshold_pct)                       \
	((unsigned)(include_root) | (unsigned)(threshold_pct) << 8)

/* A thread a rebalance may move (lb_snap_pick). */
struct lb_cand {
	unsigned tid;
	unsigned slice;
	unsigned weight;
};

/* What the thread index is ordered by (after the core, before the tid). */
enum lb_index_key { LB_KEY_SLICE, LB_KEY_WEIGHT };

/* A run of consecutive eligible cores, as the load scan of lb_snap.c
 * reads it: a switch into LB_SCAN_STEPS unrolled steps, entered at
 * step skip; step k reads core first + k - skip. Derived with conf. */
#define LB_SCAN_STEPS 64
struct lb_run {
	unsigned long rb;    /* address of step 0's core record */
	long ob;             /* byte offset of step 0 in a load[] array */
	unsigned skip;       /* LB_SCAN_STEPS - cnt (0 above 64 cores) */
	unsigned first, cnt; /* its first core and how many */
};

struct lb_snap {
	const struct ful_load_page *area;
	unsigned root_cpu;     /* the rootserver's core, LB_NO_CPU if none */
	unsigned conf_key;     /* tunables | ncpus << 16 that conf was derived
				* from (lb_snap_refresh); ~0u: none yet */
	union lb_conf conf;    /* as of the last refresh */
	unsigned long now;     /* the caller's clock at the last refresh */
	const struct lb_loads *cur; /* the figures of the last refresh: in
				     * the decision record being made */
	/* Load monitoring over the eligible cores (paper 000's sum, max,
	 * min), computed while reading: */
	unsigned long sum;     /* their total load; LB_SUM_LAZY after a
				* placement's refresh (not computed) */
	unsigned min, max;     /* least / most loaded of them, ties to the
				* lowest id; LB_NO_CPU if there is none */
	/* Monitoring of the figure a policy balances over the eligible
	 * cores: weight (LB_NEED_WEIGHT) or runnable count (LB_NEED_COUNT);
	 * s->min and s->max are then LB_NO_CPU (next to them: placement
	 * reads these): */
	unsigned long msum;    /* its total */
	unsigned mmin, mmax;   /* least (ties: fewer runnable, lowest id) and
				* largest (ties: lowest id) */
	unsigned char index_key; /* enum lb_index_key of the built index */
	struct lb_cpu_ext ext[FUL_LOAD_CPUS];
	/* Thread index: core c's movable threads are key[first[c] ..
	 * first[c + 1]), each (c << 56 | slice_ms << 32 | tid), ascending.
	 * Valid while hdr.tgen == tgen (checked by lb_snap_pick). */
	bool index_ok;
	unsigned long tgen;    /* hdr.tgen read before the last rebuild */
	unsigned short first[FUL_LOAD_CPUS + 1];
	unsigned long key[FUL_LOAD_THREADS];
	/* Statistics (tests assert on them). */
	unsigned long builds;  /* index rebuilds */
	unsigned long probes;  /* index entries examined by lb_snap_pick */
	/* With LB_NEED_ALL (last, so that what placement reads keeps its
	 * offsets): each core's utilization, the window parameters
	 * (hdr.util_*) and the average over the online cores, permille
	 * (paper 004, 3.2: the averaged view next to the per-core one). */
	struct lb_util util[FUL_LOAD_CPUS];
	struct ful_win_par upar;
	unsigned util_avg_short, util_avg_long;
	/* Index by weight (lb_snap_pick_weight): the key's middle field is
	 * the weight instead of the slice, and wlvl[c][l] is the first entry
	 * of core c whose weight is >= the l-th smallest weight of the nice
	 * table (wlvl[c][FUL_NICE_LEVELS] = first[c + 1]): "the heaviest
	 * thread not above w" is found in O(1) of the thread count; the key
	 * is index_key, above. */
	unsigned short wlvl[FUL_LOAD_CPUS][FUL_NICE_LEVELS + 1];
	/* With the index by weight: the weight of core c's heaviest
	 * indexed thread, 0 if it has none (alb's fill test). */
	unsigned wtop[FUL_LOAD_CPUS];
	/* Above 8 cores, how the loads are read (lb_snap.c, snap_runs): */
	unsigned run_key;      /* conf_key the runs were derived for */
	unsigned run_root;     /* core read apart (not eligible), or LB_NO_CPU */
	struct lb_run run[2];  /* the eligible cores: [0, root), (root, n) */
};

void lb_snap_init(struct lb_snap *s, const struct ful_load_page *area,
		  unsigned root_cpu);
void lb_snap_refresh(struct lb_snap *s, unsigned long now, unsigned needs,
		     unsigned tunables, struct lb_loads *into);

/** lb_snap_refresh for a policy that reads the cores itself
 *  (LB_NEED_SELF), inline: true if s->conf still holds for @tunables
 *  and the online cores, with the refresh done (the clock, the record's
 *  figures, no least / most loaded core); false, and nothing done, if
 *  it must be derived again (call lb_snap_refresh). The stores are
 *  lb_snap_refresh's for LB_NEED_SELF. */
static inline bool lb_snap_refresh_self(struct lb_snap *s, unsigned long now,
					unsigned tunables,
					struct lb_loads *into)
{
	unsigned key = tunables | ful_load_ncpus(s->area) << 16;
	if (__builtin_expect(key != s->conf_key, 0))
		return false;
	s->now = now;
	s->cur = into;
	into->has_nrun = false;
	s->min = s->max = LB_NO_CPU;
	return true;
}
void lb_snap_index(struct lb_snap *s);
bool lb_snap_pick(struct lb_snap *s, unsigned from, unsigned to,
		  const unsigned *skip, unsigned nskip, struct lb_cand *out);
/** Thread @tid's run time in counter ticks in the current window
 *  (@cur) and the last one (@last), as of the last refresh's `now`
 *  (ful_util_thread; needs a refresh with LB_NEED_ALL). false, and 0s,
 *  if @tid is not live. How long a task has kept a high usage: the
 *  windows in a row with last near s->upar.win. */
bool lb_snap_thread_util(const struct lb_snap *s, unsigned tid,
			 unsigned long *cur, unsigned long *last);
bool lb_snap_pick_weight(struct lb_snap *s, unsigned from, unsigned to,
			 unsigned long fit, unsigned long limit,
			 const unsigned *skip, unsigned nskip,
			 struct lb_cand *out);

/* ---- decision records ------------------------------------------------ */

enum lb_kind { LB_KIND_PLACE, LB_KIND_REBALANCE };

enum lb_trigger {
	LB_TRIG_CREATE,  /* a thread is being created (placement) */
	LB_TRIG_TIMER,   /* the periodic rebalance (period_ms) */
	LB_TRIG_DEMAND,  /* asked for explicitly */
	LB_TRIG_IDLE,    /* the caller saw a core go idle */
	LB_TRIG_WAKE,    /* the caller saw a core wake from idle (opzone) */
	LB_TRIG_BUSIEST, /* the running task is on the busiest core (opzone) */
	LB_TRIG_COUNT
};

enum lb_state { LB_ST_EXCLUDED, LB_ST_LIGHT, LB_ST_NORMAL, LB_ST_HEAVY };

/* What opened a rebalance round (fulcrum has more than one gate). */
enum lb_gate {
	LB_GATE_NONE,
	LB_GATE_HEAVY_LIGHT, /* heaviest heavy and lightest light (paper) */
	LB_GATE_HEAVY,       /* some core heavy */
	LB_GATE_LIGHT,       /* some core light */
	LB_GATE_IDLE,        /* a core with nothing runnable while another has >= 2 */
};

/* Outcome, or why the decision stopped where it did. */
enum lb_reason {
	LB_R_PLACED,         /* placement: a core was chosen */
	LB_R_MOVED,          /* mginkgo: its one move */
	LB_R_BALANCED,       /* no gate open / no core above the destination */
	LB_R_NO_LIGHT,       /* mginkgo: heaviest heavy, lightest not light */
	LB_R_NO_CANDIDATE,   /* no runnable movable thread allowed there */
	LB_R_NEW_OVERLOAD,   /* the move would create a new overload */
	LB_R_TOO_FEW_CORES,  /* fewer than two eligible cores */
	LB_R_MAX_MOVES,      /* the bound on moves was reached */
	LB_R_NO_ELIGIBLE,    /* placement: affinity excludes every eligible
			      * core; the lowest allowed core was taken */
	LB_R_NO_GAIN,        /* alb: every candidate would leave the
			      * destination at least as heavy as its source */
	LB_R_TIMER_DECLINED, /* opzone: never rebalances on the blind timer */
	LB_R_BELOW_ZONE,     /* opzone: utilization not in the zone that
			      * balances (cold, below the spot, not hot) */
	LB_R_TASK_BELOW_SPOT,/* opzone (warm): the candidate's score is not
			      * above the spot */
	LB_R_SHARED,         /* fulcrum: its last moves were of the share pass */
	LB_R_WITHIN_FILL,    /* alb: every core above the average that could
			      * give holds no more than paper 001's fill
			      * (below it without its heaviest task) */
	LB_R_COUNT
};

/* Why a move of alb or count was made (struct lb_dmove why). */
enum lb_why {
	LB_W_NONE,           /* mginkgo, fulcrum: the decision's reason says */
	LB_W_FILL,           /* alb: fits below the average on both sides */
	LB_W_OVERSHOOT,      /* alb: it passes the average on one side (the
			      * destination ends above it, by less than the
			      * task's weight, or the source below it); the
			      * destination ends lighter than the source was */
	LB_W_COUNT_DIFF,     /* count: the source has >= 2 more runnable */
	LB_W_FEWEST,         /* count placement: the fewest runnable */
	LB_W_COUNT
};

/* What the policy balances (struct lb_decision metric): the log prints
 * the per-core figures and the average of the metric besides the loads. */
enum lb_metric { LB_METRIC_LOAD, LB_METRIC_WEIGHT, LB_METRIC_NRUN };

struct lb_dmove {
	unsigned tid;        /* 0 for a placement (the thread has no tid yet) */
	unsigned slice;
	lb_cpu_t from;       /* LB_NO_CPU for a placement */
	lb_cpu_t to;
	unsigned long from_after, to_after; /* predicted loads after it (in
					     * the decision's metric) */
	unsigned weight;     /* the thread's weight (alb, count) */
	unsigned char why;   /* enum lb_why */
};

/* What a utilization policy (opzone, paper 004) decided on: in a
 * decision record when has_util (the JSON line then has the keys zone,
 * spot, cpus_avg, bound, figure, util, task). Permille throughout. */
struct lb_dutil {
	unsigned char zone, spot, cpus_avg;   /* the tunables used */
	unsigned short bound;   /* balance only if figure > bound */
	unsigned short figure;  /* busiest core's utilization, or the
				 * average over the eligible cores */
	unsigned short util[FUL_LOAD_CPUS];   /* short sliding window;
					       * LB_UTIL_NONE: not read (a
					       * core not eligible) */
	unsigned tid;           /* the task weighed (0: none) */
	unsigned short task_util;             /* its usage */
	short score;            /* its prize/punish adjustment */
	unsigned short eff;     /* usage with the score, bounded */
	unsigned char busiest;  /* the most utilized eligible core (ties:
				 * lowest id), LB_NO_CPU if none: the core
				 * the balancer asks the kernel to watch */
};

struct lb_decision {
	unsigned long seq;   /* set by lb_log_next */
	unsigned long time;  /* snapshot clock (lb_snap.now) */
	const char *policy;
	union lb_conf conf;  /* cores, tunables and eligible cores (the
			      * others are "excluded") */
	unsigned char kind, trigger, gate, reason;
	unsigned char nmoves;
	bool has_reject;     /* a candidate was found and turned down */
	unsigned char metric; /* enum lb_metric: what from_after / to_after
			       * and msum are in */
	bool has_util;       /* opzone: ut is filled */
	unsigned long sum;   /* load of the eligible cores: A = sum / neligible;
			      * LB_SUM_LAZY in a placement: read it with
			      * lb_dsum() */
	struct lb_loads v;   /* before the decision */
	struct lb_dmove move[LB_MAX_MOVES];  /* the moves (or the placement) */
	struct lb_dmove reject;              /* if has_reject */
	unsigned long msum;   /* alb: weight, count: runnable threads of the
			       * eligible cores (average = msum / neligible) */
	struct lb_dutil ut;                  /* if has_util */
};

/* Derived figures (computed when needed, not stored: they cost the
 * decision nothing). A placement decides on the least loaded core alone;
 * above 8 cores it leaves its record's sum LB_SUM_LAZY, and lb_dsum()
 * adds the recorded loads of the eligible cores up when the total is
 * read (the JSON line, the states). */
#define LB_SUM_LAZY (~0UL)

/** The total load of @d's eligible cores (as recorded). */
static inline unsigned long lb_dsum(const struct lb_decision *d)
{
	if (d->sum != LB_SUM_LAZY)
		return d->sum;
	unsigned long sum = 0;
	for (unsigned c = 0; c < d->conf.ncpus && c < FUL_LOAD_CPUS; c++)
		if (ful_cpus_has(d->conf.mask, c))
			sum += d->v.load[c];
	return sum;
}

/* States follow equation 1 of paper 000, exactly, in integers: heavy
 * iff L n 100 > sum (100 + T), light iff < sum (100 - T); @sum is
 * lb_dsum(@d) (a rebalance passes d->sum, always computed there). */
static inline unsigned lb_state_sum(const struct lb_decision *d, unsigned c,
				    unsigned long sum)
{
	if (c >= FUL_LOAD_CPUS || !ful_cpus_has(d->conf.mask, c))
		return LB_ST_EXCLUDED;
	unsigned long l = d->v.load[c] * d->conf.neligible * 100;
	if (l > sum * (100 + d->conf.threshold_pct))
		return LB_ST_HEAVY;
	if (l < sum * (100 - d->conf.threshold_pct))
		return LB_ST_LIGHT;
	return LB_ST_NORMAL;
}

static inline unsigned lb_state(const struct lb_decision *d, unsigned c)
{
	return lb_state_sum(d, c, lb_dsum(d));
}

/** A, A(1+T), A(1-T) of @d, times 100 (two decimals). */
static inline unsigned long lb_avg100(const struct lb_decision *d)
{
	unsigned n = d->conf.neligible;
	return n ? lb_dsum(d) * 100 / n : 0;
}

static inline unsigned long lb_hi100(const struct lb_decision *d)
{
	unsigned n = d->conf.neligible;
	return n ? lb_dsum(d) * (100 + d->conf.threshold_pct) / n : 0;
}

static inline unsigned long lb_lo100(const struct lb_decision *d)
{
	unsigned n = d->conf.neligible;
	return n ? lb_dsum(d) * (100 - d->conf.threshold_pct) / n : 0;
}

/* ---- policies ------------------------------------------------------- */

struct lb_tunable {
	const char *name;
	long value, min, max;
};

/* What placement knows about the thread being created. */
struct lb_new_thread {
	unsigned slice_ms;
	ful_cpus_t affinity; /* empty: every core */
	int nice;
};

struct lb_policy {
	const char *name;
	unsigned needs;      /* LB_NEED_*: what its decisions read */
	unsigned events;     /* FUL_LBE_* kernel events that should trigger
			      * its rounds (opzone: paper 004's triggers);
			      * 0: the balancer's timer and demand only */
	unsigned ntunables;
	struct lb_tunable tun[LB_MAX_TUNABLES];
	/** The core for a new thread; fills @d. */
	unsigned (*place)(struct lb_policy *p, const struct lb_snap *s,
			  const struct lb_new_thread *t, struct lb_decision *d);
	/** Up to @max moves into @moves (for FUL_SYS_MIGRATE); fills @d. */
	unsigned (*rebalance)(struct lb_policy *p, struct lb_snap *s,
			      struct ful_move *moves, unsigned max,
			      struct lb_decision *d);
	void *state;         /* for policies that keep state across rounds */
	/* Which setting of the tunables this is: 0 as initialised (the
	 * defaults), else a number lb_tunable_set draws afresh (never
	 * reused, across every policy of the program) at each change; a
	 * policy keeps what it derives from its tunables (opzone: bounds,
	 * windows in counter ticks) while gen stays. */
	unsigned long gen;
	/** Thread @tid's score into *@out: true; false if it has none.
	 *  NULL: the policy keeps no scores (opzone: its prize/punish
	 *  adjustment). Reads only, under the lock the decisions hold. */
	bool (*score)(const struct lb_policy *p, unsigned tid, int *out);
};

/* Tunables every policy has, at these indices. */
enum {
	LB_T_PERIOD,         /* period_ms: the rebalance timer */
	LB_T_THRESHOLD,      /* threshold_pct: T of paper 000, in percent */
	LB_T_INCLUDE_ROOT,   /* include_root: the rootserver's core takes part */
	LB_T_COMMON
};

#define LB_E_NAME (-1)   /* no tunable (or policy) of that name */
#define LB_E_RANGE (-2)  /* value outside [min, max] */

void lb_mginkgo_init(struct lb_policy *p);
void lb_fulcrum_init(struct lb_policy *p);
void lb_alb_init(struct lb_policy *p);
void lb_count_init(struct lb_policy *p);
void lb_opzone_init(struct lb_policy *p);
/** End a one-move round by turning candidate @m down with @reason. */
static inline unsigned lb_decline(struct lb_decision *d, unsigned reason,
				  const struct lb_dmove *m)
{
	d->reason = (unsigned char)reason;
	d->reject = *m;
	d->has_reject = true;
	return 0;
}

/** End a one-move round with move @m of thread @tid: 1, or 0 (reason
 *  max_moves) if the caller allows no move (@max 0). */
static inline unsigned lb_move_one(struct lb_decision *d,
				   struct ful_move *moves, unsigned max,
				   const struct lb_dmove *m, unsigned tid)
{
	if (!max) {
		d->reason = LB_R_MAX_MOVES;
		return 0;
	}
	moves[0] = (struct ful_move){.tid = tid, .cpu = m->to};
	d->move[0] = *m;
	d->nmoves = 1;
	return 1;
}
int lb_policy_init(struct lb_policy *p, const char *name);
int lb_tunable_set(struct lb_policy *p, const char *name, long value);
int lb_tunable_get(const struct lb_policy *p, const char *name, long *value);

/* A decision on fresh figures: refresh @s (at time @now, the policy's
 * needs), fill the common part of @d, call the policy. */
unsigned lb_place(struct lb_policy *p, struct lb_snap *s, unsigned long now,
		  const struct lb_new_thread *t, struct lb_decision *d);
unsigned lb_rebalance(struct lb_policy *p, struct lb_snap *s,
		      unsigned long now, enum lb_trigger trigger,
		      struct ful_move *moves, unsigned max,
		      struct lb_decision *d);

/* Helpers shared by the policies (lb_policy.c). */
unsigned lb_least_loaded(const unsigned long *load, ful_cpus_t mask);
unsigned lb_most_loaded(const unsigned long *load, ful_cpus_t mask);
unsigned lb_place_least(const struct lb_snap *s, const struct lb_new_thread *t,
			struct lb_decision *d, bool tie_nrun);

/**
 * Record the inputs of a decision in @d (each core's load and runnable
 * count are already there: the snapshot reads them into d->v): the
 * configuration and the total load of the eligible cores, which leave
 * the rootserver's core out unless include_root (the paper's A does, and
 * its placement never chooses that core). Returns the eligible mask.
 */
static inline ful_cpus_t lb_record(const struct lb_snap *s,
				 struct lb_decision *d)
{
	d->conf = s->conf;
	d->sum = s->sum;
	return s->conf.mask;
}

/* ---- decision log ---------------------------------------------------- */

struct lb_log {
	unsigned long next;  /* seq of the next record */
	struct lb_decision rec[LB_LOG_SIZE];
};

/** The next record of the ring, with its seq set; the caller (a policy
 *  via lb_place / lb_rebalance) fills the rest. */
static inline struct lb_decision *lb_log_next(struct lb_log *l)
{
	struct lb_decision *d = &l->rec[l->next % LB_LOG_SIZE];
	d->seq = l->next++;
	return d;
}

/** Give back the record lb_log_next() just returned (nothing taken
 *  from @l since): the next lb_log_next() reuses it. */
static inline void lb_log_unnext(struct lb_log *l)
{
	l->next--;
}

const struct lb_decision *lb_log_get(const struct lb_log *l,
				     unsigned long seq);
bool lb_log_repeats(const struct lb_log *l, const struct lb_decision *d);
int lb_decision_json(const struct lb_decision *d, char *buf, size_t n);
const char *lb_reason_name(unsigned reason);
const char *lb_state_name(unsigned state);
const char *lb_why_name(unsigned why);

#endif
