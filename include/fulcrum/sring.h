/*
 * A server-to-server ring pair (paper 002's ISPC between OS servers:
 * F and B): one page mapped into a client and a server, a request ring
 * and a reply ring, each single producer and single consumer. A request
 * is an operation and four words; a reply four words. Data travel in
 * memory both sides already share (F's window of B), never through the
 * kernel. Set up by the rootserver, which maps the page into both and
 * gives the server a doorbell endpoint (READ; the client WRITE) and the
 * client a notification (READ; the server WRITE).
 *
 * Sleeping and waking (Dekker's pattern, as for F's client rings): a
 * side with nothing to do stores its *_sleeping flag, issues a full
 * fence, looks once more and only then waits; the other side publishes,
 * fences and wakes it only if the flag is set. A sleeping server waits
 * in RECV on its doorbell, and the client rings it with a CALL, which
 * the server answers once it has taken the client's requests: on one
 * core that is IPC's direct switch there and back, no extra wake-up. A
 * sleeping client waits on its notification, which the server signals
 * after publishing a reply. user/lib/sring.c is both sides' code
 * (<ful/sring.h>).
 *
 * Write-behind: a client may also post requests without waiting for
 * their replies (up to FUL_SRING_SLOTS uncollected) and collect the
 * replies later, in order. Its doorbell is then a SEND (label
 * FUL_SRING_BELL_POST), which a server already in RECV takes without
 * holding the client, and which the server does not answer; a CALL's
 * label is FUL_SRING_BELL_CALL.
 */
#ifndef FULCRUM_SRING_H
#define FULCRUM_SRING_H

#define FUL_SRING_SLOTS 16 /* a power of two */
#define FUL_SRING_BELL_CALL 0 /* doorbell labels */
#define FUL_SRING_BELL_POST 1

struct ful_sring_req {
	unsigned int op;
	unsigned int id;        /* echoed in the reply */
	unsigned long a[4];
};

struct ful_sring_rep {
	long r[4];
	unsigned int id;
	unsigned int pad;
};

struct ful_sring_ctl {
	_Atomic unsigned int req_head, req_tail; /* client, server */
	_Atomic unsigned int rep_head, rep_tail; /* server, client */
	_Atomic unsigned int server_sleeping, client_sleeping;
	/* the server is gone (the rootserver killed its task, as a crash
	 * would, and then set this and woke the client): requests fail */
	_Atomic unsigned int server_dead;
	/* the serving thread's id (0: not said), set by the server as it
	 * starts: a client finds its core in the load area */
	_Atomic unsigned int server_tid;
	unsigned int pad[8];
	struct ful_sring_req req[FUL_SRING_SLOTS];
	struct ful_sring_rep rep[FUL_SRING_SLOTS];
	unsigned long client_signals, server_signals; /* each by its side */
};

#endif
