/*
 * The shell's commands. What they show comes from the load area (mapped
 * read-only at FUL_LOAD_VADDR, <ful/load.h>); what they change goes
 * through a capability the shell holds: FUL_SYS_MIGRATE with the
 * scheduling control, requests to the rootserver's endpoint.
 */
#include <stdio.h>
#include <string.h>

#include <fulcrum/rootsrv.h>
#include <ful/ful.h>
#include <ful/load.h>

#include "shell.h"

static const char *const sh_states[] = {"inactive", "ready", "running",
					"blocked", "migrating", "dead"};

/** Parse a decimal or 0x-hex number after *@s (spaces first); false if
 *  there is none or it is followed by something other than a space. */
static bool sh_num(const char **s, unsigned long *out)
{
	const char *p = *s;
	while (*p == ' ')
		p++;
	unsigned base = 10;
	if (p[0] == '0' && p[1] == 'x')
		base = 16, p += 2;
	unsigned long v = 0;
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
	return p != start && (*p == ' ' || *p == 0);
}

/** One line per core: online, running thread, runnable threads, busy
 *  and idle time, utilization (short and long window). */
static void cmd_cpus(void)
{
	const struct ful_load_page *pg = ful_load_area();
	struct ful_win_par par;
	ful_load_util_par(pg, &par);
	unsigned n = ful_bootinfo()->ncpus, online = ful_load_ncpus(pg);
	printf("  cpu  online running runnable    busy(us)    idle(us) "
	       "util-%%(%lums/%lums)\n", pg->hdr.util_win_ms,
	       pg->hdr.util_win_ms * FUL_UTIL_LONG_WINS);
	for (unsigned i = 0; i < n && i < FUL_LOAD_CPUS; i++) {
		if (i >= online) {
			printf("  cpu%u no\n", i);
			continue;
		}
		struct ful_load_cpu c;
		unsigned long busy, idle;
		unsigned us, ul;
		ful_load_read_cpu(pg, i, &c);
		unsigned long now = ful_counter();
		ful_load_cpu_times(&c, now, &busy, &idle);
		ful_util_cpu(&c, &par, now, &us, &ul);
		printf("  cpu%u %-6s %#7x %8u %11lu %11lu %5u.%u %5u.%u\n", i,
		       "yes", c.running, c.nrunnable, ful_ticks_to_us(busy),
		       ful_ticks_to_us(idle), us / 10, us % 10, ul / 10,
		       ul % 10);
	}
}

/** One line per live thread record of the load area. */
static void cmd_threads(void)
{
	const struct ful_load_page *pg = ful_load_area();
	struct ful_win_par par;
	ful_load_util_par(pg, &par);
	printf("  tid     cpu state     slice nice kernel  runtime(us) "
	       "last-win(us)\n");
	for (unsigned i = 0; i < ful_load_nthreads(pg); i++) {
		struct ful_load_thread t;
		ful_load_read_thread(pg, i, &t);
		if (!t.tid)
			continue;
		unsigned long cur, last;
		ful_util_thread(&t, &par, ful_counter(), &cur, &last);
		printf("  %#-7x %3u %-9s %5u %4d %-6s %12lu %12lu\n", t.tid,
		       t.cpu, t.state < 6 ? sh_states[t.state] : "?",
		       t.slice_ms, t.nice,
		       t.flags & FUL_LT_KERNEL ? "yes" : "no",
		       ful_ticks_to_us(t.runtime), ful_ticks_to_us(last));
	}
}

/** migrate TID CPU: one FUL_SYS_MIGRATE move. */
static void cmd_migrate(const char *args)
{
	unsigned long tid, cpu;
	if (!sh_num(&args, &tid) || !sh_num(&args, &cpu)) {
		printf("usage: migrate TID CPU (TID as threads shows it: 0x...)\n");
		return;
	}
	struct ful_move mv = {.tid = (unsigned)tid, .cpu = (unsigned)cpu};
	long n = ful_migrate(FUL_SLOT_SCHED, &mv, 1);
	if (n < 0)
		printf("migrate: error %ld\n", n);
	else if (mv.result == FUL_MOVE_DONE || mv.result == FUL_MOVE_ALREADY)
		printf("migrate: thread %#x is on cpu %lu%s\n", mv.tid, cpu,
		       mv.result == FUL_MOVE_ALREADY ? " already" : "");
	else
		printf("migrate: thread %#x: error %d\n", mv.tid, mv.result);
}

