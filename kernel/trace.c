/*
 * Trace rings (docs/tracing.md "The trace area", ABI <fulcrum/trace.h>).
 *
 * One area of pages, allocated at boot: the header pages, then one ring
 * per core. Core i alone writes ring i and its head (trace_put, IRQs
 * masked); trace_set writes the masks and starts under trace_lock from
 * any core. The area is wrapped as a frame object and mapped read-only
 * into the rootserver at FUL_TRACE_VADDR (like the load area), so a
 * reader needs no system call per record.
 *
 * The console transport is trace_out.c.
 */
#include "trace.h"
#include "frame.h"
#include "kernel.h"
#include "page.h"
#include "spinlock.h"
#include "thread.h"

#define TRACE_LINE_RECS 8

struct ful_trace_hdr *trace_hdr;        /* [I] NULL: no rings */
static struct frame *trace_frame_obj;   /* [I] */
static spinlock_t trace_lock = SPINLOCK_INIT; /* masks, starts */
bool trace_streaming;                   /* [I] boot argument trace= */

/** The class mask named by boot argument trace=: all, sched, or a
 *  number (decimal, or hex with 0x). */
static uint32_t trace_parse_mask(const char *s)
{
	if (!strcmp(s, "all") || !s[0])
		return FUL_TRC_ALL;
	if (!strcmp(s, "sched"))
		return FUL_TRC_SCHED;
	uint32_t v = 0;
	unsigned base = 10;
	if (s[0] == '0' && s[1] == 'x')
		s += 2, base = 16;
	for (; *s; s++) {
		unsigned d = *s >= '0' && *s <= '9'   ? (unsigned)(*s - '0')
			     : *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10)
						      : 99;
		if (d >= base)
			return ~0u;
		v = v * base + d;
	}
	return v;
}

/** The default ring size for @n cores: FUL_TRACE_KIB_DEFAULT, halved
 *  while the rings would take more than FUL_TRACE_BUDGET_KIB or
 *  @room_kib (but never below FUL_TRACE_KIB_MIN). */
static uint64_t trace_default_kib(unsigned n, uint64_t room_kib)
{
	uint64_t kib = FUL_TRACE_KIB_DEFAULT;
	while (kib > FUL_TRACE_KIB_MIN &&
	       (kib * n > FUL_TRACE_BUDGET_KIB || kib * n > room_kib))
		kib /= 2;
	return kib;
}

/**
 * Ring size in KiB per core for @n cores: boot argument trace_kib if it
 * is a power of two in FUL_TRACE_KIB_MIN..MAX whose @n rings fit in
 * FUL_TRACE_RINGS_MAX_KIB (the window) and a quarter of the free memory;
 * else the default (trace_default_kib), the reason said on the console.
 */
static uint64_t trace_ring_kib(unsigned n)
{
	uint64_t room = page_free_count() * (PAGE_SIZE / 1024) / 4;
	uint64_t def = trace_default_kib(n, room);
	uint64_t kib = bootarg_num("trace_kib", def);
	if (kib < FUL_TRACE_KIB_MIN || kib > FUL_TRACE_KIB_MAX ||
	    (kib & (kib - 1))) {
		kprintf("trace: trace_kib=%lu is not a power of two in %u..%u, "
			"using %lu\n", kib, FUL_TRACE_KIB_MIN, FUL_TRACE_KIB_MAX,
			def);
		return def;
	}
	if (kib * n > FUL_TRACE_RINGS_MAX_KIB || kib * n > room) {
		kprintf("trace: trace_kib=%lu: %u rings of %lu KiB exceed "
			"%s (%lu KiB), using %lu\n", kib, n, kib,
			kib * n > FUL_TRACE_RINGS_MAX_KIB ? "the trace window"
							 : "a quarter of the "
							   "free memory",
			kib * n > FUL_TRACE_RINGS_MAX_KIB
				? (uint64_t)FUL_TRACE_RINGS_MAX_KIB : room,
			def);
		return def;
	}
	return kib;
}

