/*
 * The values behind each argument kind. Capability kinds name fixture
 * slots (bi.h); pointer kinds name the caller's buffers or addresses it
 * has not mapped; the rest are lengths, rights and numbers on either side
 * of each documented limit. Value 0 of a kind is the one the systematic
 * run uses when the kind is not the argument under test.
 */
#include <string.h>

#include <fulcrum/load.h>
#include <fulcrum/trace.h>

#include "bi.h"

struct bi_values bi_kv[BI_NKINDS];

char bi_scratch[2 * FUL_PAGE_SIZE] __attribute__((aligned(4096)));
const char bi_ro_zero[FUL_PAGE_SIZE] __attribute__((aligned(4096)));
unsigned bi_ncpus;
unsigned bi_tid;
unsigned long bi_intid;

/* THREAD_CREATE attribute blocks: one valid, the rest bad in one field. */
#define BI_NATTR 24
static struct ful_thread_attr attrs[BI_NATTR];
static unsigned nattrs;

/** Append @n values to kind @k. */
static void put(unsigned k, unsigned n, const unsigned long *v)
{
	for (unsigned i = 0; i < n && bi_kv[k].n < BI_MAXV; i++)
		bi_kv[k].v[bi_kv[k].n++] = v[i];
}

#define PUT(k, ...)                                                    \
	do {                                                           \
		const unsigned long v_[] = {__VA_ARGS__};              \
		put((k), sizeof v_ / sizeof v_[0], v_);                \
	} while (0)

