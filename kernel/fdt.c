/*
 * Minimal FDT walker: /memory reg, /cpus/cpu@* reg, /chosen bootargs,
 * the reg and interrupts of top-level "virtio,mmio" nodes, and the
 * interrupt controller's version and reg ranges.
 * The blob is untrusted: every offset and length read from it is checked
 * against [dtb, dtb + min(max, totalsize)) before use.
 */
#include "fdt.h"

#define FDT_MAGIC 0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE 2
#define FDT_PROP 3
#define FDT_NOP 4
#define FDT_END 9
#define FDT_HEADER_SIZE 40

static uint32_t be32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static uint64_t be_cells(const uint8_t *p, unsigned cells)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < cells; i++)
		v = v << 32 | be32(p + 4 * i);
	return v;
}

/** Does the @avail-byte string @name equal @want, up to a NUL or '@'? */
static bool name_is(const char *name, size_t avail, const char *want)
{
	size_t i = 0;
	for (; want[i]; i++)
		if (i >= avail || name[i] != want[i])
			return false;
	return i == avail || name[i] == 0 || name[i] == '@';
}

struct walk {
	const char *strings;
	size_t strings_len;
	unsigned depth;
	int node1;   /* kind of the current depth-1 node */
	bool in_cpu; /* at a depth-2 cpu node */
	unsigned cpu_cells;
	unsigned addr_cells, size_cells; /* of the root: its children's reg */
	bool dev_virtio;     /* the current depth-1 node is virtio,mmio */
	unsigned dev_gic;    /* ... a GIC of this version (0: not one) */
	struct fdt_gic gic;  /* ... its reg ranges, kept if dev_gic */
	struct fdt_dev dev;  /* ... its reg (size 0: none yet) and irq */
	struct fdt_info *out;
};

enum { N_OTHER, N_MEMORY, N_CPUS, N_CHOSEN };

static void fdt_prop_chosen(struct fdt_info *o, const uint8_t *val,
			    uint32_t len)
{
	uint32_t n = len < sizeof(o->bootargs) ? len : sizeof(o->bootargs) - 1;
	for (uint32_t i = 0; i < n; i++)
		o->bootargs[i] = (char)val[i];
	o->bootargs[n] = 0;
}

/** Is @want one of the NUL-terminated strings of the stringlist @val? */
static bool fdt_compat_has(const uint8_t *val, uint32_t len,
			   const char *want)
{
	uint32_t wn = (uint32_t)strlen(want);
	for (uint32_t i = 0; i < len;) {
		uint32_t n = 0;
		while (i + n < len && val[i + n])
			n++;
		if (n == wn && i + n < len) {
			bool eq = true;
			for (uint32_t k = 0; k < n; k++)
				eq &= val[i + k] == (uint8_t)want[k];
			if (eq)
				return true;
		}
		i += n + 1;
	}
	return false;
}

/** The GIC version a compatible stringlist names, or 0. */
static unsigned fdt_gic_version(const uint8_t *val, uint32_t len)
{
	if (fdt_compat_has(val, len, "arm,gic-v3"))
		return 3;
	if (fdt_compat_has(val, len, "arm,cortex-a15-gic") ||
	    fdt_compat_has(val, len, "arm,gic-400"))
		return 2;
	return 0;
}

/** Every (address, size) pair of a GIC node's reg, up to FDT_GIC_REGS. */
static void fdt_gic_regs(struct walk *w, const uint8_t *val, uint32_t len)
{
	unsigned rc = w->addr_cells + w->size_cells;
	struct fdt_gic *g = &w->gic;
	g->nregs = 0;
	for (uint32_t off = 0; off + 4 * rc <= len && g->nregs < FDT_GIC_REGS;
	     off += 4 * rc) {
		g->base[g->nregs] = be_cells(val + off, w->addr_cells);
		g->size[g->nregs] = be_cells(val + off + 4 * w->addr_cells,
					     w->size_cells);
		g->nregs++;
	}
}

/** A property of a depth-1 device node: compatible, reg, interrupts
 *  (3 GIC cells: 0 = SPI, 1 = PPI; number; flags). */
static void fdt_prop_dev(struct walk *w, const char *pname, size_t pavail,
			 const uint8_t *val, uint32_t len)
{
	unsigned rc = w->addr_cells + w->size_cells;
	if (name_is(pname, pavail, "compatible")) {
		w->dev_virtio = fdt_compat_has(val, len, "virtio,mmio");
		w->dev_gic = fdt_gic_version(val, len);
	} else if (name_is(pname, pavail, "reg") && w->addr_cells <= 2 &&
		   w->size_cells >= 1 && w->size_cells <= 2 && len >= 4 * rc) {
		w->dev.base = be_cells(val, w->addr_cells);
		w->dev.size = be_cells(val + 4 * w->addr_cells, w->size_cells);
		fdt_gic_regs(w, val, len);
	} else if (name_is(pname, pavail, "#redistributor-regions") &&
		   len == 4) {
		w->gic.nredist = be32(val);
	} else if (name_is(pname, pavail, "interrupts") && len >= 12) {
		uint32_t type = be32(val), num = be32(val + 4);
		if (type <= 1 && num < 988)
			w->dev.intid = num + (type == 0 ? 32 : 16);
	}
}

