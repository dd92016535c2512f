/*
 * The case table: for every system call, one row per class of bad
 * argument (bad slot, empty slot, wrong type, missing rights, bad
 * destination, length, pointer, value, state), plus rows with two bad
 * arguments that pin down the documented order of checks
 * (<fulcrum/syscall.h>): ENOSYS; per capability argument EBADCAP, ETYPE,
 * ERIGHTS; destination slot EBADCAP; ERANGE; EFAULT; EINVAL; ESTATE;
 * ENOMEM (a pool that cannot pay, after every other check).
 * No row may leave a trace (every one fails, or is a no-op that returns
 * 0), so rows can run in any order and any number of times.
 *
 * Blocking calls get timeout 0: a valid call that would block returns
 * ETIMEOUT. EXIT has no bad argument (it ignores all of them and ends the
 * caller); special.c covers it from threads made to die. SHUTDOWN is only
 * ever called with a capability that must be refused.
 */
#include "bi.h"

#define Z K_ZERO
#define A K_ANY
#define C(nr, err, what, a0, a1, a2, a3, a4, a5, a6)                        \
	{FUL_SYS_##nr, FUL_##err, 0, {a0, a1, a2, a3, a4, a5, a6}, what}
/* A row that found a kernel bug (fixed in c84c347). */
#define CFIXED(nr, err, what, a0, a1, a2, a3, a4, a5, a6)                   \
	{FUL_SYS_##nr, FUL_##err, BI_FIXED, {a0, a1, a2, a3, a4, a5, a6}, what}
#define FUL_SYS_INVALID BI_NR_INVALID
#define FUL_ZERO 0

/* The four ways a capability argument can be bad, for argument 0 or 1
 * of a call that needs type T there (NOT: other types) with rights
 * (NOR: copies without them). */
#define CAP4_0(nr, what, NOT, NOR, a1, a2, a3, a4, a5, a6)                    \
	C(nr, EBADCAP, what " out of range", B_RANGE, a1, a2, a3, a4, a5, a6), \
	C(nr, EBADCAP, what " empty", B_EMPTY, a1, a2, a3, a4, a5, a6),        \
	C(nr, ETYPE, what " wrong type", NOT, a1, a2, a3, a4, a5, a6),         \
	C(nr, ERIGHTS, what " lacks rights", NOR, a1, a2, a3, a4, a5, a6)
#define CAP4_1(nr, what, NOT, NOR, a0, a2, a3, a4, a5, a6)                    \
	C(nr, EBADCAP, what " out of range", a0, B_RANGE, a2, a3, a4, a5, a6), \
	C(nr, EBADCAP, what " empty", a0, B_EMPTY, a2, a3, a4, a5, a6),        \
	C(nr, ETYPE, what " wrong type", a0, NOT, a2, a3, a4, a5, a6),         \
	C(nr, ERIGHTS, what " lacks rights", a0, NOR, a2, a3, a4, a5, a6)

/* Unused arguments are K_ANY (ignored: any value), timeouts K_ZERO. */
const struct bi_case bi_cases[] = {
	/* 0 DEBUG_WRITE(ptr, len) */
	C(DEBUG_WRITE, ERANGE, "len > max", V_PTR_R, B_DBG_LEN, A, A, A, A, A),
	C(DEBUG_WRITE, EFAULT, "unmapped ptr", B_PTR, V_LEN, A, A, A, A, A),
	C(DEBUG_WRITE, EFAULT, "ptr runs off the map", B_PTR_CROSS, V_LEN, A, A, A, A, A),
	C(DEBUG_WRITE, ERANGE, "order: len before ptr", B_PTR, B_DBG_LEN, A, A, A, A, A),
	C(DEBUG_WRITE, ZERO, "len 0 reads nothing", B_PTR, V_LEN0, A, A, A, A, A),
	/* 1 YIELD(): every argument ignored */
	C(YIELD, ZERO, "garbage arguments", B_GARBAGE, B_GARBAGE, A, A, A, A, A),
	/* 3 SEND(ep, info, mr0..3, timeout) */
	CAP4_0(SEND, "ep", B_NOT_EP, B_EP_NO_W, V_INFO, A, A, A, A, Z),
	C(SEND, ERANGE, "info len > 512", V_EP, B_INFO_LEN, A, A, A, A, Z),
	C(SEND, EINVAL, "info reserved bits", V_EP, B_INFO_BITS, A, A, A, A, Z),
	C(SEND, ETIMEOUT, "no receiver, timeout 0", V_EP, V_INFO, A, A, A, A, Z),
	C(SEND, ERIGHTS, "order: rights before len", B_EP_NO_W, B_INFO_LEN, A, A, A, A, Z),
	C(SEND, EBADCAP, "order: slot before bits", B_EMPTY, B_INFO_BITS, A, A, A, A, Z),
	/* 4 RECV(ep, -, ..., timeout) */
	CAP4_0(RECV, "ep", B_NOT_EP, B_EP_NO_R, A, A, A, A, A, Z),
	C(RECV, ETIMEOUT, "no sender, timeout 0", V_EP, A, A, A, A, A, Z),
	/* 5 CALL(ep, info, mr0..3, timeout) */
	CAP4_0(CALL, "ep", B_NOT_EP, B_EP_NO_W, V_INFO, A, A, A, A, Z),
	C(CALL, ERANGE, "info len > 512", V_EP, B_INFO_LEN, A, A, A, A, Z),
	C(CALL, EINVAL, "info reserved bits", V_EP, B_INFO_BITS, A, A, A, A, Z),
	C(CALL, ETIMEOUT, "no receiver, timeout 0", V_EP, V_INFO, A, A, A, A, Z),
	C(CALL, ETYPE, "order: type before len", B_NOT_EP, B_INFO_LEN, A, A, A, A, Z),
	/* 6 REPLY(-, info, mr0..3) */
	C(REPLY, ERANGE, "info len > 512", A, B_INFO_LEN, A, A, A, A, A),
	C(REPLY, EINVAL, "info reserved bits", A, B_INFO_BITS, A, A, A, A, A),
	C(REPLY, ESTATE, "no caller to reply to", B_GARBAGE, V_INFO, A, A, A, A, A),
	/* 7 REPLY_RECV(ep, info, mr0..3, timeout) */
	CAP4_0(REPLY_RECV, "ep", B_NOT_EP, B_EP_NO_R, V_INFO, A, A, A, A, Z),
	C(REPLY_RECV, ERANGE, "info len > 512", V_EP, B_INFO_LEN, A, A, A, A, Z),
	C(REPLY_RECV, EINVAL, "info reserved bits", V_EP, B_INFO_BITS, A, A, A, A, Z),
	C(REPLY_RECV, ETIMEOUT, "nothing to reply, no sender", V_EP, V_INFO, A, A, A, A, Z),
	C(REPLY_RECV, ERIGHTS, "order: rights before len", B_EP_NO_R, B_INFO_LEN, A, A, A, A, Z),
	/* 8 NTFN_SIGNAL(ntfn, bits) */
	CAP4_0(NTFN_SIGNAL, "ntfn", B_NOT_NTFN, B_NTFN_NO_W, V_BITS, A, A, A, A, A),
	C(NTFN_SIGNAL, EINVAL, "no bits, no badge", V_NTFN, B_BITS0, A, A, A, A, A),
	C(NTFN_SIGNAL, ERIGHTS, "order: rights before bits", B_NTFN_NO_W, B_BITS0, A, A, A, A, A),
	/* 9 NTFN_WAIT(ntfn, ..., timeout) */
	CAP4_0(NTFN_WAIT, "ntfn", B_NOT_NTFN, B_NTFN_NO_R, A, A, A, A, A, Z),
	C(NTFN_WAIT, ETIMEOUT, "no bits, timeout 0", V_NTFN, A, A, A, A, A, Z),
	/* 10 NTFN_POLL(ntfn) */
	CAP4_0(NTFN_POLL, "ntfn", B_NOT_NTFN, B_NTFN_NO_R, A, A, A, A, A, A),
	/* 11 CAP_COPY(src, dst_vs, dst, rights, badge) */
	C(CAP_COPY, EBADCAP, "src out of range", B_RANGE, V_VS, V_FREE, V_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EBADCAP, "src empty", B_EMPTY, V_VS, V_FREE, V_RIGHTS, V_BADGE0, A, A),
	CAP4_1(CAP_COPY, "dst_vs", B_NOT_VS, B_VS_NO_ADMIN, V_ANYCAP, V_FREE, V_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EBADCAP, "dst out of range", V_ANYCAP, V_VS, B_DST_RANGE, V_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EINVAL, "bad rights bits", V_ANYCAP, V_VS, V_FREE, B_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EINVAL, "badge on unbadgeable", V_UNBADGEABLE, V_VS, V_FREE, V_RIGHTS, B_BADGE, A, A),
	C(CAP_COPY, ESTATE, "badge an already badged", B_BADGED, V_VS, V_FREE, V_RIGHTS, V_BADGE, A, A),
	C(CAP_COPY, ESTATE, "dst occupied", V_ANYCAP, V_VS, B_DST_USED, V_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EBADCAP, "order: src before dst_vs", B_EMPTY, B_NOT_VS, B_DST_RANGE, B_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, ETYPE, "order: dst_vs before dst", V_ANYCAP, B_NOT_VS, B_DST_RANGE, V_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EBADCAP, "order: dst before rights", V_ANYCAP, V_VS, B_DST_RANGE, B_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EINVAL, "order: rights before occupied", V_ANYCAP, V_VS, B_DST_USED, B_RIGHTS, V_BADGE0, A, A),
	C(CAP_COPY, EINVAL, "order: unbadgeable before occupied", V_UNBADGEABLE, V_VS, B_DST_USED, V_RIGHTS, B_BADGE, A, A),
	/* 12 CAP_DELETE(slot), 13 CAP_INFO(slot) */
	C(CAP_DELETE, EBADCAP, "slot out of range", B_RANGE, A, A, A, A, A, A),
	C(CAP_DELETE, EBADCAP, "slot empty", B_EMPTY, A, A, A, A, A, A),
	C(CAP_INFO, EBADCAP, "slot out of range", B_RANGE, A, A, A, A, A, A),
	C(CAP_INFO, EBADCAP, "slot empty", B_EMPTY, A, A, A, A, A, A),
	/* 14..17 *_CREATE(pool, dst[, npages]) */
#define CREATE(nr, npages)                                                            \
	CAP4_0(nr, "pool", B_NOT_POOL, B_POOL_NO_ADMIN, V_FREE, npages, A, A, A, A),    \
	C(nr, EBADCAP, "dst out of range", V_POOL, B_DST_RANGE, npages, A, A, A, A),         \
	C(nr, ESTATE, "dst occupied", V_POOL, B_DST_USED, npages, A, A, A, A),               \
	C(nr, ERIGHTS, "order: pool before dst", B_POOL_NO_ADMIN, B_DST_RANGE, npages, A, A, A, A)
	CREATE(EP_CREATE, A),
	CREATE(NTFN_CREATE, A),
	CREATE(FRAME_CREATE, V_NPAGES),
	CREATE(VSPACE_CREATE, A),
	C(FRAME_CREATE, ERANGE, "npages > max", V_POOL, V_FREE, B_NPAGES, A, A, A, A),
	C(FRAME_CREATE, EINVAL, "npages 0", V_POOL, V_FREE, B_NPAGES0, A, A, A, A),
	C(FRAME_CREATE, EBADCAP, "order: dst before npages", V_POOL, B_DST_RANGE, B_NPAGES, A, A, A, A),
	C(FRAME_CREATE, ERANGE, "order: npages before occupied", V_POOL, B_DST_USED, B_NPAGES, A, A, A, A),
	C(FRAME_CREATE, EINVAL, "order: npages 0 before occupied", V_POOL, B_DST_USED, B_NPAGES0, A, A, A, A),
	/* 18 MAP(vs, frame, vaddr, rights) */
	CAP4_0(MAP, "vs", B_NOT_VS, B_VS_NO_ADMIN, V_FRAME, V_VADDR, V_MAP_RIGHTS, A, A, A),
	CAP4_1(MAP, "frame", B_NOT_MAPPABLE, B_FRAME_NO_R, V_SPARE, V_VADDR, V_MAP_RIGHTS, A, A, A),
	C(MAP, ERIGHTS, "rights beyond the frame cap's", V_SPARE, B_FRAME_RO, V_VADDR, V_MAP_RW, A, A, A),
	C(MAP, EINVAL, "bad rights", V_SPARE, V_FRAME, V_VADDR, B_MAP_RIGHTS, A, A, A),
	C(MAP, EINVAL, "misaligned or outside vaddr", V_SPARE, V_FRAME, B_VADDR, V_MAP_RIGHTS, A, A, A),
	C(MAP, ESTATE, "onto an existing mapping", V_SPARE, V_FRAME, B_VADDR_USED, V_MAP_RIGHTS, A, A, A),
	C(MAP, ERIGHTS, "order: vs before frame", B_VS_NO_ADMIN, B_EMPTY, B_VADDR, B_MAP_RIGHTS, A, A, A),
	C(MAP, ERIGHTS, "order: frame rights before vaddr", V_SPARE, B_FRAME_RO, B_VADDR, V_MAP_RW, A, A, A),
	C(MAP, EINVAL, "order: vaddr before mapped", V_SPARE, V_FRAME, B_VADDR_USED, B_MAP_RIGHTS, A, A, A),
	/* 19 UNMAP(vs, vaddr) */
	CAP4_0(UNMAP, "vs", B_NOT_VS, B_VS_NO_ADMIN, V_VADDR, A, A, A, A, A),
	C(UNMAP, ESTATE, "nothing mapped there", V_SPARE, B_VADDR_UNMAPPED, A, A, A, A, A),
	CFIXED(UNMAP, EINVAL, "misaligned or outside vaddr", V_SPARE, B_VADDR_MALFORMED, A, A, A, A, A),
	/* 20 THREAD_CREATE(pool, vs, dst, attr*) */
	CAP4_0(THREAD_CREATE, "pool", B_NOT_POOL, B_POOL_NO_ADMIN, V_SPARE, V_FREE, V_ATTR, A, A, A),
	CAP4_1(THREAD_CREATE, "vs", B_NOT_VS, B_VS_NO_ADMIN, V_POOL, V_FREE, V_ATTR, A, A, A),
	C(THREAD_CREATE, EBADCAP, "dst out of range", V_POOL, V_SPARE, B_DST_RANGE, V_ATTR, A, A, A),
	C(THREAD_CREATE, EFAULT, "unmapped attr", V_POOL, V_SPARE, V_FREE, B_PTR, A, A, A),
	C(THREAD_CREATE, EFAULT, "attr runs off the map", V_POOL, V_SPARE, V_FREE, B_PTR_CROSS, A, A, A),
	C(THREAD_CREATE, EINVAL, "bad attr field", V_POOL, V_SPARE, V_FREE, B_ATTR_FIELD, A, A, A),
	C(THREAD_CREATE, EFAULT, "ipcbuf not writable in vs", V_POOL, V_SPARE, V_FREE, B_ATTR_IPCBUF, A, A, A),
	C(THREAD_CREATE, ESTATE, "dst occupied", V_POOL, V_SPARE, B_DST_USED, V_ATTR, A, A, A),
	C(THREAD_CREATE, ERIGHTS, "order: pool before vs", B_POOL_NO_ADMIN, B_EMPTY, B_DST_RANGE, B_PTR, A, A, A),
	C(THREAD_CREATE, EBADCAP, "order: dst before attr", V_POOL, V_SPARE, B_DST_RANGE, B_PTR, A, A, A),
	C(THREAD_CREATE, EFAULT, "order: attr before occupied", V_POOL, V_SPARE, B_DST_USED, B_PTR, A, A, A),
	CFIXED(THREAD_CREATE, EINVAL, "order: attr field before occupied", V_POOL, V_SPARE, B_DST_USED, B_ATTR_FIELD, A, A, A),
	/* 21 THREAD_START(thread), 22 THREAD_KILL(thread) */
	CAP4_0(THREAD_START, "thread", B_NOT_THREAD, B_THREAD_NO_ADMIN, A, A, A, A, A, A),
	C(THREAD_START, ESTATE, "already running", B_THREAD_RUNNING, A, A, A, A, A, A),
	C(THREAD_START, EDEAD, "thread has exited", B_THREAD_DEAD, A, A, A, A, A, A),
	CAP4_0(THREAD_KILL, "thread", B_NOT_THREAD, B_THREAD_NO_ADMIN, A, A, A, A, A, A),
	C(THREAD_KILL, EDEAD, "thread has exited", B_THREAD_DEAD, A, A, A, A, A, A),
	/* 23 THREAD_MIGRATE(sched, thread, cpu) */
	CAP4_0(THREAD_MIGRATE, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_THREAD_INACT, V_CPU, A, A, A, A),
	CAP4_1(THREAD_MIGRATE, "thread", B_NOT_THREAD, B_THREAD_NO_ADMIN, V_SCHED, V_CPU, A, A, A, A),
	C(THREAD_MIGRATE, EINVAL, "no such core", V_SCHED, V_THREAD_INACT, B_CPU, A, A, A, A),
	CFIXED(THREAD_MIGRATE, EINVAL, "core number above 32 bits", V_SCHED, V_THREAD_INACT, B_CPU_HIGH, A, A, A, A),
	C(THREAD_MIGRATE, ESTATE, "thread never started", V_SCHED, B_THREAD_INACTIVE, V_CPU, A, A, A, A),
	C(THREAD_MIGRATE, EDEAD, "thread has exited", V_SCHED, B_THREAD_DEAD, V_CPU, A, A, A, A),
	C(THREAD_MIGRATE, ERIGHTS, "order: sched before thread", B_SCHED_NO_ADMIN, B_EMPTY, B_CPU, A, A, A, A),
	C(THREAD_MIGRATE, ERIGHTS, "order: thread before core", V_SCHED, B_THREAD_NO_ADMIN, B_CPU, A, A, A, A),
	C(THREAD_MIGRATE, EINVAL, "order: core before dead", V_SCHED, B_THREAD_DEAD, B_CPU, A, A, A, A),
	/* 24 THREAD_INFO(thread, info*) */
	CAP4_0(THREAD_INFO, "thread", B_NOT_THREAD, B_THREAD_NO_R, V_PTR_W, A, A, A, A, A),
	C(THREAD_INFO, EFAULT, "unmapped info", V_THREAD_R, B_PTR, A, A, A, A, A),
	C(THREAD_INFO, EFAULT, "info runs off the map", V_THREAD_R, B_PTR_CROSS, A, A, A, A, A),
	C(THREAD_INFO, EFAULT, "read-only info", V_THREAD_R, B_PTR_RO, A, A, A, A, A),
	C(THREAD_INFO, EDEAD, "thread has exited", B_THREAD_DEAD, V_PTR_W, A, A, A, A, A),
	C(THREAD_INFO, EFAULT, "order: pointer before dead", B_THREAD_DEAD, B_PTR, A, A, A, A, A),
	/* 25 REPLY_SAVE(dst) */
	C(REPLY_SAVE, EBADCAP, "dst out of range", B_DST_RANGE, A, A, A, A, A, A),
	C(REPLY_SAVE, ESTATE, "no pending reply", V_FREE, A, A, A, A, A, A),
	C(REPLY_SAVE, ESTATE, "dst occupied", B_DST_USED, A, A, A, A, A, A),
	/* 26 REPLY_TO(reply, info, mr0..3) */
	C(REPLY_TO, EBADCAP, "reply out of range", B_RANGE, V_INFO, A, A, A, A, A),
	C(REPLY_TO, EBADCAP, "reply empty", B_EMPTY, V_INFO, A, A, A, A, A),
	C(REPLY_TO, ETYPE, "not a reply cap", B_NOT_REPLY, V_INFO, A, A, A, A, A),
	C(REPLY_TO, EBADCAP, "order: slot before len", B_EMPTY, B_INFO_LEN, A, A, A, A, A),
	/* 27 SYSINFO(info*) */
	C(SYSINFO, EFAULT, "unmapped info", B_PTR, A, A, A, A, A, A),
	C(SYSINFO, EFAULT, "info runs off the map", B_PTR_CROSS, A, A, A, A, A, A),
	C(SYSINFO, EFAULT, "read-only info", B_PTR_RO, A, A, A, A, A, A),
	/* 28 SHUTDOWN(sched): only capabilities it must refuse */
	CAP4_0(SHUTDOWN, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, A, A, A, A, A, A),
	/* 29 MIGRATE(sched, moves*, count): only failing calls (a valid
	 * batch would move threads) */
	CAP4_0(MIGRATE, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_PTR_W, V_MOVES_N, A, A, A, A),
	C(MIGRATE, ERANGE, "count > FUL_MIGRATE_MAX", V_SCHED, V_PTR_W, B_MOVES_N, A, A, A, A),
	C(MIGRATE, EFAULT, "unmapped moves", V_SCHED, B_PTR, V_MOVES_N, A, A, A, A),
	C(MIGRATE, EFAULT, "read-only moves (results are written)", V_SCHED, B_PTR_RO, V_MOVES_N, A, A, A, A),
	C(MIGRATE, ERANGE, "order: count before pointer", V_SCHED, B_PTR, B_MOVES_N, A, A, A, A),
	C(MIGRATE, ERIGHTS, "order: sched before count", B_SCHED_NO_ADMIN, B_PTR, B_MOVES_N, A, A, A, A),
	/* 30 THREAD_SET(sched, tid, attr, value) */
	CAP4_0(THREAD_SET, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_TID, V_TA, V_TA_VAL, A, A, A),
	C(THREAD_SET, EINVAL, "no such attribute", V_SCHED, V_TID, B_TA, V_TA_VAL, A, A, A),
	C(THREAD_SET, EINVAL, "slice out of range", V_SCHED, V_TID, K_TA_SLICE, B_SLICE, A, A, A),
	C(THREAD_SET, EINVAL, "nice out of range", V_SCHED, V_TID, K_TA_NICE, B_NICE, A, A, A),
	C(THREAD_SET, EINVAL, "affinity names no online core", V_SCHED, V_TID, K_TA_AFFINITY, B_AFFINITY, A, A, A),
	C(THREAD_SET, ENOTHREAD, "no such thread", V_SCHED, B_TID, V_TA, V_TA_VAL, A, A, A),
	C(THREAD_SET, EINVAL, "order: value before thread", V_SCHED, B_TID, K_TA_SLICE, B_SLICE, A, A, A),
	C(THREAD_SET, ERIGHTS, "order: sched before value", B_SCHED_NO_ADMIN, B_TID, B_TA, A, A, A, A),
	/* 31 POOL_CREATE(pool, dst, budget): never one that succeeds */
	CREATE(POOL_CREATE, V_BUDGET),
	C(POOL_CREATE, ERANGE, "budget > FUL_POOL_BUDGET_MAX", V_POOL, V_FREE, B_BUDGET, A, A, A, A),
	C(POOL_CREATE, EINVAL, "budget 0", V_POOL, V_FREE, B_BUDGET0, A, A, A, A),
	C(POOL_CREATE, ENOMEM, "budget beyond the pool's", V_POOL, V_FREE, B_BUDGET_BIG, A, A, A, A),
	C(POOL_CREATE, EBADCAP, "order: dst before budget", V_POOL, B_DST_RANGE, B_BUDGET, A, A, A, A),
	C(POOL_CREATE, ERANGE, "order: budget before occupied", V_POOL, B_DST_USED, B_BUDGET, A, A, A, A),
	C(POOL_CREATE, EINVAL, "order: budget 0 before occupied", V_POOL, B_DST_USED, B_BUDGET0, A, A, A, A),
	C(POOL_CREATE, ESTATE, "order: occupied before no memory", V_POOL, B_DST_USED, B_BUDGET_BIG, A, A, A, A),
	/* 32 POOL_INFO(pool, info*) */
	CAP4_0(POOL_INFO, "pool", B_NOT_POOL, B_POOL_NO_R, V_PTR_W, A, A, A, A, A),
	C(POOL_INFO, EFAULT, "unmapped info", V_POOL_R, B_PTR, A, A, A, A, A),
	C(POOL_INFO, EFAULT, "info runs off the map", V_POOL_R, B_PTR_CROSS, A, A, A, A, A),
	C(POOL_INFO, EFAULT, "read-only info", V_POOL_R, B_PTR_RO, A, A, A, A, A),
	C(POOL_INFO, ZERO, "READ suffices", V_POOL_R, V_PTR_W, A, A, A, A, A),
	C(POOL_INFO, ERIGHTS, "order: rights before pointer", B_POOL_NO_R, B_PTR, A, A, A, A, A),
	/* 33 UTIL_SET(sched, win_ms): only failing calls (a valid one
	 * would restart every core's utilization windows) */
	CAP4_0(UTIL_SET, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_UTIL_MS, A, A, A, A, A),
	C(UTIL_SET, EINVAL, "window length out of range", V_SCHED, B_UTIL_MS, A, A, A, A, A),
	C(UTIL_SET, ERIGHTS, "order: sched before length", B_SCHED_NO_ADMIN, B_UTIL_MS, A, A, A, A, A),
	/* 34 CONS_BIND(console, ntfn, bits): badinput's console capability
	 * has READ at most, so no row can bind (t_cons.c binds) */
	CAP4_0(CONS_BIND, "console", B_NOT_CONS, B_CONS_NO_ADMIN, V_NTFN, V_BITS, A, A, A, A),
	C(CONS_BIND, ERIGHTS, "order: console before ntfn", B_CONS_NO_ADMIN, B_NOT_NTFN, B_BITS0, A, A, A, A),
	/* 35 CONS_READ(console, ntfn, buf*, len): nobody binds F_NTFN */
	CAP4_0(CONS_READ, "console", B_NOT_CONS, B_CONS_NO_R, V_NTFN, V_PTR_W, V_CONS_LEN, A, A, A),
	CAP4_1(CONS_READ, "ntfn", B_NOT_NTFN, B_NTFN_NO_R, V_CONS_R, V_PTR_W, V_CONS_LEN, A, A, A),
	C(CONS_READ, ERANGE, "len 0 or > max", V_CONS_R, V_NTFN, V_PTR_W, B_CONS_LEN, A, A, A),
	C(CONS_READ, EFAULT, "unmapped buf", V_CONS_R, V_NTFN, B_PTR, V_CONS_LEN, A, A, A),
	C(CONS_READ, EFAULT, "read-only buf", V_CONS_R, V_NTFN, B_PTR_RO, V_CONS_LEN, A, A, A),
	C(CONS_READ, ESTATE, "ntfn not the bound one", V_CONS_R, V_NTFN, V_PTR_W, V_CONS_LEN, A, A, A),
	C(CONS_READ, ERANGE, "order: len before buf", V_CONS_R, V_NTFN, B_PTR, B_CONS_LEN, A, A, A),
	C(CONS_READ, ETYPE, "order: ntfn before len", V_CONS_R, B_NOT_NTFN, V_PTR_W, B_CONS_LEN, A, A, A),
	/* 36 LBE_BIND(sched, ntfn, events): never one that binds (a bind
	 * would signal F_NTFN); events 0 unbinds, and F_NTFN is never bound */
	CAP4_0(LBE_BIND, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_NTFN, V_LBE_EV, A, A, A, A),
	CAP4_1(LBE_BIND, "ntfn", B_NOT_NTFN, B_NTFN_NO_W, V_SCHED, V_LBE_EV, A, A, A, A),
	C(LBE_BIND, EINVAL, "events outside FUL_LBE_ALL", V_SCHED, V_NTFN, B_LBE_EV, A, A, A, A),
	C(LBE_BIND, ESTATE, "unbind of a ntfn not bound", V_SCHED, V_NTFN, K_ZERO, A, A, A, A),
	C(LBE_BIND, ERIGHTS, "order: sched before events", B_SCHED_NO_ADMIN, V_NTFN, B_LBE_EV, A, A, A, A),
	C(LBE_BIND, ETYPE, "order: ntfn before events", V_SCHED, B_NOT_NTFN, B_LBE_EV, A, A, A, A),
	/* 37 LBE_ARM(sched, ntfn, events, cores, watch): F_NTFN is never
	 * bound, so a valid call is ESTATE */
	CAP4_0(LBE_ARM, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_NTFN, V_LBE_EV, K_ZERO, K_ZERO, A, A),
	CAP4_1(LBE_ARM, "ntfn", B_NOT_NTFN, B_NTFN_NO_W, V_SCHED, V_LBE_EV, K_ZERO, K_ZERO, A, A),
	C(LBE_ARM, EINVAL, "events outside FUL_LBE_ALL", V_SCHED, V_NTFN, B_LBE_EV, K_ZERO, K_ZERO, A, A),
	C(LBE_ARM, EINVAL, "cores names an offline core", V_SCHED, V_NTFN, V_LBE_EV, B_LBE_MASK, K_ZERO, A, A),
	C(LBE_ARM, EINVAL, "watch names an offline core", V_SCHED, V_NTFN, V_LBE_EV, K_ZERO, B_LBE_MASK, A, A),
	C(LBE_ARM, ESTATE, "ntfn not the bound one", V_SCHED, V_NTFN, V_LBE_EV, K_ZERO, K_ZERO, A, A),
	C(LBE_ARM, EINVAL, "order: masks before binding", V_SCHED, V_NTFN, V_LBE_EV, B_LBE_MASK, K_ZERO, A, A),
	/* 40 DEVMEM_MAP(vs, devmem, vaddr, rights): only failing calls */
	CAP4_0(DEVMEM_MAP, "vs", B_NOT_VS, B_VS_NO_ADMIN, V_DEVMEM, V_VADDR, V_DEVMEM_RIGHTS, A, A, A),
	CAP4_1(DEVMEM_MAP, "devmem", B_NOT_DEVMEM, B_DEVMEM_NO_R, V_SPARE, V_VADDR, V_DEVMEM_RIGHTS, A, A, A),
	C(DEVMEM_MAP, ERIGHTS, "rights beyond the cap's", V_SPARE, B_DEVMEM_RO, V_VADDR, V_DEVMEM_RW, A, A, A),
	C(DEVMEM_MAP, ERIGHTS, "exec or admin: never granted", V_SPARE, V_DEVMEM, V_VADDR, B_DEVMEM_EXEC, A, A, A),
	C(DEVMEM_MAP, EINVAL, "bad rights", V_SPARE, V_DEVMEM, V_VADDR, B_DEVMEM_RIGHTS, A, A, A),
	C(DEVMEM_MAP, EINVAL, "misaligned or outside vaddr", V_SPARE, V_DEVMEM, B_VADDR, V_DEVMEM_RIGHTS, A, A, A),
	C(DEVMEM_MAP, ESTATE, "onto an existing mapping", V_SPARE, V_DEVMEM, B_VADDR_USED, V_DEVMEM_RIGHTS, A, A, A),
	C(DEVMEM_MAP, ERIGHTS, "order: devmem rights before vaddr", V_SPARE, B_DEVMEM_RO, B_VADDR, V_DEVMEM_RW, A, A, A),
	C(DEVMEM_MAP, EINVAL, "order: rights before mapped", V_SPARE, V_DEVMEM, B_VADDR_USED, B_DEVMEM_RIGHTS, A, A, A),
	/* 41 DEVMEM_INFO(devmem, info*) */
	CAP4_0(DEVMEM_INFO, "devmem", B_NOT_DEVMEM, B_DEVMEM_NO_R, V_PTR_W, A, A, A, A, A),
	C(DEVMEM_INFO, EFAULT, "unmapped info", V_DEVMEM_R, B_PTR, A, A, A, A, A),
	C(DEVMEM_INFO, EFAULT, "info runs off the map", V_DEVMEM_R, B_PTR_CROSS, A, A, A, A, A),
	C(DEVMEM_INFO, EFAULT, "read-only info", V_DEVMEM_R, B_PTR_RO, A, A, A, A, A),
	C(DEVMEM_INFO, ZERO, "READ suffices", V_DEVMEM_R, V_PTR_W, A, A, A, A, A),
	/* 42 IRQ_GET(irqctl, dst, intid): V_INTID is issued already */
	CAP4_0(IRQ_GET, "irqctl", B_NOT_IRQCTL, B_IRQCTL_NO_ADMIN, V_FREE, V_INTID, A, A, A, A),
	C(IRQ_GET, EBADCAP, "dst out of range", V_IRQCTL, B_DST_RANGE, V_INTID, A, A, A, A),
	C(IRQ_GET, ERANGE, "not an SPI of the GIC", V_IRQCTL, V_FREE, B_INTID, A, A, A, A),
	C(IRQ_GET, EINVAL, "the kernel's own SPI", V_IRQCTL, V_FREE, B_INTID_KERNEL, A, A, A, A),
	C(IRQ_GET, ESTATE, "dst occupied", V_IRQCTL, B_DST_USED, V_INTID, A, A, A, A),
	C(IRQ_GET, ESTATE, "SPI has a handler already", V_IRQCTL, V_FREE, V_INTID, A, A, A, A),
	C(IRQ_GET, EBADCAP, "order: dst before intid", V_IRQCTL, B_DST_RANGE, B_INTID, A, A, A, A),
	C(IRQ_GET, ERANGE, "order: intid before occupied", V_IRQCTL, B_DST_USED, B_INTID, A, A, A, A),
	C(IRQ_GET, EINVAL, "order: kernel's before occupied", V_IRQCTL, B_DST_USED, B_INTID_KERNEL, A, A, A, A),
	/* 43 IRQ_BIND(irq, ntfn, bits): V_IRQ is unbound, so every row
	 * fails on another argument */
	CAP4_0(IRQ_BIND, "irq", B_NOT_IRQ, B_IRQ_NO_ADMIN, V_NTFN, V_BITS, A, A, A, A),
	CAP4_1(IRQ_BIND, "ntfn", B_NOT_NTFN, B_NTFN_NO_W, V_IRQ, V_BITS, A, A, A, A),
	C(IRQ_BIND, EINVAL, "no bits, no badge", V_IRQ, V_NTFN, B_BITS0, A, A, A, A),
	C(IRQ_BIND, ESTATE, "double bind", B_IRQ_BOUND, V_NTFN, V_BITS, A, A, A, A),
	C(IRQ_BIND, EINVAL, "order: bits before bound", B_IRQ_BOUND, V_NTFN, B_BITS0, A, A, A, A),
	C(IRQ_BIND, ERIGHTS, "order: irq before ntfn", B_IRQ_NO_ADMIN, B_NOT_NTFN, B_BITS0, A, A, A, A),
	/* 44 IRQ_ACK(irq), 45 IRQ_UNBIND(irq) */
	CAP4_0(IRQ_ACK, "irq", B_NOT_IRQ, B_IRQ_NO_W, A, A, A, A, A, A),
	C(IRQ_ACK, ESTATE, "ack without bind", B_IRQ_UNBOUND, A, A, A, A, A, A),
	C(IRQ_ACK, ZERO, "ack a bound one (quiet SPI)", V_IRQ_BOUND, A, A, A, A, A, A),
	CAP4_0(IRQ_UNBIND, "irq", B_NOT_IRQ, B_IRQ_NO_ADMIN, A, A, A, A, A, A),
	C(IRQ_UNBIND, ESTATE, "not bound", B_IRQ_UNBOUND, A, A, A, A, A, A),
	/* 46 DMA_CREATE(pool, dst, npages), 47 DMA_PADDR(frame) */
	CREATE(DMA_CREATE, V_NPAGES),
	C(DMA_CREATE, ERANGE, "npages > max", V_POOL, V_FREE, B_NPAGES, A, A, A, A),
	C(DMA_CREATE, EINVAL, "npages 0", V_POOL, V_FREE, B_NPAGES0, A, A, A, A),
	C(DMA_CREATE, ERANGE, "order: npages before occupied", V_POOL, B_DST_USED, B_NPAGES, A, A, A, A),
	CAP4_0(DMA_PADDR, "frame", B_NOT_FRAME, B_FRAME_NO_R, A, A, A, A, A, A),
	C(DMA_PADDR, ESTATE, "not a DMA frame", B_FRAME_NOT_DMA, A, A, A, A, A, A),
	/* 48 TRACE_SET(sched, mask, flags), 49 TRACE_FRAME(sched, dst),
	 * 50 TRACE_DUMP(sched): only failing calls (a valid TRACE_SET or
	 * TRACE_DUMP would leave a trace; no SCHED copy lacks READ) */
	CAP4_0(TRACE_SET, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, Z, Z, A, A, A, A),
	C(TRACE_SET, EINVAL, "mask beyond FUL_TRC_ALL", V_SCHED, B_TRACE_MASK, Z, A, A, A, A),
	C(TRACE_SET, EINVAL, "unknown flags", V_SCHED, Z, B_TRACE_MASK, A, A, A, A),
	C(TRACE_SET, ERIGHTS, "order: sched before mask", B_SCHED_NO_ADMIN, B_TRACE_MASK, Z, A, A, A, A),
	C(TRACE_FRAME, EBADCAP, "sched out of range", B_RANGE, V_FREE, A, A, A, A, A),
	C(TRACE_FRAME, EBADCAP, "sched empty", B_EMPTY, V_FREE, A, A, A, A, A),
	C(TRACE_FRAME, ETYPE, "sched wrong type", B_NOT_SCHED, V_FREE, A, A, A, A, A),
	C(TRACE_FRAME, EBADCAP, "dst out of range", V_SCHED, B_DST_RANGE, A, A, A, A, A),
	C(TRACE_FRAME, ESTATE, "dst occupied", V_SCHED, B_DST_USED, A, A, A, A, A),
	CAP4_0(TRACE_DUMP, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, A, A, A, A, A, A),
	/* 52 PWIN_CREATE(pool, dst, npages); 53 PWIN_SET(pwin, slot, frame,
	 * page, rights): only failing rows and the no-op of emptying an
	 * empty slot (F_PWIN's slots stay empty) */
	CREATE(PWIN_CREATE, V_PWIN_NPAGES),
	C(PWIN_CREATE, ERANGE, "npages > max", V_POOL, V_FREE, B_PWIN_NPAGES, A, A, A, A),
	C(PWIN_CREATE, EINVAL, "npages 0", V_POOL, V_FREE, B_NPAGES0, A, A, A, A),
	C(PWIN_CREATE, ERANGE, "order: npages before occupied", V_POOL, B_DST_USED, B_PWIN_NPAGES, A, A, A, A),
	CAP4_0(PWIN_SET, "pwin", B_NOT_PWIN, B_PWIN_NO_ADMIN, V_PWIN_SLOT, V_FRAME, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, EBADCAP, "frame out of range", V_PWIN, V_PWIN_SLOT, B_RANGE, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, EBADCAP, "frame empty", V_PWIN, V_PWIN_SLOT, B_EMPTY, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, ETYPE, "frame wrong type", V_PWIN, V_PWIN_SLOT, B_NOT_FRAME, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, ERIGHTS, "frame lacks rights", V_PWIN, V_PWIN_SLOT, B_FRAME_NO_R, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, ERIGHTS, "rights beyond the frame cap's", V_PWIN, V_PWIN_SLOT, B_FRAME_RO, Z, V_PWIN_RW, A, A),
	C(PWIN_SET, ERANGE, "slot past the window", V_PWIN, B_PWIN_SLOT, V_FRAME, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, ERANGE, "page past the frame", V_PWIN, V_PWIN_SLOT, V_FRAME, B_FRAME_PAGE, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, EINVAL, "bad rights", V_PWIN, V_PWIN_SLOT, V_FRAME, Z, B_PWIN_RIGHTS, A, A),
	C(PWIN_SET, ZERO, "empty an empty slot", V_PWIN, V_PWIN_SLOT, B_GARBAGE, B_GARBAGE, Z, A, A),
	C(PWIN_SET, ERANGE, "empty a slot past the window", V_PWIN, B_PWIN_SLOT, B_GARBAGE, B_GARBAGE, Z, A, A),
	C(PWIN_SET, ERIGHTS, "order: pwin before frame", B_PWIN_NO_ADMIN, V_PWIN_SLOT, B_EMPTY, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, EBADCAP, "order: frame before slot", V_PWIN, B_PWIN_SLOT, B_EMPTY, Z, V_PWIN_RIGHTS, A, A),
	C(PWIN_SET, ERANGE, "order: slot before rights", V_PWIN, B_PWIN_SLOT, V_FRAME, Z, B_PWIN_RIGHTS, A, A),
	/* MAP of a page window */
	C(MAP, ESTATE, "a page window another task maps", V_VS, B_PWIN_MAPPED, V_VA_FREE, V_PWIN_RIGHTS, A, A, A),
	C(MAP, EINVAL, "a page window executable", V_SPARE, V_PWIN, V_VA_FREE, B_PWIN_EXEC, A, A, A),
	/* 54 TASK_KILL(vs): only failing rows (F_SPARE has no threads, but
	 * a valid call on it is a no-op that returns 0) */
	CAP4_0(TASK_KILL, "vs", B_NOT_VS, B_VS_NO_ADMIN, A, A, A, A, A, A),
	C(TASK_KILL, EINVAL, "the caller's own task", V_VS, A, A, A, A, A, A),
	C(TASK_KILL, ZERO, "a task without threads", V_SPARE, A, A, A, A, A, A),
	/* 55 SCHED_KILL(sched, tid): only failing rows (a valid call kills) */
	CAP4_0(SCHED_KILL, "sched", B_NOT_SCHED, B_SCHED_NO_ADMIN, V_TID, A, A, A, A, A),
	C(SCHED_KILL, ENOTHREAD, "no such thread", V_SCHED, B_TID, A, A, A, A, A),
	C(SCHED_KILL, EINVAL, "the caller itself", V_SCHED, V_TID, A, A, A, A, A),
	C(SCHED_KILL, ERIGHTS, "order: sched before thread", B_SCHED_NO_ADMIN, B_TID, A, A, A, A, A),
	/* 56 IRQSTAT(sched, cpu, buf, flags): the default kernel, which
	 * this suite boots, keeps no figures and answers ENOSYS before any
	 * check (the instrumented kernel's rows: tests/user/tests/t_irqstat.c) */
	C(IRQSTAT, ENOSYS, "default kernel: valid read", V_SCHED, V_CPU, V_PTR_W, Z, A, A, A),
	C(IRQSTAT, ENOSYS, "default kernel: bad sched first", B_NOT_SCHED, B_CPU, B_PTR, A, A, A, A),
	/* 57 SLEEP(us): only forever fails; 0 returns at once */
	C(SLEEP, EINVAL, "forever", B_SLEEP_US, A, A, A, A, A, A),
	C(SLEEP, ZERO, "0 us, garbage arguments", Z, B_GARBAGE, B_GARBAGE, A, A, A, A),
	/* numbers that name no call */
	C(INVALID, ENOSYS, "no such call", B_GARBAGE, A, A, A, A, A, A),
};

const unsigned bi_ncases = sizeof bi_cases / sizeof bi_cases[0];

void bi_case_args(const struct bi_case *c, const unsigned vi[7],
		  unsigned long a[7], unsigned long *nr)
{
	for (unsigned i = 0; i < 7; i++) {
		const struct bi_values *k = &bi_kv[c->arg[i]];
		a[i] = k->n ? k->v[vi[i] % k->n] : 0;
	}
	*nr = c->nr;
}

/** Index of the argument case @c is about (its first bad one), or -1. */
static int vary_arg(const struct bi_case *c)
{
	for (int i = 0; i < 7; i++)
		if (bi_kind_bad(c->arg[i]))
			return i;
	return -1;
}

/** Run case @c once per value of its bad argument (and, for the invalid
 *  numbers row, once per invalid number). */
static void run_case(struct bi_run *r, const struct bi_case *c)
{
	int vary = vary_arg(c);
	unsigned nvals = vary < 0 ? 1 : bi_kv[c->arg[vary]].n;
	const struct bi_values *nrs = &bi_kv[B_NR];
	unsigned nnr = c->nr == BI_NR_INVALID ? nrs->n : 1;
	long expect = -(long)c->expect;
	for (unsigned n = 0; n < nnr; n++) {
		for (unsigned v = 0; v < nvals; v++) {
			unsigned vi[7] = {0};
			unsigned long a[7], nr;
			if (vary >= 0)
				vi[vary] = v;
			bi_case_args(c, vi, a, &nr);
			if (c->nr == BI_NR_INVALID)
				nr = nrs->v[n];
			long got = bi_call(nr, a);
			bi_check(r, nr, a, expect, got, c->what, c->flags);
			bi_count(r, c->nr);
		}
	}
}

void bi_run_cases(struct bi_run *r)
{
	for (unsigned i = 0; i < bi_ncases; i++)
		run_case(r, &bi_cases[i]);
}
