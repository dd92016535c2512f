/*
 * D, the disk driver server (user/servers/disk), and its clients: the
 * IPC protocol (docs/storage.md "D, the disk driver server").
 *
 * The rootserver starts D with the boot argument `disk`, and gives each
 * client a badged WRITE capability to D's endpoint and a window: a DMA
 * frame that D has mapped too (badge b: window b; the test and
 * benchmark programs' has FUL_DISK_WINDOW_PAGES pages, B's holds its
 * cache). Blocks
 * move between the disk and the window's pages by DMA, never through
 * the kernel. A request is a CALL with
 *   label  FUL_DISK_OP_*
 *   mr0    first block (4 KiB, FUL_DISK_BLOCK)
 *   mr1    number of blocks, 1..FUL_DISK_MAX_BATCH (READ, WRITE)
 *   mr2    first page of the window (block k <-> page mr2 + k)
 * and the reply's mr0 is 0 or -FUL_E*: ERANGE (count, block or page out
 * of range), EINVAL (unknown op, or a badge D has no window for), EIO
 * (the device failed the request). D answers when every block is done;
 * the blocks of one request, and the requests of several client
 * threads, are in flight at the device together. Replies to INFO:
 * mr1 = the disk's size in blocks, mr2 = the caller's window pages, mr3 = 1 if the
 * transport is virtio-mmio version 2, 0 if legacy. STATS: mr1 =
 * requests (device chains) completed, mr2 = the most chains in flight
 * at once, mr3 = interrupts handled. WHERE: mr1 = the tid of D's
 * interrupt thread, mr2 = the core its last interrupt woke it on.
 */
#ifndef FULCRUM_DISK_H
#define FULCRUM_DISK_H

#define FUL_DISK_BLOCK 4096
#define FUL_DISK_MAX_BATCH 16
#define FUL_DISK_WINDOW_PAGES 32 /* the system programs' window */
#define FUL_DISK_MAX_WINDOWS 4   /* badges 1..4 */
#define FUL_DISK_WINDOW_MAX_PAGES 4096
#define FUL_DISK_EIO 100 /* -FUL_DISK_EIO: the device failed a block */

enum ful_disk_op {
	FUL_DISK_OP_INFO = 1,
	FUL_DISK_OP_READ,
	FUL_DISK_OP_WRITE,
	FUL_DISK_OP_FLUSH,
	FUL_DISK_OP_STATS,
	FUL_DISK_OP_WHERE,
};

/*
 * Start-up (rootserver <-> D, on D's FUL_CHILD_SLOT_REPORT). D gets the
 * device-region capabilities of every virtio-mmio transport (region i
 * of bootinfo in slot FUL_DISK_SLOT_DEV0 + i, READ|WRITE), its pool,
 * its endpoint (READ) and the client window; it scans the transports
 * for a block device and CALLs label FUL_DISK_FOUND with mr0 = that
 * region's index (or -1): the rootserver puts the handler capability
 * of that region's SPI in D's FUL_DISK_SLOT_IRQ and replies mr0 = 0.
 * D then sets the device up and SENDs label FUL_DISK_READY, mr0 = 0 or
 * -FUL_E* (ESTATE: no virtio-blk device, or it refused the driver),
 * mr1 = blocks, mr2 = transport version, mr3 = its request thread's id
 * and, in bits 32..63, its ring thread's (0: none).
 *
 * B's ring (<fulcrum/sring.h>): READ, WRITE and FLUSH of badge 2 (B's
 * window) through a shared page instead of IPC, if the rootserver gives
 * one: the page in FUL_DISK_SLOT_RING (D maps it at FUL_DISK_RING_VA),
 * D's doorbell (READ) in FUL_DISK_SLOT_RING_BELL, B's notification
 * (WRITE) in FUL_DISK_SLOT_RING_PEER, the load area at FUL_LOAD_VADDR
 * (the ring thread polls only while its core has nothing else to run,
 * up to arg0 bits 16..31 passes, srv_spin=N, 0 by default; bits 0..15:
 * the regions). A request is
 * answered when its chains finish, by the interrupt thread.
 */
/** The slot of window @b (1..FUL_DISK_MAX_WINDOWS) in D. */
#define FUL_DISK_WIN_SLOT(b) ((b) == 1 ? FUL_DISK_SLOT_WIN : FUL_DISK_SLOT_WIN + 14 + (b))
#define FUL_DISK_FOUND 0xd15b
#define FUL_DISK_READY 0xd15c
#define FUL_DISK_SLOT_POOL 4   /* FUL_CHILD_SLOT_ARG0: D's own pool */
#define FUL_DISK_SLOT_EP 5     /* its endpoint, READ */
#define FUL_DISK_SLOT_WIN 6    /* window of badge 1, R|W; badge b's in
				* slot FUL_DISK_SLOT_WIN + 14 + b for b > 1;
				* D's arg1 has each window's pages, 16 bits
				* per badge from badge 1 in bits 0..15 */
#define FUL_DISK_SLOT_IRQ 7    /* the device's IRQ handler, ALL */
#define FUL_DISK_SLOT_RING 40      /* B's ring page, READ|WRITE */
#define FUL_DISK_SLOT_RING_BELL 41 /* D's doorbell, an endpoint, READ */
#define FUL_DISK_SLOT_RING_PEER 42 /* B's notification, WRITE */
#define FUL_DISK_RING_VA 0x21100000UL
#define FUL_DISK_SLOT_DEV0 100 /* region i at 100 + i */

/* Slots of a system program (<ful/ful.h>) for its disk client
 * capabilities, if the rootserver started D. */
#define FUL_SYSPROG_SLOT_DISK 250     /* D's endpoint, WRITE, badged */
#define FUL_SYSPROG_SLOT_DISK_WIN 251 /* the window frame, READ|WRITE */

#endif
