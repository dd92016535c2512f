/* Kernel ports (see kport.h). */
#include "kport.h"
#include "kernel.h"
#include "percpu.h"
#include "sched.h"
#include "thread.h"

int kport_recv(struct kport *p, uint64_t out[4])
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	struct thread *t = this_cpu()->current;
	if (p->receiver) {
		spin_unlock_irqrestore(&p->lock, flags);
		return -FUL_ESTATE;
	}
	p->receiver = t;
	atomic_store_explicit(&t->blocked_on, p, memory_order_relaxed);
	spin_unlock_raw(&p->lock);
	/* IRQs stay masked: the wake-up is handled only once we are out. */
	while (atomic_load_explicit(&t->blocked_on, memory_order_acquire) ==
	       p) {
		if (!atomic_exchange(&t->wake_token, 0)) {
			atomic_store_explicit(&t->state, T_BLOCKED,
					      memory_order_relaxed);
			schedule(owner_irq());
		}
	}
	for (int i = 0; i < 4; i++)
		out[i] = t->msg[i];
	arch_irq_restore(flags);
	return 0;
}

int kport_send(struct kport *p, const uint64_t msg[4])
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	struct thread *r = p->receiver;
	if (!r) {
		spin_unlock_irqrestore(&p->lock, flags);
		return -FUL_EAGAIN;
	}
	p->receiver = NULL;
	for (int i = 0; i < 4; i++)
		r->msg[i] = msg[i];
	atomic_store_explicit(&r->blocked_on, NULL, memory_order_release);
	spin_unlock_irqrestore(&p->lock, flags);
	thread_wake(r);
	sched_preempt_point();
	return 0;
}

void kport_cancel(struct thread *t)
{
	struct kport *p =
		atomic_load_explicit(&t->blocked_on, memory_order_relaxed);
	if (!p)
		return;
	spin_lock_raw(&p->lock);
	if (p->receiver == t)
		p->receiver = NULL;
	spin_unlock_raw(&p->lock);
	atomic_store_explicit(&t->blocked_on, NULL, memory_order_relaxed);
}
