/*
 * IPC tests between tasks, part 2:
 *   ipc_reply_caps  saved replies answered out of order, single use,
 *                   cancelled by deletion, by a new message, or by the
 *                   server's death
 *   ipc_timeouts    receive, send and call timeouts: never early, and the
 *                   endpoint works normally afterwards
 * This program is one end of most exchanges, an ipctest task the other.
 */
#include <stdio.h>

#include "t_ipc.h"

/* ------------------------------------------------------------------ */
/* ipc_reply_caps                                                       */

/** Two clients call; both replies are saved, then answered in the
 *  opposite order with REPLY_TO; each reply cap works exactly once. */
static void reply_out_of_order(struct ut *ut, struct it_fix *f, unsigned ep)
{
	long s1 = it_slot(f), s2 = it_slot(f), s3 = it_slot(f), err = 0;
	IT_OK(s1);
	IT_OK(s2);
	IT_OK(s3);
	unsigned first = f->ntasks;
	for (unsigned i = 0; i < 2; i++) {
		it_peer(f, it_core(i + 1), IT_ARG0(IT_CALL1, 100 + i), 0, ep,
			FUL_R_WRITE, 0, &err);
		IT_OK(err);
	}
	struct ful_msg a, b, r;
	UT_CHECK_EQ(ful_recv(ep, &a, IT_TMO), 0);
	UT_CHECK_EQ(ful_reply_save((unsigned)s1), 0);
	UT_CHECK_EQ(ful_cap_info((unsigned)s1) & 0xff, FUL_CAP_REPLY);
	UT_CHECK_EQ(ful_reply_save((unsigned)s3), -FUL_ESTATE); /* none pending */
	UT_CHECK_EQ(ful_cap_copy((unsigned)s1, FUL_SLOT_SELF_VS, (unsigned)s3,
				 FUL_R_ALL, 0), -FUL_ETYPE);
	UT_CHECK_EQ(ful_recv(ep, &b, IT_TMO), 0);
	UT_CHECK_EQ(ful_reply_save((unsigned)s2), 0);
	UT_CHECK(a.mr[0] + b.mr[0] == 201 && a.mr[0] != b.mr[0]);

	r = (struct ful_msg){.info = FUL_MSG(0x200, 0), .mr = {b.mr[0] * 10}};
	UT_CHECK_EQ(ful_reply_to((unsigned)s2, &r), 0);
	IT_REPORT(f, &r, IT_R_CALL); /* only the second caller can be awake */
	UT_CHECK_EQ(it_sender(f, &r), (long)(first + b.mr[0] - 100));
	UT_CHECK_EQ(r.mr[0], 0);
	UT_CHECK_EQ(r.mr[1], b.mr[0] * 10);
	UT_CHECK_EQ(r.mr[2], 0x200);

	r = (struct ful_msg){.info = FUL_MSG(0x201, 0), .mr = {a.mr[0] * 10}};
	UT_CHECK_EQ(ful_reply_to((unsigned)s1, &r), 0);
	IT_REPORT(f, &r, IT_R_CALL);
	UT_CHECK_EQ(it_sender(f, &r), (long)(first + a.mr[0] - 100));
	UT_CHECK_EQ(r.mr[0], 0);
	UT_CHECK_EQ(r.mr[1], a.mr[0] * 10);
	UT_CHECK_EQ(r.mr[2], 0x201);

	/* Used up: the slots are empty again. */
	UT_CHECK_EQ(ful_reply_to((unsigned)s1, &r), -FUL_EBADCAP);
	UT_CHECK_EQ(ful_reply_to((unsigned)s2, &r), -FUL_EBADCAP);
	UT_CHECK_EQ(ful_reply(&r), -FUL_ESTATE);
}

/** A caller of ours: start an IT_CALL1 peer with @value and receive its
 *  call into *@m. */
static void take_call(struct ut *ut, struct it_fix *f, unsigned ep,
		      unsigned long value, struct ful_msg *m,
		      struct ful_task **t)
{
	long err = 0;
	*t = it_peer(f, it_core(1), IT_ARG0(IT_CALL1, value), 0, ep,
		     FUL_R_WRITE, 0, &err);
	IT_OK(err);
	UT_CHECK_EQ(ful_recv(ep, m, IT_TMO), 0);
	UT_CHECK_EQ(m->mr[0], value);
}

