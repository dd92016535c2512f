/*
 * The engine: a discrete-event model of Fulcrum's scheduler and
 * balancer (docs/simulator.md, "The model").
 *
 *   cores    one FIFO run queue each (one priority: the workload's
 *            threads are all workers), round robin by time slice: the
 *            1 kHz tick takes the slice down, and when it runs out with
 *            another thread ready the running one goes to the tail
 *            (docs/scheduler.md, "Time slices and weights"); a slice is
 *            slice_ms scaled by the thread's weight over nice 0's, in whole
 *            ticks, as the kernel's, so threads of one core share it by
 *            weight. A tick that changes nothing (no other thread ready) is
 *            not simulated: its effect, the slice refill, is computed when
 *            a thread becomes ready. A core runs at full speed, or at a
 *            speed that wanders around it (--jitter; sim_clock.c)
 *   threads  a program of run / sleep / call phases; a call blocks the
 *            caller until its server has run the call's CPU time
 *   balancer the policy of user/policy places each thread when it is
 *            released, and rebalances on its period (timer), when a core
 *            goes idle while another has a thread waiting (idle), and
 *            for opzone when an idle core gets work (wake)
 *   moves    as FUL_SYS_MIGRATE: a READY thread is in flight for
 *            migrate_ready instructions, a RUNNING one is switched out
 *            and in flight for migrate_running instructions, counted on
 *            neither core meanwhile; a BLOCKED one changes owner at once
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fulcrum/errno.h>

#include "sim_int.h"

void sim_conf_default(struct sim_conf *c)
{
	*c = (struct sim_conf){.policy = "fulcrum", .tick = SIM_MS,
			       .ns_per_insn = 1.0, .mig_ready = 673,
			       .mig_running = 2031, .trig_timer = true,
			       .trig_idle = true, .trig_wake = false,
			       .sample = 0, .keep_log = false,
			       .max_time = 100000UL * 1000 * SIM_MS,
			       .jitter = 0, .jitter_seed = 1,
			       .jitter_epoch = 10 * SIM_MS};
}

/* ---- utilization samples ----------------------------------------------- */

/** Add core @c's busy stretch [t0, t1) to the samples. */
static void series_add(struct sim *s, unsigned c, unsigned long t0,
		       unsigned long t1)
{
	unsigned long len = s->c->sample;
	struct sim_series *u = &s->r->util;
	if (!len || t1 <= t0)
		return;
	unsigned long last = (t1 - 1) / len;
	if (last >= u->cap) {
		unsigned long cap = u->cap ? u->cap : 64;
		while (cap <= last)
			cap *= 2;
		u->busy = realloc(u->busy, cap * s->ncpus * sizeof(*u->busy));
		memset(u->busy + u->cap * s->ncpus, 0,
		       (cap - u->cap) * s->ncpus * sizeof(*u->busy));
		u->cap = cap;
	}
	u->n = last + 1 > u->n ? last + 1 : u->n;
	for (unsigned long b = t0 / len; b <= last; b++) {
		unsigned long a = b * len > t0 ? b * len : t0;
		unsigned long e = (b + 1) * len < t1 ? (b + 1) * len : t1;
		u->busy[b * s->ncpus + c] += e - a;
	}
}

/** Core @c's books up to @t (<= now): busy/idle, windows, samples. */
static void cpu_roll_to(struct sim *s, unsigned c, unsigned long t)
{
	struct score *k = &s->cpu[c];
	if (k->cur >= 0 && t > k->last_switch)
		series_add(s, c, k->last_switch, t);
	area_roll_cpu(s, c, t);
}

/** Core @c's books up to now. */
static void cpu_roll(struct sim *s, unsigned c)
{
	cpu_roll_to(s, c, s->now);
}

/**
 * Every busy core's record as its last tick published it (each core
 * ticks every millisecond while it runs a thread; kernel/load.c): busy,
 * windows and util_now as of that tick, which is what opzone reads for
 * a busy core. A core that has not ticked since its last switch keeps
 * that switch's record (util_now 0), as in the kernel. Only for a
 * policy that reads the core records beyond load, weight and counts
 * (opzone): for the others the figures are the same either way, and
 * the pass would cost every round a look at each core.
 */
