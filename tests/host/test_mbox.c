/* Host tests for kernel/mbox.h: the lock-free MPSC mailbox. */
#define HTEST_MAIN
#include "host_test.h"

#include <pthread.h>
#include <time.h>

#include "arch.h"
#include "mbox.h"

struct msg {
	struct mbox_node node;
	uint32_t producer, seq;
	_Atomic bool first; /* its push returned true (written after the push) */
};

static struct msg *msg_of(struct mbox_node *n)
{
	return container_of(n, struct msg, node);
}

static double now_s(void)
{
	return (double)arch_counter() / (double)arch_counter_freq();
}

/* ---- single thread ---- */

HTEST(push_signals_only_when_empty)
{
	struct mbox m = {0};
	struct msg a = {0}, b = {0}, c = {0};
	CHECK(mbox_empty(&m));
	CHECK(mbox_take_all(&m) == NULL);
	CHECK(mbox_push(&m, &a.node));   /* empty -> owes a signal */
	CHECK(!mbox_empty(&m));
	CHECK(!mbox_push(&m, &b.node));  /* signal already owed */
	CHECK(!mbox_push(&m, &c.node));
	struct mbox_node *l = mbox_take_all(&m);
	CHECK(mbox_empty(&m));
	CHECK(mbox_take_all(&m) == NULL);
	CHECK(l == &a.node);
	CHECK(l->next == &b.node);
	CHECK(l->next->next == &c.node);
	CHECK(l->next->next->next == NULL);
	/* After a take the next push signals again. */
	CHECK(mbox_push(&m, &b.node));
	CHECK(!mbox_push(&m, &a.node));
	l = mbox_take_all(&m);
	CHECK(l == &b.node && l->next == &a.node && a.node.next == NULL);
	CHECK(mbox_empty(&m));
}

HTEST(take_only_one_node)
{
	struct mbox m = {0};
	struct msg a = {0}, b = {0};
	CHECK(!mbox_take_only(&m, &a.node));   /* empty */
	CHECK(mbox_push(&m, &a.node));
	CHECK(!mbox_take_only(&m, &b.node));   /* someone else's */
	CHECK(mbox_take_only(&m, &a.node));    /* exactly a: taken */
	CHECK(mbox_empty(&m));
	CHECK(mbox_push(&m, &a.node));         /* empty again: signals */
	CHECK(!mbox_push(&m, &b.node));
	CHECK(!mbox_take_only(&m, &b.node));   /* b on top of a */
	CHECK(!mbox_take_only(&m, &a.node));
	struct mbox_node *l = mbox_take_all(&m); /* nothing was lost */
	CHECK(l == &a.node && l->next == &b.node && b.node.next == NULL);
}

HTEST(take_all_fifo_order)
{
	enum { N = 1000 };
	static struct msg ms[N];
	struct mbox m = {0};
	unsigned next = 0;
	/* Batches of growing size, each taken whole: FIFO within each. */
	for (unsigned batch = 1; next < N; batch++) {
		unsigned start = next;
		for (unsigned k = 0; k < batch && next < N; k++, next++) {
			ms[next].seq = next;
			bool first = mbox_push(&m, &ms[next].node);
			CHECK_EQ(first, next == start);
		}
		unsigned want = start;
		for (struct mbox_node *l = mbox_take_all(&m); l; l = l->next)
			CHECK_EQ(msg_of(l)->seq, want++);
		CHECK_EQ(want, next);
		CHECK(mbox_empty(&m));
	}
}

/* ---- many producers, one consumer, IPIs simulated ---- */

#define MAX_PRODUCERS 8
#define PER_PRODUCER 200000
#define DEADLINE_S 5.0

struct run {
	struct mbox box __attribute__((aligned(CACHELINE)));
	_Atomic uint64_t ipi_sent __attribute__((aligned(CACHELINE)));
	_Atomic bool producers_done;
	_Atomic unsigned ready;
	_Atomic bool go;
	unsigned nprod;
	struct msg *msgs[MAX_PRODUCERS];
	uint64_t true_pushes[MAX_PRODUCERS];
	double t_start;
	/* consumer results */
	uint64_t consumed, nonempty_takes, spurious_takes, ipi_seen;
	uint32_t next_seq[MAX_PRODUCERS];
	struct msg **oldest; /* oldest node of each non-empty take */
	uint64_t oldest_cap;
	char err[256];
	bool timed_out;
};

