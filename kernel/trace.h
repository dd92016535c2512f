/*
 * Trace rings (docs/tracing.md "Hooks and their cost when off"; ABI
 * <fulcrum/trace.h>).
 *
 * Each hook below is one inline call at its site: a load of the core's
 * class mask (struct cpu, [A]) and a test-and-branch when the class is
 * off; the record itself is written out of line (trace.c), by the core
 * the ring belongs to, IRQs masked for the few stores of one record.
 * Build with -DFUL_TRACE_OFF to compile every hook out (the reference
 * for the cost of the hooks when off).
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include "percpu.h"
#include "thread.h"
#include <fulcrum/trace.h>

struct thread;
struct frame;

extern struct ful_trace_hdr *trace_hdr; /* [I] the area; NULL: no rings */
extern bool trace_streaming; /* [I] boot argument trace=: drained to the
			      * console while it runs (trace_out.c) */

void trace_init(void);
/** With boot argument trace=, start the thread that drains the rings to
 *  the console (kmain, once threads can be made). */
void trace_start(void);
struct frame *trace_frame(void);
/** Set every core's class mask to @mask (0 stops tracing); with
 *  FUL_TRACE_RESTART, each ring's start moves to its head. Any core. */
void trace_set(uint32_t mask, unsigned flags);
/** Print every ring on the console (trace_out.c's framing), IRQs open
 *  between lines (system call context; may return on another core);
 *  tracing must be off and no drain or other dump running: else
 *  -FUL_ESTATE, as without rings. */
int trace_dump(void);
/** Boot argument trace=: stop tracing, print what the drain has not,
 *  end the stream (sys_shutdown). */
void trace_at_shutdown(void);

/* Store one record on this core (@c), IRQs masked inside. */
void trace_put(struct cpu *c, unsigned type, unsigned arg, uint32_t a,
	       uint32_t b, uint32_t cc, uint32_t d, uint32_t e);

#ifdef FUL_TRACE_OFF
/* Every argument still evaluated (and dropped): a variable used only in
 * a hook must not become unused in this build. */
#define TRACE_HOOK(c, bit, fn, a0, a1, a2)                                     \
	((void)(c), (void)(a0), (void)(a1), (void)(a2))
#else
/*
 * TRACE_HOOK: if class bit @bit is set in core @c's mask, call
 * fn(c, a0, a1, a2) (each argument a 64-bit register) through
 * trace_tramp, which saves every caller-saved register. On the path
 * where the class is off this is one load and one taken tbz (the b after
 * it, +-128 MiB, reaches the cold section wherever it lands): the call, its
 * spills and the save of the link register are in .text.trace_cold, so
 * the hooked function needs no stack frame for it (a plain C call would
 * give a leaf such as icc_post a frame: +12 instructions measured).
 * The "memory" clobber makes the fields the record reads current.
 */
#define TRACE_HOOK(c, bit, fn, a0, a1, a2)                                     \
	__asm__ volatile(                                                      \
		"ldr w16, [%x[cpu], %[off]]\n\t"                               \
		"tbz w16, %[b], 8889f\n\t"                                     \
		"b 8888f\n"                                                    \
		"8889:\n\t"                                                    \
		".pushsection .text.trace_cold,\"ax\"\n"                       \
		"8888:\tsub sp, sp, #64\n\t"                                   \
		"str x30, [sp, #56]\n\t"                                       \
		"stp %x[cpu], %x[x0], [sp]\n\t"                                \
		"stp %x[x1], %x[x2], [sp, #16]\n\t"                            \
		"adrp x16, " #fn "\n\t"                                        \
		"add x16, x16, :lo12:" #fn "\n\t"                              \
		"str x16, [sp, #32]\n\t"                                       \
		"bl trace_tramp\n\t"                                           \
		"ldr x30, [sp, #56]\n\t"                                       \
		"add sp, sp, #64\n\t"                                          \
		"b 8889b\n\t"                                                  \
		".popsection"                                                  \
		:                                                              \
		: [cpu] "r"(c), [off] "i"(offsetof(struct cpu, trace_mask)),   \
		  [b] "i"(__builtin_ctz(bit)), [x0] "rZ"(a0),                  \
		  [x1] "rZ"(a1), [x2] "rZ"(a2)                                 \
		: "x16", "cc", "memory")
#endif

/* The records the hooks write (trace.c), called through trace_tramp with
 * the hook's three arguments. */
void trace_rec_wake(struct cpu *c, struct thread *t);
void trace_rec_mig_out(struct cpu *c, struct thread *t, unsigned dest,
		       unsigned st);
