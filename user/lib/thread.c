/*
 * Extra threads in the calling task: one malloc'd block per thread holds
 * its stack, its IPC buffer (unless the caller gives one) and its TLS
 * block. crt0.S's ful_thread_entry installs the TLS block and calls
 * ful_thread_main(), which runs fn(arg) and ends the thread.
 *
 *   block: [ stack ... | ipcbuf (512) | TLS block | start record ]
 *          ^ low                                           high ^
 */
#include <malloc.h>
#include <stdlib.h>
#include <picolibc.h> /* defines PICOLIBC_TLS, which picotls.h tests */
#include <picotls.h>
#include <stdint.h>
#include <string.h>

#include <fulcrum/balctl.h>
#include <ful/ful.h>

#include "lib.h"

#define DEFAULT_STACK (16 * 1024)
#define ROUND_UP(x, a) (((x) + (a) - 1) & ~((size_t)(a) - 1))

long ful_place(int nice, unsigned long *seq)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_BAL_PLACE, 0),
			    .mr = {(unsigned long)(long)nice}};
	long err = ful_call(FUL_SLOT_PLACE, &m, FUL_FOREVER);
	if (err < 0)
		return err;
	if (seq)
		*seq = m.mr[1];
	return (long)m.mr[0];
}

long ful_place_settle(long tid, unsigned long seq)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_BAL_SETTLE, 0),
			    .mr = {(unsigned long)tid, seq}};
	long err = ful_call(FUL_SLOT_PLACE, &m, FUL_FOREVER);
	return err < 0 ? err : (long)m.mr[0];
}

/** The core for a thread of @a: a->cpu, or with FUL_CPU_PLACE the one
 *  the balancer behind FUL_SLOT_PLACE names (*@seq its decision,
 *  *@placed set), or the calling thread's core if there is none to ask. */
static unsigned spawn_cpu(const struct ful_thread_args *a, unsigned long *seq,
			  bool *placed)
{
	*placed = false;
	if (a->cpu != FUL_CPU_PLACE)
		return a->cpu;
	long cpu = ful_place(a->nice, seq);
	*placed = cpu >= 0;
	if (cpu >= 0)
		return (unsigned)cpu;
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	return si.cpu;
}

/** Start a->fn(a->arg) in a new thread of this task (see ful.h). */
int ful_thread_spawn(const struct ful_thread_args *a, struct ful_thread *out)
{
	unsigned long seq = 0;
	bool placed;
	unsigned cpu = spawn_cpu(a, &seq, &placed);
	size_t stack = ROUND_UP(a->stack_size ? a->stack_size : DEFAULT_STACK,
				FUL_IPCBUF_SIZE);
	size_t ipc = a->ipcbuf ? 0 : FUL_IPCBUF_SIZE;
	size_t tls = ROUND_UP(_tls_size(), 64);
	size_t total = stack + ipc + tls + ROUND_UP(sizeof(struct ful_thread_start), 64);
	char *mem = memalign(FUL_IPCBUF_SIZE, total);
	if (!mem)
		return -FUL_ENOMEM;

	struct ful_thread_start *st = (void *)(mem + stack + ipc + tls);
	st->tls = mem + stack + ipc;
	st->fn = a->fn;
	st->arg = a->arg;
	_init_tls(st->tls);

	struct ful_thread_attr attr = {
		.entry = (unsigned long)ful_thread_entry,
		.sp = (unsigned long)(mem + stack),
		.arg0 = (unsigned long)st,
		.ipcbuf = (unsigned long)(a->ipcbuf ? a->ipcbuf : mem + stack),
		.prio = a->prio,
		.cpu = cpu,
		.slice_ms = a->slice_ms ? a->slice_ms : 10,
		.nice = a->nice,
	};
	strncpy(attr.name, a->name ? a->name : "thread", sizeof attr.name - 1);

	long slot = a->dst;
	if (!slot && (slot = ful_slot_alloc()) < 0) {
		free(mem);
		return (int)slot;
	}
	long tid = ful_thread_create(a->pool, a->vs, (unsigned)slot, &attr);
	long err = tid < 0 ? tid : ful_thread_start((unsigned)slot);
	if (err < 0) {
		if (tid >= 0)
			ful_cap_delete((unsigned)slot);
		if (!a->dst)
			ful_slot_free((unsigned)slot);
		free(mem);
		return (int)err;
	}
	out->tid = tid;
	out->slot = (unsigned)slot;
	out->mem = mem;
	/* The next placement must see this thread where it went. */
	if (placed)
		ful_place_settle(tid, seq);
	return 0;
}

/** Reclaim a dead thread of this task (see ful.h). */
bool ful_thread_reap(struct ful_thread *t, unsigned long timeout_us)
{
	if (t->tid <= 0)
		return true;
	unsigned long dl = ful_counter() + ful_us_to_ticks(timeout_us);
	/* The thread may be of lower priority, on this core: let it end. */
	for (unsigned n = 0; !ful_thread_dead(t->slot);)
		if (ful_counter() > dl)
			return false;
		else
			ful_backoff(&n);
	ful_slot_drop(t->slot);
	free(t->mem);
	*t = (struct ful_thread){0};
	return true;
}
