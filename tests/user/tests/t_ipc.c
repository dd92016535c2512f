/*
 * IPC tests between tasks, part 1: the helpers of t_ipc.h, and
 *   ipc_call_reply  registers, label, length and payload of call/reply
 *   ipc_ordering    per-sender order, no loss or duplicates, FIFO queues
 *   ipc_badges      badges per client, unbadged copies, no re-badging
 * Reply capabilities and timeouts are in t_ipc_reply.c, cross-core pairs
 * and migration in t_ipc_xcore.c, IPC under migrations, kills and racing
 * timeouts in t_ipc_stress.c, notifications and object deletion in
 * t_ntfn.c, isolation in t_isolation.c.
 */
#include <stdio.h>
#include <string.h>

#include "t_ipc.h"

/* ------------------------------------------------------------------ */
/* helpers                                                              */

static struct it_fix fix;

struct it_fix *it_fix_get(void)
{
	memset(&fix, 0, sizeof fix);
	return &fix;
}

/** Record @slot in @f; false (slot dropped) if the table is full. */
static long it_track(struct it_fix *f, long slot)
{
	if (slot < 0)
		return slot;
	if (f->nslots == IT_MAX_SLOTS) {
		ful_slot_drop((unsigned)slot);
		return -FUL_ENOMEM;
	}
	f->slots[f->nslots++] = (unsigned)slot;
	return slot;
}

long it_ep(struct it_fix *f)
{
	return it_track(f, ut_ep_new());
}

long it_ntfn(struct it_fix *f)
{
	return it_track(f, ut_ntfn_new());
}

long it_slot(struct it_fix *f)
{
	return it_track(f, ful_slot_alloc());
}

void it_kill(struct ful_task *t)
{
	if (t->thread || t->vs)
		ful_task_destroy(t);
}

void it_cleanup(struct it_fix *f)
{
	for (unsigned i = 0; i < f->ntasks; i++)
		it_kill(&f->tasks[i]);
	for (unsigned i = 0; i < f->nslots; i++)
		ful_slot_drop(f->slots[i]);
	f->ntasks = f->nslots = 0;
	f->report = 0;
}

struct ful_task *it_start(struct it_fix *f, const struct it_spawn *s,
			  long *err)
{
	if (f->ntasks == IT_MAX_TASKS) {
		*err = -FUL_ENOMEM;
		return NULL;
	}
	if (!f->report) {
		long ep = it_ep(f);
		if ((*err = ep) < 0)
			return NULL;
		f->report = (unsigned)ep;
	}
	int mod = ful_module_find(s->prog ? s->prog : "ipctest");
	if ((*err = mod) < 0)
		return NULL;
	struct ful_spawn_args a = {
		.module = (unsigned)mod, .cpu = s->cpu, .prio = 100,
		.arg0 = s->arg0, .arg1 = s->arg1, .vs_rights = s->vs_rights,
		.report_ep = f->report, .report_badge = f->ntasks + 1,
		.caps = s->caps, .ncaps = s->ncaps,
	};
	struct ful_task *t = &f->tasks[f->ntasks];
	if ((*err = ful_spawn(&a, t)) < 0)
		return NULL;
	f->ntasks++;
	return t;
}

struct ful_task *it_peer(struct it_fix *f, unsigned cpu, unsigned long arg0,
			 unsigned long arg1, unsigned cap, unsigned rights,
			 unsigned long badge, long *err)
{
	struct ful_cap_grant g = {cap, IT_SLOT_EP, rights, badge};
	struct it_spawn s = {.cpu = cpu, .arg0 = arg0, .arg1 = arg1,
			     .caps = &g, .ncaps = cap ? 1 : 0};
	return it_start(f, &s, err);
}

long it_report(struct it_fix *f, struct ful_msg *m)
{
	if (!f->report)
		return -FUL_EBADCAP;
	return ful_recv(f->report, m, IT_TMO);
}

long it_sender(const struct it_fix *f, const struct ful_msg *m)
{
	return m->badge >= 1 && m->badge <= f->ntasks ? (long)m->badge - 1 : -1;
}