static void publish_ticks(struct sim *s)
{
	if (!(s->pol.needs & (LB_NEED_SELF | LB_NEED_ALL)))
		return;
	unsigned long tick = s->now / SIM_MS * SIM_MS;
	for (unsigned c = 0; c < s->ncpus; c++) {
		struct score *k = &s->cpu[c];
		if (k->cur < 0 || tick <= k->last_switch)
			continue;
		cpu_roll_to(s, c, tick);
		area_tick_cpu(s, c);
	}
}

/* ---- run queues ---------------------------------------------------------- */

static void rq_push(struct sim *s, unsigned c, int ti)
{
	struct score *k = &s->cpu[c];
	struct sthread *t = &s->t[ti];
	t->next = -1;
	t->prev = k->tail;
	if (k->tail >= 0)
		s->t[k->tail].next = ti;
	else
		k->head = ti;
	k->tail = ti;
	k->nready++;
	t->in_rq = true;
}

static void rq_remove(struct sim *s, unsigned c, int ti)
{
	struct score *k = &s->cpu[c];
	struct sthread *t = &s->t[ti];
	if (t->prev >= 0)
		s->t[t->prev].next = t->next;
	else
		k->head = t->next;
	if (t->next >= 0)
		s->t[t->next].prev = t->prev;
	else
		k->tail = t->prev;
	t->next = t->prev = -1;
	k->nready--;
	t->in_rq = false;
}

/** The weight imbalance now: max over the eligible cores (all but the
 *  workload's root_cpu) of |weight - average| / average; 0 while no
 *  eligible core holds any weight. O(cores): only with c->track_imb. */
static double imb_figure(const struct sim *s)
{
	double sum = 0, n = 0, worst = 0;
	for (unsigned c = 0; c < s->ncpus; c++)
		if ((int)c != s->w->root_cpu) {
			sum += (double)s->cpu[c].weight;
			n++;
		}
	if (sum <= 0)
		return 0;
	double avg = sum / n;
	for (unsigned c = 0; c < s->ncpus; c++) {
		double d = (double)s->cpu[c].weight - avg;
		if ((int)c != s->w->root_cpu && (d < 0 ? -d : d) > worst)
			worst = d < 0 ? -d : d;
	}
	return worst / avg;
}

/** The figure held since imb_last, integrated up to now (before the
 *  weights change: imb_now is the figure of [imb_last, now)). */
static void imb_roll(struct sim *s)
{
	s->imb_sum += (double)(s->now - s->imb_last) * s->imb_now;
	s->imb_last = s->now;
}

/** @t joins / leaves core @c's runnable figures. */
static void cpu_count(struct sim *s, unsigned c, struct sthread *t, int dir)
{
	struct score *k = &s->cpu[c];
	if (s->c->track_imb)
		imb_roll(s);
	if (dir > 0) {
		k->load += t->d->slice_ms;
		k->weight += t->weight;
	} else {
		k->load -= t->d->slice_ms;
		k->weight -= t->weight;
	}
	if (s->c->track_imb)
		s->imb_now = imb_figure(s);
}

static unsigned long insn_ns(const struct sim *s, unsigned long insn)
{
	double ns = (double)insn * s->c->ns_per_insn;
	return ns < 1 ? 1 : (unsigned long)(ns + 0.5);
}

/* ---- the balancer -------------------------------------------------------- */

static void log_decision(struct sim *s, const struct lb_decision *d)
{
	struct sim_result *r = s->r;
	if (!s->c->keep_log)
		return;
	if (r->log_len + LB_JSON_MAX + 2 > r->log_cap) {
		r->log_cap = r->log_cap ? r->log_cap * 2 : 1 << 20;
		r->log = realloc(r->log, r->log_cap);
	}
	int n = lb_decision_json(d, r->log + r->log_len, LB_JSON_MAX);
	if (n <= 0 || n >= LB_JSON_MAX)
		return;
	r->log_len += (unsigned long)n;
	r->log[r->log_len++] = '\n';
	r->log[r->log_len] = '\0';
	r->log_lines++;
}