/** Values of the kinds that are plain numbers. */
static void init_numbers(void)
{
	/* The cores past the machine's, as a set. On 64 cores, the limit,
	 * there are none: the bad mask and affinity values below then name
	 * a real core (the suites run on at most 32). */
	unsigned long bi_off_cores = bi_ncpus >= 64 ? 1UL << 63
						    : ~0UL << bi_ncpus;
	PUT(K_ZERO, 0);
	PUT(K_ANY, 0, 1, ~0UL, 0xdeadbeefUL, 1UL << 63, FUL_USER_MAX, BI_KADDR,
	    256, 0x7fffffffUL, 1UL << 32);
	PUT(B_GARBAGE, ~0UL, 1, 0xdeadbeefcafeUL, BI_KADDR, 1UL << 63,
	    FUL_CSLOTS, 513);
	PUT(V_INFO, 0, FUL_MSG(1, 0), FUL_MSG(0xffffffffUL, 0), FUL_MSG(3, 16),
	    FUL_MSG(4, FUL_IPCBUF_SIZE));
	PUT(V_LEN, 16, 64, FUL_DEBUG_WRITE_MAX); /* > 8: crosses a page */
	PUT(V_LEN0, 0);
	PUT(B_SLEEP_US, FUL_FOREVER, (1UL << 40) + 1, 1UL << 63);
	PUT(V_NPAGES, 1, 2, FUL_FRAME_MAX_PAGES);
	PUT(V_RIGHTS, FUL_R_ALL, 0, FUL_R_READ, FUL_R_WRITE | FUL_R_ADMIN);
	PUT(V_BADGE0, 0);
	PUT(V_BADGE, 1, 0xffff, ~0UL);
	PUT(V_MAP_RIGHTS, FUL_R_READ, FUL_R_READ | FUL_R_WRITE,
	    FUL_R_READ | FUL_R_EXEC, FUL_R_READ | FUL_R_WRITE | FUL_R_EXEC);
	PUT(V_MAP_RW, FUL_R_READ | FUL_R_WRITE, FUL_R_READ | FUL_R_EXEC,
	    FUL_R_WRITE, FUL_R_READ | FUL_R_WRITE | FUL_R_EXEC);
	PUT(V_VADDR, BI_VA_FREE, FUL_USER_MIN, FUL_USER_MAX - FUL_PAGE_SIZE);
	PUT(V_CPU, 0, bi_ncpus - 1);
	PUT(V_BITS, 1, ~0UL, 1UL << 63);
	PUT(B_DBG_LEN, FUL_DEBUG_WRITE_MAX + 1, 4096, ~0UL, 1UL << 32,
	    (1UL << 32) + 16);
	PUT(B_INFO_LEN, FUL_MSG(0, FUL_IPCBUF_SIZE + 1), FUL_MSG(7, 0x3ff),
	    FUL_MSG(0, FUL_IPCBUF_SIZE + 1) | 1UL << 63,
	    FUL_MSG(0, FUL_IPCBUF_SIZE + 1) | 1UL << 10);
	PUT(B_INFO_BITS, 1UL << 10, 1UL << 15, FUL_MSG(1, 1) | 1UL << 48,
	    1UL << 63, 0xffff000000000000UL);
	PUT(B_NPAGES, FUL_FRAME_MAX_PAGES + 1, 1UL << 32, (1UL << 32) + 1,
	    ~0UL);
	PUT(B_NPAGES0, 0);
	PUT(B_RIGHTS, 16, FUL_R_ALL | 16, ~0UL, (1UL << 32) | FUL_R_READ,
	    1UL << 63);
	PUT(B_BADGE, 1, 0xffff, ~0UL);
	PUT(B_MAP_RIGHTS, 0, FUL_R_WRITE, FUL_R_EXEC, FUL_R_ADMIN,
	    FUL_R_READ | FUL_R_ADMIN, 16, FUL_R_READ | 16, ~0UL,
	    (1UL << 32) | FUL_R_READ);
	/* Cores: the first one past the machine's, past the kernel's
	 * limit (64, load version 5), and far beyond. */
	PUT(B_CPU, bi_ncpus, 64, 65, 255, 0xffffffffUL, ~0UL);
	PUT(B_CPU_HIGH, 1UL << 32, (1UL << 32) + bi_ncpus - 1, 1UL << 63);
	PUT(B_BITS0, 0);
	PUT(V_MOVES_N, 1, 2, FUL_MIGRATE_MAX);
	PUT(B_MOVES_N, FUL_MIGRATE_MAX + 1, 1000, 1UL << 32, ~0UL);
	PUT(V_TID, bi_tid);
	PUT(V_TA, FUL_TA_SLICE);
	PUT(V_TA_VAL, 10);
	/* POOL_CREATE budgets: valid ones (used only where another argument
	 * fails), too large for the ABI, zero, and more than the pool has. */
	PUT(V_BUDGET, 4096, 1, 100000);
	PUT(B_BUDGET, FUL_POOL_BUDGET_MAX + 1, 1UL << 63, ~0UL, 1UL << 49);
	PUT(B_BUDGET0, 0);
	PUT(B_BUDGET_BIG, FUL_POOL_BUDGET_MAX, 1UL << 40);
	PUT(B_TID, 0, 0xfff, 1UL << 32 | bi_tid, ~0UL);
	PUT(B_TA, 0, FUL_TA_NICE + 1, 100, 1UL << 32 | FUL_TA_SLICE, ~0UL);
	PUT(K_TA_SLICE, FUL_TA_SLICE);
	PUT(K_TA_NICE, FUL_TA_NICE);
	PUT(K_TA_AFFINITY, FUL_TA_AFFINITY);
	PUT(B_SLICE, 0, 10001, 1UL << 32 | 10, ~0UL);
	/* UTIL_SET window lengths: a valid one (only where the capability
	 * fails: a valid call would change the windows), and bad ones */
	PUT(V_UTIL_MS, FUL_UTIL_WIN_MS_DEFAULT);
	PUT(V_CONS_LEN, 1, 16);
	PUT(B_CONS_LEN, 0, FUL_CONS_READ_MAX + 1, 1UL << 32 | 16, ~0UL);
	PUT(B_UTIL_MS, 0, FUL_UTIL_WIN_MS_MIN - 1, FUL_UTIL_WIN_MS_MAX + 1,
	    1UL << 32 | FUL_UTIL_WIN_MS_DEFAULT, ~0UL);
	/* Balancer events: kinds, and core masks naming offline cores */
	PUT(V_LBE_EV, FUL_LBE_WAKE, FUL_LBE_ALL);
	PUT(B_LBE_EV, 1, FUL_LBE_ALL << 1, 1UL << 63, ~0UL);
	/* (cores are a 64-bit set: a mask is bad if it names a core past
	 * the machine's; on 64 cores none is) */
	PUT(B_LBE_MASK, 1UL << 63, bi_off_cores | 1, bi_off_cores);
	PUT(B_NICE, (unsigned long)-21L, 20, 1UL << 31, 1UL << 32);
	/* An affinity is bad if it names no online core. */
	PUT(B_AFFINITY, 1UL << 63, bi_off_cores, 1UL << bi_ncpus % 64);
	PUT(B_TRACE_MASK, FUL_TRC_ALL + 1, 1UL << 32, ~0UL);
	PUT(B_NR, 38, 39, 51, FUL_SYS_COUNT, FUL_SYS_COUNT + 1, 63, 64, 1000,
	    1UL << 32, (1UL << 32) | FUL_SYS_YIELD, (1UL << 32) | FUL_SYS_EXIT,
	    (1UL << 32) | FUL_SYS_SHUTDOWN, 1UL << 63, ~0UL);
}

