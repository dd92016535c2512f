/*
 * User address spaces: 4-level, 4 KiB-granule translation tables for
 * TTBR0 with 16-bit ASIDs. The kernel lives in TTBR1 (boot.S) and never
 * dereferences user addresses; these tables give EL0 its mappings and
 * give the kernel arch_vspace_lookup() to translate user pointers.
 * Every user page is non-global (nG), never executable at EL1 (PXN),
 * and executable at EL0 only with FUL_R_EXEC.
 */
#include "../../kernel/arch.h"
#include "../../kernel/kernel.h"
#include "../../kernel/page.h"
#include <arch/memlayout.h>
#include <fulcrum/syscall.h>

#define PTE_VALID 1ull
#define PTE_TABLE 3ull /* table (levels 0-2) or page (level 3) */
#define PTE_ATTR_NORMAL (1ull << 2) /* MAIR attr1: write-back */
#define PTE_ATTR_DEVICE (3ull << 2) /* MAIR attr3: Device-nGnRE */
#define PTE_ATTR_MASK (7ull << 2)
#define PTE_AP_EL0 (1ull << 6)
#define PTE_AP_RO (1ull << 7)
#define PTE_SH_INNER (3ull << 8)
#define PTE_AF (1ull << 10)
#define PTE_NG (1ull << 11)
#define PTE_PXN (1ull << 53)
#define PTE_UXN (1ull << 54)
#define PTE_ADDR 0x0000fffffffff000ull

/* The table of a core with no user address space: every EL0 access
 * faults. */
static uint64_t empty_l0[512] __attribute__((aligned(4096)));

static inline uint64_t kva_to_pa(uintptr_t kva)
{
	return (uint64_t)kva - KVA_OFFSET;
}

static inline uint64_t *pa_to_table(uint64_t pte)
{
	return (uint64_t *)((pte & PTE_ADDR) + KVA_OFFSET);
}

static inline unsigned pt_index(uintptr_t va, int level)
{
	return (va >> (39 - 9 * level)) & 511;
}

/** Clean the page at @kva to the point of unification and invalidate
 *  the instruction caches, so EL0 fetches what the kernel or a loader
 *  wrote there (QEMU does not need it; hardware does). */
static void sync_icache(uintptr_t kva)
{
	for (uintptr_t p = kva; p < kva + PAGE_SIZE; p += 64)
		__asm__ volatile("dc cvau, %0" ::"r"(p) : "memory");
	__asm__ volatile("dsb ish; ic ialluis; dsb ish" ::: "memory");
}

int arch_vspace_init(struct arch_vspace *v, unsigned asid)
{
	v->root = page_alloc(1);
	if (!v->root)
		return -FUL_ENOMEM;
	v->tables = 1;
	v->l3_hot = 0;
	v->asid = (uint16_t)asid;
	v->ttbr = kva_to_pa((uintptr_t)v->root) | (uint64_t)v->asid << 48;
	return 0;
}

/** The first level (0..2) whose entry for @va is missing, i.e. whose
 *  next table a map of @va must allocate; 3 if none is missing. */
static int pt_first_missing(const struct arch_vspace *v, uintptr_t va)
{
	const uint64_t *t = v->root;
	for (int level = 0; level < 3; level++) {
		uint64_t e = t[pt_index(va, level)];
		if (!(e & PTE_VALID))
			return level;
		t = pa_to_table(e);
	}
	return 3;
}

/* VA one table covers: an L3 table 2 MiB, an L2 table 1 GiB, an L1
 * table 512 GiB. */
#define L3_SPAN (1ull << 21)
#define L2_SPAN (1ull << 30)
#define L1_SPAN (1ull << 39)

/**
 * One walk per 2 MiB the range touches (a frame of 16 pages: one). A
 * missing L3 table is needed once for its 2 MiB; a missing L2 or L1
 * table covers the next 2 MiB regions too, so it is counted once per
 * 1 GiB or 512 GiB (the regions are visited in order).
 */
