/*
 * ipctest: the peer task of the rootserver's IPC and isolation tests
 * (tests/user/tests/t_ipc*.c, t_ntfn.c, t_isolation.c). One program, many
 * modes: ful_arg0 = IT_ARG0(mode, param), ful_arg1 is mode-specific.
 * Every mode that reports does so with SEND on FUL_CHILD_SLOT_REPORT
 * (skipped when the slot is empty), len 0, label IT_R_*.
 *
 * This header is shared by the program and the rootserver: the protocol
 * (slots, labels, report layout) and the echo server's transformations.
 */
#ifndef IPCTEST_H
#define IPCTEST_H

#include <stddef.h>
#include <stdint.h>

#define IT_ARG0(mode, param) ((unsigned long)(mode) | (unsigned long)(param) << 8)
#define IT_MODE(arg0) ((unsigned)((arg0) & 0xff))
#define IT_PARAM(arg0) ((arg0) >> 8)

enum it_mode {
	/* Server on IT_SLOT_EP (REPLY_RECV loop). param: seed of its secret;
	 * arg1: receive timeout in us (0: forever; each timeout is counted,
	 * reported with IT_R_TIMEOUT, and it receives again). Exits when the
	 * endpoint is gone. */
	IT_ECHO = 1,
	/* Checked calls (odd ones with a long timeout, even ones without).
	 * With a command endpoint in IT_SLOT_GO: loops on IT_GO commands;
	 * else one batch of arg1 calls on IT_SLOT_EP with seed param. Each
	 * batch ends with an IT_R_CLIENT report. */
	IT_CLIENT,
	/* arg1 SENDs (IT_L_SEQ, payload of IT_SEQ_LEN bytes) on IT_SLOT_EP;
	 * param: the sender id. Then IT_R_DONE. */
	IT_SENDER,
	/* One CALL (mr0 = param) on IT_SLOT_EP, then IT_R_CALL. arg1: the
	 * timeout in us in bits 0..31 (0: forever), the label in bits
	 * 32..63 (0: IT_L_VALUE). */
	IT_CALL1,
	/* One RECV on IT_SLOT_EP with timeout arg1 (0: forever), then
	 * IT_R_RECV. */
	IT_RECV1,
	/* One NTFN_WAIT on IT_SLOT_EP with timeout arg1 (0: forever), then
	 * IT_R_NTFN. */
	IT_NTFN_WAIT,
	/* One NTFN_SIGNAL of arg1 on IT_SLOT_EP, then IT_R_DONE. */
	IT_SIGNAL,
	/* Spin in user mode without system calls, forever. */
	IT_SPIN,
	/* param rounds of: wait on IT_SLOT_EP (timeout arg1 us, retried),
	 * signal the bits received on IT_SLOT_EP2. Then IT_R_DONE with mr2
	 * the number of timeouts. */
	IT_NTFN_PONG,
};

/* Child capability slots (FUL_CHILD_SLOT_ARG0.. are granted by the
 * parent; the rest the parent may copy in later). */
#define IT_SLOT_EP 4      /* the endpoint / notification of the mode */
#define IT_SLOT_GO 5      /* IT_CLIENT: command endpoint (READ) */
#define IT_SLOT_EP2 5     /* IT_NTFN_PONG: the notification it signals */
#define IT_SLOT_PARK 6    /* IT_ECHO: notification to block on for IT_L_HOLD */
#define IT_SLOT_SAVED 9   /* IT_ECHO: the reply saved by IT_L_NOREPLY */
#define IT_SLOT_TARGET 16 /* IT_CLIENT: targets of IT_GO are 16, 17, ... */

/* Labels the echo server treats specially; any other is echoed. */
#define IT_L_INFO 0xfff00001u    /* reply mr: cpu, tid, badge, served */
#define IT_L_EXIT 0xfff00002u    /* end the server thread, no reply */
#define IT_L_NOREPLY 0xfff00003u /* save the reply in IT_SLOT_SAVED, report
				  * IT_R_HOLDING, answer nothing */
#define IT_L_SUM 0xfff00004u     /* reply mr0: sum of the secret; mr1: sum of
				  * [req mr0, req mr0 + req mr1) (0 if mr1 is 0) */
#define IT_L_SCRIBBLE 0xfff00005u /* refill the secret with seed req mr0 */
#define IT_L_HOLD 0xfff00006u    /* keep the reply pending: report
				  * IT_R_HOLDING, wait on IT_SLOT_PARK */
