/*
 * F, the file server (user/servers/fs), and its clients: the IPC
 * protocol, first step (docs/storage.md "F, the file server").
 *
 * F mounts the ext2 file system of the disk through B (its blocks, one
 * per request to B's client window) and serves files by inode number.
 * A request is a CALL with label FUL_FS_OP_*; names and data travel in
 * the IPC buffer (at most FUL_IPCBUF_SIZE bytes a call), the message
 * length giving their size. The reply's mr0 is >= 0 or a negative errno
 * value of picolibc (ENOENT, EEXIST, ENOTDIR, EISDIR, ENOTEMPTY, ENOSPC,
 * ENAMETOOLONG, EINVAL, EFBIG, EIO, EPERM, EMLINK); an unknown op is
 * -EINVAL. An operation that fails changes nothing on the disk.
 *
 *   LOOKUP   buffer: an absolute path      -> mr1 ino, mr2 mode, mr3 size;
 *            buffer: its struct ful_fs_stat
 *   STAT     mr0 ino                       -> mr1 mode, mr2 size, mr3 links;
 *            buffer: its struct ful_fs_stat
 *   READ     mr0 ino, mr1 offset, mr2 len  -> mr0 bytes, in the buffer
 *            (a regular file or a directory; -EINVAL for other types)
 *   WRITE    mr0 ino, mr1 offset; buffer   -> mr0 bytes written, mr1 the
 *            offset past them; offset FUL_FS_APPEND writes at the end of
 *            the file (O_APPEND: F serialises requests, so appends from
 *            several clients never overlap); regular files only
 *   CREATE   mr0 directory; buffer: a name -> mr1 ino (a regular file)
 *   MKDIR    mr0 directory; buffer: a name -> mr1 ino
 *   UNLINK   mr0 directory; buffer: a name
 *   RMDIR    mr0 directory; buffer: a name
 *   TRUNCATE mr0 ino, mr1 size
 *   SYNC     every count to the disk, then B's dirty lines, then D
 *   READDIR  mr0 directory, mr1 position (0 first) -> mr0 entries in
 *            the buffer, mr1 the next position (0 entries: the end);
 *            each entry: ino (4 bytes, little-endian), type (ext2's: 1
 *            file, 2 directory, 7 symlink, 5 fifo, 0 unknown...), name
 *            length, the name
 *   INFO     -> mr1 the core F's thread runs on, mr2 disk blocks,
 *            mr3 free blocks (both of 4 KiB, whatever ext2's block
 *            size)
 *   RENAME   mr0 from directory, mr1 to directory, mr2 the from name's
 *            length; buffer: the from name then the to name (a file or
 *            empty directory there is replaced; -EINVAL moving a
 *            directory under itself)
 *   SYMLINK  mr0 directory, mr2 the name's length; buffer: the name then
 *            the target (1 to 4,095 bytes) -> mr1 ino
 *   READLINK mr0 ino -> mr0 bytes of the target in the buffer (-EINVAL
 *            if not a symlink; STAT's size is the target's length)
 *   LINK     mr0 directory, mr1 ino; buffer: a name (-EPERM for a
 *            directory)
 *
 * A name is at most 255 bytes (-ENAMETOOLONG), a path at most
 * FUL_IPCBUF_SIZE bytes.
 *
 * OMF, the On-Memory File (paper 002 II.D), through a ring only: the
 * ring's page window (below) shows B's cache lines of the
 * file's blocks themselves, zero copy.
 *   OMF_MAP    mr0 ino, mr1 first page of the file, mr2 pages (at most
 *              FUL_FSR_OMF_PAGES), or'ed with FUL_FS_OMF_RW for a
 *              writable mapping -> mr1 the file's size. Read-only:
 *              holes and pages past the end show a zero page. Writable:
 *              holes get blocks (zeroed), pages past the end stay
 *              unmapped until OMF_RESIZE. One mapping per ring, a new
 *              one replaces it. While mapped, the file cannot be cut,
 *              unlinked or renamed over by anyone (-EBUSY)
 *   OMF_RESIZE mr0 the new size (within the mapped pages; writable
 *              only, else -EBADF): new pages get zeroed blocks, pages
 *              past it are unmapped and the file cut
 *   OMF_SYNC   mr0 the file's size (resized if it differs), mr1 a mask
 *              of the window pages the client wrote -> B writes those
 *              lines back at its next SYNC (FUL_FS_OP_SYNC), mtime and
 *              ctime set
 *   OMF_UNMAP  the pages unmapped (not marked written)
 *
 * The same operations also come through shared-memory rings, with
 * their data in a shared area instead of the IPC buffer (below);
 * RING_ATTACH / RING_DETACH (mr0: the ring) come from the rootserver
 * only, which sets the rings up.
 *
 * Start-up: F gets B's endpoint (WRITE, badge 1) in slot 4, B's client
 * window in slot 5 and its own endpoint (READ) in slot 6 (the ring
 * slots and its ring to B below), and reports FUL_FS_READY (mr0 0 or
 * the mount's error, mr1 its ring thread's id) on FUL_CHILD_SLOT_REPORT.
 *
 * Rings to F: a client and F talk through a ring of <fulcrum/sring.h>
 * with a data area, one frame of FUL_FSR_PAGES pages mapped into both:
 *   page 0      struct ful_sring_ctl
 *   pages 1..16 the data area (FUL_FSR_DATA bytes): names, bytes
 *               written, bytes read
 * A request carries the operation (FUL_FS_OP_*) and the message
 * registers it takes over IPC (a[0..2] = mr0..mr2); what went in the
 * IPC buffer is in the data area instead ([data_off, data_off + len)),
 * and READ may ask for up to FUL_FSR_DATA bytes at once. The reply
 * carries mr0..mr3 (r[0..3]) and the length of the data F put at the
 * request's data_off. F's doorbell is a notification shared by every
 * client ring (bit FUL_SRING_BELL_REQUEST; the rootserver's
 * FUL_SRING_BELL_KILLED when it killed F's server thread: the ring
 * thread then closes the rings).
 *
 * Beside the frame, each ring has a page window (FUL_CAP_PWIN) of
 * FUL_FSR_OMF_PAGES slots: the client maps it (READ|WRITE), F fills it
 * with B's cache lines of the file the client mapped (OMF_MAP): the
 * On-Memory File, zero copy.
 *
 * Set-up: the rootserver makes the frame and the client's notification,
 * maps the frame into F and gives F the notification (WRITE) and the
 * page window (ALL), tells F with FUL_FS_OP_RING_ATTACH, and hands the
 * frame, the notification (READ), F's doorbell (WRITE) and the window
 * (READ|WRITE) to the program that asked (FUL_ROOT_REQ_FS_RING,
 * <fulcrum/rootsrv.h>), which maps the frame into itself or into a
 * child it starts.
 */
