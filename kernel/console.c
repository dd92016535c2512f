/* The kernel debug monitor: a line editor on the PL011 and a few
 * commands to look at and poke the scheduler and the ICC layer. It runs
 * only with the boot argument kdebug; otherwise console input goes to
 * user space (coninput.c) and the user-level shell (user/shell). */
#include "console.h"
#include "coninput.h"
#include "kernel.h"
#include "load.h"
#include "sched.h"
#include <fulcrum/loadwin.h>

static struct thread *console_thread;

void console_rx_interrupt(void)
{
	if (console_thread)
		thread_wake(console_thread);
	else
		coninput_rx();
}

static int console_getc(void)
{
	int c;
	while ((c = arch_console_getc()) < 0)
		thread_park();
	return c;
}

static void console_readline(char *buf, size_t n)
{
	size_t len = 0;
	for (;;) {
		int c = console_getc();
		if (c == '\r' || c == '\n') {
			kprintf("\n");
			break;
		} else if ((c == 0x7f || c == 8) && len) {
			len--;
			kprintf("\b \b");
		} else if (c >= ' ' && len + 1 < n) {
			buf[len++] = (char)c;
			kprintf("%c", c);
		}
	}
	buf[len] = 0;
}

static const char *const state_names[] = {"free",    "embryo",   "ready",
					   "running", "blocked",  "migrating",
					   "dead"};

static void cmd_threads(void)
{
	kprintf("  tid     name          state      cpu prio slice  runtime(us) moves\n");
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[i];
		uint32_t st = atomic_load(&t->state);
		if (st == T_FREE)
			continue;
		kprintf("  %-7x %-13s %-10s %3u %4u %5u %12lu %5u\n",
			(unsigned)t->tid, t->name, state_names[st],
			(unsigned)atomic_load(&t->cpu), t->prio, t->slice_ms,
			ticks_to_us(sched_thread_runtime(t)), t->migrations);
	}
}

/** Core @cpu's utilization now (sliding short and long window, permille)
 *  from its load record, as the balancer reads it (<fulcrum/loadwin.h>),
 *  copied under its seqcount. Any core, thread context. */
static void console_util(unsigned cpu, unsigned *s, unsigned *l)
{
	const struct ful_load_hdr *h = &load_area.hdr;
	const struct ful_load_cpu *r = &load_area.cpu[cpu];
	struct ful_load_cpu c;
	struct ful_win_par p;
	unsigned s0, s1;
	do {
		s0 = __atomic_load_n(&h->util_seq, __ATOMIC_ACQUIRE);
		p = (struct ful_win_par){h->util_epoch, h->util_win,
					 h->util_idx0};
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((s0 & 1) || s0 != *(const volatile unsigned *)&h->util_seq);
	do {
		s0 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
		memcpy(&c, (const void *)r, sizeof(c));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s1 = *(const volatile unsigned *)&r->seq;
	} while ((s0 & 1) || s0 != s1);
	ful_util_cpu(&c, &p, arch_counter(), s, l);
}

static void cmd_cpus(void)
{
	kprintf("  cpu parked switches  busy(us)  idle(us) ipi-in ipi-out icc-handled util-%%(%lums/%lums)\n",
		load_area.hdr.util_win_ms,
		load_area.hdr.util_win_ms * FUL_UTIL_LONG_WINS);
	for (unsigned i = 0; i < machine.ncpus; i++) {
		struct cpu *c = &cpus[i];
		uint64_t handled = 0, in = 0;
		for (unsigned k = 0; k < ICC_NKINDS; k++)
			handled += c->stats.icc_handled[k];
		for (unsigned k = 0; k < 4; k++)
			in += c->stats.ipi_in[k];
		uint64_t busy, idle;
		unsigned us, ul;
		sched_cpu_times(c, &busy, &idle);
		console_util(i, &us, &ul);
		kprintf("  %3u %6s %8lu %9lu %9lu %6lu %7lu %11lu %5u.%u %5u.%u\n",
			i, atomic_load(&c->parked) ? "yes" : "no",
			c->stats.switches, ticks_to_us(busy), ticks_to_us(idle),
			in, c->stats.ipi_out, handled, us / 10, us % 10,
			ul / 10, ul % 10);
	}
}

/** Parse a decimal or 0x-hex number; returns false if none. */
static bool parse_num(const char **s, uint64_t *out)
{
	const char *p = *s;
	while (*p == ' ')
		p++;
	unsigned base = 10;
	if (p[0] == '0' && p[1] == 'x') {
		base = 16;
		p += 2;
	}
	uint64_t v = 0;
	const char *start = p;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			break;
		v = v * base + d;
	}
	*s = p;
	*out = v;
	return p != start;
}

static void console_panic(void *arg)
{
	(void)arg;
	panic("requested from the console, run on this core by CALL_FUNC");
}

static void console_command(const char *line)
{
	uint64_t a, b;
	const char *p = line;
	if (!strcmp(line, "help") || !*line) {
		kprintf("commands: cpus | threads | demo | park CPU | wake CPU |\n"
			"          migrate TID CPU | kill TID | panic [CPU] | off\n"
			"(QEMU: Ctrl-A then x quits at any time)\n");
	} else if (!strcmp(line, "cpus")) {
		cmd_cpus();
	} else if (!strcmp(line, "threads")) {
		cmd_threads();
	} else if (!strcmp(line, "demo")) {
		void demo_run(void);
		demo_run();
	} else if (!strncmp(line, "park", 4) && (p += 4, parse_num(&p, &a)) &&
		   cpu_is_online(a)) {
		icc_signal((unsigned)a, IPI_RUN_IDLE);
	} else if (!strncmp(line, "wake", 4) && (p += 4, parse_num(&p, &a)) &&
		   cpu_is_online(a)) {
		icc_signal((unsigned)a, IPI_RE_SCHEDULE);
	} else if (!strncmp(line, "migrate", 7) && (p += 7, parse_num(&p, &a)) &&
		   parse_num(&p, &b)) {
		kprintf("migrate: %d\n", thread_migrate((tid_t)a, (unsigned)b));
	} else if (!strncmp(line, "kill", 4) && (p += 4, parse_num(&p, &a))) {
		kprintf("kill: %d\n", thread_kill((tid_t)a));
	} else if (!strncmp(line, "panic", 5)) {
		p += 5;
		if (parse_num(&p, &a) && cpu_is_online(a))
			icc_call_sync((unsigned)a, console_panic, NULL);
		panic("requested from the console");
	} else if (!strcmp(line, "off")) {
		arch_poweroff();
	} else {
		kprintf("unknown command '%s' (try help)\n", line);
	}
}

void console_run(void)
{
	coninput_monitor();
	console_thread = thread_current();
	arch_console_enable_rx_irq();
	kprintf("Fulcrum console. 'help' lists commands; 'off' or Ctrl-A x quits.\n");
	for (;;) {
		char line[80];
		kprintf("fulcrum> ");
		console_readline(line, sizeof(line));
		console_command(line);
	}
}