long it_state(unsigned slot)
{
	struct ful_thread_info info;
	long err = ful_thread_info(slot, &info);
	return err < 0 ? err : (long)info.state;
}

long it_cpu_of(unsigned slot)
{
	struct ful_thread_info info;
	long err = ful_thread_info(slot, &info);
	return err < 0 ? err : (long)info.cpu;
}

unsigned long it_elapsed_us(unsigned long t0)
{
	unsigned long ticks = ful_counter() - t0, f = ful_counter_freq();
	return ticks / f * 1000000UL + ticks % f * 1000000UL / f;
}

unsigned it_core(unsigned i)
{
	return i % ut_ncpus();
}

unsigned long it_faults(void)
{
	struct ful_sysinfo si;
	return ful_sysinfo(&si) < 0 ? ~0UL : si.faults;
}

/* ------------------------------------------------------------------ */
/* ipc_call_reply                                                       */

/** Call the echo server at @ep with @len payload bytes made from @seed
 *  and check every part of the reply, and that nothing past @len of the
 *  IPC buffer was written. */
static void echo_check(struct ut *ut, unsigned ep, size_t len,
		       unsigned long seed)
{
	unsigned char *buf = ful_ipcbuf(), expect[FUL_IPCBUF_SIZE];
	unsigned long s = seed, label = seed & 0xffffff, mr[4];
	struct ful_msg m = {.info = FUL_MSG(label, len)};
	for (unsigned k = 0; k < 4; k++)
		mr[k] = m.mr[k] = it_rand(&s);
	for (size_t i = 0; i < FUL_IPCBUF_SIZE; i++)
		buf[i] = expect[i] = i < len ? (unsigned char)it_rand(&s) : 0xc3;
	it_echo_buf(expect, len);
	UT_CHECK_EQ(ful_call(ep, &m, IT_TMO), 0);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), it_echo_label(label));
	UT_CHECK_EQ(FUL_MSG_LEN(m.info), len);
	UT_CHECK_EQ(m.badge, 0);
	for (unsigned k = 0; k < 4; k++)
		UT_CHECK_EQ(m.mr[k], it_echo_mr(mr[k], k));
	for (size_t i = 0; i < FUL_IPCBUF_SIZE; i++)
		if (buf[i] != expect[i]) {
			ut_fail(ut, __FILE__, __LINE__,
				"len %zu: byte %zu of the IPC buffer is %#x, "
				"expected %#x%s", len, i, buf[i], expect[i],
				i >= len ? " (written past the length)" : "");
			return;
		}
}

/** The number of messages the echo server at @ep has handled, counting
 *  this query. */
static long echo_served(unsigned ep)
{
	struct ful_msg m = {.info = FUL_MSG(IT_L_INFO, 0)};
	long rc = ful_call(ep, &m, IT_TMO);
	return rc < 0 ? rc : (long)m.mr[3];
}

/**
 * A CALL with known values in x9..x17: the ABI says the kernel preserves
 * every register but x0..x7. Returns the index of the first changed
 * register (8..17), 0 if none; *@rc gets x0.
 */
