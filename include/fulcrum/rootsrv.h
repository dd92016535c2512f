/*
 * The rootserver's service endpoint. The rootserver keeps it in
 * FUL_SLOT_BALANCER (<fulcrum/bootinfo.h>) and hands out WRITE copies,
 * each with a badge that says what its holder may ask:
 *   FUL_ROOT_BADGE_PROG   a system program's report capability (its
 *                         FUL_SYSPROG_SLOT_DONE): a send with label 0
 *                         says "done"
 *   FUL_ROOT_BADGE_SHELL  the shell's, in the same slot: also the
 *                         requests below (both: the ring requests)
 *   FUL_ROOT_BADGE_BAL    the balancer capability, in the holder's
 *                         FUL_SLOT_BALANCER: <fulcrum/balctl.h>
 *   FUL_ROOT_BADGE_PLACE  the placement capability, in FUL_SLOT_PLACE:
 *                         FUL_BAL_PLACE and FUL_BAL_SETTLE only
 * A request is a call with label FUL_ROOT_REQ_* and no buffer bytes; the
 * reply's MR0 is the result (>= 0, or -FUL_E*). A label the badge does
 * not allow answers -FUL_ENOSYS.
 */
#ifndef FULCRUM_ROOTSRV_H
#define FULCRUM_ROOTSRV_H

#define FUL_ROOT_BADGE_PROG 1
#define FUL_ROOT_BADGE_SHELL 2
#define FUL_ROOT_BADGE_BAL 3
#define FUL_ROOT_BADGE_PLACE 4

#define FUL_ROOT_REQ_DONE 0 /* a send: the system program is done */
#define FUL_ROOT_REQ_DEMO 1 /* run the demo again: MR0 0 */
#define FUL_ROOT_REQ_OFF 2  /* power the machine off (no reply) */
/* A ring pair to F (<fulcrum/fs.h>), for a system program or a
 * child it starts: mr0, mr1, mr2, mr3 = free slots of the caller for the
 * frame (READ|WRITE), the client's notification (READ), F's doorbell
 * (WRITE) and the ring's page window (READ|WRITE, map it at
 * FUL_FSR_CLIENT_OMF_VADDR for the On-Memory File); MR0 the ring's number k, or -FUL_E* (-FUL_EAGAIN: all
 * FUL_FSR_MAX in use, -FUL_ESTATE: F does not run). */
#define FUL_ROOT_REQ_FS_RING 3
#define FUL_ROOT_REQ_FS_RING_FREE 4 /* mr0 k: F lets go of ring k */
/* The shell's `place`: mr0 'F', 'B' or 'D', mr1 a core; every thread of
 * that server migrates there. MR0 0 or -FUL_E*. */
#define FUL_ROOT_REQ_PLACE 5
/* mr0 N: F, B and D to the cores of paper 002's form N (Table I). Both
 * PLACE and FORM are also open to system programs (the benchmarks). */
#define FUL_ROOT_REQ_FORM 6
/* Kill a server as a crash would (the tests of a server dying while
 * clients wait: they get EIO): mr0 0 or 'F' F's server thread; 'B' or
 * 'D' every thread of B or D (TASK_KILL), and its client's ring to it
 * marked dead. Needs boot argument crash=1. MR0 0 or -FUL_E*. */
#define FUL_ROOT_REQ_FS_KILL 7

#endif
