/* Host tests for kernel/runqueue.c: O(1) bitmap run queue. */
#define HTEST_MAIN
#include "host_test.h"

#include "runqueue.h"

struct item {
	struct rq_link link;
	unsigned prio;
	unsigned id;
	bool queued;
};

static struct item *item_of(struct rq_link *l)
{
	return l ? container_of(l, struct item, link) : NULL;
}

static struct runqueue rq;

/* Bit @p of the bitmap, and the summary bit of its word. */
static bool bit(unsigned p)
{
	return rq.bitmap[p / 64] >> (p % 64) & 1;
}

static bool sbit(unsigned p)
{
	return rq.summary >> (p / 64) & 1;
}

HTEST(empty_queue)
{
	rq_init(&rq);
	CHECK(rq_check(&rq));
	CHECK_EQ(rq_top_prio(&rq), -1);
	CHECK_EQ(rq.nr, 0);
	CHECK_EQ(rq.summary, 0);
	unsigned prio = 12345;
	CHECK(rq_pop(&rq, &prio) == NULL);
	CHECK_EQ(prio, 12345); /* untouched when empty */
	CHECK(rq_check(&rq));
}

HTEST(single_item_each_priority)
{
	static struct item it;
	for (unsigned p = 0; p < RQ_NPRIO; p++) {
		rq_init(&rq);
		rq_push_tail(&rq, &it.link, p);
		CHECK(rq_check(&rq));
		CHECK_EQ(rq_top_prio(&rq), p);
		CHECK(bit(p));
		CHECK(sbit(p));
		CHECK_EQ(rq.summary, 1u << (p / 64));
		unsigned got = 999;
		CHECK(rq_pop(&rq, &got) == &it.link);
		CHECK_EQ(got, p);
		CHECK(rq_check(&rq));
		CHECK_EQ(rq_top_prio(&rq), -1);
		CHECK_EQ(rq.summary, 0);
		CHECK_EQ(rq.nr, 0);
	}
}

HTEST(pick_highest_priority)
{
	/* Insert in a scrambled order; pops must come out by priority. */
	static const unsigned prios[] = {5, 200, 0, 63, 64, 127, 128, 255,
					 191, 192, 1, 100};
	static struct item its[ARRAY_SIZE(prios)];
	rq_init(&rq);
	for (unsigned i = 0; i < ARRAY_SIZE(prios); i++) {
		its[i].prio = prios[i];
		rq_push_tail(&rq, &its[i].link, prios[i]);
		CHECK(rq_check(&rq));
	}
	CHECK_EQ(rq.nr, ARRAY_SIZE(prios));
	int last = RQ_NPRIO;
	for (unsigned i = 0; i < ARRAY_SIZE(prios); i++) {
		int top = rq_top_prio(&rq);
		unsigned got;
		struct item *it = item_of(rq_pop(&rq, &got));
		CHECK(it != NULL);
		CHECK_EQ(got, top);
		CHECK_EQ(it->prio, got);
		CHECK(top < last);
		last = top;
		CHECK(rq_check(&rq));
	}
	CHECK_EQ(rq_top_prio(&rq), -1);
}

HTEST(fifo_within_priority)
{
	static struct item its[50];
	rq_init(&rq);
	for (unsigned i = 0; i < 50; i++) {
		its[i].id = i;
		rq_push_tail(&rq, &its[i].link, 77);
		CHECK(rq_check(&rq));
	}
	for (unsigned i = 0; i < 50; i++) {
		unsigned got;
		struct item *it = item_of(rq_pop(&rq, &got));
		CHECK(it != NULL);
		CHECK_EQ(got, 77);
		CHECK_EQ(it->id, i);
		CHECK(rq_check(&rq));
	}
	CHECK(rq_pop(&rq, &(unsigned){0}) == NULL);
}

