/*
 * The shell's balancer commands: policy, policy NAME, set NAME VALUE,
 * get, explain [TID], and the scores top shows. Each is one request on the balancer capability the rootserver
 * gave the shell (FUL_SLOT_BALANCER, <fulcrum/balctl.h>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fulcrum/balctl.h>
#include <ful/ful.h>

#include "shell.h"

/** A sentence for a balancer-control result @r < 0. */
static const char *bal_why(long r)
{
	switch (-r) {
	case FUL_BAL_EPOLICY: return "no such policy";
	case FUL_BAL_ETUNABLE: return "the policy has no such tunable";
	case FUL_BAL_ERANGE: return "value out of range (see get)";
	case FUL_BAL_EMSG: return "malformed request";
	case FUL_BAL_EPERM: return "not the balancer capability";
	default: return "call failed";
	}
}

/** Call the balancer with @label and @len bytes of the IPC buffer, and
 *  @mr0; the result (MR0), or the call's -FUL_E*. */
static long bal_call(unsigned long label, unsigned long len,
		     unsigned long mr0)
{
	struct ful_msg m = {.info = FUL_MSG(label, len), .mr = {mr0}};
	long err = ful_call(FUL_SLOT_BALANCER, &m, FUL_FOREVER);
	return err < 0 ? err : (long)m.mr[0];
}

/** Print an error line for @what if @r < 0; true if it was one. */
static bool bal_failed(const char *what, long r)
{
	if (r >= 0)
		return false;
	printf("%s: %s (%ld)\n", what, bal_why(r), r);
	return true;
}

/** FUL_BAL_GET into @st; false (message printed) on error. */
static bool bal_get(const char *what, struct ful_bal_state *st)
{
	long r = bal_call(FUL_BAL_GET, 0, 0);
	if (bal_failed(what, r))
		return false;
	memcpy(st, ful_ipcbuf(), sizeof(*st));
	return true;
}

/** Copy the first word of @s (after spaces) into @out; the rest. */
static const char *sh_word(const char *s, char *out, unsigned n)
{
	unsigned len = 0;
	while (*s == ' ')
		s++;
	while (*s && *s != ' ') {
		if (len + 1 < n)
			out[len++] = *s;
		s++;
	}
	out[len] = 0;
	return s;
}

void sh_policy(const char *args)
{
	char name[FUL_BAL_NAME_MAX + 8];
	const char *rest = sh_word(args, name, sizeof(name));
	struct ful_bal_state st;
	if (!*name) {
		if (bal_get("policy", &st))
			printf("policy: %s\n", st.policy);
		return;
	}
	if (*sh_word(rest, (char[2]){0}, 2) || strlen(name) >= FUL_BAL_NAME_MAX) {
		printf("usage: policy [NAME]\n");
		return;
	}
	strcpy(ful_ipcbuf(), name);
	if (!bal_failed("policy", bal_call(FUL_BAL_POLICY, strlen(name) + 1, 0)))
		printf("policy: now %s\n", name);
}

void sh_set(const char *args)
{
	struct ful_bal_set s;
	memset(&s, 0, sizeof(s));
	char num[24], extra[2];
	args = sh_word(args, s.name, sizeof(s.name));
	args = sh_word(args, num, sizeof(num));
	char *end;
	s.value = strtol(num, &end, 0);
	if (!*s.name || !*num || *end || *sh_word(args, extra, sizeof(extra))) {
		printf("usage: set NAME VALUE\n");
		return;
	}
	memcpy(ful_ipcbuf(), &s, sizeof(s));
	if (!bal_failed("set", bal_call(FUL_BAL_SET, sizeof(s), 0)))
		printf("set: %s = %ld\n", s.name, s.value);
}

void sh_get(void)
{
	struct ful_bal_state st;
	if (!bal_get("get", &st))
		return;
	printf("policy %s:\n  %-16s %8s %8s %8s\n", st.policy, "tunable",
	       "value", "min", "max");
	for (unsigned i = 0; i < st.n && i < FUL_BAL_MAX_TUNABLES; i++)
		printf("  %-16s %8ld %8ld %8ld\n", st.t[i].name, st.t[i].value,
		       st.t[i].min, st.t[i].max);
}

/** explain [TID]: the balancer's last decisions about thread TID (any
 *  thread without one), in words, newest first. */
void sh_explain(const char *args)
{
	while (*args == ' ')
		args++;
	unsigned long tid = *args ? strtoul(args, NULL, 0) : 0;
	long r = bal_call(FUL_BAL_EXPLAIN, 0, tid);
	if (bal_failed("explain", r))
		return;
	if (r == 0) {
		printf("explain: no decision in the log %s\n",
		       tid ? "concerns that thread" : "moved or placed a thread");
		return;
	}
	const char *text = ful_ipcbuf();
	for (const char *p = text; *p;) { /* a line at a time (stdio's 160) */
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		printf("  %.*s\n", len, p);
		p += len + (nl != NULL);
	}
}

long sh_bal_scores(const unsigned *tids, int *out, unsigned n)
{
	long scored = 0;
	for (unsigned i = 0; i < n; i += FUL_BAL_SCORES_MAX) {
		unsigned k = n - i < FUL_BAL_SCORES_MAX ? n - i
							: FUL_BAL_SCORES_MAX;
		memcpy(ful_ipcbuf(), tids + i, k * sizeof(*tids));
		long r = bal_call(FUL_BAL_SCORES, k * sizeof(*tids), 0);
		if (r < 0)
			return r;
		memcpy(out + i, ful_ipcbuf(), k * sizeof(*out));
		scored += r;
	}
	return scored;
}
