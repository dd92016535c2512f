/*
 * Fulcrum system-call ABI (EL0 -> EL1 by `svc #0`).
 *
 * Entry:  x8 = call number, x0..x7 = arguments.
 * Return: x0 = result (>= 0) or -FUL_E* (<fulcrum/errno.h>).
 *         IPC receive paths also return x1 = badge, x2..x5 = message
 *         registers MR0..MR3, x6 = message info; notification waits
 *         return x1 = the bits. x0..x7 are clobbered by every call;
 *         every other register (x8..x30, sp, FP/SIMD, tpidr_el0) is
 *         preserved.
 *
 * Validation (every call, in this order): call number (ENOSYS); each
 * capability slot in range and non-empty (EBADCAP), of the right type
 * (ETYPE), with the needed rights (ERIGHTS); a destination slot in range
 * (EBADCAP); lengths and counts (ERANGE); each user pointer range mapped
 * in the caller with the needed access (EFAULT); other values (EINVAL);
 * object state, including an occupied destination slot (ESTATE).
 * Arguments a call does not use are ignored. A reply capability cannot
 * be copied (ETYPE).
 *
 * Kernel memory: every object is charged to the pool it is created from
 * (x0 of the *_CREATE calls), in bytes, and credited when it is
 * destroyed: endpoint, notification, frame (its pages and its record),
 * vspace (its record, capability table, mapping records and every
 * translation-table page; a MAP that needs new table pages charges them
 * to the vspace's pool), thread (kernel stack and record), pool (its
 * record and whole budget, charged to its parent). A pool that cannot
 * pay answers ENOMEM, after every other check, and nothing changes.
 * POOL_CREATE: pool ADMIN; dst; budget > FUL_POOL_BUDGET_MAX (ERANGE);
 * budget 0 (EINVAL); dst occupied (ESTATE); the parent cannot pay
 * (ENOMEM). POOL_INFO: pool READ; info writable (EFAULT).
 *
 * YIELD puts the caller behind the other ready threads of its own
 * priority on its core; it never passes the core to a lower priority.
 * A thread that waits for a thread of lower priority on its core SLEEPs
 * (libfulcrum's ful_backoff does both).
 */
#ifndef FULCRUM_SYSCALL_H
#define FULCRUM_SYSCALL_H