/** Allocate and publish the rings, one per online core (boot, core 0,
 *  before the other cores start); with boot argument trace=MASK, start
 *  tracing. */
void trace_init(void)
{
	_Static_assert(MAX_CPUS <= FUL_TRACE_CPUS, "a ring for every core");
	unsigned n = machine.ncpus;
	uint64_t kib = trace_ring_kib(n);
	uint64_t ring_bytes = kib * 1024;
	unsigned hdr = FUL_TRACE_HDR_PAGES;
	unsigned pages = (unsigned)(hdr + n * ring_bytes / PAGE_SIZE);
	void *area = page_alloc(pages);
	if (!area || frame_wrap((uintptr_t)area, pages, &trace_frame_obj)) {
		kprintf("trace: no memory for %u rings of %lu KiB: tracing off\n",
			n, kib);
		if (area)
			page_free(area, pages);
		return;
	}
	struct ful_trace_hdr *h = area;
	h->version = FUL_TRACE_VERSION;
	h->ncpus = n;
	h->rec_size = sizeof(struct ful_trace_rec);
	h->ring_recs = (uint32_t)(ring_bytes / sizeof(struct ful_trace_rec));
	h->counter_freq = arch_counter_freq();
	h->ring_offset = (uint64_t)hdr * PAGE_SIZE;
	h->size = (uint64_t)pages * PAGE_SIZE;
	for (unsigned i = 0; i < n; i++) {
		cpus[i].trace_rh = &h->ring[i];
		cpus[i].trace_wrap = h->ring_recs - 1;
		cpus[i].trace_sw = FUL_TR_SWITCH | i << 8;
		cpus[i].trace_ring = (struct ful_trace_rec *)((char *)area +
				     h->ring_offset + i * ring_bytes);
	}
	trace_hdr = h;
	char arg[16];
	if (bootarg("trace", arg, sizeof(arg))) {
		uint32_t m = trace_parse_mask(arg);
		if (m & ~FUL_TRC_ALL) {
			kprintf("trace: trace=%s is not all, sched or a mask of "
				"0x%x: tracing off\n", arg, FUL_TRC_ALL);
		} else {
			trace_streaming = true;
			trace_set(m, 0);
		}
	}
}

struct frame *trace_frame(void)
{
	return trace_frame_obj;
}

