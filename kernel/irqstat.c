/*
 * IRQ-masked stretches (kernel/irqstat.h): the figures each core of the
 * instrumented kernel keeps, and FUL_SYS_IRQSTAT, which reads and resets
 * one core's. Compiled in both kernels; without FUL_IRQSTAT only the
 * system call is here, and it answers -FUL_ENOSYS.
 */
#include "kernel.h"
#include "irqstat.h"
#include "syscall.h"
#include "vspace.h"
#include <fulcrum/irqstat.h>

#ifdef FUL_IRQSTAT

void irqstat_open(struct cpu *c, uint64_t t0, uint32_t cause)
{
	struct cpu_irqstat *q = &c->irqstat;
	if (q->open)
		return;
	q->open = true;
	q->t0 = t0;
	q->cause = cause;
}

void irqstat_close(struct cpu *c, uint64_t now, uint32_t end)
{
	struct cpu_irqstat *q = &c->irqstat;
	if (!q->open)
		return;
	q->open = false;
	/* seqcount: odd while fig changes; readers on other cores retry */
	uint32_t s = atomic_load_explicit(&q->seq, memory_order_relaxed);
	atomic_store_explicit(&q->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	irqstat_add(&q->fig, now > q->t0 ? now - q->t0 : 0, q->t0, q->cause,
		    end);
	atomic_store_explicit(&q->seq, s + 2, memory_order_release);
}

/** Copy core @c's figures to @out through its seqcount: 0, or
 *  -FUL_EAGAIN if the owner kept writing them (a bounded retry). Any
 *  core; the owner's own read is never torn (IRQs masked meanwhile). */
static int irqstat_read(struct cpu *c, struct ful_irqstat *out)
{
	struct cpu_irqstat *q = &c->irqstat;
	for (int tries = 0; tries < 10000; tries++) {
		uint32_t s = atomic_load_explicit(&q->seq,
						  memory_order_acquire);
		if (s & 1) {
			arch_cpu_relax();
			continue;
		}
		memcpy(out, &q->fig, sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&q->seq, memory_order_relaxed) == s) {
			out->now = arch_cycles();
			return 0;
		}
	}
	return -FUL_EAGAIN;
}

/** ICC handler, on the owner core with IRQs masked: clear its figures;
 *  the stretch running now (this call's own) restarts at the reset. */
static void irqstat_reset_here(void *arg)
{
	(void)arg;
	struct cpu *c = this_cpu();
	struct cpu_irqstat *q = &c->irqstat;
	uint64_t now = arch_cycles();
	uint32_t s = atomic_load_explicit(&q->seq, memory_order_relaxed);
	atomic_store_explicit(&q->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memset(&q->fig, 0, sizeof(q->fig));
	q->fig.since = now;
	if (q->open)
		q->t0 = now;
	atomic_store_explicit(&q->seq, s + 2, memory_order_release);
}

/**
 * FUL_SYS_IRQSTAT(sched, cpu, buf, flags): copy core @cpu's figures to
 * user @buf (0: no copy), then with FUL_IRQSTAT_RESET clear them.
 * Checked in the ABI's order: the SCHED capability with ADMIN, @buf
 * writable (EFAULT), @cpu online and @flags known (EINVAL). The reset
 * runs on @cpu (an ICC call: EAGAIN, ETIMEOUT as icc_call_copy).
 * Thread context.
 */
int64_t sys_irqstat(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err)
		return err;
	uint64_t buf = ARG(2), flags = ARG(3);
	if (buf && (err = vspace_check(t->vs, buf, sizeof(struct ful_irqstat),
				       FUL_R_WRITE)))
		return err;
	if (ARG(1) >= MAX_CPUS || !cpu_is_online((unsigned)ARG(1)) ||
	    (flags & ~(uint64_t)FUL_IRQSTAT_RESET))
		return -FUL_EINVAL;
	struct cpu *c = &cpus[ARG(1)];
	if (buf) {
		struct ful_irqstat fig;
		if ((err = irqstat_read(c, &fig)) ||
		    (err = vspace_copy_out(t->vs, buf, &fig, sizeof(fig))))
			return err;
	}
	if (flags & FUL_IRQSTAT_RESET) {
		uint64_t none = 0;
		err = icc_call_copy((unsigned)ARG(1), irqstat_reset_here, &none,
				    sizeof(none));
	}
	return err;
}

#else /* !FUL_IRQSTAT: the default kernel keeps no figures */

int64_t sys_irqstat(struct thread *t, struct arch_uregs *u)
{
	(void)t;
	(void)u;
	return -FUL_ENOSYS;
}

#endif
