/*
 * Race points (race.h): the hook, its per-core copies, and the delay
 * injection of the torture test.
 *
 * Delay injection (boot argument torture_delay=<max ns>, seeded by
 * seed=<n>): the default hook becomes race_delay, which at each delay
 * point spins, one time in four, for a random time of up to max ns
 * (per-core xorshift). The points are the mailbox push and drain, both
 * halves of the wake-up and the migration hand-over: where another
 * core's request can overtake this one. Every delay point is reached
 * with IRQs masked, so the per-core state needs no lock. A test that
 * installs its own hook replaces the delays until it puts NULL back.
 */
#include "kernel.h"
#include "ktime.h"
#include "percpu.h"
#include "race.h"

race_hook_fn race_hook;
static race_hook_fn race_default; /* [I] race_delay_init */

/* [I] race_delay_init */
static uint64_t delay_max_ticks;
static uint32_t delay_points;
/* [O] each core's own entry, IRQs masked */
static struct {
	uint64_t rng;
	uint64_t count;
} __attribute__((aligned(CACHELINE))) delay_state[MAX_CPUS];

void race_hook_set(race_hook_fn fn)
{
	if (!fn)
		fn = race_default;
	__atomic_store_n(&race_hook, fn, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < MAX_CPUS; i++)
		__atomic_store_n(&cpus[i].race_hook, fn, __ATOMIC_SEQ_CST);
}

static uint64_t delay_rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/** The delay hook: at a delay point, one time in four, spin for a
 *  random 0..delay_max_ticks. IRQs masked (every delay point is). */
static void race_delay(enum race_point p, void *arg)
{
	(void)arg;
	if (!(delay_points >> p & 1) || arch_irq_enabled())
		return;
	unsigned id = this_cpu()->id;
	uint64_t r = delay_rng_next(&delay_state[id].rng);
	if (r & 3)
		return;
	delay_state[id].count++;
	uint64_t end = arch_counter() + (r >> 2) % (delay_max_ticks + 1);
	while (arch_counter() < end)
		arch_cpu_relax();
}

void race_delay_init(void)
{
	uint64_t ns = bootarg_num("torture_delay", 0);
	if (!ns)
		return;
	delay_max_ticks = ktime_to_ticks(ns, 1000000000, arch_counter_freq(),
					 1);
	delay_points = 1u << RACE_WAKE_ENTRY | 1u << RACE_WAKE_READS |
		       1u << RACE_MBOX_PUSH | 1u << RACE_MBOX_DRAIN |
		       1u << RACE_WAKE_POST | 1u << RACE_MIG_HANDOVER |
		       1u << RACE_MIG_LANDED;
	uint64_t seed = bootarg_num("seed", 1);
	for (unsigned i = 0; i < MAX_CPUS; i++)
		delay_state[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull +
				     (i + 1) * 0xbf58476d1ce4e5b9ull;
	race_default = race_delay;
	race_hook_set(NULL);
	kprintf("race: delays of up to %lu ns at the mailbox, wake and "
		"hand-over and landing points, seed %lu\n", ns, seed);
}

uint64_t race_delay_count(unsigned cpu)
{
	return cpu < MAX_CPUS ? __atomic_load_n(&delay_state[cpu].count,
						__ATOMIC_RELAXED)
			      : 0;
}
