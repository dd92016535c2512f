/*
 * Boot: core 0 reads the device tree, sets up memory, threads and its
 * own per-CPU state, starts the other cores through PSCI, then runs the
 * init thread (tests, benchmarks, demo or console) and becomes idle.
 */
#include "args.h"
#include "coninput.h"
#include "console.h"
#include "devmem.h"
#include "fdt.h"
#include "fastpath.h"
#include "kernel.h"
#include "ktime.h"
#include "page.h"
#include "load.h"
#include "pool.h"
#include "race.h"
#include "sched.h"
#include "trace.h"

struct cpu cpus[MAX_CPUS];
_Atomic uint64_t cpus_online_mask;
struct machine machine;

void bench_run(const char *which);
void demo_run(void);
void root_task_start(void);
/* Boot argument test=: the kernel's self-tests whose names contain
 * @filter (tests/kernel/ktest.c, in build/kernel-test.elf only); in
 * build/kernel.elf, kernel/ktest_none.c refuses in one line. */
void ktest_run_all(const char *filter);

_Static_assert(offsetof(struct cpu, bench_delta) == 8,
	       "CPU_BENCH_DELTA in vectors.S");

/* Exact for any uptime (ktime.h): ticks * 10^6 overflowed after 82
 * hours at 62.5 MHz (issue 19, finding 7). */
uint64_t ms_to_ticks(uint64_t ms)
{
	return ktime_to_ticks(ms, 1000, arch_counter_freq(), 0);
}

uint64_t ticks_to_us(uint64_t ticks)
{
	return ktime_ticks_to_us(ticks, arch_counter_freq());
}

bool bootarg(const char *key, char *out, size_t n)
{
	return args_find(machine.bootargs, key, out, n);
}

uint64_t bootarg_num(const char *key, uint64_t dflt)
{
	char v[24];
	if (!bootarg(key, v, sizeof(v)) || !*v)
		return dflt;
	uint64_t n = 0;
	for (const char *p = v; *p >= '0' && *p <= '9'; p++)
		n = n * 10 + (uint64_t)(*p - '0');
	return n;
}

/** Per-core bring-up, IRQs masked: per-CPU state, idle thread, arch. */
static void cpu_init_this(unsigned id)
{
	struct cpu *c = &cpus[id];
	c->self = c;
	c->id = id;
	c->idle_poll = true;
	arch_set_this_cpu(c);
	sched_init_cpu(c);
	c->idle = thread_init_idle(id);
	c->current = c->idle;
	load_cpu_start(c); /* idle until its first switch */
	arch_init_cpu(id);
	c->stats.awake_since = arch_cycles(); /* the counter is set up now */
	atomic_fetch_or(&cpus_online_mask, 1ull << id);
}

static void start_secondaries(void)
{
	for (unsigned i = 1; i < machine.ncpus; i++) {
		if (arch_cpu_start(i, machine.cpu_hwid[i]) != 0)
			panic("PSCI CPU_ON failed for cpu%u", i);
		uint64_t deadline = arch_counter() + ms_to_ticks(5000);
		while (!cpu_is_online(i)) {
			if (arch_counter() > deadline)
				panic("cpu%u did not come online", i);
			arch_cpu_relax();
		}
	}
}

static void busy_loop(void *arg)
{
	(void)arg;
	for (;;)
		arch_cpu_relax();
}

static void panic_here(void *arg)
{
	(void)arg;
	panic("panic_on: requested by the boot arguments");
}

/** Boot argument panic_on=N: keep every core busy, then panic on core N
 *  (the harness checks the PANIC line and the power-off). */
static void panic_on_request(unsigned cpu)
{
	for (unsigned i = 0; i < machine.ncpus; i++) {
		struct thread_attr a = {.name = "busy", .prio = 10,
					.slice_ms = 1, .cpu = i};
		thread_create(&a, busy_loop, NULL);
	}
	icc_call_sync(cpu < machine.ncpus ? cpu : 0, panic_here, NULL);
	panic("panic_on: core %u did not panic", cpu);
}

