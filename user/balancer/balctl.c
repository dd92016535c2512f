/*
 * Balancer control (<fulcrum/balctl.h>): the answers to holders of the
 * balancer capability (the rootserver's, serve.c) or of a placement
 * capability (the rootserver's, or a task's own balancer: balserve.c).
 * Checks the badge and the message, then asks the balancer library,
 * which applies every change under the lock its rounds hold (between
 * rounds). A failed request changes nothing.
 */
#include <stdio.h>
#include <string.h>

#include <fulcrum/balctl.h>
#include <fulcrum/rootsrv.h>

#include "balancer.h"

/** Is @s (@n bytes of the request) a non-empty name, NUL-terminated
 *  within FUL_BAL_NAME_MAX? */
static bool name_ok(const char *s, unsigned long n)
{
	if (n > FUL_BAL_NAME_MAX)
		n = FUL_BAL_NAME_MAX;
	return n && s[0] && memchr(s, 0, n);
}

/** FUL_BAL_GET: the state into the IPC buffer; the tunables' number. */
static long balctl_get(struct ful_msg *r)
{
	struct ful_bal_state *st = ful_ipcbuf();
	struct lb_tunable t[FUL_BAL_MAX_TUNABLES];
	memset(st, 0, sizeof(*st));
	unsigned n = bal_tunables(st->policy, sizeof(st->policy), t,
				  FUL_BAL_MAX_TUNABLES);
	st->n = n < FUL_BAL_MAX_TUNABLES ? n : FUL_BAL_MAX_TUNABLES;
	for (unsigned i = 0; i < st->n; i++) {
		struct ful_bal_tunable *o = &st->t[i];
		strncpy(o->name, t[i].name, sizeof(o->name) - 1);
		o->value = t[i].value;
		o->min = t[i].min;
		o->max = t[i].max;
	}
	r->info = FUL_MSG(0, sizeof(*st));
	return (long)st->n;
}

/** FUL_BAL_SET from the request's buffer. */
static long balctl_set(unsigned long len)
{
	const struct ful_bal_set *s = ful_ipcbuf();
	if (len != sizeof(*s) || !name_ok(s->name, sizeof(s->name)))
		return -FUL_BAL_EMSG;
	int err = bal_tune(s->name, s->value);
	return err == LB_E_NAME	   ? -FUL_BAL_ETUNABLE
	       : err == LB_E_RANGE ? -FUL_BAL_ERANGE
				   : err;
}

/** FUL_BAL_POLICY from the request's buffer. */
static long balctl_policy(unsigned long len)
{
	const char *name = ful_ipcbuf();
	if (!name_ok(name, len))
		return -FUL_BAL_EMSG;
	return bal_switch(name) ? -FUL_BAL_EPOLICY : 0;
}

/** Does decision @d place, move or turn down thread @tid (0: any)? */
static bool explain_concerns(const struct lb_decision *d, unsigned long tid)
{
	for (unsigned i = 0; i < d->nmoves; i++)
		if (!tid || d->move[i].tid == tid)
			return true;
	return tid && d->has_reject && d->reject.tid == tid;
}

/** Decision @d told in words, for thread @tid (0: its first move), at
 *  @out (@n bytes): the length written. */
static int explain_one(const struct lb_decision *d, unsigned long tid,
		       char *out, size_t n)
{
	const struct lb_dmove *m = &d->reject;
	bool moved = false;
	for (unsigned i = 0; i < d->nmoves && !moved; i++)
		if (!tid || d->move[i].tid == tid)
			m = &d->move[i], moved = true;
	int k = snprintf(out, n, "#%lu %s %s: A = %lu.%02lu, heavy above "
			 "%lu.%02lu, light below %lu.%02lu; ", d->seq, d->policy,
			 d->kind == LB_KIND_PLACE ? "placement" : "rebalance",
			 lb_avg100(d) / 100, lb_avg100(d) % 100,
			 lb_hi100(d) / 100, lb_hi100(d) % 100,
			 lb_lo100(d) / 100, lb_lo100(d) % 100);
	if (k < 0 || (size_t)k >= n)
		return 0;
	if (moved && d->kind == LB_KIND_PLACE)
		k += snprintf(out + k, n - (size_t)k, "thread %#x placed on "
			      "cpu%u (%s), its load then %lu (%s)",
			      m->tid, m->to, lb_state_name(lb_state(d, m->to)),
			      m->to_after, lb_reason_name(d->reason));
	else if (moved)
		k += snprintf(out + k, n - (size_t)k, "thread %#x moved from "
			      "cpu%u (%s) to cpu%u (%s), predicted %lu / %lu "
			      "(%s)", m->tid, m->from,
			      lb_state_name(lb_state(d, m->from)), m->to,
			      lb_state_name(lb_state(d, m->to)), m->from_after,
			      m->to_after, lb_reason_name(d->reason));
	else
		k += snprintf(out + k, n - (size_t)k, "thread %#x considered "
			      "for cpu%u -> cpu%u and not moved (%s)", m->tid,
			      m->from, m->to, lb_reason_name(d->reason));
	return k < (int)n ? k : (int)n - 1;
}

