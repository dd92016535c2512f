/*
 * What a thread in a child task runs (ops_mem.c copies it into a frame
 * mapped at FZ_CHILD_CODE_VA of every child task): x0 (>= 1) yields,
 * then EXIT. It touches no memory, so it needs no stack, and it always
 * ends by itself: a child thread whose capability is lost cannot leak.
 * Position independent; kept in .rodata, never run in the fuzzer.
 */
	.section .rodata
	.balign 4
	.global fz_child_code
	.global fz_child_code_end
fz_child_code:
	mov	x9, x0
1:	mov	x8, #1		/* FUL_SYS_YIELD */
	svc	#0
	subs	x9, x9, #1
	b.ne	1b
	mov	x8, #2		/* FUL_SYS_EXIT */
	svc	#0
	b	.
fz_child_code_end:
