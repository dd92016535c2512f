/*
 * The file-system model test (fs_model.h) as make test runs it: 100,000
 * steps in all, shared by every image shape and block size, from fixed
 * seeds; each run prints a summary (results per operation, writes per
 * block-map level) and every defect's first step. A failure names the
 * make fs-fuzz command that replays it.
 */
#define HTEST_MAIN
#include "host_test.h"

#include "fs_model.h"

#define TOTAL_STEPS 100000ul

/** Steps of each run: TOTAL_STEPS over every shape and block size. */
static unsigned long steps_each(void)
{
	unsigned long runs = 0;
	for (const struct fsm_shape *s = fsm_shapes; s->name; s++)
		for (const unsigned *bs = fsm_block_sizes; *bs; bs++)
			runs++;
	return (TOTAL_STEPS + runs - 1) / runs;
}

/** Shape @shape at every block size, from seed @shape + 1. */
static void run_shape(struct htest_ctx *htest_ctx_, unsigned shape)
{
	static struct fsm_result r;
	for (const unsigned *bs = fsm_block_sizes; *bs; bs++) {
		struct fsm_opts o = {.shape = &fsm_shapes[shape],
				     .block_size = *bs,
				     .seed = shape + 1,
				     .ops = steps_each(),
				     .cmp_every = FSM_CMP_EVERY,
				     .fsck_every = FSM_FSCK_EVERY,
				     .verbose = true};
		if (!fsm_run(&o, &r))
			continue;
		unsigned long at = r.fail_step ? r.fail_step : r.defect_step;
		printf("fs_model: replay: make fs-fuzz SEED=%llu OPS=%lu "
		       "SHAPE=%s BS=%u TRACE=%lu\n",
		       (unsigned long long)o.seed, at ? at : o.ops,
		       o.shape->name, *bs, at > 20 ? at - 20 : 1);
		if (r.fail_step)
			HTEST_FAIL_("%s-%u seed %llu, %s step %lu: %.300s",
				    o.shape->name, *bs, (unsigned long long)o.seed,
				    r.exact ? "first failing" : "failed at",
				    r.fail_step, r.fail);
		if (r.fail[0])
			HTEST_FAIL_("%s-%u: %.400s", o.shape->name, *bs, r.fail);
		HTEST_FAIL_("%s-%u seed %llu: %lu defective steps, first of each "
			    "kind: %.300s",
			    o.shape->name, *bs, (unsigned long long)o.seed,
			    r.defects, r.defect);
	}
}

HTEST(fs_model_one_group)
{
	run_shape(htest_ctx_, 0);
}

HTEST(fs_model_three_groups)
{
	run_shape(htest_ctx_, 1);
}