#ifndef FULCRUM_FS_H
#define FULCRUM_FS_H

#define FUL_FS_OMF_RW (1UL << 31) /* OMF_MAP mr2: a writable mapping */

enum ful_fs_op {
	FUL_FS_OP_LOOKUP = 1,
	FUL_FS_OP_STAT,
	FUL_FS_OP_READ,
	FUL_FS_OP_WRITE,
	FUL_FS_OP_CREATE,
	FUL_FS_OP_MKDIR,
	FUL_FS_OP_UNLINK,
	FUL_FS_OP_RMDIR,
	FUL_FS_OP_TRUNCATE,
	FUL_FS_OP_SYNC,
	FUL_FS_OP_READDIR,
	FUL_FS_OP_INFO,
	FUL_FS_OP_RENAME,
	FUL_FS_OP_RING_ATTACH, /* rootserver only (badge 0): mr0 ring k */
	FUL_FS_OP_RING_DETACH, /* rootserver only: mr0 ring k */
	FUL_FS_OP_OMF_MAP,     /* rings only (the window): see below */
	FUL_FS_OP_OMF_SYNC,
	FUL_FS_OP_OMF_UNMAP,
	FUL_FS_OP_OMF_RESIZE,
	FUL_FS_OP_SYMLINK,
	FUL_FS_OP_READLINK,
	FUL_FS_OP_LINK,
};

