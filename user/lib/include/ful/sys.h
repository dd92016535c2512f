/*
 * Typed wrappers, one per system call in <fulcrum/syscall.h>. All are
 * inline over ful_syscall(). Each returns the kernel's x0: >= 0 on
 * success, -FUL_E* (<fulcrum/errno.h>) on failure. Capability slots are
 * indices into the caller's capability table (0 < slot < FUL_CSLOTS).
 */
#ifndef FUL_SYS_H
#define FUL_SYS_H

#include <ful/syscall_raw.h>
#include <fulcrum/errno.h>
#include <fulcrum/irqstat.h>
#include <fulcrum/load.h>

/* A message: four registers plus a label and a length of IPC-buffer bytes
 * (info, FUL_MSG()). On receive the kernel also fills in the badge of the
 * capability the sender used. */
struct ful_msg {
	unsigned long badge, info, mr[4];
};

#define FUL__SC(nr, a0, a1, a2, a3, a4, a5, a6)                             \
	ful_syscall((nr), (unsigned long)(a0), (unsigned long)(a1),        \
		    (unsigned long)(a2), (unsigned long)(a3),              \
		    (unsigned long)(a4), (unsigned long)(a5),              \
		    (unsigned long)(a6))

/** Store a received message from @r into @m, unless the call failed. */
static inline long ful__msg_in(struct ful_msg *m, struct ful_ret r)
{
	if (r.x0 >= 0) {
		m->badge = r.x1;
		m->mr[0] = r.x2;
		m->mr[1] = r.x3;
		m->mr[2] = r.x4;
		m->mr[3] = r.x5;
		m->info = r.x6;
	}
	return r.x0;
}

static inline long ful_debug_write(const char *s, unsigned long len)
{
	return FUL__SC(FUL_SYS_DEBUG_WRITE, s, len, 0, 0, 0, 0, 0).x0;
}

static inline long ful_yield(void)
{
	return FUL__SC(FUL_SYS_YIELD, 0, 0, 0, 0, 0, 0, 0).x0;
}

/** End the calling thread (only it: other threads of the task go on). */
static inline _Noreturn void ful_exit(void)
{
	for (;;)
		FUL__SC(FUL_SYS_EXIT, 0, 0, 0, 0, 0, 0, 0);
}

/* ---- IPC (timeouts in microseconds; 0 polls, FUL_FOREVER waits) ---- */

static inline long ful_send(unsigned ep, const struct ful_msg *m,
			    unsigned long timeout)
{
	return FUL__SC(FUL_SYS_SEND, ep, m->info, m->mr[0], m->mr[1],
		       m->mr[2], m->mr[3], timeout).x0;
}

/** Receive on @ep into @m (badge, info, mr). */
static inline long ful_recv(unsigned ep, struct ful_msg *m,
			    unsigned long timeout)
{
	return ful__msg_in(m, FUL__SC(FUL_SYS_RECV, ep, 0, 0, 0, 0, 0, timeout));
}

/** Send @m on @ep and wait for the reply, which replaces @m. */
static inline long ful_call(unsigned ep, struct ful_msg *m,
			    unsigned long timeout)
{
	return ful__msg_in(m, FUL__SC(FUL_SYS_CALL, ep, m->info, m->mr[0],
				      m->mr[1], m->mr[2], m->mr[3], timeout));
}

/** Reply to the caller this thread last received from. */
static inline long ful_reply(const struct ful_msg *m)
{
	return FUL__SC(FUL_SYS_REPLY, 0, m->info, m->mr[0], m->mr[1],
		       m->mr[2], m->mr[3], 0).x0;
}

/** Reply with @m, then receive the next message on @ep into @m. */
static inline long ful_reply_recv(unsigned ep, struct ful_msg *m,
				  unsigned long timeout)
{
	return ful__msg_in(m, FUL__SC(FUL_SYS_REPLY_RECV, ep, m->info,
				      m->mr[0], m->mr[1], m->mr[2], m->mr[3],
				      timeout));
}

/** Move the pending reply right into slot @dst (answer it later). */
static inline long ful_reply_save(unsigned dst)
{
	return FUL__SC(FUL_SYS_REPLY_SAVE, dst, 0, 0, 0, 0, 0, 0).x0;
}

/** Reply with @m through the saved reply capability @reply (consumed). */
static inline long ful_reply_to(unsigned reply, const struct ful_msg *m)
{
	return FUL__SC(FUL_SYS_REPLY_TO, reply, m->info, m->mr[0], m->mr[1],
		       m->mr[2], m->mr[3], 0).x0;
}