void trace_set(uint32_t mask, unsigned flags)
{
	struct ful_trace_hdr *h = trace_hdr;
	if (!h)
		return;
	uint64_t irq = spin_lock_irqsave(&trace_lock);
	for (unsigned i = 0; i < h->ncpus; i++) {
		struct ful_trace_ring_hdr *r = &h->ring[i];
		if (flags & FUL_TRACE_RESTART)
			__atomic_store_n(&r->start,
					 __atomic_load_n(&r->head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELAXED);
		r->mask = mask;
		__atomic_store_n(&cpus[i].trace_mask, mask, __ATOMIC_RELEASE);
	}
	h->mask = mask;
	spin_unlock_irqrestore(&trace_lock, irq);
}

/**
 * Store one record in this core's ring: the oldest is overwritten when
 * the ring is full (counted as lost: head - start beyond the ring). The
 * head is stored with release after the record. Any context; masks IRQs
 * for the record's stores, so an interrupt's records never tear this
 * one, and writes the ring of the core it runs on then.
 */
void trace_put(struct cpu *c, unsigned type, unsigned arg, uint32_t a,
	       uint32_t b, uint32_t cc, uint32_t d, uint32_t e)
{
	uint64_t flags = arch_irq_save();
	/* A hook in thread context (thread_create's) may have moved since
	 * it read @c: the ring is the core's this runs on, IRQs masked. */
	c = this_cpu();
	struct ful_trace_ring_hdr *rh = c->trace_rh;
	uint64_t head = rh->head;
	struct ful_trace_rec *r = &c->trace_ring[head & c->trace_wrap];
	uint32_t w = type | c->id << 8 | arg << 16;
	r->ts = arch_counter();
	memcpy(&r->type, &w, sizeof(w)); /* type, cpu, arg: one store */
	r->a = a;
	r->b = b;
	r->c = cc;
	r->d = d;
	r->e = e;
	__atomic_store_n(&rh->head, head + 1, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
}

static inline uint32_t tid_of(struct thread *t)
{
	return atomic_load_explicit(&t->tid, memory_order_relaxed);
}

#define TRACE_SAME_STATE(k, t) ((int)(k) == (int)(t))
_Static_assert(TRACE_SAME_STATE(T_FREE, FUL_TR_ST_FREE) &&
	       TRACE_SAME_STATE(T_EMBRYO, FUL_TR_ST_EMBRYO) &&
	       TRACE_SAME_STATE(T_READY, FUL_TR_ST_READY) &&
	       TRACE_SAME_STATE(T_RUNNING, FUL_TR_ST_RUNNING) &&
	       TRACE_SAME_STATE(T_BLOCKED, FUL_TR_ST_BLOCKED) &&
	       TRACE_SAME_STATE(T_MIGRATING, FUL_TR_ST_MIGRATING) &&
	       TRACE_SAME_STATE(T_DEAD, FUL_TR_ST_DEAD) &&
	       TRACE_SAME_STATE(T_INACTIVE, FUL_TR_ST_INACTIVE) &&
	       TRACE_SAME_STATE(T_STARTING, FUL_TR_ST_STARTING),
	       "trace states are the kernel's");

void trace_rec_wake(struct cpu *c, struct thread *t)
{
	trace_put(c, FUL_TR_WAKE, 0, tid_of(t), c->id, tid_of(c->current),
		  t->prio, 0);
}

/** Migration out of @t (state @st) to @dest, with the decision id of
 *  the move being made (c->trace_dec); the id and this core go with
 *  the thread (t->trace_*: written by its owner, before the hand-over
 *  that publishes it to the new owner) for its MIG_IN record. */
void trace_rec_mig_out(struct cpu *c, struct thread *t, unsigned dest,
		       unsigned st)
{
	t->trace_dec = c->trace_dec;
	t->trace_from = (uint8_t)c->id;
	t->trace_mig = t->migrations;
	trace_put(c, FUL_TR_MIG_OUT, st, tid_of(t), dest,
		  c->trace_dec, 0, 0);
}

void trace_rec_mig_in(struct cpu *c, struct thread *t)
{
	/* Valid only if its MIG_OUT record was made for this very move. */
	bool same = t->trace_mig == t->migrations;
	trace_put(c, FUL_TR_MIG_IN, 0, tid_of(t), same ? t->trace_from : 0xff,
		  same ? t->trace_dec : 0, 0, 0);
}

/** The tid a request is about: its own field, or the thread it is
 *  embedded in (TASK_IN, TASK_IPC). */
static uint32_t trace_req_tid(const struct icc_req *r)
{
	if (r->kind == ICC_TASK_IN)
		return tid_of(container_of(r, struct thread, mig_req));
	if (r->kind == ICC_TASK_IPC)
		return tid_of(container_of(r, struct thread, wake_req));
	return r->kind == ICC_CALL_FUNC ? 0 : r->tid;
}

void trace_rec_post(struct cpu *c, unsigned cpu, const struct icc_req *r)
{
	trace_put(c, FUL_TR_MBOX_POST, r->kind, trace_req_tid(r), cpu, 0, 0, 0);
}

void trace_rec_accept(struct cpu *c, const struct icc_req *r)
{
	trace_put(c, FUL_TR_MBOX_ACCEPT, r->kind, trace_req_tid(r), 0, 0, 0, 0);
}

static void trace_rec_ipc(struct cpu *c, unsigned type, struct thread *from,
			  struct thread *to, uint64_t info, bool fast)
{
	trace_put(c, type, fast, tid_of(from), to ? tid_of(to) : 0,
		  (uint32_t)FUL_MSG_LABEL(info), 0, 0);
}

void trace_rec_call(struct cpu *c, struct thread *from, struct thread *to,
		    uint64_t info)
{
	trace_rec_ipc(c, FUL_TR_IPC_CALL, from, to, info, false);
}

void trace_rec_reply(struct cpu *c, struct thread *from, struct thread *to,
		     uint64_t info)
{
	trace_rec_ipc(c, FUL_TR_IPC_REPLY, from, to, info, false);
}

void trace_rec_fcall(struct cpu *c, struct thread *from, struct thread *to,
		     uint64_t info)
{
	trace_rec_ipc(c, FUL_TR_IPC_CALL, from, to, info, true);
}

void trace_rec_freply(struct cpu *c, struct thread *from, struct thread *to,
		      uint64_t info)
{
	trace_rec_ipc(c, FUL_TR_IPC_REPLY, from, to, info, true);
}

static void trace_rec_thread(struct cpu *c, unsigned type, struct thread *t)
{
	uint32_t name[3];
	memcpy(name, t->name, sizeof(name));
	trace_put(c, type, t->prio, tid_of(t),
		  atomic_load_explicit(&t->cpu, memory_order_relaxed), name[0],
		  name[1], name[2]);
}

void trace_rec_create(struct cpu *c, struct thread *t)
{
	trace_rec_thread(c, FUL_TR_THREAD_CREATE, t);
}

void trace_rec_exit(struct cpu *c, struct thread *t)
{
	trace_rec_thread(c, FUL_TR_THREAD_EXIT, t);
}

void trace_rec_irq_entry(struct cpu *c, unsigned intid)
{
	trace_put(c, FUL_TR_IRQ_ENTRY, 0, intid, 0, 0, 0, 0);
}

void trace_rec_irq_exit(struct cpu *c)
{
	trace_put(c, FUL_TR_IRQ_EXIT, 0, 0, 0, 0, 0, 0);
}

void trace_rec_sgi(struct cpu *c, uint32_t targets)
{
	trace_put(c, FUL_TR_SGI_SEND, IPI_ICC, targets, 0, 0, 0, 0);
}

/*
 * trace_tramp: the slow half of TRACE_HOOK (trace.h). Entered by bl with
 * the hook's stash at sp: core, a0, a1, a2, the record function. Saves
 * every caller-saved general register (the hook's site assumes none
 * changes but x16, the flags and memory; the kernel uses no FP/SIMD
 * registers), calls fn(core, a0, a1, a2), restores them.
 */
__asm__(".pushsection .text.trace_cold,\"ax\"\n"
	".global trace_tramp\n"
	"trace_tramp:\n\t"
	"sub sp, sp, #160\n\t"
	"stp x0, x1, [sp]\n\t"
	"stp x2, x3, [sp, #16]\n\t"
	"stp x4, x5, [sp, #32]\n\t"
	"stp x6, x7, [sp, #48]\n\t"
	"stp x8, x9, [sp, #64]\n\t"
	"stp x10, x11, [sp, #80]\n\t"
	"stp x12, x13, [sp, #96]\n\t"
	"stp x14, x15, [sp, #112]\n\t"
	"stp x17, x18, [sp, #128]\n\t"
	"stp x29, x30, [sp, #144]\n\t"
	"ldp x0, x1, [sp, #160]\n\t"
	"ldp x2, x3, [sp, #176]\n\t"
	"ldr x16, [sp, #192]\n\t"
	"blr x16\n\t"
	"ldp x0, x1, [sp]\n\t"
	"ldp x2, x3, [sp, #16]\n\t"
	"ldp x4, x5, [sp, #32]\n\t"
	"ldp x6, x7, [sp, #48]\n\t"
	"ldp x8, x9, [sp, #64]\n\t"
	"ldp x10, x11, [sp, #80]\n\t"
	"ldp x12, x13, [sp, #96]\n\t"
	"ldp x14, x15, [sp, #112]\n\t"
	"ldp x17, x18, [sp, #128]\n\t"
	"ldp x29, x30, [sp, #144]\n\t"
	"add sp, sp, #160\n\t"
	"ret\n"
	".popsection");