#define FUL_FS_APPEND (~0UL)

/* An inode's attributes (STAT and LOOKUP replies, in the IPC buffer). */
struct ful_fs_stat {
	unsigned int ino, mode, links, blocks; /* blocks: 512-byte units */
	unsigned long size;
	unsigned int atime, mtime, ctime, pad; /* seconds since 1970 */
};

#define FUL_FS_READY 0xf5f5
#define FUL_FS_SLOT_CACHE 4
#define FUL_FS_SLOT_CACHE_WIN 5
#define FUL_FS_SLOT_EP 6
/* F's ring to B (<fulcrum/sring.h>, <fulcrum/cache.h>), if B serves one:
 * the page (mapped by the rootserver at FUL_FS_BRING_VA), F's own
 * notification (READ) and B's doorbell endpoint (WRITE). */
/* F's arg1: FUL_FS_ARG1_NO_COPY (boot argument fs_copy=0) keeps no copy
 * of recent blocks in F, so every block comes from B (paper 002's path
 * client -> F -> B -> client, Figure 5); FUL_FS_ARG1_NO_WB (fs_wb=0)
 * makes each write to B wait for B's answer instead of going on behind
 * it (over B's ring only); bits 16..31 the polls for B's answer
 * (srv_spin=N, 0 by default). arg0: its client rings' polls. */
#define FUL_FS_ARG1_NO_COPY 1UL
#define FUL_FS_ARG1_NO_WB 2UL
#define FUL_FS_SLOT_BRING_MINE 12
#define FUL_FS_SLOT_BRING_PEER 13
#define FUL_FS_BRING_VA 0x3c000000UL

/* The slot of a system program for F's endpoint (WRITE, badge 1). */
#define FUL_SYSPROG_SLOT_FS 249

/* Client rings (above). */
#define FUL_FSR_MAX 16            /* rings F serves at once */
#define FUL_FSR_DATA_PAGES 16
#define FUL_FSR_OMF_PAGES 64
#define FUL_FSR_PAGES (1 + FUL_FSR_DATA_PAGES)
#define FUL_FSR_DATA (FUL_FSR_DATA_PAGES * 4096UL)
#define FUL_FSR_OMF (FUL_FSR_OMF_PAGES * 4096UL)
#define FUL_FSR_SIZE (FUL_FSR_PAGES * 4096UL)

/* F's address space: ring k at FUL_FSR_F_VADDR + k * FUL_FSR_F_STRIDE,
 * the client's notification k (WRITE) in slot FUL_FSR_F_SLOT_NTFN + k,
 * ring k's page window (ALL) in FUL_FSR_F_SLOT_WIN + k (F deletes it at
 * the detach, the rootserver puts the next one there), F's doorbell
 * (READ) in FUL_FSR_F_SLOT_BELL, a pool in FUL_FSR_F_SLOT_POOL (its
 * second thread, its zero page), B's lines frame (READ|WRITE) in
 * FUL_FSR_F_SLOT_LINES, and F's own zero page in FUL_FSR_F_SLOT_ZERO. */
#define FUL_FSR_F_VADDR 0x50000000UL
#define FUL_FSR_F_STRIDE 0x100000UL
#define FUL_FSR_F_SLOT_BELL 8
#define FUL_FSR_F_SLOT_POOL 9
#define FUL_FSR_F_SLOT_LINES 10
#define FUL_FSR_F_SLOT_ZERO 11
#define FUL_FSR_F_SLOT_NTFN 16
#define FUL_FSR_F_SLOT_WIN 32

#endif