/*                                 x0       x1      x2     x3     x4     x5     x6 */
#define FUL_SYS_DEBUG_WRITE 0   /* ptr      len                                    -> len */
#define FUL_SYS_YIELD 1         /*                                                 -> 0 */
#define FUL_SYS_EXIT 2          /* (ends the calling thread; never returns)            */
#define FUL_SYS_SEND 3          /* ep       info    mr0    mr1    mr2    mr3    timeout */
#define FUL_SYS_RECV 4          /* ep       -       -      -      -      -      timeout -> msg */
#define FUL_SYS_CALL 5          /* ep       info    mr0    mr1    mr2    mr3    timeout -> reply msg */
#define FUL_SYS_REPLY 6         /* -        info    mr0    mr1    mr2    mr3           */
#define FUL_SYS_REPLY_RECV 7    /* ep       info    mr0    mr1    mr2    mr3    timeout -> msg */
#define FUL_SYS_NTFN_SIGNAL 8   /* ntfn     bits                                    */
#define FUL_SYS_NTFN_WAIT 9     /* ntfn     -       -      -      -      -      timeout -> x1 bits */
#define FUL_SYS_NTFN_POLL 10    /* ntfn                                            -> x1 bits */
#define FUL_SYS_CAP_COPY 11     /* src      dst_vs  dst    rights badge             */
#define FUL_SYS_CAP_DELETE 12   /* slot                                            */
#define FUL_SYS_CAP_INFO 13     /* slot                           -> type | rights << 8 */
#define FUL_SYS_EP_CREATE 14    /* pool     dst                                    */
#define FUL_SYS_NTFN_CREATE 15  /* pool     dst                                    */
#define FUL_SYS_FRAME_CREATE 16 /* pool     dst     npages                         */
#define FUL_SYS_VSPACE_CREATE 17 /* pool    dst                                    */
#define FUL_SYS_MAP 18          /* vs       frame   vaddr  rights                  */
#define FUL_SYS_UNMAP 19        /* vs       vaddr                                  */
#define FUL_SYS_THREAD_CREATE 20 /* pool    vs      dst    attr*  -> tid           */
#define FUL_SYS_THREAD_START 21 /* thread                                          */
#define FUL_SYS_THREAD_KILL 22  /* thread                                          */
#define FUL_SYS_THREAD_MIGRATE 23 /* sched  thread  cpu                            */
#define FUL_SYS_THREAD_INFO 24  /* thread   info*                                  */
#define FUL_SYS_REPLY_SAVE 25   /* dst      (moves the pending reply into a slot)  */
#define FUL_SYS_REPLY_TO 26     /* reply    info    mr0    mr1    mr2    mr3  (consumes it) */
#define FUL_SYS_SYSINFO 27      /* info*                                           */
#define FUL_SYS_SHUTDOWN 28     /* sched    (powers the machine off)               */
#define FUL_SYS_MIGRATE 29     /* sched    moves*  count  (struct ful_move[], <fulcrum/load.h>) -> moves done */
#define FUL_SYS_THREAD_SET 30  /* sched    tid     attr   value  (FUL_TA_*, <fulcrum/load.h>) */
#define FUL_SYS_POOL_CREATE 31 /* pool     dst     budget (bytes, charged to pool) */
#define FUL_SYS_POOL_INFO 32   /* pool     info*  (struct ful_pool_info)          */
#define FUL_SYS_UTIL_SET 33    /* sched    win_ms (utilization window, FUL_UTIL_WIN_MS_MIN..MAX, <fulcrum/load.h>) */
#define FUL_SYS_CONS_BIND 34   /* console ntfn   bits   (console input -> ntfn, one at a time) */
#define FUL_SYS_CONS_READ 35   /* console ntfn   buf*   len   -> bytes (0: none; never blocks) */
#define FUL_SYS_LBE_BIND 36   /* sched    ntfn   events (FUL_LBE_*; 0 unbinds)  */
#define FUL_SYS_LBE_ARM 37    /* sched    ntfn   events cores  watch            */
/* 38..39: reserved (no call: -FUL_ENOSYS). Devices, 40..47, below. */
#define FUL_SYS_DEVMEM_MAP 40  /* vs       devmem  vaddr  rights (device-nGnRE, never cached) */
#define FUL_SYS_DEVMEM_INFO 41 /* devmem   info*  (struct ful_devmem_info)          */
#define FUL_SYS_IRQ_GET 42     /* irqctl   dst     intid  (an IRQ handler cap)      */
#define FUL_SYS_IRQ_BIND 43    /* irq      ntfn    bits   (the caller handles it)   */
#define FUL_SYS_IRQ_ACK 44     /* irq      (unmask: the next interrupt may come)    */
#define FUL_SYS_IRQ_UNBIND 45  /* irq                                              */
#define FUL_SYS_DMA_CREATE 46  /* pool     dst     npages (contiguous, a frame cap) */
#define FUL_SYS_DMA_PADDR 47   /* frame    -> physical address of its first byte   */
/* Trace rings, 48..51 (<fulcrum/trace.h>, docs/tracing.md "System calls and
 * boot arguments"). */
#define FUL_SYS_TRACE_SET 48   /* sched    mask   flags  (FUL_TRC_*, FUL_TRACE_RESTART) -> previous mask */
#define FUL_SYS_TRACE_FRAME 49 /* sched    dst    (a READ frame cap of the trace area) */
#define FUL_SYS_TRACE_DUMP 50  /* sched    (the rings on the console; tracing off) */
/* 51: reserved for the trace rings (no call: -FUL_ENOSYS). */
/* Page windows (a run of page slots one task maps, filled by the holder
 * of the window capability: docs/objects.md "Page windows"). A window is
 * mapped with MAP like a frame (READ, maybe WRITE; never EXEC). */
