/* Rootserver internals shared by its files. */
#ifndef ROOT_ROOT_H
#define ROOT_ROOT_H

#include <stdbool.h>
#include <stddef.h>

/* The bound of the rootserver's own waits (a child that does not end,
 * a thread that does not land): generous, as under multi-threaded TCG
 * 8 vCPUs share 2 host cores. It only turns a hang into a message. */
#define ROOT_TIMEOUT_US 20000000UL

bool root_bootarg(const char *key, char *out, size_t n);
/** The demo: hello, as its own task, on every core. */
void root_demo(void);
/** The balancer demo: paper 000's Table I, live (4 cores). 0, or 1 if a
 *  step failed. */
int root_demo_balancer(void);
/** Run the system's balancer with policy @name (boot argument
 *  lb_policy=): DEMO-OK lb-policy-<name>, or DEMO-FAIL with why. */
void root_balancer_start(const char *name);
/** Start system program @name (tests/user/tests, user/bench) on core 0 with the
 *  capabilities it needs (sysprog.c), wait until it says done or dies.
 *  0 if it said done, else -FUL_E*. */
long root_sysprog_run(const char *name);

struct ful_task;
struct ful_msg;
/** Start system program @name with a badged copy of the service
 *  endpoint in its FUL_SYSPROG_SLOT_DONE, without waiting: 0 or
 *  -FUL_E*. */
long root_sysprog_start(const char *name, struct ful_task *t);
/** Create the service endpoint (<fulcrum/rootsrv.h>) in
 *  FUL_SLOT_BALANCER: 0 or -FUL_E*. */
long root_serve_init(void);
/** Answer requests on the service endpoint; with @until_done, return 0
 *  at a system program's "done". Else returns only on an error. */
long root_serve(bool until_done);
/** Start the shell (user/shell) and serve requests for ever. Returns
 *  only if it cannot start or the endpoint fails. */
void root_shell_serve(void);

/** The system program running now (sysprog.c): its vspace, or 0. */
unsigned root_prog_vs(void);

/** Power the machine off, the disk synced first (root_storage_sync):
 *  every shut-down path (main.c). */
void root_power_off(void);

#endif
