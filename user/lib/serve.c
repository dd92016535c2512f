/*
 * The parts of the ring servers' loop (<ful/serve.h>) off the request
 * path: the start, an endpoint doorbell's wait, attaching, detaching
 * and closing rings.
 */
#include <stdatomic.h>

#include <ful/ful.h>
#include <ful/serve.h>

void ful_serve_start(struct ful_serve *s)
{
	struct ful_sysinfo si;
	if (ful_sysinfo(&si) == 0)
		s->tid = (unsigned)si.tid;
}

void ful_serve_wait_ep(struct ful_serve *s, unsigned bell)
{
	struct ful_msg m = {.info = FUL_MSG(0, 0)};
	long err = s->caller ? ful_reply_recv(bell, &m, FUL_FOREVER)
			     : ful_recv(bell, &m, FUL_FOREVER);
	/* a posting client SENT: nobody waits for an answer */
	s->caller = err >= 0 && FUL_MSG_LABEL(m.info) != FUL_SRING_BELL_POST;
}

void ful_serve_attach(struct ful_serve *s, const struct ful_serve_ops *ops,
		      unsigned k)
{
	/* the ring's maker zeroed it: the client is not in yet */
	atomic_store(&ful_serve_ctl(ops, k)->server_sleeping, 0);
	atomic_fetch_or(&s->live, 1UL << k);
	if (!ops->bell_ep)
		ful_ntfn_signal(ops->bell, FUL_SRING_BELL_REQUEST); /* look */
}

void ful_serve_detach(struct ful_serve *s, unsigned k)
{
	atomic_fetch_and(&s->live, ~(1UL << k));
	for (unsigned n = 0; atomic_load(&s->busy) == (int)k;)
		ful_backoff(&n);
}

void ful_serve_close(struct ful_serve *s, const struct ful_serve_ops *ops)
{
	unsigned long m = atomic_load(&s->live);
	for (unsigned k = 0; m; k++, m >>= 1)
		if (m & 1) {
			atomic_store(&ful_serve_ctl(ops, k)->server_dead, 1);
			ful_ntfn_signal(ops->peer + k, 1);
		}
}
