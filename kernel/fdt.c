/* Minimal FDT walker: /memory reg, /cpus/cpu@* reg, /chosen bootargs. */
#include "fdt.h"

#define FDT_MAGIC 0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE 2
#define FDT_PROP 3
#define FDT_NOP 4
#define FDT_END 9

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

static bool name_is(const char *name, const char *want)
{
	while (*want && *name == *want) {
		name++;
		want++;
	}
	return !*want && (*name == 0 || *name == '@');
}

struct walk {
	const uint8_t *strings;
	unsigned depth;
	int node1;         /* kind of the current depth-1 node */
	bool in_cpu;       /* at a depth-2 cpu node */
	unsigned cpu_cells;
	struct fdt_info *out;
};

enum { N_OTHER, N_MEMORY, N_CPUS, N_CHOSEN };

static void fdt_prop(struct walk *w, const char *pname, const uint8_t *val,
		     uint32_t len)
{
	struct fdt_info *o = w->out;
	if (w->depth == 1 && w->node1 == N_MEMORY && name_is(pname, "reg") &&
	    len >= 16 && !o->ram_size) {
		o->ram_base = be_cells(val, 2);
		o->ram_size = be_cells(val + 8, 2);
	} else if (w->depth == 1 && w->node1 == N_CPUS &&
		   name_is(pname, "#address-cells") && len == 4) {
		w->cpu_cells = be32(val);
	} else if (w->depth == 1 && w->node1 == N_CHOSEN &&
		   name_is(pname, "bootargs")) {
		uint32_t n = len < sizeof(o->bootargs) ? len
						       : sizeof(o->bootargs) - 1;
		for (uint32_t i = 0; i < n; i++)
			o->bootargs[i] = (char)val[i];
		o->bootargs[n] = 0;
	} else if (w->in_cpu && name_is(pname, "reg") &&
		   len >= 4 * w->cpu_cells && o->ncpus < MAX_CPUS) {
		o->cpu_hwid[o->ncpus++] = be_cells(val, w->cpu_cells);
	}
}

static void fdt_begin(struct walk *w, const char *name)
{
	w->depth++;
	if (w->depth == 1)
		w->node1 = name_is(name, "memory") ? N_MEMORY
			   : name_is(name, "cpus") ? N_CPUS
			   : name_is(name, "chosen") ? N_CHOSEN
						     : N_OTHER;
	w->in_cpu = w->depth == 2 && w->node1 == N_CPUS && name_is(name, "cpu");
}

int fdt_parse(const void *dtb, size_t max, struct fdt_info *out)
{
	const uint8_t *b = dtb;
	if (max < 40 || be32(b) != FDT_MAGIC || be32(b + 4) > max)
		return -1;
	*out = (struct fdt_info){0};
	struct walk w = {.strings = b + be32(b + 12), .cpu_cells = 1,
			 .out = out};
	w.depth = (unsigned)-1;
	const uint8_t *p = b + be32(b + 8), *end = b + be32(b + 4);
	while (p + 4 <= end) {
		uint32_t tok = be32(p);
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)p;
			unsigned n = 0;
			while (p + n < end && name[n])
				n++;
			fdt_begin(&w, name);
			p += (n + 4) & ~3u;
		} else if (tok == FDT_END_NODE) {
			w.depth--;
			w.in_cpu = false;
		} else if (tok == FDT_PROP) {
			uint32_t len = be32(p), nameoff = be32(p + 4);
			fdt_prop(&w, (const char *)w.strings + nameoff, p + 8, len);
			p += 8 + ((len + 3) & ~3u);
		} else if (tok == FDT_END) {
			break;
		} else if (tok != FDT_NOP) {
			return -1;
		}
	}
	return out->ram_size ? 0 : -1;
}
