/*
 * The shell's `run [-c CORE] PROG ARGS...`: start boot module PROG as a
 * process with those arguments (<ful/posix.h>; the shell's working
 * directory and F go with it), wait for its end, say how it ended.
 * Which modules the shell may start: its peers in the rootserver's
 * table of system programs (user/rootserver/sysprog.c).
 * And `place F|B|D CORE`: the rootserver moves that server's threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <fulcrum/rootsrv.h>
#include <ful/posix.h>

#include "shell.h"

#define RUN_MAX_ARGS 16

/** Split @args (a copy, in @buf) at blanks into @argv: the count. */
static int run_split(const char *args, char *buf, size_t size, char **argv)
{
	int argc = 0;
	strncpy(buf, args, size - 1);
	buf[size - 1] = 0;
	for (char *p = strtok(buf, " "); p && argc < RUN_MAX_ARGS;
	     p = strtok(NULL, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	return argc;
}

void sh_run(const char *args)
{
	static char buf[256];
	char *argv[RUN_MAX_ARGS + 1];
	int argc = run_split(args, buf, sizeof buf, argv);
	struct ful_proc_attr a = {.cpu = 0, .pool_kib = FUL_PROC_POOL_KIB};
	char **av = argv;
	if (argc >= 2 && !strcmp(argv[0], "-c")) {
		a.cpu = (unsigned)strtoul(argv[1], NULL, 0);
		av += 2, argc -= 2;
	}
	if (argc < 1) {
		printf("run: which program? (run [-c CORE] PROG ARGS...)\n");
		return;
	}
	struct ful_proc p;
	int err = ful_proc_spawn(av[0], av, &a, &p);
	if (err < 0) {
		printf("run: %s: cannot start (error %d)\n", av[0], err);
		return;
	}
	int st;
	if (ful_proc_wait(&p, &st, FUL_FOREVER) < 0)
		printf("run: %s: lost\n", av[0]);
	else if (WIFEXITED(st))
		printf("run: %s exited with status %d\n", av[0], WEXITSTATUS(st));
	else
		printf("run: %s killed by signal %d\n", av[0], WTERMSIG(st));
}

/** place F|B|D CORE: move a server's threads (the rootserver does it). */
void sh_place(const char *args)
{
	char who = 0;
	unsigned cpu = 0;
	while (*args == ' ')
		args++;
	if (*args == 'F' || *args == 'B' || *args == 'D')
		who = *args++;
	char *end;
	cpu = (unsigned)strtoul(args, &end, 0);
	if (!who || end == args) {
		printf("usage: place F|B|D CORE\n");
		return;
	}
	struct ful_msg m = {.info = FUL_MSG(FUL_ROOT_REQ_PLACE, 0),
			    .mr = {(unsigned long)who, cpu}};
	long err = ful_call(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	if (err < 0 || (long)m.mr[0] < 0)
		printf("place: %c on core %u: error %ld\n", who, cpu,
		       err < 0 ? err : (long)m.mr[0]);
	else
		printf("place: %c on core %u\n", who, cpu);
}
