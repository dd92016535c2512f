/*
 * Balancer control: the /proc/sys/kernel/balance_* of Fulcrum. The
 * rootserver runs the system's balancer (user/balancer) with a policy
 * (user/policy) and answers these requests on its endpoint; a program
 * may ask only if the rootserver handed it the balancer capability: a
 * WRITE copy of that endpoint badged FUL_ROOT_BADGE_BAL
 * (<fulcrum/rootsrv.h>), in its slot FUL_SLOT_BALANCER. Without a
 * capability there is nothing to call (the kernel's EBADCAP); a copy
 * with another badge gets FUL_BAL_EPERM.
 *
 * Every request is a call: label FUL_BAL_*, arguments in MR0 and in the
 * caller's IPC buffer (FUL_MSG(label, bytes)); the reply's MR0 is the
 * result, >= 0 or -FUL_BAL_E*, and on FUL_BAL_GET the reply carries a
 * struct ful_bal_state in the caller's IPC buffer.
 *
 *   FUL_BAL_GET     no arguments. MR0: the number of tunables; buffer:
 *                   the policy's name and each tunable {name, value,
 *                   min, max}.
 *   FUL_BAL_SET     buffer: struct ful_bal_set {name, value}. MR0: 0.
 *   FUL_BAL_POLICY  buffer: the policy's name, NUL-terminated. MR0: 0.
 *                   The new policy starts from its default tunables.
 *   FUL_BAL_EXPLAIN MR0 a thread id (0: any thread). MR0: how many of
 *                   the log's last decisions that placed, moved or
 *                   turned down that thread are told (at most 3, the
 *                   newest first); buffer: one sentence each,
 *                   NUL-terminated text.
 *   FUL_BAL_SCORES  buffer: n thread ids (uint32_t each, 1 <= n <=
 *                   FUL_BAL_SCORES_MAX). MR0: how many of them the
 *                   policy scores (0 for a policy without scores, e.g.
 *                   mginkgo); buffer: n int32_t, thread i's score (opzone:
 *                   its prize/punish adjustment, permille) or
 *                   FUL_BAL_NOSCORE (a policy without scores, a kernel
 *                   thread, no such thread). Only reads.
 *   FUL_BAL_PLACE   MR0 the nice value (-20..19) of a thread the caller
 *                   is about to create. MR0: the core the policy places
 *                   it on (a logged decision, as for the balancer's own
 *                   threads). Create and start it there, then SETTLE.
 *   FUL_BAL_SETTLE  MR0 the id of the thread just created on the core
 *                   PLACE gave. Returns (MR0 0) once the kernel counts
 *                   it on a core, so that the next decision sees it;
 *                   -FUL_BAL_ETIMEOUT if it has not arrived within 2 s
 *                   (a thread created and never started must not hold
 *                   the server, which serves every client); 0 at once for an id that is not a live
 *                   thread's. Only waits.
 *
 * PLACE and SETTLE are also open to a placement capability: a copy
 * badged FUL_ROOT_BADGE_PLACE, which a system program that starts
 * processes holds in its FUL_SLOT_PLACE and hands on to the processes it starts
 * (ful_proc_spawn), so that their threads are placed by the policy
 * (ful_thread_spawn with cpu FUL_CPU_PLACE). A program that runs a
 * balancer of its own (the benchmark of paper 001) serves the same
 * requests on an endpoint of its own (user/balancer/balserve.c) and
 * hands that on instead. Two programs placing at once may both be told
 * the same core before either thread is counted, as two forks at once
 * may be on any kernel; the next round evens that out.
 *
 * A failed request changes nothing. A change takes effect at the next
 * decision and never in the middle of one: the balancer applies it under
 * the lock that every round (timer, demand, idle) and every placement
 * holds, i.e. between rounds.
 */
#ifndef FULCRUM_BALCTL_H
#define FULCRUM_BALCTL_H

#define FUL_BAL_GET 16
#define FUL_BAL_SET 17
#define FUL_BAL_POLICY 18
#define FUL_BAL_EXPLAIN 19
#define FUL_BAL_SCORES 20
#define FUL_BAL_PLACE 21
#define FUL_BAL_SETTLE 22
#define FUL_BAL_LAST FUL_BAL_SETTLE /* labels FUL_BAL_GET..LAST: balancer control */

/* The placement capability's slot, in a system program and in a process
 * started by ful_proc_spawn (empty when its parent has none). */
#define FUL_SLOT_PLACE 248

#define FUL_BAL_SCORES_MAX 128          /* FUL_IPCBUF_SIZE / 4 */
#define FUL_BAL_NOSCORE (-2147483647 - 1) /* INT32_MIN: no score */

#define FUL_BAL_EPOLICY 1  /* no policy of that name */
#define FUL_BAL_ETUNABLE 2 /* the current policy has no tunable of that name */
#define FUL_BAL_ERANGE 3   /* value outside the tunable's [min, max] */
#define FUL_BAL_EMSG 4     /* malformed: unknown label, wrong length, name
			    * empty or not NUL-terminated */
#define FUL_BAL_EPERM 5    /* the capability used is not the balancer's
			    * (or only a placement capability) */
#define FUL_BAL_ETIMEOUT 6 /* SETTLE: the thread never arrived on a core */

#define FUL_BAL_NAME_MAX 24 /* bytes of a name, with its NUL */
#define FUL_BAL_MAX_TUNABLES 8

struct ful_bal_tunable {
	char name[FUL_BAL_NAME_MAX];
	long value, min, max;
};

struct ful_bal_state {
	char policy[FUL_BAL_NAME_MAX];
	unsigned int n; /* tunables in t[] */
	unsigned int pad;
	struct ful_bal_tunable t[FUL_BAL_MAX_TUNABLES];
};

struct ful_bal_set {
	char name[FUL_BAL_NAME_MAX];
	long value;
};

#endif
