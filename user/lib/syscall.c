/* The out-of-line system call (see <ful/syscall_raw.h>). */
#include <ful/syscall_raw.h>

struct ful_ret ful_syscall_outline(unsigned long nr, unsigned long a0,
				   unsigned long a1, unsigned long a2,
				   unsigned long a3, unsigned long a4,
				   unsigned long a5, unsigned long a6)
{
	return ful_syscall(nr, a0, a1, a2, a3, a4, a5, a6);
}