/** Values of the address kinds. */
static void init_addresses(void)
{
	unsigned long scratch = (unsigned long)bi_scratch;
	unsigned long ro = (unsigned long)bi_ro_zero;
	unsigned long end = BI_IPCBUF + FUL_PAGE_SIZE; /* nothing above */

	PUT(V_PTR_W, scratch, scratch + FUL_PAGE_SIZE - 16);
	PUT(V_PTR_R, ro, scratch);
	PUT(B_PTR, 0, 8, FUL_USER_MIN, BI_VA_FREE, end, FUL_TASK_STACK_TOP,
	    FUL_USER_MAX - FUL_PAGE_SIZE, FUL_USER_MAX, FUL_USER_MAX + 4096,
	    BI_KADDR, 0xffff000000000000UL, ~0UL - 3, 1UL << 63,
	    (1UL << 32) | scratch);
	PUT(B_PTR_CROSS, end - 8, end - 1);
	PUT(B_PTR_RO, ro, ro + 64);
	PUT(B_VADDR, 0, 0x1000, FUL_USER_MIN - FUL_PAGE_SIZE, BI_VA_FREE + 8,
	    BI_VA_FREE + 0x800, FUL_USER_MAX, FUL_USER_MAX + FUL_PAGE_SIZE,
	    BI_KADDR, ~0UL & ~(FUL_PAGE_SIZE - 1), 1UL << 63);
	PUT(B_VADDR_USED, BI_SPARE_VA_RW, BI_SPARE_VA_RW + FUL_PAGE_SIZE,
	    BI_SPARE_VA_RO);
	PUT(B_VADDR_UNMAPPED, BI_VA_FREE, FUL_USER_MIN,
	    BI_SPARE_VA_RW + FUL_PAGE_SIZE, FUL_USER_MAX - FUL_PAGE_SIZE);
	PUT(B_VADDR_MALFORMED, 0, BI_SPARE_VA_RW + 8, BI_SPARE_VA_RO + 1,
	    FUL_USER_MAX, BI_KADDR, ~0UL);
}

