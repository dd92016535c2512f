/* The inter-core demo `make run` and `make demo` show: signals, the five
 * mailbox requests and a cross-core hand-off, narrated on the console. */
#include "kernel.h"
#include "kport.h"
#include "sched.h"

#define DEMO_WAIT_MS 10000

struct demo_worker {
	tid_t tid;
	_Atomic uint64_t count;
	_Atomic uint32_t cpu;
};

static struct demo_worker workers[MAX_CPUS];
static struct kport demo_port;
static _Atomic uint32_t demo_received;

static void demo_worker_main(void *arg)
{
	struct demo_worker *w = arg;
	for (;;) {
		atomic_store(&w->cpu, this_cpu_id());
		atomic_fetch_add(&w->count, 1);
		thread_yield();
	}
}

/** Wait (yielding) until @pred(@arg) holds; false on timeout. */
static bool demo_wait(bool (*pred)(void *), void *arg)
{
	uint64_t dl = arch_counter() + ms_to_ticks(DEMO_WAIT_MS);
	while (!pred(arg)) {
		if (arch_counter() > dl)
			return false;
		thread_sleep_ms(1);
	}
	return true;
}

static bool worker_advanced(void *arg)
{
	struct demo_worker *w = arg;
	return atomic_load(&w->count) > 1000;
}

static struct demo_worker *mover;
static unsigned mover_target;
static bool mover_arrived(void *arg)
{
	(void)arg;
	return atomic_load(&mover->cpu) == mover_target;
}

static void demo_hello(void *arg)
{
	(void)arg;
	kprintf("  CALL_FUNC: hello from cpu%u\n", this_cpu()->id);
}

static void demo_receiver(void *arg)
{
	(void)arg;
	uint64_t msg[4];
	kport_recv(&demo_port, msg);
	kprintf("  TASK_IPC: receiver on cpu%u got message %lx from cpu%lu\n",
		this_cpu_id(), msg[0], msg[1]);
	atomic_store(&demo_received, 1);
}

static bool receiver_done(void *arg)
{
	(void)arg;
	return atomic_load(&demo_received);
}

static bool port_has_receiver(void *arg)
{
	(void)arg;
	return __atomic_load_n(&demo_port.receiver, __ATOMIC_ACQUIRE) != NULL;
}

static void demo_signals(unsigned n)
{
	(void)n;
	unsigned target = 1;
	struct demo_worker *w = &workers[target];
	icc_signal(target, IPI_RUN_IDLE);
	uint64_t dl = arch_counter() + ms_to_ticks(DEMO_WAIT_MS);
	while (cpus[target].current != cpus[target].idle && arch_counter() < dl)
		thread_sleep_ms(1);
	uint64_t before = atomic_load(&w->count);
	kprintf("  IPI_RUN_IDLE: cpu%u parked, its worker stopped at %lu\n",
		target, before);
	icc_call_sync(target, demo_hello, NULL);
	kprintf("  ... still parked after a CALL_FUNC: worker at %lu\n",
		atomic_load(&w->count));
	icc_signal(target, IPI_RE_SCHEDULE);
	uint64_t goal = before + 1000;
	dl = arch_counter() + ms_to_ticks(DEMO_WAIT_MS);
	while (atomic_load(&w->count) < goal && arch_counter() < dl)
		thread_sleep_ms(1);
	kprintf("  IPI_RE_SCHEDULE: cpu%u woken, worker at %lu\n", target,
		atomic_load(&w->count));
}

static void demo_migration(unsigned n)
{
	mover = &workers[0];
	kprintf("  TASK_OUT/TASK_IN: moving worker %x around the cores:",
		(unsigned)mover->tid);
	for (unsigned k = 1; k <= n; k++) {
		mover_target = k % n;
		thread_migrate(mover->tid, mover_target);
		if (!demo_wait(mover_arrived, NULL))
			break;
		kprintf(" cpu%u", atomic_load(&mover->cpu));
	}
	kprintf("\n");
}

void demo_run(void)
{
	unsigned n = machine.ncpus;
	kprintf("== Fulcrum inter-core demo on %u cores ==\n", n);
	for (unsigned i = 0; i < n; i++) {
		struct thread_attr a = {.name = "worker", .prio = 10,
					.slice_ms = 5, .cpu = i};
		atomic_store(&workers[i].count, 0);
		atomic_store(&demo_received, 0);
		workers[i].tid = (tid_t)thread_create(&a, demo_worker_main,
						       &workers[i]);
	}
	for (unsigned i = 0; i < n; i++)
		demo_wait(worker_advanced, &workers[i]);
	kprintf("  one worker running on each core\n");
	if (n > 1) {
		demo_signals(n);
		demo_migration(n);
	} else {
		kprintf("  (one core: no parking or migration to show)\n");
	}
	for (unsigned i = 0; i < n; i++)
		icc_call_sync(i, demo_hello, NULL);
	struct thread_attr ra = {.name = "receiver", .prio = 20, .slice_ms = 5,
				 .cpu = n - 1};
	thread_create(&ra, demo_receiver, NULL);
	demo_wait(port_has_receiver, NULL);
	uint64_t msg[4] = {0xf00d, this_cpu()->id, 0, 0};
	kport_send(&demo_port, msg);
	demo_wait(receiver_done, NULL);
	for (unsigned i = 0; i < n; i++)
		kprintf("  TASK_KILL worker %x: %d\n", (unsigned)workers[i].tid,
			thread_kill(workers[i].tid));
	kprintf("== demo done ==\n");
}
