/* AArch64 QEMU virt memory layout (private to arch/aarch64 and boot). */
#ifndef ARCH_AARCH64_MEMLAYOUT_H
#define ARCH_AARCH64_MEMLAYOUT_H

/* The kernel runs in the upper half: VA = PA + KVA_OFFSET (linear map). */
#define KVA_OFFSET 0xFFFF000000000000
#define RAM_BASE_PA 0x40000000
#define DTB_PA 0x40000000
#define KERNEL_PA 0x40200000

#define UART0_PA 0x09000000
#define GICD_PA 0x08000000
#define GICC_PA 0x08010000
#define UART0_INTID 33

#define BOOT_STACK_SIZE 16384
#define BOOT_STACK_CPUS 64 /* boot (later idle) stacks: MAX_CPUS of them */
#define FRAME_SIZE 288 /* struct trap_frame, see trap.h */
#define FRAME_T0 272   /* bench scratch slot inside the frame */

#endif
