/*
 * The ICC torture test (rcutorture's shape): stressor threads
 * on every core issue a seeded random mix of requests of every mailbox
 * kind at random workers and cores, while the workers run, park, sleep,
 * move themselves and talk over endpoints and notifications with
 * timeouts, and the test thread parks and wakes cores. Every request is
 * accounted for exactly once at the end. docs/testing.md, "The ICC
 * torture test".
 *
 *   test_torture.c     the test: set-up, the run, the checks, the report
 *   torture_ops.c      the stressors: the requests and their accounting
 *   torture_workers.c  the workers: M (moved, killed, restarted),
 *                      I (IPC; moved and woken, never killed) and
 *                      P (moved; woken by pings only)
 *   torture_watch.c    the lost wake-up watch
 */
#ifndef KERNEL_TESTS_TORTURE_H
#define KERNEL_TESTS_TORTURE_H

#include "ipc.h"
#include "probe.h"

#define TORT_STRESSORS 2 /* per core: issue the requests */
#define TORT_MWORKERS 4  /* per core: targets of moves, kills, wakes */
#define TORT_IWORKERS 2  /* per core: IPC with timeouts */
#define TORT_PWORKERS 1  /* per core: woken by pings only, one at a time */
#define TORT_NEPS 2      /* endpoints the I workers meet on */
#define TORT_MAX_STRESS (MAX_CPUS * TORT_STRESSORS)
#define TORT_MAX_M (MAX_CPUS * TORT_MWORKERS)
#define TORT_MAX_I (MAX_CPUS * TORT_IWORKERS)
#define TORT_MAX_P (MAX_CPUS * TORT_PWORKERS)
#define TORT_MAX_W (TORT_MAX_M + TORT_MAX_I + TORT_MAX_P)
/* Ids per bitmap: calls and thread incarnations (at most one of each
 * per request), IPC messages. torture_ops is capped to TORT_IDS. */
#define TORT_IDS (1u << 23)
#define TORT_MSGS (1u << 21)

/* What a stressor asks for. */
enum tort_op {
	TOP_MIGRATE,       /* TASK_OUT, waited for */
	TOP_MIGRATE_ASYNC, /* TASK_OUT, fire and forget */
	TOP_KILL,          /* TASK_KILL, waited for (M workers) */
	TOP_KILL_ASYNC,    /* TASK_KILL, fire and forget */
	TOP_CALL,          /* CALL_FUNC, waited for (icc_call_copy) */
	TOP_CALL_ASYNC,    /* CALL_FUNC, fire and forget */
	TOP_WAKE,          /* TASK_IPC (thread_unpark) */
	TOP_PING,          /* TASK_IPC to a P worker, which must answer */
	TOP_SIGNAL,        /* TASK_IPC through a notification */
	TOP_SET,           /* THREAD_SET: affinity, slice or nice */
	TOP_START,         /* THREAD_START of a restarted M worker (TASK_IN) */
	TOP_N
};

/* How a request ended. */
enum tort_oc {
	OC_DONE,     /* handled (a waited-for request returned 0) */
	OC_POSTED,   /* fire and forget, accepted: confirmed at the end */
	OC_EINVAL,   /* target core offline (and only then) */
	OC_ESTATE,   /* not started, or outside the thread's affinity */
	OC_ENOTHREAD, /* the thread is gone */
	OC_EDEAD,    /* the thread was dying */
	OC_EAGAIN,   /* the sender's pool was empty */
	OC_LOST,     /* timed out: never handled in 10 s */
	OC_BAD,      /* a result the documentation does not allow */
	OC_N
};

/* One per stressor (and one for the test thread): written by its
 * owner only, read once all are done. */
struct tort_stats {
	uint64_t issued[TOP_N];
	uint64_t oc[TOP_N][OC_N];
	uint64_t call_marks_due; /* CALL_FUNCs accepted: each must run once */
	uint64_t target_state[T_STARTING + 1]; /* sampled before each request */
	uint64_t to_offline, to_parked, to_self; /* cores aimed at */
	int bad_op, bad_res;     /* the first OC_BAD, for the report: */
	tid_t bad_tid;           /* the thread it named, found alive after */
	uint32_t bad_state;      /* in this state */
	uint64_t seed;
} __attribute__((aligned(CACHELINE)));

/* An M worker's place: one live incarnation at a time. */
struct tort_slot {
	_Atomic tid_t tid;    /* 0 while its replacement is being made */
	_Atomic tid_t prev;   /* the last dead one (a request to it: gone) */
	_Atomic uint32_t inc; /* incarnation of tid, stored before it */
	_Atomic uint32_t holding; /* tid is at rest in tort_hold */
	_Atomic uint64_t progress; /* tid's loop steps (the wake-up watch) */
};

enum tort_iop { IOP_SEND, IOP_CALL, IOP_RECV, IOP_WAIT, IOP_REPLY, IOP_N };

/* An I worker: its notification and what its IPC calls returned. */
struct tort_iw {
	tid_t tid;
	struct ntfn *ntfn;
	_Atomic uint32_t holding; /* at rest in tort_hold */
	_Atomic uint64_t progress; /* loop steps (the wake-up watch) */
	uint64_t ops[IOP_N], ok[IOP_N], timeout[IOP_N]; /* own writes only */
	uint64_t seed;
} __attribute__((aligned(CACHELINE)));

