/*
 * The IPC fastpath (fastpath.c): register-only call and reply-and-receive
 * to a partner waiting on this core, without the generic path's locks on
 * the capability table and without unwinding the partner's kernel stack.
 */
#ifndef KERNEL_FASTPATH_H
#define KERNEL_FASTPATH_H

#include "types.h"

struct thread;
struct arch_uregs;

/* Not taken: nothing changed, run the generic system call. */
#define FASTPATH_MISS INT64_MIN

/** Boot argument fastpath=0 clears it (tests run both ways). */
extern bool fastpath_on;

/** A `svc` for FUL_SYS_CALL / FUL_SYS_REPLY_RECV (the arch's exception
 *  entry sends these here, with the frame @u): the fastpath, else
 *  syscall_entry(); then the kernel exit. IRQs masked; may return on
 *  another core. */
void fastpath_svc_call(struct arch_uregs *u);
void fastpath_svc_reply_recv(struct arch_uregs *u);
void fastpath_svc_signal(struct arch_uregs *u);
#endif
