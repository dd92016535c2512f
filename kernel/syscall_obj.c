/*
 * System calls on capabilities and objects: copy, delete, inspect;
 * create endpoints, notifications, frames, address spaces, threads and
 * pools, each charged to the pool named in x0 (pool.h); map and unmap;
 * start, kill, migrate and inspect threads; inspect pools.
 */
#include "frame.h"
#include "pwin.h"
#include "ipc.h"
#include "kernel.h"
#include "lbevent.h"
#include "page.h"
#include "pool.h"
#include "sched.h"
#include "syscall.h"

int64_t sys_cap_copy(struct thread *t, struct arch_uregs *u)
{
	struct cap src, dvs;
	int err = cap_lookup(t->vs, ARG(0), 0, 0, &src);
	if (err)
		return err;
	if (src.type == FUL_CAP_REPLY) /* single use: never copied */
		return -FUL_ETYPE;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_VSPACE, FUL_R_ADMIN,
			      &dvs))) {
		cap_release(&src);
		return err;
	}
	uint64_t rights = ARG(3), badge = ARG(4);
	bool badgeable = src.type == FUL_CAP_ENDPOINT || src.type == FUL_CAP_NTFN;
	if (ARG(2) == 0 || ARG(2) >= FUL_CSLOTS)
		err = -FUL_EBADCAP;
	else if (rights & ~(uint64_t)FUL_R_ALL || (badge && !badgeable))
		err = -FUL_EINVAL;
	else if (badge && src.data)
		err = -FUL_ESTATE; /* already badged */
	if (!err) {
		struct cap c = src;
		c.rights = (uint8_t)(src.rights & rights);
		if (badge)
			c.data = badge;
		err = cap_insert(dvs.obj, ARG(2), &c);
	}
	cap_release(&dvs);
	cap_release(&src);
	return err;
}

int64_t sys_cap_delete(struct thread *t, struct arch_uregs *u)
{
	return cap_delete(t->vs, ARG(0));
}

int64_t sys_cap_info(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), 0, 0, &c);
	if (err)
		return err;
	int64_t info = c.type | (int64_t)c.rights << 8;
	cap_release(&c);
	return info;
}

/** Common front of the create calls: pool capability, destination
 *  slot, under one lock (cap_lookup_dst). On success (0, or 1 if the
 *  slot is occupied: ESTATE, reported after the other checks) @pool
 *  holds a reference: the new object takes it over (pool.h), or the
 *  caller releases it; on an error it holds none. */
static int sys_create_check(struct thread *t, struct arch_uregs *u,
			    struct cap *pool)
{
	return cap_lookup_dst(t->vs, ARG(0), FUL_CAP_POOL, FUL_R_ADMIN, pool,
			      ARG(1));
}

/** Give the new object @o a capability with all rights in slot ARG(1),
 *  dropping the creation reference. */
static int sys_create_finish(struct thread *t, struct arch_uregs *u,
			     unsigned type, struct kobj *o)
{
	struct cap c = {.type = (uint8_t)type, .rights = FUL_R_ALL, .obj = o};
	int err = cap_insert(t->vs, ARG(1), &c);
	obj_put(o); /* on failure this destroys it */
	return err;
}

/** The front of a create call without arguments of its own: the
 *  checks of sys_create_check, the occupied slot as ESTATE. */
static int sys_create_simple(struct thread *t, struct arch_uregs *u,
			     struct cap *pool)
{
	int err = sys_create_check(t, u, pool);
	if (err > 0) {
		cap_release(pool);
		return -FUL_ESTATE;
	}
	return err;
}

int64_t sys_ep_create(struct thread *t, struct arch_uregs *u)
{
	struct cap pool;
	int err = sys_create_simple(t, u, &pool);
	if (err)
		return err;
	struct endpoint *ep;
	if ((err = endpoint_create(pool.obj, &ep))) {
		cap_release(&pool);
		return err;
	} /* else the endpoint holds the pool reference */
	return sys_create_finish(t, u, FUL_CAP_ENDPOINT, (struct kobj *)ep);
}

int64_t sys_ntfn_create(struct thread *t, struct arch_uregs *u)
{
	struct cap pool;
	int err = sys_create_simple(t, u, &pool);
	if (err)
		return err;
	struct ntfn *n;
	if ((err = ntfn_create(pool.obj, &n))) {
		cap_release(&pool);
		return err;
	}
	return sys_create_finish(t, u, FUL_CAP_NTFN, (struct kobj *)n);
}

