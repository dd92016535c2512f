/*
 * The shell's `run [-c CORE] PROG ARGS...`: start boot module PROG as a
 * process with those arguments (<ful/posix.h>; the shell's working
 * directory and F go with it), wait for its end, say how it ended.
 * Which modules the shell may start: its peers in the rootserver's
 * table of system programs (user/rootserver/sysprog.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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
	struct ful_proc_attr a = {.cpu = 0};
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
