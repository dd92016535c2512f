/*
 * System-call entry and the IPC, notification and miscellaneous calls.
 * The ABI and the order of argument checks are in <fulcrum/syscall.h>.
 * Calls run with IRQs masked; blocking ones switch away inside and may
 * return on another core. Every exit ends with the common kernel exit:
 * reschedule if asked, then the batched IPIs.
 */
#include "syscall.h"
#include "coninput.h"
#include "console.h"
#include "irqstat.h"
#include "ipc.h"
#include "kernel.h"
#include "sched.h"
#include "trace.h"

extern _Atomic uint64_t user_faults;
struct endpoint;
struct ntfn;

/** Read the outgoing message of a send-type call: info in x1, MRs in
 *  x2..x5. Checks the info word and the sender's buffer. */
static int sys_msg_in(struct thread *t, struct arch_uregs *u,
		      struct ipc_msg *m, uint64_t badge)
{
	uint64_t info = ARG(1);
	if (FUL_MSG_LEN(info) > FUL_IPCBUF_SIZE)
		return -FUL_ERANGE;
	if (info & ~(0xffffffffull << 16 | 0x3ffull))
		return -FUL_EINVAL;
	if (FUL_MSG_LEN(info) && !t->ipcbuf)
		return -FUL_ESTATE;
	m->badge = badge;
	m->info = info;
	m->mr[0] = ARG(2);
	m->mr[1] = ARG(3);
	m->mr[2] = ARG(4);
	m->mr[3] = ARG(5);
	return 0;
}

/** Look up an endpoint or notification for a call that may block: the
 *  transient reference moves to t->sys_hold, where a kill finds it. */
static int sys_hold_cap(struct thread *t, uint64_t slot, unsigned type,
			unsigned rights, struct cap *c)
{
	int err = cap_lookup(t->vs, slot, type, rights, c);
	if (!err)
		t->sys_hold = c->obj;
	return err;
}

/** A blocking IPC call whose continuation after its wait is only
 *  sys_msg_out + sys_unhold + the syscall exit (@ok) lets the fastpath
 *  complete it for it (t->fp_uregs, fastpath.c). */
static inline void sys_fp_mark(struct thread *t, struct arch_uregs *u,
			       bool ok)
{
	t->fp_uregs = ok ? u : NULL;
}

static void sys_unhold(struct thread *t, struct cap *c)
{
	t->sys_hold = NULL;
	cap_release(c);
}

static int64_t sys_send_common(struct thread *t, struct arch_uregs *u,
			       bool call)
{
	struct cap c;
	struct ipc_msg m;
	int err = sys_hold_cap(t, ARG(0), FUL_CAP_ENDPOINT, FUL_R_WRITE, &c);
	if (err)
		return err;
	err = sys_msg_in(t, u, &m, c.data);
	if (!err) {
		uint64_t deadline = ipc_deadline(ARG(6));
		sys_fp_mark(t, u, call && deadline == ~0ull);
		err = ep_send(c.obj, t, &m, call, deadline);
		t->fp_uregs = NULL;
	}
	if (!err && call)
		sys_msg_out(u, &t->ipc_msg);
	sys_unhold(t, &c);
	return err;
}

static int64_t sys_send(struct thread *t, struct arch_uregs *u)
{
	return sys_send_common(t, u, false);
}

static int64_t sys_call(struct thread *t, struct arch_uregs *u)
{
	return sys_send_common(t, u, true);
}

static int64_t sys_recv(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = sys_hold_cap(t, ARG(0), FUL_CAP_ENDPOINT, FUL_R_READ, &c);
	if (err)
		return err;
	uint64_t deadline = ipc_deadline(ARG(6));
	sys_fp_mark(t, u, deadline == ~0ull);
	err = ep_recv(c.obj, t, deadline);
	t->fp_uregs = NULL;
	if (!err)
		sys_msg_out(u, &t->ipc_msg);
	sys_unhold(t, &c);
	return err;
}

