/*
 * wake_path: a QEMU TCG plugin (API version 1, QEMU 7.2) that counts one
 * core's own instructions from the interrupt that wakes a thread to that
 * thread's first instruction after its wait (docs/bench-wake.md,
 * "wake_path_<policy>").
 *
 * Under -icount every vCPU shares one clock, so a guest cannot tell its
 * own instructions from the other cores'; a plugin sees each vCPU's
 * instructions apart. It counts per instruction (a callback on every
 * instruction, with the vCPU's index), not per block: a block cut short
 * (an icount budget, an exception, an I/O access retranslated) would
 * otherwise count instructions that never ran.
 *
 * The guest marks its measured thread with three HINT instructions of
 * the unallocated HINT space (architecturally NOPs), found by their
 * encoding (qemu_plugin_insn_data):
 *   seg=N   a new run begins (a segment: numbered 0, 1, ... in order)
 *   arm=N   the thread is about to wait
 *   mark=N  its first instruction after the wait
 * The kernel's places come as addresses (from the kernel ELF,
 * tools/plugin/wake_path.py):
 *   entry=A   where an interrupt's handling starts: the IRQ vector slots
 *   poll=A    the same, without an exception: the idle loop's polls
 *             (entry= and poll= together: up to ENTRY_MAX)
 *   tick=A    the timer interrupt's handler (sched_tick)
 *   wake=A    the call that makes a sleeper whose deadline passed ready
 *   switch=A  a context switch (up to SWITCH_MAX)
 *   kbase=A   the lowest kernel address (below it: EL0's instructions)
 *   dump=1    a diagnosis, not a figure: keep each segment's longest
 *             window, instruction by instruction (see the output)
 * Per vCPU, from an arm to its mark: an entry whose handling runs tick,
 * then wake (a timer interrupt that wakes a sleeper), opens a window at
 * its first instruction. The mark closes the window that was open at
 * the last switch since the arm (the switch back to the measured
 * thread; a later timeout of another thread does not count), or without
 * a switch the last one opened. The sample: the vCPU's instructions from
 * the window's first instruction up to the mark, the mark excluded.
 * Without tick= and wake=, every entry after the arm opens a window
 * (the host test's tiny guest).
 *
 * Output at exit through qemu_plugin_outs (QEMU's log: -d plugin), per
 * segment:
 *   WAKE-PATH <seg> <key> <value>
 *       samples, mean, p99, min, max; cpus (mask of the vCPUs that took
 *       samples); user_max (most EL0 instructions in a window); nested
 *       (windows with another interrupt after the waking one); multi
 *       (windows with more than one waking interrupt before the switch:
 *       the last one counts); late (windows with a waking interrupt
 *       after the switch, not counted); unblocked (waits that ended
 *       without blocking: no switch and no sleeper woken between the
 *       arm and the mark, the deadline had passed when the kernel
 *       looked; no sample); unmatched (other marks without a waking
 *       interrupt since their arm; no sample); from_poll (windows
 *       opened by a poll entry); max_alone (the longest window with no
 *       other interrupt in it); entries_max (the most interrupts in one
 *       window, the waking one included)
 *   WAKE-PATH-PCT <seg> <p0> ... <p100>   the 101 percentiles
 *   with dump=1, WAKE-PATH-LONG <seg> sample <n> insns <n> all_vcpus <n>
 *   (every vCPU's instructions in the window: under -icount the clock),
 *   then WAKE-PATH-LONG <seg> at <word>...: per instruction of the
 *   window its address (low 40 bits) with, from bit 44, how many
 *   instructions the other vCPUs ran just before it (QEMU's round robin
 *   had ended this vCPU's turn there); wake_path.py --longest names them
 * then WAKE-PATH-TOTAL with each vCPU's instruction count. The first
 * unmatched marks of a segment are described as they happen
 * (WAKE-PATH-MISS: instructions since the arm, entries, ticks, wake
 * calls and switches seen).
 *
 * No QEMU header: Debian ships none, so the few functions used are
 * declared here as QEMU 7.2's documentation gives them.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the QEMU plugin API (version 1), as documented ---------------- */

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);
int qemu_plugin_n_max_vcpus(void);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

EXPORT int qemu_plugin_version = 1;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv);

/* ---- configuration -------------------------------------------------- */

#define ENTRY_MAX 8
#define HINT(imm) (0xd503201fu | ((uint32_t)(imm) & 0x7f) << 5)

