/* Console input for user space (coninput.c): a ring the UART's receive
 * interrupt fills, one bound notification, non-blocking reads. */
#ifndef KERNEL_CONINPUT_H
#define KERNEL_CONINPUT_H

#include "types.h"

struct ntfn;

/** UART receive interrupt (core 0, IRQ context): buffer what arrived
 *  and signal the bound notification. */
void coninput_rx(void);
/** The kernel debug monitor takes the UART (boot argument kdebug): from
 *  now on bind and read answer -FUL_ESTATE. */
void coninput_monitor(void);
/**
 * Bind @n (signalled with @bits when bytes arrive; at once if some are
 * buffered) and enable the receive interrupt. Rebinding the bound @n
 * changes its bits. -FUL_ESTATE if the monitor owns the UART or another
 * notification that still has capabilities is bound. IRQs masked.
 */
int coninput_bind(struct ntfn *n, uint64_t bits);
/** @n lost its last capability (ntfn_orphan): if it is bound, unbind it
 *  and drop the kernel's reference. Any context. */
void coninput_forget(struct ntfn *n);
/** Copy up to @len buffered bytes to @out; returns how many (0: none).
 *  -FUL_ESTATE unless @n is the bound notification. IRQs masked. */
int coninput_read(struct ntfn *n, char *out, unsigned len);

#endif