static void move_apply(struct sim *s, struct ful_move *m);
static void cpu_start(struct sim *s, unsigned c);

/**
 * Every running thread's record brought up to now, as the kernel's tick
 * publishes it (run time and windows; kernel/load.c at each tick): the
 * engine otherwise publishes a thread's run time at switch-out only, and
 * a thread alone on its core for a second would show none of it. The
 * thread's remaining burst is cut by what it ran, so its end stays due
 * at the same time.
 */
static void publish_running(struct sim *s)
{
	for (unsigned c = 0; c < s->ncpus; c++) {
		if (s->cpu[c].cur < 0)
			continue;
		struct sthread *t = &s->t[s->cpu[c].cur];
		unsigned long ran = work_ran(s, t);
		if (!ran)
			continue;
		t->left -= ran < t->left ? ran : t->left;
		area_roll_thread(s, t);
		work_mark(s, t);
		area_thread(s, t);
	}
}

/** A rebalance round on @trigger, its moves carried out. */
static void balance(struct sim *s, enum lb_trigger trigger)
{
	if (s->in_balance)
		return;
	s->in_balance = true;
	publish_running(s);
	publish_ticks(s);
	struct ful_move mv[LB_MAX_MOVES];
	struct lb_decision *d = lb_log_next(&s->log);
	unsigned n = lb_rebalance(&s->pol, &s->snap, s->now, trigger, mv,
				  LB_MAX_MOVES, d);
	s->r->rounds++;
	log_decision(s, d);
	for (unsigned i = 0; i < n; i++)
		move_apply(s, &mv[i]);
	s->in_balance = false;
}

/* ---- cores --------------------------------------------------------------- */

/** (Re)arm core @c's event: the end of its running thread's burst, or
 *  its slice running out if another thread is ready (refilled slices:
 *  a tick with nobody else ready only refills). With @pending, the
 *  event is re-armed from elsewhere (work_busy): a slice that runs out
 *  right now is still to be handled, not refilled. */
void cpu_arm_as(struct sim *s, unsigned c, bool pending)
{
	struct score *k = &s->cpu[c];
	k->gen++;
	if (k->cur < 0)
		return;
	struct sthread *t = &s->t[k->cur];
	unsigned long end = work_end(s, c, t);
	if (k->nready) {
		unsigned long len = t->slice;
		if (k->slice_end < s->now + !pending)
			k->slice_end += ((s->now - k->slice_end) / len + 1) * len;
		end = k->slice_end < end ? k->slice_end : end;
	}
	ev_push(s, end, EV_CORE, c, k->gen);
}

static void cpu_arm(struct sim *s, unsigned c)
{
	cpu_arm_as(s, c, false);
}

/** Switch core @c's running thread out (to @state), books first. */
static void cpu_stop(struct sim *s, unsigned c, unsigned state)
{
	struct score *k = &s->cpu[c];
	struct sthread *t = &s->t[k->cur];
	unsigned long ran = work_ran(s, t);
	cpu_roll(s, c);
	area_roll_thread(s, t);
	t->left -= ran < t->left ? ran : t->left;
	t->state = (unsigned char)state;
	k->cur = -1;
	k->switches++;
	s->r->switches++;
	work_busy(s, -1);
}

