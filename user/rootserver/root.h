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

/** Start D, the disk driver server (disk.c, boot argument `disk`), with
 *  a window of @cache_pages for B (0: none), and wait until it serves a
 *  disk: 0 or -FUL_E* (then there is none). */
long root_disk_start(unsigned long cache_pages);
/** D's endpoint (ALL) and the client window, if D runs. */
bool root_disk_client(unsigned *ep, unsigned *win);
/** D's endpoint and B's window (badge 2), if D runs with one. */
bool root_disk_cache_window(unsigned *ep, unsigned *win);
/** B's ring to D (<fulcrum/sring.h>): its page, D's doorbell, B's
 *  notification (all ALL); false if D serves no ring. */
bool root_disk_ring(unsigned *page, unsigned *bell, unsigned *bntfn);
/** Start B, the block cache server (cache.c, boot argument cache=N),
 *  over D's window 2: 0 or -FUL_E*. */
long root_cache_start(unsigned long blocks);
/** A new endpoint (@frame false) or frame of @pages in a fresh slot of
 *  the rootserver: the slot, or -FUL_E* (then no slot is taken). */
long root_obj_new(bool frame, unsigned long pages);
/** B's endpoint (ALL) and its client window, if B runs. */
bool root_cache_client(unsigned *ep, unsigned *win);
/** Rings between the servers, unless boot argument srv_rings=0 (then F,
 *  B and D talk over IPC: the comparison, and the old path tested). */
bool root_server_rings(void);
/** F's ring to B (<fulcrum/sring.h>): its page, B's doorbell, F's
 *  notification (all ALL); false if B serves no ring. */
bool root_cache_ring(unsigned *page, unsigned *bell, unsigned *fntfn);
/* The OS servers of paper 002 (form.c). */
enum root_server { ROOT_F, ROOT_B, ROOT_D };
/** The core @s starts on: the boot argument form=N (paper 002 Table I),
 *  or f_cpu= / b_cpu= / d_cpu=, else 0; a core that is not online is
 *  reported and replaced by 0. */
unsigned root_server_cpu(enum root_server s);
/** Record thread @tid as one of server @s's (place.c). */
void root_server_thread(enum root_server s, long tid);
/** Move every thread of server @server ('F', 'B' or 'D') to @cpu: 0 or
 *  -FUL_E* (FUL_ROOT_REQ_PLACE). */
long root_place(char server, unsigned cpu);
/** Move F, B and D to the cores of distribution form @f (1..15, paper
 *  002 Table I; form.c): 0 or -FUL_E* (FUL_ROOT_REQ_FORM). */
long root_place_form(unsigned long f);
/** Start F, the file server (fs.c, boot argument `fs`), over B's client
 *  window, and wait until it has mounted the disk: 0 or -FUL_E*. */
long root_fs_start(void);
/** F's endpoint (ALL), if F runs (then B's client is F's). */
bool root_fs_client(unsigned *ep);
/** F's vspace and doorbell (for its rings, fsring.c): false if no F. */
bool root_fs_task(unsigned *vs, unsigned *bell);
/** The system program running now (sysprog.c): its vspace, or 0. */
unsigned root_prog_vs(void);
/** FUL_ROOT_REQ_FS_RING / _FREE for the program with vspace @vs
 *  (fsring.c): the reply's mr0. */
long root_fs_ring(unsigned vs, const struct ful_msg *m);
long root_fs_ring_free(const struct ful_msg *m);
/** Kill F's server thread (a crash, for the tests: FUL_ROOT_REQ_FS_KILL);
 *  its ring thread closes the rings, a tombstone thread answers EIO on
 *  F's endpoint. 0 or -FUL_E*. */
long root_fs_kill(void);
/** FUL_ROOT_REQ_FS_KILL: F's server thread (@which 0 or 'F'), or every
 *  thread of B or D ('B', 'D') with the ring of its client marked dead
 *  and the client woken. 0 or -FUL_E*. */
long root_server_kill(char which);
/** Kill B's, D's threads (cache.c, disk.c); 0 or -FUL_E*. */
long root_cache_kill(void);
long root_disk_kill(void);
/** A server ring (<fulcrum/sring.h>, "between @pair" in the message if
 *  it fails): its page, the server's doorbell endpoint and the client's
 *  notification, each in a new slot (ALL). 0, or -FUL_E* with nothing
 *  kept (cache.c). */
long root_sring_make(const char *pair, unsigned *page, unsigned *bell,
		     unsigned *ntfn);
/** Mark the server ring in frame @page dead and wake its client's
 *  notification @ntfn (cache.c). 0 or -FUL_E*. */
long root_ring_dead(unsigned page, unsigned ntfn);
/** Flush F's and B's state to the disk, if they run (fs.c). */
void root_storage_sync(void);
/** Power the machine off, the disk synced first: every shut-down path. */
void root_power_off(void);

#endif
