/*
 * C side of thread start-up (see crt0.S) and of exit.
 */
#include <stdlib.h>
#include <unistd.h>

#include <ful/ful.h>

#include "lib.h"

unsigned long ful_arg0, ful_arg1;
_Thread_local void *ful__ipcbuf;

extern int main(void);
extern void __libc_init_array(void);

/** First thread of the task, TLS already set: record the entry
 *  registers, run the constructors, then main(), then exit(). */
void ful_start_main(unsigned long arg0, unsigned long arg1, void *ipcbuf)
{
	ful__ipcbuf = ipcbuf;
	ful_arg0 = arg0;
	ful_arg1 = arg1;
	__libc_init_array();
	exit(main());
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

/** picolibc's exit() ends here, after the atexit handlers and
 *  destructors: flush this thread's line and end the thread. The status
 *  has nowhere to go (FUL_SYS_EXIT takes no argument). */
void _exit(int status)
{
	(void)status;
	ful_stdio_flush();
	ful_exit();
}
