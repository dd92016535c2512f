/*
 * F's shared-memory rings (paper 002's ISPC, issue 13 item 5): a client
 * and F, the file server, talk through one frame mapped into both, a
 * request ring and a reply ring (each single producer, single consumer)
 * and a data area that requests point into. Nothing is copied through
 * the kernel; a notification wakes the peer only when it said it sleeps.
 * The same path serves a client on F's core and on another core.
 *
 * Frame layout (FUL_FSR_PAGES pages):
 *   page 0      struct ful_fsr_ctl: indices, sleep flags, the two rings
 *   pages 1..16 the data area (FUL_FSR_DATA bytes): names, bytes written,
 *               bytes read; a request names [data_off, data_off + len)
 *
 * Beside the frame, each ring has a page window (FUL_CAP_PWIN) of
 * FUL_FSR_OMF_PAGES slots: the client maps it (READ|WRITE), F fills it
 * with B's cache lines of the file the client mapped (OMF_MAP of
 * <fulcrum/fs.h>): the On-Memory File, zero copy.
 *
 * A request carries the operation of <fulcrum/fs.h> (FUL_FS_OP_*) and
 * the message registers that operation takes there (a0..a2 = mr0..mr2);
 * what went in the IPC buffer is in the data area instead, and READ may
 * ask for up to FUL_FSR_DATA bytes at once. The reply carries mr0..mr3
 * and the length of the data F put at the request's data_off.
 *
 * Sleeping and waking (both sides, Dekker's pattern): a side that finds
 * nothing to do stores its *_sleeping flag, issues a full fence, looks
 * at the ring once more, and only then waits on its notification; the
 * other side publishes an entry, issues a full fence, and signals only
 * if the flag is set. A notification's bits persist until taken, so a
 * signal sent before the wait is not lost.
 *
 * Set-up: the rootserver makes the frame and the client's notification,
 * maps the frame into F and gives F the notification (WRITE) and the
 * page window (ALL), tells F with FUL_FS_OP_RING_ATTACH, and hands the
 * frame, the notification (READ), F's doorbell (WRITE) and the window
 * (READ|WRITE) to the program that asked
 * (FUL_ROOT_REQ_FS_RING, <fulcrum/rootsrv.h>), which maps the frame into
 * itself or into a child it starts. F validates every entry it reads:
 * a client can only break its own ring.
 */
#ifndef FULCRUM_FSRING_H
#define FULCRUM_FSRING_H

#define FUL_FSR_MAX 16            /* rings F serves at once */
#define FUL_FSR_SLOTS 16          /* entries per ring, a power of two */
#define FUL_FSR_DATA_PAGES 16
#define FUL_FSR_OMF_PAGES 64
#define FUL_FSR_PAGES (1 + FUL_FSR_DATA_PAGES)
#define FUL_FSR_DATA (FUL_FSR_DATA_PAGES * 4096UL)
#define FUL_FSR_OMF (FUL_FSR_OMF_PAGES * 4096UL)
#define FUL_FSR_SIZE (FUL_FSR_PAGES * 4096UL)

struct ful_fsr_req {
	unsigned int op;        /* FUL_FS_OP_* */
	unsigned int len;       /* bytes at data_off going to F */
	unsigned long a[3];     /* mr0..mr2 of the operation */
	unsigned int data_off;  /* in the data area */
	unsigned int id;        /* echoed in the reply */
};

struct ful_fsr_rep {
	long mr[4];             /* mr0: >= 0 or -errno, as over IPC */
	unsigned int len;       /* bytes F put at the request's data_off */
	unsigned int id;
};

struct ful_fsr_ctl {
	/* request ring: the client writes req_head, F req_tail */
	_Atomic unsigned int req_head, req_tail;
	/* reply ring: F writes rep_head, the client rep_tail */
	_Atomic unsigned int rep_head, rep_tail;
	_Atomic unsigned int server_sleeping, client_sleeping;
	_Atomic unsigned int server_dead; /* F is gone: requests fail (EIO) */
	unsigned int pad[9];
	struct ful_fsr_req req[FUL_FSR_SLOTS];
	struct ful_fsr_rep rep[FUL_FSR_SLOTS];
	/* statistics, written by their side only */
	unsigned long client_signals, server_signals;
};

/* F's address space: ring k at FUL_FSR_F_VADDR + k * FUL_FSR_F_STRIDE,
 * the client's notification k (WRITE) in slot FUL_FSR_F_SLOT_NTFN + k,
 * ring k's page window (ALL) in FUL_FSR_F_SLOT_WIN + k (F deletes it at
 * the detach, the rootserver puts the next one there), F's doorbell
 * (READ) in FUL_FSR_F_SLOT_BELL, a pool in FUL_FSR_F_SLOT_POOL (its
 * second thread, its zero page), B's lines frame (READ|WRITE) in
 * FUL_FSR_F_SLOT_LINES, and F's own zero page in FUL_FSR_F_SLOT_ZERO. */
#define FUL_FSR_F_VADDR 0x50000000UL
#define FUL_FSR_F_STRIDE 0x100000UL
#define FUL_FSR_F_SLOT_BELL 8
/* Bits of F's doorbell: a client's request; the rootserver's word that
 * F's server thread was killed (the ring thread then closes the rings). */
#define FUL_FSR_BELL_REQUEST 1UL
#define FUL_FSR_BELL_KILLED 2UL
#define FUL_FSR_F_SLOT_POOL 9
#define FUL_FSR_F_SLOT_LINES 10
#define FUL_FSR_F_SLOT_ZERO 11
#define FUL_FSR_F_SLOT_NTFN 16
#define FUL_FSR_F_SLOT_WIN 32

#endif
