/*
 * Quiescence checks shared by the stress and torture tests: the request
 * counters, the pools, and an audit that finds every live thread on
 * exactly one queue of exactly its owner core.
 */
#ifndef KERNEL_TESTS_AUDIT_H
#define KERNEL_TESTS_AUDIT_H

#include "probe.h"

struct audit {
	uint16_t seen[MAX_THREADS]; /* places each thread slot was found */
	uint32_t bad;               /* threads found where they should not be */
};

/** CALL_FUNC on each core (arg a struct audit, static: icc.h), IRQs
 *  masked: every thread the core owns is where its state says (run
 *  queue, hand-off, current, blocked), and is counted once in seen[]. */
void audit_core(void *arg);
/** Run audit_core on every core into @a; false if a call failed. */
bool audit_all(struct audit *a);
/** Requests of @kind posted (@posted) or handled on all cores so far. */
uint64_t icc_sum(bool posted, unsigned kind);
/** No pool record outstanding, no thread in flight, no wake-up record
 *  on a mailbox. */
bool pools_idle(void);

#endif
