/*
 * fuzz: a multi-core system-call fuzzer of the project's own (issue 19).
 * The rootserver starts it as a system program (<ful/ful.h>) when booted
 * with fuzz=<seed>; fuzz_calls=N and/or fuzz_secs=S bound the run,
 * fuzz_workers=W and fuzz_victims=V size it.
 *
 *   main.c      entry, set-up, the watchdog, teardown, the report
 *   oracle.c    the documented results of every call, the call wrapper,
 *               failure records and statistics
 *   ops_ipc.c   endpoints, replies and notifications
 *   ops_mem.c   capabilities, frames, mappings, tasks, child threads
 *   ops_sched.c victims (threads made to be killed), kill, migrate,
 *               THREAD_SET, the wake-up rendezvous with the watchdog
 *   raw.c       raw calls with random registers
 *   census.c    the leak census: pool pages, kernel objects, threads
 *   child.S     the code a thread in a child task runs
 *
 * Capability slots of the task. 1..7 are the system program's own
 * (FUL_SLOT_*). Threads of the task and the objects of exact checks
 * live outside the arena; the arena is the shared live set, split into
 * zones by kind so that an operation finds the kind it wants most of
 * the time (a slot may still be empty, or hold a reduced copy, a reply
 * capability or anything a racing thread put there). Raw calls name
 * only arena slots, and no arena slot ever holds the pool, the
 * scheduling control or this task's own vspace with ADMIN, nor a vspace
 * outside the VS zone: nothing random can shut the machine down, move
 * a thread of the fuzzer, map over its memory or build a capability
 * cycle that would leak a task.
 */
#ifndef FUZZ_FZ_H
#define FUZZ_FZ_H

#include <stdatomic.h>
#include <stdbool.h>

#include <ful/ful.h>

#define FZ_MAX_WORKERS 8
#define FZ_MAX_VICTIMS 12

enum {
	FZ_SLOT_WORKER0 = 8,  /* 8..15: worker threads */
	FZ_SLOT_VICTIM0 = 16, /* 16..27: victim threads */
	FZ_SLOT_CODE = 28,    /* the frame holding child.S's code */
	FZ_SLOT_TICK = 29,    /* the watchdog's timer notification */
	FZ_ARENA_LO = 32,
	FZ_EP_LO = 32,
	FZ_EP_N = 28,
	FZ_NTFN_LO = 60,
	FZ_NTFN_N = 20,
	FZ_FRAME_LO = 80,
	FZ_FRAME_N = 32,
	FZ_VS_LO = 112,
	FZ_VS_N = 12,
	FZ_THREAD_LO = 124,
	FZ_THREAD_N = 24,
	FZ_MISC_LO = 148,
	FZ_MISC_N = 44,
	FZ_ARENA_HI = 192, /* arena: [FZ_ARENA_LO, FZ_ARENA_HI) */
	FZ_PRIV_LO = 192,  /* 8 private slots per worker */
	FZ_PRIV_PER = 8,
};

/* Private slots of worker w: FZ_PRIV_LO + w * FZ_PRIV_PER + one of: */
enum { FZ_P_FRAME, FZ_P_THREAD, FZ_P_RV, FZ_P_SPARE };

/* Memory of this task (and of the child tasks) used by the fuzzer. */
#define FZ_CHILD_CODE_VA 0x10000UL     /* child.S in every child task */
#define FZ_GRID_VA	 0x100000000UL /* shared grid: arena frames */
#define FZ_GRID_STEP	 0x10000UL     /* 16 pages: the largest frame */
#define FZ_GRID_N	 32
#define FZ_PRIV_VA	 0x200000000UL /* worker w: two windows */
#define FZ_PRIV_STEP	 0x200000UL
#define FZ_WIN2_OFF	 0x100000UL
#define FZ_FRAME_PAGES	 16 /* frames of 1..16 pages */

/* Messages of the fuzzer carry these labels and a checksum; raw calls
 * never use them, so a receiver can check every one it gets. */
#define FZ_L_SEND  0xf5e0u
#define FZ_L_CALL  0xf5e1u
#define FZ_L_REPLY 0xf5e2u /* answers the request it names */
#define FZ_L_ANON                                                              \
	0xf5e3u /* a reply by a thread that did not see                        \
		 * the request (a saved reply) */
#define FZ_REPLY_XOR 0x5a5a5a5a5a5a5a5aUL
#define FZ_BITS	     0xffffUL /* notification bits the fuzzer signals */

/* Workers, victims and the watchdog: the watchdog (the first thread,
 * the rootserver's priority) preempts the others at once. */
#define FZ_PRIO 90

