/*
 * ipctest: the peer task of the rootserver's IPC and isolation tests.
 * The modes, slots, labels and reports are described in ipctest.h.
 */
#include <stdbool.h>
#include <string.h>

#include <ful/ful.h>

#include "ipctest.h"

/* The echo server's secret: the isolation tests check it stays intact
 * (IT_L_SUM) while other tasks fault at its address. */
static volatile unsigned char secret[IT_SECRET_SIZE];
static unsigned long served, timeouts;

static unsigned this_cpu(void)
{
	struct ful_sysinfo si;
	return ful_sysinfo(&si) < 0 ? 0xffff : si.cpu;
}

/** Send a report (len 0) to the parent, if it gave a report endpoint. */
static void report(unsigned long label, unsigned long a, unsigned long b,
		   unsigned long c, unsigned long d)
{
	if (ful_cap_info(FUL_CHILD_SLOT_REPORT) < 0)
		return;
	struct ful_msg m = {.info = FUL_MSG(label, 0), .mr = {a, b, c, d}};
	ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
}

static void secret_fill(unsigned long seed)
{
	for (size_t i = 0; i < IT_SECRET_SIZE; i++)
		secret[i] = it_secret_byte(seed, i);
}

/** IT_L_HOLD: never reply, never receive again (a receive would cancel
 *  the pending reply); the test kills us. */
static _Noreturn void hold(void)
{
	for (;;)
		if (ful_ntfn_wait(IT_SLOT_PARK, NULL, FUL_FOREVER) < 0)
			ful_yield();
}

/** The echo transformation of an ordinary message, in place. */
static void echo_plain(struct ful_msg *m)
{
	unsigned long len = FUL_MSG_LEN(m->info);
	for (unsigned i = 0; i < 4; i++)
		m->mr[i] = it_echo_mr(m->mr[i], i);
	it_echo_buf(ful_ipcbuf(), len);
	m->info = FUL_MSG(it_echo_label(FUL_MSG_LABEL(m->info)), len);
}

/** Turn the request in @m into its reply; false: send no reply. */
static bool echo_handle(struct ful_msg *m)
{
	unsigned long label = FUL_MSG_LABEL(m->info);
	unsigned long r[4] = {0, 0, 0, 0};
	served++;
	switch (label) {
	case IT_L_INFO: {
		struct ful_sysinfo si;
		ful_sysinfo(&si);
		r[0] = si.cpu;
		r[1] = si.tid;
		r[2] = m->badge;
		r[3] = served;
		break;
	}
	case IT_L_EXIT:
		ful_exit();
	case IT_L_FAULT: {
		unsigned long a = 8;
		__asm__ volatile("" : "+r"(a)); /* hide the address from gcc */
		*(volatile unsigned long *)a = label;
		ful_exit();
	}
	case IT_L_NOREPLY:
		ful_cap_delete(IT_SLOT_SAVED);
		r[0] = (unsigned long)ful_reply_save(IT_SLOT_SAVED);
		report(IT_R_HOLDING, r[0], 0, 0, 0);
		return false;
	case IT_L_HOLD:
		report(IT_R_HOLDING, 0, 0, 0, 0);
		hold();
	case IT_L_LATE: {
		struct ful_msg late = {.info = FUL_MSG(0xbad, 0), .mr = {0xbad}};
		r[0] = (unsigned long)ful_reply_to(IT_SLOT_SAVED, &late);
		break;
	}
	case IT_L_SUM:
		r[0] = it_sum(secret, IT_SECRET_SIZE);
		r[1] = m->mr[1] ? it_sum((const unsigned char *)m->mr[0], m->mr[1]) : 0;
		break;
	case IT_L_SCRIBBLE:
		secret_fill(m->mr[0]);
		r[0] = it_sum(secret, IT_SECRET_SIZE);
		break;
	case IT_L_TIMEOUTS:
		r[0] = timeouts;
		break;
	default:
		echo_plain(m);
		return true;
	}
	memcpy(m->mr, r, sizeof r);
	m->info = FUL_MSG(it_echo_label(label), 0);
	return true;
}

