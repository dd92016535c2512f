/*
 * Both sides of a server-to-server ring (<fulcrum/sring.h>,
 * user/lib/sring.c). One client thread at a time calls (the caller
 * serializes); one server thread serves.
 */
#ifndef FUL_SRING_H
#define FUL_SRING_H

#include <stdbool.h>

#include <fulcrum/sring.h>

struct ful_sring {
	struct ful_sring_ctl *ctl; /* the shared page */
	unsigned mine;             /* client: its notification (READ);
				    * server: its doorbell endpoint (READ) */
	unsigned peer;             /* client: the doorbell (WRITE); server:
				    * the client's notification (WRITE) */
	unsigned spins;            /* passes polled before sleeping */
	unsigned taken;            /* server: requests taken, not answered */
	bool caller;               /* server: a doorbell CALL to answer */
};

/** Client: request @op with @a, wait for its reply into @r (polling up
 *  to s->spins passes first). 0, -FUL_ESTATE if the reply was not the
 *  request's (a broken ring) or posted requests are not collected yet,
 *  or -FUL_EDEAD if the server is gone (the
 *  request may or may not have run). */
int ful_sring_call(struct ful_sring *s, unsigned op, const unsigned long a[4],
		   long r[4]);

/** Client: put request @op with @a on the ring and go on without its
 *  reply (write-behind); with @bell, wake the server if it sleeps,
 *  else leave that to a later ful_sring_bell or collect. Its id,
 *  -FUL_EAGAIN if FUL_SRING_SLOTS requests are posted and not collected,
 *  or -FUL_EDEAD. Replies come back in order; collect each
 *  (ful_sring_collect) before the next call. */
long ful_sring_post(struct ful_sring *s, unsigned op, const unsigned long a[4],
		    bool bell);
/** Client: wake the server if it sleeps with posted requests not taken. */
void ful_sring_bell(struct ful_sring *s);
/** Client: requests posted (or called) whose replies are not collected. */
unsigned ful_sring_posted(const struct ful_sring *s);
/** Client: wait for the oldest uncollected reply, into @r and its
 *  request's id into @id. 0, -FUL_ESTATE if nothing is posted, or
 *  -FUL_EDEAD if the server is gone. */
int ful_sring_collect(struct ful_sring *s, long r[4], unsigned *id);

/** Server: run @fn on every waiting request, publish the replies and
 *  wake the client if it sleeps. The number served. */
unsigned ful_sring_serve(struct ful_sring *s,
			 void (*fn)(unsigned op, const unsigned long a[4],
				    long r[4]));
/** Server, answering later (a device's completion): take the next
 *  request off the ring into @q; false if none, or if the replies of the
 *  requests taken so far would not fit the reply ring. */
bool ful_sring_take(struct ful_sring *s, struct ful_sring_req *q);
/** Server: answer taken request @id with @r and wake the client if it
 *  sleeps. The caller serializes its replies (one lock). */
void ful_sring_reply(struct ful_sring *s, unsigned id, const long r[4]);

/** Server, nothing to do: say "sleeping", look once more, and unless a
 *  request came meanwhile wait for the doorbell. */
void ful_sring_sleep(struct ful_sring *s);
/** Server, the requests taken: let a client that rang the doorbell go
 *  on (nothing if none did; a server that does not poll answers it as
 *  it goes to sleep, in ful_sring_sleep). */
void ful_sring_release(struct ful_sring *s);

#endif