static int64_t sys_reply_recv(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	struct ipc_msg m;
	int err = sys_hold_cap(t, ARG(0), FUL_CAP_ENDPOINT, FUL_R_READ, &c);
	if (err)
		return err;
	err = sys_msg_in(t, u, &m, 0);
	if (!err) {
		uint64_t deadline = ipc_deadline(ARG(6));
		sys_fp_mark(t, u, deadline == ~0ull);
		err = ep_reply_recv(c.obj, t, &m, deadline);
		t->fp_uregs = NULL;
	}
	if (!err)
		sys_msg_out(u, &t->ipc_msg);
	sys_unhold(t, &c);
	return err;
}

static int64_t sys_reply(struct thread *t, struct arch_uregs *u)
{
	struct ipc_msg m;
	int err = sys_msg_in(t, u, &m, 0);
	if (err)
		return err;
	if (!t->reply_to)
		return -FUL_ESTATE;
	uint64_t token = t->reply_to;
	t->reply_to = 0;
	return ipc_reply(t, token, &m);
}

static int64_t sys_reply_save(struct thread *t, struct arch_uregs *u)
{
	int err = cap_slot_free(t->vs, ARG(0));
	if (err)
		return err;
	if (!t->reply_to)
		return -FUL_ESTATE;
	struct cap c = {.type = FUL_CAP_REPLY, .rights = FUL_R_WRITE,
			.data = t->reply_to};
	err = cap_insert(t->vs, ARG(0), &c);
	if (!err)
		t->reply_to = 0;
	return err;
}

static int64_t sys_reply_to(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	struct ipc_msg m;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_REPLY, FUL_R_WRITE, &c);
	if (err)
		return err;
	if ((err = sys_msg_in(t, u, &m, 0)))
		return err;
	if ((err = cap_take(t->vs, ARG(0), FUL_CAP_REPLY, FUL_R_WRITE, &c)))
		return err; /* another thread used it first */
	return ipc_reply(t, c.data, &m);
}

static int64_t sys_ntfn_signal(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_NTFN, FUL_R_WRITE, &c);
	if (err)
		return err;
	uint64_t bits = ARG(1) | c.data;
	err = bits ? ntfn_signal(c.obj, bits) : -FUL_EINVAL;
	cap_release(&c);
	return err;
}

static int64_t sys_ntfn_wait(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	uint64_t bits = 0;
	int err = sys_hold_cap(t, ARG(0), FUL_CAP_NTFN, FUL_R_READ, &c);
	if (err)
		return err;
	uint64_t deadline = ipc_deadline(ARG(6));
	sys_fp_mark(t, u, deadline == ~0ull); /* continuation: x1 = bits */
	err = ntfn_wait(c.obj, t, deadline, &bits);
	t->fp_uregs = NULL;
	arch_uregs_set(u, 1, bits);
	sys_unhold(t, &c);
	return err;
}

static int64_t sys_ntfn_poll(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_NTFN, FUL_R_READ, &c);
	if (err)
		return err;
	arch_uregs_set(u, 1, ntfn_poll(c.obj));
	cap_release(&c);
	return 0;
}

static int64_t sys_debug_write(struct thread *t, struct arch_uregs *u)
{
	char buf[FUL_DEBUG_WRITE_MAX + 1];
	uint64_t len = ARG(1);
	if (len > FUL_DEBUG_WRITE_MAX)
		return -FUL_ERANGE;
	int err = vspace_copy_in(t->vs, buf, ARG(0), len);
	if (err)
		return err;
	buf[len] = 0;
	console_write(buf);
	return (int64_t)len;
}

static int64_t sys_yield(struct thread *t, struct arch_uregs *u)
{
	(void)t, (void)u;
	thread_yield();
	return 0;
}

/** FUL_SYS_SLEEP(us): block the caller for at least @us microseconds, so
 *  that threads of lower priority on its core run meanwhile (YIELD only
 *  passes the core to threads of its own priority). 0 returns at once;
 *  a time ipc_timeout_forever() takes as forever is EINVAL: a thread that
 *  waits for nothing, for ever, is a bug. A wake-up before the deadline
 *  (a migration wakes a sleeper on its new core) sleeps again. Thread
 *  context, IRQs masked. */
