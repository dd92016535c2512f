/*
 * The rootserver's service endpoint, as the shell (user/shell) holds it
 * in FUL_SYSPROG_SLOT_DONE (WRITE): a call with label FUL_ROOT_REQ_* and
 * no buffer bytes; the reply's MR0 is the result (>= 0, or -FUL_E*).
 * A program without a capability to the endpoint cannot ask.
 */
#ifndef FULCRUM_ROOTSRV_H
#define FULCRUM_ROOTSRV_H

#define FUL_ROOT_REQ_DEMO 1 /* run the demo again: MR0 0, or 1 if a part failed */
#define FUL_ROOT_REQ_OFF 2  /* power the machine off (no reply) */
/* Any other label: MR0 = -FUL_ENOSYS. */

#endif
