/*
 * Entry points of user threads.
 *
 * _start: the first thread of a task. The creator set sp and passes
 * x0 = arg0, x1 = arg1, x2 = the IPC buffer. Memory is already loaded
 * (.data copied, .bss zeroed by the loader). Set up the main thread's
 * TLS block from the template, then continue in C (ful_start_main).
 *
 * ful_thread_entry: threads made by ful_thread_spawn(). x0 = its start
 * record, whose first word is the thread's TLS block (already filled by
 * the spawner), x2 = the IPC buffer.
 *
 * TPIDR_EL0 is set here, in assembly, before any C code could read it.
 */
	.section .text.start, "ax"
	.global _start
	.type _start, %function
_start:
	mov	x29, #0
	mov	x30, #0
	mov	x19, x0
	mov	x20, x1
	mov	x21, x2
	adrp	x0, __tls_main
	add	x0, x0, :lo12:__tls_main
	bl	_init_tls
	adrp	x0, __tls_main
	add	x0, x0, :lo12:__tls_main
	bl	_set_tls
	mov	x0, x19
	mov	x1, x20
	mov	x2, x21
	bl	ful_start_main
1:	b	1b
	.size _start, . - _start

	.text
	.global ful_thread_entry
	.type ful_thread_entry, %function
ful_thread_entry:
	mov	x29, #0
	mov	x30, #0
	mov	x19, x0
	mov	x21, x2
	ldr	x0, [x19]
	bl	_set_tls
	mov	x0, x19
	mov	x1, x21
	bl	ful_thread_main
1:	b	1b
	.size ful_thread_entry, . - ful_thread_entry