/* ---- notifications ---- */

static inline long ful_ntfn_signal(unsigned ntfn, unsigned long bits)
{
	return FUL__SC(FUL_SYS_NTFN_SIGNAL, ntfn, bits, 0, 0, 0, 0, 0).x0;
}

/** Wait for any bit of @ntfn; the bits taken go to *@bits (may be NULL). */
static inline long ful_ntfn_wait(unsigned ntfn, unsigned long *bits,
				 unsigned long timeout)
{
	struct ful_ret r = FUL__SC(FUL_SYS_NTFN_WAIT, ntfn, 0, 0, 0, 0, 0, timeout);
	if (r.x0 >= 0 && bits)
		*bits = r.x1;
	return r.x0;
}

static inline long ful_ntfn_poll(unsigned ntfn, unsigned long *bits)
{
	struct ful_ret r = FUL__SC(FUL_SYS_NTFN_POLL, ntfn, 0, 0, 0, 0, 0, 0);
	if (r.x0 >= 0 && bits)
		*bits = r.x1;
	return r.x0;
}

/* ---- capabilities ---- */

/** Copy @src into slot @dst of the task @dst_vs (a vspace cap), with
 *  @rights (a subset of the source's) and @badge. */
static inline long ful_cap_copy(unsigned src, unsigned dst_vs, unsigned dst,
				unsigned rights, unsigned long badge)
{
	return FUL__SC(FUL_SYS_CAP_COPY, src, dst_vs, dst, rights, badge, 0, 0).x0;
}

static inline long ful_cap_delete(unsigned slot)
{
	return FUL__SC(FUL_SYS_CAP_DELETE, slot, 0, 0, 0, 0, 0, 0).x0;
}

/** Returns type | rights << 8 (FUL_CAP_*, FUL_R_*). */
static inline long ful_cap_info(unsigned slot)
{
	return FUL__SC(FUL_SYS_CAP_INFO, slot, 0, 0, 0, 0, 0, 0).x0;
}

/* ---- object creation, drawing on the memory pool @pool ---- */

static inline long ful_ep_create(unsigned pool, unsigned dst)
{
	return FUL__SC(FUL_SYS_EP_CREATE, pool, dst, 0, 0, 0, 0, 0).x0;
}

static inline long ful_ntfn_create(unsigned pool, unsigned dst)
{
	return FUL__SC(FUL_SYS_NTFN_CREATE, pool, dst, 0, 0, 0, 0, 0).x0;
}

static inline long ful_frame_create(unsigned pool, unsigned dst,
				    unsigned long npages)
{
	return FUL__SC(FUL_SYS_FRAME_CREATE, pool, dst, npages, 0, 0, 0, 0).x0;
}

static inline long ful_vspace_create(unsigned pool, unsigned dst)
{
	return FUL__SC(FUL_SYS_VSPACE_CREATE, pool, dst, 0, 0, 0, 0, 0).x0;
}

/* ---- memory pools (budgets and charges in bytes) ---- */

/** A child pool of @budget bytes carved out of @pool (charged to it until
 *  the child and everything made from it are gone) into slot @dst. */
static inline long ful_pool_create(unsigned pool, unsigned dst,
				   unsigned long budget)
{
	return FUL__SC(FUL_SYS_POOL_CREATE, pool, dst, budget, 0, 0, 0, 0).x0;
}

/** What @pool has charged (used) and its budget (limit), in bytes. */
static inline long ful_pool_info(unsigned pool, struct ful_pool_info *info)
{
	return FUL__SC(FUL_SYS_POOL_INFO, pool, info, 0, 0, 0, 0, 0).x0;
}

/* ---- address spaces ---- */

/** Map all of @frame at @vaddr in @vs with @rights (FUL_R_READ/WRITE/EXEC). */
static inline long ful_map(unsigned vs, unsigned frame, unsigned long vaddr,
			   unsigned rights)
{
	return FUL__SC(FUL_SYS_MAP, vs, frame, vaddr, rights, 0, 0, 0).x0;
}

static inline long ful_unmap(unsigned vs, unsigned long vaddr)
{
	return FUL__SC(FUL_SYS_UNMAP, vs, vaddr, 0, 0, 0, 0, 0).x0;
}

/* ---- threads ---- */

/** Create an inactive thread in task @vs; its cap goes to slot @dst.
 *  Returns its tid. */
