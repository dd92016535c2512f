/*
 * The oracle: which results each call documents (<fulcrum/syscall.h>,
 * <fulcrum/errno.h>, the move results of <fulcrum/load.h>), the call
 * wrapper every fuzzing thread goes through, and the failure records.
 *
 * A structured operation knows more than the documentation: it passes
 * the errors its arguments leave possible (a valid message cannot get
 * ERANGE, a private slot cannot be empty), and the result must be in
 * both sets. Raw calls are checked against the documentation alone.
 *
 * Failure records are written without locks (a victim may die in the
 * middle of one; it is then never marked ready and never printed) and
 * printed by the watchdog, every line with the run's seed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fz.h"


static const char *const fz_names[FZ_NCALLS] = {
    "debug_write",   "yield",	      "exit",	     "send",
    "recv",	     "call",	      "reply",	     "reply_recv",
    "ntfn_signal",   "ntfn_wait",     "ntfn_poll",   "cap_copy",
    "cap_delete",    "cap_info",      "ep_create",   "ntfn_create",
    "frame_create",  "vspace_create", "map",	     "unmap",
    "thread_create", "thread_start",  "thread_kill", "thread_migrate",
    "thread_info",   "reply_save",    "reply_to",    "sysinfo",
    "shutdown",	     "migrate",	      "thread_set",  "pool_create",
    "pool_info",     "util_set",      "cons_bind",   "cons_read",
    "lbe_bind",      "lbe_arm",       "(reserved)",  "(reserved)",
    "devmem_map",    "devmem_info",   "irq_get",     "irq_bind",
    "irq_ack",	     "irq_unbind",    "dma_create",  "dma_paddr",
    "trace_set",     "trace_frame",   "trace_dump",  "(reserved)",
    "pwin_create",   "pwin_set",      "task_kill",   "sched_kill",
    "irqstat",       "sleep",         "(invalid)",
};

const char *fz_call_name(unsigned long nr)
{
	return fz_names[nr < FUL_SYS_COUNT ? nr : FUL_SYS_COUNT];
}

/** Is @got a documented result of @nr with @a, within @may? */
static bool fz_documented(unsigned long nr, const unsigned long a[7], long got,
			  unsigned may)
{
	if (nr >= FUL_SYS_COUNT)
		return got == -FUL_ENOSYS;
	if (got < 0)
		return got > -FUL_NERRNO && ((ful_sys_errors(nr) & may) >> -got & 1);
	switch (nr) {
	case FUL_SYS_DEBUG_WRITE:
		return (unsigned long)got == a[1];
	case FUL_SYS_CAP_INFO:
		return (got & 0xff) >= FUL_CAP_THREAD &&
		       (got & 0xff) <= FUL_CAP_PWIN && (got >> 8) <= FUL_R_ALL;
	case FUL_SYS_THREAD_CREATE:
	case FUL_SYS_DMA_PADDR:
		return got > 0;
	case FUL_SYS_MIGRATE:
		return (unsigned long)got <= a[2];
	case FUL_SYS_TASK_KILL: /* the number of threads it killed */
		return got >= 0;
	default:
		return got == 0;
	}
}

/** Does call @nr block for up to its timeout (x6)? */
static bool fz_blocking(unsigned long nr)
{
	return nr == FUL_SYS_SEND || nr == FUL_SYS_RECV || nr == FUL_SYS_CALL ||
	       nr == FUL_SYS_REPLY_RECV || nr == FUL_SYS_NTFN_WAIT;
}

/** Count call @nr with result @x0 in @c's statistics. */
static void fz_count(struct fz_ctx *c, unsigned long nr, long x0)
{
	c->st.calls[nr < FUL_SYS_COUNT ? nr : FUL_SYS_COUNT]++;
	if (x0 >= 0)
		c->st.ok++;
	else if (x0 > -FUL_NERRNO)
		c->st.err[-x0]++;
	atomic_store_explicit(
	    &c->ncalls,
	    atomic_load_explicit(&c->ncalls, memory_order_relaxed) + 1,
	    memory_order_relaxed);
}

struct ful_ret fz_sys(struct fz_ctx *c, unsigned long nr,
		      const unsigned long a[7], unsigned may)
{
	c->cur.nr = nr;
	memcpy(c->cur.a, a, sizeof c->cur.a);
	c->cur.timeout_us = 0; /* how long the call may block */
	if (fz_blocking(nr))
		c->cur.timeout_us = a[6];
	else if (nr == FUL_SYS_SLEEP)
		c->cur.timeout_us = a[0];
	atomic_store_explicit(&c->cur.t0, ful_counter(), memory_order_release);
	struct ful_ret r =
	    ful_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
	atomic_store_explicit(&c->cur.t0, 0, memory_order_release);
	fz_count(c, nr, r.x0);
	if (!fz_documented(nr, a, r.x0, may))
		fz_bad(c, FZ_RESULTS,
		       may == FZ_ANY ? "undocumented result"
				     : "result impossible for these arguments",
		       nr, a, r.x0);
	return r;
}

long fz_exact(struct fz_ctx *c, unsigned long nr, const unsigned long a[7],
	      long expect, long alt)
{
	long got = fz_sys(c, nr, a, FZ_ANY).x0;
	if (got != expect && (!alt || got != alt))
		fz_bad(c, FZ_RESULTS, "not the exact expected result", nr, a,
		       got);
	return got;
}