/* Bounds. Every blocking call has a finite timeout well below 30 s. */
#define FZ_STUCK_US	 20000000UL /* a call or thread stalled this long */
#define FZ_LATE_US	 2000000UL  /* a wake-up this late after its signal */
#define FZ_RV_TIMEOUT_US 5000000UL

/** xorshift64*, one per thread, seeded from the run's seed. */
struct fz_rng {
	unsigned long s;
};

static inline unsigned long fz_next(struct fz_rng *g)
{
	unsigned long x = g->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g->s = x;
	return x * 0x2545f4914f6cdd1dUL;
}

static inline unsigned fz_below(struct fz_rng *g, unsigned n)
{
	return (unsigned)((fz_next(g) >> 32) % n);
}

/** A seed for stream @k of run seed @seed (splitmix64 of both). */
unsigned long fz_seed(unsigned long seed, unsigned long k);

/* Statistics: calls per number (the last entry: invalid numbers) and
 * results. Each thread writes its own; the report sums them. */
#define FZ_NCALLS (FUL_SYS_COUNT + 1)

struct fz_stats {
	unsigned long calls[FZ_NCALLS];
	unsigned long ok, err[FUL_NERRNO];
};

/* The call a thread is in, for the watchdog: t0 is 0 outside calls. */
struct fz_cur {
	_Atomic unsigned long t0;
	unsigned long nr, a[7], timeout_us;
};

/* The thread's pending reply, as far as it knows: none (a REPLY must
 * fail with ESTATE), one to a caller of the fuzzer's (0 or EDEAD), or
 * unknown (after raw calls and failed receives). */
enum { FZ_R_NONE, FZ_R_PENDING, FZ_R_UNKNOWN };

/* One fuzzing thread: a worker, or a victim (which may be killed at any
 * instruction, so it takes no lock and calls nothing of libc that
 * does). */
struct fz_ctx {
	unsigned id; /* workers 0.., victims FZ_MAX_WORKERS.. */
	bool victim;
	struct fz_rng rng;
	struct fz_cur cur;
	_Atomic unsigned long ncalls;
	_Atomic unsigned long hb; /* operations done */
	struct fz_stats st;
	unsigned long last_mr0; /* mr0 of the last message received */
	unsigned reply;		/* what the kernel holds: FZ_R_* */
	char *scratch;		/* 2 writable pages for raw pointers */
	long tid;
};

/* A worker: never killed, owns private slots and windows. */
struct fz_worker {
	struct fz_ctx c;
	struct ful_thread th;
	_Atomic int done;
	/* Moves of it by other workers, begun and ended: a self check
	 * holds only if none overlapped it. */
	_Atomic unsigned long moved_begin, moved_end;
	_Atomic unsigned long rv_req, rv_sig; /* rendezvous (ops_sched.c) */
};

/* A victim slot: FREE -> BUSY (spawning, reaping) -> LIVE -> BUSY ... */
enum { FZV_FREE, FZV_BUSY, FZV_LIVE };

struct fz_victim {
	struct fz_ctx c;
	_Atomic unsigned state;
	_Atomic int lock; /* held across a kill or a reap */
	struct ful_thread th;
	void *stale_mem;	 /* a dead victim's block, to free */
	unsigned long killed_at; /* counter at a kill that returned 0 */
	bool stuck;		 /* its stuck call was reported */
	unsigned long spawned;
};

/* Failure classes: each is one TEST line of the report. */
enum fz_class { FZ_RESULTS, FZ_PROGRESS, FZ_LEAKS, FZ_NCLASSES };

struct fz_run {
	unsigned long seed;
	unsigned ncpus, nworkers, nvictims;
	unsigned long max_calls, max_secs;
	unsigned long t0; /* counter at the start of the run */
	_Atomic int go, stop;
	struct fz_worker w[FZ_MAX_WORKERS];
	struct fz_victim v[FZ_MAX_VICTIMS];
	_Atomic unsigned long bad[FZ_NCLASSES];
	_Atomic unsigned long late_wakeups, victim_spawns, victim_kills;
	_Atomic unsigned long child_threads;
	char *ro_page; /* a read-only page of zeros */
};

extern struct fz_run fz;

/* ---- oracle.c ---- */

/** Errors a structured call may see besides success (FZ_ANY: whatever
 *  the call documents). The check is against doc & may. */
#define FZ_E(x) (1u << FUL_E##x)
#define FZ_ANY	(~0u)
#define FZ_CAPS (FZ_E(BADCAP) | FZ_E(TYPE) | FZ_E(RIGHTS))

/** Issue call @nr with @a in @c (recorded for the watchdog, counted),
 *  and check x0: a documented error of @nr within @may, or a success of
 *  the documented form. */