HTEST(push_head_vs_push_tail)
{
	static struct item a, b, c, d;
	a.id = 1, b.id = 2, c.id = 3, d.id = 4;
	rq_init(&rq);
	rq_push_tail(&rq, &a.link, 9);  /* a */
	rq_push_tail(&rq, &b.link, 9);  /* a b */
	rq_push_head(&rq, &c.link, 9);  /* c a b */
	rq_push_head(&rq, &d.link, 9);  /* d c a b */
	CHECK(rq_check(&rq));
	CHECK_EQ(rq.nr, 4);
	static const unsigned want[] = {4, 3, 1, 2};
	for (unsigned i = 0; i < 4; i++) {
		unsigned got;
		struct item *it = item_of(rq_pop(&rq, &got));
		CHECK(it != NULL);
		CHECK_EQ(it->id, want[i]);
		CHECK(rq_check(&rq));
	}
	/* push_head onto an empty priority sets the bits like push_tail. */
	rq_push_head(&rq, &a.link, 200);
	CHECK(rq_check(&rq));
	CHECK_EQ(rq_top_prio(&rq), 200);
	CHECK(bit(200) && sbit(200));
	rq_push_head(&rq, &b.link, 3);
	CHECK_EQ(rq_top_prio(&rq), 200);
	unsigned got;
	CHECK(item_of(rq_pop(&rq, &got)) == &a);
	CHECK(item_of(rq_pop(&rq, &got)) == &b);
	CHECK_EQ(got, 3);
	CHECK(rq_check(&rq));
}

/* Remove head, middle and tail of a three-item priority @p; the bitmap
 * bit (and summary bit, when nothing else is in the word) goes only
 * with the last one. */
