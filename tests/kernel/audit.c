/* Quiescence checks shared by the stress and torture tests (audit.h). */
#include "audit.h"

/** On each core, IRQs masked: every thread it owns is where its state
 *  says, and each is counted once. */
void audit_core(void *arg)
{
	struct audit *a = arg;
	struct cpu *c = this_cpu();
	for (unsigned p = 0; p < RQ_NPRIO; p++)
		for (struct rq_link *l = c->rq.head[p].next; l != &c->rq.head[p];
		     l = l->next) {
			struct thread *t = container_of(l, struct thread, rq_link);
			a->bad += atomic_load(&t->state) != T_READY ||
				  atomic_load(&t->cpu) != c->id || t->prio != p;
			a->seen[t - threads]++;
		}
	a->bad += !rq_check(&c->rq);
	if (c->handoff) {
		a->bad += atomic_load(&c->handoff->state) != T_READY;
		a->seen[c->handoff - threads]++;
	}
	if (c->current != c->idle) {
		a->bad += atomic_load(&c->current->state) != T_RUNNING;
		a->seen[c->current - threads]++;
	}
	for (unsigned i = 0; i < MAX_THREADS; i++)
		if (atomic_load(&threads[i].state) == T_BLOCKED &&
		    atomic_load(&threads[i].cpu) == c->id)
			a->seen[i]++;
}

uint64_t icc_sum(bool posted, unsigned kind)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < machine.ncpus; i++)
		s += __atomic_load_n(posted ? &cpus[i].stats.icc_posted[kind]
					    : &cpus[i].stats.icc_handled[kind],
				     __ATOMIC_RELAXED);
	return s;
}

bool pools_idle(void)
{
	for (unsigned i = 0; i < machine.ncpus; i++)
		for (unsigned k = 0; k < ICC_POOL_SIZE; k++)
			if (atomic_load(&cpus[i].pool[k].state) != REQ_FREE)
				return false;
	for (unsigned i = 0; i < MAX_THREADS; i++)
		if (atomic_load(&threads[i].state) == T_MIGRATING ||
		    atomic_load(&threads[i].wake_inflight))
			return false;
	return true;
}

bool audit_all(struct audit *a)
{
	*a = (struct audit){0};
	for (unsigned c = 0; c < machine.ncpus; c++)
		if (icc_call_sync(c, audit_core, a) != 0)
			return false;
	return true;
}
