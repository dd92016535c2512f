/*
 * C side of thread start-up (see crt0.S) and of exit.
 */
#include <stdlib.h>
#include <unistd.h>

#include <ful/posix.h>

#include "lib.h"

unsigned long ful_arg0, ful_arg1;
_Thread_local void *ful__ipcbuf;

/* Programs define main(void) or main(int, char **): under the AArch64
 * procedure call standard the first ignores x0 and x1. */
extern int main(int argc, char **argv);

/* Set when the task was started by ful_proc_spawn(): exit() reports. */
static bool proc_child;
extern void __libc_init_array(void);

/** First thread of the task, TLS already set: record the entry
 *  registers, run the constructors, then main(), then exit(). */
void ful_start_main(unsigned long arg0, unsigned long arg1, void *ipcbuf)
{
	ful__ipcbuf = ipcbuf;
	ful_arg0 = arg0;
	ful_arg1 = arg1;
	const struct ful_proc_args *pa = (const void *)FUL_PROC_ARGS_VADDR;
	static char *no_argv[] = {NULL};
	int argc = 0;
	char **argv = no_argv;
	if (arg1 == FUL_PROC_ARGS_VADDR && pa->magic == FUL_PROC_ARGS_MAGIC) {
		proc_child = true;
		argc = (int)pa->argc;
		argv = (char **)pa->argv;
		ful_posix_init(pa);
		if (pa->fs_ring)
			ful_fs_use_ring((void *)FUL_FSR_CLIENT_VADDR,
					FUL_PROC_SLOT_FSR_NTFN,
					FUL_PROC_SLOT_FSR_BELL,
					(void *)FUL_FSR_CLIENT_OMF_VADDR);
		ful_fs_set_spin(pa->fs_spin);
	}
	__libc_init_array();
	exit(main(argc, argv));
}

/** A thread of ful_thread_spawn(), TLS already set: run its function,
 *  then end the thread. */
void ful_thread_main(struct ful_thread_start *st, void *ipcbuf)
{
	ful__ipcbuf = ipcbuf;
	st->fn(st->arg);
	ful_stdio_flush();
	ful_exit();
}

bool ful_proc_is_child(void)
{
	return proc_child;
}

/** picolibc's exit() ends here, after the atexit handlers and
 *  destructors: flush this thread's line, send the status to the parent
 *  of a process (<ful/posix.h>), end the thread. Elsewhere the status
 *  has nowhere to go (FUL_SYS_EXIT takes no argument). */
void _exit(int status)
{
	ful_stdio_flush();
	if (proc_child) {
		struct ful_msg m = {.info = FUL_MSG(FUL_PROC_EXIT, 0),
				    .mr = {(unsigned long)status}};
		ful_send(FUL_CHILD_SLOT_REPORT, &m, FUL_FOREVER);
	}
	ful_exit();
}
