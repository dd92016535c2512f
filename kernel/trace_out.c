/*
 * The trace rings' console transport (tools/trace_export.py reads it):
 *
 *   TRACE-BEGIN v=2 ncpus=N recs=R freq=F recsize=32
 *   TRACE-DATA <cpu> <index> <n> <base64 of n records> <crc32 hex>
 *   TRACE-LOST <cpu> <from> <to>     records [from, to) overwritten
 *                                    before they were printed
 *   TRACE-NAME <tid> <name>          each live thread, at the end
 *   TRACE-RING <cpu> start=S head=H lost=L
 *   TRACE-END <records printed>
 *
 * Each data line carries the index of its first record and a CRC-32 of
 * its bytes, so a missing, repeated or damaged line is found; a ring's
 * lines and LOST ranges cover its records up to its head without a gap.
 *
 * With boot argument trace= (trace_streaming) a kernel thread on core 0
 * drains every ring each TRACE_DRAIN_MS, so a ring loses records only if
 * its core writes more than a ring's worth in that time; sys_shutdown
 * prints the rest and ends the stream. Without it, FUL_SYS_TRACE_DUMP
 * prints what the rings hold, as one stream, while tracing is off.
 * One printer at a time: trace_printer.
 *
 * Every line is one console write (IRQs masked for that write only, as
 * every kprintf). The drain prints with IRQs on between lines; a
 * TRACE_DUMP, a system call and so masked, opens a preemption window
 * after each line (trace_out_pause), so the core takes its interrupts
 * and ICC requests while megabytes go out. The dump at shutdown opens
 * none: the machine powers off right after it.
 */
#include "console.h"
#include "kernel.h"
#include "sched.h"
#include "thread.h"
#include "trace.h"

#define TRACE_LINE_RECS 8
#define TRACE_DRAIN_MS 50

struct trace_out {
	uint64_t cursor[FUL_TRACE_CPUS]; /* next index to print */
	uint64_t lost[FUL_TRACE_CPUS];   /* LOST ranges printed */
	uint64_t printed;
	bool began;
	bool windows; /* a TRACE_DUMP: a preemption window after each line */
};

/* The printer at work: 0 none, else TRACE_HELD | its thread's tid. */
#define TRACE_HELD (1ull << 32)

static struct trace_out trace_stream;  /* [trace_printer] */
static _Atomic uint64_t trace_printer; /* who prints (trace_out_try) */
static _Atomic bool trace_ended;       /* the stream's END is out */

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Base64 of @n bytes at @p into @out (4 * ceil(n / 3) + 1 bytes). */
static char *trace_b64(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		*out++ = b64[v >> 18 & 63];
		*out++ = b64[v >> 12 & 63];
		*out++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*out++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*out = 0;
	return out;
}

/** CRC-32 (IEEE, reflected, as zlib's crc32) of @n bytes at @p. */
static uint32_t trace_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = ~0u;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/** Between two lines of a TRACE_DUMP (o->windows): take the pending
 *  interrupts, and switch if one asked for it (sched_preempt_window:
 *  IRQs masked; the dump may go on on another core, or never, if its
 *  thread is killed meanwhile: trace_out_try). Otherwise nothing. */
static void trace_out_pause(struct trace_out *o)
{
	if (o->windows)
		sched_preempt_window();
}

/** Start a stream at each ring's start: the BEGIN line. The printer. */
static void trace_out_begin(struct trace_out *o, struct ful_trace_hdr *h)
{
	kprintf("TRACE-BEGIN v=%u ncpus=%u recs=%u freq=%lu recsize=%u\n",
		h->version, h->ncpus, h->ring_recs, h->counter_freq,
		h->rec_size);
	for (unsigned c = 0; c < h->ncpus; c++) {
		o->cursor[c] = __atomic_load_n(&h->ring[c].start,
					       __ATOMIC_RELAXED);
		o->lost[c] = 0;
	}
	o->printed = 0;
	o->began = true;
}

