/*
 * The storage rings (paper 002's ISPC): one protocol for every hop of
 * the storage path, a client and F (a ring with a data area, set up per
 * client: <fulcrum/fs.h>), F and B, B and D (rings without one, set up
 * at the servers' start). A ring is a frame mapped into a client and a
 * server: page 0 holds struct ful_sring_ctl, a request ring and a reply
 * ring (each single producer, single consumer, indices that only grow),
 * and the pages after it, if any, are the data area that requests and
 * replies point into. Nothing is copied through the kernel but a
 * wake-up. user/lib/sring.c and <ful/sring.h> are both sides' code.
 *
 * Indices: the producer of a ring publishes its head with release, the
 * consumer reads it with acquire; req_tail and rep_tail are each written
 * by their consumer only. A server copies an entry out of shared memory
 * before it checks it (the client may change it meanwhile): a client
 * can only break its own ring.
 *
 * Sleeping and waking (both sides, Dekker's pattern): a side that finds
 * nothing to do stores its *_sleeping flag, issues a full fence, looks
 * at the ring once more and only then waits; the other side publishes,
 * issues a full fence and wakes it only if the flag is set. A sleeping
 * client waits on its notification (signalled by the server). A
 * sleeping server waits on its doorbell, which is one of two kinds:
 *  - an endpoint (B's and D's rings, one ring per doorbell): the client
 *    rings with a CALL (label FUL_SRING_BELL_CALL), which the server
 *    answers once it has taken the requests, so on one core that is
 *    IPC's direct switch there and back; or with a SEND (label
 *    FUL_SRING_BELL_POST) for requests posted without waiting for their
 *    replies (write-behind), which the server does not answer;
 *  - a notification shared by a set of rings (F's client rings): the
 *    client signals bit FUL_SRING_BELL_REQUEST; the rootserver signals
 *    FUL_SRING_BELL_KILLED when it killed a thread of the server's task
 *    (the server then decides whether to close its rings).
 * A notification's bits persist until taken, so a wake-up sent before
 * the wait is not lost.
 *
 * Write-behind: a client may post requests without waiting for their
 * replies (up to FUL_SRING_SLOTS uncollected) and collect the replies
 * later, in order.
 *
 * A server that is gone (the rootserver killed it, as a crash would) is
 * marked server_dead by whoever notices (the rootserver, or the server's
 * surviving thread), and its client woken: requests then fail.
 */
#ifndef FULCRUM_SRING_H
#define FULCRUM_SRING_H

#define FUL_SRING_SLOTS 16 /* entries per ring, a power of two */
#define FUL_SRING_CTL_SIZE 4096UL /* page 0; the data area follows */
#define FUL_SRING_BELL_CALL 0 /* endpoint doorbell labels */
#define FUL_SRING_BELL_POST 1
#define FUL_SRING_BELL_REQUEST 1UL /* notification doorbell bits */
#define FUL_SRING_BELL_KILLED 2UL

struct ful_sring_req {
	unsigned int op;
	unsigned int id;        /* echoed in the reply */
	unsigned long a[4];     /* the operation's words (mr0..mr3) */
	unsigned int len;       /* bytes at data_off going to the server */
	unsigned int data_off;  /* in the data area (0 without one) */
};

struct ful_sring_rep {
	long r[4];              /* the reply's words (mr0..mr3) */
	unsigned int id;
	unsigned int len;       /* bytes the server put at the request's
				 * data_off (0 without a data area) */
};

struct ful_sring_ctl {
	_Atomic unsigned int req_head, req_tail; /* client, server */
	_Atomic unsigned int rep_head, rep_tail; /* server, client */
	_Atomic unsigned int server_sleeping, client_sleeping;
	/* the server is gone: requests fail */
	_Atomic unsigned int server_dead;
	/* the serving thread's id (0: not said), set at the server's start:
	 * a client finds its core in the load area */
	_Atomic unsigned int server_tid;
	unsigned int pad[8];
	struct ful_sring_req req[FUL_SRING_SLOTS];
	struct ful_sring_rep rep[FUL_SRING_SLOTS];
	unsigned long client_signals, server_signals; /* each by its side */
};

_Static_assert(sizeof(struct ful_sring_ctl) <= FUL_SRING_CTL_SIZE,
	       "a ring's control block fits its page");

#endif
