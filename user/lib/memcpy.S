/*
 * memcpy and memset for user space: picolibc's (as Debian builds it)
 * move one byte per loop, five instructions a byte, which made copies of
 * 4 KiB blocks the largest part of a file read (F, B and the client
 * copy a block each). These move 64 bytes a loop with integer pairs
 * (no SIMD registers, so no lazy FP trap and no FP state to switch),
 * then 16, then bytes. Unaligned pairs are fine on Normal memory (the
 * kernel leaves SCTLR_EL1.A clear); never use them on device memory.
 * They win over picolibc's because libfulcrum's objects link first.
 */
	.text

/* void *memcpy(void *dst, const void *src, size_t n) */
	.global memcpy
	.type memcpy, %function
	.p2align 4
memcpy:
	mov	x3, x0
	cmp	x2, #64
	b.lo	2f
1:	ldp	x4, x5, [x1]
	ldp	x6, x7, [x1, #16]
	ldp	x8, x9, [x1, #32]
	ldp	x10, x11, [x1, #48]
	stp	x4, x5, [x3]
	stp	x6, x7, [x3, #16]
	stp	x8, x9, [x3, #32]
	stp	x10, x11, [x3, #48]
	add	x1, x1, #64
	add	x3, x3, #64
	sub	x2, x2, #64
	cmp	x2, #64
	b.hs	1b
2:	cmp	x2, #16
	b.lo	3f
	ldp	x4, x5, [x1], #16
	stp	x4, x5, [x3], #16
	sub	x2, x2, #16
	b	2b
3:	cbz	x2, 4f
	ldrb	w4, [x1], #1
	strb	w4, [x3], #1
	sub	x2, x2, #1
	b	3b
4:	ret
	.size memcpy, . - memcpy

/* void *memset(void *dst, int c, size_t n) */
	.global memset
	.type memset, %function
	.p2align 4
memset:
	mov	x3, x0
	and	x1, x1, #0xff
	orr	x1, x1, x1, lsl #8
	orr	x1, x1, x1, lsl #16
	orr	x1, x1, x1, lsl #32
	cmp	x2, #64
	b.lo	2f
1:	stp	x1, x1, [x3]
	stp	x1, x1, [x3, #16]
	stp	x1, x1, [x3, #32]
	stp	x1, x1, [x3, #48]
	add	x3, x3, #64
	sub	x2, x2, #64
	cmp	x2, #64
	b.hs	1b
2:	cmp	x2, #16
	b.lo	3f
	stp	x1, x1, [x3], #16
	sub	x2, x2, #16
	b	2b
3:	cbz	x2, 4f
	strb	w1, [x3], #1
	sub	x2, x2, #1
	b	3b
4:	ret
	.size memset, . - memset
