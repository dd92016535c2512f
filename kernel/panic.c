/* panic(): stop every other core, say which core failed and why, and
 * power the machine off so a test run ends instead of hanging. */
#include "kernel.h"
#include "percpu.h"

extern bool console_panicking;
void console_write(const char *s);
static _Atomic int panicking;

void panic(const char *fmt, ...)
{
	arch_irq_disable();
	if (atomic_exchange(&panicking, 1))
		arch_halt_cpu(); /* another core is already panicking */
	struct cpu *c = this_cpu();
	uint64_t others = atomic_load(&cpus_online_mask) & ~(1ull << c->id);
	if (others)
		arch_send_ipi(others, IPI_STOP);
	for (volatile int spin = 0; spin < 100000; spin++)
		arch_cpu_relax(); /* let them stop before we take the console */
	console_panicking = true;
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char line[400];
	ksnprintf(line, sizeof(line), "\nPANIC cpu%u: %s\n", c->id, buf);
	console_write(line);
	arch_poweroff();
}
