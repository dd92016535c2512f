/*
 * Device memory for user-level drivers. At boot every device region the
 * device tree lists for user space (fdt.c: the virtio-mmio transports)
 * becomes a frame object of kind FRAME_DEVICE over the pages that hold
 * it. The rootserver gets a FUL_CAP_DEVMEM capability to each (bootinfo
 * says which region each slot holds) and hands them to drivers;
 * DEVMEM_MAP maps one Device-nGnRE and execute-never, DEVMEM_INFO says
 * what it is. The kernel keeps each frame's first reference for ever,
 * so a device frame is never destroyed, and never reads or writes user
 * device mappings (arch_vspace_lookup refuses them).
 *
 * Granularity is the page: a region smaller than a page maps its whole
 * page (QEMU virt puts 8 virtio-mmio transports of 0x200 bytes in one
 * page), so a driver given one transport can reach its 7 neighbours.
 * The table is written once at boot ([I]) and read without locks.
 */
#include "devmem.h"
#include "frame.h"
#include "kernel.h"
#include "page.h"
#include "syscall.h"

static struct {
	struct frame *frame; /* [I] referenced for ever */
	struct fdt_dev dev;  /* [I] */
} regions[FDT_MAX_DEVS];
static unsigned nregions; /* [I] */

#define PAGE_DOWN(x) ((x) & ~(uint64_t)(PAGE_SIZE - 1))
#define PAGE_UP(x) PAGE_DOWN((x) + PAGE_SIZE - 1)

/** Does [base, base + size) overlap RAM or wrap around? */
static bool devmem_bad_range(const struct fdt_dev *d)
{
	uint64_t end = d->base + d->size;
	return end <= d->base ||
	       (d->base < machine.ram_base + machine.ram_size &&
		machine.ram_base < end);
}

void devmem_init(const struct fdt_info *fi)
{
	for (unsigned i = 0; i < fi->ndevs && i < FDT_MAX_DEVS; i++) {
		const struct fdt_dev *d = &fi->devs[i];
		uint64_t first = PAGE_DOWN(d->base);
		uint64_t pages = (PAGE_UP(d->base + d->size) - first) / PAGE_SIZE;
		struct frame *f;
		if (devmem_bad_range(d) || pages > FUL_FRAME_MAX_PAGES) {
			kprintf("devmem: region %lx+%lx skipped\n", d->base,
				d->size);
			continue;
		}
		if (frame_wrap(arch_phys_to_kva(first), (unsigned)pages, &f))
			panic("devmem: no frame record for %lx", d->base);
		f->kind = FRAME_DEVICE;
		regions[nregions].frame = f;
		regions[nregions].dev = *d;
		nregions++;
	}
}

unsigned devmem_count(void)
{
	return nregions;
}

struct frame *devmem_region(unsigned i, const struct fdt_dev **dev)
{
	if (i >= nregions)
		panic("devmem: no region %u", i);
	*dev = &regions[i].dev;
	return regions[i].frame;
}

/** DEVMEM_MAP(vs, devmem, vaddr, rights): the order of MAP's checks;
 *  rights READ or READ|WRITE only. */
int64_t sys_devmem_map(struct thread *t, struct arch_uregs *u)
{
	struct cap vs, dm;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_VSPACE, FUL_R_ADMIN, &vs);
	if (err)
		return err;
	uint64_t rights = ARG(3);
	err = cap_lookup(t->vs, ARG(1), FUL_CAP_DEVMEM, FUL_R_READ, &dm);
	if (!err && (dm.rights & rights & FUL_R_ALL) != (rights & FUL_R_ALL))
		err = -FUL_ERIGHTS;
	if (!err && (rights & ~(uint64_t)(FUL_R_READ | FUL_R_WRITE) ||
		     !(rights & FUL_R_READ)))
		err = -FUL_EINVAL;
	if (!err)
		err = vspace_map(vs.obj, dm.obj, ARG(2), (unsigned)rights);
	cap_release(&dm);
	cap_release(&vs);
	return err;
}

/** DEVMEM_INFO(devmem, info*): devmem READ; info writable (EFAULT). */
int64_t sys_devmem_info(struct thread *t, struct arch_uregs *u)
{
	struct cap dm;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_DEVMEM, FUL_R_READ, &dm);
	if (err)
		return err;
	struct ful_devmem_info info = {0};
	for (unsigned i = 0; i < nregions; i++) {
		if (regions[i].frame != dm.obj)
			continue;
		const struct fdt_dev *d = &regions[i].dev;
		info = (struct ful_devmem_info){
			.paddr = d->base, .size = d->size,
			.map_offset = d->base & (PAGE_SIZE - 1),
			.pages = regions[i].frame->npages, .intid = d->intid};
	}
	cap_release(&dm);
	return vspace_copy_out(t->vs, ARG(1), &info, sizeof(info));
}