static int call_clobbers(unsigned ep, long *rc)
{
	static const unsigned long want[10] = {FUL_SYS_CALL, 0x9999, 0xa0a0,
					       0xb1b1, 0xc2c2, 0xd3d3, 0xe4e4,
					       0xf5f5, 0x1616, 0x1717};
	unsigned long got[10];
	register unsigned long x0 __asm__("x0") = ep;
	register unsigned long x1 __asm__("x1") = FUL_MSG(0x77, 0);
	register unsigned long x2 __asm__("x2") = 1, x3 __asm__("x3") = 2;
	register unsigned long x4 __asm__("x4") = 3, x5 __asm__("x5") = 4;
	register unsigned long x6 __asm__("x6") = IT_TMO, x7 __asm__("x7") = 0;
	register unsigned long x8 __asm__("x8") = FUL_SYS_CALL;
	__asm__ volatile("mov x9, #0x9999\n\tmov x10, #0xa0a0\n\t"
			 "mov x11, #0xb1b1\n\tmov x12, #0xc2c2\n\t"
			 "mov x13, #0xd3d3\n\tmov x14, #0xe4e4\n\t"
			 "mov x15, #0xf5f5\n\tmov x16, #0x1616\n\t"
			 "mov x17, #0x1717\n\t"
			 "svc #0\n\t"
			 "stp x8, x9, [%9]\n\tstp x10, x11, [%9, #16]\n\t"
			 "stp x12, x13, [%9, #32]\n\tstp x14, x15, [%9, #48]\n\t"
			 "stp x16, x17, [%9, #64]"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4),
			   "+r"(x5), "+r"(x6), "+r"(x7), "+r"(x8)
			 : "r"(got)
			 : "x9", "x10", "x11", "x12", "x13", "x14", "x15",
			   "x16", "x17", "memory");
	*rc = (long)x0;
	for (int i = 0; i < 10; i++)
		if (got[i] != want[i])
			return 8 + i;
	return 0;
}

static void call_reply_body(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), err = 0, rc;
	IT_OK(ep);
	struct ful_task *srv = it_peer(f, it_core(ut_ncpus() - 1), IT_ARG0(IT_ECHO, 1),
				       0, (unsigned)ep, FUL_R_READ, 0, &err);
	IT_OK(err);
	(void)srv;
	static const size_t lens[] = {0, 0, 1, 7, 8, 9, 64, 255, 256, 511, 512, 512};
	for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		echo_check(ut, (unsigned)ep, lens[i], 0x1234567 + i * 977);
		if (ut->failed)
			return;
	}
	/* Oversized or malformed messages are refused and never arrive. */
	long before = echo_served((unsigned)ep);
	IT_OK(before);
	struct ful_msg m = {.info = FUL_MSG(1, FUL_IPCBUF_SIZE + 1)};
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), -FUL_ERANGE);
	m.info = FUL_MSG(1, 1023);
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), -FUL_ERANGE);
	m.info = FUL_MSG(1, FUL_IPCBUF_SIZE + 1);
	UT_CHECK_EQ(ful_send((unsigned)ep, &m, IT_TMO), -FUL_ERANGE);
	m.info = FUL_MSG(1, 0) | 0x400; /* bit 10: not part of the length */
	UT_CHECK_EQ(ful_call((unsigned)ep, &m, IT_TMO), -FUL_EINVAL);
	UT_CHECK_EQ(echo_served((unsigned)ep), before + 1);
	/* Registers other than x0..x7 survive a call. */
	int bad = call_clobbers((unsigned)ep, &rc);
	UT_CHECK_EQ(rc, 0);
	if (bad) {
		ut_fail(ut, __FILE__, __LINE__, "CALL changed x%d", bad);
		return;
	}
	/* And the server keeps working after all that. */
	echo_check(ut, (unsigned)ep, 512, 0xfeed);
}

UTEST(ipc_call_reply, 1)
{
	IT_RUN(call_reply_body);
}

/* ------------------------------------------------------------------ */
/* ipc_ordering                                                         */

#define ORD_MSGS 250
#define ORD_MAX_SENDERS 8

/** Receive one IT_SENDER message on @ep and check it continues the
 *  sequence of its sender (@next[id]); @badge0 + id is its badge. */
