/* IPC state words: white-box checks of the claim protocol's rules that
 * a functional test cannot reach in reasonable time. */
#include "ipc.h"
#include "thread.h"
#include "probe.h"

/* A reply token carries its caller's whole 32-bit wait sequence, and so
 * does the state word it is compared with: a token 2^24 waits old
 * (equal in the low 24 bits) must not claim the current wait. */
KTEST(ipc_reply_token_full_seq, 1)
{
	uint64_t flags = arch_irq_save();
	struct thread *t = this_cpu()->current;
	uint64_t saved = atomic_load(&t->ipc_state);
	uint32_t seq = t->ipc_seq + (1u << 24) + 5;
	atomic_store(&t->ipc_state, IPC_STATE(seq, IPC_REPLY));
	ipc_reply_abort(REPLY_TOKEN(t->tid, seq - (1u << 24)), -FUL_EDEAD);
	uint64_t stale = atomic_load(&t->ipc_state);
	atomic_store(&t->ipc_state, saved);
	arch_irq_restore(flags);
	KT_CHECK(stale == IPC_STATE(seq, IPC_REPLY));
}