/** Core @c is idle: run its first ready thread, if any. */
static void cpu_start(struct sim *s, unsigned c)
{
	struct score *k = &s->cpu[c];
	if (k->cur >= 0)
		return;
	if (k->head < 0) {
		area_cpu(s, c);
		cpu_arm(s, c);
		if (s->c->trig_idle && s->nready_total)
			balance(s, LB_TRIG_IDLE);
		return;
	}
	int ti = k->head;
	struct sthread *t = &s->t[ti];
	rq_remove(s, c, ti);
	s->nready_total--;
	cpu_roll(s, c);
	k->cur = ti;
	k->switches++;
	s->r->switches++;
	t->state = FUL_TS_RUNNING;
	t->run_from = s->now;
	work_mark(s, t);
	ful_win_skip(&t->win, ful_win_index(&s->par, s->now));
	t->win_base = t->runtime - t->win.cur;
	unsigned long tick = s->c->tick;
	k->slice_end = (s->now / tick + 1) * tick + (t->slice / tick - 1) * tick;
	area_thread(s, t);
	area_cpu(s, c);
	work_busy(s, +1); /* arms c too */
	if (!s->c->icount)
		cpu_arm(s, c);
}

/** Thread @ti becomes READY on its owner core. */
static void thread_ready(struct sim *s, int ti)
{
	struct sthread *t = &s->t[ti];
	struct score *k = &s->cpu[t->cpu];
	bool was_idle = k->cur < 0 && k->head < 0;
	t->state = FUL_TS_READY;
	rq_push(s, t->cpu, ti);
	s->nready_total++;
	cpu_count(s, t->cpu, t, +1);
	area_thread(s, t);
	if (k->cur < 0) {
		cpu_start(s, t->cpu);
		if (was_idle && s->c->trig_wake)
			balance(s, LB_TRIG_WAKE);
		return;
	}
	area_cpu(s, t->cpu);
	if (k->nready == 1)
		cpu_arm(s, t->cpu); /* the slice now matters */
}

static void thread_exit(struct sim *s, int ti)
{
	struct sthread *t = &s->t[ti];
	t->state = FUL_TS_DEAD;
	area_thread(s, t);
	area_tgen(s);
	s->alive--;
	s->r->makespan = s->now > s->r->makespan ? s->now : s->r->makespan;
}

/** Block @ti on its owner core (it has left the run queue / the core). */
static void thread_block(struct sim *s, int ti)
{
	struct sthread *t = &s->t[ti];
	t->state = FUL_TS_BLOCKED;
	s->cpu[t->cpu].nblocked++;
	area_thread(s, t);
}

/** Thread @ti wakes from BLOCKED. */
static void thread_wake(struct sim *s, int ti)
{
	struct sthread *t = &s->t[ti];
	s->cpu[t->cpu].nblocked--;
	thread_ready(s, ti);
}

/* ---- programs ------------------------------------------------------------ */

static void server_take(struct sim *s, int si);

/** Start waiting out phase @p of blocked thread @ti (sleep or call). */
static void thread_wait(struct sim *s, int ti, const struct sim_phase *p)
{
	struct sthread *t = &s->t[ti];
	if (p->kind == PH_CALL && p->server >= 0) {
		struct sthread *v = &s->t[p->server];
		t->qnext = -1;
		if (v->qtail >= 0)
			s->t[v->qtail].qnext = ti;
		else
			v->qhead = ti;
		v->qtail = ti;
		if (v->serving < 0 && v->state == FUL_TS_BLOCKED)
			server_take(s, p->server);
		return;
	}
	ev_push(s, s->now + p->ns, EV_WAKE, (unsigned)ti, ++t->gen);
}

/** Thread @ti (on its core if @running, else BLOCKED) leaves for good. */
static void thread_finish(struct sim *s, int ti, bool running)
{
	struct sthread *t = &s->t[ti];
	unsigned c = t->cpu;
	if (running) {
		cpu_stop(s, c, FUL_TS_DEAD);
		cpu_count(s, c, t, -1);
	} else {
		s->cpu[c].nblocked--;
	}
	thread_exit(s, ti);
	if (running)
		cpu_start(s, c);
	else
		area_cpu(s, c);
}

/** Enter phase t->iph of @ti: on its core if @running (a burst ended),
 *  else BLOCKED (a wait ended) or INACTIVE (just released). */