/* Pages zeroed between two preemption points: about 42,000 instructions
 * (ubench=frame), so no call keeps IRQs masked much longer than that. */
#define FRAME_ZERO_CHUNK 64

/**
 * Zero the pages of @f, new and reachable by nobody else, with a
 * preemption point every FRAME_ZERO_CHUNK pages. Meanwhile @f is @t's
 * sys_hold: a kill in a window drops it (uthread_release), which frees
 * it. IRQs masked (a system call); may return on another core.
 */
static void sys_frame_zero(struct thread *t, struct frame *f)
{
	if (t->sys_hold)
		panic("frame create: %s already holds an object", t->name);
	t->sys_hold = &f->obj;
	for (uint32_t done = 0; done < f->npages;) {
		uint32_t k = f->npages - done;
		k = k < FRAME_ZERO_CHUNK ? k : FRAME_ZERO_CHUNK;
		memset((char *)f->kva + (size_t)done * PAGE_SIZE, 0,
		       (size_t)k * PAGE_SIZE);
		done += k;
		if (done < f->npages)
			sched_preempt_window();
	}
	t->sys_hold = NULL;
}

/** FRAME_CREATE and DMA_CREATE: a frame of @kind (every frame is
 *  physically contiguous; a DMA one may tell its address). */
static int64_t sys_frame_create_kind(struct thread *t, struct arch_uregs *u,
				     enum frame_kind kind)
{
	struct cap pool;
	int occupied = sys_create_check(t, u, &pool);
	if (occupied < 0)
		return occupied;
	uint64_t n = ARG(2);
	int err = n > FUL_FRAME_MAX_PAGES ? -FUL_ERANGE
		  : n == 0		  ? -FUL_EINVAL
		  : occupied		  ? -FUL_ESTATE
					  : 0;
	struct frame *f;
	if (!err)
		err = frame_create_unzeroed(pool.obj, (unsigned)n, &f);
	if (err) {
		cap_release(&pool);
		return err;
	}
	f->kind = (uint8_t)kind;
	sys_frame_zero(t, f);
	return sys_create_finish(t, u, FUL_CAP_FRAME, &f->obj);
}

int64_t sys_frame_create(struct thread *t, struct arch_uregs *u)
{
	return sys_frame_create_kind(t, u, FRAME_RAM);
}

int64_t sys_dma_create(struct thread *t, struct arch_uregs *u)
{
	return sys_frame_create_kind(t, u, FRAME_DMA);
}

/** DMA_PADDR(frame): frame READ; not a DMA frame (ESTATE). */
int64_t sys_dma_paddr(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_FRAME, FUL_R_READ, &c);
	if (err)
		return err;
	struct frame *f = c.obj;
	int64_t pa = f->kind == FRAME_DMA ? (int64_t)arch_kva_to_phys(f->kva)
					  : -FUL_ESTATE;
	cap_release(&c);
	return pa;
}

int64_t sys_vspace_create(struct thread *t, struct arch_uregs *u)
{
	struct cap pool;
	int err = sys_create_simple(t, u, &pool);
	if (err)
		return err;
	struct vspace *vs;
	if ((err = vspace_create(pool.obj, &vs))) {
		cap_release(&pool);
		return err;
	}
	return sys_create_finish(t, u, FUL_CAP_VSPACE, &vs->obj);
}


int64_t sys_pool_create(struct thread *t, struct arch_uregs *u)
{
	struct cap parent;
	int occupied = sys_create_check(t, u, &parent);
	if (occupied < 0)
		return occupied;
	uint64_t budget = ARG(2);
	int err = budget > FUL_POOL_BUDGET_MAX ? -FUL_ERANGE
		  : budget == 0		   ? -FUL_EINVAL
		  : occupied		   ? -FUL_ESTATE
					   : 0;
	struct pool *p;
	if (!err)
		err = pool_create(parent.obj, budget, &p);
	if (err) {
		cap_release(&parent);
		return err;
	}
	return sys_create_finish(t, u, FUL_CAP_POOL, &p->obj);
}

int64_t sys_pool_info(struct thread *t, struct arch_uregs *u)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_POOL, FUL_R_READ, &c);
	if (err)
		return err;
	struct pool *p = c.obj;
	struct ful_pool_info info = {
		.used = atomic_load_explicit(&p->used, memory_order_relaxed),
		.limit = p->limit,
	};
	err = vspace_copy_out(t->vs, ARG(1), &info, sizeof(info));
	cap_release(&c);
	return err;
}

