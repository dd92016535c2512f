/*
 * IPC operations on the arena's endpoints and notifications, shared by
 * workers and victims: send, call, receive, reply, reply-and-receive,
 * saved replies; signal, wait, poll. Every blocking call has a short
 * timeout. Endpoints come from the EP zone, sometimes from the MISC
 * zone (anything may be there), and may be deleted or replaced by
 * another thread while this one waits on them.
 *
 * The fuzzer's messages carry a label of its own (FZ_L_*), a nonce in
 * mr0, the sender in mr1, the length in mr2, a checksum of the label
 * and the three in mr3, and a pattern of the nonce in the buffer bytes.
 * Every receiver checks every such message it gets: the checksum, the
 * length, the bytes, that a request never arrives as a reply and the
 * reverse, and that a reply answers the request it was sent for.
 */
#include <stdio.h>
#include <string.h>

#include "fz.h"

static unsigned long fz_sum(unsigned long label, unsigned long mr0,
			    unsigned long mr1, unsigned long mr2)
{
	unsigned long h = label * 0x100000001b3UL ^ mr0;
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9UL ^ mr1;
	h = (h ^ (h >> 31)) * 0x94d049bb133111ebUL ^ mr2;
	return h ^ (h >> 33);
}

static unsigned char fz_pat(unsigned long mr0, unsigned i)
{
	return (unsigned char)((mr0 >> ((i & 7) * 8)) ^ (i * 0x9du));
}

static bool fz_label_ours(unsigned long label)
{
	return label >= FZ_L_SEND && label <= FZ_L_ANON;
}

/** Fill a[1..5] and the IPC buffer with a message @label / @mr0. */
static void fz_msg_make(struct fz_ctx *c, unsigned label, unsigned long mr0,
			unsigned long a[7])
{
	unsigned len = fz_below(&c->rng, 4)
			   ? fz_below(&c->rng, 33)
			   : fz_below(&c->rng, FUL_IPCBUF_SIZE + 1);
	unsigned char *buf = ful_ipcbuf();
	for (unsigned i = 0; i < len; i++)
		buf[i] = fz_pat(mr0, i);
	a[1] = FUL_MSG(label, len);
	a[2] = mr0;
	a[3] = c->id;
	a[4] = len;
	a[5] = fz_sum(label, mr0, c->id, len);
}

/** The reply a thread sends: checked against the request only when it
 *  knows it answers one of the fuzzer's calls (not after a raw call,
 *  which may have received something else meanwhile). */
static void fz_reply_make(struct fz_ctx *c, unsigned long a[7])
{
	if (c->reply == FZ_R_PENDING)
		fz_msg_make(c, FZ_L_REPLY, c->last_mr0 ^ FZ_REPLY_XOR, a);
	else
		fz_msg_make(c, FZ_L_ANON, fz_next(&c->rng), a);
}

/** Is the message in @r (x2..x6, the IPC buffer) intact? */
static bool fz_msg_intact(struct ful_ret r)
{
	unsigned long label = FUL_MSG_LABEL(r.x6), len = FUL_MSG_LEN(r.x6);
	const unsigned char *buf = ful_ipcbuf();
	if (len > FUL_IPCBUF_SIZE || r.x4 != len ||
	    r.x5 != fz_sum(label, r.x2, r.x3, r.x4))
		return false;
	for (unsigned i = 0; i < len; i++)
		if (buf[i] != fz_pat(r.x2, i))
			return false;
	return true;
}

/**
 * Check a message received by call @nr with @a (x1..x6 of @r). @req is
 * the nonce of this thread's request if @nr was a call. Records what
 * the thread now holds (c->reply, c->last_mr0).
 */
static void fz_msg_check(struct fz_ctx *c, unsigned long nr,
			 const unsigned long a[7], struct ful_ret r,
			 unsigned long req)
{
	unsigned long label = FUL_MSG_LABEL(r.x6);
	bool call = nr == FUL_SYS_CALL;
	if (!call) {
		c->last_mr0 = r.x2;
		c->reply = label == FZ_L_CALL	? FZ_R_PENDING
			   : label == FZ_L_SEND ? FZ_R_NONE
						: FZ_R_UNKNOWN;
	}
	if (!fz_label_ours(label))
		return;
	const char *bad = NULL;
	bool is_reply = label == FZ_L_REPLY || label == FZ_L_ANON;
	if (FUL_MSG_LEN(r.x6) > FUL_IPCBUF_SIZE)
		bad = "message longer than the buffer";
	else if (!fz_msg_intact(r))
		bad = "message corrupted (checksum, length or bytes)";
	else if (call && !is_reply)
		bad = "a request arrived as a reply";
	else if (!call && is_reply)
		bad = "a reply arrived as a request";
	else if (label == FZ_L_REPLY && r.x2 != (req ^ FZ_REPLY_XOR))
		bad = "a reply to another request";
	if (bad)
		fz_bad(c, FZ_RESULTS, bad, nr, a, r.x0);
}

/** An endpoint slot: the EP zone mostly, sometimes anything. */
static unsigned fz_ep_slot(struct fz_ctx *c)
{
	return fz_below(&c->rng, 5) ? fz_slot(c, FZ_EP_LO, FZ_EP_N)
				    : fz_slot(c, FZ_MISC_LO, FZ_MISC_N);
}