void trace_rec_mig_in(struct cpu *c, struct thread *t);
void trace_rec_sgi(struct cpu *c, uint32_t targets);
void trace_rec_post(struct cpu *c, unsigned cpu, const struct icc_req *r);
void trace_rec_accept(struct cpu *c, const struct icc_req *r);
void trace_rec_call(struct cpu *c, struct thread *from, struct thread *to,
		    uint64_t info);
void trace_rec_reply(struct cpu *c, struct thread *from, struct thread *to,
		     uint64_t info);
void trace_rec_fcall(struct cpu *c, struct thread *from, struct thread *to,
		     uint64_t info);
void trace_rec_freply(struct cpu *c, struct thread *from, struct thread *to,
		      uint64_t info);
void trace_rec_create(struct cpu *c, struct thread *t);
void trace_rec_irq_entry(struct cpu *c, unsigned intid);
void trace_rec_irq_exit(struct cpu *c);
void trace_rec_exit(struct cpu *c, struct thread *t);

/* The hooks: one inline call at each site. */

#define trace_wake(c, t) TRACE_HOOK(c, FUL_TRC_WAKE, trace_rec_wake, t, 0, 0)
#define trace_mig_out(c, t, dest, st)                                          \
	TRACE_HOOK(c, FUL_TRC_MIGRATE, trace_rec_mig_out, t, dest, st)
#define trace_mig_in(c, t)                                                     \
	TRACE_HOOK(c, FUL_TRC_MIGRATE, trace_rec_mig_in, t, 0, 0)
#define trace_sgi_send(c, targets)                                             \
	TRACE_HOOK(c, FUL_TRC_SGI, trace_rec_sgi, targets, 0, 0)
#define trace_post(c, cpu, r)                                                  \
	TRACE_HOOK(c, FUL_TRC_MBOX, trace_rec_post, cpu, r, 0)
#define trace_accept(c, r)                                                     \
	TRACE_HOOK(c, FUL_TRC_MBOX, trace_rec_accept, r, 0, 0)
/* IPC call and reply: the generic path's and the fastpath's. */
#define trace_call(c, from, to, info)                                          \
	TRACE_HOOK(c, FUL_TRC_IPC, trace_rec_call, from, to, info)
#define trace_reply(c, from, to, info)                                         \
	TRACE_HOOK(c, FUL_TRC_IPC, trace_rec_reply, from, to, info)
#define trace_fcall(c, from, to, info)                                         \
	TRACE_HOOK(c, FUL_TRC_IPC, trace_rec_fcall, from, to, info)
#define trace_freply(c, from, to, info)                                        \
	TRACE_HOOK(c, FUL_TRC_IPC, trace_rec_freply, from, to, info)
#define trace_create(c, t)                                                     \
	TRACE_HOOK(c, FUL_TRC_THREAD, trace_rec_create, t, 0, 0)
#define trace_exit(c, t) TRACE_HOOK(c, FUL_TRC_THREAD, trace_rec_exit, t, 0, 0)

/* IRQ entry (interrupt @intid; 0..15: an SGI received) and exit (of
 * the last entry: interrupts do not nest in the kernel). */
#define trace_irq_entry(c, intid)                                              \
	TRACE_HOOK(c, FUL_TRC_IRQ, trace_rec_irq_entry, intid, 0, 0)
#define trace_irq_exit(c) TRACE_HOOK(c, FUL_TRC_IRQ, trace_rec_irq_exit, 0, 0, 0)

/**
 * The switch of core @c from @prev to @next (owner, IRQs masked, as every
 * switch is): the record is written inline, behind the class test, since
 * the switch is the hottest event (trace_record_on: a call through
 * trace_tramp costs ~130 instructions), and carries only what changes:
 * the tids and @prev's state (T_*, the ABI's FUL_TR_ST_*), no prios
 * (fixed at creation: THREAD_CREATE and WAKE records carry them).
 */
static inline __attribute__((always_inline)) void
trace_switch(struct cpu *c, struct thread *prev, struct thread *next)
{
#ifndef FUL_TRACE_OFF
	if (likely(!(*(volatile uint32_t *)&c->trace_mask & FUL_TRC_SWITCH)))
		return;
	struct ful_trace_ring_hdr *rh = c->trace_rh;
	uint64_t head = rh->head, ts;
	struct ful_trace_rec *r = &c->trace_ring[head & c->trace_wrap];
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(ts));
	/* single aligned loads of the atomics (volatile: GCC's atomic load
	 * would not fold the field's offset) */
	uint32_t w = c->trace_sw | *(volatile uint32_t *)&prev->state << 16;
	r->ts = ts;
	__builtin_memcpy(&r->type, &w, sizeof(w));
	r->a = *(volatile uint32_t *)&prev->tid;
	r->b = *(volatile uint32_t *)&next->tid;
	__atomic_store_n(&rh->head, head + 1, __ATOMIC_RELEASE);
#else
	(void)c, (void)prev, (void)next;
#endif
}

#endif
