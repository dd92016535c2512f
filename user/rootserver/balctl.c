/*
 * Balancer control (<fulcrum/balctl.h>): the rootserver's answers to
 * holders of the balancer capability. Checks the message, then asks the
 * balancer library, which applies every change under the lock its
 * rounds hold (between rounds). A failed request changes nothing.
 */
#include <string.h>

#include <fulcrum/balctl.h>

#include "../balancer/balancer.h"
#include "root.h"

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

void root_balctl(const struct ful_msg *m, struct ful_msg *r)
{
	unsigned long label = FUL_MSG_LABEL(m->info),
		      len = FUL_MSG_LEN(m->info);
	long res = -FUL_BAL_EMSG;
	if (label == FUL_BAL_GET && len == 0)
		res = balctl_get(r);
	else if (label == FUL_BAL_SET)
		res = balctl_set(len);
	else if (label == FUL_BAL_POLICY)
		res = balctl_policy(len);
	r->mr[0] = (unsigned long)res;
}