struct prod_arg {
	struct run *r;
	unsigned id;
};

static void wait_go(struct run *r)
{
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load_explicit(&r->go, memory_order_acquire))
		arch_cpu_relax();
}

static void *producer(void *p)
{
	struct prod_arg *a = p;
	struct run *r = a->r;
	struct msg *ms = r->msgs[a->id];
	uint64_t trues = 0;
	uint32_t rng = 0x9E3779B9u * (a->id + 1), burst = 1;
	wait_go(r);
	for (uint32_t s = 0; s < PER_PRODUCER; s++) {
		/* Yield after random bursts of 1..128 pushes so the consumer
		 * interleaves with the producers even on a 2-CPU host. */
		if (--burst == 0) {
			rng ^= rng << 13;
			rng ^= rng >> 17;
			rng ^= rng << 5;
			burst = 1 + rng % 128;
			arch_cpu_relax();
		}
		ms[s].producer = a->id;
		ms[s].seq = s;
		if (mbox_push(&r->box, &ms[s].node)) {
			/* "Send IPI_ICC" to the owner. */
			atomic_store_explicit(&ms[s].first, true,
					      memory_order_relaxed);
			atomic_fetch_add_explicit(&r->ipi_sent, 1,
						  memory_order_release);
			trues++;
		}
		if ((s & 1023) == 0 && now_s() - r->t_start > 4 * DEADLINE_S)
			break; /* the consumer reports the timeout */
	}
	r->true_pushes[a->id] = trues;
	return NULL;
}

static void consume(struct run *r, struct mbox_node *l)
{
	struct msg *first = msg_of(l);
	if (r->nonempty_takes < r->oldest_cap)
		r->oldest[r->nonempty_takes] = first;
	r->nonempty_takes++;
	for (; l; l = l->next) {
		struct msg *m = msg_of(l);
		unsigned p = m->producer;
		if (p >= r->nprod || m->seq >= PER_PRODUCER ||
		    m != &r->msgs[p][m->seq]) {
			snprintf(r->err, sizeof(r->err),
				 "corrupt node %p (producer %u seq %u)",
				 (void *)m, p, m->seq);
			return;
		}
		/* Exactly once and per-producer FIFO: seqs come 0, 1, 2... */
		if (m->seq != r->next_seq[p]) {
			snprintf(r->err, sizeof(r->err),
				 "producer %u: got seq %u, expected %u "
				 "(consumed %llu)",
				 p, m->seq, r->next_seq[p],
				 (unsigned long long)r->consumed);
			return;
		}
		r->next_seq[p]++;
		r->consumed++;
	}
}

/* The owner core: drains only when an IPI is pending, like
 * icc_handle() does on IPI_ICC. */
static void *consumer(void *p)
{
	struct run *r = p;
	wait_go(r);
	for (;;) {
		uint64_t sent =
			atomic_load_explicit(&r->ipi_sent, memory_order_acquire);
		if (sent == r->ipi_seen) {
			if (atomic_load(&r->producers_done) &&
			    atomic_load(&r->ipi_sent) == r->ipi_seen)
				break;
			if (now_s() - r->t_start > 2 * DEADLINE_S) {
				r->timed_out = true;
				break;
			}
			arch_cpu_relax();
			continue;
		}
		r->ipi_seen = sent; /* acknowledge all pending IPIs, then drain */
		struct mbox_node *l = mbox_take_all(&r->box);
		if (!l) {
			r->spurious_takes++; /* its node went with a prior drain */
			continue;
		}
		consume(r, l);
		if (r->err[0])
			break;
	}
	return NULL;
}