unsigned arch_vspace_tables_needed(struct arch_vspace *v, uintptr_t va,
				   uint64_t npages)
{
	uint64_t end = va + npages * PAGE_SIZE;
	if (likely((va ^ (end - 1)) < L3_SPAN)) { /* within one 2 MiB */
		if (va / L3_SPAN + 1 == v->l3_hot)
			return 0; /* the region mapped last: no walk */
		int miss = pt_first_missing(v, va);
		if (miss == 3)
			v->l3_hot = va / L3_SPAN + 1;
		return 3 - (unsigned)miss;
	}
	uint64_t last_l2 = ~0ull, last_l1 = ~0ull;
	unsigned need = 0;
	for (uint64_t a = va & ~(L3_SPAN - 1); a < end; a += L3_SPAN) {
		int miss = pt_first_missing(v, a);
		if (miss == 3)
			continue;
		need++;
		if (miss <= 1 && a / L2_SPAN != last_l2) {
			need++;
			last_l2 = a / L2_SPAN;
		}
		if (miss == 0 && a / L1_SPAN != last_l1) {
			need++;
			last_l1 = a / L1_SPAN;
		}
	}
	return need;
}

/** Free the table @t at @level and every table below it. */
static void pt_free(uint64_t *t, int level)
{
	if (level < 3)
		for (unsigned i = 0; i < 512; i++)
			if (t[i] & PTE_VALID)
				pt_free(pa_to_table(t[i]), level + 1);
	page_free(t, 1);
}

void arch_vspace_destroy(struct arch_vspace *v)
{
	pt_free(v->root, 0);
	v->root = NULL;
	__asm__ volatile("dsb ishst; tlbi aside1is, %0; dsb ish; isb" ::"r"(
				 (uint64_t)v->asid << 48)
			 : "memory");
}

/** The level-3 entry for @va, allocating tables on the way if @made,
 *  which counts them. NULL if a table is missing (or cannot be
 *  allocated). */
static uint64_t *pt_walk(const struct arch_vspace *v, uintptr_t va,
			 uint32_t *made)
{
	uint64_t *t = v->root;
	for (int level = 0; level < 3; level++) {
		uint64_t *e = &t[pt_index(va, level)];
		if (!(*e & PTE_VALID)) {
			if (!made)
				return NULL;
			uint64_t *next = page_alloc(1);
			if (!next)
				return NULL;
			(*made)++;
			__asm__ volatile("dsb ishst" ::: "memory");
			*e = kva_to_pa((uintptr_t)next) | PTE_TABLE;
		}
		t = pa_to_table(*e);
	}
	return &t[pt_index(va, 3)];
}

/** A leaf entry's bits for @rights (FUL_R_* and ARCH_MAP_DEVICE), all
 *  but the output address. */
static inline uint64_t pte_bits(unsigned rights)
{
	uint64_t pte = PTE_TABLE | PTE_AP_EL0 | PTE_AF | PTE_NG | PTE_PXN;
	if (rights & ARCH_MAP_DEVICE) /* never executable, never cached */
		pte |= PTE_ATTR_DEVICE | PTE_UXN;
	else
		pte |= PTE_ATTR_NORMAL | PTE_SH_INNER;
	if (!(rights & FUL_R_WRITE))
		pte |= PTE_AP_RO;
	if (!(rights & (FUL_R_EXEC | ARCH_MAP_DEVICE)))
		pte |= PTE_UXN;
	return pte;
}

/** Does a mapping with @rights need the page's code made fetchable
 *  (written through the linear map)? */
static inline bool pte_needs_icache(unsigned rights)
{
	return (rights & FUL_R_EXEC) && !(rights & ARCH_MAP_DEVICE);
}


int arch_vspace_map_range(struct arch_vspace *v, uintptr_t va, uintptr_t kva,
			  uint64_t npages, unsigned rights, uint64_t *done)
{
	uint64_t bits = pte_bits(rights), i = 0;
	bool icache = pte_needs_icache(rights);
	int err = 0;
	while (i < npages) {
		uint64_t *e = pt_walk(v, va, &v->tables);
		if (!e) {
			err = -FUL_ENOMEM;
			break;
		}
		/* the rest of this leaf table: one walk for up to 512 */
		uint64_t n = 512 - pt_index(va, 3);
		if (n > npages - i)
			n = npages - i;
		uint64_t pa = kva_to_pa(kva);
		for (uint64_t k = 0; k < n; k++) {
			if (icache)
				sync_icache(kva + k * PAGE_SIZE);
			e[k] = (pa + k * PAGE_SIZE) | bits;
		}
		i += n;
		va += n * PAGE_SIZE;
		kva += n * PAGE_SIZE;
	}
	/* Invalid entries are never cached in a TLB: no invalidation. */
	__asm__ volatile("dsb ishst" ::: "memory");
	*done = i;
	return err;
}

