/*
 * virtio-blk over virtio-mmio: probing, the initialisation sequence of
 * the modern (version 2) and legacy (version 1) transports, and one
 * split virtqueue. Caller-serialised: D's lock guards every call that
 * touches the ring.
 */
#include <fulcrum/errno.h>

#include "vblk.h"

static inline uint32_t rd(struct vblk *v, unsigned off)
{
	return v->regs[off / 4];
}

static inline void wr(struct vblk *v, unsigned off, uint32_t val)
{
	v->regs[off / 4] = val;
}

/* The device is another observer of memory (coherent DMA): order ring
 * writes against it, and complete them before the notify. */
static inline void dma_wmb(void)
{
	__asm__ volatile("dmb oshst" ::: "memory");
}

static inline void dma_rmb(void)
{
	__asm__ volatile("dmb oshld" ::: "memory");
}

unsigned vblk_probe(volatile uint32_t *regs)
{
	if (regs[VM_MAGIC / 4] != VM_MAGIC_VALUE ||
	    regs[VM_DEVICE_ID / 4] != VIRTIO_ID_BLOCK)
		return 0;
	unsigned ver = regs[VM_VERSION / 4];
	return ver == 1 || ver == 2 ? ver : 0;
}

/** Negotiate features: FLUSH if offered, VERSION_1 on the modern
 *  transport (required there). 0 or -FUL_ESTATE. */
static int vblk_features(struct vblk *v)
{
	wr(v, VM_DEV_FEATURES_SEL, 0);
	uint32_t lo = rd(v, VM_DEV_FEATURES);
	wr(v, VM_DEV_FEATURES_SEL, 1);
	uint32_t hi = rd(v, VM_DEV_FEATURES);
	uint32_t want_lo = lo & (1u << VIRTIO_BLK_F_FLUSH);
	uint32_t want_hi = v->version == 2 ? 1u << (VIRTIO_F_VERSION_1 - 32) : 0;
	if ((hi & want_hi) != want_hi)
		return -FUL_ESTATE;
	wr(v, VM_DRV_FEATURES_SEL, 0);
	wr(v, VM_DRV_FEATURES, want_lo);
	wr(v, VM_DRV_FEATURES_SEL, 1);
	wr(v, VM_DRV_FEATURES, want_hi);
	v->flush = want_lo != 0;
	if (v->version == 1)
		return 0; /* legacy has no FEATURES_OK handshake */
	wr(v, VM_STATUS, rd(v, VM_STATUS) | VS_FEATURES_OK);
	return rd(v, VM_STATUS) & VS_FEATURES_OK ? 0 : -FUL_ESTATE;
}

/** Give queue 0 to the device. 0 or -FUL_ESTATE. */
static int vblk_queue(struct vblk *v)
{
	wr(v, VM_QUEUE_SEL, 0);
	if (rd(v, VM_QUEUE_NUM_MAX) < QSIZE)
		return -FUL_ESTATE;
	wr(v, VM_QUEUE_NUM, QSIZE);
	if (v->version == 1) {
		wr(v, VM_QUEUE_ALIGN, 4096);
		wr(v, VM_QUEUE_PFN, (uint32_t)(v->ring_pa >> 12));
		return 0;
	}
	if (rd(v, VM_QUEUE_READY))
		return -FUL_ESTATE;
	uint64_t d = v->ring_pa, a = d + ((char *)v->avail - (char *)v->desc),
		 u = d + 4096;
	wr(v, VM_QUEUE_DESC, (uint32_t)d);
	wr(v, VM_QUEUE_DESC + 4, (uint32_t)(d >> 32));
	wr(v, VM_QUEUE_DRIVER, (uint32_t)a);
	wr(v, VM_QUEUE_DRIVER + 4, (uint32_t)(a >> 32));
	wr(v, VM_QUEUE_DEVICE, (uint32_t)u);
	wr(v, VM_QUEUE_DEVICE + 4, (uint32_t)(u >> 32));
	wr(v, VM_QUEUE_READY, 1);
	return 0;
}

int vblk_init(struct vblk *v)
{
	v->version = vblk_probe(v->regs);
	if (!v->version)
		return -FUL_ESTATE;
	wr(v, VM_STATUS, 0); /* reset */
	while (rd(v, VM_STATUS) != 0)
		;
	wr(v, VM_STATUS, VS_ACK);
	wr(v, VM_STATUS, VS_ACK | VS_DRIVER);
	if (v->version == 1)
		wr(v, VM_GUEST_PAGE_SIZE, 4096);
	int err = vblk_features(v);
	if (!err)
		err = vblk_queue(v);
	if (err) {
		wr(v, VM_STATUS, rd(v, VM_STATUS) | VS_FAILED);
		return err;
	}
	uint64_t sectors = (uint64_t)rd(v, VM_CONFIG) |
			   (uint64_t)rd(v, VM_CONFIG + 4) << 32;
	v->blocks = sectors / 8;
	v->last_used = 0;
	wr(v, VM_STATUS, rd(v, VM_STATUS) | VS_DRIVER_OK);
	return 0;
}

void vblk_chain(struct vblk *v, unsigned c, uint32_t type, uint64_t sector,
		uint64_t data_pa)
{
	struct vq_desc *d = &v->desc[3 * c];
	v->hdr[c] = (struct vblk_hdr){.type = type, .sector = sector};
	v->status[c] = 0xff;
	d[0] = (struct vq_desc){.addr = v->hdr_pa + c * sizeof(struct vblk_hdr),
				.len = sizeof(struct vblk_hdr),
				.flags = VQ_DESC_NEXT,
				.next = (uint16_t)(3 * c + 1)};
	struct vq_desc *st = &d[1];
	if (type != VIRTIO_BLK_T_FLUSH) {
		d[1] = (struct vq_desc){
			.addr = data_pa, .len = 4096,
			.flags = VQ_DESC_NEXT |
				 (type == VIRTIO_BLK_T_IN ? VQ_DESC_WRITE : 0),
			.next = (uint16_t)(3 * c + 2)};
		st = &d[2];
	}
	*st = (struct vq_desc){
		.addr = v->hdr_pa + NCHAINS * sizeof(struct vblk_hdr) + c,
		.len = 1, .flags = VQ_DESC_WRITE};
	v->avail->ring[(v->avail->idx + v->pending) % QSIZE] =
		(uint16_t)(3 * c);
	v->pending++;
}

void vblk_kick(struct vblk *v)
{
	dma_wmb(); /* descriptors and ring entries before the index */
	v->avail->idx = (uint16_t)(v->avail->idx + v->pending);
	v->pending = 0;
	__asm__ volatile("dsb sy" ::: "memory"); /* the index before the notify */
	wr(v, VM_QUEUE_NOTIFY, 0);
}

int vblk_next_done(struct vblk *v, bool *ok)
{
	uint16_t idx = *(volatile uint16_t *)&v->used->idx;
	if (idx == v->last_used)
		return -1;
	dma_rmb(); /* the entry (and the status byte) after the index */
	struct vq_used_elem e = v->used->ring[v->last_used % QSIZE];
	v->last_used++;
	unsigned c = e.id / 3;
	if (c >= NCHAINS)
		return -1; /* a broken device: ignore the entry */
	*ok = v->status[c] == VIRTIO_BLK_S_OK;
	return (int)c;
}

uint32_t vblk_irq_ack(struct vblk *v)
{
	uint32_t s = rd(v, VM_INT_STATUS);
	wr(v, VM_INT_ACK, s);
	return s;
}
