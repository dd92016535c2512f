/* Kernel threads as IPC clients (kipc.h). */
#include "kipc.h"
#include "obj.h"
#include "pool.h"
#include "sched.h"

/** What a system call's kernel exit does, then IRQs back on. */
static void kipc_exit(uint64_t flags)
{
	icc_flush();
	arch_irq_restore(flags);
	sched_preempt_point();
}

int kipc_send(struct endpoint *ep, struct ipc_msg *m, bool call,
	      uint64_t timeout_us)
{
	uint64_t flags = arch_irq_save();
	struct thread *t = this_cpu()->current;
	int err = ep_send(ep, t, m, call, ipc_deadline(timeout_us));
	if (!err && call)
		*m = t->ipc_msg;
	kipc_exit(flags);
	return err;
}

/** The message and token a successful receive left in @t. */
static void kipc_take(struct thread *t, struct ipc_msg *m, uint64_t *token)
{
	*m = t->ipc_msg;
	*token = t->reply_to;
	t->reply_to = 0;
}

int kipc_recv(struct endpoint *ep, uint64_t timeout_us, struct ipc_msg *m,
	      uint64_t *token)
{
	uint64_t flags = arch_irq_save();
	struct thread *t = this_cpu()->current;
	int err = ep_recv(ep, t, ipc_deadline(timeout_us));
	*token = 0;
	if (!err)
		kipc_take(t, m, token);
	kipc_exit(flags);
	return err;
}

int kipc_reply_recv(struct endpoint *ep, uint64_t token,
		    const struct ipc_msg *reply, uint64_t timeout_us,
		    struct ipc_msg *m, uint64_t *new_token)
{
	uint64_t flags = arch_irq_save();
	struct thread *t = this_cpu()->current;
	t->reply_to = token;
	int err = ep_reply_recv(ep, t, reply, ipc_deadline(timeout_us));
	*new_token = 0;
	if (!err)
		kipc_take(t, m, new_token);
	kipc_exit(flags);
	return err;
}

int kipc_reply(uint64_t token, const struct ipc_msg *m)
{
	uint64_t flags = arch_irq_save();
	int err = ipc_reply(this_cpu()->current, token, m);
	kipc_exit(flags);
	return err;
}

int kipc_wait(struct ntfn *n, uint64_t timeout_us, uint64_t *bits)
{
	uint64_t flags = arch_irq_save();
	uint64_t got;
	int err = ntfn_wait(n, this_cpu()->current, ipc_deadline(timeout_us),
			    &got);
	if (bits)
		*bits = got;
	kipc_exit(flags);
	return err;
}

void kipc_signal(struct ntfn *n, uint64_t bits)
{
	uint64_t flags = arch_irq_save();
	ntfn_signal(n, bits);
	kipc_exit(flags);
}

int kipc_endpoint_create(struct endpoint **out)
{
	obj_get(&root_pool.obj);
	int err = endpoint_create(&root_pool, out);
	if (err)
		obj_put(&root_pool.obj);
	return err;
}

int kipc_ntfn_create(struct ntfn **out)
{
	obj_get(&root_pool.obj);
	int err = ntfn_create(&root_pool, out);
	if (err)
		obj_put(&root_pool.obj);
	return err;
}