static int64_t sys_sleep(struct thread *t, struct arch_uregs *u)
{
	(void)t;
	uint64_t us = ARG(0);
	if (ipc_timeout_forever(us))
		return -FUL_EINVAL;
	uint64_t deadline = ipc_deadline(us);
	while (arch_counter() < deadline)
		sched_sleep_until(owner_irq(), deadline);
	return 0;
}

static int64_t sys_exit(struct thread *t, struct arch_uregs *u)
{
	(void)t, (void)u;
	thread_exit();
}

static int64_t sys_sysinfo(struct thread *t, struct arch_uregs *u)
{
	struct ful_sysinfo si = {
		.ncpus = machine.ncpus,
		.cpu = this_cpu()->id,
		.tid = atomic_load_explicit(&t->tid, memory_order_relaxed),
		.counter_freq = arch_counter_freq(),
		.faults = atomic_load(&user_faults),
	};
	return vspace_copy_out(t->vs, ARG(0), &si, sizeof(si));
}

static int64_t sys_shutdown(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &c);
	if (err)
		return err;
	kprintf("shutdown requested by %s\n", t->name);
	trace_at_shutdown(); /* boot argument trace=: the rings first */
	arch_poweroff();
}

/** CONS_BIND(console, ntfn, bits): console ADMIN, ntfn WRITE, bits != 0
 *  (EINVAL), another live binding or the debug monitor (ESTATE). */
static int64_t sys_cons_bind(struct thread *t, struct arch_uregs *u)
{
	struct cap k, n;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_CONSOLE, FUL_R_ADMIN, &k);
	if (err)
		return err;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_NTFN, FUL_R_WRITE, &n)))
		return err;
	uint64_t bits = ARG(2) | n.data;
	err = bits ? coninput_bind(n.obj, bits) : -FUL_EINVAL;
	cap_release(&n);
	return err;
}

/** CONS_READ(console, ntfn, buf*, len): console READ, ntfn READ, len
 *  1..FUL_CONS_READ_MAX (ERANGE), buf writable (EFAULT), ntfn not the
 *  bound one (ESTATE). Returns the bytes copied, 0 if none. */
static int64_t sys_cons_read(struct thread *t, struct arch_uregs *u)
{
	struct cap k, n;
	char buf[FUL_CONS_READ_MAX];
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_CONSOLE, FUL_R_READ, &k);
	if (err)
		return err;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_NTFN, FUL_R_READ, &n)))
		return err;
	uint64_t len = ARG(3);
	if (len == 0 || len > FUL_CONS_READ_MAX)
		err = -FUL_ERANGE;
	else if (!(err = vspace_check(t->vs, ARG(2), len, FUL_R_WRITE)))
		err = coninput_read(n.obj, buf, (unsigned)len);
	cap_release(&n);
	/* A racing unmap by another thread of the task loses these bytes. */
	if (err > 0 && vspace_copy_out(t->vs, ARG(2), buf, (size_t)err))
		return -FUL_EFAULT;
	return err;
}

/** A reserved number that names no call yet. */
static int64_t sys_nosys(struct thread *t, struct arch_uregs *u)
{
	(void)t, (void)u;
	return -FUL_ENOSYS;
}