void fz_ipc_send(struct fz_ctx *c, bool call)
{
	unsigned long a[7] = {fz_ep_slot(c)};
	unsigned long nonce = fz_next(&c->rng);
	fz_msg_make(c, call ? FZ_L_CALL : FZ_L_SEND, nonce, a);
	a[6] = fz_timeout(c, call);
	unsigned may = FZ_CAPS | FZ_E(TIMEOUT) | FZ_E(CANCELED);
	if (!call) {
		fz_sys(c, FUL_SYS_SEND, a, may);
		return;
	}
	struct ful_ret r = fz_sys(c, FUL_SYS_CALL, a, may | FZ_E(DEAD));
	if (r.x0 == 0)
		fz_msg_check(c, FUL_SYS_CALL, a, r, nonce);
}

/** Receive (or reply and receive) on an endpoint. */
static void fz_ipc_recv(struct fz_ctx *c, bool reply)
{
	unsigned long a[7] = {fz_ep_slot(c)};
	unsigned long nr = FUL_SYS_RECV;
	if (reply) {
		nr = FUL_SYS_REPLY_RECV;
		fz_reply_make(c, a);
	}
	a[6] = fz_timeout(c, false);
	struct ful_ret r =
	    fz_sys(c, nr, a, FZ_CAPS | FZ_E(TIMEOUT) | FZ_E(CANCELED));
	if (r.x0 == 0)
		fz_msg_check(c, nr, a, r, 0);
	else
		c->reply = FZ_R_UNKNOWN;
}

/** Reply to the last caller: the result follows from what is held. */
static void fz_ipc_reply(struct fz_ctx *c)
{
	unsigned long a[7] = {0};
	fz_reply_make(c, a);
	if (c->reply == FZ_R_NONE)
		fz_exact(c, FUL_SYS_REPLY, a, -FUL_ESTATE, 0);
	else
		fz_sys(c, FUL_SYS_REPLY, a,
		       c->reply == FZ_R_PENDING ? FZ_E(DEAD)
						: FZ_E(DEAD) | FZ_E(STATE));
	c->reply = FZ_R_NONE;
}

/** Save the pending reply into a MISC slot, for anyone to use. */
static void fz_ipc_reply_save(struct fz_ctx *c)
{
	unsigned long a[7] = {fz_slot(c, FZ_MISC_LO, FZ_MISC_N)};
	long got;
	if (c->reply == FZ_R_NONE)
		got = fz_exact(c, FUL_SYS_REPLY_SAVE, a, -FUL_ESTATE, 0);
	else
		got = fz_sys(c, FUL_SYS_REPLY_SAVE, a, FZ_E(STATE)).x0;
	if (got == 0)
		c->reply = FZ_R_NONE;
}

/** Answer whatever saved reply a MISC slot holds. */
static void fz_ipc_reply_to(struct fz_ctx *c)
{
	unsigned long a[7] = {fz_slot(c, FZ_MISC_LO, FZ_MISC_N)};
	fz_msg_make(c, FZ_L_ANON, fz_next(&c->rng), a);
	fz_sys(c, FUL_SYS_REPLY_TO, a, FZ_CAPS | FZ_E(DEAD));
}

void fz_op_ipc(struct fz_ctx *c)
{
	unsigned k = fz_below(&c->rng, 20);
	if (k < 5)
		fz_ipc_send(c, false);
	else if (k < 10)
		fz_ipc_send(c, true);
	else if (k < 14)
		fz_ipc_recv(c, false);
	else if (k < 16)
		fz_ipc_recv(c, true);
	else if (k < 18)
		fz_ipc_reply(c);
	else if (k < 19)
		fz_ipc_reply_save(c);
	else
		fz_ipc_reply_to(c);
}

/** A notification slot: the NTFN zone mostly, sometimes anything. */
static unsigned fz_ntfn_slot(struct fz_ctx *c)
{
	return fz_below(&c->rng, 6) ? fz_slot(c, FZ_NTFN_LO, FZ_NTFN_N)
				    : fz_slot(c, FZ_MISC_LO, FZ_MISC_N);
}

void fz_op_ntfn(struct fz_ctx *c)
{
	unsigned long a[7] = {fz_ntfn_slot(c)};
	unsigned k = fz_below(&c->rng, 20);
	if (k < 8) {
		a[1] = fz_below(&c->rng, 20) ? (fz_next(&c->rng) & FZ_BITS) | 1
					     : 0; /* 0: EINVAL unless badged */
		fz_sys(c, FUL_SYS_NTFN_SIGNAL, a,
		       FZ_CAPS | (a[1] ? 0 : FZ_E(INVAL)));
	} else if (k < 15) {
		a[6] = fz_timeout(c, false);
		struct ful_ret r =
		    fz_sys(c, FUL_SYS_NTFN_WAIT, a,
			   FZ_CAPS | FZ_E(TIMEOUT) | FZ_E(CANCELED));
		if (r.x0 == 0 && r.x1 == 0)
			fz_bad(c, FZ_RESULTS, "wait succeeded with no bits",
			       FUL_SYS_NTFN_WAIT, a, 0);
	} else {
		fz_sys(c, FUL_SYS_NTFN_POLL, a, FZ_CAPS);
	}
}