/*
 * A P worker parks and counts each return (a pong). Nothing but a ping
 * wakes it, and a ping is sent only when the last one was answered
 * (busy): a lost wake-up is never healed by the next one, it leaves the
 * worker parked and busy for good, which the test's watch reports.
 */
struct tort_pw {
	tid_t tid;
	_Atomic uint32_t busy;    /* a ping is out: set by its pinger (CAS) */
	_Atomic uint64_t need;    /* the pong count that answers it */
	_Atomic uint64_t pongs;   /* returns from thread_park */
	_Atomic uint32_t holding; /* at rest in tort_hold */
	_Atomic uint64_t progress;
} __attribute__((aligned(CACHELINE)));

/* Any worker, for the checks (tort_worker). */
struct tort_wref {
	tid_t tid;
	_Atomic uint32_t *holding;
	_Atomic uint64_t *progress;
};

struct torture {
	unsigned ncpus, nstress, nm, ni, np, nw; /* nw = nm + ni + np */
	uint64_t seed, ops_total, sync_pct;
	_Atomic uint64_t ops_next;   /* requests claimed by stressors */
	_Atomic uint32_t hold, stop, no_respawn, stressors_done;
	_Atomic uint32_t inc_next, call_next, msg_next;
	_Atomic uint64_t mexits, iexits, killed, dup, misrouted, crossed;
	_Atomic uint64_t bad_ipc, spawn_fail, worker_ops, lost_wakeups;
	_Atomic uint64_t zombies; /* steps of workers whose kill returned 0 */
	struct tort_slot slot[TORT_MAX_M];
	struct tort_iw iw[TORT_MAX_I];
	struct tort_pw pw[TORT_MAX_P];
	struct endpoint *ep[TORT_NEPS];
	struct tort_stats st[TORT_MAX_STRESS + 1]; /* [nstress]: the test */
};

extern struct torture T;
/* Bitmaps of ids (torture_workers.c): CALL_FUNCs run; incarnations
 * ended, and killed by a kill that returned 0 (they must not run); messages that are calls, whose SEND or CALL returned 0, that
 * were received, whose reply found its caller waiting, answered by a
 * REPLY_RECV (which does not tell whether it did). */
extern _Atomic uint64_t tort_call_bits[TORT_IDS / 64];
extern _Atomic uint64_t tort_inc_bits[TORT_IDS / 64];
extern _Atomic uint64_t tort_inc_killed[TORT_IDS / 64];
extern _Atomic uint64_t tort_msg_call[TORT_MSGS / 64];
extern _Atomic uint64_t tort_msg_ok[TORT_MSGS / 64];
extern _Atomic uint64_t tort_msg_rx[TORT_MSGS / 64];
extern _Atomic uint64_t tort_msg_answered[TORT_MSGS / 64];
extern _Atomic uint64_t tort_msg_unsure[TORT_MSGS / 64];

/** Set bit @i of @map; true if it was set already (a duplicate). */
static inline bool tort_bit_set(_Atomic uint64_t *map, uint32_t i)
{
	return atomic_fetch_or(&map[i / 64], 1ull << (i % 64)) >> (i % 64) & 1;
}

static inline bool tort_bit(_Atomic uint64_t *map, uint32_t i)
{
	return atomic_load_explicit(&map[i / 64], memory_order_relaxed) >>
	       (i % 64) & 1;
}

/** Worker @i: M workers first, then I, then P. */
struct tort_wref tort_worker(unsigned i);
/** A seed for stream @a of kind @b, from the boot's seed. */
uint64_t tort_seed(uint64_t a, uint64_t b);

/* torture_watch.c */
void tort_watch_init(void);
/** One look at every worker for a lost wake-up (the test thread). */
void tort_watch(void);
/** BLOCKED with a wake token and no wake record in flight. */
bool tort_wake_stuck(struct thread *t);

/* torture_ops.c */
void tort_stressor(void *arg);
/** Account request @op of @s that returned @res; @offline: it named an
 *  offline core; @tid: the thread it named (0: none), which must not
 *  live on if the request found it gone or dying. */
void tort_account(struct tort_stats *s, enum tort_op op, int res,
		  bool offline, tid_t tid);

/* torture_workers.c */
/** Start an M worker in empty slot @slot (tid 0), on a random core: made
 *  INACTIVE, published, then started (TOP_START, accounted in @s). */
void tort_spawn(struct tort_stats *s, unsigned slot, uint64_t *seed);
/** If thread @tid of @slot is gone (killed), account its end and, unless
 *  the run is over, start its successor. */
void tort_reap(struct tort_stats *s, unsigned slot, tid_t tid,
	       uint64_t *seed);
/** Account the end of incarnation @inc: exited by itself or killed. */
void tort_end(uint32_t inc, bool exited);
void tort_iworker(void *arg);
void tort_pworker(void *arg);
/** A worker at the end of the run: note it is at rest (*@holding) and
 *  stay parked while T.hold, until T.stop. */
void tort_hold(_Atomic uint32_t *holding);
/** Signal I worker @w's notification (IRQs handled). */
void tort_signal(struct tort_iw *w, uint64_t bits);

#endif