static const sys_fn sys_table[FUL_SYS_COUNT] = {
	[FUL_SYS_DEBUG_WRITE] = sys_debug_write,
	[FUL_SYS_YIELD] = sys_yield,
	[FUL_SYS_EXIT] = sys_exit,
	[FUL_SYS_SEND] = sys_send,
	[FUL_SYS_RECV] = sys_recv,
	[FUL_SYS_CALL] = sys_call,
	[FUL_SYS_REPLY] = sys_reply,
	[FUL_SYS_REPLY_RECV] = sys_reply_recv,
	[FUL_SYS_NTFN_SIGNAL] = sys_ntfn_signal,
	[FUL_SYS_NTFN_WAIT] = sys_ntfn_wait,
	[FUL_SYS_NTFN_POLL] = sys_ntfn_poll,
	[FUL_SYS_CAP_COPY] = sys_cap_copy,
	[FUL_SYS_CAP_DELETE] = sys_cap_delete,
	[FUL_SYS_CAP_INFO] = sys_cap_info,
	[FUL_SYS_EP_CREATE] = sys_ep_create,
	[FUL_SYS_NTFN_CREATE] = sys_ntfn_create,
	[FUL_SYS_FRAME_CREATE] = sys_frame_create,
	[FUL_SYS_VSPACE_CREATE] = sys_vspace_create,
	[FUL_SYS_MAP] = sys_map,
	[FUL_SYS_UNMAP] = sys_unmap,
	[FUL_SYS_THREAD_CREATE] = sys_thread_create,
	[FUL_SYS_THREAD_START] = sys_thread_start,
	[FUL_SYS_THREAD_KILL] = sys_thread_kill,
	[FUL_SYS_THREAD_MIGRATE] = sys_thread_migrate,
	[FUL_SYS_THREAD_INFO] = sys_thread_info,
	[FUL_SYS_REPLY_SAVE] = sys_reply_save,
	[FUL_SYS_REPLY_TO] = sys_reply_to,
	[FUL_SYS_SYSINFO] = sys_sysinfo,
	[FUL_SYS_SHUTDOWN] = sys_shutdown,
	[FUL_SYS_MIGRATE] = sys_migrate,
	[FUL_SYS_THREAD_SET] = sys_thread_set,
	[FUL_SYS_POOL_CREATE] = sys_pool_create,
	[FUL_SYS_POOL_INFO] = sys_pool_info,
	[FUL_SYS_UTIL_SET] = sys_util_set,
	[FUL_SYS_CONS_BIND] = sys_cons_bind,
	[FUL_SYS_CONS_READ] = sys_cons_read,
	[FUL_SYS_LBE_BIND] = sys_lbe_bind,
	[FUL_SYS_LBE_ARM] = sys_lbe_arm,
	/* 38..39 reserved: sys_nosys */
	[38] = sys_nosys,
	[39] = sys_nosys,
	[FUL_SYS_DEVMEM_MAP] = sys_devmem_map,
	[FUL_SYS_DEVMEM_INFO] = sys_devmem_info,
	[FUL_SYS_IRQ_GET] = sys_irq_get,
	[FUL_SYS_IRQ_BIND] = sys_irq_bind,
	[FUL_SYS_IRQ_ACK] = sys_irq_ack,
	[FUL_SYS_IRQ_UNBIND] = sys_irq_unbind,
	[FUL_SYS_DMA_CREATE] = sys_dma_create,
	[FUL_SYS_DMA_PADDR] = sys_dma_paddr,
	[FUL_SYS_TRACE_SET] = sys_trace_set,
	[FUL_SYS_TRACE_FRAME] = sys_trace_frame,
	[FUL_SYS_TRACE_DUMP] = sys_trace_dump,
	[51] = sys_nosys,
	[FUL_SYS_PWIN_CREATE] = sys_pwin_create,
	[FUL_SYS_PWIN_SET] = sys_pwin_set,
	[FUL_SYS_TASK_KILL] = sys_task_kill,
	[FUL_SYS_SCHED_KILL] = sys_sched_kill,
	[FUL_SYS_SLEEP] = sys_sleep,
	[FUL_SYS_IRQSTAT] = sys_irqstat,
};

void syscall_entry(struct arch_uregs *u)
{
	uint64_t nr = arch_uregs_sysno(u);
	struct thread *t = this_cpu()->current;
	int64_t r = nr < FUL_SYS_COUNT ? sys_table[nr](t, u) : -FUL_ENOSYS;
	arch_uregs_set(u, 0, (uint64_t)r);
	irq_exit();
}