#define FUL_SYS_PWIN_CREATE 52 /* pool     dst    npages (1..FUL_PWIN_MAX_PAGES, empty) */
#define FUL_SYS_PWIN_SET 53    /* pwin     slot   frame  page  rights (0: empty the slot) */
/* Kill every thread of a task (what a crash of a whole server does, or
 * the end of a process) and delete the task's capabilities to itself,
 * which would keep it alive for ever; the caller's own task: EINVAL.
 * -> the number killed. Threads the task starts meanwhile may live:
 * call again until it returns 0. */
#define FUL_SYS_TASK_KILL 54   /* vs (ADMIN) */
/* Kill one user thread by its id, in any state and on any core, with
 * the scheduling control (ADMIN; what the console monitor's kill does,
 * for the user-level shell): no live thread ENOTHREAD, a kernel thread
 * ESTATE, the caller itself EINVAL (EXIT ends a thread). */
#define FUL_SYS_SCHED_KILL 55  /* sched    tid */
/* The IRQ-masked stretches of core @cpu (<fulcrum/irqstat.h>): copy its
 * figures to buf (0: no copy), then with FUL_IRQSTAT_RESET clear them.
 * Only the instrumented kernel (build/kernel-irqstat.elf) keeps them;
 * the default kernel answers ENOSYS. Sched ADMIN; buf not writable
 * EFAULT; cpu offline or unknown flags EINVAL; the reset is a call to
 * the core (EAGAIN, ETIMEOUT). */
#define FUL_SYS_IRQSTAT 56     /* sched    cpu    buf*   flags */
/* Block the caller for at least us microseconds (0: return at once), so
 * that its core runs threads of lower priority meanwhile: a waiter that
 * only YIELDs keeps them out. A time the IPC timeouts take as forever
 * (FUL_FOREVER, or above 2^40 us) is EINVAL. Always 0 otherwise. */
#define FUL_SYS_SLEEP 57       /* us */
#define FUL_SYS_COUNT 58

/*
 * Message info (x1 on send, x6 on receive): a label chosen by the sender
 * and the number of bytes of the caller's IPC buffer that travel with the
 * four message registers.
 */
#define FUL_IPCBUF_SIZE 512
#define FUL_MSG(label, len) (((unsigned long)(label) << 16) | (unsigned long)(len))
#define FUL_MSG_LEN(info) ((unsigned long)(info) & 0x3ff)
#define FUL_MSG_LABEL(info) (((unsigned long)(info) >> 16) & 0xffffffffUL)

/* Timeouts, in microseconds: 0 never blocks (-FUL_ETIMEOUT if it
 * would), FUL_FOREVER waits without limit. */
#define FUL_FOREVER (~0UL)

/* Capability object types (CAP_INFO bits 0..7). */
#define FUL_CAP_NONE 0
#define FUL_CAP_THREAD 1
#define FUL_CAP_VSPACE 2   /* an address space and its capability table: a task */
#define FUL_CAP_FRAME 3
#define FUL_CAP_ENDPOINT 4
#define FUL_CAP_NTFN 5
#define FUL_CAP_SCHED 6    /* scheduling and migration controls */
#define FUL_CAP_POOL 7     /* memory budget that object creation draws on */
#define FUL_CAP_REPLY 8    /* the right to reply once to one blocked caller */
#define FUL_CAP_CONSOLE 9  /* console input: ADMIN binds a notification, READ reads */
#define FUL_CAP_DEVMEM 10  /* a physical MMIO range: READ/WRITE map it (DEVMEM_MAP) */
#define FUL_CAP_IRQCTL 11  /* the right to make IRQ handler caps (ADMIN) */
#define FUL_CAP_IRQ 12     /* one SPI: ADMIN binds/unbinds, WRITE acks */
#define FUL_CAP_PWIN 13    /* a page window: READ/WRITE map it, ADMIN fills its slots */