/** MAP(vs, frame or page window, vaddr, rights). */
int64_t sys_map(struct thread *t, struct arch_uregs *u)
{
	struct cap vs, fr;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_VSPACE, FUL_R_ADMIN, &vs);
	if (err)
		return err;
	uint64_t rights = ARG(3);
	/* the type before the rights, as cap_lookup checks them */
	err = cap_lookup(t->vs, ARG(1), 0, 0, &fr);
	if (!err && fr.type != FUL_CAP_FRAME && fr.type != FUL_CAP_PWIN)
		err = -FUL_ETYPE;
	if (!err && (!(fr.rights & FUL_R_READ) ||
		     (fr.rights & rights & FUL_R_ALL) != (rights & FUL_R_ALL)))
		err = -FUL_ERIGHTS;
	if (!err && rights > FUL_R_ALL)
		err = -FUL_EINVAL;
	if (!err)
		err = fr.type == FUL_CAP_PWIN
			      ? vspace_map_pwin(vs.obj, fr.obj, ARG(2),
						(unsigned)rights)
			      : vspace_map(vs.obj, fr.obj, ARG(2),
					   (unsigned)rights);
	cap_release(&fr);
	cap_release(&vs);
	return err;
}

int64_t sys_unmap(struct thread *t, struct arch_uregs *u)
{
	struct cap vs;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_VSPACE, FUL_R_ADMIN, &vs);
	if (err)
		return err;
	err = vspace_unmap(vs.obj, ARG(1));
	cap_release(&vs);
	return err;
}

int64_t sys_thread_create(struct thread *t, struct arch_uregs *u)
{
	struct cap pool, vs;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_POOL, FUL_R_ADMIN, &pool);
	if (err)
		return err;
	if ((err = cap_lookup(t->vs, ARG(1), FUL_CAP_VSPACE, FUL_R_ADMIN, &vs))) {
		cap_release(&pool);
		return err;
	}
	struct ful_thread_attr a;
	struct thread *nt = NULL;
	err = ARG(2) == 0 || ARG(2) >= FUL_CSLOTS
		      ? -FUL_EBADCAP
		      : vspace_copy_in(t->vs, &a, ARG(3), sizeof(a));
	/* An occupied slot is ESTATE, after every argument check; cap_insert
	 * below still catches a slot filled by a racing thread. */
	if (!err)
		err = uthread_attr_check(&a);
	if (!err)
		err = cap_slot_free(t->vs, ARG(2));
	if (!err)
		err = uthread_create(pool.obj, vs.obj, &a, &nt);
	cap_release(&vs);
	if (err) {
		cap_release(&pool);
		return err;
	} /* else the thread holds the pool reference */
	tid_t tid = atomic_load_explicit(&nt->tid, memory_order_relaxed);
	struct cap c = {.type = FUL_CAP_THREAD, .rights = FUL_R_ALL, .data = tid};
	if ((err = cap_insert(t->vs, ARG(2), &c))) {
		thread_kill(tid);
		return err;
	}
	return tid;
}

/** The thread a thread capability in ARG(@i) names, with @rights. */
static int sys_thread_cap(struct thread *t, struct arch_uregs *u, unsigned i,
			  unsigned rights, tid_t *tid)
{
	struct cap c;
	int err = cap_lookup(t->vs, ARG(i), FUL_CAP_THREAD, rights, &c);
	*tid = (tid_t)c.data;
	return err;
}

int64_t sys_thread_start(struct thread *t, struct arch_uregs *u)
{
	tid_t tid;
	int err = sys_thread_cap(t, u, 0, FUL_R_ADMIN, &tid);
	if (err)
		return err;
	err = thread_start_tid(tid);
	if (!err) /* counted on the core the call returns on, IRQs masked */
		lbe_create(this_cpu());
	return err;
}

int64_t sys_thread_kill(struct thread *t, struct arch_uregs *u)
{
	tid_t tid;
	int err = sys_thread_cap(t, u, 0, FUL_R_ADMIN, &tid);
	if (err)
		return err;
	err = thread_kill(tid);
	return err == -FUL_ENOTHREAD ? -FUL_EDEAD : err;
}

int64_t sys_thread_migrate(struct thread *t, struct arch_uregs *u)
{
	struct cap s;
	tid_t tid;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_SCHED, FUL_R_ADMIN, &s);
	if (err || (err = sys_thread_cap(t, u, 1, FUL_R_ADMIN, &tid)))
		return err;
	if (ARG(2) >= MAX_CPUS || !cpu_is_online((unsigned)ARG(2)))
		return -FUL_EINVAL;
	struct thread *mt = thread_lookup(tid);
	if (mt && !(mt->affinity >> ARG(2) & 1)) /* pinned elsewhere */
		return -FUL_ESTATE;
	err = thread_migrate(tid, (unsigned)ARG(2));
	return err == -FUL_ENOTHREAD ? -FUL_EDEAD : err;
}