void fz_say(const char *fmt, ...)
{
	char buf[FUL_DEBUG_WRITE_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 1)
		n = sizeof buf - 1;
	if (n > 0)
		ful_debug_write(buf, (unsigned long)n);
}

/* ---- failure records ---- */

#define FZ_NREC 32

struct fz_rec {
	_Atomic int ready;
	enum fz_class k;
	unsigned who;
	long got;
	unsigned long nr, a[7];
	char what[72];
};

static struct fz_rec recs[FZ_NREC];
static _Atomic unsigned nrec;
static unsigned printed;
static char first[FZ_NCLASSES][400];

static const char *const class_names[FZ_NCLASSES] = {"results", "progress",
						     "leaks"};

void fz_bad(struct fz_ctx *c, enum fz_class k, const char *what,
	    unsigned long nr, const unsigned long a[7], long got)
{
	atomic_fetch_add(&fz.bad[k], 1);
	unsigned i = atomic_fetch_add(&nrec, 1);
	if (i >= FZ_NREC)
		return;
	struct fz_rec *r = &recs[i];
	r->k = k;
	r->who = c ? c->id : ~0u;
	r->got = got;
	r->nr = nr;
	for (unsigned j = 0; j < 7; j++)
		r->a[j] = a ? a[j] : 0;
	unsigned n = 0; /* no libc: a victim may die here */
	while (what[n] && n < sizeof r->what - 1) {
		r->what[n] = what[n];
		n++;
	}
	r->what[n] = 0;
	atomic_store_explicit(&r->ready, 1, memory_order_release);
}

/** Who did it, as text: w3, v2 (victim 2) or main. */
static void who_name(unsigned who, char *buf, size_t n)
{
	if (who == ~0u)
		snprintf(buf, n, "main");
	else if (who >= FZ_MAX_WORKERS)
		snprintf(buf, n, "v%u", who - FZ_MAX_WORKERS);
	else
		snprintf(buf, n, "w%u", who);
}

/** Print record @r as one line; keep it as its class's first. */
static void fz_print_rec(const struct fz_rec *r)
{
	char who[16], line[400];
	who_name(r->who, who, sizeof who);
	int n = snprintf(line, sizeof line,
			 "%s: %s: %s(%lu) args %lx %lx %lx %lx %lx %lx %lx "
			 "-> %ld (seed %lu)",
			 who, r->what, fz_call_name(r->nr), r->nr, r->a[0],
			 r->a[1], r->a[2], r->a[3], r->a[4], r->a[5], r->a[6],
			 r->got, fz.seed);
	(void)n;
	if (!first[r->k][0])
		snprintf(first[r->k], sizeof first[r->k], "%s", line);
	fz_say("FUZZ-BAD %s %s\n", class_names[r->k], line);
}

void fz_bad_text(enum fz_class k, const char *text)
{
	atomic_fetch_add(&fz.bad[k], 1);
	if (!first[k][0])
		snprintf(first[k], sizeof first[k], "main: %s (seed %lu)", text,
			 fz.seed);
	fz_say("FUZZ-BAD %s main: %s (seed %lu)\n", class_names[k], text,
	       fz.seed);
}

void fz_flush_bad(bool final)
{
	unsigned n = atomic_load(&nrec);
	for (; printed < n && printed < FZ_NREC; printed++) {
		struct fz_rec *r = &recs[printed];
		bool ready = atomic_load_explicit(&r->ready, memory_order_acquire);
		if (ready)
			fz_print_rec(r);
		else if (!final)
			break; /* being written: later */
		/* final: every writer has ended; one died in the middle */
	}
}

const char *fz_first_bad(enum fz_class k)
{
	return first[k];
}

/* ---- statistics ---- */

static void fz_stats_add(struct fz_stats *o, const struct fz_stats *s)
{
	for (unsigned i = 0; i < FZ_NCALLS; i++)
		o->calls[i] += s->calls[i];
	o->ok += s->ok;
	for (unsigned e = 0; e < FUL_NERRNO; e++)
		o->err[e] += s->err[e];
}

void fz_stats_sum(struct fz_stats *out)
{
	memset(out, 0, sizeof *out);
	for (unsigned i = 0; i < FZ_MAX_WORKERS; i++)
		fz_stats_add(out, &fz.w[i].c.st);
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++)
		fz_stats_add(out, &fz.v[i].c.st);
}

unsigned long fz_calls_total(void)
{
	unsigned long n = 0;
	for (unsigned i = 0; i < FZ_MAX_WORKERS; i++)
		n += atomic_load_explicit(&fz.w[i].c.ncalls,
					  memory_order_relaxed);
	for (unsigned i = 0; i < FZ_MAX_VICTIMS; i++)
		n += atomic_load_explicit(&fz.v[i].c.ncalls,
					  memory_order_relaxed);
	return n;
}

unsigned long fz_seed(unsigned long seed, unsigned long k)
{
	unsigned long z = seed + (k + 1) * 0x9e3779b97f4a7c15UL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	z ^= z >> 31;
	return z ? z : 1;
}

unsigned long fz_timeout(struct fz_ctx *c, bool block)
{
	static const unsigned long wk[] = {0, 0, 0, 20, 100, 1000};
	static const unsigned long vk[] = {200, 1000, 5000, 20000};
	if (c->victim)
		return vk[fz_below(&c->rng, 4)];
	unsigned i = fz_below(&c->rng, 6);
	return block && i < 2 ? 100 : wk[i];
}
