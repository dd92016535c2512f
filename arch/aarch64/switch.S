/* Thread context switch: callee-saved registers, fp, lr, sp and TPIDR_EL0; the
 * rest of a preempted thread's state is in its trap frame on its stack. */

/* Save the callee-saved registers, fp, lr, sp and TPIDR_EL0 into the
 * struct arch_context at \ctx (clobbers x9, x10). */
.macro save_context ctx
	stp	x19, x20, [\ctx, #0]
	stp	x21, x22, [\ctx, #16]
	stp	x23, x24, [\ctx, #32]
	stp	x25, x26, [\ctx, #48]
	stp	x27, x28, [\ctx, #64]
	stp	x29, x30, [\ctx, #80]
	mov	x9, sp
	mrs	x10, tpidr_el0
	stp	x9, x10, [\ctx, #96]
.endm

	.text
	.global arch_context_switch
/* void *arch_context_switch(from x0, to x1, pass x2) */
arch_context_switch:
	save_context x0
	ldp	x19, x20, [x1, #0]
	ldp	x21, x22, [x1, #16]
	ldp	x23, x24, [x1, #32]
	ldp	x25, x26, [x1, #48]
	ldp	x27, x28, [x1, #64]
	ldp	x29, x30, [x1, #80]
	ldp	x9, x10, [x1, #96]
	mov	sp, x9
	msr	tpidr_el0, x10
	mov	x0, x2
	ret

	.global arch_thread_trampoline
/* First run of a thread: x0 = prev (from the switch), x19 = fn, x20 = arg */
arch_thread_trampoline:
	mov	x1, x19
	mov	x2, x20
	b	thread_start

	.global arch_fastpath_switch
/* void *arch_fastpath_switch(from x0, to_u x1, pass x2, tpidr x3):
 * save as arch_context_switch does (a later switch to `from` returns
 * from this call), then run sched_fastpath_finish(pass) on the next
 * thread's kernel stack, just below its user frame, and leave for EL0
 * from that frame. */
arch_fastpath_switch:
	save_context x0
	msr	tpidr_el0, x3
	mov	sp, x1
	mov	x19, x1
	mov	x0, x2
	bl	sched_fastpath_finish
	mov	x0, x19
	b	arch_user_enter
