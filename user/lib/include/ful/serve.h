/*
 * The serving loop of a ring server (<fulcrum/sring.h>): one thread
 * serves a set of up to 64 rings (F: its client rings; B, D: the one
 * ring of their client) and sleeps on the set's doorbell when none has
 * work. Used by B, D and F; user/lib/serve.c has the parts off the
 * request path.
 *
 * The loop (ful_serve_run): a pass over the live rings serves each
 * ring's waiting requests (ops->serve); after a pass that served, the
 * next pass comes only if a request is waiting (a look at two words a
 * ring, far cheaper than a pass: one request at a time is the common
 * case); otherwise the thread polls up to s->spins passes while its
 * core has no other runnable thread (then polling costs nobody
 * anything; the load area's record of the thread says which core it is
 * on: a load, no system call), then runs ops->idle, says "sleeping" in
 * every live ring, looks once more, and waits on the doorbell.
 *
 * The set's description (struct ful_serve_ops) is constant: a server
 * passes a static const one, and since these functions are inlined
 * into its loop, its callbacks are direct calls and its addresses
 * immediates. Its state (struct ful_serve) is the serving thread's but
 * for `live` and `busy`, the hand-over with the thread that attaches
 * and detaches rings (F's IPC thread): the serving thread reads a ring
 * only after seeing its bit in `live`, and marks `busy` while in it; a
 * detach clears the bit and waits until `busy` is not that ring.
 */
#ifndef FUL_SERVE_H
#define FUL_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>

#include <fulcrum/sring.h>
#include <ful/ful.h>
#include <ful/load.h>

struct ful_serve_ops {
	/* serve ring k's waiting requests and wake its client: how many
	 * (called with k's bit seen in live, busy == k) */
	unsigned (*serve)(unsigned k);
	void (*idle)(void);    /* before the thread sleeps, or NULL */
	/* the notification doorbell said FUL_SRING_BELL_KILLED: stop
	 * serving (after closing the rings, ful_serve_close)? NULL: never */
	bool (*killed)(void);
	unsigned long base;    /* ring k's control block at base + k * stride */
	unsigned long stride;
	unsigned peer;         /* ring k's client notification (WRITE): slot
				* peer + k */
	unsigned bell;         /* the doorbell (READ) */
	bool bell_ep;          /* the doorbell is an endpoint (a set of one
				* ring), else a notification */
};

struct ful_serve {
	/* bit k: ring k is served; set by ful_serve_attach, cleared by
	 * ful_serve_detach (any thread), read by the serving thread; a set
	 * with an endpoint doorbell starts with its one ring live */
	_Atomic unsigned long live;
	_Atomic int busy;   /* the ring being served, or -1 (start with -1):
			     * written by the serving thread, read by
			     * ful_serve_detach */
	unsigned spins;     /* passes polled before sleeping (only while
			     * the core is not wanted); set before the run */
	unsigned tid;       /* the serving thread (ful_serve_run sets it) */
	bool caller;        /* endpoint doorbell: a CALL to answer; the
			     * serving thread's */
};

#define FUL_SERVE_INLINE static inline __attribute__((always_inline))

/** Ring @k's control block. */
FUL_SERVE_INLINE struct ful_sring_ctl *
ful_serve_ctl(const struct ful_serve_ops *ops, unsigned k)
{
	return (struct ful_sring_ctl *)(ops->base + k * ops->stride);
}

/** One pass over the live rings: the requests served. The seq_cst
 *  store of busy before the second look at live pairs with detach's
 *  RMW of live before its look at busy: either we see the bit cleared
 *  or the detach sees us in the ring and waits. Serving thread only. */
FUL_SERVE_INLINE unsigned ful_serve_pass(struct ful_serve *s,
					 const struct ful_serve_ops *ops)
{
	unsigned long m = atomic_load(&s->live);
	unsigned n = 0;
	for (unsigned k = 0; m; k++, m >>= 1) {
		if (!(m & 1))
			continue;
		atomic_store(&s->busy, (int)k);
		if (atomic_load(&s->live) & (1UL << k))
			n += ops->serve(k);
		atomic_store(&s->busy, -1);
	}
	return n;
}

/** Is a request waiting on a live ring? Two words a ring. */
FUL_SERVE_INLINE bool ful_serve_pending(struct ful_serve *s,
					const struct ful_serve_ops *ops)
{
	unsigned long m = atomic_load(&s->live);
	for (unsigned k = 0; m; k++, m >>= 1) {
		struct ful_sring_ctl *c = ful_serve_ctl(ops, k);
		if ((m & 1) &&
		    atomic_load(&c->req_head) != atomic_load(&c->req_tail))
			return true;
	}
	return false;
}