static void thread_enter(struct sim *s, int ti, bool running)
{
	struct sthread *t = &s->t[ti];
	const struct sim_phase *p = &t->d->ph[t->iph];
	unsigned c = t->cpu;
	if (p->kind == PH_RUN) {
		t->left = p->ns;
		if (running)
			cpu_arm(s, c);
		else if (t->state == FUL_TS_BLOCKED)
			thread_wake(s, ti);
		else
			thread_ready(s, ti);
		return;
	}
	if (running) {
		cpu_stop(s, c, FUL_TS_BLOCKED);
		cpu_count(s, c, t, -1);
		thread_block(s, ti);
		thread_wait(s, ti, p);
		cpu_start(s, c);
		return;
	}
	if (t->state != FUL_TS_BLOCKED) {
		thread_block(s, ti);
		area_cpu(s, c);
	}
	thread_wait(s, ti, p);
}

/** The current phase of @ti is done: on to the next, or exit. */
static void thread_advance(struct sim *s, int ti, bool running)
{
	struct sthread *t = &s->t[ti];
	if (++t->iph == t->d->nph) {
		t->iph = 0;
		if (++t->loop == t->d->loops) {
			thread_finish(s, ti, running);
			return;
		}
	}
	thread_enter(s, ti, running);
}

/** Server @si takes its next call (it is BLOCKED or running). */
static void server_take(struct sim *s, int si)
{
	struct sthread *v = &s->t[si];
	int ci = v->qhead;
	v->qhead = s->t[ci].qnext;
	if (v->qhead < 0)
		v->qtail = -1;
	v->serving = ci;
	const struct sthread *caller = &s->t[ci];
	v->left = caller->d->ph[caller->iph].ns;
	if (v->state == FUL_TS_BLOCKED)
		thread_wake(s, si);
}

/** Server @si (running) finished a call: reply, then the next or block. */
static void server_done(struct sim *s, int si)
{
	struct sthread *v = &s->t[si];
	int ci = v->serving;
	v->serving = -1;
	if (ci >= 0) /* none if it was moved between a reply and the next */
		thread_advance(s, ci, false);
	if (v->state != FUL_TS_RUNNING)
		return; /* moved away by a round the reply set off */
	if (v->qhead >= 0) {
		server_take(s, si);
		cpu_arm(s, v->cpu);
		return;
	}
	unsigned c = v->cpu;
	cpu_stop(s, c, FUL_TS_BLOCKED);
	cpu_count(s, c, v, -1);
	thread_block(s, si);
	cpu_start(s, c);
}

/* ---- events of each kind --------------------------------------------------- */

static void on_core(struct sim *s, unsigned c)
{
	struct score *k = &s->cpu[c];
	int ti = k->cur;
	struct sthread *t = &s->t[ti];
	unsigned long ran = work_ran(s, t);
	t->left -= ran < t->left ? ran : t->left;
	area_roll_thread(s, t);
	work_mark(s, t);
	if (!t->left) {
		if (t->d->server)
			server_done(s, ti);
		else
			thread_advance(s, ti, true);
		return;
	}
	if (!k->nready) { /* only a refill */
		cpu_arm(s, c);
		return;
	}
	cpu_stop(s, c, FUL_TS_READY);
	rq_push(s, c, ti);
	s->nready_total++;
	area_thread(s, t);
	cpu_start(s, c);
}

static void on_release(struct sim *s, int ti)
{
	struct sthread *t = &s->t[ti];
	struct lb_new_thread nt = {.slice_ms = t->d->slice_ms,
				   .affinity = ful_cpus_none(),
				   .nice = t->d->nice};
	unsigned c = (unsigned)t->d->cpu;
	if (t->d->cpu < 0) { /* placed by the policy */
		publish_ticks(s);
		struct lb_decision *d = lb_log_next(&s->log);
		c = lb_place(&s->pol, &s->snap, s->now, &nt, d);
		s->r->places++;
		d->move[0].tid = t->tid; /* as the balancer names the thread */
		log_decision(s, d);
	}
	t->cpu = c < s->ncpus ? c : 0;
	area_tgen(s);
	if (t->d->server) {
		thread_block(s, ti);
		area_cpu(s, t->cpu);
		if (t->qhead >= 0)
			server_take(s, ti);
		return;
	}
	thread_enter(s, ti, false);
}