/** IT_ECHO: serve IT_SLOT_EP until it is gone. */
static _Noreturn void echo_server(void)
{
	unsigned long tmo = ful_arg1 ? ful_arg1 : FUL_FOREVER;
	struct ful_msg m;
	secret_fill(IT_PARAM(ful_arg0));
	long rc = ful_recv(IT_SLOT_EP, &m, tmo);
	for (;;) {
		if (rc == -FUL_ETIMEOUT) {
			report(IT_R_TIMEOUT, ++timeouts, this_cpu(), 0, 0);
			rc = ful_recv(IT_SLOT_EP, &m, tmo);
			continue;
		}
		if (rc < 0)
			ful_exit();
		if (echo_handle(&m))
			rc = ful_reply_recv(IT_SLOT_EP, &m, tmo);
		else
			rc = ful_recv(IT_SLOT_EP, &m, tmo);
	}
}

/* ---- IT_CLIENT ---- */

struct batch {
	unsigned long errors, first;
};

static void note(struct batch *b, unsigned long i, enum it_err e)
{
	if (!b->errors++)
		b->first = i << 8 | e;
}

/** The core the server behind @slot runs on (IT_L_INFO), 0xffff on error. */
static unsigned long server_cpu(unsigned slot, struct batch *b)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_INFO, 0)};
	if (ful_call(slot, &m, FUL_FOREVER) < 0 ||
	    FUL_MSG_LABEL(m.info) != it_echo_label(IT_L_INFO)) {
		note(b, 0, IT_E_INFO);
		return 0xffff;
	}
	return m.mr[0];
}

/** Call @slot with random registers, label and payload (call 0: len 0,
 *  call 1: a full buffer) and check the echo. */
static void checked_call(unsigned slot, unsigned long i, unsigned long *seed,
			 struct batch *b)
{
	static unsigned char expect[FUL_IPCBUF_SIZE];
	unsigned char *buf = ful_ipcbuf();
	size_t len = i == 0 ? 0 : i == 1 ? FUL_IPCBUF_SIZE
					 : it_rand(seed) % (FUL_IPCBUF_SIZE + 1);
	unsigned long label = it_rand(seed) & 0xffffff, mr[4];
	struct ful_msg m = {.info = FUL_MSG(label, len)};
	for (unsigned k = 0; k < 4; k++)
		mr[k] = m.mr[k] = it_rand(seed);
	for (size_t j = 0; j < len; j++)
		buf[j] = expect[j] = (unsigned char)it_rand(seed);
	it_echo_buf(expect, len);
	/* Odd calls with a (long) timeout: they take the timed paths. */
	if (ful_call(slot, &m, i & 1 ? 60000000UL : FUL_FOREVER) < 0)
		return note(b, i, IT_E_RC);
	if (FUL_MSG_LABEL(m.info) != it_echo_label(label))
		return note(b, i, IT_E_LABEL);
	if (FUL_MSG_LEN(m.info) != len)
		return note(b, i, IT_E_LEN);
	for (unsigned k = 0; k < 4; k++)
		if (m.mr[k] != it_echo_mr(mr[k], k))
			return note(b, i, IT_E_MR);
	if (m.badge != 0)
		return note(b, i, IT_E_BADGE);
	if (memcmp(buf, expect, len))
		return note(b, i, IT_E_BUF);
}

/** @n checked calls rotating over @count slots from @first; report. */
static void client_batch(unsigned first, unsigned count, unsigned long n,
			 unsigned long seed)
{
	struct batch b = {0, 0};
	unsigned cpu0 = this_cpu();
	unsigned long s0 = server_cpu(first, &b);
	for (unsigned long i = 0; i < n; i++)
		checked_call(first + (unsigned)(i % count), i, &seed, &b);
	unsigned long s1 = server_cpu(first, &b);
	report(IT_R_CLIENT, b.errors, b.first, IT_R_CPUS(cpu0, this_cpu()),
	       IT_R_CPUS(s0, s1));
}