/** EXPLAIN: the last decisions about thread @tid, newest first. */
static long balctl_explain(unsigned long tid, struct ful_msg *r)
{
	char *buf = ful_ipcbuf();
	size_t used = 0, room = FUL_IPCBUF_SIZE;
	unsigned long next = bal_log_next(), told = 0;
	buf[0] = 0;
	for (unsigned long s = next; s-- > 0 && next - s <= LB_LOG_SIZE &&
				     told < 3 && used + 160 < room;) {
		const struct lb_decision *d = lb_log_get(bal_log(), s);
		if (!d || !explain_concerns(d, tid))
			continue;
		used += (size_t)explain_one(d, tid, buf + used, room - used - 1);
		buf[used++] = '\n';
		buf[used] = 0;
		told++;
	}
	r->info = FUL_MSG(0, used + 1);
	return (long)told;
}

/** SCORES: the policy's score of each thread id in the request. */
static long balctl_scores(unsigned long len, struct ful_msg *r)
{
	static unsigned tids[FUL_BAL_SCORES_MAX];
	static int scores[FUL_BAL_SCORES_MAX];
	_Static_assert(FUL_BAL_SCORES_MAX * 4 <= FUL_IPCBUF_SIZE, "one buffer");
	if (!len || len % 4 || len > FUL_BAL_SCORES_MAX * 4)
		return -FUL_BAL_EMSG;
	unsigned n = (unsigned)(len / 4);
	memcpy(tids, ful_ipcbuf(), len);
	long k = bal_scores(tids, scores, n, FUL_BAL_NOSCORE);
	memcpy(ful_ipcbuf(), scores, len);
	r->info = FUL_MSG(0, len);
	return k;
}

/** PLACE: the core for a thread of nice @nice; its decision in r->mr[1]. */
static long balctl_place(long nice, struct ful_msg *r)
{
	if (nice < -20 || nice > 19)
		return -FUL_BAL_ERANGE;
	unsigned long seq;
	unsigned cpu = bal_place_nice(0, (int)nice, &seq);
	r->mr[1] = seq;
	return cpu;
}

/** SETTLE: wait for thread @tid, placed by decision @seq. */
static long balctl_settle(unsigned long tid, unsigned long seq)
{
	if (!tid || tid > 0xffffffffUL)
		return 0;
	return bal_placed(seq, (unsigned)tid) ? 0 : -FUL_BAL_ETIMEOUT;
}

/** A request that any balancer or placement capability may make. */
static long balctl_placement(unsigned long label, const struct ful_msg *m,
			     struct ful_msg *r)
{
	if (FUL_MSG_LEN(m->info))
		return -FUL_BAL_EMSG;
	if (label == FUL_BAL_PLACE)
		return balctl_place((long)m->mr[0], r);
	return balctl_settle(m->mr[0], m->mr[1]);
}

void bal_ctl_request(const struct ful_msg *m, struct ful_msg *r)
{
	unsigned long label = FUL_MSG_LABEL(m->info),
		      len = FUL_MSG_LEN(m->info);
	bool placement = label == FUL_BAL_PLACE || label == FUL_BAL_SETTLE;
	long res = -FUL_BAL_EMSG;
	*r = (struct ful_msg){0};
	if (placement && (m->badge == FUL_ROOT_BADGE_BAL ||
			  m->badge == FUL_ROOT_BADGE_PLACE))
		res = balctl_placement(label, m, r);
	else if (m->badge != FUL_ROOT_BADGE_BAL)
		res = -FUL_BAL_EPERM;
	else if (label == FUL_BAL_GET && len == 0)
		res = balctl_get(r);
	else if (label == FUL_BAL_SET)
		res = balctl_set(len);
	else if (label == FUL_BAL_POLICY)
		res = balctl_policy(len);
	else if (label == FUL_BAL_EXPLAIN && len == 0)
		res = balctl_explain(m->mr[0], r);
	else if (label == FUL_BAL_SCORES)
		res = balctl_scores(len, r);
	r->mr[0] = (unsigned long)res;
}