/** Pending replies that can no longer be answered. */
static void reply_cancelled(struct ut *ut, struct it_fix *f, unsigned ep)
{
	long s = it_slot(f), err = 0;
	struct ful_msg m;
	struct ful_task *t;
	IT_OK(s);
	/* Deleting a saved reply wakes its caller with ECANCELED. */
	take_call(ut, f, ep, 7, &m, &t);
	UT_CHECK_EQ(ful_reply_save((unsigned)s), 0);
	UT_CHECK_EQ(ful_cap_delete((unsigned)s), 0);
	IT_REPORT(f, &m, IT_R_CALL);
	UT_CHECK_EQ(m.mr[0], -FUL_ECANCELED);

	/* A new message cancels the reply we neither sent nor saved. */
	take_call(ut, f, ep, 8, &m, &t);
	it_peer(f, it_core(2), IT_ARG0(IT_SENDER, 0), 1, ep, FUL_R_WRITE, 0, &err);
	IT_OK(err);
	UT_CHECK_EQ(ful_recv(ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), IT_L_SEQ);
	UT_CHECK_EQ(ful_reply(&m), -FUL_ESTATE); /* a SEND needs no reply */
	for (unsigned i = 0; i < 2; i++) { /* the caller's and the sender's */
		UT_CHECK_EQ(it_report(f, &m), 0);
		if (FUL_MSG_LABEL(m.info) == IT_R_CALL)
			UT_CHECK_EQ(m.mr[0], -FUL_ECANCELED);
		else
			UT_CHECK_EQ(m.mr[0], 0);
	}

	/* A reply to a caller that was killed in the meantime: EDEAD. */
	take_call(ut, f, ep, 9, &m, &t);
	UT_CHECK_EQ(ful_reply_save((unsigned)s), 0);
	UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	it_kill(t);
	m.info = FUL_MSG(1, 0);
	UT_CHECK_EQ(ful_reply_to((unsigned)s, &m), -FUL_EDEAD);
	UT_CHECK_EQ(ful_cap_info((unsigned)s), -FUL_EBADCAP); /* consumed */
}

/** A server that ends with a reply pending, unsaved or saved. */
static void reply_server_dies(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), ep2 = it_ep(f), park = it_ntfn(f), err = 0;
	struct ful_msg m;
	IT_OK(ep);
	IT_OK(ep2);
	IT_OK(park);
	/* It exits while we wait for its reply. */
	it_peer(f, it_core(1), IT_ARG0(IT_ECHO, 0), 0, (unsigned)ep,
		FUL_R_READ, 0, &err);
	IT_OK(err);
	m = (struct ful_msg){.info = FUL_MSG(IT_L_EXIT, 0)};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), -FUL_EDEAD);

	/* It dies of a fault while we wait: EDEAD too, one fault more. */
	unsigned long faults = it_faults();
	it_peer(f, it_core(2), IT_ARG0(IT_ECHO, 0), 0, (unsigned)ep,
		FUL_R_READ, 0, &err);
	IT_OK(err);
	m = (struct ful_msg){.info = FUL_MSG(IT_L_FAULT, 0)};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), -FUL_EDEAD);
	UT_CHECK_EQ(it_faults(), faults + 1);

	/* It is killed while another task waits for its reply. */
	struct ful_cap_grant g[2] = {{(unsigned)ep2, IT_SLOT_EP, FUL_R_READ, 0},
				     {(unsigned)park, IT_SLOT_PARK, FUL_R_READ, 0}};
	struct it_spawn sp = {.cpu = it_core(2), .arg0 = IT_ARG0(IT_ECHO, 0),
			      .caps = g, .ncaps = 2};
	static const unsigned labels[2] = {IT_L_HOLD, IT_L_NOREPLY};
	static const long expect[2] = {-FUL_EDEAD, -FUL_ECANCELED};
	for (unsigned i = 0; i < 2; i++) {
		struct ful_task *srv = it_start(f, &sp, &err);
		IT_OK(err);
		it_peer(f, it_core(3), IT_ARG0(IT_CALL1, 5),
			IT_CALL1_ARG1(0, labels[i]), (unsigned)ep2, FUL_R_WRITE,
			0, &err);
		IT_OK(err);
		IT_REPORT(f, &m, IT_R_HOLDING);
		UT_CHECK_EQ(m.mr[0], 0);
		/* Killing the thread and dropping the task: for a saved
		 * reply the capability dies with the task's table. */
		it_kill(srv);
		IT_REPORT(f, &m, IT_R_CALL);
		UT_CHECK_EQ(m.mr[0], expect[i]);
	}
}

static void reply_caps_body(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f);
	struct ful_msg m = {.info = FUL_MSG(1, 0)};
	IT_OK(ep);
	UT_CHECK_EQ(ful_reply(&m), -FUL_ESTATE); /* nothing pending */
	reply_out_of_order(ut, f, (unsigned)ep);
	if (!ut->failed)
		reply_cancelled(ut, f, (unsigned)ep);
	if (!ut->failed)
		reply_server_dies(ut, f);
}

UTEST(ipc_reply_caps, 1)
{
	IT_RUN(reply_caps_body);
}

