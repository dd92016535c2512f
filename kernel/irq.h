/* User-level interrupt handlers (irq.c). */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include "types.h"

struct thread;

/** @t, which has bound SPIs (t->irq_bound), now belongs to core @dest:
 *  route the SPIs it bound there. Any context. */
void irq_thread_moved(struct thread *t, unsigned dest);

#endif
