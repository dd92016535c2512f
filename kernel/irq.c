/*
 * User-level interrupts, in the shape of seL4's IRQHandler. The
 * rootserver holds the IRQ control capability (FUL_CAP_IRQCTL); IRQ_GET
 * makes the one handler capability (FUL_CAP_IRQ) of an SPI, which may be
 * copied but not made twice. IRQ_BIND ties the SPI to a notification:
 * from then on each interrupt masks the SPI at the distributor, ends at
 * the CPU interface and signals the bits; the driver does its work and
 * IRQ_ACK unmasks the SPI, so a level-triggered device line interrupts
 * once per ack. The SPI is delivered to the core of the thread that
 * bound it, and follows that thread when it migrates
 * (thread_migrate_local calls irq_thread_moved): the handler then runs
 * where its interrupt arrives.
 *
 * One record per SPI (INTIDs 32 .. 32 + IRQ_SPIS - 1), a kernel object
 * (KOBJ_IRQ) so that deleting the last capability unbinds and masks it
 * (irq_orphan) and dropping the last reference makes it free for another
 * IRQ_GET (irq_destroy). Locks: a record's lock, then (IRQ_BIND only) a
 * notification's; the interrupt path signals the notification after
 * dropping the record's lock, with a reference taken under it.
 */
#include "irq.h"
#include "ipc.h"
#include "kernel.h"
#include "obj.h"
#include "syscall.h"

#define IRQ_SPIS 256 /* QEMU virt's GICv2 has 256 SPIs (INTID 32..287) */

struct irq_handler {
	struct kobj obj;
	spinlock_t lock;     /* guards the fields below */
	bool issued;         /* a handler capability was made, and its
			      * object still has references */
	bool dead;           /* its last capability is gone: no new bind */
	struct ntfn *ntfn;   /* bound, referenced; NULL if not bound */
	uint64_t bits;
	tid_t thread;        /* the binder: the SPI goes to its core */
	unsigned last_cpu;   /* the core its last interrupt was taken on */
};

static struct irq_handler irqs[IRQ_SPIS]; /* zero: SPINLOCK_INIT, free */

/** The record of SPI @intid, or NULL if it has none. */
static struct irq_handler *irq_of(uint64_t intid)
{
	if (intid < 32 || intid >= 32 + IRQ_SPIS || intid >= arch_irq_lines())
		return NULL;
	return &irqs[intid - 32];
}

static unsigned irq_intid(struct irq_handler *h)
{
	return (unsigned)(h - irqs) + 32;
}

/** Drop @h's binding: mask the SPI; returns the notification whose
 *  reference the caller drops after unlocking (NULL if none). h->lock. */
static struct ntfn *irq_unbind_locked(struct irq_handler *h)
{
	struct ntfn *n = h->ntfn;
	if (n) {
		arch_irq_mask(irq_intid(h));
		h->ntfn = NULL;
		struct thread *t = thread_lookup(h->thread);
		if (t)
			atomic_fetch_sub_explicit(&t->irq_bound, 1,
						  memory_order_relaxed);
	}
	return n;
}

void irq_orphan(struct kobj *o)
{
	struct irq_handler *h = container_of(o, struct irq_handler, obj);
	uint64_t flags = spin_lock_irqsave(&h->lock);
	h->dead = true;
	struct ntfn *n = irq_unbind_locked(h);
	spin_unlock_irqrestore(&h->lock, flags);
	if (n)
		obj_put(ntfn_kobj(n));
}

void irq_destroy(struct kobj *o)
{
	struct irq_handler *h = container_of(o, struct irq_handler, obj);
	uint64_t flags = spin_lock_irqsave(&h->lock);
	struct ntfn *n = irq_unbind_locked(h); /* none: orphaned first */
	h->issued = false;
	spin_unlock_irqrestore(&h->lock, flags);
	if (n)
		obj_put(ntfn_kobj(n));
}

bool irq_user_interrupt(unsigned intid)
{
	struct irq_handler *h = irq_of(intid);
	if (!h)
		return false;
	spin_lock_raw(&h->lock);
	arch_irq_mask(intid); /* until IRQ_ACK, or for good if unbound */
	h->last_cpu = this_cpu()->id;
	struct ntfn *n = h->ntfn;
	uint64_t bits = h->bits;
	if (n)
		obj_get(ntfn_kobj(n));
	spin_unlock_raw(&h->lock);
	if (!n)
		return false;
	ntfn_signal(n, bits);
	obj_put(ntfn_kobj(n));
	return true;
}

void irq_thread_moved(struct thread *t, unsigned dest)
{
	tid_t tid = atomic_load_explicit(&t->tid, memory_order_relaxed);
	for (unsigned i = 0; i < IRQ_SPIS; i++) {
		struct irq_handler *h = &irqs[i];
		uint64_t flags = spin_lock_irqsave(&h->lock);
		if (h->ntfn && h->thread == tid)
			arch_irq_route(irq_intid(h), dest);
		spin_unlock_irqrestore(&h->lock, flags);
	}
}