/** kill TID: FUL_SYS_SCHED_KILL with the scheduling control. */
static void cmd_kill(const char *args)
{
	unsigned long tid;
	if (!sh_num(&args, &tid)) {
		printf("usage: kill TID (TID as threads shows it: 0x...)\n");
		return;
	}
	long r = ful_sched_kill(FUL_SLOT_SCHED, (unsigned)tid);
	if (r == 0)
		printf("kill: thread %#lx killed\n", tid);
	else if (r == -FUL_ENOTHREAD)
		printf("kill: no thread %#lx\n", tid);
	else if (r == -FUL_ESTATE)
		printf("kill: thread %#lx is a kernel thread\n", tid);
	else if (r == -FUL_EINVAL)
		printf("kill: that is the shell itself (use off)\n");
	else
		printf("kill: error %ld\n", r);
}

static void cmd_help(void)
{
	printf("commands: help | cpus | threads | migrate TID CPU | kill TID |\n"
	       "          policy [NAME] | set NAME VALUE | get | ls [PATH] |\n"
	       "          cat PATH | df | run [-c CORE] PROG ARGS... |\n"
	       "          place F|B|D CORE | top [-n N] | ps |\n"
	       "          trace on [MASK]|off|dump | explain [TID] | demo | off\n"
	       "(the kernel's debug monitor: boot with kdebug; QEMU: Ctrl-A then x quits)\n");
}

/** A request to the rootserver, with its outcome. */
static void cmd_root(const char *name, unsigned long label)
{
	long r = sh_root_call(label);
	if (r)
		printf("%s: error %ld\n", name, r);
}

void sh_command(const char *line)
{
	while (*line == ' ')
		line++;
	if (!*line)
		return;
	if (!strcmp(line, "help"))
		cmd_help();
	else if (!strcmp(line, "cpus"))
		cmd_cpus();
	else if (!strcmp(line, "threads"))
		cmd_threads();
	else if (!strncmp(line, "migrate", 7) && (!line[7] || line[7] == ' '))
		cmd_migrate(line + 7);
	else if (!strncmp(line, "kill", 4) && (!line[4] || line[4] == ' '))
		cmd_kill(line + 4);
	else if (!strncmp(line, "policy", 6) && (!line[6] || line[6] == ' '))
		sh_policy(line + 6);
	else if (!strncmp(line, "set", 3) && (!line[3] || line[3] == ' '))
		sh_set(line + 3);
	else if (!strcmp(line, "get"))
		sh_get();
	else if (!strncmp(line, "ls", 2) && (!line[2] || line[2] == ' '))
		sh_ls(line + 2);
	else if (!strncmp(line, "cat", 3) && (!line[3] || line[3] == ' '))
		sh_cat(line + 3);
	else if (!strcmp(line, "df"))
		sh_df();
	else if (!strncmp(line, "run", 3) && (!line[3] || line[3] == ' '))
		sh_run(line + 3);
	else if (!strncmp(line, "place", 5) && (!line[5] || line[5] == ' '))
		sh_place(line + 5);
	else if (!strncmp(line, "top", 3) && (!line[3] || line[3] == ' '))
		sh_top(line + 3);
	else if (!strcmp(line, "ps"))
		sh_ps();
	else if (!strncmp(line, "trace", 5) && (!line[5] || line[5] == ' '))
		sh_trace(line + 5);
	else if (!strncmp(line, "explain", 7) && (!line[7] || line[7] == ' '))
		sh_explain(line + 7);
	else if (!strcmp(line, "demo"))
		cmd_root("demo", FUL_ROOT_REQ_DEMO);
	else if (!strcmp(line, "off"))
		cmd_root("off", FUL_ROOT_REQ_OFF);
	else
		printf("unknown command '%s' (try help)\n", line);
}