enum kind { K_SEG, K_ARM, K_MARK, K_TICK, K_WAKE, K_SWITCH,
	    K_ENTRY /* + index */ };

#define SWITCH_MAX 4

static struct {
	uint64_t entry[ENTRY_MAX];
	unsigned nentry;
	unsigned poll_from; /* entries from this index on are polls */
	uint64_t sw[SWITCH_MAX];
	unsigned nsw;
	uint64_t tick, wake, kbase;
	uint32_t seg, arm, mark; /* encodings */
	bool dump; /* dump=1: each segment's longest window, address by address */
} cfg = {.poll_from = ENTRY_MAX, .kbase = 0xffff000000000000ull};

/* ---- state ---------------------------------------------------------- */

/* A window as it stands: opened (by a waking interrupt) or not. */
struct win {
	bool open;
	bool poll;     /* opened by a poll entry, not an exception */
	uint64_t n;    /* the vCPU's count at its first instruction */
	uint64_t nu;   /* of them EL0's */
	unsigned ents; /* entries since the arm, the opening one included */
	uint64_t tr;   /* dump=1: its first instruction's index in the trace */
	uint64_t all;  /* dump=1: all_n then */
};

/* One vCPU's counts and its window; padded to a cache line so that
 * vCPU threads (multi-threaded TCG) do not share one. */
struct vcpu {
	uint64_t n;  /* instructions executed */
	uint64_t nu; /* of them below kbase (EL0's) */
	/* the last entry: where an interrupt's handling began */
	uint64_t cand_n, cand_nu;
	bool cand_tick, cand_woke, cand_poll;
	/* since the last arm */
	bool armed;
	uint64_t arm_n;
	struct win cur;     /* opened by the last waking interrupt */
	struct win at_sw;   /* cur as it was at the last switch */
	bool sw;            /* a switch since the arm */
	unsigned wakes;     /* waking interrupts */
	unsigned wakes_sw;  /* of them before the last switch */
	unsigned ents, ticks, calls, sws; /* entries, ticks, wake calls,
					   * switches (diagnostics) */
	/* dump=1: the last TRACE_MAX addresses executed (a ring) */
	uint64_t *trace;
	uint64_t ntrace, cand_tr; /* addresses ever appended; at the entry */
	uint64_t cand_all, last_all;
} __attribute__((aligned(64)));

struct seg {
	uint64_t *s; /* samples */
	size_t n, cap;
	uint64_t cpus, user_max, nested, multi, late, unblocked, unmatched;
	uint64_t from_poll, max_alone, entries_max;
	unsigned misses; /* unmatched marks described so far */
	uint64_t *longest; /* dump=1: the longest window's addresses */
	unsigned nlongest;
	uint64_t longest_v; /* its sample */
	uint64_t longest_all; /* every vCPU's instructions in it */
};

#define TRACE_MAX 65536

#define MISSES_SHOWN 10

static struct vcpu *vcpus;
static unsigned nvcpus;
static struct seg *segs;
static size_t nsegs, segs_cap;
static uint64_t orphans; /* marks before any seg */

/* ---- execution callbacks --------------------------------------------- */

static void on_user(unsigned int vcpu, void *ud)
{
	(void)ud;
	vcpus[vcpu].n++;
	vcpus[vcpu].nu++;
}

static void on_kernel(unsigned int vcpu, void *ud)
{
	(void)ud;
	vcpus[vcpu].n++;
}

/** dump=1: a second callback on every instruction, after the counting
 *  one: its address @ud appended to the vCPU's trace since the arm. */
static uint64_t all_n; /* dump=1: every vCPU's instructions (one TCG thread) */

static void on_trace(unsigned int vcpu, void *ud)
{
	struct vcpu *c = &vcpus[vcpu];
	all_n++;
	if (c->trace) {
		/* the other vCPUs' instructions since this one's previous
		 * (its turn ended there) in the top 20 bits */
		uint64_t gap = all_n - c->last_all - 1;
		c->last_all = all_n;
		c->trace[c->ntrace++ % TRACE_MAX] =
			((uint64_t)(uintptr_t)ud & 0xffffffffffull) |
			(gap > 0xfffff ? 0xfffffull : gap) << 44;
	}
}

static void die(const char *msg)
{
	qemu_plugin_outs(msg);
	exit(1);
}

static void outf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void outf(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	qemu_plugin_outs(line);
}