static inline long ful_thread_create(unsigned pool, unsigned vs, unsigned dst,
				     const struct ful_thread_attr *attr)
{
	return FUL__SC(FUL_SYS_THREAD_CREATE, pool, vs, dst, attr, 0, 0, 0).x0;
}

static inline long ful_thread_start(unsigned thread)
{
	return FUL__SC(FUL_SYS_THREAD_START, thread, 0, 0, 0, 0, 0, 0).x0;
}

static inline long ful_thread_kill(unsigned thread)
{
	return FUL__SC(FUL_SYS_THREAD_KILL, thread, 0, 0, 0, 0, 0, 0).x0;
}

static inline long ful_thread_migrate(unsigned sched, unsigned thread,
				      unsigned cpu)
{
	return FUL__SC(FUL_SYS_THREAD_MIGRATE, sched, thread, cpu, 0, 0, 0, 0).x0;
}

static inline long ful_thread_info(unsigned thread, struct ful_thread_info *info)
{
	return FUL__SC(FUL_SYS_THREAD_INFO, thread, info, 0, 0, 0, 0, 0).x0;
}

/* ---- system ---- */

/** Move threads in a batch (<fulcrum/load.h>): each moves[i].result is
 *  filled in; returns the number of FUL_MOVE_DONE moves or -FUL_E*. */
static inline long ful_migrate(unsigned sched, struct ful_move *moves,
			       unsigned long n)
{
	return FUL__SC(FUL_SYS_MIGRATE, sched, moves, n, 0, 0, 0, 0).x0;
}

/** Set a scheduling attribute (FUL_TA_*) of thread @tid. */
static inline long ful_thread_set(unsigned sched, unsigned tid, unsigned attr,
				  long value)
{
	return FUL__SC(FUL_SYS_THREAD_SET, sched, tid, attr, value, 0, 0, 0).x0;
}

/** Set the utilization window length (<fulcrum/load.h>, version 3):
 *  FUL_UTIL_WIN_MS_MIN..MAX ms; windows restart from a new epoch. */
static inline long ful_util_set(unsigned sched, unsigned long win_ms)
{
	return FUL__SC(FUL_SYS_UTIL_SET, sched, win_ms, 0, 0, 0, 0, 0).x0;
}

/** Bind console input to @ntfn (signalled with @bits when bytes arrive;
 *  one binding at a time, <fulcrum/syscall.h>). */
static inline long ful_cons_bind(unsigned console, unsigned ntfn,
				 unsigned long bits)
{
	return FUL__SC(FUL_SYS_CONS_BIND, console, ntfn, bits, 0, 0, 0, 0).x0;
}

/** Up to @len (1..FUL_CONS_READ_MAX) buffered console bytes into @buf;
 *  the number read, 0 if none (never blocks), or -FUL_E*. */
static inline long ful_cons_read(unsigned console, unsigned ntfn, void *buf,
				 unsigned long len)
{
	return FUL__SC(FUL_SYS_CONS_READ, console, ntfn, buf, len, 0, 0, 0).x0;
}

/* ---- devices (<fulcrum/syscall.h>: DEVMEM_MAP .. DMA_PADDR) ---- */

/** Map device region @devmem at @vaddr in @vs (READ or READ|WRITE;
 *  Device-nGnRE, never executable). */
static inline long ful_devmem_map(unsigned vs, unsigned devmem,
				  unsigned long vaddr, unsigned rights)
{
	return FUL__SC(FUL_SYS_DEVMEM_MAP, vs, devmem, vaddr, rights, 0, 0, 0).x0;
}

static inline long ful_devmem_info(unsigned devmem, struct ful_devmem_info *info)
{
	return FUL__SC(FUL_SYS_DEVMEM_INFO, devmem, info, 0, 0, 0, 0, 0).x0;
}

/** The handler capability of SPI @intid into slot @dst. */
static inline long ful_irq_get(unsigned irqctl, unsigned dst, unsigned long intid)
{
	return FUL__SC(FUL_SYS_IRQ_GET, irqctl, dst, intid, 0, 0, 0, 0).x0;
}

/** Each interrupt of @irq signals @bits on @ntfn and masks it until
 *  ful_irq_ack; it is delivered to the caller's core (and follows it). */
static inline long ful_irq_bind(unsigned irq, unsigned ntfn, unsigned long bits)
{
	return FUL__SC(FUL_SYS_IRQ_BIND, irq, ntfn, bits, 0, 0, 0, 0).x0;
}

static inline long ful_irq_ack(unsigned irq)
{
	return FUL__SC(FUL_SYS_IRQ_ACK, irq, 0, 0, 0, 0, 0, 0).x0;
}