/** Values of the capability kinds: fixture slots. */
static void init_caps(void)
{
	PUT(V_EP, F_EP);
	PUT(V_NTFN, F_NTFN);
	PUT(V_FRAME, F_FRAME);
	PUT(V_VS, H_VS);
	PUT(V_SPARE, F_SPARE);
	PUT(V_POOL, H_POOL);
	PUT(V_POOL_R, F_POOL_R, H_POOL);
	PUT(V_SCHED, H_SCHED);
	PUT(V_CONS_R, H_CONS);
	PUT(B_CONS_NO_R, F_CONS_NONE);
	PUT(B_CONS_NO_ADMIN, H_CONS, F_CONS_NONE);
	PUT(V_THREAD_R, F_THREAD_R, H_THREAD, F_INACT);
	PUT(V_THREAD_INACT, F_INACT);
	PUT(V_FREE, F_FREE);
	PUT(V_ANYCAP, F_EP, F_NTFN, F_FRAME, F_SPARE, H_POOL, H_SCHED, F_INACT,
	    F_EP_BADGED, F_THREAD_R, F_DEAD);
	PUT(V_UNBADGEABLE, F_FRAME, F_SPARE, H_POOL, H_SCHED, F_INACT,
	    F_THREAD_R);
	PUT(V_DEVMEM, H_DEVMEM);
	PUT(V_DEVMEM_R, F_DEVMEM_R, H_DEVMEM);
	PUT(V_DEVMEM_RIGHTS, FUL_R_READ, FUL_R_READ | FUL_R_WRITE);
	PUT(V_DEVMEM_RW, FUL_R_READ | FUL_R_WRITE);
	PUT(B_DEVMEM_NO_R, F_DEVMEM_NONE);
	PUT(B_DEVMEM_RO, F_DEVMEM_R);
	/* within the cap's READ|WRITE, or bits no right has: EINVAL */
	PUT(B_DEVMEM_RIGHTS, 0, FUL_R_WRITE, 16, FUL_R_READ | 16,
	    (1UL << 32) | FUL_R_READ, 1UL << 63);
	PUT(B_DEVMEM_EXEC, FUL_R_READ | FUL_R_EXEC, FUL_R_EXEC,
	    FUL_R_READ | FUL_R_ADMIN);
	PUT(V_IRQCTL, H_IRQCTL);
	PUT(B_IRQCTL_NO_ADMIN, F_IRQCTL_R);
	PUT(V_INTID, bi_intid);
	PUT(B_INTID, 0, 16, 31, 32 + 256, 1019, 1020, 1023, ~0UL,
	    (1UL << 32) | bi_intid);
	PUT(B_INTID_KERNEL, 33); /* the console UART */
	PUT(V_IRQ, F_IRQ);
	PUT(V_IRQ_BOUND, F_IRQ_BOUND);
	PUT(B_IRQ_NO_ADMIN, F_IRQ_R);
	PUT(B_IRQ_NO_W, F_IRQ_R);
	PUT(B_IRQ_BOUND, F_IRQ_BOUND);
	PUT(B_IRQ_UNBOUND, F_IRQ);
	PUT(B_FRAME_NOT_DMA, F_FRAME, F_FRAME_R);
	PUT(V_PWIN, F_PWIN);
	PUT(V_PWIN_NPAGES, 1, 2, FUL_PWIN_MAX_PAGES);
	PUT(V_PWIN_SLOT, 0, 1);
	PUT(V_PWIN_RIGHTS, FUL_R_READ, FUL_R_READ | FUL_R_WRITE);
	PUT(V_PWIN_RW, FUL_R_READ | FUL_R_WRITE);
	PUT(V_VA_FREE, BI_VA_FREE);
	PUT(B_PWIN_NO_ADMIN, F_PWIN_RW);
	PUT(B_PWIN_NPAGES, FUL_PWIN_MAX_PAGES + 1, 1UL << 32, ~0UL);
	PUT(B_PWIN_SLOT, 2, 3, FUL_PWIN_MAX_PAGES, 1UL << 32, ~0UL);
	PUT(B_FRAME_PAGE, 1, 2, 1UL << 32, ~0UL); /* F_FRAME has one page */
	/* READ and WRITE only, and READ with it */
	PUT(B_PWIN_RIGHTS, FUL_R_WRITE, FUL_R_READ | FUL_R_EXEC,
	    FUL_R_READ | FUL_R_ADMIN, FUL_R_READ | 16, (1UL << 32) | FUL_R_READ,
	    1UL << 63 | FUL_R_READ);
	PUT(B_PWIN_MAPPED, F_PWIN, F_PWIN_RW);
	PUT(B_PWIN_EXEC, FUL_R_READ | FUL_R_EXEC, FUL_R_EXEC);
	PUT(B_RANGE, 0, FUL_CSLOTS, FUL_CSLOTS + 1, 100000, ~0UL,
	    (1UL << 32) | F_EP, (1UL << 32) | H_VS, (1UL << 32) | H_POOL,
	    (1UL << 32) | F_THREAD_R, (1UL << 32) | F_NTFN, 1UL << 63);
	PUT(B_EMPTY, 40, 128, 199, 252, 255, F_FREE);
	PUT(B_DST_RANGE, 0, FUL_CSLOTS, 100000, ~0UL, (1UL << 32) | F_FREE);
	PUT(B_DST_USED, F_EP, H_VS, F_FRAME, F_DEAD);
	PUT(B_EP_NO_R, F_EP_W, F_EP_NONE);
	PUT(B_EP_NO_W, F_EP_R, F_EP_NONE);
	PUT(B_NTFN_NO_R, F_NTFN_W);
	PUT(B_NTFN_NO_W, F_NTFN_R);
	PUT(B_FRAME_NO_R, F_FRAME_W);
	PUT(B_VS_NO_ADMIN, F_SPARE_R);
	PUT(B_POOL_NO_ADMIN, F_POOL_R, F_POOL_NONE);
	PUT(B_POOL_NO_R, F_POOL_NONE);
	PUT(B_SCHED_NO_ADMIN, F_SCHED_R);
	PUT(B_THREAD_NO_ADMIN, F_THREAD_R, F_INACT_NONE);
	PUT(B_THREAD_NO_R, F_INACT_NONE);
	PUT(B_BADGED, F_EP_BADGED, F_NTFN_BADGED);
	PUT(B_FRAME_RO, F_FRAME_R);
	PUT(B_THREAD_RUNNING, H_THREAD);
	PUT(B_THREAD_DEAD, F_DEAD);
	PUT(B_THREAD_INACTIVE, F_INACT);
}

