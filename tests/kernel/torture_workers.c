/*
 * Torture workers (torture.h).
 *
 * M workers are the targets of moves, kills, wakes and THREAD_SETs. Each
 * runs, spins, yields, parks, sleeps, moves itself and wakes its peers,
 * so a request finds it in any state. A killed one is replaced: its slot
 * goes to 0 by CAS (tort_reap), so exactly one of the cores that find it
 * gone accounts its end and starts the next incarnation. They never
 * wait for a request of their own (a kill would strand its record).
 *
 * I workers talk over the shared endpoints (send, call, receive, and
 * answer by REPLY or REPLY_RECV) and wait on their notifications, with
 * timeouts of 0, a few ms, or forever (notifications only: the
 * stressors and the end signal them). Every message carries an id; the
 * bitmaps record which were sent, received and answered, so that each
 * is seen exactly once.
 *
 * P workers park and count their returns; only pings wake them
 * (torture_ops.c, torture_watch.c).
 */
#include "kipc.h"
#include "torture.h"

_Atomic uint64_t tort_call_bits[TORT_IDS / 64];
_Atomic uint64_t tort_inc_bits[TORT_IDS / 64];
_Atomic uint64_t tort_inc_killed[TORT_IDS / 64];
_Atomic uint64_t tort_msg_rx[TORT_MSGS / 64], tort_msg_ok[TORT_MSGS / 64];
_Atomic uint64_t tort_msg_call[TORT_MSGS / 64];
_Atomic uint64_t tort_msg_answered[TORT_MSGS / 64];
_Atomic uint64_t tort_msg_unsure[TORT_MSGS / 64];

#define TM_SEND 1 /* message labels */
#define TM_CALL 2
#define TM_MAGIC 0x70e7u
#define TM_REPLY 0x7e91u

uint64_t tort_seed(uint64_t a, uint64_t b)
{
	uint64_t z = T.seed + a * 0x9e3779b97f4a7c15ull + b * 0xd1b54a32d192ed03ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31)) | 1;
}

void tort_end(uint32_t inc, bool exited)
{
	if (tort_bit_set(tort_inc_bits, inc))
		atomic_fetch_add(&T.dup, 1);
	else
		atomic_fetch_add(exited ? &T.mexits : &T.killed, 1);
}

struct tort_wref tort_worker(unsigned i)
{
	if (i < T.nm)
		return (struct tort_wref){atomic_load(&T.slot[i].tid),
					  &T.slot[i].holding,
					  &T.slot[i].progress};
	if ((i -= T.nm) < T.ni)
		return (struct tort_wref){T.iw[i].tid, &T.iw[i].holding,
					  &T.iw[i].progress};
	i -= T.ni;
	return (struct tort_wref){T.pw[i].tid, &T.pw[i].holding,
				  &T.pw[i].progress};
}

/* ---- M workers ---- */

static void tort_mstep(uint64_t *seed)
{
	uint64_t r = rng_next(seed);
	switch (r % 8) {
	case 0:
		thread_yield();
		break;
	case 1:
	case 2:
		thread_park(); /* until a wake request or a peer */
		break;
	case 3:
		thread_sleep_ms((r >> 8) % 3);
		break;
	case 4: /* itself, RUNNING: done by its own core, no record */
		thread_migrate(thread_current()->tid, (unsigned)(r >> 8) % T.ncpus);
		atomic_fetch_add(&T.worker_ops, 1);
		break;
	case 5: {
		unsigned w = (unsigned)((r >> 8) % T.nm);
		thread_unpark(atomic_load(&T.slot[w].tid));
		atomic_fetch_add(&T.worker_ops, 1);
		break;
	}
	default:
		for (volatile unsigned i = (unsigned)(r >> 8) % 3000; i; i--)
			;
	}
}

void tort_hold(_Atomic uint32_t *holding)
{
	atomic_store(holding, 1);
	while (atomic_load(&T.hold) && !atomic_load(&T.stop))
		thread_park(); /* a late wake-up just parks again */
	atomic_store(holding, 0);
}