int arch_vspace_map(struct arch_vspace *v, uintptr_t va, uintptr_t kva,
		    unsigned rights)
{
	uint64_t done;
	return arch_vspace_map_range(v, va, kva, 1, rights, &done);
}

uintptr_t arch_vspace_unmap(struct arch_vspace *v, uintptr_t va)
{
	uint64_t *e = pt_walk(v, va, NULL);
	if (!e || !(*e & PTE_VALID))
		return 0;
	uintptr_t kva = (uintptr_t)((*e & PTE_ADDR) + KVA_OFFSET);
	*e = 0;
	__asm__ volatile("dsb ishst; tlbi vae1is, %0; dsb ish; isb" ::"r"(
				 (uint64_t)v->asid << 48 | (va >> 12))
			 : "memory");
	return kva;
}

/* Above this many pages an unmap invalidates the whole ASID once
 * instead of page by page (each TLBI is a broadcast to every core). */
#define UNMAP_TLBI_PAGES 32

void arch_vspace_unmap_range(struct arch_vspace *v, uintptr_t va,
			     uint64_t npages)
{
	uintptr_t start = va;
	uint64_t left = npages;
	while (left) {
		uint64_t n = 512 - pt_index(va, 3);
		if (n > left)
			n = left;
		uint64_t *e = pt_walk(v, va, NULL);
		for (uint64_t k = 0; e && k < n; k++)
			e[k] = 0;
		left -= n;
		va += n * PAGE_SIZE;
	}
	__asm__ volatile("dsb ishst" ::: "memory"); /* entries, then TLBIs */
	if (npages > UNMAP_TLBI_PAGES) {
		__asm__ volatile("tlbi aside1is, %0" ::"r"((uint64_t)v->asid
							  << 48)
				 : "memory");
	} else {
		for (uint64_t k = 0; k < npages; k++)
			__asm__ volatile("tlbi vae1is, %0" ::"r"(
						 (uint64_t)v->asid << 48 |
						 ((start >> 12) + k))
					 : "memory");
	}
	__asm__ volatile("dsb ish; isb" ::: "memory");
}

uintptr_t arch_vspace_lookup(const struct arch_vspace *v, uintptr_t va,
			     unsigned *rights)
{
	uint64_t *e = pt_walk(v, va, NULL);
	/* A device page is never memory the kernel may copy to or from. */
	if (!e || !(*e & PTE_VALID) ||
	    (*e & PTE_ATTR_MASK) == PTE_ATTR_DEVICE)
		return 0;
	*rights = FUL_R_READ | (*e & PTE_AP_RO ? 0 : FUL_R_WRITE) |
		  (*e & PTE_UXN ? 0 : FUL_R_EXEC);
	return (uintptr_t)((*e & PTE_ADDR) + KVA_OFFSET);
}

void arch_vspace_activate(const struct arch_vspace *v)
{
	uint64_t ttbr = v ? v->ttbr : kva_to_pa((uintptr_t)empty_l0);
	write_sysreg(ttbr0_el1, ttbr);
	__asm__ volatile("isb" ::: "memory");
}

/** Per core: drop the boot identity map (and every TLB entry it left,
 *  which would alias user addresses) in favour of the empty table. */
void mmu_init_cpu(void)
{
	arch_vspace_activate(NULL);
	__asm__ volatile("tlbi vmalle1; dsb nsh; isb" ::: "memory");
}

uint64_t arch_kva_to_phys(uintptr_t kva)
{
	return kva_to_pa(kva);
}

uintptr_t arch_phys_to_kva(uint64_t pa)
{
	return (uintptr_t)(pa + KVA_OFFSET);
}
