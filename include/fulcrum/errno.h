/* Fulcrum error codes: the ABI shared by the kernel and user programs.
 * Every kernel entry returns 0 or one of these, negated. */
#ifndef FULCRUM_ERRNO_H
#define FULCRUM_ERRNO_H

#define FUL_OK 0
#define FUL_EINVAL 1   /* malformed argument (bad core id, bad priority, ...) */
#define FUL_ENOTHREAD 2 /* thread id names no live thread */
#define FUL_EAGAIN 3   /* a bounded resource is exhausted right now; retry later */
#define FUL_ESTATE 4   /* the object is in a state that forbids the operation */
#define FUL_ENOMEM 5   /* out of memory or thread slots */
#define FUL_ETIMEOUT 6 /* a wait ran out of time */
#define FUL_EDEAD 7    /* the thread died before the request could act on it */

#endif
