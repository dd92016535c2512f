/*
 * The rootserver's service endpoint. The rootserver keeps it in
 * FUL_SLOT_BALANCER (<fulcrum/bootinfo.h>) and hands out WRITE copies,
 * each with a badge that says what its holder may ask:
 *   FUL_ROOT_BADGE_PROG   a system program's report capability (its
 *                         FUL_SYSPROG_SLOT_DONE): a send with label 0
 *                         says "done"
 *   FUL_ROOT_BADGE_SHELL  the shell's, in the same slot: also the
 *                         requests below
 *   FUL_ROOT_BADGE_BAL    the balancer capability, in the holder's
 *                         FUL_SLOT_BALANCER: <fulcrum/balctl.h>
 * A request is a call with label FUL_ROOT_REQ_* and no buffer bytes; the
 * reply's MR0 is the result (>= 0, or -FUL_E*). A label the badge does
 * not allow answers -FUL_ENOSYS.
 */
#ifndef FULCRUM_ROOTSRV_H
#define FULCRUM_ROOTSRV_H

#define FUL_ROOT_BADGE_PROG 1
#define FUL_ROOT_BADGE_SHELL 2
#define FUL_ROOT_BADGE_BAL 3

#define FUL_ROOT_REQ_DONE 0 /* a send: the system program is done */
#define FUL_ROOT_REQ_DEMO 1 /* run the demo again: MR0 0 */
#define FUL_ROOT_REQ_OFF 2  /* power the machine off (no reply) */

#endif