/** B_NOT_<type>: one capability of every other type (reduced rights do
 *  not matter: the type is checked first). */
static void init_wrong_types(void)
{
	static const struct { unsigned type, slot; } reps[] = {
		{FUL_CAP_THREAD, F_THREAD_R}, {FUL_CAP_VSPACE, F_SPARE_R},
		{FUL_CAP_FRAME, F_FRAME_R},   {FUL_CAP_ENDPOINT, F_EP_R},
		{FUL_CAP_NTFN, F_NTFN_R},     {FUL_CAP_SCHED, F_SCHED_R},
		{FUL_CAP_POOL, F_POOL_R},     {FUL_CAP_CONSOLE, F_CONS_NONE},
		{FUL_CAP_DEVMEM, F_DEVMEM_NONE}, {FUL_CAP_IRQCTL, F_IRQCTL_R},
		{FUL_CAP_IRQ, F_IRQ_R},       {FUL_CAP_PWIN, F_PWIN_RW},
	};
	static const struct { unsigned kind, type; } nots[] = {
		{B_NOT_EP, FUL_CAP_ENDPOINT}, {B_NOT_NTFN, FUL_CAP_NTFN},
		{B_NOT_FRAME, FUL_CAP_FRAME}, {B_NOT_VS, FUL_CAP_VSPACE},
		{B_NOT_POOL, FUL_CAP_POOL},   {B_NOT_THREAD, FUL_CAP_THREAD},
		{B_NOT_SCHED, FUL_CAP_SCHED}, {B_NOT_REPLY, FUL_CAP_REPLY},
		{B_NOT_CONS, FUL_CAP_CONSOLE},
		{B_NOT_DEVMEM, FUL_CAP_DEVMEM}, {B_NOT_IRQCTL, FUL_CAP_IRQCTL},
		{B_NOT_IRQ, FUL_CAP_IRQ},     {B_NOT_PWIN, FUL_CAP_PWIN},
	};
	for (unsigned i = 0; i < sizeof nots / sizeof nots[0]; i++)
		for (unsigned j = 0; j < sizeof reps / sizeof reps[0]; j++)
			if (reps[j].type != nots[i].type)
				put(nots[i].kind, 1,
				    (const unsigned long[]){reps[j].slot});
	for (unsigned j = 0; j < sizeof reps / sizeof reps[0]; j++)
		if (reps[j].type != FUL_CAP_FRAME && reps[j].type != FUL_CAP_PWIN)
			put(B_NOT_MAPPABLE, 1, (const unsigned long[]){reps[j].slot});
}

