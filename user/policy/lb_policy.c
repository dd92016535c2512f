/*
 * The policy interface: tunables by name, the decision wrappers, and the
 * helpers every policy shares (eligible cores, load states of paper 000,
 * least / most loaded core).
 */
#include <string.h>

#include "lb.h"

/** Initialise @p as the policy called @name. 0 or LB_E_NAME. */
int lb_policy_init(struct lb_policy *p, const char *name)
{
	if (!strcmp(name, "mginkgo"))
		lb_mginkgo_init(p);
	else if (!strcmp(name, "fulcrum"))
		lb_fulcrum_init(p);
	else if (!strcmp(name, "alb"))
		lb_alb_init(p);
	else if (!strcmp(name, "count"))
		lb_count_init(p);
	else if (!strcmp(name, "opzone"))
		lb_opzone_init(p);
	else
		return LB_E_NAME;
	return 0;
}

static struct lb_tunable *tunable_find(const struct lb_policy *p,
				       const char *name)
{
	for (unsigned i = 0; i < p->ntunables; i++)
		if (!strcmp(p->tun[i].name, name))
			return (struct lb_tunable *)&p->tun[i];
	return NULL;
}

/* The last struct lb_policy gen drawn (lb_tunable_set). */
static unsigned long lb_tunable_gen;

/** Set tunable @name to @value. 0, LB_E_NAME, or LB_E_RANGE (unchanged);
 *  a change gives @p a new gen. */
int lb_tunable_set(struct lb_policy *p, const char *name, long value)
{
	struct lb_tunable *t = tunable_find(p, name);
	if (!t)
		return LB_E_NAME;
	if (value < t->min || value > t->max)
		return LB_E_RANGE;
	t->value = value;
	p->gen = __atomic_add_fetch(&lb_tunable_gen, 1, __ATOMIC_RELAXED);
	return 0;
}

/** Read tunable @name into *@value. 0 or LB_E_NAME. */
int lb_tunable_get(const struct lb_policy *p, const char *name, long *value)
{
	const struct lb_tunable *t = tunable_find(p, name);
	if (!t)
		return LB_E_NAME;
	*value = t->value;
	return 0;
}

/* decision_begin writes kind .. has_util as one word. */
_Static_assert(offsetof(struct lb_decision, trigger) ==
			       offsetof(struct lb_decision, kind) + 1 &&
		       offsetof(struct lb_decision, gate) ==
			       offsetof(struct lb_decision, kind) + 2 &&
		       offsetof(struct lb_decision, reason) ==
			       offsetof(struct lb_decision, kind) + 3 &&
		       offsetof(struct lb_decision, nmoves) ==
			       offsetof(struct lb_decision, kind) + 4 &&
		       offsetof(struct lb_decision, has_reject) ==
			       offsetof(struct lb_decision, kind) + 5 &&
		       offsetof(struct lb_decision, metric) ==
			       offsetof(struct lb_decision, kind) + 6 &&
		       offsetof(struct lb_decision, has_util) ==
			       offsetof(struct lb_decision, kind) + 7 &&
		       offsetof(struct lb_decision, kind) % 8 == 0 &&
		       LB_GATE_NONE == 0 && LB_METRIC_LOAD == 0 &&
		       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "decision_begin's word");

/** Fill the part of @d that does not depend on the policy: kind and
 *  trigger, no gate, no move, no reject, the load metric, no
 *  utilization part, reason 0 until the policy sets it (each does, on
 *  every path), as one 8-byte store. */
static inline void decision_begin(const struct lb_policy *p,
				  const struct lb_snap *s,
				  struct lb_decision *d, unsigned kind,
				  unsigned trigger)
{
	unsigned long w = kind | (unsigned long)(trigger & 0xff) << 8;
	d->time = s->now;
	d->policy = p->name;
	memcpy(&d->kind, &w, sizeof(w));
}

/** The tunables of @p the snapshot derives its configuration from
 *  (include_root is 0 or 1: lb_tunable_set keeps each value within its
 *  range, [0, 1] in every policy). */
static inline unsigned snap_tunables(const struct lb_policy *p)
{
	return LB_SNAP_TUNABLES(p->tun[LB_T_INCLUDE_ROOT].value,
				p->tun[LB_T_THRESHOLD].value);
}

unsigned lb_place(struct lb_policy *p, struct lb_snap *s, unsigned long now,
		  const struct lb_new_thread *t, struct lb_decision *d)
{
	lb_snap_refresh(s, now, p->needs, snap_tunables(p), &d->v);
	decision_begin(p, s, d, LB_KIND_PLACE, LB_TRIG_CREATE);
	return p->place(p, s, t, d);
}

/** lb_rebalance's decision after a full refresh of @s. */
static inline __attribute__((always_inline)) unsigned
rebalance_refresh(struct lb_policy *p, struct lb_snap *s, unsigned long now,
		  enum lb_trigger trigger, struct ful_move *moves, unsigned max,
		  struct lb_decision *d)
{
	lb_snap_refresh(s, now, p->needs | LB_NEED_MAX, snap_tunables(p),
			&d->v);
	decision_begin(p, s, d, LB_KIND_REBALANCE, trigger);
	if (max > LB_MAX_MOVES)
		max = LB_MAX_MOVES;
	return p->rebalance(p, s, moves, max, d);
}

/** rebalance_refresh out of line: rebalance_self's rare case. */
static __attribute__((noinline)) unsigned
rebalance_derive(struct lb_policy *p, struct lb_snap *s, unsigned long now,
		 enum lb_trigger trigger, struct ful_move *moves, unsigned max,
		 struct lb_decision *d)
{
	return rebalance_refresh(p, s, now, trigger, moves, max, d);
}