/* arg: slot << 32 | incarnation */
static void tort_mworker(void *arg)
{
	uint32_t inc = (uint32_t)(uintptr_t)arg;
	struct tort_slot *sl = &T.slot[(uintptr_t)arg >> 32];
	uint64_t seed = tort_seed(inc, 0x4d);
	while (!atomic_load(&T.stop)) {
		atomic_fetch_add(&sl->progress, 1);
		if (tort_bit(tort_inc_killed, inc)) /* its kill returned 0 */
			atomic_fetch_add(&T.zombies, 1);
		if (atomic_load(&T.hold))
			tort_hold(&sl->holding);
		else
			tort_mstep(&seed);
	}
	tort_end(inc, true);
}

/** The incarnation just started in @sl as @tid was killed before its
 *  start: account it, unless its killer has (and started the next). */
static bool tort_unstarted(struct tort_slot *sl, tid_t tid, uint32_t inc)
{
	tid_t expect = tid;
	if (!atomic_compare_exchange_strong(&sl->tid, &expect, 0))
		return false;
	tort_end(inc, false);
	atomic_store(&sl->prev, tid);
	return true;
}

void tort_spawn(struct tort_stats *s, unsigned slot, uint64_t *seed)
{
	struct tort_slot *sl = &T.slot[slot];
	for (;;) {
		uint64_t r = rng_next(seed);
		uint32_t inc = atomic_fetch_add(&T.inc_next, 1);
		struct thread_attr a = {.name = "tort-m", .prio = 10 + r % 3,
					.slice_ms = 1 + (r >> 8) % 4,
					.cpu = (unsigned)(r >> 16) % T.ncpus};
		int err;
		struct thread *t = inc < TORT_IDS
			? thread_create_inactive(&a, tort_mworker,
						 (void *)((uintptr_t)slot << 32 | inc),
						 0, &err)
			: NULL;
		if (!t) {
			atomic_fetch_add(&T.spawn_fail, 1);
			return;
		}
		tid_t tid = atomic_load(&t->tid);
		thread_publish(t);
		atomic_store(&sl->inc, inc);
		atomic_store(&sl->holding, 0);
		atomic_store(&sl->progress, 0);
		atomic_store(&sl->tid, tid); /* a target now, while INACTIVE */
		if (r >> 24 & 1)
			thread_yield();
		int res = thread_start_tid(tid);
		tort_account(s, TOP_START, res, false, tid);
		if (res == 0 || !tort_unstarted(sl, tid, inc))
			return;
	}
}

void tort_reap(struct tort_stats *s, unsigned slot, tid_t tid,
	       uint64_t *seed)
{
	struct tort_slot *sl = &T.slot[slot];
	tid_t expect = tid;
	if (!tid || thread_lookup(tid) ||
	    !atomic_compare_exchange_strong(&sl->tid, &expect, 0))
		return;
	tort_end(atomic_load(&sl->inc), false);
	atomic_store(&sl->prev, tid);
	if (!atomic_load(&T.no_respawn))
		tort_spawn(s, slot, seed);
}

void tort_signal(struct tort_iw *w, uint64_t bits)
{
	kipc_signal(w->ntfn, bits);
}

/* ---- I workers ---- */

/** Count IPC call @op's result: 0, a timeout, or wrong. */
static void tort_iresult(struct tort_iw *w, enum tort_iop op, int err)
{
	w->ops[op]++;
	if (err == 0)
		w->ok[op]++;
	else if (err == -FUL_ETIMEOUT || (op == IOP_REPLY && err == -FUL_EDEAD))
		w->timeout[op]++; /* a reply whose caller gave up: EDEAD */
	else
		atomic_fetch_add(&T.bad_ipc, 1);
}

/** A timeout in us: 0 (never block), up to 3 ms, or (@forever, one in
 *  eight) 2^64-1, FUL_FOREVER. */
static uint64_t tort_timeout(uint64_t *seed, bool forever)
{
	uint64_t r = rng_next(seed);
	if (forever && r % 8 == 0)
		return FUL_FOREVER;
	return r % 4 == 0 ? 0 : (r >> 8) % 3000 + 1;
}