static void remove_positions(struct htest_ctx *htest_ctx_, unsigned p,
			     unsigned other)
{
	static struct item x, y, z, o;
	static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
					 {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	struct item *its[3] = {&x, &y, &z};
	for (unsigned k = 0; k < 6; k++) {
		rq_init(&rq);
		for (unsigned i = 0; i < 3; i++) {
			its[i]->id = i;
			rq_push_tail(&rq, &its[i]->link, p);
		}
		if (other != p)
			rq_push_tail(&rq, &o.link, other);
		CHECK(rq_check(&rq));
		bool same_word = other != p && other / 64 == p / 64;
		for (unsigned j = 0; j < 3; j++) {
			struct item *it = its[orders[k][j]];
			rq_remove(&rq, &it->link, p);
			CHECK(rq_check(&rq));
			CHECK(it->link.next == &it->link); /* unlinked to self */
			CHECK_EQ(bit(p), j < 2);
			CHECK_EQ(sbit(p), j < 2 || same_word);
			/* The survivors keep their relative order. */
			unsigned last = 0, n = 0;
			for (struct rq_link *l = rq.head[p].next;
			     l != &rq.head[p]; l = l->next, n++) {
				unsigned id = item_of(l)->id;
				CHECK(n == 0 || id > last);
				last = id;
			}
			CHECK_EQ(n, 2 - j);
		}
		if (other != p) {
			CHECK_EQ(rq_top_prio(&rq), other);
			CHECK(bit(other) && sbit(other));
			rq_remove(&rq, &o.link, other);
		}
		CHECK(rq_check(&rq));
		CHECK_EQ(rq_top_prio(&rq), -1);
		CHECK_EQ(rq.summary, 0);
		CHECK_EQ(rq.nr, 0);
	}
}

HTEST(remove_head_middle_tail_edges)
{
	static const unsigned edges[] = {0, 1, 62, 63, 64, 65, 127, 128,
					 191, 192, 254, 255};
	for (unsigned i = 0; i < ARRAY_SIZE(edges); i++) {
		unsigned p = edges[i];
		remove_positions(htest_ctx_, p, p);
		if (htest_ctx_->failed)
			return;
		/* A neighbour in the same word and one in another word. */
		remove_positions(htest_ctx_, p, p ^ 1);
		if (htest_ctx_->failed)
			return;
		remove_positions(htest_ctx_, p, (p + 64) % RQ_NPRIO);
		if (htest_ctx_->failed)
			return;
	}
}

HTEST(bitmap_word_boundaries)
{
	/* 63/64 and 127/128 sit on either side of a word boundary: emptying
	 * one must not clear the other's summary bit. */
	static struct item it[6];
	static const unsigned ps[] = {0, 63, 64, 127, 128, 255};
	rq_init(&rq);
	for (unsigned i = 0; i < 6; i++)
		rq_push_tail(&rq, &it[i].link, ps[i]);
	CHECK_EQ(rq.summary, 0xf);
	CHECK_EQ(rq.bitmap[0], (1ull << 63) | 1);
	CHECK_EQ(rq.bitmap[1], (1ull << 63) | 1);
	CHECK_EQ(rq.bitmap[2], 1);
	CHECK_EQ(rq.bitmap[3], 1ull << 63);
	CHECK_EQ(rq_top_prio(&rq), 255);
	rq_remove(&rq, &it[5].link, 255);
	CHECK_EQ(rq.summary, 0x7);
	CHECK_EQ(rq_top_prio(&rq), 128);
	rq_remove(&rq, &it[3].link, 127);
	CHECK_EQ(rq.summary, 0x7);
	CHECK_EQ(rq.bitmap[1], 1);
	CHECK_EQ(rq_top_prio(&rq), 128);
	rq_remove(&rq, &it[4].link, 128);
	CHECK_EQ(rq.summary, 0x3);
	CHECK_EQ(rq_top_prio(&rq), 64);
	rq_remove(&rq, &it[2].link, 64);
	CHECK_EQ(rq.summary, 0x1);
	CHECK_EQ(rq_top_prio(&rq), 63);
	rq_remove(&rq, &it[1].link, 63);
	CHECK_EQ(rq_top_prio(&rq), 0);
	rq_remove(&rq, &it[0].link, 0);
	CHECK_EQ(rq_top_prio(&rq), -1);
	CHECK(rq_check(&rq));
}

HTEST(rq_check_detects_corruption)
{
	static struct item a, b, c;
	rq_init(&rq);
	rq_push_tail(&rq, &a.link, 10);
	rq_push_tail(&rq, &b.link, 130);
	rq_push_tail(&rq, &c.link, 130);
	CHECK(rq_check(&rq));
	rq.nr++;
	CHECK(!rq_check(&rq));
	rq.nr--;
	rq.bitmap[0] |= 1ull << 11; /* bit without a queue */
	CHECK(!rq_check(&rq));
	rq.bitmap[0] &= ~(1ull << 11);
	rq.summary |= 1u << 3; /* summary bit without a bitmap word */
	CHECK(!rq_check(&rq));
	rq.summary &= ~(1u << 3);
	rq.bitmap[2] &= ~(1ull << 2); /* queue without its bit */
	CHECK(!rq_check(&rq));
	rq.bitmap[2] |= 1ull << 2;
	CHECK(rq_check(&rq));
	c.link.prev = &a.link; /* broken back link behind b */
	CHECK(!rq_check(&rq));
	c.link.prev = &b.link;
	CHECK(rq_check(&rq));
}

/* ---- randomized test against a reference model ---- */

#define RAND_ITEMS 4096
#define RAND_OPS 100000

/* Reference: one FIFO (array deque) of item ids per priority. */
struct ref_q {
	unsigned buf[RAND_ITEMS];
	unsigned head, len;
};

static struct ref_q ref[RQ_NPRIO];
static struct item ritems[RAND_ITEMS];

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return htest_rand(&rng_state);
}

static void ref_push_tail(unsigned p, unsigned id)
{
	struct ref_q *q = &ref[p];
	q->buf[(q->head + q->len++) % RAND_ITEMS] = id;
}

static void ref_push_head(unsigned p, unsigned id)
{
	struct ref_q *q = &ref[p];
	q->head = (q->head + RAND_ITEMS - 1) % RAND_ITEMS;
	q->buf[q->head] = id;
	q->len++;
}

static void ref_remove(unsigned p, unsigned id)
{
	struct ref_q *q = &ref[p];
	unsigned k = 0;
	while (q->buf[(q->head + k) % RAND_ITEMS] != id)
		k++;
	for (; k + 1 < q->len; k++)
		q->buf[(q->head + k) % RAND_ITEMS] =
			q->buf[(q->head + k + 1) % RAND_ITEMS];
	q->len--;
}

