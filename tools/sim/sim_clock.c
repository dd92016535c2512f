/*
 * fulsim's work clocks: how much CPU work (ns at full speed) a running
 * thread has done, and when its burst ends (docs/simulator.md, "Speed").
 *
 *   plain   every core runs at full speed: work = time on the core
 *   icount  QEMU's -icount clock: with k cores running each runs one
 *           instruction per k ns of the one clock (below); the shared
 *           work clock s->wclk advances by dt / k
 *   jitter  per-core speed: core c runs at speed_c(t) around 1.0 and
 *           keeps a work clock of its own, k->wclk, advancing at
 *           speed_c (over k under icount too)
 *
 * Invariants: a running thread's progress since its mark is the growth
 * of its core's clock (jitter) or of the shared one (icount) since then;
 * every clock is brought up to now (synced) before anything changes its
 * rate (the number of busy cores, a core's speed), so a clock is a sum
 * of stretches each at one constant rate; and every running core's
 * event is re-armed after such a change, so a burst ends when its clock
 * has advanced by what was left of it.
 *
 * Speed model (jitter J > 0, seed S, epoch P): time is cut into epochs of
 * P ns; in epoch e core c runs at
 *     speed_c(e) = 1 + J * (b_c + v_{c,e}) / 2,
 * b_c (the core's own level for the run) and v_{c,e} (its wobble in that
 * epoch) each uniform in [-1, 1] from a hash of (S, c, e): so speeds stay
 * in [1 - J, 1 + J], a core keeps a level within J / 2 of 1.0 for the
 * whole run, and a run is a function of S alone (no dependence on the
 * order of events). With J = 0 no clock of this kind exists and the runs
 * are the same, event for event, as without the option.
 */
#include "sim_int.h"

/** A hash of three words to [0, 1): splitmix64's finalizer. */
static double hash01(unsigned long a, unsigned long b, unsigned long c)
{
	unsigned long x = a * 0x9e3779b97f4a7c15UL + b * 0xbf58476d1ce4e5b9UL +
			  c * 0x94d049bb133111ebUL + 0x2545f4914f6cdd1dUL;
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9UL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebUL;
	x ^= x >> 31;
	return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

/** speed_c(e) of the model above. */
static double speed_of(const struct sim *s, unsigned c, unsigned long e)
{
	double level = 2 * hash01(s->c->jitter_seed, c, ~0UL) - 1;
	double wobble = 2 * hash01(s->c->jitter_seed, c, e) - 1;
	return 1 + s->c->jitter * (level + wobble) / 2;
}

static bool jitter_on(const struct sim *s)
{
	return s->c->jitter > 0;
}

/** Work per ns of core @c now (jitter). */
static double core_rate(const struct sim *s, unsigned c)
{
	double r = s->cpu[c].speed;
	return s->c->icount && s->nbusy ? r / s->nbusy : r;
}

/** Core @c's clock up to now, at the rate since its last sync. */
static void core_sync(struct sim *s, unsigned c)
{
	struct score *k = &s->cpu[c];
	k->wclk += (double)(s->now - k->wlast) * core_rate(s, c);
	k->wlast = s->now;
}

/** Every clock up to now (before a change of rate). */
static void work_sync(struct sim *s)
{
	if (jitter_on(s)) {
		for (unsigned c = 0; c < s->ncpus; c++)
			core_sync(s, c);
		return;
	}
	if (s->nbusy)
		s->wclk += (double)(s->now - s->wlast) / s->nbusy;
	s->wlast = s->now;
}

unsigned long work_ran(struct sim *s, const struct sthread *t)
{
	if (jitter_on(s)) {
		core_sync(s, t->cpu);
		return (unsigned long)(s->cpu[t->cpu].wclk - t->wfrom + 0.5);
	}
	if (!s->c->icount)
		return s->now - t->run_from;
	work_sync(s);
	return (unsigned long)(s->wclk - t->wfrom + 0.5);
}

void work_mark(struct sim *s, struct sthread *t)
{
	if (jitter_on(s)) {
		core_sync(s, t->cpu);
		t->wfrom = s->cpu[t->cpu].wclk;
	} else if (s->c->icount) {
		work_sync(s);
		t->wfrom = s->wclk;
	}
}

unsigned long work_end(struct sim *s, unsigned c, const struct sthread *t)
{
	if (!jitter_on(s) && !s->c->icount)
		return t->run_from + t->left;
	unsigned long ran = work_ran(s, t);
	double rest = ran < t->left ? (double)(t->left - ran) : 0;
	if (!jitter_on(s)) /* what is left, at 1 / nbusy of the clock */
		return s->now + (unsigned long)(rest * s->nbusy + 0.999);
	return s->now + (unsigned long)(rest / core_rate(s, c) + 0.999);
}

/** Re-arm every running core (its rate changed). */
static void rearm_running(struct sim *s)
{
	for (unsigned c = 0; c < s->ncpus; c++)
		if (s->cpu[c].cur >= 0)
			cpu_arm_as(s, c, true);
}

void work_busy(struct sim *s, int dir)
{
	if (!s->c->icount) {
		s->nbusy += (unsigned)dir;
		return;
	}
	work_sync(s);
	s->nbusy += (unsigned)dir;
	rearm_running(s);
}

void speed_init(struct sim *s)
{
	if (!jitter_on(s))
		return;
	for (unsigned c = 0; c < s->ncpus; c++)
		s->cpu[c].speed = speed_of(s, c, 0);
	ev_push(s, s->c->jitter_epoch, EV_SPEED, 0, 0);
}

void speed_epoch(struct sim *s)
{
	unsigned long e = s->now / s->c->jitter_epoch;
	for (unsigned c = 0; c < s->ncpus; c++) {
		core_sync(s, c); /* at the old speed up to the boundary */
		s->cpu[c].speed = speed_of(s, c, e);
	}
	rearm_running(s);
	if (s->alive)
		ev_push(s, (e + 1) * s->c->jitter_epoch, EV_SPEED, 0, 0);
}