static void move_apply(struct sim *s, struct ful_move *m)
{
	unsigned ti = m->tid - 1, to = m->cpu;
	m->result = -FUL_ENOTHREAD;
	if (!m->tid || m->tid > s->nthreads)
		return;
	struct sthread *t = &s->t[ti];
	unsigned from = t->cpu;
	if (to >= s->ncpus) {
		m->result = -FUL_EINVAL;
		return;
	}
	if (t->state == FUL_TS_DEAD || t->state == FUL_TS_INACTIVE)
		return;
	if (from == to) {
		m->result = FUL_MOVE_ALREADY;
		return;
	}
	if (t->state == FUL_TS_MIGRATING) {
		m->result = -FUL_EAGAIN;
		return;
	}
	if (t->state == FUL_TS_BLOCKED) {
		s->cpu[from].nblocked--;
		s->cpu[to].nblocked++;
		t->cpu = to;
		area_cpu(s, to);
	} else {
		bool running = t->state == FUL_TS_RUNNING;
		if (running) {
			cpu_stop(s, from, FUL_TS_MIGRATING);
		} else {
			rq_remove(s, from, (int)ti);
			s->nready_total--;
			t->state = FUL_TS_MIGRATING;
		}
		cpu_count(s, from, t, -1);
		t->cpu = to;
		t->gen++;
		ev_push(s, s->now + (running ? s->mig_running_ns
					     : s->mig_ready_ns),
			EV_LAND, ti, t->gen);
		if (running)
			cpu_start(s, from);
		else if (!s->cpu[from].nready)
			cpu_arm(s, from); /* its slice no longer matters */
	}
	s->cpu[from].mig_out++;
	s->cpu[to].mig_in++;
	s->r->migrations++;
	area_thread(s, t);
	area_tgen(s);
	area_cpu(s, from);
	m->result = FUL_MOVE_DONE;
}

/** Handle @e at s->now; false if it was stale (cancelled). */
static bool on_event(struct sim *s, const struct event *e)
{
	switch (e->kind) {
	case EV_RELEASE:
		on_release(s, (int)e->who);
		return true;
	case EV_CORE:
		if (e->gen != s->cpu[e->who].gen || s->cpu[e->who].cur < 0)
			return false;
		on_core(s, e->who);
		return true;
	case EV_WAKE:
		if (e->gen != s->t[e->who].gen ||
		    s->t[e->who].state != FUL_TS_BLOCKED)
			return false;
		thread_advance(s, (int)e->who, false);
		return true;
	case EV_LAND:
		if (e->gen != s->t[e->who].gen ||
		    s->t[e->who].state != FUL_TS_MIGRATING)
			return false;
		thread_ready(s, (int)e->who);
		return true;
	case EV_DEMAND:
		balance(s, LB_TRIG_DEMAND);
		return true;
	case EV_SPEED:
		speed_epoch(s);
		return true;
	case EV_TIMER:
		balance(s, LB_TRIG_TIMER);
		if (s->alive)
			ev_push(s, s->now + s->period, EV_TIMER, 0, 0);
		return true;
	}
	return false;
}

/* ---- a run ----------------------------------------------------------------- */

/** @d's slice in ns: slice_ms scaled by @weight over nice 0's 1024,
 *  rounded to whole 1 ms ticks, at least 1, at most 10 s (the kernel's
 *  slice_ticks_of at SCHED_HZ 1000: nice 5's 10 ms slice is 3 ticks). */
static unsigned long slice_of(const struct sim_tdesc *d, unsigned weight)
{
	unsigned long ms = ((unsigned long)d->slice_ms * weight + 512) / 1024;
	ms = ms < 1 ? 1 : ms > 10000 ? 10000 : ms;
	return ms * SIM_MS;
}