/** lb_rebalance for a policy that reads the cores itself (opzone):
 *  while the snapshot's configuration holds, no call into it, and the
 *  policy's call is the last (no frame: every call is a tail call). */
static __attribute__((noinline)) unsigned
rebalance_self(struct lb_policy *p, struct lb_snap *s, unsigned long now,
	       enum lb_trigger trigger, struct ful_move *moves, unsigned max,
	       struct lb_decision *d)
{
	if (__builtin_expect(!lb_snap_refresh_self(s, now, snap_tunables(p),
						   &d->v), 0))
		return rebalance_derive(p, s, now, trigger, moves, max, d);
	decision_begin(p, s, d, LB_KIND_REBALANCE, trigger);
	if (max > LB_MAX_MOVES)
		max = LB_MAX_MOVES;
	return p->rebalance(p, s, moves, max, d);
}

unsigned lb_rebalance(struct lb_policy *p, struct lb_snap *s,
		      unsigned long now, enum lb_trigger trigger,
		      struct ful_move *moves, unsigned max,
		      struct lb_decision *d)
{
	if (p->needs & LB_NEED_SELF)
		return rebalance_self(p, s, now, trigger, moves, max, d);
	return rebalance_refresh(p, s, now, trigger, moves, max, d);
}

/** The core of @mask with the smallest load, ties to the lowest id;
 *  LB_NO_CPU if @mask is empty. */
unsigned lb_least_loaded(const unsigned long *load, ful_cpus_t mask)
{
	unsigned best = LB_NO_CPU;
	unsigned long bl = 0;
	for (unsigned c = 0; !ful_cpus_empty(mask);
	     c++, mask = ful_cpus_shr1(mask))
		if (ful_cpus_low(mask) && (load[c] < bl || best == LB_NO_CPU))
			best = c, bl = load[c];
	return best;
}

/** The core of @mask with the largest load, ties to the lowest id. */
unsigned lb_most_loaded(const unsigned long *load, ful_cpus_t mask)
{
	unsigned best = LB_NO_CPU;
	unsigned long bl = 0;
	for (unsigned c = 0; !ful_cpus_empty(mask);
	     c++, mask = ful_cpus_shr1(mask))
		if (ful_cpus_low(mask) && (load[c] > bl || best == LB_NO_CPU))
			best = c, bl = load[c];
	return best;
}

/** Among @mask, the least loaded core; ties to fewer runnable threads,
 *  then to the lowest id. */
static unsigned least_loaded_nrun(const struct lb_loads *v, ful_cpus_t mask)
{
	unsigned best = LB_NO_CPU;
	for (unsigned c = 0; !ful_cpus_empty(mask);
	     c++, mask = ful_cpus_shr1(mask)) {
		if (!ful_cpus_low(mask))
			continue;
		if (best == LB_NO_CPU || v->load[c] < v->load[best] ||
		    (v->load[c] == v->load[best] && v->nrun[c] < v->nrun[best]))
			best = c;
	}
	return best;
}

/** The general case of lb_place_least: an affinity, the @tie_nrun rule,
 *  or no eligible core. Sets d->reason. */
static unsigned place_constrained(const struct lb_snap *s,
				  const struct lb_new_thread *t,
				  struct lb_decision *d, ful_cpus_t mask,
				  bool tie_nrun)
{
	ful_cpus_t online = ful_cpus_first(s->conf.ncpus);
	ful_cpus_t allowed = !ful_cpus_empty(t->affinity)
				     ? ful_cpus_and(t->affinity, online) : online;
	unsigned to = s->min;
	if (tie_nrun)
		to = least_loaded_nrun(&d->v, ful_cpus_and(mask, allowed));
	else if (to == LB_NO_CPU || !ful_cpus_has(allowed, to))
		to = lb_least_loaded(d->v.load, ful_cpus_and(mask, allowed));
	d->reason = LB_R_PLACED;
	if (to == LB_NO_CPU) {
		d->reason = !ful_cpus_empty(mask) ? LB_R_NO_ELIGIBLE
						  : LB_R_TOO_FEW_CORES;
		to = lb_least_loaded(d->v.load, !ful_cpus_empty(allowed)
							? allowed : online);
		to = to == LB_NO_CPU ? 0 : to;
	}
	return to;
}

/**
 * Placement shared by the policies: the least loaded eligible core that
 * @t's affinity allows, ties to the lowest id (or, with @tie_nrun, to
 * fewer runnable threads first). If the affinity excludes every eligible
 * core: the least loaded core it allows (LB_R_NO_ELIGIBLE). With no
 * eligible core at all (one core, the rootserver's): that core
 * (LB_R_TOO_FEW_CORES). Logs the placement as move[0] with no tid.
 * Without an affinity or @tie_nrun, the snapshot's least loaded core is
 * the answer (paper 000's get_free_core).
 */
unsigned lb_place_least(const struct lb_snap *s, const struct lb_new_thread *t,
			struct lb_decision *d, bool tie_nrun)
{
	ful_cpus_t mask = lb_record(s, d);
	unsigned to = s->min;
	if (__builtin_expect(!tie_nrun && ful_cpus_empty(t->affinity) &&
			     to != LB_NO_CPU, 1))
		d->reason = LB_R_PLACED;
	else
		to = place_constrained(s, t, d, mask, tie_nrun);
	/* Field by field: the padding of move[0] is never read. */
	struct lb_dmove *m = &d->move[0];
	m->tid = 0;
	m->slice = t->slice_ms;
	m->from = LB_NO_CPU;
	m->to = (lb_cpu_t)to;
	m->from_after = 0;
	m->to_after = d->v.load[to] + t->slice_ms;
	d->nmoves = 1;
	return to;
}