static _Noreturn void client(void)
{
	if (ful_cap_info(IT_SLOT_GO) < 0) {
		client_batch(IT_SLOT_EP, 1, ful_arg1, IT_PARAM(ful_arg0));
		ful_exit();
	}
	for (;;) {
		struct ful_msg m;
		if (ful_recv(IT_SLOT_GO, &m, FUL_FOREVER) < 0 || m.mr[1] == 0)
			ful_exit();
		client_batch((unsigned)m.mr[0], m.mr[3] ? (unsigned)m.mr[3] : 1,
			     m.mr[1], m.mr[2]);
	}
}

/* ---- one-shot modes ---- */

/** IT_SENDER: numbered SENDs, then IT_R_DONE (errors, cpu). */
static void sender(void)
{
	unsigned long id = IT_PARAM(ful_arg0), seq;
	unsigned long *p = ful_ipcbuf();
	long err = 0;
	for (seq = 0; seq < ful_arg1; seq++) {
		p[0] = id;
		p[1] = seq;
		struct ful_msg m = {.info = FUL_MSG(IT_L_SEQ, IT_SEQ_LEN),
				    .mr = {id, seq, ~seq, it_seq_tag(id, seq)}};
		if ((err = ful_send(IT_SLOT_EP, &m, FUL_FOREVER)) < 0)
			break;
	}
	report(IT_R_DONE, (unsigned long)err, this_cpu(), seq, 0);
}

static void call1(void)
{
	unsigned long v = IT_PARAM(ful_arg0), label = ful_arg1 >> 32;
	unsigned long tmo = ful_arg1 & 0xffffffffUL;
	struct ful_msg m = {.info = FUL_MSG(label ? label : IT_L_VALUE, 0),
			    .mr = {v, ~v, 0, 0}};
	long rc = ful_call(IT_SLOT_EP, &m, tmo ? tmo : FUL_FOREVER);
	report(IT_R_CALL, (unsigned long)rc, rc < 0 ? 0 : m.mr[0],
	       rc < 0 ? 0 : FUL_MSG_LABEL(m.info), this_cpu());
}

static void recv1(void)
{
	struct ful_msg m = {0};
	long rc = ful_recv(IT_SLOT_EP, &m, ful_arg1 ? ful_arg1 : FUL_FOREVER);
	report(IT_R_RECV, (unsigned long)rc, m.badge, m.mr[0],
	       FUL_MSG_LABEL(m.info));
}

static void ntfn_wait1(void)
{
	unsigned long bits = 0;
	long rc = ful_ntfn_wait(IT_SLOT_EP, &bits,
				ful_arg1 ? ful_arg1 : FUL_FOREVER);
	report(IT_R_NTFN, (unsigned long)rc, bits, this_cpu(), 0);
}

static void signal1(void)
{
	long rc = ful_ntfn_signal(IT_SLOT_EP, ful_arg1);
	report(IT_R_DONE, (unsigned long)rc, this_cpu(), 0, 0);
}

/** IT_NTFN_PONG: echo notification bits back, waiting with short,
 *  retried timeouts. */
static void ntfn_pong(void)
{
	unsigned long rounds = IT_PARAM(ful_arg0), timeouts = 0, r = 0;
	long err = 0;
	while (r < rounds) {
		unsigned long bits;
		long rc = ful_ntfn_wait(IT_SLOT_EP, &bits, ful_arg1);
		if (rc == -FUL_ETIMEOUT) {
			timeouts++;
			continue;
		}
		if ((err = rc) < 0 || (err = ful_ntfn_signal(IT_SLOT_EP2, bits)) < 0)
			break;
		r++;
	}
	report(IT_R_DONE, (unsigned long)err, this_cpu(), timeouts, 0);
}

int main(void)
{
	switch (IT_MODE(ful_arg0)) {
	case IT_ECHO:
		echo_server();
	case IT_CLIENT:
		client();
	case IT_SENDER:
		sender();
		break;
	case IT_CALL1:
		call1();
		break;
	case IT_RECV1:
		recv1();
		break;
	case IT_NTFN_WAIT:
		ntfn_wait1();
		break;
	case IT_SIGNAL:
		signal1();
		break;
	case IT_NTFN_PONG:
		ntfn_pong();
		break;
	case IT_SPIN:
		for (;;)
			served++;
	default:
		report(IT_R_DONE, (unsigned long)-FUL_EINVAL, 0, 0, 0);
	}
	return 0;
}