int64_t sys_thread_info(struct thread *t, struct arch_uregs *u)
{
	tid_t tid;
	int err = sys_thread_cap(t, u, 0, FUL_R_READ, &tid);
	if (err || (err = vspace_check(t->vs, ARG(1),
				       sizeof(struct ful_thread_info),
				       FUL_R_WRITE)))
		return err;
	struct thread *o = thread_lookup(tid);
	if (!o)
		return -FUL_EDEAD;
	struct ful_thread_info info = {
		.tid = tid,
		.cpu = atomic_load_explicit(&o->cpu, memory_order_relaxed),
		.state = thread_state_abi(atomic_load(&o->state)),
		.prio = o->prio,
		.runtime_us = ticks_to_us(sched_thread_runtime(o)),
		.migrations = o->migrations,
	};
	return vspace_copy_out(t->vs, ARG(1), &info, sizeof(info));
}

int64_t sys_pwin_create(struct thread *t, struct arch_uregs *u)
{
	struct cap pool;
	int occupied = sys_create_check(t, u, &pool);
	if (occupied < 0)
		return occupied;
	uint64_t n = ARG(2);
	int err = n > FUL_PWIN_MAX_PAGES ? -FUL_ERANGE
		  : n == 0		 ? -FUL_EINVAL
		  : occupied		 ? -FUL_ESTATE
					 : 0;
	struct pwin *w;
	if (!err)
		err = pwin_create(pool.obj, (unsigned)n, &w);
	if (err) {
		cap_release(&pool);
		return err;
	} /* else the window holds the pool reference */
	return sys_create_finish(t, u, FUL_CAP_PWIN, &w->obj);
}

/**
 * PWIN_SET(pwin, slot, frame, page, rights): window ADMIN; rights 0
 * empties the slot (the frame is not looked at), else READ and maybe
 * WRITE, each held by the frame capability. Checks in the documented
 * order: capabilities, then ERANGE (slot, page), then EINVAL (rights).
 */
int64_t sys_pwin_set(struct thread *t, struct arch_uregs *u)
{
	struct cap w, fr = {.type = FUL_CAP_NONE};
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_PWIN, FUL_R_ADMIN, &w);
	if (err)
		return err;
	uint64_t rights = ARG(4);
	if (rights)
		err = cap_lookup(t->vs, ARG(2), FUL_CAP_FRAME,
				 (unsigned)rights & (FUL_R_READ | FUL_R_WRITE),
				 &fr);
	struct pwin *win = w.obj;
	struct frame *f = rights ? fr.obj : NULL;
	if (!err && (ARG(1) >= win->npages || (f && ARG(3) >= f->npages)))
		err = -FUL_ERANGE;
	if (!err && (rights & ~(uint64_t)(FUL_R_READ | FUL_R_WRITE) ||
		     (rights && !(rights & FUL_R_READ))))
		err = -FUL_EINVAL;
	if (!err)
		err = pwin_set(win, (unsigned)ARG(1), f, (unsigned)ARG(3),
			       (unsigned)rights);
	cap_release(&fr);
	cap_release(&w);
	return err;
}

/** TASK_KILL(vs): kill each live thread of the task (ADMIN on it), not
 *  the caller's own task, and delete its capabilities to itself (else
 *  they would keep the dead task for ever). A slot reused meanwhile
 *  fails its kill (the tid carries a generation), so only the task's
 *  threads die. */
int64_t sys_task_kill(struct thread *t, struct arch_uregs *u)
{
	struct cap vs;
	int err = cap_lookup(t->vs, ARG(0), FUL_CAP_VSPACE, FUL_R_ADMIN, &vs);
	if (err)
		return err;
	int64_t n = 0;
	if (vs.obj == t->vs)
		n = -FUL_EINVAL;
	for (unsigned i = 0; n >= 0 && i < MAX_THREADS; i++) {
		tid_t tid = atomic_load_explicit(&threads[i].tid,
						 memory_order_acquire);
		struct thread *k = thread_lookup(tid);
		if (k && k->vs == vs.obj && thread_kill(tid) == 0)
			n++;
	}
	if (n >= 0)
		cap_delete_self(vs.obj);
	cap_release(&vs);
	return n;
}