/** Records [cursor, @to) of @cpu are gone: say so, move on. The
 *  printer. */
static void trace_out_lost(struct trace_out *o, unsigned cpu, uint64_t to)
{
	kprintf("TRACE-LOST %u %lu %lu\n", cpu, o->cursor[cpu], to);
	o->lost[cpu] += to - o->cursor[cpu];
	o->cursor[cpu] = to;
}

/** Print one line of up to TRACE_LINE_RECS records of @cpu from its
 *  cursor, below @head; false if they were overwritten while copied
 *  (then counted lost). The oldest slot, index head - ring_recs, is
 *  where the core's next record goes: never trusted. The printer, any
 *  core, IRQs masked or not (console_write masks them for the line). */
static bool trace_out_line(struct trace_out *o, struct ful_trace_hdr *h,
			   unsigned cpu, uint64_t head)
{
	static struct ful_trace_rec buf[TRACE_LINE_RECS]; /* [trace_printer] */
	static char line[64 + TRACE_LINE_RECS * 48];
	uint64_t i = o->cursor[cpu], R = h->ring_recs;
	unsigned n = head - i < TRACE_LINE_RECS ? (unsigned)(head - i)
						 : TRACE_LINE_RECS;
	for (unsigned k = 0; k < n; k++)
		buf[k] = cpus[cpu].trace_ring[(i + k) & (R - 1)];
	atomic_thread_fence(memory_order_acquire);
	uint64_t now = __atomic_load_n(&h->ring[cpu].head, __ATOMIC_RELAXED);
	if (now >= R && i < now - R + 1) {
		trace_out_lost(o, cpu, now - R + 1);
		return false;
	}
	int len = ksnprintf(line, sizeof(line), "TRACE-DATA %u %lu %u ", cpu,
			    i, n);
	char *e = trace_b64(line + len, (const uint8_t *)buf,
			    n * sizeof(buf[0]));
	ksnprintf(e, sizeof(line) - (size_t)(e - line), " %08x\n",
		  trace_crc32((const uint8_t *)buf, n * sizeof(buf[0])));
	console_write(line);
	o->cursor[cpu] = i + n;
	o->printed += n;
	return true;
}

/** Print ring @cpu from the cursor up to its head now, a pause after
 *  each line. The printer. */
static void trace_out_ring(struct trace_out *o, struct ful_trace_hdr *h,
			   unsigned cpu)
{
	struct ful_trace_ring_hdr *rh = &h->ring[cpu];
	uint64_t head = __atomic_load_n(&rh->head, __ATOMIC_ACQUIRE);
	uint64_t start = __atomic_load_n(&rh->start, __ATOMIC_RELAXED);
	if (o->cursor[cpu] < start) /* restarted since: not printed */
		trace_out_lost(o, cpu, start);
	if (head >= h->ring_recs && o->cursor[cpu] < head - h->ring_recs + 1)
		trace_out_lost(o, cpu, head - h->ring_recs + 1);
	while (o->cursor[cpu] < head) {
		trace_out_line(o, h, cpu, head);
		trace_out_pause(o);
	}
}

/** The end of a stream: the rest of each ring, names, summaries, a
 *  pause after each line. The printer. */
static void trace_out_end(struct trace_out *o, struct ful_trace_hdr *h)
{
	for (unsigned c = 0; c < h->ncpus; c++)
		trace_out_ring(o, h, c);
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct thread *t = &threads[i];
		uint32_t st = atomic_load_explicit(&t->state, memory_order_acquire);
		if (st == T_FREE || st == T_EMBRYO)
			continue;
		char name[sizeof(t->name) + 1];
		memcpy(name, t->name, sizeof(t->name));
		name[sizeof(t->name)] = 0;
		for (char *p = name; *p; p++)
			if (*p <= ' ' || *p > '~')
				*p = '_';
		kprintf("TRACE-NAME %u %s\n", atomic_load(&t->tid),
			name[0] ? name : "?");
		trace_out_pause(o);
	}
	for (unsigned c = 0; c < h->ncpus; c++) {
		kprintf("TRACE-RING %u start=%lu head=%lu lost=%lu\n", c,
			h->ring[c].start, o->cursor[c], o->lost[c]);
		trace_out_pause(o);
	}
	kprintf("TRACE-END %lu\n", o->printed);
	o->began = false;
}

