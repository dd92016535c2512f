/*
 * Boot: QEMU enters _start at EL1 on core 0 with the MMU off; the other
 * cores enter secondary_entry (physical address) through PSCI CPU_ON with
 * their index in x0. Both build nothing but turn on the MMU with the same
 * two tables: L0[0] -> L1, L1[0] = 1 GiB device (GIC, UART), L1[1..3] =
 * 3 GiB normal cacheable RAM. TTBR0 (identity) and TTBR1 (the kernel's
 * upper-half linear map, VA = PA + KVA_OFFSET) share them.
 */
#include <arch/memlayout.h>

#define MAIR_VALUE 0x0444FF00 /* attr0 device nGnRnE, attr1 WB, attr2 NC,
					 * attr3 device nGnRE (user devmem) */
#define TCR_VALUE ((16 << 0) | (1 << 8) | (1 << 10) | (3 << 12) | \
		   (16 << 16) | (1 << 24) | (1 << 26) | (3 << 28) | \
		   (2 << 30) | (2 << 32) | (1 << 36))
#define SCTLR_VALUE (0x30D00800 | (1 << 0) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 12)) /* SA0: EL0 SP alignment check */
#define DEVICE_BLOCK 0x0060000000000401 /* UXN PXN AF, attr0 */
#define NORMAL_BLOCK 0x0040000000000705 /* UXN AF ISH, attr1 */

	.section .text.boot, "ax"
	.global _start
_start:
	msr	daifset, #0xf
	adrp	x0, __bss_start
	add	x0, x0, :lo12:__bss_start
	adrp	x1, __bss_end
	add	x1, x1, :lo12:__bss_end
1:	cmp	x0, x1
	b.hs	2f
	str	xzr, [x0], #8
	b	1b
2:	adrp	x0, boot_l0
	adrp	x1, boot_l1
	orr	x2, x1, #3
	str	x2, [x0]
	ldr	x2, =DEVICE_BLOCK
	str	x2, [x1]
	ldr	x2, =NORMAL_BLOCK
	mov	x3, #1
3:	orr	x4, x2, x3, lsl #30
	str	x4, [x1, x3, lsl #3]
	add	x3, x3, #1
	cmp	x3, #4
	b.lo	3b
	dsb	ish
	mov	x19, #0
	b	mmu_on

	.global secondary_entry
secondary_entry:
	msr	daifset, #0xf
	mov	x19, x0

mmu_on:
	ldr	x1, =MAIR_VALUE
	msr	mair_el1, x1
	ldr	x1, =TCR_VALUE
	msr	tcr_el1, x1
	adrp	x1, boot_l0
	msr	ttbr0_el1, x1
	msr	ttbr1_el1, x1
	isb
	tlbi	vmalle1
	dsb	nsh
	mov	x1, #(3 << 20)		/* FP/SIMD not trapped */
	msr	cpacr_el1, x1
	ldr	x1, =SCTLR_VALUE
	msr	sctlr_el1, x1
	isb
	ldr	x1, =high_entry
	br	x1

high_entry:
	ldr	x1, =boot_stacks
	add	x2, x19, #1
	mov	x3, #BOOT_STACK_SIZE
	madd	x1, x2, x3, x1
	mov	sp, x1
	mov	x29, #0
	mov	x30, #0
	mov	x0, x19
	cbnz	x19, 4f
	bl	kmain
	b	.
4:	bl	kmain_secondary
	b	.

	.section .bss.pagetable, "aw", %nobits
	.balign 4096
	.global boot_l0
boot_l0:	.space 4096
boot_l1:	.space 4096
	.bss
	.balign 16
	.global boot_stacks
boot_stacks:	.space BOOT_STACK_SIZE * BOOT_STACK_CPUS
