/*
 * The POSIX layer's transport to F, the file server (<ful/posix.h>):
 * a channel (<ful/chan.h>), the process's ring to F (<fulcrum/fs.h>)
 * when it has one, else one IPC call per request with the data in the
 * IPC buffer. A process started by ful_proc_spawn() gets its ring from its
 * parent; a system program asks the rootserver for one at its first
 * request. One request is in flight per process: ful_fs_begin() takes
 * the transport (and the data buffer) until ful_fs_end().
 */
#include <errno.h>

#include <fulcrum/fs.h>
#include <fulcrum/rootsrv.h>
#include <ful/chan.h>
#include <ful/posix.h>

#include "lib.h"
#include "posix_int.h"

/* The channel to F (<ful/chan.h>): the process's ring if it has one
 * (chan.ring.ctl set, F's client ring of <fulcrum/fs.h>, its doorbell a
 * notification), else F's endpoint; used under fs_lock from
 * ful_fs_begin to ful_fs_end. chan.ring.spins: polls of the reply
 * before sleeping (ful_fs_set_spin; 0 by default), counted, not timed
 * (user/lib/sring.c). */
static struct ful_spin fs_lock;
static struct ful_chan chan = {.ring = {.bell_ntfn = true},
			       .ep = FUL_SLOT_FS, .timeout_us = FUL_FOREVER};
static bool ring_tried;
static unsigned char *omf_window; /* the ring's page window, or NULL */
static unsigned long ring_requests;

void ful_fs_set_spin(unsigned polls)
{
	chan.ring.spins = polls;
}

unsigned ful_fs_get_spin(void)
{
	return chan.ring.spins;
}

void ful_fs_ring_stats(unsigned long *requests, unsigned long *signals)
{
	bool ring = ful_chan_ring(&chan);
	*requests = ring ? ring_requests : 0;
	*signals = ring ? chan.ring.ctl->client_signals : 0;
}

void ful_fs_use_ring(void *va, unsigned ntfn, unsigned bell, void *omf)
{
	chan.ring.ctl = va;
	chan.ring.mine = ntfn;
	chan.ring.peer = bell;
	chan.ring.data_size = FUL_FSR_DATA;
	omf_window = omf;
	ring_tried = true;
}

void fs_ring_slots_drop(long s[FS_RING_CAPS])
{
	for (unsigned i = 0; i < FS_RING_CAPS; i++)
		if (s[i] >= 0) {
			ful_cap_delete((unsigned)s[i]);
			ful_slot_free((unsigned)s[i]);
			s[i] = -1;
		}
}

int fs_ring_request(long s[FS_RING_CAPS])
{
	s[0] = s[1] = s[2] = s[3] = -1;
	if (ful_proc_is_child() ||
	    (ful_cap_info(FUL_SYSPROG_SLOT_DONE) & 0xff) != FUL_CAP_ENDPOINT ||
	    (ful_cap_info(FUL_SLOT_FS) & 0xff) != FUL_CAP_ENDPOINT)
		return -1;
	long err = 0;
	for (unsigned i = 0; i < FS_RING_CAPS; i++)
		if ((s[i] = ful_slot_alloc()) < 0)
			err = -FUL_ENOMEM;
	struct ful_msg m = {.info = FUL_MSG(FUL_ROOT_REQ_FS_RING, 0),
			    .mr = {(unsigned long)s[0], (unsigned long)s[1],
				   (unsigned long)s[2], (unsigned long)s[3]}};
	if (!err)
		err = ful_call(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	if (err < 0 || (long)m.mr[0] < 0) {
		fs_ring_slots_drop(s);
		return -1;
	}
	return (int)m.mr[0];
}

void fs_ring_free(int k)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_ROOT_REQ_FS_RING_FREE, 0),
			    .mr = {(unsigned long)k}};
	if (k >= 0)
		ful_call(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
}

/** A system program's ring, from the rootserver (once; IPC if none). */
static void ring_ask(void)
{
	long s[FS_RING_CAPS];
	ring_tried = true;
	int k = fs_ring_request(s);
	if (k < 0)
		return;
	if (ful_map(FUL_SLOT_SELF_VS, (unsigned)s[0], FUL_FSR_CLIENT_VADDR,
		    FUL_R_READ | FUL_R_WRITE) >= 0) {
		bool omf = ful_map(FUL_SLOT_SELF_VS, (unsigned)s[3],
				   FUL_FSR_CLIENT_OMF_VADDR,
				   FUL_R_READ | FUL_R_WRITE) >= 0;
		ful_fs_use_ring((void *)FUL_FSR_CLIENT_VADDR, (unsigned)s[1],
				(unsigned)s[2],
				omf ? (void *)FUL_FSR_CLIENT_OMF_VADDR : NULL);
		return;
	}
	fs_ring_slots_drop(s);
	fs_ring_free(k);
}

unsigned char *ful_fs_begin(size_t *cap)
{
	ful_spin_lock(&fs_lock);
	if (!ring_tried)
		ring_ask();
	return ful_chan_buf(&chan, cap);
}

unsigned char *ful_fs_omf_window(void)
{
	return ful_chan_ring(&chan) ? omf_window : NULL;
}

void ful_fs_end(void)
{
	ful_spin_unlock(&fs_lock);
}

long ful_fs_call(unsigned op, struct ful_msg *m, size_t len)
{
	if (ful_chan_ring(&chan))
		ring_requests++;
	else if ((ful_cap_info(FUL_SLOT_FS) & 0xff) != FUL_CAP_ENDPOINT)
		return -ENOSYS;
	/* F gone, a reply not the request's, or the call failed */
	return ful_chan_call(&chan, op, m, len) < 0 ? -EIO : (long)m->mr[0];
}
