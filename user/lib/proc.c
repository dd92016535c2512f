/*
 * Processes for the POSIX layer (<ful/posix.h>): a boot module started
 * as a task with an argument page and F's endpoint, and its end waited
 * for. The child's exit() sends its status to the parent's per-process
 * endpoint (badge = pid); a child killed by a fault sends nothing, so
 * the wait also watches the child's thread and reports a dead one as
 * killed by SIGSEGV.
 *
 * posix_spawn()/waitpid() are the standard face of the same: the path
 * names a boot module ("/bin/NAME" or "NAME"); file actions, attributes
 * and the environment are not supported (EINVAL if given).
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fulcrum/balctl.h>
#include <ful/posix.h>

#include "lib.h"
#include "posix_int.h"

static long report_ep; /* this process's endpoint for its children's ends */
static struct ful_spin proc_lock;
static int next_pid = 2;

#define PROC_SCRATCH 0x3e000000UL /* the parent's window on a new page */

/** Fill the argument page @a (mapped in the child at FUL_PROC_ARGS_VADDR)
 *  with @argv and our working directory: 0 or -FUL_ERANGE. */
static long args_fill(struct ful_proc_args *a, char *const argv[], bool ring)
{
	unsigned argc = 0;
	size_t used = 0, room = FUL_PAGE_SIZE - sizeof *a;
	a->magic = FUL_PROC_ARGS_MAGIC;
	a->fs_ring = ring;
	a->fs_spin = ful_fs_get_spin();
	if (!getcwd(a->cwd, sizeof a->cwd))
		strcpy(a->cwd, "/");
	for (; argv && argv[argc]; argc++) {
		size_t n = strlen(argv[argc]) + 1;
		if (argc == FUL_PROC_ARGV_MAX || used + n > room)
			return -FUL_ERANGE;
		memcpy(a->strings + used, argv[argc], n);
		a->argv[argc] = (char *)(FUL_PROC_ARGS_VADDR + sizeof *a + used);
		used += n;
	}
	a->argc = argc;
	return 0;
}

/** The argument page of @argv in a new frame of ours: its slot. */
static long args_make(char *const argv[], bool ring)
{
	static struct ful_spin scratch_lock;
	long slot = ful_slot_alloc();
	if (slot < 0)
		return slot;
	long err = ful_frame_create(FUL_SLOT_POOL, (unsigned)slot, 1);
	ful_spin_lock(&scratch_lock);
	if (err >= 0)
		err = ful_map(FUL_SLOT_SELF_VS, (unsigned)slot, PROC_SCRATCH,
			      FUL_R_READ | FUL_R_WRITE);
	if (err >= 0) {
		memset((void *)PROC_SCRATCH, 0, FUL_PAGE_SIZE);
		err = args_fill((struct ful_proc_args *)PROC_SCRATCH, argv, ring);
		ful_unmap(FUL_SLOT_SELF_VS, PROC_SCRATCH);
	}
	ful_spin_unlock(&scratch_lock);
	if (err < 0) {
		ful_cap_delete((unsigned)slot);
		ful_slot_free((unsigned)slot);
		return err;
	}
	return slot;
}

/** This process's endpoint for its children's exit messages. */
static long report_get(void)
{
	ful_spin_lock(&proc_lock);
	if (!report_ep) {
		long slot = ful_slot_alloc();
		long err = slot < 0 ? slot
				    : ful_ep_create(FUL_SLOT_POOL, (unsigned)slot);
		if (err < 0 && slot >= 0)
			ful_slot_free((unsigned)slot);
		report_ep = err < 0 ? err : slot;
	}
	long ep = report_ep;
	if (ep < 0)
		report_ep = 0; /* try again next time */
	ful_spin_unlock(&proc_lock);
	return ep;
}

/** Does this task hold an endpoint in @slot? */
static bool proc_has_ep(unsigned slot)
{
	return (ful_cap_info(slot) & 0xff) == FUL_CAP_ENDPOINT;
}

/** The capabilities a child gets into @g: its pool (@pool, if any), F's
 *  endpoint (if we have one) and its ring's notification and doorbell
 *  (@ring, slots @rs), and a placement capability (attr->place, or our
 *  own): their number. */