static void ordered_recv(struct ut *ut, unsigned ep, unsigned nsenders,
			 unsigned long *next, unsigned long badge0)
{
	struct ful_msg m;
	const unsigned long *p = ful_ipcbuf();
	UT_CHECK_EQ(ful_recv(ep, &m, IT_TMO), 0);
	unsigned long id = m.mr[0], seq = m.mr[1];
	if (id >= nsenders) {
		ut_fail(ut, __FILE__, __LINE__, "message from unknown sender %lu", id);
		return;
	}
	UT_CHECK_EQ(m.badge, badge0 + id);
	UT_CHECK_EQ(FUL_MSG_LABEL(m.info), IT_L_SEQ);
	UT_CHECK_EQ(FUL_MSG_LEN(m.info), IT_SEQ_LEN);
	if (seq != next[id]) {
		ut_fail(ut, __FILE__, __LINE__,
			"sender %lu: message %lu arrived when %lu was due "
			"(%s)", id, seq, next[id],
			seq < next[id] ? "duplicate or reordered" : "lost or reordered");
		return;
	}
	UT_CHECK_EQ(m.mr[2], ~seq);
	UT_CHECK_EQ(m.mr[3], it_seq_tag(id, seq));
	UT_CHECK_EQ(p[0], id);
	UT_CHECK_EQ(p[1], seq);
	next[id]++;
}

/** Senders on every core each SEND ORD_MSGS numbered messages. */
static void ordering_streams(struct ut *ut, struct it_fix *f)
{
	unsigned n = ut_ncpus() < 4 ? 4 : ut_ncpus();
	unsigned long next[ORD_MAX_SENDERS] = {0};
	long ep = it_ep(f), err = 0;
	IT_OK(ep);
	if (n > ORD_MAX_SENDERS)
		n = ORD_MAX_SENDERS;
	for (unsigned i = 0; i < n; i++) {
		it_peer(f, it_core(i), IT_ARG0(IT_SENDER, i), ORD_MSGS,
			(unsigned)ep, FUL_R_WRITE, 0x100 + i, &err);
		IT_OK(err);
	}
	for (unsigned k = 0; k < n * ORD_MSGS; k++) {
		ordered_recv(ut, (unsigned)ep, n, next, 0x100);
		if (ut->failed)
			return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct ful_msg m;
		IT_REPORT(f, &m, IT_R_DONE);
		UT_CHECK_EQ(m.mr[0], 0);
		UT_CHECK_EQ(m.mr[2], ORD_MSGS);
	}
	struct ful_msg m;
	UT_CHECK_EQ(ful_recv((unsigned)ep, &m, 0), -FUL_ETIMEOUT);
}

/** Peers that block one after another on @ep (each started once the
 *  previous one is BLOCKED) are served first come, first served. */
static void ordering_fifo(struct ut *ut, struct it_fix *f, unsigned mode)
{
	unsigned n = 4;
	long ep = it_ep(f), err = 0;
	IT_OK(ep);
	unsigned rights = mode == IT_RECV1 ? FUL_R_READ : FUL_R_WRITE;
	unsigned first = f->ntasks;
	for (unsigned i = 0; i < n; i++) {
		struct ful_task *t = it_peer(f, it_core(i + 1), IT_ARG0(mode, i),
					     mode == IT_SENDER ? 1 : 0,
					     (unsigned)ep, rights, 0, &err);
		IT_OK(err);
		UT_WAIT(it_state(t->thread) == FUL_TS_BLOCKED);
	}
	for (unsigned i = 0; i < n; i++) {
		struct ful_msg m = {.info = FUL_MSG(0x42, 0), .mr = {i}};
		if (mode == IT_RECV1) {
			UT_CHECK_EQ(ful_send((unsigned)ep, &m, IT_TMO), 0);
			continue;
		}
		UT_CHECK_EQ(ful_recv((unsigned)ep, &m, IT_TMO), 0);
		UT_CHECK_EQ(m.mr[0], i); /* the i-th to block comes i-th */
		if (mode == IT_CALL1)
			UT_CHECK_EQ(ful_reply(&m), 0);
	}
	for (unsigned i = 0; i < n; i++) {
		struct ful_msg m;
		UT_CHECK_EQ(it_report(f, &m), 0);
		long who = it_sender(f, &m) - (long)first;
		UT_CHECK(who >= 0 && who < (long)n);
		UT_CHECK_EQ(m.mr[0], 0);
		if (mode == IT_RECV1) /* the i-th receiver got message i */
			UT_CHECK_EQ(m.mr[2], who);
	}
}

