/* Probe threads for the in-kernel tests (see probe.h). */
#include "probe.h"

static void probe_main(void *arg)
{
	struct probe *p = arg;
	while (!atomic_load(&p->stop)) {
		unsigned id = this_cpu_id();
		uint32_t none = 0;
		atomic_compare_exchange_strong(&p->first_cpu, &none, id + 1);
		atomic_store(&p->cpu, id);
		atomic_fetch_add(&p->count, 1);
		arch_cpu_relax();
	}
	atomic_store(&p->exited, 1);
}

int probe_start(struct probe *p, unsigned cpu, unsigned prio)
{
	*p = (struct probe){0};
	atomic_store(&p->cpu, 0xffff);
	struct thread_attr a = {.name = "probe", .prio = prio, .slice_ms = 2,
				.cpu = cpu};
	int tid = thread_create(&a, probe_main, p);
	p->tid = (tid_t)tid;
	return tid;
}

void probe_finish(struct probe *p)
{
	atomic_store(&p->stop, 1);
	uint64_t dl = arch_counter() + ms_to_ticks(KT_TIMEOUT_MS);
	while (!atomic_load(&p->exited) && arch_counter() < dl)
		thread_sleep_ms(1);
	if (!atomic_load(&p->exited))
		thread_kill(p->tid);
	/* wait until the slot is really gone (the thread switched out) */
	while (thread_lookup(p->tid) && arch_counter() < dl)
		thread_sleep_ms(1);
}

static void probe_nop(void *arg)
{
	(void)arg;
}

int probe_ping(unsigned cpu, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int r = icc_call_sync(cpu, probe_nop, NULL);
		if (r)
			return r;
	}
	return 0;
}

struct ful_load_thread probe_read_lthread(struct thread *t)
{
	volatile struct ful_load_thread *lt = t->lrec;
	struct ful_load_thread r;
	unsigned s;
	do {
		while ((s = lt->seq) & 1)
			arch_cpu_relax();
		atomic_thread_fence(memory_order_acquire);
		r = (struct ful_load_thread){.tid = lt->tid, .cpu = lt->cpu,
					     .state = lt->state,
					     .affinity = lt->affinity};
		atomic_thread_fence(memory_order_acquire);
	} while (lt->seq != s);
	return r;
}
