/*
 * The rootserver: the first user task. It owns every resource the kernel
 * hands out at boot (see <fulcrum/bootinfo.h>). For now it lists the boot
 * modules, starts "hello" on every core and then idles.
 */
#include <stdio.h>

#include <ful/ful.h>
#include <ful/spawn.h>

/** Print the bootinfo page; returns 0 if it looks right. */
static int show_bootinfo(const struct ful_bootinfo *bi)
{
	if (bi->magic != FUL_BOOTINFO_MAGIC) {
		printf("rootserver: bad bootinfo magic %#lx\n", bi->magic);
		return -1;
	}
	printf("rootserver: %u cpus, %u pool pages, args \"%.*s\"\n", bi->ncpus,
	       bi->pool_pages, (int)sizeof bi->bootargs, bi->bootargs);
	for (unsigned i = 0; i < bi->nmodules && i < FUL_MAX_MODULES; i++)
		printf("  module %u: %-16.*s %8lu bytes, slot %u\n", i,
		       (int)sizeof bi->modules[i].name, bi->modules[i].name,
		       bi->modules[i].size, bi->modules[i].slot);
	return 0;
}

/** Start module @name once on each core; returns how many started. */
static unsigned spawn_everywhere(const char *name, unsigned ncpus)
{
	int mod = ful_module_find(name);
	if (mod < 0) {
		printf("rootserver: no module \"%s\"\n", name);
		return 0;
	}
	unsigned n = 0;
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct ful_spawn_args a = { .module = (unsigned)mod, .cpu = cpu, .prio = 100 };
		struct ful_task t;
		int err = ful_spawn(&a, &t);
		if (err < 0)
			printf("rootserver: spawn %s on cpu %u: error %d\n", name, cpu, err);
		else
			n++;
	}
	return n;
}

/** Wait on a fresh endpoint that nobody else holds: forever. */
static _Noreturn void idle(void)
{
	long ep = ful_slot_alloc();
	if (ep >= 0 && ful_ep_create(FUL_SLOT_POOL, (unsigned)ep) >= 0)
		for (;;) {
			struct ful_msg m;
			ful_recv((unsigned)ep, &m, FUL_FOREVER);
		}
	for (;;)
		ful_yield();
}

int main(void)
{
	const struct ful_bootinfo *bi = ful_bootinfo();
	if (show_bootinfo(bi) < 0)
		return 1;
	ful_slot_init(bi->first_free_slot);
	unsigned n = spawn_everywhere("hello", bi->ncpus);
	printf("rootserver: started hello on %u of %u cpus\n", n, bi->ncpus);
	idle();
}