struct irq_handler *irq_claim(unsigned intid)
{
	struct irq_handler *h = irq_of(intid);
	if (!h)
		return NULL;
	uint64_t flags = spin_lock_irqsave(&h->lock);
	bool taken = h->issued;
	if (!taken) {
		h->issued = true;
		h->dead = false;
		obj_init(&h->obj, KOBJ_IRQ);
	}
	spin_unlock_irqrestore(&h->lock, flags);
	return taken ? NULL : h;
}

/** IRQ_GET(irqctl, dst, intid): irqctl ADMIN; dst; intid an SPI
 *  (ERANGE); not the kernel's (EINVAL); dst free and intid not issued
 *  (ESTATE). */
int64_t sys_irq_get(struct thread *t, struct arch_uregs *u)
{
	struct cap ctl;
	int occupied = cap_lookup_dst(t->vs, ARG(0), FUL_CAP_IRQCTL,
				      FUL_R_ADMIN, &ctl, ARG(1));
	if (occupied < 0)
		return occupied;
	cap_release(&ctl);
	if (!irq_of(ARG(2)))
		return -FUL_ERANGE;
	if (arch_irq_kernel_owned((unsigned)ARG(2)))
		return -FUL_EINVAL;
	if (occupied)
		return -FUL_ESTATE;
	struct irq_handler *h = irq_claim((unsigned)ARG(2));
	if (!h)
		return -FUL_ESTATE;
	struct cap c = {.type = FUL_CAP_IRQ, .rights = FUL_R_ALL, .obj = h};
	int err = cap_insert(t->vs, ARG(1), &c);
	obj_put(&h->obj); /* on failure this frees the SPI again */
	return err;
}

void irq_release(struct irq_handler *h)
{
	obj_put(&h->obj);
}

int irq_bind(struct irq_handler *h, struct ntfn *n, uint64_t bits,
	     struct thread *t, unsigned cpu)
{
	int err = 0;
	uint64_t flags = spin_lock_irqsave(&h->lock);
	if (h->ntfn || h->dead || ntfn_dead(n)) {
		err = -FUL_ESTATE;
	} else {
		obj_get(ntfn_kobj(n));
		h->ntfn = n;
		h->bits = bits;
		h->thread = atomic_load_explicit(&t->tid, memory_order_relaxed);
		atomic_fetch_add_explicit(&t->irq_bound, 1,
					  memory_order_relaxed);
		arch_irq_route(irq_intid(h), cpu);
		arch_irq_unmask(irq_intid(h));
	}
	spin_unlock_irqrestore(&h->lock, flags);
	return err;
}

/** IRQ_BIND(irq, ntfn, bits): irq ADMIN; ntfn WRITE; bits | badge != 0
 *  (EINVAL); not bound yet (ESTATE). The SPI goes to the caller's core
 *  and is unmasked. */
int64_t sys_irq_bind(struct thread *t, struct arch_uregs *u)
{
	struct cap c, n;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_IRQ, FUL_R_ADMIN, &c);
	if (err)
		return err;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_NTFN, FUL_R_WRITE, &n))) {
		cap_release(&c);
		return err;
	}
	uint64_t bits = ARG(2) | n.data;
	/* IRQs are masked: the caller stays on this core until it returns,
	 * and a later move of it reroutes the SPI. */
	err = bits ? irq_bind(c.obj, n.obj, bits, t, this_cpu()->id)
		   : -FUL_EINVAL;
	cap_release(&n);
	cap_release(&c);
	return err;
}

/** IRQ_ACK(irq): irq WRITE; bound (ESTATE). Unmasks the SPI. */
int64_t sys_irq_ack(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_IRQ, FUL_R_WRITE, &c);
	if (err)
		return err;
	struct irq_handler *h = c.obj;
	uint64_t flags = spin_lock_irqsave(&h->lock);
	if (h->ntfn)
		arch_irq_unmask(irq_intid(h));
	else
		err = -FUL_ESTATE;
	spin_unlock_irqrestore(&h->lock, flags);
	cap_release(&c);
	return err;
}

int irq_unbind(struct irq_handler *h)
{
	uint64_t flags = spin_lock_irqsave(&h->lock);
	struct ntfn *n = irq_unbind_locked(h);
	spin_unlock_irqrestore(&h->lock, flags);
	if (n)
		obj_put(ntfn_kobj(n));
	return n ? 0 : -FUL_ESTATE;
}

unsigned irq_last_cpu(struct irq_handler *h)
{
	uint64_t flags = spin_lock_irqsave(&h->lock);
	unsigned cpu = h->last_cpu;
	spin_unlock_irqrestore(&h->lock, flags);
	return cpu;
}

/** IRQ_UNBIND(irq): irq ADMIN; bound (ESTATE). Masks the SPI. */
int64_t sys_irq_unbind(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_IRQ, FUL_R_ADMIN, &c);
	if (err)
		return err;
	err = irq_unbind(c.obj);
	cap_release(&c);
	return err;
}
