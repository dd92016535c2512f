/*
 * The rootserver's half of the storage servers (paper 002's D, B and F;
 * docs/storage.md): starting each with its capabilities and rings
 * (srv_disk.c, srv_cache.c, srv_fs.c), the rings between the servers
 * (srv_ring.c) and F's client rings (srv_fs_ring.c), where the servers
 * run (srv_form.c, srv_place.c), killing one, and the sync before the
 * power goes. The protocols are <fulcrum/disk.h>, <fulcrum/cache.h>,
 * <fulcrum/fs.h> and <fulcrum/sring.h>. All of it runs on the
 * rootserver's one thread: no locks.
 */
#ifndef ROOT_STORAGE_SRV_H
#define ROOT_STORAGE_SRV_H

#include <stdbool.h>

struct ful_msg;

/* The OS servers of paper 002. */
enum root_server { ROOT_F, ROOT_B, ROOT_D };

/* srv_disk.c */
/** Start D, the disk driver server (boot argument `disk`), with a
 *  window of @cache_pages for B (0: none), and wait until it serves a
 *  disk: 0 or -FUL_E* (then there is none). */
long root_disk_start(unsigned long cache_pages);
/** D's endpoint (ALL) and the client window, if D runs. */
bool root_disk_client(unsigned *ep, unsigned *win);
/** D's endpoint and B's window (badge 2), if D runs with one. */
bool root_disk_cache_window(unsigned *ep, unsigned *win);
/** B's ring to D (<fulcrum/sring.h>): its page, D's doorbell, B's
 *  notification (all ALL); false if D serves no ring. */
bool root_disk_ring(unsigned *page, unsigned *bell, unsigned *bntfn);
/** Kill D's threads: 0 or -FUL_E*. */
long root_disk_kill(void);

/* srv_cache.c */
/** Start B, the block cache server (boot argument cache=N), over D's
 *  window 2: 0 or -FUL_E*. */
long root_cache_start(unsigned long blocks);
/** B's endpoint (ALL) and its client window, if B runs. */
bool root_cache_client(unsigned *ep, unsigned *win);
/** F's ring to B (<fulcrum/sring.h>): its page, B's doorbell, F's
 *  notification (all ALL); false if B serves no ring. */
bool root_cache_ring(unsigned *page, unsigned *bell, unsigned *fntfn);
/** Kill B's threads: 0 or -FUL_E*. */
long root_cache_kill(void);

/* srv_fs.c */
/** Start F, the file server (boot argument `fs`), over B's client
 *  window, and wait until it has mounted the disk: 0 or -FUL_E*. */
long root_fs_start(void);
/** F's endpoint (ALL), if F runs (then B's client is F's). */
bool root_fs_client(unsigned *ep);
/** F's vspace and doorbell (for its client rings): false if no F. */
bool root_fs_task(unsigned *vs, unsigned *bell);
/** Kill F's server thread (a crash, for the tests: FUL_ROOT_REQ_FS_KILL);
 *  its ring thread closes the rings, a tombstone thread answers EIO on
 *  F's endpoint. 0 or -FUL_E*. */
long root_fs_kill(void);
/** FUL_ROOT_REQ_FS_KILL: F's server thread (@which 0 or 'F'), or every
 *  thread of B or D ('B', 'D') with the ring of its client marked dead
 *  and the client woken. 0 or -FUL_E*. */
long root_server_kill(char which);
/** Flush F's and B's state to the disk, if they run. */
void root_storage_sync(void);

/* srv_fs_ring.c */
/** FUL_ROOT_REQ_FS_RING / _FREE for the program with vspace @vs: the
 *  reply's mr0. */
long root_fs_ring(unsigned vs, const struct ful_msg *m);
long root_fs_ring_free(const struct ful_msg *m);

/* srv_ring.c */
/** A new endpoint (@frame false) or frame of @pages in a fresh slot of
 *  the rootserver: the slot, or -FUL_E* (then no slot is taken). */
long root_obj_new(bool frame, unsigned long pages);
/** Rings between the servers, unless boot argument srv_rings=0 (then F,
 *  B and D talk over IPC: the comparison, and the IPC path tested). */
bool root_server_rings(void);
/** A server ring ("between @pair" in the message if it fails): its
 *  page, the server's doorbell endpoint and the client's notification,
 *  each in a new slot (ALL). 0, or -FUL_E* with nothing kept. */
long root_sring_make(const char *pair, unsigned *page, unsigned *bell,
		     unsigned *ntfn);
/** Mark the server ring in frame @page dead and wake its client's
 *  notification @ntfn. 0 or -FUL_E*. */
long root_ring_dead(unsigned page, unsigned ntfn);

/* srv_form.c, srv_place.c */
/** The core @s starts on: the boot argument form=N (paper 002 Table I),
 *  or f_cpu= / b_cpu= / d_cpu=, else 0; a core that is not online is
 *  reported and replaced by 0. */
unsigned root_server_cpu(enum root_server s);
/** Record thread @tid as one of server @s's. */
void root_server_thread(enum root_server s, long tid);
/** Move every thread of server @server ('F', 'B' or 'D') to @cpu: 0 or
 *  -FUL_E* (FUL_ROOT_REQ_PLACE). */
long root_place(char server, unsigned cpu);
/** Move F, B and D to the cores of distribution form @f (1..15, paper
 *  002 Table I): 0 or -FUL_E* (FUL_ROOT_REQ_FORM). */
long root_place_form(unsigned long f);

#endif
