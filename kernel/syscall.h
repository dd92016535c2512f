/* System-call handlers (syscall.c: entry, IPC and misc; syscall_obj.c:
 * capabilities and objects). Each takes the calling thread and its user
 * registers, validates in the documented order (fulcrum/syscall.h) and
 * returns the value for x0. IRQs masked throughout. */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "cap.h"
#include "ipc.h"
#include "thread.h"
#include "vspace.h"

typedef int64_t (*sys_fn)(struct thread *t, struct arch_uregs *u);

#define ARG(i) arch_uregs_get(u, (i))

/** Return a received message: x1 badge, x2..x5 MRs, x6 info. */
static inline void sys_msg_out(struct arch_uregs *u, const struct ipc_msg *m)
{
	arch_uregs_set(u, 1, m->badge);
	arch_uregs_set(u, 2, m->mr[0]);
	arch_uregs_set(u, 3, m->mr[1]);
	arch_uregs_set(u, 4, m->mr[2]);
	arch_uregs_set(u, 5, m->mr[3]);
	arch_uregs_set(u, 6, m->info);
}

int64_t sys_cap_copy(struct thread *t, struct arch_uregs *u);
int64_t sys_cap_delete(struct thread *t, struct arch_uregs *u);
int64_t sys_cap_info(struct thread *t, struct arch_uregs *u);
int64_t sys_ep_create(struct thread *t, struct arch_uregs *u);
int64_t sys_ntfn_create(struct thread *t, struct arch_uregs *u);
int64_t sys_frame_create(struct thread *t, struct arch_uregs *u);
int64_t sys_vspace_create(struct thread *t, struct arch_uregs *u);
int64_t sys_map(struct thread *t, struct arch_uregs *u);
int64_t sys_unmap(struct thread *t, struct arch_uregs *u);
int64_t sys_thread_create(struct thread *t, struct arch_uregs *u);
int64_t sys_thread_start(struct thread *t, struct arch_uregs *u);
int64_t sys_thread_kill(struct thread *t, struct arch_uregs *u);
int64_t sys_thread_migrate(struct thread *t, struct arch_uregs *u);
int64_t sys_migrate(struct thread *t, struct arch_uregs *u);
int64_t sys_thread_set(struct thread *t, struct arch_uregs *u);
int64_t sys_thread_info(struct thread *t, struct arch_uregs *u);
int64_t sys_pool_create(struct thread *t, struct arch_uregs *u);
int64_t sys_pool_info(struct thread *t, struct arch_uregs *u);
int64_t sys_util_set(struct thread *t, struct arch_uregs *u);
/* Devices (devmem.c, irq.c, syscall_obj.c). */
int64_t sys_devmem_map(struct thread *t, struct arch_uregs *u);
int64_t sys_devmem_info(struct thread *t, struct arch_uregs *u);
int64_t sys_irq_get(struct thread *t, struct arch_uregs *u);
int64_t sys_irq_bind(struct thread *t, struct arch_uregs *u);
int64_t sys_irq_ack(struct thread *t, struct arch_uregs *u);
int64_t sys_irq_unbind(struct thread *t, struct arch_uregs *u);
int64_t sys_dma_create(struct thread *t, struct arch_uregs *u);
int64_t sys_dma_paddr(struct thread *t, struct arch_uregs *u);
int64_t sys_pwin_create(struct thread *t, struct arch_uregs *u);
int64_t sys_pwin_set(struct thread *t, struct arch_uregs *u);
int64_t sys_task_kill(struct thread *t, struct arch_uregs *u);
int64_t sys_sched_kill(struct thread *t, struct arch_uregs *u);
int64_t sys_lbe_bind(struct thread *t, struct arch_uregs *u);
int64_t sys_lbe_arm(struct thread *t, struct arch_uregs *u);
/* Trace rings (syscall_trace.c). */
int64_t sys_trace_set(struct thread *t, struct arch_uregs *u);
int64_t sys_trace_frame(struct thread *t, struct arch_uregs *u);
int64_t sys_trace_dump(struct thread *t, struct arch_uregs *u);
/** FUL_SYS_THREAD_SET after its checks: set @attr of @tid to @value (a
 *  value thread_set_check accepted) on the thread's owner core, retrying
 *  while it moves. 0 or -FUL_E*. Thread context. */
int thread_set_attr(tid_t tid, unsigned attr, int64_t value);

/** Check a user thread attribute block: 0 or -FUL_EINVAL. */
int uthread_attr_check(const struct ful_thread_attr *a);
/** A new INACTIVE user thread in @vs charged to @p (thread_charge).
 *  -FUL_EINVAL, -FUL_EFAULT (IPC buffer), -FUL_ENOMEM (pool budget,
 *  thread table or RAM). On success the thread takes over the caller's
 *  reference to @p (pool.h). */
int uthread_create(struct pool *p, struct vspace *vs,
		   const struct ful_thread_attr *ua, struct thread **out);
/** Bytes a user thread costs its pool. */
extern const uint64_t thread_charge;

#endif