static void init_main(void *arg)
{
	(void)arg;
	char v[64];
	load_check_ticks = bootarg("loadcheck", v, sizeof(v));
	fastpath_on = bootarg_num("fastpath", 1) != 0;
	if (bootarg("panic_on", v, sizeof(v)))
		panic_on_request((unsigned)bootarg_num("panic_on", 0));
	if (bootarg("test", v, sizeof(v))) {
		ktest_run_all(v);
		arch_poweroff();
	}
	if (bootarg("bench", v, sizeof(v))) {
		bench_run(v);
		arch_poweroff();
	}
	/* User-level tests and benchmarks: the rootserver runs them and
	 * powers the machine off. */
	if (bootarg("utest", v, sizeof(v)) || bootarg("ubench", v, sizeof(v))) {
		root_task_start();
		return;
	}
	/* Without kdebug, input goes to the user-level shell (coninput.c);
	 * with demo the rootserver powers off after the demo. */
	bool kdebug = bootarg("kdebug", v, sizeof(v)) &&
		      !bootarg("demo", v, sizeof(v));
	if (kdebug)
		coninput_monitor(); /* before the rootserver could bind */
	demo_run();
	root_task_start();
	if (kdebug)
		console_run();
}

void kmain(void)
{
	struct fdt_info fi;
	if (fdt_parse(arch_boot_dtb(), 1 << 20, &fi) != 0)
		fi = (struct fdt_info){.ram_base = 0x40000000,
				       .ram_size = 128 << 20, .ncpus = 1};
	machine.ram_base = fi.ram_base;
	machine.ram_size = fi.ram_size;
	machine.ncpus = fi.ncpus ? fi.ncpus : 1;
	bool over = fi.ncpus_dtb > MAX_CPUS;
	memcpy(machine.cpu_hwid, fi.cpu_hwid, sizeof(fi.cpu_hwid));
	memcpy(machine.bootargs, fi.bootargs, sizeof(fi.bootargs));

	arch_init();
	cpu_init_this(0);
	uintptr_t start, end;
	arch_free_ram(machine.ram_base, machine.ram_size, &start, &end);
	page_init(start, end - start);
	/* Every object user space makes is charged to a pool (pool.h); the
	 * root pool may take 3/4 of free RAM. The rest stays for the
	 * kernel's own threads and for the stacks thread slots keep for
	 * their next occupant. */
	pool_init_root(page_free_count() / 4 * 3 * PAGE_SIZE);
	devmem_init(&fi);
	load_init();
	trace_init();
	thread_init();
	kprintf("Fulcrum: %u cores, %lu MiB RAM, args '%s'\n", machine.ncpus,
		machine.ram_size >> 20, machine.bootargs);
	if (over) /* fdt.c kept the first MAX_CPUS; the others stay off */
		kprintf("cores: the device tree lists %u, the kernel's limit "
			"is %u: running on %u\n", fi.ncpus_dtb, MAX_CPUS,
			machine.ncpus);
	race_delay_init();
	start_secondaries();
	char line[8 * MAX_CPUS + 16];
	int len = ksnprintf(line, sizeof(line), "cores online:");
	for (unsigned i = 0; i < machine.ncpus; i++)
		if (cpu_is_online(i))
			len += ksnprintf(line + len, sizeof(line) - len, " cpu%u", i);
	kprintf("%s\n", line);
	struct thread_attr a = {.name = "init", .prio = 128, .slice_ms = 10,
				.cpu = 0};
	trace_start(); /* boot argument trace=: the rings' drain */
	if (thread_create(&a, init_main, NULL) < 0)
		panic("cannot create init thread");
	sched_idle_loop();
}

void kmain_secondary(unsigned cpu)
{
	cpu_init_this(cpu);
	sched_idle_loop();
}
