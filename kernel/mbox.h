/*
 * The per-core mailbox queue (portable, host-tested): a lock-free
 * multi-producer, single-consumer intrusive list.
 *
 * Producers push with one compare-and-swap on the head (release); the
 * consumer detaches the whole list with one exchange (acquire) and
 * reverses it, so it sees every request exactly once, in the order the
 * pushes took effect (per-producer FIFO included). A push never waits
 * for the consumer and the queue can never be full: the request record
 * is the node. mbox_push returns true when the list was empty, the only
 * case where the consumer may be idle and needs a signal (IPI_ICC);
 * otherwise an IPI is already owed or in flight and the consumer will
 * see the node in the same drain. No ABA problem: nodes are only ever
 * removed all at once.
 */
#ifndef KERNEL_MBOX_H
#define KERNEL_MBOX_H

#include "types.h"

struct mbox_node {
	struct mbox_node *next;
};

struct mbox {
	_Atomic(struct mbox_node *) head;
};

/** Any core. @n must not be on any mailbox. Returns true if the mailbox
 *  was empty (the caller owes the owner a signal). */
static inline bool mbox_push(struct mbox *m, struct mbox_node *n)
{
	struct mbox_node *old =
		atomic_load_explicit(&m->head, memory_order_relaxed);
	do {
		n->next = old;
	} while (!atomic_compare_exchange_weak_explicit(
		&m->head, &old, n, memory_order_release, memory_order_relaxed));
	return old == NULL;
}

/** Owner only. Detach all pending nodes; return them oldest first. */
static inline struct mbox_node *mbox_take_all(struct mbox *m)
{
	struct mbox_node *l =
		atomic_exchange_explicit(&m->head, NULL, memory_order_acquire);
	struct mbox_node *fifo = NULL;
	while (l) {
		struct mbox_node *next = l->next;
		l->next = fifo;
		fifo = l;
		l = next;
	}
	return fifo;
}

/** Owner only. Detach the contents if they are exactly node @n (pushed
 *  alone): true, and the mailbox is empty. False, and nothing taken, if
 *  it is empty or holds anything else. Nodes are removed only by the
 *  owner, so @n at the head cannot be taken and pushed again between
 *  the check and the exchange (no ABA); a concurrent push fails it. */
static inline bool mbox_take_only(struct mbox *m, struct mbox_node *n)
{
	struct mbox_node *head =
		atomic_load_explicit(&m->head, memory_order_acquire);
	if (head != n || n->next)
		return false;
	return atomic_compare_exchange_strong_explicit(
		&m->head, &head, NULL, memory_order_acquire,
		memory_order_relaxed);
}

static inline bool mbox_empty(struct mbox *m)
{
	return atomic_load_explicit(&m->head, memory_order_relaxed) == NULL;
}

#endif