static void seg_add(struct seg *g, uint64_t v)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->s = realloc(g->s, g->cap * sizeof(*g->s));
		if (!g->s)
			die("wake_path: out of memory\n");
	}
	g->s[g->n++] = v;
}

static void new_seg(void)
{
	if (nsegs == segs_cap) {
		segs_cap = segs_cap ? 2 * segs_cap : 16;
		segs = realloc(segs, segs_cap * sizeof(*segs));
		if (!segs)
			die("wake_path: out of memory\n");
	}
	memset(&segs[nsegs++], 0, sizeof(*segs));
}

/** dump=1: window @w of @c, its sample @v, is @g's longest so far. */
static void keep_longest(struct seg *g, const struct vcpu *c,
			 const struct win *w, uint64_t v)
{
	uint64_t from = w->tr;
	if (c->ntrace - from > TRACE_MAX)
		from = c->ntrace - TRACE_MAX; /* the ring's oldest */
	g->nlongest = (unsigned)(c->ntrace - from);
	g->longest = realloc(g->longest, (g->nlongest + 1) * sizeof(uint64_t));
	if (!g->longest)
		die("wake_path: out of memory\n");
	for (unsigned i = 0; i < g->nlongest; i++)
		g->longest[i] = c->trace[(from + i) % TRACE_MAX];
	g->longest_v = v;
	g->longest_all = all_n - w->all;
}

/**
 * The mark: close the window (a sample) or count it unmatched. The
 * window is the one open at the last switch since the arm (the switch
 * back to the measured thread, which runs from there to its mark), so a
 * sleeper woken after it (another thread's timeout) does not move the
 * start; without a switch (the thread came back in place), the one open
 * now.
 */
static void mark(unsigned int vcpu, struct vcpu *c)
{
	if (!nsegs) {
		orphans++;
		c->armed = false;
		return;
	}
	struct seg *g = &segs[nsegs - 1];
	const struct win *w = c->sw ? &c->at_sw : &c->cur;
	if (c->armed && !w->open && !c->sws && !c->calls) {
		/* no switch, no sleeper woken: the wait did not block (its
		 * deadline had passed when the kernel looked) */
		g->unblocked++;
		c->armed = false;
		return;
	}
	if (!c->armed || !w->open) {
		g->unmatched++;
		if (c->armed && g->misses++ < MISSES_SHOWN)
			outf("WAKE-PATH-MISS %zu cpu %u insns %llu entries %u "
			     "ticks %u wakes %u switches %u\n", nsegs - 1, vcpu,
			     (unsigned long long)(c->n - c->arm_n), c->ents,
			     c->ticks, c->calls, c->sws);
		c->armed = false;
		return;
	}
	uint64_t v = c->n - w->n, user = c->nu - w->nu;
	uint64_t ents = c->ents - w->ents + 1; /* the waking one included */
	unsigned before = c->sw ? c->wakes_sw : c->wakes;
	if (cfg.dump && v > g->longest_v)
		keep_longest(g, c, w, v);
	seg_add(g, v);
	g->cpus |= 1ull << (vcpu & 63);
	if (user > g->user_max)
		g->user_max = user;
	g->nested += ents > 1;
	if (ents == 1 && v > g->max_alone)
		g->max_alone = v;
	if (ents > g->entries_max)
		g->entries_max = ents;
	g->multi += before > 1;
	g->late += c->wakes != before;
	g->from_poll += w->poll;
	c->armed = false;
}

static void on_special(unsigned int vcpu, void *ud)
{
	struct vcpu *c = &vcpus[vcpu];
	unsigned k = (unsigned)(uintptr_t)ud;
	bool user = k & 0x100;
	k &= 0xff;
	switch (k) {
	case K_SEG:
		new_seg();
		break;
	case K_ARM:
		c->armed = true;
		c->arm_n = c->n;
		c->cur.open = c->sw = false;
		c->wakes = c->ents = c->ticks = c->calls = c->sws = 0;
		break;
	case K_MARK:
		mark(vcpu, c);
		break;
	case K_TICK:
		c->cand_tick = true;
		c->ticks++;
		break;
	case K_WAKE:
		c->calls++;
		/* a timer interrupt that wakes a sleeper opens (once) */
		if (c->armed && c->cand_tick && !c->cand_woke) {
			c->cur = (struct win){.open = true, .poll = c->cand_poll,
					      .n = c->cand_n, .nu = c->cand_nu,
					      .ents = c->ents, .tr = c->cand_tr,
					      .all = c->cand_all};
			c->wakes++;
		}
		c->cand_woke = true;
		break;
	case K_SWITCH:
		c->sws++;
		c->sw = true;
		c->at_sw = c->cur;
		c->wakes_sw = c->wakes;
		break;
	default: /* an entry */
		c->cand_n = c->n;
		c->cand_nu = c->nu;
		c->cand_tr = c->ntrace;
		c->cand_all = all_n;
		c->cand_poll = k - K_ENTRY >= cfg.poll_from;
		c->cand_tick = c->cand_woke = false;
		c->ents++;
		/* without tick= and wake=, every entry after the arm opens */
		if (c->armed && !cfg.tick) {
			c->cur = (struct win){.open = true, .poll = c->cand_poll,
					      .n = c->cand_n, .nu = c->cand_nu,
					      .ents = c->ents, .tr = c->cand_tr,
					      .all = c->cand_all};
			c->wakes++;
		}
		break;
	}
	c->n++;
	c->nu += user;
}

