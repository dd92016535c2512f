/*
 * Capability tables: lookup with type and rights checks, insert, delete.
 * See cap.h and docs/objects.md "Capabilities".
 */
#include "cap.h"
#include "kernel.h"
#include "obj.h"
#include "thread.h"
#include "vspace.h"

void ipc_reply_abort(uint64_t token, int err);

/* The types whose capabilities hold a counted object reference. */
#define CAP_COUNTED                                                        \
	(1u << FUL_CAP_VSPACE | 1u << FUL_CAP_FRAME | 1u << FUL_CAP_ENDPOINT | \
	 1u << FUL_CAP_NTFN | 1u << FUL_CAP_POOL | 1u << FUL_CAP_DEVMEM |     \
	 1u << FUL_CAP_IRQ | 1u << FUL_CAP_PWIN)

/** Does a capability of @type hold a counted object reference? One
 *  shift and a test: every IPC call looks up a capability. */
static bool cap_counted(unsigned type)
{
	return (CAP_COUNTED >> (type & 31)) & 1;
}

/** Bracket a write of a slot of @vs (lock held): the sequence is odd
 *  meanwhile, so a lock-free reader (cap_read_unlocked) retries. */
static inline void cap_write_begin(struct vspace *vs)
{
	uint32_t s = atomic_load_explicit(&vs->cap_seq, memory_order_relaxed);
	atomic_store_explicit(&vs->cap_seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static inline void cap_write_end(struct vspace *vs)
{
	uint32_t s = atomic_load_explicit(&vs->cap_seq, memory_order_relaxed);
	atomic_store_explicit(&vs->cap_seq, s + 1, memory_order_release);
}

/** Check @c, a copy of a slot taken with its reference, against @type
 *  and @rights; on a mismatch drop it. */
static int cap_match(struct cap *c, unsigned type, unsigned rights,
		     struct cap *out)
{
	int err = c->type == FUL_CAP_NONE		 ? -FUL_EBADCAP
		  : type && c->type != type		 ? -FUL_ETYPE
		  : (c->rights & rights) != rights ? -FUL_ERIGHTS
						   : 0;
	if (err) {
		cap_release(c);
		return err;
	}
	*out = *c;
	return 0;
}

int cap_lookup_dst(struct vspace *vs, uint64_t slot, unsigned type,
		   unsigned rights, struct cap *out, uint64_t dst)
{
	out->type = FUL_CAP_NONE;
	if (slot == 0 || slot >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	bool dst_ok = dst != 0 && dst < FUL_CSLOTS;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	struct cap c = vs->slots[slot];
	if (c.type != FUL_CAP_NONE && cap_counted(c.type))
		obj_get(c.obj);
	bool used = dst_ok && vs->slots[dst].type != FUL_CAP_NONE;
	spin_unlock_irqrestore(&vs->lock, flags);
	int err = cap_match(&c, type, rights, out);
	if (err)
		return err;
	if (!dst_ok) {
		cap_release(out);
		return -FUL_EBADCAP;
	}
	return used ? 1 : 0;
}

int cap_lookup(struct vspace *vs, uint64_t slot, unsigned type,
	       unsigned rights, struct cap *out)
{
	out->type = FUL_CAP_NONE; /* cap_release() of a failed lookup is a no-op */
	if (slot == 0 || slot >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	struct cap c = vs->slots[slot];
	if (c.type != FUL_CAP_NONE && cap_counted(c.type))
		obj_get(c.obj);
	spin_unlock_irqrestore(&vs->lock, flags);
	int err = c.type == FUL_CAP_NONE		 ? -FUL_EBADCAP
		  : type && c.type != type		 ? -FUL_ETYPE
		  : (c.rights & rights) != rights ? -FUL_ERIGHTS
						  : 0;
	if (err) {
		cap_release(&c);
		return err;
	}
	*out = c;
	return 0;
}

void cap_release(struct cap *c)
{
	if (c->type != FUL_CAP_NONE && cap_counted(c->type))
		obj_put(c->obj);
	c->type = FUL_CAP_NONE;
}

int cap_insert(struct vspace *vs, uint64_t slot, const struct cap *c)
{
	if (slot == 0 || slot >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	int err = vs->slots[slot].type != FUL_CAP_NONE ? -FUL_ESTATE : 0;
	if (!err) {
		if (cap_counted(c->type))
			obj_cap_get(c->obj);
		cap_write_begin(vs);
		vs->slots[slot] = *c;
		cap_write_end(vs);
	}
	spin_unlock_irqrestore(&vs->lock, flags);
	return err;
}

int cap_slot_free(struct vspace *vs, uint64_t slot)
{
	if (slot == 0 || slot >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	int err = vs->slots[slot].type != FUL_CAP_NONE ? -FUL_ESTATE : 0;
	spin_unlock_irqrestore(&vs->lock, flags);
	return err;
}

int cap_take(struct vspace *vs, uint64_t slot, unsigned type,
	     unsigned rights, struct cap *out)
{
	if (slot == 0 || slot >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	struct cap c = vs->slots[slot];
	int err = c.type == FUL_CAP_NONE		 ? -FUL_EBADCAP
		  : c.type != type			 ? -FUL_ETYPE
		  : (c.rights & rights) != rights ? -FUL_ERIGHTS
						  : 0;
	if (!err) {
		cap_write_begin(vs);
		vs->slots[slot].type = FUL_CAP_NONE;
		cap_write_end(vs);
	}
	spin_unlock_irqrestore(&vs->lock, flags);
	if (!err)
		*out = c;
	return err;
}

/** The last act of a deleted capability (no lock held). */
static void cap_drop(struct cap *c)
{
	if (cap_counted(c->type))
		obj_cap_put(c->obj);
	else if (c->type == FUL_CAP_REPLY)
		ipc_reply_abort(c->data, -FUL_ECANCELED);
}

int cap_delete(struct vspace *vs, uint64_t slot)
{
	if (slot == 0 || slot >= FUL_CSLOTS)
		return -FUL_EBADCAP;
	uint64_t flags = spin_lock_irqsave(&vs->lock);
	struct cap c = vs->slots[slot];
	cap_write_begin(vs);
	vs->slots[slot].type = FUL_CAP_NONE;
	cap_write_end(vs);
	spin_unlock_irqrestore(&vs->lock, flags);
	if (c.type == FUL_CAP_NONE)
		return -FUL_EBADCAP;
	cap_drop(&c);
	return 0;
}

unsigned cap_delete_self(struct vspace *vs)
{
	unsigned n = 0;
	for (unsigned i = 1; i < FUL_CSLOTS; i++) {
		uint64_t flags = spin_lock_irqsave(&vs->lock);
		struct cap c = vs->slots[i];
		bool self = c.type == FUL_CAP_VSPACE && c.obj == (void *)vs;
		if (self) {
			cap_write_begin(vs);
			vs->slots[i].type = FUL_CAP_NONE;
			cap_write_end(vs);
		}
		spin_unlock_irqrestore(&vs->lock, flags);
		if (self) {
			cap_drop(&c);
			n++;
		}
	}
	return n;
}

void cap_table_clear(struct cap *slots)
{
	for (unsigned i = 0; i < FUL_CSLOTS; i++) {
		struct cap c = slots[i];
		slots[i].type = FUL_CAP_NONE;
		if (c.type != FUL_CAP_NONE)
			cap_drop(&c);
	}
}