static void tort_isend(struct tort_iw *w, struct endpoint *ep, bool call)
{
	uint32_t id = atomic_fetch_add(&T.msg_next, 1);
	if (id >= TORT_MSGS)
		return;
	if (call)
		tort_bit_set(tort_msg_call, id);
	struct ipc_msg m = {.info = FUL_MSG(call ? TM_CALL : TM_SEND, 0),
			    .mr = {id, TM_MAGIC}};
	int err = kipc_send(ep, &m, call, tort_timeout(&w->seed, false));
	tort_iresult(w, call ? IOP_CALL : IOP_SEND, err);
	if (err)
		return;
	if (tort_bit_set(tort_msg_ok, id))
		atomic_fetch_add(&T.dup, 1);
	if (call && (m.mr[0] != id || m.mr[1] != TM_REPLY))
		atomic_fetch_add(&T.crossed, 1); /* someone else's reply */
}

/** Answer call @id of @token by REPLY: 0, or EDEAD if its caller gave
 *  up (then that CALL timed out; checked at the end). */
static void tort_ireply(struct tort_iw *w, uint32_t id, uint64_t token)
{
	struct ipc_msg r = {.mr = {id, TM_REPLY}};
	int err = kipc_reply(token, &r);
	tort_iresult(w, IOP_REPLY, err);
	if (!err && tort_bit_set(tort_msg_answered, id))
		atomic_fetch_add(&T.dup, 1);
}

/**
 * Serve received message *@m: mark its id once, and answer a call,
 * either by REPLY or, one time in two, by REPLY_RECV on @ep (the
 * hand-off path), whose reply's fate the replier does not learn (the id
 * is marked unsure) and which may bring the next message: true if it
 * did, in *@m and *@token.
 */
static bool tort_iserve(struct tort_iw *w, struct endpoint *ep,
			struct ipc_msg *m, uint64_t *token)
{
	uint32_t id = (uint32_t)m->mr[0];
	bool call = FUL_MSG_LABEL(m->info) == TM_CALL;
	if (m->mr[1] != TM_MAGIC || id >= atomic_load(&T.msg_next) ||
	    call != tort_bit(tort_msg_call, id) || call != (*token != 0)) {
		atomic_fetch_add(&T.bad_ipc, 1);
		return false;
	}
	if (tort_bit_set(tort_msg_rx, id))
		atomic_fetch_add(&T.dup, 1);
	if (!call)
		return false;
	if (rng_next(&w->seed) & 1) {
		tort_ireply(w, id, *token);
		return false;
	}
	struct ipc_msg r = {.mr = {id, TM_REPLY}};
	tort_bit_set(tort_msg_unsure, id);
	int err = kipc_reply_recv(ep, *token, &r,
				  tort_timeout(&w->seed, false), m, token);
	tort_iresult(w, IOP_RECV, err);
	return err == 0;
}

static void tort_istep(struct tort_iw *w)
{
	uint64_t r = rng_next(&w->seed);
	struct endpoint *ep = T.ep[(r >> 8) % TORT_NEPS];
	struct ipc_msg m;
	uint64_t token;
	switch (r % 8) {
	case 0:
	case 1: {
		int err = kipc_recv(ep, tort_timeout(&w->seed, false), &m,
				    &token);
		tort_iresult(w, IOP_RECV, err);
		while (!err && tort_iserve(w, ep, &m, &token))
			;
		break;
	}
	case 2:
	case 3:
		tort_isend(w, ep, false);
		break;
	case 4:
		tort_isend(w, ep, true);
		break;
	case 5:
		tort_iresult(w, IOP_WAIT,
			     kipc_wait(w->ntfn, tort_timeout(&w->seed, true),
				       NULL));
		break;
	case 6:
		thread_yield();
		break;
	default:
		thread_sleep_ms((r >> 8) % 2);
	}
}

void tort_iworker(void *arg)
{
	struct tort_iw *w = arg;
	while (!atomic_load(&T.stop)) {
		atomic_fetch_add(&w->progress, 1);
		if (atomic_load(&T.hold))
			tort_hold(&w->holding);
		else
			tort_istep(w);
	}
	atomic_fetch_add(&T.iexits, 1);
}

/* ---- P workers ---- */

void tort_pworker(void *arg)
{
	struct tort_pw *p = arg;
	while (!atomic_load(&T.stop)) {
		atomic_fetch_add(&p->progress, 1);
		if (atomic_load(&T.hold)) {
			tort_hold(&p->holding);
			continue;
		}
		thread_park();
		uint64_t n = atomic_fetch_add(&p->pongs, 1) + 1;
		if (n >= atomic_load(&p->need)) /* the ping is answered */
			atomic_store(&p->busy, 0);
	}
}
