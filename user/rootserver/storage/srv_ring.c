/*
 * The rings between the storage servers (<fulcrum/sring.h>): F and B,
 * B and D. The rootserver makes each ring's page, the server's doorbell
 * endpoint and the client's notification when it starts the server
 * side (D for B's ring, B for F's), and marks a ring dead when it kills
 * its server.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <fulcrum/sring.h>
#include <ful/ful.h>

#include "../root.h"
#include "srv.h"

long root_obj_new(bool frame, unsigned long pages)
{
	long s = ful_slot_alloc();
	if (s < 0)
		return s;
	long err = frame ? ful_frame_create(FUL_SLOT_POOL, (unsigned)s, pages)
			 : ful_ep_create(FUL_SLOT_POOL, (unsigned)s);
	if (err < 0) {
		ful_slot_free((unsigned)s);
		return err;
	}
	return s;
}

long root_sring_make(const char *pair, unsigned *page, unsigned *bell,
		     unsigned *ntfn)
{
	long r = root_obj_new(true, 1), b = root_obj_new(false, 0);
	long f = ful_slot_alloc();
	long err = r < 0 ? r : b < 0 ? b : f < 0 ? f : 0;
	if (!err)
		err = ful_ntfn_create(FUL_SLOT_POOL, (unsigned)f);
	if (err >= 0) {
		*page = (unsigned)r, *bell = (unsigned)b, *ntfn = (unsigned)f;
		return 0;
	}
	printf("rootserver: no ring between %s (%ld)\n", pair, err);
	if (r >= 0)
		ful_slot_drop((unsigned)r);
	if (b >= 0)
		ful_slot_drop((unsigned)b);
	if (f >= 0)
		ful_slot_drop((unsigned)f);
	return err;
}

bool root_server_rings(void)
{
	char v[8] = "1";
	root_bootarg("srv_rings", v, sizeof v);
	return strcmp(v, "0") != 0;
}

/* Where the rootserver maps a server ring's page to mark it dead. */
#define ROOT_RING_VA 0x6e000000UL

long root_ring_dead(unsigned page, unsigned ntfn)
{
	long err = ful_map(FUL_SLOT_SELF_VS, page, ROOT_RING_VA,
			   FUL_R_READ | FUL_R_WRITE);
	if (err < 0)
		return err;
	struct ful_sring_ctl *c = (struct ful_sring_ctl *)ROOT_RING_VA;
	atomic_store_explicit(&c->server_dead, 1, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	ful_ntfn_signal(ntfn, 1); /* its bits persist: no wake-up is lost */
	ful_unmap(FUL_SLOT_SELF_VS, ROOT_RING_VA);
	return 0;
}