/** Is this thread's core wanted by another thread (then polling would
 *  cost it)? The core is the one the load area's record of the thread
 *  gives (the server may have been moved): a load, where a SYSINFO
 *  call cost each wake-up about 200 instructions. A record being
 *  rewritten gives a stale core at worst, which only decides one more
 *  or one less poll. */
FUL_SERVE_INLINE bool ful_serve_core_wanted(const struct ful_serve *s)
{
	const struct ful_load_page *pg = ful_load_area();
	unsigned cpu = FUL_LOAD_RLX(&pg->thread[FUL_TID_SLOT(s->tid)].cpu);
	return cpu >= FUL_LOAD_CPUS ||
	       FUL_LOAD_RLX(&pg->cpu[cpu].nrunnable) > 1;
}

/** Endpoint doorbell, the requests taken: let a client that rang go on
 *  (a thread that does not poll answers it as it goes to sleep, with
 *  the REPLY_RECV of ful_serve_sleep: one call instead of two). */
FUL_SERVE_INLINE void ful_serve_release(struct ful_serve *s,
					const struct ful_serve_ops *ops)
{
	if (ops->bell_ep && s->caller && s->spins) {
		struct ful_msg m = {.info = FUL_MSG(0, 0)};
		ful_reply(&m);
		s->caller = false;
	}
}

/** Say "sleeping" in every live ring (@on 1), or take it back (0). */
FUL_SERVE_INLINE void ful_serve_flags(struct ful_serve *s,
				      const struct ful_serve_ops *ops,
				      unsigned on)
{
	unsigned long m = atomic_load(&s->live);
	for (unsigned k = 0; m; k++, m >>= 1)
		if (m & 1)
			atomic_store(&ful_serve_ctl(ops, k)->server_sleeping,
				     on);
}

/** Wait on an endpoint doorbell (serve.c): answer a waiting caller, if
 *  any, in the same call. */
void ful_serve_wait_ep(struct ful_serve *s, unsigned bell);

/** Nothing to do: say "sleeping" (the full fence orders the flags
 *  before the look at the rings, against a client's head before its
 *  look at the flag: one of the two sees the other), look once more,
 *  and unless a request came meanwhile wait on the doorbell. False if
 *  the thread is to stop (FUL_SRING_BELL_KILLED and ops->killed said
 *  so). Serving thread only. */
FUL_SERVE_INLINE bool ful_serve_sleep(struct ful_serve *s,
				      const struct ful_serve_ops *ops)
{
	ful_serve_flags(s, ops, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (!ful_serve_pending(s, ops)) {
		if (ops->bell_ep) {
			ful_serve_wait_ep(s, ops->bell);
		} else {
			unsigned long bits = 0;
			ful_ntfn_wait(ops->bell, &bits, FUL_FOREVER);
			if ((bits & FUL_SRING_BELL_KILLED) && ops->killed &&
			    ops->killed())
				return false;
		}
	}
	ful_serve_flags(s, ops, 0);
	return true;
}

/** The serving thread's own id, for ful_serve_core_wanted (serve.c). */
void ful_serve_start(struct ful_serve *s);

/** Serve the set for ever (or until ops->killed says stop). */
FUL_SERVE_INLINE void ful_serve_run(struct ful_serve *s,
				    const struct ful_serve_ops *ops)
{
	ful_serve_start(s);
	for (;;) {
		unsigned n = ful_serve_pass(s, ops);
		ful_serve_release(s, ops);
		if (n && ful_serve_pending(s, ops))
			continue;
		bool got = false;
		for (unsigned i = 0; !got && i < s->spins &&
				     !ful_serve_core_wanted(s);
		     i++)
			got = ful_serve_pass(s, ops) != 0;
		if (got)
			continue;
		if (ops->idle)
			ops->idle();
		if (!ful_serve_sleep(s, ops))
			return;
	}
}

/** Serve ring @k from now on (a set with a notification doorbell: the
 *  serving thread is told to look). Any thread. */
void ful_serve_attach(struct ful_serve *s, const struct ful_serve_ops *ops,
		      unsigned k);
/** Serve ring @k no more: back once the serving thread is out of it
 *  (waiting with ful_backoff: it may need this core). Any thread but
 *  the serving one. */
void ful_serve_detach(struct ful_serve *s, unsigned k);
/** The server is going: mark every live ring server_dead and wake its
 *  client, whose requests then fail. */
void ful_serve_close(struct ful_serve *s, const struct ful_serve_ops *ops);

#endif
