/*
 * host_test.h - tiny header-only unit-test framework for Fulcrum host tests.
 *
 * Usage (C11, gcc):
 *
 *     #define HTEST_MAIN          // in exactly one .c file of the binary
 *     #include "host_test.h"
 *
 *     HTEST(queue_push_pop) {
 *         CHECK(q_empty(&q));
 *         CHECK_EQ(q_len(&q), 0);
 *     }
 *
 * HTEST_MAIN defines the test registry, htest_main() and a main() that
 * calls it. Other files of the same binary include the header without it.
 * Run `./test_x [substring]` to run only tests whose name contains it.
 *
 * Output follows the Fulcrum test protocol (see tests/harness/run_tests.py):
 *     TEST-PASS <name>
 *     TEST-FAIL <name> :: <file>:<line>: <message>
 *     TEST-DONE <passed> <failed>
 */
#ifndef FULCRUM_HOST_TEST_H
#define FULCRUM_HOST_TEST_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#define HTEST_MAX_TESTS 256
#define HTEST_MSG_LEN 512

/* Per-test state handed to every test body. */
struct htest_ctx {
    int failed;
    char msg[HTEST_MSG_LEN];
};

typedef void (*htest_fn)(struct htest_ctx *htest_ctx_);

void htest_register(const char *name, htest_fn fn);
int htest_main(int argc, char **argv);

/** The number in environment variable @name (any base strtoul takes),
 *  or @dflt if it is unset or empty: a test's knobs for longer runs. */
static inline unsigned htest_env_num(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	return v && *v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

/** Hold the lock file @path for the process's life: a second run of
 *  the test (another terminal) waits instead of removing the images of
 *  the first under it. */
static inline void htest_lock(const char *path)
{
	int fd = open(path, O_CREAT | O_RDWR, 0644);
	if (fd >= 0)
		flock(fd, LOCK_EX); /* released when the process exits */
}

/* Define and register a test; the body follows the macro. */
/* xorshift64*: a fixed-seed, reproducible generator for randomized tests.
 * Seed with any non-zero value. */
static inline uint64_t htest_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1Dull;
}

#define HTEST(name)                                                        \
    static void htest_fn_##name(struct htest_ctx *htest_ctx_);             \
    __attribute__((constructor)) static void htest_reg_##name(void)        \
    {                                                                      \
        htest_register(#name, htest_fn_##name);                            \
    }                                                                      \
    static void htest_fn_##name(                                          \
        struct htest_ctx *htest_ctx_ __attribute__((unused)))

/* Record a failure with file:line and leave the test. */
#define HTEST_FAIL_(...)                                                   \
    do {                                                                   \
        int htest_n_ = snprintf(htest_ctx_->msg, HTEST_MSG_LEN,            \
                                "%s:%d: ", __FILE__, __LINE__);            \
        if (htest_n_ < 0 || htest_n_ >= HTEST_MSG_LEN)                     \
            htest_n_ = HTEST_MSG_LEN - 1;                                  \
        snprintf(htest_ctx_->msg + htest_n_, HTEST_MSG_LEN - htest_n_,     \
                 __VA_ARGS__);                                             \
        htest_ctx_->failed = 1;                                            \
        return;                                                            \
    } while (0)

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond))                                                       \
            HTEST_FAIL_("CHECK(%s) failed", #cond);                        \
    } while (0)

#define CHECK_EQ(a, b)                                                     \
    do {                                                                   \
        long long htest_a_ = (long long)(a);                               \
        long long htest_b_ = (long long)(b);                               \
        if (htest_a_ != htest_b_)                                          \
            HTEST_FAIL_("CHECK_EQ(%s, %s) failed: %lld != %lld",           \
                        #a, #b, htest_a_, htest_b_);                       \
    } while (0)

#ifdef HTEST_MAIN

static struct {
    const char *name;
    htest_fn fn;
} htest_tests_[HTEST_MAX_TESTS];
static int htest_count_;

void htest_register(const char *name, htest_fn fn)
{
    if (htest_count_ >= HTEST_MAX_TESTS) {
        fprintf(stderr, "host_test: more than %d tests\n", HTEST_MAX_TESTS);
        exit(2);
    }
    htest_tests_[htest_count_].name = name;
    htest_tests_[htest_count_].fn = fn;
    htest_count_++;
}

/* Run one test and print its protocol line; return 1 if it failed. */
static int htest_run_one_(const char *name, htest_fn fn)
{
    struct htest_ctx ctx = { 0 };

    fn(&ctx);
    if (ctx.failed)
        printf("TEST-FAIL %s :: %s\n", name, ctx.msg);
    else
        printf("TEST-PASS %s\n", name);
    return ctx.failed;
}

int htest_main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;

    /* Line-buffer so output survives a crash in a later test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < htest_count_; i++) {
        if (filter && !strstr(htest_tests_[i].name, filter))
            continue;
        if (htest_run_one_(htest_tests_[i].name, htest_tests_[i].fn))
            failed++;
        else
            passed++;
    }
    printf("TEST-DONE %d %d\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    return htest_main(argc, argv);
}

#endif /* HTEST_MAIN */

#endif /* FULCRUM_HOST_TEST_H */