static void run_mpsc(struct htest_ctx *htest_ctx_, unsigned nprod)
{
	static struct run r;
	memset(&r, 0, sizeof(r));
	r.nprod = nprod;
	for (unsigned i = 0; i < nprod; i++) {
		r.msgs[i] = calloc(PER_PRODUCER, sizeof(struct msg));
		CHECK(r.msgs[i] != NULL);
	}
	r.oldest_cap = (uint64_t)nprod * PER_PRODUCER;
	r.oldest = calloc(r.oldest_cap, sizeof(*r.oldest));
	CHECK(r.oldest != NULL);

	pthread_t prod[MAX_PRODUCERS], cons;
	struct prod_arg args[MAX_PRODUCERS];
	CHECK_EQ(pthread_create(&cons, NULL, consumer, &r), 0);
	for (unsigned i = 0; i < nprod; i++) {
		args[i] = (struct prod_arg){&r, i};
		CHECK_EQ(pthread_create(&prod[i], NULL, producer, &args[i]), 0);
	}
	while (atomic_load(&r.ready) != nprod + 1)
		arch_cpu_relax();
	r.t_start = now_s();
	atomic_store_explicit(&r.go, true, memory_order_release);
	for (unsigned i = 0; i < nprod; i++)
		pthread_join(prod[i], NULL);
	atomic_store(&r.producers_done, true);
	pthread_join(cons, NULL);
	double elapsed = now_s() - r.t_start;

	uint64_t trues = 0;
	for (unsigned i = 0; i < nprod; i++)
		trues += r.true_pushes[i];
	printf("# %u producers x %u: %.2f s, %llu signalling pushes, "
	       "%llu drains, %llu spurious\n",
	       nprod, PER_PRODUCER, elapsed, (unsigned long long)trues,
	       (unsigned long long)r.nonempty_takes,
	       (unsigned long long)r.spurious_takes);

	bool ok = !r.err[0] && !r.timed_out;
	if (r.err[0])
		snprintf(htest_ctx_->msg, HTEST_MSG_LEN, "consumer: %s", r.err);
	else if (r.timed_out)
		snprintf(htest_ctx_->msg, HTEST_MSG_LEN,
			 "timed out after %.1f s: consumed %llu of %llu",
			 elapsed, (unsigned long long)r.consumed,
			 (unsigned long long)nprod * PER_PRODUCER);
	if (ok) {
		/* Signal contract: every drain that found work was owed by a
		 * true-returning push, namely that of its oldest node, and
		 * there was exactly one such drain per true push. */
		uint64_t bad = 0, firsts = 0;
		for (uint64_t t = 0; t < r.nonempty_takes; t++)
			if (!atomic_load(&r.oldest[t]->first))
				bad++;
		for (unsigned i = 0; i < nprod; i++)
			for (uint32_t s = 0; s < PER_PRODUCER; s++)
				firsts += atomic_load(&r.msgs[i][s].first);
		if (bad || firsts != trues || r.nonempty_takes != trues) {
			ok = false;
			snprintf(htest_ctx_->msg, HTEST_MSG_LEN,
				 "signal contract: %llu drains led by a "
				 "non-signalling push; %llu drains, %llu "
				 "signalling pushes (%llu flagged)",
				 (unsigned long long)bad,
				 (unsigned long long)r.nonempty_takes,
				 (unsigned long long)trues,
				 (unsigned long long)firsts);
		}
	}
	for (unsigned i = 0; i < nprod; i++)
		free(r.msgs[i]);
	free(r.oldest);
	if (!ok) {
		htest_ctx_->failed = 1;
		return;
	}
	/* Every IPI was handled and nothing is left undelivered. */
	CHECK_EQ(r.ipi_seen, atomic_load(&r.ipi_sent));
	CHECK(mbox_empty(&r.box));
	CHECK_EQ(r.consumed, (uint64_t)nprod * PER_PRODUCER);
	for (unsigned i = 0; i < nprod; i++)
		CHECK_EQ(r.next_seq[i], PER_PRODUCER);
	CHECK(r.nonempty_takes >= 2); /* the consumer ran concurrently */
	CHECK(elapsed < DEADLINE_S);
}

HTEST(mpsc_4_producers)
{
	run_mpsc(htest_ctx_, 4);
}

HTEST(mpsc_8_producers)
{
	run_mpsc(htest_ctx_, 8);
}
