/*
 * make fs-fuzz: the file-system model test (fs_model.h) for long runs.
 *
 *   fs_fuzz [--seed N] [--ops N] [--shape NAME] [--bs N] [--trace STEP]
 *           [--cmp N] [--fsck N]
 *
 * OPS steps on each image shape and block size (or the one named), from
 * seed N, with make test's periodic checks unless --cmp / --fsck say
 * other intervals (the steps are the same, only checked more or less
 * often), so that make test's seeds replay here step for step. Prints the seed, each defect's first step,
 * a summary per run and, on a failure, the first failing step and the
 * command that replays it; --trace prints every step from STEP on.
 * Exit status 1 if anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_model.h"

static int usage(void)
{
	fprintf(stderr, "usage: fs_fuzz [--seed N] [--ops N] [--shape NAME] "
			"[--bs N] [--trace STEP] [--cmp N] [--fsck N]\n");
	return 2;
}

/** One run of @o, its outcome printed. 0 if it passed. */
static int run(const struct fsm_opts *o)
{
	static struct fsm_result r;
	printf("fs_fuzz: shape %s, %u-byte blocks, seed %llu, %lu steps\n",
	       o->shape->name, o->block_size, (unsigned long long)o->seed,
	       o->ops);
	fflush(stdout);
	if (!fsm_run(o, &r))
		return 0;
	if (r.fail_step)
		printf("fs_fuzz: FAIL seed %llu, %s step %lu: %s\n",
		       (unsigned long long)o->seed,
		       r.exact ? "first failing" : "failed at", r.fail_step,
		       r.fail);
	else if (r.fail[0])
		printf("fs_fuzz: FAIL %s\n", r.fail);
	if (r.defects)
		printf("fs_fuzz: FAIL seed %llu: %lu defective steps, first of "
		       "each kind: %s\n",
		       (unsigned long long)o->seed, r.defects, r.defect);
	unsigned long at = r.fail_step ? r.fail_step : r.defect_step;
	if (at)
		printf("fs_fuzz: replay: make fs-fuzz SEED=%llu OPS=%lu SHAPE=%s "
		       "BS=%u TRACE=%lu\n",
		       (unsigned long long)o->seed, at, o->shape->name,
		       o->block_size, at > 20 ? at - 20 : 1);
	return 1;
}

int main(int argc, char **argv)
{
	struct fsm_opts o = {.seed = 1, .ops = 1000000,
			     .cmp_every = FSM_CMP_EVERY,
			     .fsck_every = FSM_FSCK_EVERY, .verbose = true};
	const char *shape = NULL;
	unsigned bs = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return usage();
		if (!strcmp(argv[i], "--seed"))
			o.seed = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "--ops"))
			o.ops = strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--shape"))
			shape = *v ? v : NULL;
		else if (!strcmp(argv[i], "--bs"))
			bs = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--trace"))
			o.trace_from = strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--cmp"))
			o.cmp_every = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--fsck"))
			o.fsck_every = (unsigned)strtoul(v, NULL, 0);
		else
			return usage();
		i++;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int failed = 0, runs = 0;
	for (const struct fsm_shape *s = fsm_shapes; s->name; s++) {
		for (const unsigned *b = fsm_block_sizes; *b; b++) {
			if ((shape && strcmp(shape, s->name)) || (bs && bs != *b))
				continue;
			o.shape = s, o.block_size = *b;
			failed |= run(&o);
			runs++;
		}
	}
	if (!runs)
		fprintf(stderr, "fs_fuzz: no shape %s with %u-byte blocks\n",
			shape ? shape : "(any)", bs);
	return runs ? failed : 2;
}