/* ------------------------------------------------------------------ */
/* ipc_timeouts                                                         */

#define TMO_US 20000UL
#define TMO_LONG_US 200000UL

/** Fail unless at least @us microseconds passed since @t0. */
#define TOOK_AT_LEAST(t0, us)                                              \
	do {                                                               \
		unsigned long e_ = it_elapsed_us(t0); \
		if (e_ < (us)) {                                           \
			ut_fail(ut, __FILE__, __LINE__,                    \
				"timed out after %lu us, asked for %lu us", \
				e_, (unsigned long)(us));                  \
			return;                                            \
		}                                                          \
	} while (0)

/** Receive timeouts, and the endpoint afterwards. */
static void timeouts_recv(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0;
	struct ful_msg m = {.info = FUL_MSG(3, 0)};
	IT_OK(ep);
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, TMO_US), -FUL_ETIMEOUT);
	TOOK_AT_LEAST(t0, TMO_US);
	/* The timed-out receiver left the queue: nobody takes a send. */
	m = (struct ful_msg){.info = FUL_MSG(3, 0), .mr = {0x50}};
	UT_CHECK_EQ(ful_send((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
	/* A new receiver gets the next message, exactly once. */
	struct ful_task *t = it_peer(f, it_core(1), IT_ARG0(IT_RECV1, 0), 0,
				     (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	m.mr[0] = 0x51;
	UT_CHECK_EQ(ful_send((unsigned)ep, &m, IT_TMO), 0);
	IT_REPORT(f, &m, IT_R_RECV);
	UT_CHECK_EQ(m.mr[0], 0);
	UT_CHECK_EQ(m.mr[2], 0x51);
	m = (struct ful_msg){.info = FUL_MSG(3, 0), .mr = {0x52}};
	UT_CHECK_EQ(ful_send((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
}

/** Send and call timeouts with nobody receiving: the messages are
 *  withdrawn, a receiver finds nothing. */
static void timeouts_send(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f);
	struct ful_msg m = {.info = FUL_MSG(4, 0), .mr = {0x60}};
	IT_OK(ep);
	UT_CHECK_EQ(ful_send((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_send((unsigned)ep, &m, TMO_US), -FUL_ETIMEOUT);
	TOOK_AT_LEAST(t0, TMO_US);
	t0 = ful_counter();
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, TMO_US), -FUL_ETIMEOUT);
	TOOK_AT_LEAST(t0, TMO_US);
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
}

/** A call the server takes but never answers times out; the late reply
 *  goes nowhere; the server and endpoint keep working. */
static void timeouts_call(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0;
	IT_OK(ep);
	struct ful_task *t = it_peer(f, it_core(1), IT_ARG0(IT_ECHO, 0), 0,
				     (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	/* The server waits on the endpoint before the call's short timeout
	 * starts: a host that stops its vCPU for TMO_US while it starts
	 * left the call untaken, and no report ever came. */
	UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	struct ful_msg m = {.info = FUL_MSG(IT_L_NOREPLY, 0)};
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, TMO_US), -FUL_ETIMEOUT);
	TOOK_AT_LEAST(t0, TMO_US);
	IT_REPORT(f, &m, IT_R_HOLDING);
	UT_CHECK_EQ(m.mr[0], 0);
	m = (struct ful_msg){.info = FUL_MSG(IT_L_LATE, 0)};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), it_echo_label(IT_L_LATE));
	UT_CHECK_EQ(m.mr[0], -FUL_EDEAD); /* we no longer waited */
	m = (struct ful_msg){.info = FUL_MSG(0x99, 0), .mr = {1, 2, 3, 4}};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), it_echo_label(0x99));
	UT_CHECK_EQ(m.mr[3], it_echo_mr(4, 3));
	UT_CHECK_EQ(ful_recv((unsigned)f->report, &m, 0), -FUL_ETIMEOUT);
}

/** A long timeout is not cut short either: 0.8% early (the kernel
 *  rounding the counter frequency down to whole MHz, 62.5 -> 62) is
 *  1.6 ms here, well above the wake-up latency that hides it at 20 ms. */
static void timeouts_long(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f);
	struct ful_msg m;
	IT_OK(ep);
	unsigned long t0 = ful_counter();
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, TMO_LONG_US), -FUL_ETIMEOUT);
	TOOK_AT_LEAST(t0, TMO_LONG_US);
}

static void timeouts_body(struct ut *ut, struct it_fix *f)
{
	timeouts_recv(ut, f);
	if (!ut->failed)
		timeouts_send(ut, f);
	if (!ut->failed)
		timeouts_call(ut, f);
	if (!ut->failed)
		timeouts_long(ut, f);
}

UTEST(ipc_timeouts, 1)
{
	IT_RUN(timeouts_body);
}