struct ful_ret fz_sys(struct fz_ctx *c, unsigned long nr,
		      const unsigned long a[7], unsigned may);
/** As fz_sys, but exactly @expect (0 or -FUL_E*), or @alt if nonzero. */
long fz_exact(struct fz_ctx *c, unsigned long nr, const unsigned long a[7],
	      long expect, long alt);
/** Record a failure of class @k by @c (NULL: main) with what it saw. */
void fz_bad(struct fz_ctx *c, enum fz_class k, const char *what,
	    unsigned long nr, const unsigned long a[7], long got);
/** Record and print a failure found by main, described by @text. */
void fz_bad_text(enum fz_class k, const char *text);
/** Print the failure records not printed yet, in order (main only);
 *  @final: skip those a thread that died never finished. */
void fz_flush_bad(bool final);
/** The first failure of class @k, or "" (after fz_flush_bad). */
const char *fz_first_bad(enum fz_class k);
const char *fz_call_name(unsigned long nr);
/** Print one line (or several) with a single console write, so that
 *  lines of different threads never mix (workers and main only). */
void fz_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Sum of all statistics into @out. */
void fz_stats_sum(struct fz_stats *out);
/** Calls so far, every thread. */
unsigned long fz_calls_total(void);

/** Shorthand: a call with up to seven arguments, checked against @may. */
#define FZ_SYS(c, nr, may, ...)                                                \
	fz_sys((c), FUL_SYS_##nr, (const unsigned long[7]){__VA_ARGS__}, (may))
#define FZ_EXACT(c, nr, expect, alt, ...)                                      \
	fz_exact((c), FUL_SYS_##nr, (const unsigned long[7]){__VA_ARGS__},     \
		 (expect), (alt))

/** A random arena slot of a zone. */
static inline unsigned fz_slot(struct fz_ctx *c, unsigned lo, unsigned n)
{
	return lo + fz_below(&c->rng, n);
}

static inline unsigned fz_priv(unsigned w, unsigned which)
{
	return FZ_PRIV_LO + w * FZ_PRIV_PER + which;
}

static inline bool fz_stopping(void)
{
	return atomic_load_explicit(&fz.stop, memory_order_relaxed);
}

/** A short timeout for a blocking call, in microseconds (never 0 if
 *  @block). Victims wait longer than workers. */
unsigned long fz_timeout(struct fz_ctx *c, bool block);

/* ---- the operations (ops_*.c, raw.c): one step of a thread ---- */

void fz_op_ipc(struct fz_ctx *c);
void fz_op_ntfn(struct fz_ctx *c);
void fz_op_cap(struct fz_ctx *c);
void fz_op_map(struct fz_ctx *c);
void fz_op_frame_exact(struct fz_worker *w);
void fz_op_child(struct fz_worker *w);
void fz_op_victim(struct fz_worker *w);
void fz_op_move(struct fz_worker *w);
void fz_op_set(struct fz_worker *w);
void fz_op_self(struct fz_worker *w);
void fz_op_rendezvous(struct fz_worker *w);
void fz_op_raw(struct fz_ctx *c);
/** Send or call with a checked message (victims use it too). */
void fz_ipc_send(struct fz_ctx *c, bool call);
/** Touch a grid page (victims only: it may fault). */
void fz_touch_grid(struct fz_ctx *c);

/** The body of a victim thread (ops_sched.c). */
void fz_victim_main(void *arg);
/** Reap dead victims, check kills and stuck victims (watchdog). */
void fz_victims_reap(bool final);
/** Print what the kernel says of stuck thread @tid (its capability in
 *  @slot) and of its core, twice, 1 s apart (main only). */
void fz_diag_thread(const char *who, long tid, unsigned slot);
/** Serve pending rendezvous: every worker's (watchdog), the next
 *  worker's (a worker, after each step). */
void fz_rendezvous_serve(void);
void fz_rendezvous_peer(struct fz_worker *w);

/* Arena set-up and teardown (ops_mem.c). */
int fz_tables_warm(void);
int fz_arena_init(void);
void fz_arena_clear(void);

/* ---- census.c ---- */

struct fz_census {
	unsigned long pool_pages;
	unsigned eps, ntfns, vspaces, frames;
	unsigned threads;
};

/** Count what is free (pages, object table entries) and what lives
 *  (threads). 0, or -FUL_E* if a probe could not run. */
int fz_census_take(struct fz_census *out);
/** Count live threads (load area records in use). */
unsigned fz_census_threads(void);

/* ---- child.S ---- */
extern const char fz_child_code[], fz_child_code_end[];

#endif
