/*
 * The POSIX layer's transport to F, the file server (<ful/posix.h>):
 * the shared-memory ring of <fulcrum/fs.h> when the process
 * has one, else one IPC call per request with the data in the IPC
 * buffer. A process started by ful_proc_spawn() gets its ring from its
 * parent; a system program asks the rootserver for one at its first
 * request. One request is in flight per process: ful_fs_begin() takes
 * the transport (and the data buffer) until ful_fs_end().
 */
#include <errno.h>
#include <stdatomic.h>

#include <fulcrum/fs.h>
#include <fulcrum/sring.h>
#include <fulcrum/rootsrv.h>
#include <ful/posix.h>

#include "lib.h"
#include "posix_int.h"

/* Polls of the reply before sleeping (ful_fs_set_spin; 0 by default):
 * counted, not timed (a vCPU the host descheduled would find a time
 * budget spent on return); every FSR_CLIENT_YIELD polls the core goes
 * to any other ready thread of the same priority. */
#define FSR_CLIENT_YIELD 64
static unsigned client_spins;

void ful_fs_set_spin(unsigned polls)
{
	client_spins = polls;
}

unsigned ful_fs_get_spin(void)
{
	return client_spins;
}

static struct ful_spin fs_lock;
static struct ful_sring_ctl *ctl; /* the ring, or NULL: IPC */
static unsigned ntfn_slot, bell_slot;
static bool ring_tried;
static unsigned char *omf_window; /* the ring's page window, or NULL */
static unsigned long ring_requests;

void ful_fs_ring_stats(unsigned long *requests, unsigned long *signals)
{
	*requests = ctl ? ring_requests : 0;
	*signals = ctl ? ctl->client_signals : 0;
}

void ful_fs_use_ring(void *va, unsigned ntfn, unsigned bell, void *omf)
{
	ctl = va;
	omf_window = omf;
	ntfn_slot = ntfn;
	bell_slot = bell;
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
	*cap = ctl ? FUL_FSR_DATA : FUL_IPCBUF_SIZE;
	return ctl ? (unsigned char *)ctl + 4096 : ful_ipcbuf();
}

unsigned char *ful_fs_omf_window(void)
{
	return ctl ? omf_window : NULL;
}

void ful_fs_end(void)
{
	ful_spin_unlock(&fs_lock);
}

/** Post request @op on the ring; wake F only if it said it sleeps. */
static unsigned ring_post(unsigned op, const struct ful_msg *m, size_t len)
{
	unsigned head = atomic_load_explicit(&ctl->req_head, memory_order_relaxed);
	struct ful_sring_req *r = &ctl->req[head % FUL_SRING_SLOTS];
	*r = (struct ful_sring_req){.op = op, .len = (unsigned)len,
				    .a = {m->mr[0], m->mr[1], m->mr[2]},
				    .data_off = 0, .id = head};
	atomic_store_explicit(&ctl->req_head, head + 1, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&ctl->server_sleeping)) {
		ctl->client_signals++;
		ful_ntfn_signal(bell_slot, FUL_SRING_BELL_REQUEST);
	}
	return head;
}

/** Is a reply waiting? */
static bool ring_replied(void)
{
	return atomic_load_explicit(&ctl->rep_head, memory_order_acquire) !=
	       atomic_load_explicit(&ctl->rep_tail, memory_order_relaxed);
}

static bool ring_dead(void)
{
	return atomic_load_explicit(&ctl->server_dead, memory_order_acquire);
}

/** Wait for the reply: poll a little, then say "sleeping" and wait;
 *  false if F is gone meanwhile. */
static bool ring_wait(void)
{
	for (unsigned i = 1; i <= client_spins && !ring_replied(); i++)
		if (i % FSR_CLIENT_YIELD == 0)
			ful_yield();
	while (!ring_replied()) {
		if (ring_dead())
			return false;
		atomic_store(&ctl->client_sleeping, 1);
		atomic_thread_fence(memory_order_seq_cst);
		if (!ring_replied() && !ring_dead())
			ful_ntfn_wait(ntfn_slot, NULL, FUL_FOREVER);
		atomic_store(&ctl->client_sleeping, 0);
	}
	return true;
}

/** A request through the ring: mr0, the reply in *@m. */
static long ring_call(unsigned op, struct ful_msg *m, size_t len)
{
	if (ring_dead())
		return -EIO;
	unsigned id = ring_post(op, m, len);
	ring_requests++;
	if (!ring_wait())
		return -EIO; /* F is gone: the request may or may not have run */
	unsigned tail = atomic_load_explicit(&ctl->rep_tail, memory_order_relaxed);
	const struct ful_sring_rep *p = &ctl->rep[tail % FUL_SRING_SLOTS];
	long r = p->id == id ? p->r[0] : -EIO;
	for (unsigned i = 0; i < 4; i++)
		m->mr[i] = (unsigned long)p->r[i];
	m->info = FUL_MSG(op, p->len);
	atomic_store_explicit(&ctl->rep_tail, tail + 1, memory_order_release);
	return r;
}

long ful_fs_call(unsigned op, struct ful_msg *m, size_t len)
{
	if (ctl)
		return ring_call(op, m, len);
	if ((ful_cap_info(FUL_SLOT_FS) & 0xff) != FUL_CAP_ENDPOINT)
		return -ENOSYS;
	m->info = FUL_MSG(op, len);
	long err = ful_call(FUL_SLOT_FS, m, FUL_FOREVER);
	return err < 0 ? -EIO : (long)m->mr[0];
}