static unsigned proc_grants(const struct ful_proc_attr *attr, long pool,
			    bool ring, const long rs[], struct ful_cap_grant *g)
{
	unsigned n = 0;
	if (pool > 0)
		g[n++] = (struct ful_cap_grant){(unsigned)pool, FUL_SLOT_POOL,
						FUL_R_ALL, 0};
	if (proc_has_ep(FUL_SLOT_FS)) {
		g[n++] = (struct ful_cap_grant){FUL_SLOT_FS, FUL_SLOT_FS,
						FUL_R_WRITE, 0};
		if (ring) {
			g[n++] = (struct ful_cap_grant){
				(unsigned)rs[1], FUL_PROC_SLOT_FSR_NTFN,
				FUL_R_READ, 0};
			g[n++] = (struct ful_cap_grant){
				(unsigned)rs[2], FUL_PROC_SLOT_FSR_BELL,
				FUL_R_WRITE, 0};
		}
	}
	unsigned place = attr && attr->place ? attr->place : FUL_SLOT_PLACE;
	if (proc_has_ep(place))
		g[n++] = (struct ful_cap_grant){place, FUL_SLOT_PLACE,
						FUL_R_WRITE, 0};
	return n;
}

/** A pool of attr->pool_kib for the child (its slot), 0 if it gets
 *  none, or -FUL_E*. */
static long proc_pool(const struct ful_proc_attr *attr)
{
	if (!attr || !attr->pool_kib)
		return 0;
	long slot = ful_slot_alloc();
	long err = slot < 0 ? slot
			    : ful_pool_create(FUL_SLOT_POOL, (unsigned)slot,
					      attr->pool_kib * 1024UL);
	if (err < 0 && slot > 0)
		ful_slot_free((unsigned)slot);
	return err < 0 ? err : slot;
}

int ful_proc_spawn(const char *module, char *const argv[],
		   const struct ful_proc_attr *attr, struct ful_proc *p)
{
	memset(p, 0, sizeof *p);
	p->ring = -1;
	int mod = ful_module_find(module);
	long ep = report_get();
	if (mod < 0 || ep < 0)
		return mod < 0 ? mod : (int)ep;
	long rs[FS_RING_CAPS] = {-1, -1, -1, -1};
	int ring = attr && attr->fs_ipc ? -1 : fs_ring_request(rs);
	long frame = args_make(argv, ring >= 0);
	if (frame < 0) {
		fs_ring_slots_drop(rs);
		fs_ring_free(ring);
		return (int)frame;
	}
	ful_spin_lock(&proc_lock);
	p->pid = next_pid++;
	ful_spin_unlock(&proc_lock);
	struct ful_cap_grant caps[5];
	long pool = proc_pool(attr);
	unsigned ncaps = proc_grants(attr, pool, ring >= 0, rs, caps);
	struct ful_map_grant maps[3] = {
		{(unsigned)frame, FUL_R_READ, FUL_PROC_ARGS_VADDR},
		{(unsigned)rs[0], FUL_R_READ | FUL_R_WRITE, FUL_FSR_CLIENT_VADDR},
		{(unsigned)rs[3], FUL_R_READ | FUL_R_WRITE,
		 FUL_FSR_CLIENT_OMF_VADDR},
	};
	struct ful_spawn_args a = {
		.module = (unsigned)mod,
		.cpu = attr ? attr->cpu : 0,
		.prio = attr && attr->prio ? attr->prio : FUL_PROC_PRIO,
		.arg1 = FUL_PROC_ARGS_VADDR,
		.report_ep = (unsigned)ep,
		.report_badge = (unsigned long)p->pid,
		.vs_rights = pool > 0 ? FUL_R_ALL : 0,
		.caps = caps,
		.ncaps = ncaps,
		.maps = maps,
		.nmaps = ring >= 0 ? 3 : 1,
	};
	int err = pool < 0 ? (int)pool : ful_spawn(&a, &p->task);
	fs_ring_slots_drop(rs); /* the child has its own copies, or none */
	if (err < 0) {
		if (pool > 0)
			ful_slot_drop((unsigned)pool);
		fs_ring_free(ring);
		ful_cap_delete((unsigned)frame);
		ful_slot_free((unsigned)frame);
		p->pid = 0;
		return err;
	}
	p->args_frame = (unsigned)frame;
	p->ring = ring;
	p->pool = pool > 0 ? (unsigned)pool : 0;
	return 0;
}

/** Tear @p down (every thread of its task, the task, its pool, the
 *  argument page): after its end. A process that made threads also
 *  holds its own vspace: TASK_KILL drops that hold too. */
static void proc_reap(struct ful_proc *p)
{
	if (p->pool)
		for (unsigned i = 0; i < 8 && ful_task_kill(p->task.vs) > 0; i++)
			;
	ful_task_destroy(&p->task);
	if (p->pool)
		ful_slot_drop(p->pool);
	p->pool = 0;
	fs_ring_free(p->ring);
	p->ring = -1;
	if (p->args_frame) {
		ful_cap_delete(p->args_frame);
		ful_slot_free(p->args_frame);
	}
	p->args_frame = 0;
}

