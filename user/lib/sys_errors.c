/*
 * The errors each system call may return: the validation classes of
 * <fulcrum/syscall.h> that apply to its arguments, plus the outcomes
 * errno.h describes (timeouts, cancellation, dead partners, a full
 * request pool). One table for every checker of results: the bad-input
 * suite's random phase and the fuzzer.
 */
#include <ful/ful.h>

#define E(x) (1u << FUL_E##x)
#define CAPS (E(BADCAP) | E(TYPE) | E(RIGHTS))
#define MSG (E(RANGE) | E(INVAL) | E(STATE))
static const unsigned sys_errors[FUL_SYS_COUNT] = {
	[FUL_SYS_DEBUG_WRITE] = E(RANGE) | E(FAULT),
	[FUL_SYS_SEND] = CAPS | MSG | E(TIMEOUT) | E(CANCELED),
	[FUL_SYS_RECV] = CAPS | E(TIMEOUT) | E(CANCELED),
	[FUL_SYS_CALL] = CAPS | MSG | E(TIMEOUT) | E(CANCELED) | E(DEAD),
	[FUL_SYS_REPLY] = MSG | E(DEAD),
	[FUL_SYS_REPLY_RECV] = CAPS | MSG | E(TIMEOUT) | E(CANCELED),
	[FUL_SYS_NTFN_SIGNAL] = CAPS | E(INVAL),
	[FUL_SYS_NTFN_WAIT] = CAPS | E(TIMEOUT) | E(CANCELED),
	[FUL_SYS_NTFN_POLL] = CAPS,
	[FUL_SYS_CAP_COPY] = CAPS | E(INVAL) | E(STATE),
	[FUL_SYS_CAP_DELETE] = E(BADCAP),
	[FUL_SYS_CAP_INFO] = E(BADCAP),
	[FUL_SYS_EP_CREATE] = CAPS | E(STATE) | E(NOMEM),
	[FUL_SYS_NTFN_CREATE] = CAPS | E(STATE) | E(NOMEM),
	[FUL_SYS_FRAME_CREATE] = CAPS | MSG | E(NOMEM),
	[FUL_SYS_VSPACE_CREATE] = CAPS | E(STATE) | E(NOMEM),
	[FUL_SYS_MAP] = CAPS | E(INVAL) | E(STATE) | E(NOMEM),
	[FUL_SYS_UNMAP] = CAPS | E(INVAL) | E(STATE),
	[FUL_SYS_THREAD_CREATE] = CAPS | E(FAULT) | E(INVAL) | E(STATE) |
				  E(NOMEM) | E(AGAIN),
	[FUL_SYS_THREAD_START] = CAPS | E(STATE) | E(DEAD),
	[FUL_SYS_THREAD_KILL] = CAPS | E(DEAD) | E(AGAIN) | E(TIMEOUT),
	[FUL_SYS_THREAD_MIGRATE] = CAPS | E(INVAL) | E(STATE) | E(DEAD) |
				   E(AGAIN) | E(TIMEOUT),
	[FUL_SYS_THREAD_INFO] = CAPS | E(FAULT) | E(DEAD),
	[FUL_SYS_REPLY_SAVE] = E(BADCAP) | E(STATE),
	[FUL_SYS_REPLY_TO] = CAPS | MSG | E(DEAD),
	[FUL_SYS_SYSINFO] = E(FAULT),
	[FUL_SYS_SHUTDOWN] = CAPS,
	[FUL_SYS_MIGRATE] = CAPS | E(RANGE) | E(FAULT),
	[FUL_SYS_THREAD_SET] = CAPS | E(INVAL) | E(NOTHREAD) | E(STATE) |
			       E(AGAIN),
	[FUL_SYS_POOL_CREATE] = CAPS | MSG | E(NOMEM),
	[FUL_SYS_POOL_INFO] = CAPS | E(FAULT),
	[FUL_SYS_UTIL_SET] = CAPS | E(INVAL),
	[FUL_SYS_CONS_BIND] = CAPS | E(INVAL) | E(STATE),
	[FUL_SYS_CONS_READ] = CAPS | E(RANGE) | E(FAULT) | E(STATE),
	[FUL_SYS_LBE_BIND] = CAPS | E(INVAL) | E(STATE),
	[FUL_SYS_LBE_ARM] = CAPS | E(INVAL) | E(STATE),
	[38] = E(NOSYS), [39] = E(NOSYS),
	[FUL_SYS_DEVMEM_MAP] = CAPS | E(INVAL) | E(STATE) | E(NOMEM),
	[FUL_SYS_DEVMEM_INFO] = CAPS | E(FAULT),
	[FUL_SYS_IRQ_GET] = CAPS | E(RANGE) | E(INVAL) | E(STATE),
	[FUL_SYS_IRQ_BIND] = CAPS | E(INVAL) | E(STATE),
	[FUL_SYS_IRQ_ACK] = CAPS | E(STATE),
	[FUL_SYS_IRQ_UNBIND] = CAPS | E(STATE),
	[FUL_SYS_DMA_CREATE] = CAPS | MSG | E(NOMEM),
	[FUL_SYS_DMA_PADDR] = CAPS | E(STATE),
	[FUL_SYS_TRACE_SET] = CAPS | E(INVAL) | E(STATE),
	[FUL_SYS_TRACE_FRAME] = CAPS | E(STATE),
	[FUL_SYS_TRACE_DUMP] = CAPS | E(STATE),
	[51] = E(NOSYS),
	[FUL_SYS_PWIN_CREATE] = CAPS | MSG | E(NOMEM),
	[FUL_SYS_PWIN_SET] = CAPS | E(RANGE) | E(INVAL) | E(NOMEM),
	[FUL_SYS_TASK_KILL] = CAPS | E(INVAL),
	[FUL_SYS_SCHED_KILL] = CAPS | E(NOTHREAD) | E(STATE) | E(INVAL),
	/* ENOSYS: the default kernel keeps no IRQ-masked figures */
	[FUL_SYS_IRQSTAT] = CAPS | E(FAULT) | E(INVAL) | E(AGAIN) |
			    E(TIMEOUT) | E(NOSYS),
	[FUL_SYS_SLEEP] = E(INVAL),
};

unsigned ful_sys_errors(unsigned long nr)
{
	return nr < FUL_SYS_COUNT ? sys_errors[nr] : 1u << FUL_ENOSYS;
}
