/*
 * Exception vectors. Every entry saves the full register frame
 * (struct trap_frame, arch/aarch64/trap.h) on the current stack (SP_EL1,
 * the running thread's kernel stack), calls C, restores and erets.
 *
 * vectors_bench is the same table with the IRQ-from-EL1 path bracketed
 * by PMCCNTR reads; bench.c installs it on one core to measure the SGI
 * handling path from exception entry to eret. Both tables run the same
 * code between the brackets.
 */
#include <arch/memlayout.h>

#define CPU_BENCH_DELTA 8 /* offsetof(struct cpu, bench_delta), checked in C */

.macro save_rest
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	mrs	x21, sp_el0
	stp	x30, x21, [sp, #240]
	mrs	x22, elr_el1
	mrs	x23, spsr_el1
	stp	x22, x23, [sp, #256]
.endm

.macro restore_rest
	ldp	x22, x23, [sp, #256]
	msr	elr_el1, x22
	msr	spsr_el1, x23
	ldp	x30, x21, [sp, #240]
	msr	sp_el0, x21
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
.endm

/*
 * The IRQ-stat kernel (-DFUL_IRQSTAT, kernel/irqstat.h) reads PMCCNTR
 * first thing in every slot (FRAME_T0: the start of the masked stretch
 * the exception opens), opens the stretch in C once the registers are
 * saved, and closes it in C before they are restored for the eret.
 * The default kernel assembles none of it.
 */
#ifdef FUL_IRQSTAT
.macro irqstat_stamp
	mrs	x1, pmccntr_el0
	str	x1, [sp, #FRAME_T0]
.endm
/* x0: the kind; keeps it (x19 is saved in the frame, restored at exit)
 * and reloads x8, the call number sync_entry tests. */
.macro irqstat_enter
	mov	x19, x0
	mov	x1, x0
	mov	x0, sp
	bl	arch_irqstat_enter
	mov	x0, x19
	ldr	x8, [sp, #64]
.endm
.macro irqstat_exit
	mov	x0, sp
	bl	arch_irqstat_exit
.endm
#else
.macro irqstat_stamp
.endm
.macro irqstat_enter
.endm
.macro irqstat_exit
.endm
#endif

/* A vector slot: open the frame, save x0/x1, tag the kind, branch. */
.macro vslot target, kind
	.balign 0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp]
	irqstat_stamp
	mov	x0, #\kind
	b	\target
.endm

/* The instrumented IRQ slot: first counter read right after x0 is free. */
.macro vslot_irq_bench
	.balign 0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp]
	mrs	x0, pmccntr_el0
	str	x0, [sp, #FRAME_T0]
	b	irq_entry_bench
.endm

.macro vector_table name, irq_el1
	.balign 0x800
	.global \name
\name:
	vslot	bad_entry, 0
	vslot	bad_entry, 1
	vslot	bad_entry, 2
	vslot	bad_entry, 3
	vslot	sync_entry, 4
	\irq_el1
	vslot	bad_entry, 6
	vslot	bad_entry, 7
	vslot	sync_entry, 8
	vslot	irq_entry, 9
	vslot	bad_entry, 10
	vslot	bad_entry, 11
	vslot	bad_entry, 12
	vslot	bad_entry, 13
	vslot	bad_entry, 14
	vslot	bad_entry, 15
.endm

	.text
vector_table vectors, "vslot irq_entry, 5"
vector_table vectors_bench, "vslot_irq_bench"

irq_entry:
	save_rest
	irqstat_enter
	mov	x0, sp
	bl	irq_handle
	irqstat_exit
	restore_rest
	ldp	x0, x1, [sp]
	add	sp, sp, #FRAME_SIZE
	eret

irq_entry_bench:
	save_rest
#ifdef FUL_IRQSTAT
	mov	x0, #5			/* the kind: IRQ at EL1 */
#endif
	irqstat_enter
	mov	x0, sp
	bl	irq_handle
	irqstat_exit
	restore_rest
	mrs	x0, pmccntr_el0
	ldr	x1, [sp, #FRAME_T0]
	sub	x0, x0, x1
	mrs	x1, tpidr_el1
	str	x0, [x1, #CPU_BENCH_DELTA]
	ldp	x0, x1, [sp]
	add	sp, sp, #FRAME_SIZE
	eret

/* An svc for CALL (5), REPLY_RECV (7) or NTFN_SIGNAL (8) goes to the IPC
 * fastpath's entries (kernel/fastpath.c), everything else to sync_handle;
 * other system calls pay three instructions for the test. */
sync_entry:
	save_rest
	irqstat_enter
	sub	x2, x8, #5
	cmp	x2, #3			/* x8 in 5..8, else not for the fastpath */
	b.hi	1f
	mrs	x3, esr_el1
	lsr	x3, x3, #26
	cmp	x3, #0x15		/* EC: svc from AArch64 (only EL0 has one) */
	b.ne	1f
	mov	x0, sp
	cbz	x2, 3f			/* 5: FUL_SYS_CALL */
	cmp	x2, #2
	b.eq	5f			/* 7: FUL_SYS_REPLY_RECV */
	cmp	x2, #3
	b.eq	4f			/* 8: FUL_SYS_NTFN_SIGNAL */
	mov	x0, #8			/* 6: REPLY, generic; kind: sync from EL0 */
	b	1f
3:	bl	fastpath_svc_call
	b	2f
5:	bl	fastpath_svc_reply_recv
	b	2f
4:	bl	fastpath_svc_signal
	b	2f
1:	mov	x1, x0		/* the kind */
	mov	x0, sp
	bl	sync_handle
2:
	irqstat_exit
	restore_rest
	ldp	x0, x1, [sp]
	add	sp, sp, #FRAME_SIZE
	eret

/* void arch_user_enter(struct arch_uregs *u): leave for EL0 with u's
 * registers; u is the top frame of the current kernel stack. */
	.global arch_user_enter
arch_user_enter:
	mov	sp, x0
	irqstat_exit
	restore_rest
	ldp	x0, x1, [sp]
	add	sp, sp, #FRAME_SIZE
	eret

bad_entry:
	save_rest
	mov	x1, x0
	mov	x0, sp
	bl	bad_exception
	b	.