int ful_proc_kill(struct ful_proc *p)
{
	long err = ful_thread_kill(p->task.thread);
	if (err < 0 && err != -FUL_EDEAD)
		return (int)err;
	proc_reap(p);
	p->pid = 0;
	return 0;
}

/* Ends that arrived while another child was waited for (badge, status). */
#define PROC_EARLY 16
static struct { int pid, status; } early[PROC_EARLY];

/** An exit status of @pid received before: true and *@status. */
static bool early_take(int pid, int *status)
{
	bool found = false;
	ful_spin_lock(&proc_lock);
	for (unsigned i = 0; i < PROC_EARLY && !found; i++)
		if (early[i].pid == pid) {
			*status = early[i].status;
			early[i].pid = 0;
			found = true;
		}
	ful_spin_unlock(&proc_lock);
	return found;
}

static void early_put(int pid, int status)
{
	ful_spin_lock(&proc_lock);
	for (unsigned i = 0; i < PROC_EARLY; i++)
		if (!early[i].pid) {
			early[i].pid = pid, early[i].status = status;
			break;
		}
	ful_spin_unlock(&proc_lock);
}

/** Whether @p's thread is dead (killed by a fault: it sent no status). */
static bool proc_dead(const struct ful_proc *p)
{
	struct ful_thread_info ti;
	return ful_thread_info(p->task.thread, &ti) < 0 ||
	       ti.state == FUL_TS_DEAD;
}

int ful_proc_wait(struct ful_proc *p, int *status, unsigned long timeout_us)
{
	/* How often a fault is looked for (an exit message ends a wait at
	 * once; a shorter timeout, a shorter step). */
	const unsigned long step = timeout_us && timeout_us < 20000 ? timeout_us
								    : 20000;
	unsigned long waited = 0;
	int st = 0;
	bool done = early_take(p->pid, &st);
	while (!done) {
		struct ful_msg m;
		long r = ful_recv((unsigned)report_ep, &m, step);
		if (r >= 0 && FUL_MSG_LABEL(m.info) == FUL_PROC_EXIT) {
			int s = ((int)m.mr[0] & 0xff) << 8;
			if ((int)m.badge == p->pid)
				st = s, done = true;
			else
				early_put((int)m.badge, s);
		} else if (r < 0 && proc_dead(p)) {
			st = SIGSEGV, done = true; /* WIFSIGNALED, WTERMSIG 11 */
		} else if (r < 0 && (waited += step) >= timeout_us) {
			return -FUL_ETIMEOUT;
		}
	}
	*status = st;
	proc_reap(p);
	return 0;
}

/* posix_spawn()'s children, by pid, for waitpid(). */
#define PROC_MAX 16
static struct ful_proc procs[PROC_MAX];

int posix_spawn(pid_t *restrict pid, const char *restrict path,
		const posix_spawn_file_actions_t *actions,
		const posix_spawnattr_t *restrict attr, char *const argv[],
		char *const envp[])
{
	(void)envp; /* no environment */
	if (actions || attr)
		return EINVAL;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct ful_proc *p = NULL;
	ful_spin_lock(&proc_lock);
	for (unsigned i = 0; i < PROC_MAX && !p; i++)
		if (!procs[i].pid)
			p = &procs[i], p->pid = -1; /* taken */
	ful_spin_unlock(&proc_lock);
	if (!p)
		return EAGAIN;
	struct ful_sysinfo si;
	ful_sysinfo(&si);
	struct ful_proc_attr pa = {.cpu = si.cpu, .pool_kib = FUL_PROC_POOL_KIB};
	int err = ful_proc_spawn(name, argv, &pa, p);
	if (err < 0) {
		p->pid = 0;
		return err == -FUL_EINVAL ? ENOENT : ENOMEM;
	}
	*pid = p->pid;
	return 0;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	struct ful_proc *p = NULL;
	for (unsigned i = 0; i < PROC_MAX && !p; i++)
		if (procs[i].pid > 0 && (pid == -1 || procs[i].pid == pid))
			p = &procs[i];
	if (!p || (options & ~WNOHANG)) {
		errno = p ? EINVAL : ECHILD;
		return -1;
	}
	int st;
	if (ful_proc_wait(p, &st, options & WNOHANG ? 0 : FUL_FOREVER) < 0)
		return 0; /* WNOHANG: still running */
	pid_t r = p->pid;
	p->pid = 0;
	if (status)
		*status = st;
	return r;
}
