/*
 * Helpers shared by the IPC, notification and isolation tests
 * (t_ipc*.c, t_ntfn.c, t_isolation.c), defined in t_ipc.c.
 *
 * Each test body gets a fixture (struct it_fix) that records the tasks
 * and capability slots it makes; it_cleanup() undoes them whether the
 * body passed or failed, so a failing test does not leave senders or
 * servers behind to disturb the next one. Peer tasks are the programs
 * ipctest and faulter (tests/user/ipctest/ipctest.h, tests/user/faulter/faulter.h).
 */
#ifndef ROOT_T_IPC_H
#define ROOT_T_IPC_H

#include <ful/spawn.h>

#include "../ipctest/ipctest.h"
#include "utest.h"

#define IT_MAX_TASKS 128
#define IT_MAX_SLOTS 128

/* Timeout of every wait of the rootserver in these tests: a hang
 * becomes a failure, never a stuck run. */
#define IT_TMO UT_TIMEOUT_US

struct it_fix {
	struct ful_task tasks[IT_MAX_TASKS];
	unsigned ntasks;
	unsigned slots[IT_MAX_SLOTS]; /* deleted and freed by it_cleanup */
	unsigned nslots;
	unsigned report; /* the report endpoint, made by the first it_start */
};

struct it_spawn {
	const char *prog; /* NULL: "ipctest" */
	unsigned cpu;
	unsigned long arg0, arg1;
	const struct ful_cap_grant *caps; /* child slots 4..7 */
	unsigned ncaps;
	unsigned vs_rights; /* its own task in its slot 1 (0: none) */
};

/** Run @body(ut, fixture), then clean up after it. */
#define IT_RUN(body)                                                   \
	do {                                                           \
		struct it_fix *f_ = it_fix_get();                      \
		body(ut, f_);                                          \
		it_cleanup(f_);                                        \
	} while (0)

/** Fail the test and return if @expr (a -FUL_E* / >= 0 result) < 0. */
#define IT_OK(expr)                                                        \
	do {                                                               \
		long r_ = (long)(expr);                                    \
		if (r_ < 0) {                                              \
			ut_fail(ut, __FILE__, __LINE__, "%s failed: %ld",  \
				#expr, r_);                                \
			return;                                            \
		}                                                          \
	} while (0)

/** Receive the next report into *@m; fail unless its label is @lbl. */
#define IT_REPORT(f, m, lbl)                                               \
	do {                                                               \
		long r_ = it_report((f), (m));                             \
		if (r_ < 0) {                                              \
			ut_fail(ut, __FILE__, __LINE__,                    \
				"no report %s from a peer (%ld)", #lbl, r_); \
			return;                                            \
		}                                                          \
		if (FUL_MSG_LABEL((m)->info) != (lbl)) {                   \
			ut_fail(ut, __FILE__, __LINE__,                    \
				"report %#lx (mr0 %ld) from peer %lu, "    \
				"expected %s",                             \
				FUL_MSG_LABEL((m)->info), (long)(m)->mr[0], \
				(m)->badge, #lbl);                         \
			return;                                            \
		}                                                          \
	} while (0)

/** A zeroed fixture (one at a time: tests run one after another). */
struct it_fix *it_fix_get(void);
/** Kill every task of @f and delete every slot it recorded. */
void it_cleanup(struct it_fix *f);
/** A new endpoint / notification / empty slot, recorded in @f. */
long it_ep(struct it_fix *f);
long it_ntfn(struct it_fix *f);
long it_slot(struct it_fix *f);
/** Start a peer task; its reports carry badge = its index in @f + 1.
 *  Returns the task (recorded in @f) or NULL with *@err set. */
struct ful_task *it_start(struct it_fix *f, const struct it_spawn *s,
			  long *err);
/** Start ipctest with @arg0/@arg1 on @cpu, with a copy of @cap (with
 *  @rights and @badge) in IT_SLOT_EP; NULL with *@err on failure. */
struct ful_task *it_peer(struct it_fix *f, unsigned cpu, unsigned long arg0,
			 unsigned long arg1, unsigned cap, unsigned rights,
			 unsigned long badge, long *err);
/** Kill @t now (its slots are freed; it stays recorded, emptied). */
void it_kill(struct ful_task *t);
/** The next report from a peer of @f (RECV with IT_TMO). */
long it_report(struct it_fix *f, struct ful_msg *m);
/** The index in @f of the peer that sent report @m (-1 if none). */
long it_sender(const struct it_fix *f, const struct ful_msg *m);
/** THREAD_INFO state (enum ful_thread_state) of @slot, or -FUL_E*. */
long it_state(unsigned slot);
/** THREAD_INFO core of @slot, or -FUL_E*. */
long it_cpu_of(unsigned slot);
/** Microseconds since counter value @t0, exactly (no rounding down of
 *  the counter frequency). */
unsigned long it_elapsed_us(unsigned long t0);
/** The core to use for the @i-th peer: @i modulo the number of cores. */
unsigned it_core(unsigned i);
/** Faults counted so far (ful_sysinfo). */
unsigned long it_faults(void);

#endif