static void ordering_body(struct ut *ut, struct it_fix *f)
{
	ordering_streams(ut, f);
	if (ut->failed)
		return;
	static const unsigned modes[] = {IT_SENDER, IT_CALL1, IT_RECV1};
	for (unsigned i = 0; i < 3 && !ut->failed; i++)
		ordering_fifo(ut, f, modes[i]);
}

UTEST(ipc_ordering, 1)
{
	IT_RUN(ordering_body);
}

/* ------------------------------------------------------------------ */
/* ipc_badges                                                           */

static const unsigned long badges[] = {0x11, 0x2200, 0xdeadbeef00UL, 0};
#define NBADGES (sizeof badges / sizeof badges[0])

/** Clients with distinct badges (and one unbadged copy) call us: each
 *  call carries its client's badge, each reply reaches its client. */
static void badges_calls(struct ut *ut, struct it_fix *f, unsigned ep)
{
	long err = 0;
	bool seen[NBADGES] = {false};
	for (unsigned i = 0; i < NBADGES; i++) {
		it_peer(f, it_core(i), IT_ARG0(IT_CALL1, i), 0, ep,
			FUL_R_WRITE, badges[i], &err);
		IT_OK(err);
	}
	for (unsigned k = 0; k < NBADGES; k++) {
		struct ful_msg m;
		UT_CHECK_EQ(ful_recv(ep, &m, IT_TMO), 0);
		unsigned long i = m.mr[0];
		UT_CHECK(i < NBADGES && !seen[i]);
		seen[i] = true;
		UT_CHECK_EQ(m.badge, badges[i]);
		m.mr[0] = m.badge ^ 0x5a5a;
		m.info = FUL_MSG(0x77, 0);
		UT_CHECK_EQ(ful_reply(&m), 0);
	}
	for (unsigned k = 0; k < NBADGES; k++) {
		struct ful_msg m;
		IT_REPORT(f, &m, IT_R_CALL);
		long who = it_sender(f, &m);
		UT_CHECK(who >= 0 && who < (long)NBADGES);
		UT_CHECK_EQ(m.mr[0], 0);
		UT_CHECK_EQ(m.mr[1], badges[who] ^ 0x5a5a);
		UT_CHECK_EQ(m.mr[2], 0x77);
	}
}

static void badges_body(struct ut *ut, struct it_fix *f)
{
	long ep = it_ep(f), b1 = it_slot(f), b2 = it_slot(f), err = 0;
	IT_OK(ep);
	IT_OK(b1);
	IT_OK(b2);
	badges_calls(ut, f, (unsigned)ep);
	if (ut->failed)
		return;
	/* A badged capability cannot be re-badged; a plain copy keeps the
	 * badge it has. */
	IT_OK(ful_cap_copy((unsigned)ep, FUL_SLOT_SELF_VS, (unsigned)b1,
			   FUL_R_ALL, 0x77));
	UT_CHECK_EQ(ful_cap_copy((unsigned)b1, FUL_SLOT_SELF_VS, (unsigned)b2,
				 FUL_R_ALL, 0x99), -FUL_ESTATE);
	IT_OK(ful_cap_copy((unsigned)b1, FUL_SLOT_SELF_VS, (unsigned)b2,
			   FUL_R_WRITE, 0));
	it_peer(f, it_core(1), IT_ARG0(IT_RECV1, 0), 0, (unsigned)ep,
		FUL_R_READ, 0, &err);
	IT_OK(err);
	struct ful_msg m = {.info = FUL_MSG(5, 0), .mr = {0xabc}};
	UT_CHECK_EQ(ful_send((unsigned)b2, &m, IT_TMO), 0);
	IT_REPORT(f, &m, IT_R_RECV);
	UT_CHECK_EQ(m.mr[0], 0);
	UT_CHECK_EQ(m.mr[1], 0x77); /* the badge */
	UT_CHECK_EQ(m.mr[2], 0xabc);
}

UTEST(ipc_badges, 1)
{
	IT_RUN(badges_body);
}
