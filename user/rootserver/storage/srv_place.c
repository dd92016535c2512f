/*
 * Where D, B and F run, at run time (issue 13 item 8; the shell's
 * `place F 2`): a server's move is the migration of each of its threads
 * (FUL_SYS_MIGRATE by thread id, as the balancer moves threads). The
 * rootserver knows a server's first thread from the spawn and its other
 * threads from the server's READY message (F: its ring thread, D: its
 * request thread). The interrupt of D follows its interrupt thread (the
 * kernel moves the SPI's target with it).
 */
#include <stdio.h>

#include <fulcrum/load.h>
#include <ful/ful.h>

#include "../root.h"
#include "srv.h"

#define PLACE_MAX_THREADS 3

static struct {
	unsigned tid[PLACE_MAX_THREADS];
	unsigned n;
} servers[3];

static const char names[] = "FBD";

void root_server_thread(enum root_server s, long tid)
{
	if (tid > 0 && servers[s].n < PLACE_MAX_THREADS)
		servers[s].tid[servers[s].n++] = (unsigned)tid;
}

long root_place(char server, unsigned cpu)
{
	unsigned s;
	for (s = 0; s < 3 && names[s] != server; s++)
		;
	if (s == 3 || !servers[s].n)
		return -FUL_EINVAL;
	if (cpu >= ful_bootinfo()->ncpus)
		return -FUL_EINVAL;
	struct ful_move mv[PLACE_MAX_THREADS];
	for (unsigned i = 0; i < servers[s].n; i++)
		mv[i] = (struct ful_move){.tid = servers[s].tid[i], .cpu = cpu};
	long done = ful_migrate(FUL_SLOT_SCHED, mv, servers[s].n);
	for (unsigned i = 0; done >= 0 && i < servers[s].n; i++)
		if (mv[i].result < 0)
			return mv[i].result;
	if (done >= 0)
		printf("rootserver: %c moved to core %u (%ld threads)\n", server,
		       cpu, done);
	return done < 0 ? done : 0;
}
