/*
 * The decision log: a ring of LB_LOG_SIZE decision records, and one
 * JSON line per record.
 *
 * JSON keys, in this order (one object, no newline):
 *   seq           record number, from 0
 *   t             the caller's clock at the snapshot (counter ticks)
 *   policy        policy name
 *   kind          "place" | "rebalance"
 *   trigger       "create" | "timer" | "demand" | "idle" | "wake" |
 *                 "busiest"
 *   gate          what opened the round: "none" | "heavy_light" |
 *                 "heavy" | "light" | "idle"
 *   ncpus, root   cores online; the rootserver's core (null if none)
 *   include_root  0/1, threshold_pct: T in percent
 *   load, nrun    per core, before the decision: L and runnable threads
 *                 (nrun null if the policy does not read it: mginkgo)
 *   avg, hi, lo   A, A(1+T), A(1-T) over the eligible cores, 2 decimals
 *   state         per core: "excluded" | "light" | "normal" | "heavy"
 *   moves         [{tid, slice, from, to, from_after, to_after}], the
 *                 loads predicted after each move in turn; a placement
 *                 is one entry with tid, from and from_after null
 *   reject        the first candidate turned down (same keys) or null
 *   reason        "placed" | "moved" | "balanced" | "no_light" |
 *                 "no_candidate" | "new_overload" | "too_few_cores" |
 *                 "max_moves" | "no_eligible" | "no_gain" | "shared"
 *                 (fulcrum's share pass made the last moves) |
 *                 "within_fill" (alb: no source holds more than paper
 *                 001's fill): the outcome,
 *                 or why the round stopped (fulcrum, alb, count: after
 *                 its last move)
 *
 * Policies that balance another metric than the load (alb: weight,
 * count: runnable threads) add, after "state" (the keys above keep their
 * meaning, so mginkgo's and fulcrum's lines are unchanged):
 *   metric        "weight" | "nrun"
 *   weight, wavg  alb: per core weight (sum of the runnable threads'
 *                 weights) before the decision, and the average over
 *                 the eligible cores, 2 decimals
 *   navg          count: the average runnable count, 2 decimals
 * and, in each move (and reject), after "to_after" (which, with
 * "from_after", is then in the metric: weight or runnable count):
 *   weight        the thread's weight
 *   why           "fill" | "overshoot" | "count_diff" | "fewest": why it
 *                 moved or went there (docs/policy-alb.md and
 *                 docs/policy-count.md, "Decision log")
 *   opzone's reasons also "timer_declined" | "below_zone" |
 *   "task_below_spot"
 * Only in records of a utilization policy (opzone), after reason:
 *   zone, spot    "cold" | "warm" | "hot"; "low" | "mid" | "high"
 *   cpus_avg      0: the busiest core's figure, 1: the average
 *   bound, figure balance only if figure > bound (percent, 1 decimal)
 *   util          per core, short sliding window (percent, 1 decimal)
 *   task          {tid, util, score, eff} of the task weighed, or null
 */
#include <stdarg.h>
#include <stdio.h>

#include "lb.h"

/** Record @seq if it is still in the ring, else NULL. */
const struct lb_decision *lb_log_get(const struct lb_log *l,
				     unsigned long seq)
{
	if (seq >= l->next || l->next - seq > LB_LOG_SIZE)
		return NULL;
	return &l->rec[seq % LB_LOG_SIZE];
}

/** Same conf (cores, tunables, eligible cores) in both records? */
static bool conf_same(const union lb_conf *a, const union lb_conf *b)
{
	return a->ncpus == b->ncpus && a->root_cpu == b->root_cpu &&
	       a->include_root == b->include_root &&
	       a->threshold_pct == b->threshold_pct &&
	       a->neligible == b->neligible && ful_cpus_eq(a->mask, b->mask);
}

/**
 * Does rebalance record @d, just taken from @l, repeat the record before
 * it: both moved nothing and turned nothing down, on the same figures
 * (loads, runnable counts, weights), with the same trigger, gate and
 * outcome? Records with utilization figures (opzone) never repeat: those
 * move with time. The caller holds whatever guards @l.
 */
bool lb_log_repeats(const struct lb_log *l, const struct lb_decision *d)
{
	const struct lb_decision *p = d->seq ? lb_log_get(l, d->seq - 1) : NULL;
	if (!p || d->kind != LB_KIND_REBALANCE || p->kind != d->kind ||
	    d->nmoves || p->nmoves || d->has_reject || p->has_reject ||
	    d->has_util || p->has_util || p->policy != d->policy ||
	    p->trigger != d->trigger || p->gate != d->gate ||
	    p->reason != d->reason || p->metric != d->metric ||
	    p->sum != d->sum || p->msum != d->msum ||
	    p->v.has_nrun != d->v.has_nrun ||
	    p->v.has_weight != d->v.has_weight ||
	    !conf_same(&p->conf, &d->conf))
		return false;
	/* weight[] holds weights (alb) or runnable counts (count), else
	 * nothing the record shows */
	bool weights = d->v.has_weight || d->metric != LB_METRIC_LOAD;
	for (unsigned c = 0; c < d->conf.ncpus && c < FUL_LOAD_CPUS; c++)
		if (p->v.load[c] != d->v.load[c] ||
		    (d->v.has_nrun && p->v.nrun[c] != d->v.nrun[c]) ||
		    (weights && p->v.weight[c] != d->v.weight[c]))
			return false;
	return true;
}