#define IT_L_TIMEOUTS 0xfff00007u /* reply mr0: receive timeouts so far */
#define IT_L_LATE 0xfff00008u    /* answer the reply saved by IT_L_NOREPLY now;
				  * reply mr0: the result of that REPLY_TO */
#define IT_L_FAULT 0xfff00009u   /* die of a fault (a store to address 8) */
#define IT_L_SEQ 0xfff00010u     /* IT_SENDER messages */
#define IT_L_VALUE 0xfff00011u   /* IT_CALL1 calls */
#define IT_L_GO 0xfff00012u      /* IT_CLIENT commands */
#define IT_CALL1_ARG1(timeout_us, label) \
	((unsigned long)(timeout_us) | (unsigned long)(label) << 32)

/* IT_SENDER message: mr0 id, mr1 seq, mr2 ~seq, mr3 it_seq_tag(id, seq);
 * payload: the same id and seq as two little-endian words. */
#define IT_SEQ_LEN 16
static inline unsigned long it_seq_tag(unsigned long id, unsigned long seq)
{
	return id * 1000003UL + seq * 7919UL + 0x5eed;
}

/* IT_GO command: mr0 first target slot, mr1 calls (0: exit), mr2 seed,
 * mr3 number of targets (calls rotate over them; 0 means 1). */

/* Reports. */
#define IT_R_CLIENT 0x7e01u /* mr0 errors, mr1 first error (it_err), mr2 client
			     * cpu at start | cpu at end << 16, mr3 server cpus
			     * (IT_L_INFO before and after) likewise */
#define IT_R_DONE 0x7e02u   /* mr0 errors (first -FUL_E* seen or 0), mr1 cpu */
#define IT_R_CALL 0x7e03u   /* mr0 rc, mr1 reply mr0, mr2 reply label, mr3 cpu */
#define IT_R_RECV 0x7e04u   /* mr0 rc, mr1 badge, mr2 mr0 received, mr3 label */
#define IT_R_NTFN 0x7e05u   /* mr0 rc, mr1 bits, mr2 cpu */
#define IT_R_HOLDING 0x7e06u /* IT_ECHO: IT_L_NOREPLY / IT_L_HOLD took a call */
#define IT_R_TIMEOUT 0x7e07u /* IT_ECHO: a receive timed out; mr0 count, mr1 cpu */
#define IT_R_CPUS(start, end) ((unsigned long)(start) | (unsigned long)(end) << 16)

/* IT_R_CLIENT mr1: iteration << 8 | what went wrong */
enum it_err {
	IT_E_NONE = 0,
	IT_E_RC,      /* the call failed */
	IT_E_LABEL,
	IT_E_LEN,
	IT_E_MR,
	IT_E_BUF,
	IT_E_BADGE,
	IT_E_INFO,    /* an IT_L_INFO call failed */
};

/* ---- the echo server's transformations ---- */

static inline unsigned long it_echo_label(unsigned long label)
{
	return (label + 1) & 0xffffffffUL;
}

static inline unsigned long it_echo_mr(unsigned long v, unsigned i)
{
	return v * 3 + i + 1;
}

/** Reverse @len bytes of @b and XOR each with 0xa5 (in place). */
static inline void it_echo_buf(unsigned char *b, size_t len)
{
	for (size_t i = 0, j = len; i < j; i++) {
		j--;
		unsigned char t = b[i];
		b[i] = (unsigned char)(b[j] ^ 0xa5);
		b[j] = (unsigned char)(t ^ 0xa5);
	}
}

/* ---- secrets and checksums (isolation tests) ---- */

#define IT_SECRET_SIZE 8192
#define IT_VICTIM_VA 0x50000000UL /* the rootserver maps a frame here */
#define IT_VICTIM_PAGES 4

static inline unsigned char it_secret_byte(unsigned long seed, size_t i)
{
	return (unsigned char)((seed * 131 + i * 7 + (i >> 8)) ^ (seed >> 3));
}

/** FNV-1a over @n bytes. */
static inline unsigned long it_sum(const volatile unsigned char *p, size_t n)
{
	unsigned long h = 0xcbf29ce484222325UL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3UL;
	return h;
}

/** xorshift64: the clients' and tests' payload generator. */
static inline unsigned long it_rand(unsigned long *s)
{
	unsigned long x = *s ? *s : 0x9e3779b97f4a7c15UL;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

#endif