/* Rights (CAP_INFO bits 8..11). */
#define FUL_R_READ 1u   /* endpoint: receive; ntfn: wait/poll; frame: map readable */
#define FUL_R_WRITE 2u  /* endpoint: send/call; ntfn: signal; frame: map writable */
#define FUL_R_EXEC 4u   /* frame: map executable */
#define FUL_R_ADMIN 8u  /* control: create into, map into, start, kill, migrate */
#define FUL_R_ALL 15u

/* Capability table: FUL_CSLOTS slots per task; slot 0 is always empty. */
#define FUL_CSLOTS 256

/* User address space: [FUL_USER_MIN, FUL_USER_MAX). */
#define FUL_PAGE_SIZE 4096UL
#define FUL_USER_MIN 0x10000UL
#define FUL_USER_MAX 0x8000000000UL /* 512 GiB */
#define FUL_FRAME_MAX_PAGES 4096    /* 16 MiB per frame object */
#define FUL_PWIN_MAX_PAGES 256      /* slots per page window */

struct ful_thread_attr {
	unsigned long entry;   /* EL0 entry point */
	unsigned long sp;      /* initial stack pointer (16-byte aligned) */
	unsigned long arg0;    /* x0 at entry */
	unsigned long arg1;    /* x1 at entry */
	unsigned long ipcbuf;  /* FUL_IPCBUF_SIZE-aligned, writable in vs; x2 at entry */
	unsigned int prio;     /* 0..254 (255 is reserved for the kernel) */
	unsigned int cpu;      /* initial core */
	unsigned int slice_ms; /* 1..10000 */
	int nice;              /* -20..19 */
	char name[16];
};

enum ful_thread_state {
	FUL_TS_INACTIVE = 0, /* created, not started */
	FUL_TS_READY,
	FUL_TS_RUNNING,
	FUL_TS_BLOCKED,
	FUL_TS_MIGRATING,
	FUL_TS_DEAD,
};

struct ful_thread_info {
	unsigned int tid;
	unsigned int cpu;
	unsigned int state; /* enum ful_thread_state */
	unsigned int prio;
	unsigned long runtime_us;
	unsigned long migrations;
};

struct ful_sysinfo {
	unsigned int ncpus;
	unsigned int cpu;  /* the caller's core at the time of the call */
	unsigned int tid;  /* the caller */
	unsigned int pad;
	unsigned long counter_freq; /* CNTFRQ, Hz */
	unsigned long faults;       /* user threads killed by a fault so far */
};

#define FUL_DEBUG_WRITE_MAX 1024 /* bytes per DEBUG_WRITE */

/*
 * Console input (FUL_CAP_CONSOLE; the rootserver's FUL_SLOT_CONSOLE).
 * The UART's receive interrupt buffers bytes in the kernel (256) and
 * signals the one bound notification; its holder reads them without
 * blocking. CONS_BIND(console, ntfn, bits): console ADMIN; ntfn WRITE;
 * bits and the ntfn's badge both 0 (EINVAL); another notification bound
 * that still has a capability, or the kernel debug monitor (boot
 * argument kdebug) owns the UART (ESTATE). Bytes already buffered
 * signal at once. CONS_READ(console, ntfn, buf, len): console READ;
 * ntfn READ; len 0 or > FUL_CONS_READ_MAX (ERANGE); buf writable
 * (EFAULT); ntfn not the bound one, or the monitor (ESTATE). Returns the
 * number of bytes copied, 0 if none are buffered.
 */
#define FUL_CONS_READ_MAX 256