/** A copy of the valid attribute block; the caller spoils one field. */
static struct ful_thread_attr *attr_new(unsigned kind)
{
	struct ful_thread_attr *a = &attrs[nattrs < BI_NATTR - 1 ? nattrs++ : nattrs];
	*a = attrs[0];
	put(kind, 1, (const unsigned long[]){(unsigned long)a});
	return a;
}

/** THREAD_CREATE attributes (into F_SPARE, where nothing is mapped but
 *  the two fixture mappings): the valid block, then one bad field each. */
static void init_attrs(void)
{
	attrs[0] = (struct ful_thread_attr){
		.entry = 0x400000, .sp = FUL_TASK_STACK_TOP, .prio = 100,
		.cpu = 0, .slice_ms = 10, .nice = 0, .name = "bi-never-run"};
	nattrs = 1;
	put(V_ATTR, 1, (const unsigned long[]){(unsigned long)&attrs[0]});
	attr_new(B_ATTR_FIELD)->prio = 255;
	attr_new(B_ATTR_FIELD)->prio = 1000;
	attr_new(B_ATTR_FIELD)->slice_ms = 0;
	attr_new(B_ATTR_FIELD)->slice_ms = 10001;
	attr_new(B_ATTR_FIELD)->nice = -21;
	attr_new(B_ATTR_FIELD)->nice = 20;
	attr_new(B_ATTR_FIELD)->cpu = bi_ncpus;
	attr_new(B_ATTR_FIELD)->cpu = ~0u;
	attr_new(B_ATTR_FIELD)->entry = 0;
	attr_new(B_ATTR_FIELD)->entry = FUL_USER_MIN - 4;
	attr_new(B_ATTR_FIELD)->entry = 0x400002;
	attr_new(B_ATTR_FIELD)->entry = FUL_USER_MAX;
	attr_new(B_ATTR_FIELD)->entry = BI_KADDR;
	attr_new(B_ATTR_FIELD)->sp = 0;
	attr_new(B_ATTR_FIELD)->sp = FUL_USER_MIN;
	attr_new(B_ATTR_FIELD)->sp = FUL_TASK_STACK_TOP - 8;
	attr_new(B_ATTR_FIELD)->sp = FUL_USER_MAX + 16;
	attr_new(B_ATTR_FIELD)->ipcbuf = BI_VA_FREE + 256;
	attr_new(B_ATTR_FIELD)->ipcbuf = 1;
	attr_new(B_ATTR_IPCBUF)->ipcbuf = BI_VA_FREE;     /* unmapped in vs */
	attr_new(B_ATTR_IPCBUF)->ipcbuf = BI_SPARE_VA_RO; /* read-only in vs */
}

int bi_kinds_init(void)
{
	memset(bi_kv, 0, sizeof bi_kv);
	init_numbers();
	init_addresses();
	init_caps();
	init_wrong_types();
	init_attrs();
	for (unsigned k = 0; k < BI_NKINDS; k++)
		if (!bi_kv[k].n)
			return -(int)(1000 + k); /* a kind without values */
	return 0;
}
