/*
 * User threads: kernel threads that live at EL0 in a task's address
 * space. Their user registers sit at the top of their kernel stack
 * (arch_uregs_of); the kernel part of the stack starts below them.
 * Creation charges the pool (thread_charge: the kernel stack and the
 * thread record), pins the IPC buffer's frame and takes a reference on
 * the task; release (after the thread is switched out for good, or
 * never ran) gives all three back and settles its IPC
 * (ipc_thread_exit). The credit comes before the slot is FREE, so a
 * task that sees its thread dead (THREAD_INFO: EDEAD) sees its pool
 * credited.
 */
#include "frame.h"
#include "kernel.h"
#include "pool.h"
#include "sched.h"
#include "syscall.h"
#include "thread.h"
#include "vspace.h"

_Atomic uint64_t user_faults;

/* A user thread's cost: its kernel stack (kept with the slot for the
 * next occupant, but paid for while the thread lives) and its record. */
const uint64_t thread_charge = KSTACK_SIZE + sizeof(struct thread);

/** First run of a user thread: leave for EL0 (its vspace is active). */
static void uthread_entry(void *arg)
{
	(void)arg;
	arch_irq_disable();
	struct thread *t = this_cpu()->current;
	arch_user_enter(arch_uregs_of(t->kstack + KSTACK_SIZE));
}

/** Check a user thread attribute block. 0 or -FUL_EINVAL. */
int uthread_attr_check(const struct ful_thread_attr *a)
{
	if (a->prio > 254 || a->slice_ms < 1 || a->slice_ms > 10000 ||
	    a->nice < -20 || a->nice > 19 || !cpu_is_online(a->cpu))
		return -FUL_EINVAL;
	if (a->entry < FUL_USER_MIN || a->entry >= FUL_USER_MAX ||
	    (a->entry & 3))
		return -FUL_EINVAL;
	if (a->sp <= FUL_USER_MIN || a->sp > FUL_USER_MAX || (a->sp & 15))
		return -FUL_EINVAL;
	if (a->ipcbuf & (FUL_IPCBUF_SIZE - 1))
		return -FUL_EINVAL;
	return 0;
}

int uthread_create(struct pool *p, struct vspace *vs,
		   const struct ful_thread_attr *ua, struct thread **out)
{
	int err = uthread_attr_check(ua);
	if (err)
		return err;
	uintptr_t ipcbuf = 0;
	struct frame *f = NULL;
	if (ua->ipcbuf &&
	    !(f = vspace_pin(vs, ua->ipcbuf, FUL_R_READ | FUL_R_WRITE,
			     &ipcbuf)))
		return -FUL_EFAULT;
	if (!pool_charge(p, thread_charge)) {
		if (f)
			obj_put(&f->obj);
		return -FUL_ENOMEM;
	}
	char name[16];
	memcpy(name, ua->name, sizeof(name));
	name[15] = 0;
	struct thread_attr ka = {.name = name, .prio = ua->prio,
				 .slice_ms = ua->slice_ms, .nice = ua->nice,
				 .cpu = ua->cpu};
	struct thread *t = thread_create_inactive(
		&ka, uthread_entry, NULL, sizeof(struct arch_uregs), &err);
	if (!t) {
		if (f)
			obj_put(&f->obj);
		pool_credit(p, thread_charge);
		return err;
	}
	arch_uregs_init(arch_uregs_of(t->kstack + KSTACK_SIZE), ua->entry,
			ua->sp, ua->arg0, ua->arg1, ua->ipcbuf);
	obj_get(&vs->obj);
	t->ipcbuf = ipcbuf;
	t->ipcbuf_frame = f;
	t->pool = p;
	t->vs = vs;
	thread_publish(t); /* finished: now a kill releases all of it */
	*out = t;
	return 0;
}

void uthread_release(struct thread *t)
{
	ipc_thread_exit(t);
	struct kobj *hold = t->sys_hold;
	t->sys_hold = NULL;
	if (hold)
		obj_put(hold);
	if (t->ipcbuf_frame)
		obj_put(&t->ipcbuf_frame->obj);
	t->ipcbuf_frame = NULL;
	t->ipcbuf = 0;
	struct pool *p = t->pool;
	t->pool = NULL;
	pool_uncharge_obj(p, thread_charge);
	struct vspace *vs = t->vs;
	t->vs = NULL;
	obj_put(&vs->obj);
}

void user_fault(struct arch_uregs *u, const char *cause, uint64_t addr)
{
	struct thread *t = this_cpu()->current;
	atomic_fetch_add(&user_faults, 1);
	kprintf("FAULT %s (tid %u) on cpu%u: %s, pc %lx, address %lx\n",
		t->name, atomic_load(&t->tid), this_cpu()->id, cause,
		arch_uregs_pc(u), addr);
	thread_exit();
}