static inline long ful_irq_unbind(unsigned irq)
{
	return FUL__SC(FUL_SYS_IRQ_UNBIND, irq, 0, 0, 0, 0, 0, 0).x0;
}

/** A zeroed, physically contiguous frame of @npages for DMA into @dst. */
static inline long ful_dma_create(unsigned pool, unsigned dst,
				  unsigned long npages)
{
	return FUL__SC(FUL_SYS_DMA_CREATE, pool, dst, npages, 0, 0, 0, 0).x0;
}

/** Physical address of DMA frame @frame, or -FUL_E*. */
static inline long ful_dma_paddr(unsigned frame)
{
	return FUL__SC(FUL_SYS_DMA_PADDR, frame, 0, 0, 0, 0, 0, 0).x0;
}

/** An empty page window of @npages slots into @dst (ALL rights). */
static inline long ful_pwin_create(unsigned pool, unsigned dst,
				   unsigned long npages)
{
	return FUL__SC(FUL_SYS_PWIN_CREATE, pool, dst, npages, 0, 0, 0, 0).x0;
}

/** Put page @page of @frame in slot @i of window @pwin with @rights
 *  (FUL_R_READ, maybe FUL_R_WRITE; 0 empties the slot). */
static inline long ful_pwin_set(unsigned pwin, unsigned long i,
				unsigned frame, unsigned long page,
				unsigned rights)
{
	return FUL__SC(FUL_SYS_PWIN_SET, pwin, i, frame, page, rights, 0, 0)
		.x0;
}

/** Kill every thread of task @vs (ADMIN): how many, or -FUL_E*. */
static inline long ful_task_kill(unsigned vs)
{
	return FUL__SC(FUL_SYS_TASK_KILL, vs, 0, 0, 0, 0, 0, 0).x0;
}

/** Kill user thread @tid with the scheduling control @sched (ADMIN):
 *  0 or -FUL_E*. */
static inline long ful_sched_kill(unsigned sched, unsigned tid)
{
	return FUL__SC(FUL_SYS_SCHED_KILL, sched, tid, 0, 0, 0, 0, 0).x0;
}

/** Block for at least @us microseconds; threads of lower priority run on
 *  this core meanwhile (ful_yield() lets only equals run). 0 or
 *  -FUL_EINVAL (FUL_FOREVER). */
static inline long ful_sleep_us(unsigned long us)
{
	return FUL__SC(FUL_SYS_SLEEP, us, 0, 0, 0, 0, 0, 0).x0;
}

/** Core @cpu's IRQ-masked stretch figures into @out (NULL: none), then
 *  with FUL_IRQSTAT_RESET cleared (<fulcrum/irqstat.h>); @sched needs
 *  ADMIN. 0 or -FUL_E*; -FUL_ENOSYS from the default kernel. */
static inline long ful_irqstat(unsigned sched, unsigned cpu,
			       struct ful_irqstat *out, unsigned flags)
{
	return FUL__SC(FUL_SYS_IRQSTAT, sched, cpu, (unsigned long)out, flags,
		       0, 0, 0).x0;
}

/* ---- balancer events (<fulcrum/syscall.h>: LBE_BIND, LBE_ARM) ---- */

/** Bind @ntfn to the balancer events @events (FUL_LBE_*, all armed;
 *  0 unbinds it): <fulcrum/syscall.h>, "Balancer events". */
static inline long ful_lbe_bind(unsigned sched, unsigned ntfn,
				unsigned long events)
{
	return FUL__SC(FUL_SYS_LBE_BIND, sched, ntfn, events, 0, 0, 0, 0).x0;
}

/** Arm @events for the wakes and creates of the cores in @cores and the
 *  ticks of those in @watch (one signal per kind per arm). */
static inline long ful_lbe_arm(unsigned sched, unsigned ntfn,
			       unsigned long events, unsigned long cores,
			       unsigned long watch)
{
	return FUL__SC(FUL_SYS_LBE_ARM, sched, ntfn, events, cores, watch, 0,
		       0).x0;
}

static inline long ful_sysinfo(struct ful_sysinfo *info)
{
	return FUL__SC(FUL_SYS_SYSINFO, info, 0, 0, 0, 0, 0, 0).x0;
}

static inline long ful_shutdown(unsigned sched)
{
	return FUL__SC(FUL_SYS_SHUTDOWN, sched, 0, 0, 0, 0, 0, 0).x0;
}

#endif