/*
 * Devices (docs/interrupts.md "Device memory", "User-level interrupts",
 * "DMA memory"): mechanism only; which driver gets which device is the
 * rootserver's choice.
 *
 * DEVMEM_MAP(vs, devmem, vaddr, rights): vs ADMIN; devmem READ, and
 * every right asked for (ERIGHTS); rights READ or READ|WRITE, nothing
 * else (EINVAL: device memory is never executable); vaddr page aligned
 * with the whole range in the user space (EINVAL); overlaps a mapping
 * (ESTATE); no mapping record or table pages (ENOMEM). The pages are
 * Device-nGnRE, execute-never; the range covers whole pages, so a
 * region smaller than a page maps its page (QEMU virt: 8 virtio-mmio
 * transports share one page). The kernel never reads or writes user
 * device mappings: as a system-call buffer they are EFAULT. UNMAP
 * removes the mapping.
 * DEVMEM_INFO(devmem, info*): devmem READ; info writable (EFAULT).
 * IRQ_GET(irqctl, dst, intid): irqctl ADMIN; dst (EBADCAP); intid not
 * an SPI of the interrupt controller (ERANGE); an SPI the kernel uses
 * (EINVAL); dst occupied, or a handler capability for intid exists
 * (ESTATE). The new capability has all rights. Deleting its last copy
 * unbinds and masks the SPI and frees it for another IRQ_GET.
 * IRQ_BIND(irq, ntfn, bits): irq ADMIN; ntfn WRITE; bits | the ntfn's
 * badge 0 (EINVAL); already bound (ESTATE: unbind first). Each
 * interrupt masks the SPI and signals the bits; IRQ_ACK unmasks it.
 * The interrupt goes to the core of the binding thread, and follows
 * that thread when it migrates (GICv2 ITARGETSR).
 * IRQ_ACK(irq): irq WRITE; not bound (ESTATE). IRQ_UNBIND(irq): irq
 * ADMIN; not bound (ESTATE); masks the SPI.
 * DMA_CREATE(pool, dst, npages): as FRAME_CREATE; a zeroed, physically
 * contiguous frame (FUL_CAP_FRAME, mapped with MAP, cacheable: the
 * devices of QEMU virt are DMA-coherent, "dma-coherent" in the DTB).
 * DMA_PADDR(frame): frame READ; not a DMA frame (ESTATE). Returns the
 * physical address of its first page.
 */
struct ful_devmem_info {
	unsigned long paddr; /* first byte of the region (not page aligned) */
	unsigned long size;  /* bytes of the region */
	unsigned long map_offset; /* paddr - the first mapped page's address */
	unsigned int pages;  /* pages DEVMEM_MAP maps */
	unsigned int intid;  /* its interrupt (GIC INTID), 0 if none */
};

/*
 * Balancer events (kernel/lbevent.h; counters in the load area,
 * <fulcrum/load.h> ev[]). The kernel tells the holder of a bound
 * notification when scheduling events happen, and decides nothing.
 * Kinds, also the bits the notification is signalled with:
 *   FUL_LBE_WAKE    a core (in ARM's `cores`) left idle to run a thread
 *   FUL_LBE_CREATE  a thread was started by a call on a core in `cores`
 *   FUL_LBE_BUSY    a tick found a thread running on a core in `watch`
 * An armed kind is signalled once, by the first such event, and
 * disarmed; events are counted whether armed or not: creates always,
 * wakes while bound (for `cores`), busy ticks while watched.
 * LBE_BIND(sched, ntfn, events): sched ADMIN; ntfn WRITE;
 * events outside FUL_LBE_ALL (EINVAL); events 0 unbinds ntfn (ESTATE if
 * it is not the bound one); another notification that still has
 * capabilities bound (ESTATE). A bind arms every kind of `events` for
 * every core, with an empty watch mask. LBE_ARM(sched, ntfn, events,
 * cores, watch): sched ADMIN; ntfn WRITE; events outside FUL_LBE_ALL,
 * or cores / watch naming a core that is not online (EINVAL); ntfn not
 * the bound one (ESTATE). Sets `cores` and `watch` and arms `events`.
 */
#define FUL_LBE_WAKE 0x100u
#define FUL_LBE_CREATE 0x200u
#define FUL_LBE_BUSY 0x400u
#define FUL_LBE_ALL (FUL_LBE_WAKE | FUL_LBE_CREATE | FUL_LBE_BUSY)

/* Memory pools: budgets and charges in bytes (POOL_CREATE, POOL_INFO). */
#define FUL_POOL_BUDGET_MAX (1UL << 48)

struct ful_pool_info {
	unsigned long used;  /* bytes charged to the pool now */
	unsigned long limit; /* its budget */
};

#endif