static const char *const reason_names[LB_R_COUNT] = {
	[LB_R_PLACED] = "placed",
	[LB_R_MOVED] = "moved",
	[LB_R_BALANCED] = "balanced",
	[LB_R_NO_LIGHT] = "no_light",
	[LB_R_NO_CANDIDATE] = "no_candidate",
	[LB_R_NEW_OVERLOAD] = "new_overload",
	[LB_R_TOO_FEW_CORES] = "too_few_cores",
	[LB_R_MAX_MOVES] = "max_moves",
	[LB_R_NO_ELIGIBLE] = "no_eligible",
	[LB_R_NO_GAIN] = "no_gain",
	[LB_R_TIMER_DECLINED] = "timer_declined",
	[LB_R_BELOW_ZONE] = "below_zone",
	[LB_R_TASK_BELOW_SPOT] = "task_below_spot",
	[LB_R_SHARED] = "shared",
	[LB_R_WITHIN_FILL] = "within_fill",
};

const char *lb_reason_name(unsigned reason)
{
	return reason < LB_R_COUNT ? reason_names[reason] : "?";
}

const char *lb_state_name(unsigned state)
{
	static const char *const names[] = {"excluded", "light", "normal",
					    "heavy"};
	return state < 4 ? names[state] : "?";
}

const char *lb_why_name(unsigned why)
{
	static const char *const names[LB_W_COUNT] = {
		[LB_W_NONE] = "none", [LB_W_FILL] = "fill",
		[LB_W_OVERSHOOT] = "overshoot",
		[LB_W_COUNT_DIFF] = "count_diff", [LB_W_FEWEST] = "fewest"};
	return why < LB_W_COUNT ? names[why] : "?";
}

static const char *trigger_name(unsigned t)
{
	static const char *const names[LB_TRIG_COUNT] = {
		"create", "timer", "demand", "idle", "wake", "busiest"};
	return t < LB_TRIG_COUNT ? names[t] : "?";
}

static const char *gate_name(unsigned g)
{
	static const char *const names[] = {"none", "heavy_light", "heavy",
					    "light", "idle"};
	return g < 5 ? names[g] : "?";
}

/* An snprintf cursor: len counts what the whole line needs. */
struct jbuf {
	char *buf;
	size_t n, len;
};