/* ---- translation ------------------------------------------------------ */

static int special_kind(uint64_t va, const struct qemu_plugin_insn *insn)
{
	if (qemu_plugin_insn_size(insn) == 4) {
		const uint8_t *b = qemu_plugin_insn_data(insn);
		uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		if (w == cfg.seg)
			return K_SEG;
		if (w == cfg.arm)
			return K_ARM;
		if (w == cfg.mark)
			return K_MARK;
	}
	if (cfg.tick && va == cfg.tick)
		return K_TICK;
	if (cfg.wake && va == cfg.wake)
		return K_WAKE;
	for (unsigned i = 0; i < cfg.nsw; i++)
		if (va == cfg.sw[i])
			return K_SWITCH;
	for (unsigned i = 0; i < cfg.nentry; i++)
		if (va == cfg.entry[i])
			return K_ENTRY + (int)i;
	return -1;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		bool user = va < cfg.kbase;
		int k = special_kind(va, insn);
		if (k >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_special, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)((unsigned)k |
						    (user ? 0x100u : 0)));
		else
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, user ? on_user : on_kernel,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (cfg.dump)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_trace, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)va);
	}
}

/* ---- output ----------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/** dump=1: segment @k's longest window as WAKE-PATH-LONG lines, eight
 *  addresses each (tools/plugin/wake_path.py --longest names them). */
static void dump_longest(size_t k, const struct seg *g)
{
	if (!cfg.dump || !g->longest)
		return;
	outf("WAKE-PATH-LONG %zu sample %llu insns %u all_vcpus %llu\n", k,
	     (unsigned long long)g->longest_v, g->nlongest,
	     (unsigned long long)g->longest_all);
	for (unsigned i = 0; i < g->nlongest; i += 8) {
		char line[8 * 17 + 48];
		int at = snprintf(line, sizeof line, "WAKE-PATH-LONG %zu at", k);
		for (unsigned j = i; j < i + 8 && j < g->nlongest; j++)
			at += snprintf(line + at, sizeof line - (size_t)at,
				       " %llx", (unsigned long long)g->longest[j]);
		snprintf(line + at, sizeof line - (size_t)at, "\n");
		qemu_plugin_outs(line);
	}
}

static void report_seg(size_t k, struct seg *g)
{
	static const char *const keys[] = {
		"cpus",      "user_max",  "nested",    "multi",
		"late",      "unblocked", "unmatched", "from_poll",
		"max_alone", "entries_max"};
	uint64_t vals[] = {g->cpus,      g->user_max,    g->nested,
			   g->multi,     g->late,        g->unblocked,
			   g->unmatched, g->from_poll,   g->max_alone,
			   g->entries_max};
	outf("WAKE-PATH %zu samples %zu\n", k, g->n);
	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
		outf("WAKE-PATH %zu %s %llu\n", k, keys[i],
		     (unsigned long long)vals[i]);
	if (!g->n)
		return;
	qsort(g->s, g->n, sizeof(*g->s), cmp_u64);
	uint64_t sum = 0;
	for (size_t i = 0; i < g->n; i++)
		sum += g->s[i];
	outf("WAKE-PATH %zu mean %llu\nWAKE-PATH %zu p99 %llu\n"
	     "WAKE-PATH %zu min %llu\nWAKE-PATH %zu max %llu\n",
	     k, (unsigned long long)(sum / g->n), k,
	     (unsigned long long)g->s[99 * (g->n - 1) / 100], k,
	     (unsigned long long)g->s[0], k,
	     (unsigned long long)g->s[g->n - 1]);
	/* 101 percentiles as the guest prints them: index p*(n-1)/100 */
	char line[101 * 21 + 64];
	int at = snprintf(line, sizeof line, "WAKE-PATH-PCT %zu", k);
	for (size_t p = 0; p <= 100; p++)
		at += snprintf(line + at, sizeof line - (size_t)at, " %llu",
			       (unsigned long long)g->s[p * (g->n - 1) / 100]);
	snprintf(line + at, sizeof line - (size_t)at, "\n");
	qemu_plugin_outs(line);
	dump_longest(k, g);
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
	(void)id;
	(void)ud;
	for (size_t k = 0; k < nsegs; k++)
		report_seg(k, &segs[k]);
	char line[64 + 21 * 64];
	int at = snprintf(line, sizeof line, "WAKE-PATH-TOTAL segs %zu "
			  "orphans %llu insns", nsegs,
			  (unsigned long long)orphans);
	for (unsigned v = 0; v < nvcpus && v < 64; v++)
		at += snprintf(line + at, sizeof line - (size_t)at, " %llu",
			       (unsigned long long)vcpus[v].n);
	snprintf(line + at, sizeof line - (size_t)at, "\n");
	qemu_plugin_outs(line);
}

