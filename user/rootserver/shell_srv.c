/*
 * The shell's side of the rootserver: start user/shell as a system
 * program holding console input and a capability to the rootserver's
 * service endpoint, then answer its requests (<fulcrum/rootsrv.h>):
 * run the demo again, power off. Policy stays here: the shell asks, the
 * rootserver decides.
 */
#include <stdio.h>

#include <fulcrum/rootsrv.h>
#include <ful/spawn.h>

#include "root.h"

/** Carry out request @label; the reply's MR0. */
static long shell_request(unsigned long label)
{
	switch (label) {
	case FUL_ROOT_REQ_DEMO:
		root_demo();
		return 0;
	case FUL_ROOT_REQ_OFF:
		printf("rootserver: power off, as the shell asked\n");
		ful_shutdown(FUL_SLOT_SCHED);
		return -FUL_ESTATE; /* not reached */
	default:
		return -FUL_ENOSYS;
	}
}

void root_shell_serve(void)
{
	long ep = ful_slot_alloc();
	struct ful_task t;
	long err = ep < 0 ? ep : ful_ep_create(FUL_SLOT_POOL, (unsigned)ep);
	if (!err)
		err = root_sysprog_start("shell", (unsigned)ep, &t);
	if (err) {
		printf("rootserver: cannot start the shell: error %ld\n", err);
		return;
	}
	struct ful_msg m;
	err = ful_recv((unsigned)ep, &m, FUL_FOREVER);
	for (;;) {
		if (err < 0) {
			printf("rootserver: shell endpoint: error %ld\n", err);
			return;
		}
		struct ful_msg r = {.mr = {(unsigned long)shell_request(
					     FUL_MSG_LABEL(m.info))}};
		m = r;
		err = ful_reply_recv((unsigned)ep, &m, FUL_FOREVER);
	}
}