static void jput(struct jbuf *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = j->len < j->n ? j->n - j->len : 0;
	int k = vsnprintf(room ? j->buf + j->len : NULL, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		j->len += (size_t)k;
}

static void jput_fixed2(struct jbuf *j, const char *key, unsigned long v100)
{
	jput(j, ",\"%s\":%lu.%02lu", key, v100 / 100, v100 % 100);
}

static void jput_core(struct jbuf *j, const char *key, unsigned c)
{
	if (c == LB_NO_CPU)
		jput(j, "\"%s\":null", key);
	else
		jput(j, "\"%s\":%u", key, c);
}

static void jput_move(struct jbuf *j, const struct lb_dmove *m,
		      unsigned metric)
{
	if (m->tid)
		jput(j, "{\"tid\":%u", m->tid);
	else
		jput(j, "{\"tid\":null");
	jput(j, ",\"slice\":%u,", m->slice);
	jput_core(j, "from", m->from);
	jput(j, ",\"to\":%u,", m->to);
	if (m->from == LB_NO_CPU)
		jput(j, "\"from_after\":null");
	else
		jput(j, "\"from_after\":%lu", m->from_after);
	jput(j, ",\"to_after\":%lu", m->to_after);
	if (metric != LB_METRIC_LOAD)
		jput(j, ",\"weight\":%u,\"why\":\"%s\"", m->weight,
		     lb_why_name(m->why));
	jput(j, "}");
}

/** The keys of the metric policies (alb, count), after "state". */
static void jput_metric(struct jbuf *j, const struct lb_decision *d,
			unsigned n)
{
	unsigned ne = d->conf.neligible;
	unsigned long avg100 = ne ? d->msum * 100 / ne : 0;
	if (d->metric == LB_METRIC_NRUN) {
		jput(j, ",\"metric\":\"nrun\"");
		jput_fixed2(j, "navg", avg100);
		return;
	}
	jput(j, ",\"metric\":\"weight\",\"weight\":[");
	for (unsigned c = 0; c < n; c++)
		jput(j, "%s%lu", c ? "," : "",
		     d->v.has_nrun && d->v.has_weight ? d->v.weight[c] : 0UL);
	jput(j, "]");
	jput_fixed2(j, "wavg", avg100);
}

/** The per-core arrays: load, nrun, state. */
static void jput_cores(struct jbuf *j, const struct lb_decision *d)
{
	unsigned n = d->conf.ncpus < FUL_LOAD_CPUS ? d->conf.ncpus : FUL_LOAD_CPUS;
	jput(j, ",\"load\":[");
	for (unsigned c = 0; c < n; c++)
		jput(j, "%s%lu", c ? "," : "", d->v.load[c]);
	jput(j, "]");
	if (d->v.has_nrun) {
		jput(j, ",\"nrun\":[");
		for (unsigned c = 0; c < n; c++)
			jput(j, "%s%u", c ? "," : "", d->v.nrun[c]);
		jput(j, "]");
	} else {
		jput(j, ",\"nrun\":null");
	}
	jput_fixed2(j, "avg", lb_avg100(d));
	jput_fixed2(j, "hi", lb_hi100(d));
	jput_fixed2(j, "lo", lb_lo100(d));
	jput(j, ",\"state\":[");
	for (unsigned c = 0; c < n; c++)
		jput(j, "%s\"%s\"", c ? "," : "", lb_state_name(lb_state(d, c)));
	jput(j, "]");
	if (d->metric != LB_METRIC_LOAD)
		jput_metric(j, d, n);
}

/** @pm permille as a percent with one decimal. */
static void jput_pct(struct jbuf *j, const char *sep, unsigned pm)
{
	jput(j, "%s%u.%u", sep, pm / 10, pm % 10);
}

/** The keys of a utilization policy's record (lb_dutil). */
static void jput_util(struct jbuf *j, const struct lb_dutil *u, unsigned n)
{
	static const char *const zone[] = {"cold", "warm", "hot"};
	static const char *const spot[] = {"low", "mid", "high"};
	jput(j, ",\"zone\":\"%s\",\"spot\":\"%s\",\"cpus_avg\":%u",
	     u->zone < 3 ? zone[u->zone] : "?",
	     u->spot < 3 ? spot[u->spot] : "?", u->cpus_avg);
	jput_pct(j, ",\"bound\":", u->bound);
	jput_pct(j, ",\"figure\":", u->figure);
	jput(j, ",\"util\":[");
	for (unsigned c = 0; c < n; c++)
		if (u->util[c] == LB_UTIL_NONE)
			jput(j, "%snull", c ? "," : "");
		else
			jput_pct(j, c ? "," : "", u->util[c]);
	jput(j, "],\"task\":");
	if (!u->tid) {
		jput(j, "null");
		return;
	}
	jput(j, "{\"tid\":%u", u->tid);
	jput_pct(j, ",\"util\":", u->task_util);
	jput(j, ",\"score\":%d", u->score / 10);
	jput_pct(j, ",\"eff\":", u->eff);
	jput(j, "}");
}

/**
 * Format @d as one JSON line (no newline) into @buf of @n bytes. Returns
 * the length of the whole line, like snprintf: the line is complete only
 * if that is < @n (LB_JSON_MAX always suffices).
 */
int lb_decision_json(const struct lb_decision *d, char *buf, size_t n)
{
	struct jbuf j = {.buf = buf, .n = n};
	if (n)
		buf[0] = '\0';
	jput(&j, "{\"seq\":%lu,\"t\":%lu,\"policy\":\"%s\",\"kind\":\"%s\"",
	     d->seq, d->time, d->policy ? d->policy : "?",
	     d->kind == LB_KIND_PLACE ? "place" : "rebalance");
	jput(&j, ",\"trigger\":\"%s\",\"gate\":\"%s\",\"ncpus\":%u,",
	     trigger_name(d->trigger), gate_name(d->gate), d->conf.ncpus);
	jput_core(&j, "root", d->conf.root_cpu);
	jput(&j, ",\"include_root\":%u,\"threshold_pct\":%u", d->conf.include_root,
	     d->conf.threshold_pct);
	jput_cores(&j, d);
	jput(&j, ",\"moves\":[");
	for (unsigned i = 0; i < d->nmoves && i < LB_MAX_MOVES; i++) {
		jput(&j, "%s", i ? "," : "");
		jput_move(&j, &d->move[i], d->metric);
	}
	jput(&j, "],\"reject\":");
	if (d->has_reject)
		jput_move(&j, &d->reject, d->metric);
	else
		jput(&j, "null");
	jput(&j, ",\"reason\":\"%s\"", lb_reason_name(d->reason));
	if (d->has_util)
		jput_util(&j, &d->ut, d->conf.ncpus < FUL_LOAD_CPUS
					      ? d->conf.ncpus : FUL_LOAD_CPUS);
	jput(&j, "}");
	return (int)j.len;
}
