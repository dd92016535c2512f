/*
 * The rootserver's service endpoint (<fulcrum/rootsrv.h>), in its slot
 * FUL_SLOT_BALANCER: system programs report "done" on it, the shell asks
 * for the demo and the power-off, holders of the balancer capability
 * read and change the balancer (<fulcrum/balctl.h>, balctl.c). What a
 * caller may ask is in the badge of the copy it was given: the
 * rootserver decides, the programs ask.
 */
#include <stdio.h>

#include <fulcrum/balctl.h>
#include <fulcrum/rootsrv.h>
#include <ful/spawn.h>

#include "../balancer/balancer.h"
#include "root.h"
#include "storage/srv.h"

long root_serve_init(void)
{
	return ful_ep_create(FUL_SLOT_POOL, FUL_SLOT_BALANCER);
}

/** A shell request @label; the reply's MR0. */
static long shell_request(unsigned long label)
{
	switch (label) {
	case FUL_ROOT_REQ_DEMO:
		/* The demo replays fixed decisions: no timer rounds. */
		bal_stop();
		root_demo();
		return bal_start();
	case FUL_ROOT_REQ_OFF:
		printf("rootserver: power off, as the shell asked\n");
		root_power_off();
		return -FUL_ESTATE; /* not reached */
	default:
		return -FUL_ENOSYS;
	}
}

/** Answer request @m into @r as its badge allows. */
static void root_request(const struct ful_msg *m, struct ful_msg *r)
{
	unsigned long label = FUL_MSG_LABEL(m->info);
	bool bal = label >= FUL_BAL_GET && label <= FUL_BAL_LAST;
	bool prog = m->badge == FUL_ROOT_BADGE_SHELL ||
		    m->badge == FUL_ROOT_BADGE_PROG;
	*r = (struct ful_msg){.mr = {(unsigned long)-FUL_ENOSYS}};
	if (bal)
		bal_ctl_request(m, r);
	else if (label == FUL_ROOT_REQ_FS_RING && prog)
		r->mr[0] = (unsigned long)root_fs_ring(root_prog_vs(), m);
	else if (label == FUL_ROOT_REQ_FS_RING_FREE && prog)
		r->mr[0] = (unsigned long)root_fs_ring_free(m);
	else if (label == FUL_ROOT_REQ_PLACE && prog)
		r->mr[0] = (unsigned long)root_place((char)m->mr[0],
						     (unsigned)m->mr[1]);
	else if (label == FUL_ROOT_REQ_FS_KILL && prog)
		r->mr[0] = (unsigned long)root_server_kill((char)m->mr[0]);
	else if (label == FUL_ROOT_REQ_FORM && prog)
		r->mr[0] = (unsigned long)root_place_form(m->mr[0]);
	else if (m->badge == FUL_ROOT_BADGE_SHELL)
		r->mr[0] = (unsigned long)shell_request(label);
}

long root_serve(bool until_done)
{
	struct ful_msg m;
	long err = ful_recv(FUL_SLOT_BALANCER, &m, FUL_FOREVER);
	for (;;) {
		if (err < 0)
			return err;
		bool prog = m.badge == FUL_ROOT_BADGE_PROG ||
			    m.badge == FUL_ROOT_BADGE_SHELL;
		if (prog && FUL_MSG_LABEL(m.info) == FUL_ROOT_REQ_DONE) {
			if (until_done)
				return 0;
			err = ful_recv(FUL_SLOT_BALANCER, &m, FUL_FOREVER);
			continue;
		}
		struct ful_msg r;
		root_request(&m, &r);
		m = r;
		err = ful_reply_recv(FUL_SLOT_BALANCER, &m, FUL_FOREVER);
	}
}

void root_shell_serve(void)
{
	struct ful_task t;
	long err = root_sysprog_start("shell", &t);
	if (err) {
		printf("rootserver: cannot start the shell: error %ld\n", err);
		return;
	}
	err = root_serve(false);
	printf("rootserver: service endpoint: error %ld\n", err);
}