static int sim_setup(struct sim *s, const struct sim_workload *w,
		     const struct sim_conf *c, struct sim_result *r)
{
	*s = (struct sim){.w = w, .c = c, .r = r, .ncpus = w->ncpus,
			  .nthreads = w->nthreads};
	memset(r, 0, sizeof(*r));
	if (lb_policy_init(&s->pol, c->policy)) {
		fprintf(stderr, "fulsim: no policy named \"%s\"\n", c->policy);
		return -1;
	}
	for (unsigned i = 0; i < c->nset; i++)
		if (lb_tunable_set(&s->pol, c->set_name[i], c->set_value[i]) ==
		    LB_E_RANGE) {
			fprintf(stderr, "fulsim: --set %s=%ld: out of range for "
				"%s\n", c->set_name[i], c->set_value[i],
				c->policy);
			return -1;
		}
	long period = 100;
	lb_tunable_get(&s->pol, "period_ms", &period);
	s->period = (unsigned long)period * SIM_MS;
	s->mig_ready_ns = insn_ns(s, c->mig_ready);
	s->mig_running_ns = insn_ns(s, c->mig_running);
	/* One load area for every run of the process: a large block that
	 * malloc maps and unmaps each time otherwise (most of a short
	 * run's time went to munmap). area_init clears it. */
	static struct ful_load_page *area;
	if (!area)
		area = aligned_alloc(4096, (sizeof(*area) + 4095) / 4096 * 4096);
	s->area = area;
	s->t = calloc(w->nthreads, sizeof(*s->t));
	if (!s->area || !s->t) {
		fprintf(stderr, "fulsim: out of memory\n");
		return -1;
	}
	area_init(s);
	/* no rootserver's core unless the workload names one */
	lb_snap_init(&s->snap, s->area,
		     w->root_cpu >= 0 ? (unsigned)w->root_cpu : LB_NO_CPU);
	for (unsigned i = 0; i < s->ncpus; i++) {
		s->cpu[i] = (struct score){.head = -1, .tail = -1, .cur = -1};
		area_cpu(s, i); /* idle from 0, as each core says at its start */
	}
	for (unsigned i = 0; i < w->nthreads; i++) {
		struct sthread *t = &s->t[i];
		unsigned weight = ful_weight_of_nice(w->t[i].nice);
		*t = (struct sthread){.d = &w->t[i], .tid = i + 1,
				      .weight = weight,
				      .slice = slice_of(&w->t[i], weight),
				      .next = -1, .prev = -1, .qhead = -1,
				      .qtail = -1, .qnext = -1, .serving = -1};
		s->alive += !w->t[i].server;
		ev_push(s, w->t[i].start, EV_RELEASE, i, 0);
	}
	for (unsigned i = 0; i < w->ndemand; i++)
		ev_push(s, w->demand[i], EV_DEMAND, 0, 0);
	if (c->trig_timer)
		ev_push(s, s->period, EV_TIMER, 0, 0);
	speed_init(s);
	return 0;
}

int sim_run(const struct sim_workload *w, const struct sim_conf *c,
	    struct sim_result *r)
{
	static struct sim s; /* large (the core array): not on the stack */
	struct timespec t0, t1;
	if (sim_setup(&s, w, c, r))
		return -1;
	/* CPU time of this thread: the figure is per host core, and a
	 * shared host's other work does not count against it. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	while (s.alive && s.nheap) {
		struct event e = ev_pop(&s);
		if (e.t > c->max_time)
			break;
		s.now = e.t;
		r->events += on_event(&s, &e);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	r->cpu_s = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	r->unfinished = s.alive;
	s.now = r->makespan;
	for (unsigned i = 0; i < s.ncpus; i++) /* close the books */
		if (s.cpu[i].cur >= 0)
			cpu_roll(&s, i);
	if (c->track_imb && s.now > s.imb_last)
		imb_roll(&s);
	r->imb_integral = s.imb_sum;
	free(s.heap);
	free(s.t);
	return 0;
}

void sim_result_free(struct sim_result *r)
{
	free(r->util.busy);
	free(r->log);
	memset(r, 0, sizeof(*r));
}
