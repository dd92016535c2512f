/* User-level interrupt handlers (irq.c). */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include "types.h"

struct thread;
struct irq_handler;
struct ntfn;

/** The handler record of SPI @intid with one reference (drop it with
 *  obj_put; the last one frees the SPI), or NULL if it has none or one
 *  was made already. The kernel half of IRQ_GET (tests use it). */
struct irq_handler *irq_claim(unsigned intid);
/** Drop a reference irq_claim gave (the last one frees the SPI). */
void irq_release(struct irq_handler *h);
/** Bind @h to @n with @bits for thread @t, the SPI routed to @cpu and
 *  unmasked. 0 or -FUL_ESTATE (bound, orphaned, or @n dead). */
int irq_bind(struct irq_handler *h, struct ntfn *n, uint64_t bits,
	     struct thread *t, unsigned cpu);
/** Unbind and mask: 0, or -FUL_ESTATE if not bound. */
int irq_unbind(struct irq_handler *h);
/** The core @h's last interrupt was taken on. */
unsigned irq_last_cpu(struct irq_handler *h);

/** @t, which has bound SPIs (t->irq_bound), now belongs to core @dest:
 *  route the SPIs it bound there. Any context. */
void irq_thread_moved(struct thread *t, unsigned dest);

#endif
