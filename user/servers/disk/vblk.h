/*
 * D's virtio-blk driver over virtio-mmio (vblk.c): the transport
 * registers (virtio 1.x spec, section 4.2.2; legacy: 4.2.4), one split
 * virtqueue, and request chains of 4 KiB blocks.
 */
#ifndef DISK_VBLK_H
#define DISK_VBLK_H

#include <stdbool.h>
#include <stdint.h>

/* virtio-mmio registers (offsets). */
#define VM_MAGIC 0x000         /* "virt" */
#define VM_VERSION 0x004       /* 2: modern, 1: legacy */
#define VM_DEVICE_ID 0x008     /* 2: block device */
#define VM_DEV_FEATURES 0x010
#define VM_DEV_FEATURES_SEL 0x014
#define VM_DRV_FEATURES 0x020
#define VM_DRV_FEATURES_SEL 0x024
#define VM_GUEST_PAGE_SIZE 0x028 /* legacy */
#define VM_QUEUE_SEL 0x030
#define VM_QUEUE_NUM_MAX 0x034
#define VM_QUEUE_NUM 0x038
#define VM_QUEUE_ALIGN 0x03c   /* legacy */
#define VM_QUEUE_PFN 0x040     /* legacy */
#define VM_QUEUE_READY 0x044
#define VM_QUEUE_NOTIFY 0x050
#define VM_INT_STATUS 0x060
#define VM_INT_ACK 0x064
#define VM_STATUS 0x070
#define VM_QUEUE_DESC 0x080    /* low, high at +4 */
#define VM_QUEUE_DRIVER 0x090
#define VM_QUEUE_DEVICE 0x0a0
#define VM_CONFIG 0x100        /* virtio_blk_config: u64 capacity (512 B) */

#define VM_MAGIC_VALUE 0x74726976
#define VIRTIO_ID_BLOCK 2

/* Device status bits. */
#define VS_ACK 1
#define VS_DRIVER 2
#define VS_DRIVER_OK 4
#define VS_FEATURES_OK 8
#define VS_FAILED 128

/* Feature bits. */
#define VIRTIO_BLK_F_FLUSH 9
#define VIRTIO_F_VERSION_1 32

/* Request types and status. */
#define VIRTIO_BLK_T_IN 0
#define VIRTIO_BLK_T_OUT 1
#define VIRTIO_BLK_T_FLUSH 4
#define VIRTIO_BLK_S_OK 0

/* The queue: QSIZE descriptors, NCHAINS chains of 3 (header, data,
 * status), chain c at descriptors 3c..3c+2. */
#define QSIZE 64
#define NCHAINS 16

struct vq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
#define VQ_DESC_NEXT 1
#define VQ_DESC_WRITE 2 /* the device writes this buffer */

struct vq_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[QSIZE];
};

struct vq_used_elem {
	uint32_t id;
	uint32_t len;
};

struct vq_used {
	uint16_t flags;
	uint16_t idx;
	struct vq_used_elem ring[QSIZE];
};

/* A request header (device-readable) and its status byte, per chain. */
struct vblk_hdr {
	uint32_t type;
	uint32_t reserved;
	uint64_t sector;
};

struct vblk {
	volatile uint32_t *regs; /* the transport, mapped Device-nGnRE */
	unsigned version;        /* 2 modern, 1 legacy */
	uint64_t blocks;         /* capacity in 4 KiB blocks */
	bool flush;              /* VIRTIO_BLK_F_FLUSH negotiated */
	/* The ring: page 0 descriptors and avail ring, page 1 used ring
	 * (the legacy layout with QueueAlign 4096, valid for both). */
	struct vq_desc *desc;
	struct vq_avail *avail;
	struct vq_used *used;
	uint64_t ring_pa;
	struct vblk_hdr *hdr;    /* NCHAINS headers, then NCHAINS statuses */
	volatile uint8_t *status;
	uint64_t hdr_pa;
	uint16_t last_used;      /* used entries consumed so far */
	uint16_t pending;        /* chains on the avail ring, not published */
};

/** Is the transport at @regs a virtio block device? Its version. */
unsigned vblk_probe(volatile uint32_t *regs);
/** Reset and set up the device at v->regs with the ring and header
 *  pages already in @v. 0, or -FUL_ESTATE if it refuses. */
int vblk_init(struct vblk *v);
/** Fill chain @c for @type on @sector with the 4 KiB at @data_pa
 *  (none for a flush) and put it on the avail ring (not yet notified). */
void vblk_chain(struct vblk *v, unsigned c, uint32_t type, uint64_t sector,
		uint64_t data_pa);
/** Publish the chains put on the avail ring and notify the device. */
void vblk_kick(struct vblk *v);
/** Take the next completed chain: its number (or -1 if none) and
 *  whether the device reported success. */
int vblk_next_done(struct vblk *v, bool *ok);
/** Acknowledge the device's interrupt condition; its bits. */
uint32_t vblk_irq_ack(struct vblk *v);

#endif