/** One property of the current node; @val has @len readable bytes. */
static void fdt_prop(struct walk *w, const char *pname, size_t pavail,
		     const uint8_t *val, uint32_t len)
{
	struct fdt_info *o = w->out;
	if (w->depth == 0 && len == 4 &&
	    name_is(pname, pavail, "#address-cells")) {
		w->addr_cells = be32(val);
	} else if (w->depth == 0 && len == 4 &&
		   name_is(pname, pavail, "#size-cells")) {
		w->size_cells = be32(val);
	} else if (w->depth == 1 && w->node1 == N_OTHER) {
		fdt_prop_dev(w, pname, pavail, val, len);
	} else if (w->depth == 1 && w->node1 == N_MEMORY &&
	    name_is(pname, pavail, "reg") && len >= 16 && !o->ram_size) {
		o->ram_base = be_cells(val, 2);
		o->ram_size = be_cells(val + 8, 2);
	} else if (w->depth == 1 && w->node1 == N_CPUS &&
		   name_is(pname, pavail, "#address-cells") && len == 4) {
		uint32_t cells = be32(val);
		w->cpu_cells = cells == 1 || cells == 2 ? cells : 0;
	} else if (w->depth == 1 && w->node1 == N_CHOSEN &&
		   name_is(pname, pavail, "bootargs")) {
		fdt_prop_chosen(o, val, len);
	} else if (w->in_cpu && w->cpu_cells &&
		   name_is(pname, pavail, "reg") && len >= 4 * w->cpu_cells) {
		o->ncpus_dtb++;
		if (o->ncpus < MAX_CPUS)
			o->cpu_hwid[o->ncpus++] = be_cells(val, w->cpu_cells);
	}
}

static void fdt_begin(struct walk *w, const char *name, size_t avail)
{
	w->depth++;
	if (w->depth == 1) {
		w->dev_virtio = false;
		w->dev_gic = 0;
		w->dev = (struct fdt_dev){0};
		w->gic = (struct fdt_gic){0};
	}
	if (w->depth == 1)
		w->node1 = name_is(name, avail, "memory") ? N_MEMORY
			   : name_is(name, avail, "cpus") ? N_CPUS
			   : name_is(name, avail, "chosen") ? N_CHOSEN
							    : N_OTHER;
	w->in_cpu = w->depth == 2 && w->node1 == N_CPUS &&
		    name_is(name, avail, "cpu");
}

/** The end of a node: a depth-1 virtio,mmio node with a reg is kept,
 *  and the first depth-1 GIC node with a reg. */
static void fdt_end(struct walk *w)
{
	struct fdt_info *o = w->out;
	if (w->depth == 1 && w->dev_gic && w->gic.nregs &&
	    !o->gic.version) {
		o->gic = w->gic;
		o->gic.version = w->dev_gic;
		if (!o->gic.nredist)
			o->gic.nredist = 1;
	}
	if (w->depth == 1 && w->dev_virtio && w->dev.size &&
	    o->ndevs < FDT_MAX_DEVS)
		o->devs[o->ndevs++] = w->dev;
}

/** Walk the structure block [p, end). Returns 0 or -1 on malformed. */
static int fdt_walk(struct walk *w, const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 4) {
		uint32_t tok = be32(p);
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			size_t avail = (size_t)(end - p), n = 0;
			while (n < avail && p[n])
				n++;
			if (n == avail)
				return -1; /* unterminated name */
			fdt_begin(w, (const char *)p, n);
			p += (n + 4) & ~(size_t)3;
		} else if (tok == FDT_END_NODE) {
			fdt_end(w);
			w->depth--;
			w->in_cpu = false;
		} else if (tok == FDT_PROP) {
			if (end - p < 8)
				return -1;
			uint32_t len = be32(p), nameoff = be32(p + 4);
			if (len > (size_t)(end - p) - 8 ||
			    nameoff >= w->strings_len)
				return -1;
			fdt_prop(w, w->strings + nameoff,
				 w->strings_len - nameoff, p + 8, len);
			p += 8 + (((size_t)len + 3) & ~(size_t)3);
		} else if (tok == FDT_END) {
			return 0;
		} else if (tok != FDT_NOP) {
			return -1;
		}
	}
	return 0;
}

/** Is [off, off + len) inside [0, size)? */
static bool fdt_range_ok(uint32_t off, uint32_t len, size_t size)
{
	return off <= size && len <= size - off;
}

int fdt_parse(const void *dtb, size_t max, struct fdt_info *out)
{
	const uint8_t *b = dtb;
	*out = (struct fdt_info){0};
	if (max < FDT_HEADER_SIZE || be32(b) != FDT_MAGIC)
		return -1;
	size_t size = be32(b + 4);
	if (size > max || size < FDT_HEADER_SIZE)
		return -1;
	uint32_t off_struct = be32(b + 8), off_strings = be32(b + 12);
	uint32_t size_strings = be32(b + 32), size_struct = be32(b + 36);
	if (!fdt_range_ok(off_struct, size_struct, size) ||
	    !fdt_range_ok(off_strings, size_strings, size))
		return -1;
	struct walk w = {.strings = (const char *)b + off_strings,
			 .strings_len = size_strings,
			 .depth = (unsigned)-1,
			 .cpu_cells = 1,
			 .addr_cells = 2,
			 .size_cells = 1,
			 .out = out};
	if (fdt_walk(&w, b + off_struct, b + off_struct + size_struct) != 0)
		return -1;
	return out->ram_size ? 0 : -1;
}