/* ---- installation ----------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	*out = strtoull(s, &end, 0);
	return *s && !*end;
}

static int bad_arg(const char *arg)
{
	char line[256];
	snprintf(line, sizeof line, "wake_path: bad argument '%s' (entry=, "
		 "poll=, tick=, wake=, switch=, kbase=: addresses; seg=, arm=, "
		 "mark=: HINT immediates 0..127; dump=0|1)\n", arg);
	qemu_plugin_outs(line);
	return -1;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	uint64_t hint[3] = {0x7d, 0x7e, 0x7f}; /* seg, arm, mark */
	uint64_t poll[ENTRY_MAX];
	unsigned npoll = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		uint64_t v;
		if (!eq || !parse_u64(eq + 1, &v))
			return bad_arg(a);
		size_t klen = (size_t)(eq - a);
#define KEY(s) (klen == sizeof(s) - 1 && !strncmp(a, s, klen))
		if (KEY("entry") && cfg.nentry < ENTRY_MAX)
			cfg.entry[cfg.nentry++] = v;
		else if (KEY("poll") && npoll < ENTRY_MAX)
			poll[npoll++] = v;
		else if (KEY("switch") && cfg.nsw < SWITCH_MAX)
			cfg.sw[cfg.nsw++] = v;
		else if (KEY("tick"))
			cfg.tick = v;
		else if (KEY("wake"))
			cfg.wake = v;
		else if (KEY("kbase"))
			cfg.kbase = v;
		else if (KEY("dump"))
			cfg.dump = v != 0;
		else if (KEY("seg") && v < 128)
			hint[0] = v;
		else if (KEY("arm") && v < 128)
			hint[1] = v;
		else if (KEY("mark") && v < 128)
			hint[2] = v;
		else
			return bad_arg(a);
#undef KEY
	}
	if (cfg.nentry + npoll > ENTRY_MAX || !(cfg.nentry + npoll) ||
	    !cfg.tick != !cfg.wake) {
		qemu_plugin_outs("wake_path: need 1 to 8 entry=/poll= "
				 "addresses, and tick= with wake=\n");
		return -1;
	}
	cfg.poll_from = cfg.nentry;
	for (unsigned i = 0; i < npoll; i++)
		cfg.entry[cfg.nentry++] = poll[i];
	cfg.seg = HINT(hint[0]);
	cfg.arm = HINT(hint[1]);
	cfg.mark = HINT(hint[2]);
	if (cfg.seg == cfg.arm || cfg.arm == cfg.mark || cfg.seg == cfg.mark)
		return bad_arg("seg=/arm=/mark= must differ");

	int n = qemu_plugin_n_max_vcpus();
	if (n <= 0 && info->system_emulation)
		n = info->system.max_vcpus;
	if (n <= 0)
		n = 1;
	nvcpus = (unsigned)n;
	vcpus = aligned_alloc(64, nvcpus * sizeof(*vcpus));
	if (!vcpus)
		return -1;
	memset(vcpus, 0, nvcpus * sizeof(*vcpus));
	for (unsigned i = 0; cfg.dump && i < nvcpus; i++)
		if (!(vcpus[i].trace = malloc(TRACE_MAX * sizeof(uint64_t))))
			return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
