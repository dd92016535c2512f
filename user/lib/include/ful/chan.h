/*
 * A channel to a server: its ring (<ful/sring.h>) if it has one, else
 * its IPC endpoint. Each hop of the storage path (a client to F, F to
 * B, B to D) is one ful_chan_call, whichever way it goes: the request
 * and its reply travel in a struct ful_msg (label, mr0..mr3, the data's
 * length) both ways, and the data in the channel's buffer (the ring's
 * data area, or the IPC buffer). One client thread at a time uses a
 * channel (the caller serializes, as for its ring).
 */
#ifndef FUL_CHAN_H
#define FUL_CHAN_H

#include <stdbool.h>
#include <stddef.h>

#include <ful/ful.h>
#include <ful/sring.h>

struct ful_chan {
	struct ful_sring ring;    /* ring.ctl set: requests go through it */
	unsigned ep;              /* else: the server's endpoint (WRITE) */
	unsigned long timeout_us; /* of each IPC call (FUL_FOREVER) */
};

/** Does @ch go through a ring? */
static inline bool ful_chan_ring(const struct ful_chan *ch)
{
	return ch->ring.ctl != NULL;
}

/** The channel's data buffer, its size in *@cap: the ring's data area,
 *  or this thread's IPC buffer. */
static inline unsigned char *ful_chan_buf(struct ful_chan *ch, size_t *cap)
{
	if (ful_chan_ring(ch)) {
		*cap = ch->ring.data_size;
		return ful_sring_data(&ch->ring);
	}
	*cap = FUL_IPCBUF_SIZE;
	return ful_ipcbuf();
}

/** Request @op with m->mr[0..3] and the buffer's first @len bytes; the
 *  reply's words in m->mr, and FUL_MSG(label, its bytes in the buffer)
 *  in m->info. 0, or -FUL_E* if the server was not reached or its reply
 *  was lost (EDEAD: the server is gone, and the request may or may not
 *  have run; ESTATE: a broken ring, or posted requests not collected;
 *  an IPC call's error). Inline: the ring's request path is. */
static inline __attribute__((always_inline)) int
ful_chan_call(struct ful_chan *ch, unsigned op, struct ful_msg *m, size_t len)
{
	if (ful_chan_ring(ch))
		return ful_sring_call(&ch->ring, op, m, len);
	m->info = FUL_MSG(op, len);
	long err = ful_call(ch->ep, m, ch->timeout_us);
	return err < 0 ? (int)err : 0;
}

#endif
