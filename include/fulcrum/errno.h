/* Fulcrum error codes: the ABI shared by the kernel and user programs.
 * Every kernel entry returns 0 (or a non-negative result) or one of
 * these, negated. */
#ifndef FULCRUM_ERRNO_H
#define FULCRUM_ERRNO_H

#define FUL_OK 0
#define FUL_EINVAL 1    /* malformed argument (bad core id, bad priority, ...) */
#define FUL_ENOTHREAD 2 /* thread id names no live thread */
#define FUL_EAGAIN 3    /* a bounded resource is exhausted right now; retry later */
#define FUL_ESTATE 4    /* the object is in a state that forbids the operation */
#define FUL_ENOMEM 5    /* out of memory, object slots or pool budget */
#define FUL_ETIMEOUT 6  /* a wait ran out of time (or would block, timeout 0) */
#define FUL_EDEAD 7     /* the thread died before the request could act on it */
#define FUL_EBADCAP 8   /* capability slot out of range or empty */
#define FUL_ETYPE 9     /* capability names an object of the wrong type */
#define FUL_ERIGHTS 10  /* capability lacks a right the operation needs */
#define FUL_EFAULT 11   /* pointer not in the caller's mapped user memory */
#define FUL_ERANGE 12   /* length, size or count too large */
#define FUL_ENOSYS 13   /* no such system call */
#define FUL_ECANCELED 14 /* the object was deleted while the caller waited */
#define FUL_NERRNO 15

#endif
