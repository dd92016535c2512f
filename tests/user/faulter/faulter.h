/*
 * faulter: a program that misbehaves on purpose, for the isolation tests
 * (tests/user/tests/t_isolation.c). ful_arg0 = FLT_ARG0(kind, flags, cpu),
 * ful_arg1 = the address for the kinds that take one.
 *
 *   no flag          the first thread reports FLT_R_ARMED, then commits
 *                    the fault; if it survives it reports FLT_R_SURVIVED
 *   FLT_F_SIBLING    the first thread starts a worker (on core @cpu) that
 *                    reports FLT_R_ARMED and commits the fault; the first
 *                    thread waits for the worker's death, reports
 *                    FLT_R_SIBLING_DEAD, then serves FLT_L_PING
 *   FLT_F_MAIN       the first thread starts a worker (on core @cpu) that
 *                    serves FLT_L_PING, reports FLT_R_WORKER_UP and
 *                    FLT_R_ARMED, then commits the fault itself
 *
 * Slots: FUL_CHILD_SLOT_REPORT (reports, len 0), FLT_SLOT_EP (ping
 * endpoint, READ), FLT_SLOT_POOL (a pool, for the worker) and
 * FUL_CHILD_SLOT_VS (its own task, for the worker; deleted once the
 * worker runs, so that the task does not hold itself alive).
 * A ping server exits after FLT_IDLE_US without a request.
 */
#ifndef FAULTER_H
#define FAULTER_H

enum flt_kind {
	FLT_READ = 1,   /* load from ful_arg1 */
	FLT_WRITE,      /* store to ful_arg1 */
	FLT_EXEC,       /* branch to ful_arg1 */
	FLT_EXEC_DATA,  /* call a `ret` stored in its own data (RW, not X) */
	FLT_WRITE_TEXT, /* store into its own code (RX) */
	FLT_UDF,        /* udf #0 */
	FLT_SYSREG,     /* mrs x0, sctlr_el1 (an EL1 register) */
	FLT_DAIF,       /* msr daifset, #2 (mask IRQs) */
	FLT_HVC,        /* hvc #0 (undefined at EL0) */
	FLT_BRK,        /* brk #0 */
	FLT_PC_ALIGN,   /* br to a misaligned address */
	FLT_SP_ALIGN,   /* loads, stores and a system call through a
			 * misaligned sp */
	FLT_NKINDS,
};

#define FLT_F_SIBLING 0x100UL
#define FLT_F_MAIN 0x200UL
#define FLT_ARG0(kind, flags, cpu) \
	((unsigned long)(kind) | (flags) | (unsigned long)(cpu) << 16)

#define FLT_SLOT_EP 4
#define FLT_SLOT_POOL 5

#define FLT_R_ARMED 0x7f01u       /* mr0 kind, mr1 cpu, mr2 tid */
#define FLT_R_SURVIVED 0x7f02u    /* mr0 kind, mr1 the value read, if any */
#define FLT_R_SIBLING_DEAD 0x7f03u
#define FLT_R_WORKER_UP 0x7f04u
#define FLT_R_ERROR 0x7f05u       /* mr0 the failing -FUL_E*, mr1 where */

#define FLT_L_PING 0x7f10u /* reply mr0 = req mr0 + 1, mr1 = pings served */
#define FLT_L_QUIT 0x7f11u /* reply, then the server thread ends */

#define FLT_IDLE_US 20000000UL

#endif
