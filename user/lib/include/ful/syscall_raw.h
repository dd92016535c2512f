/*
 * The raw Fulcrum system call: `svc #0` with x8 = nr, x0..x6 = a0..a6,
 * x7 = 0. Returns x0..x6 as the kernel left them (see
 * <fulcrum/syscall.h>). Inline, with register-pinned variables, so a
 * call costs the moves into x0..x8 and the svc, nothing more.
 */
#ifndef FUL_SYSCALL_RAW_H
#define FUL_SYSCALL_RAW_H

#include <fulcrum/syscall.h>

struct ful_ret {
	long x0;
	unsigned long x1, x2, x3, x4, x5, x6;
};

/** Issue system call @nr with arguments @a0..@a6; x7 is passed as 0.
 *  x0..x7 are clobbered by the kernel, every other register survives. */
static inline __attribute__((always_inline)) struct ful_ret
ful_syscall(unsigned long nr, unsigned long a0, unsigned long a1,
	    unsigned long a2, unsigned long a3, unsigned long a4,
	    unsigned long a5, unsigned long a6)
{
	register unsigned long x0 __asm__("x0") = a0;
	register unsigned long x1 __asm__("x1") = a1;
	register unsigned long x2 __asm__("x2") = a2;
	register unsigned long x3 __asm__("x3") = a3;
	register unsigned long x4 __asm__("x4") = a4;
	register unsigned long x5 __asm__("x5") = a5;
	register unsigned long x6 __asm__("x6") = a6;
	register unsigned long x7 __asm__("x7") = 0;
	register unsigned long x8 __asm__("x8") = nr;

	__asm__ volatile("svc #0"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4),
			   "+r"(x5), "+r"(x6), "+r"(x7)
			 : "r"(x8)
			 : "memory");
	return (struct ful_ret){ (long)x0, x1, x2, x3, x4, x5, x6 };
}

/** The same call, out of line (for debuggers and code that wants a
 *  symbol to break on); defined in user/lib/syscall.c. */
struct ful_ret ful_syscall_outline(unsigned long nr, unsigned long a0,
				   unsigned long a1, unsigned long a2,
				   unsigned long a3, unsigned long a4,
				   unsigned long a5, unsigned long a6);

#endif