static int ref_top(void)
{
	for (int p = RQ_NPRIO - 1; p >= 0; p--)
		if (ref[p].len)
			return p;
	return -1;
}

/* Priorities biased towards the word edges half of the time. */
static unsigned rand_prio(void)
{
	static const unsigned edges[] = {0, 63, 64, 127, 128, 191, 192, 255};
	uint64_t r = rnd();
	if (r & 1)
		return edges[(r >> 1) % ARRAY_SIZE(edges)];
	/* A narrow band most of the time so queues get long. */
	return (r >> 8) % 4 ? 60 + (r >> 16) % 8 : (r >> 16) % RQ_NPRIO;
}

HTEST(randomized_against_reference)
{
	rng_state = 0x9E3779B97F4A7C15ull;
	rq_init(&rq);
	for (unsigned p = 0; p < RQ_NPRIO; p++)
		ref[p].head = ref[p].len = 0;
	unsigned nq = 0; /* queued items */
	unsigned pops = 0, removes = 0;
	for (unsigned i = 0; i < RAND_ITEMS; i++) {
		ritems[i].id = i;
		ritems[i].queued = false;
	}
	for (unsigned op = 0; op < RAND_OPS; op++) {
		uint64_t r = rnd();
		unsigned kind = r % 100;
		/* Drift the fill level up and down over time. */
		bool want_grow = (op / 10000) % 2 == 0;
		unsigned grow_pct = want_grow ? 60 : 35;
		if (nq < RAND_ITEMS && (kind < grow_pct || nq == 0)) {
			unsigned id = (unsigned)((r >> 8) % RAND_ITEMS);
			while (ritems[id].queued)
				id = (id + 1) % RAND_ITEMS;
			struct item *it = &ritems[id];
			it->prio = rand_prio();
			it->queued = true;
			if ((r >> 40) % 4 == 0) {
				rq_push_head(&rq, &it->link, it->prio);
				ref_push_head(it->prio, id);
			} else {
				rq_push_tail(&rq, &it->link, it->prio);
				ref_push_tail(it->prio, id);
			}
			nq++;
		} else if (kind < 85) {
			int want = ref_top();
			CHECK_EQ(rq_top_prio(&rq), want);
			unsigned got = 999;
			struct item *it = item_of(rq_pop(&rq, &got));
			CHECK(it != NULL);
			CHECK_EQ(got, want);
			struct ref_q *q = &ref[want];
			unsigned id = q->buf[q->head];
			q->head = (q->head + 1) % RAND_ITEMS;
			q->len--;
			if (it->id != id)
				HTEST_FAIL_("op %u: pop gave item %u, model %u "
					    "(prio %d)", op, it->id, id, want);
			CHECK_EQ(it->prio, got);
			it->queued = false;
			nq--;
			pops++;
		} else {
			unsigned id = (unsigned)((r >> 8) % RAND_ITEMS);
			while (!ritems[id].queued)
				id = (id + 1) % RAND_ITEMS;
			struct item *it = &ritems[id];
			rq_remove(&rq, &it->link, it->prio);
			ref_remove(it->prio, id);
			it->queued = false;
			nq--;
			removes++;
		}
		CHECK_EQ(rq.nr, nq);
		CHECK_EQ(rq_top_prio(&rq), ref_top());
		if (op % 512 == 0 && !rq_check(&rq))
			HTEST_FAIL_("rq_check failed after op %u", op);
	}
	CHECK(rq_check(&rq));
	CHECK(pops > RAND_OPS / 5);
	CHECK(removes > RAND_OPS / 20);
	/* Drain: everything left comes out in model order. */
	while (nq) {
		int want = ref_top();
		unsigned got;
		struct item *it = item_of(rq_pop(&rq, &got));
		CHECK(it != NULL);
		CHECK_EQ(got, want);
		struct ref_q *q = &ref[want];
		CHECK_EQ(it->id, q->buf[q->head]);
		q->head = (q->head + 1) % RAND_ITEMS;
		q->len--;
		nq--;
	}
	CHECK_EQ(rq_top_prio(&rq), -1);
	CHECK_EQ(rq.summary, 0);
	CHECK(rq_check(&rq));
}