/**
 * Become the printer, as the calling thread: false while another is at
 * work. A TRACE_DUMP whose thread was killed in one of its windows
 * leaves its tid there, which then names no live thread (thread_lookup:
 * tids carry a generation): its place is taken, and its dump stays
 * without an end. Thread context, IRQs masked or not.
 */
static bool trace_out_try(void)
{
	uint64_t me = TRACE_HELD | atomic_load_explicit(&thread_current()->tid,
							memory_order_relaxed);
	uint64_t was = 0;
	if (atomic_compare_exchange_strong_explicit(&trace_printer, &was, me,
						    memory_order_acquire,
						    memory_order_relaxed))
		return true;
	return !thread_lookup((tid_t)was) &&
	       atomic_compare_exchange_strong_explicit(&trace_printer, &was, me,
						       memory_order_acquire,
						       memory_order_relaxed);
}

/** Stop being the printer (trace_out_try succeeded). */
static void trace_out_done(void)
{
	atomic_store_explicit(&trace_printer, 0, memory_order_release);
}

/** FUL_SYS_TRACE_DUMP: the whole stream at once, a preemption window
 *  after each line. System call context (IRQs masked); may return on
 *  another core. */
int trace_dump(void)
{
	struct ful_trace_hdr *h = trace_hdr;
	if (!h || h->mask || trace_streaming || !trace_out_try())
		return -FUL_ESTATE;
	struct trace_out *o = &trace_stream;
	o->windows = true;
	trace_out_begin(o, h);
	trace_out_end(o, h);
	o->windows = false;
	trace_out_done();
	return 0;
}

/** The drain: every TRACE_DRAIN_MS, print what each ring gained. A
 *  kernel thread on core 0, IRQs on but in each line's console write. */
static void trace_drain_main(void *arg)
{
	(void)arg;
	struct ful_trace_hdr *h = trace_hdr;
	while (!atomic_load(&trace_ended)) {
		if (trace_out_try()) {
			trace_stream.windows = false;
			if (!atomic_load(&trace_ended)) {
				if (!trace_stream.began)
					trace_out_begin(&trace_stream, h);
				for (unsigned c = 0; c < h->ncpus; c++)
					trace_out_ring(&trace_stream, h, c);
			}
			trace_out_done();
		}
		thread_sleep_ms(TRACE_DRAIN_MS);
	}
}

void trace_start(void)
{
	/* trace_drain=0: no drain (the rings wrap; the benchmark of a
	 * record's cost runs so, undisturbed on core 0) */
	if (!trace_streaming || !bootarg_num("trace_drain", 1))
		return;
	struct thread_attr a = {.name = "tracedrain", .prio = 250,
				.slice_ms = 10, .cpu = 0};
	if (thread_create(&a, trace_drain_main, NULL) < 0)
		kprintf("trace: no drain thread: the rings are printed at "
			"shutdown only\n");
}

/** Boot argument trace=: stop tracing, wait for the drain to finish
 *  its round, print the rest and end the stream, without windows.
 *  sys_shutdown (IRQs masked). */
void trace_at_shutdown(void)
{
	struct ful_trace_hdr *h = trace_hdr;
	if (!h || !trace_streaming)
		return;
	trace_set(0, 0);
	while (!trace_out_try()) /* the drain, on another core, finishes */
		arch_cpu_relax();
	atomic_store(&trace_ended, true);
	trace_stream.windows = false;
	if (!trace_stream.began)
		trace_out_begin(&trace_stream, h);
	trace_out_end(&trace_stream, h);
	trace_out_done();
}
