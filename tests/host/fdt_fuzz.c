/*
 * Host tests for kernel/fdt.c on corrupted input, part of the test_fdt
 * binary (test_fdt.c holds its main and the well-formed trees): random
 * mutations of the QEMU virt trees, random buffers, and one reproducer
 * per over-read bug class found so far.
 *
 * fdt_parse() must never read outside [dtb, dtb + max). Inputs are put
 * in heap buffers of exactly @max bytes so ASan traps any over-read.
 * Inputs that may crash run in a forked child, so one crash does not
 * take the whole binary down; a crash there means the kernel parser
 * read out of bounds, and fails the test. FDT_VERBOSE=1 keeps the
 * children's ASan reports on stderr.
 */
#include "host_test.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdt.h"
#include "fdt_util.h"

static bool verbose_mode(void)
{
	const char *s = getenv("FDT_VERBOSE");
	return s && *s && strcmp(s, "0") != 0;
}

/* The reproducers' tree builder (18 KiB: static, not on the stack). */
static struct fdtb fb;

/* ---- crash isolation ---- */

/* Builds case @i (deterministic in @i) into a fresh heap buffer of
 * exactly *max bytes. */
typedef struct blob (*case_gen)(unsigned i, const void *ctx);

enum { RES_OK = 0, RES_REJECT = 1, RES_BADRET = 2, RES_INSANE = 3 };

struct fuzz_res {
	unsigned ok, reject, badret, insane, crashes;
	unsigned crash_idx[8];
};

struct rec {
	uint32_t idx, what; /* what: 0xffffffff = starting, else RES_* */
};

static bool out_sane(const struct fdt_info *o)
{
	return o->ncpus <= MAX_CPUS &&
	       memchr(o->bootargs, 0, sizeof(o->bootargs)) != NULL;
}

/* Set in fuzz children: ASan's error hook then exits at once instead
 * of symbolizing a report (about 0.1 s each), unless FDT_VERBOSE. */
static volatile int in_fuzz_child;

void __asan_on_error(void);
void __asan_on_error(void)
{
	if (in_fuzz_child)
		_exit(97);
}

static void child_quiet(void)
{
	if (verbose_mode())
		return;
	in_fuzz_child = 1;
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
}

/* Run cases [0, n) through fdt_parse in child processes: one child runs
 * cases until it crashes, the next resumes after the crashing case. */
static void fuzz_run(unsigned n, case_gen gen, const void *ctx,
		     struct fuzz_res *res)
{
	memset(res, 0, sizeof(*res));
	unsigned next = 0;
	fflush(stdout);
	while (next < n) {
		int pfd[2];
		if (pipe(pfd) != 0)
			abort();
		pid_t pid = fork();
		if (pid < 0)
			abort();
		if (pid == 0) {
			close(pfd[0]);
			child_quiet();
			for (unsigned i = next; i < n; i++) {
				struct blob b = gen(i, ctx);
				struct rec r = {i, 0xffffffffu};
				if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
					_exit(3);
				struct fdt_info o;
				int ret = fdt_parse(b.b, b.len, &o);
				r.what = ret == -1 ? RES_REJECT
				       : ret != 0  ? RES_BADRET
				       : out_sane(&o) ? RES_OK : RES_INSANE;
				if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
					_exit(3);
				free(b.b);
			}
			_exit(0);
		}
		close(pfd[1]);
		struct rec r;
		long started = -1;
		unsigned resume = n;
		while (read(pfd[0], &r, sizeof(r)) == sizeof(r)) {
			if (r.what == 0xffffffffu) {
				started = r.idx;
				continue;
			}
			started = -1;
			resume = r.idx + 1;
			if (r.what == RES_OK)
				res->ok++;
			else if (r.what == RES_REJECT)
				res->reject++;
			else if (r.what == RES_BADRET)
				res->badret++;
			else
				res->insane++;
		}
		close(pfd[0]);
		int st = 0;
		waitpid(pid, &st, 0);
		if (started >= 0) {
			/* The child died inside fdt_parse(case started). */
			if (res->crashes < ARRAY_SIZE(res->crash_idx))
				res->crash_idx[res->crashes] = (unsigned)started;
			res->crashes++;
			next = (unsigned)started + 1;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			/* Died outside fdt_parse: a bug in this test. */
			fprintf(stderr, "fuzz child died outside fdt_parse\n");
			abort();
		} else {
			next = resume;
		}
	}
}

/* Fail the test if any input made fdt_parse read out of bounds. Returns
 * true if the test must fail. */
static bool overread_failure(struct htest_ctx *htest_ctx_, const char *test,
		      const struct fuzz_res *res, unsigned n, const char *what)
{
	(void)test;
	if (!res->crashes)
		return false;
	char idx[128] = "";
	size_t k = 0;
	for (unsigned i = 0; i < res->crashes && i < ARRAY_SIZE(res->crash_idx);
	     i++)
		k += (size_t)snprintf(idx + k, sizeof(idx) - k, "%s%u",
				      i ? "," : "", res->crash_idx[i]);
	snprintf(htest_ctx_->msg, HTEST_MSG_LEN,
		 "fdt_parse read out of bounds on %u of %u inputs (cases %s%s): %s",
		 res->crashes, n, idx,
		 res->crashes > ARRAY_SIZE(res->crash_idx) ? ",..." : "", what);
	htest_ctx_->failed = 1;
	return true;
}

/* ---- deterministic random numbers ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static uint32_t rng_next(struct rng *r)
{
	r->s = mix64(r->s);
	return (uint32_t)(r->s >> 32);
}

/* ---- fuzzing ---- */

static struct blob packed[NVIRT_TREES];

static bool load_packed(void)
{
	for (unsigned i = 0; i < NVIRT_TREES; i++) {
		if (packed[i].b)
			continue;
		packed[i] = load_packed_tree(i);
		if (!packed[i].b)
			return false;
	}
	return true;
}

/* 1..4 random byte flips, or a whole word replaced by an interesting
 * value, inside the structure block of a packed QEMU tree. */
static struct blob gen_struct_mutation(unsigned i, const void *ctx)
{
	(void)ctx;
	static const uint32_t words[] = {0, 0xffffffffu, TOK_BEGIN,
					 TOK_END_NODE, TOK_PROP, TOK_NOP,
					 TOK_END, 0x7fffffffu, 0x100, 3, 4};
	struct rng r = {0xF00D0000ull + i};
	const struct blob *t = &packed[i % NVIRT_TREES];
	struct blob b = dup_blob(t->b, t->len);
	uint32_t off = rd32(b.b + HDR_OFF_STRUCT);
	uint32_t size = rd32(b.b + HDR_SIZE_STRUCT);
	unsigned nflip = 1 + rng_next(&r) % 4;
	for (unsigned k = 0; k < nflip; k++) {
		uint32_t pos = off + rng_next(&r) % size;
		uint32_t v = rng_next(&r);
		if (v % 4 == 0) {
			pos &= ~3u;
			wr32(b.b + pos, words[(v >> 8) % ARRAY_SIZE(words)] ^
						((v >> 16) % 2 ? 0 : (v >> 20)));
		} else {
			b.b[pos] ^= (uint8_t)(1 + (v >> 8) % 255);
		}
	}
	return b;
}

/* Run @n inputs from @gen: none may crash (read out of bounds), each
 * must return 0 or -1 with a sane result; @both: both outcomes occur. */
static void fuzz_check(struct htest_ctx *htest_ctx_, const char *label,
		       struct blob (*gen)(unsigned, const void *), bool both)
{
	enum { N = 1000 };
	struct fuzz_res res;
	fuzz_run(N, gen, NULL, &res);
	printf("# %s: %u parsed, %u rejected, %u crashed\n", label, res.ok,
	       res.reject, res.crashes);
	CHECK_EQ(res.badret, 0);
	CHECK_EQ(res.insane, 0);
	CHECK_EQ(res.ok + res.reject + res.crashes, N);
	if (both)
		CHECK(res.ok > 0 && res.reject > 0);
	overread_failure(htest_ctx_, label, &res, N,
			 "every offset and length must be checked against max");
}

HTEST(fuzz_struct_block_mutations)
{
	CHECK(load_packed());
	fuzz_check(htest_ctx_, "struct mutations", gen_struct_mutation, true);
}

/* Random header fields (after the magic) of a packed QEMU tree; half
 * the time totalsize is kept valid so the walk really starts. */
static struct blob gen_header_mutation(unsigned i, const void *ctx)
{
	(void)ctx;
	struct rng r = {0xBEEF0000ull + i};
	const struct blob *t = &packed[i % NVIRT_TREES];
	struct blob b = dup_blob(t->b, t->len);
	unsigned nflip = 1 + rng_next(&r) % 3;
	for (unsigned k = 0; k < nflip; k++) {
		uint32_t pos = 4 + rng_next(&r) % 36;
		b.b[pos] ^= (uint8_t)(1 + rng_next(&r) % 255);
	}
	if (rng_next(&r) % 2)
		wr32(b.b + HDR_TOTALSIZE, (uint32_t)b.len);
	return b;
}

HTEST(fuzz_header_mutations)
{
	CHECK(load_packed());
	fuzz_check(htest_ctx_, "header mutations", gen_header_mutation, false);
}

/* Random bytes; odd cases get a valid magic and totalsize <= max. */
static struct blob gen_random_bytes(unsigned i, const void *ctx)
{
	(void)ctx;
	struct rng r = {0x5EED0000ull + i};
	size_t len = rng_next(&r) % 4096;
	struct blob b = {malloc(len ? len : 1), len};
	for (size_t k = 0; k < len; k++)
		b.b[k] = (uint8_t)rng_next(&r);
	if (i % 2 && len >= 40) {
		wr32(b.b, FDT_MAGIC);
		wr32(b.b + HDR_TOTALSIZE, (uint32_t)(len - rng_next(&r) % 8));
		/* Keep the walk's start and the strings inside the buffer. */
		wr32(b.b + HDR_OFF_STRUCT, 40 + rng_next(&r) % (uint32_t)(len - 39));
		wr32(b.b + HDR_OFF_STRINGS, rng_next(&r) % (uint32_t)len);
	}
	return b;
}

/* Pure random bytes (even cases) never pass the magic check. */
HTEST(fuzz_random_bytes)
{
	fuzz_check(htest_ctx_, "random buffers", gen_random_bytes, false);
}

/* ---- one input per over-read, each a known bug class ---- */

static struct blob gen_one(unsigned i, const void *ctx)
{
	(void)i;
	const struct blob *b = ctx;
	return dup_blob(b->b, b->len);
}

/* Run @b (freed here) in a child. It must not crash; the result must be
 * 0 or -1 (@want_reject: -1). */
static void run_reproducer(struct htest_ctx *htest_ctx_, const char *test,
			   struct blob b, bool want_reject, const char *what)
{
	struct fuzz_res res;
	fuzz_run(1, gen_one, &b, &res);
	free(b.b);
	if (overread_failure(htest_ctx_, test, &res, 1, what))
		return;
	CHECK_EQ(res.badret + res.insane, 0);
	if (!res.crashes && want_reject)
		CHECK_EQ(res.reject, 1);
}

/* Offset of the first property named @name after the node @node. */
static uint32_t find_prop(const struct blob *t, const char *node,
			  const char *name)
{
	const uint8_t *b = t->b;
	const char *strs = (const char *)b + rd32(b + HDR_OFF_STRINGS);
	uint32_t p = rd32(b + HDR_OFF_STRUCT);
	uint32_t end = p + rd32(b + HDR_SIZE_STRUCT);
	bool in = node == NULL;
	while (p + 4 <= end) {
		uint32_t tok = rd32(b + p);
		if (tok == TOK_BEGIN) {
			const char *nm = (const char *)b + p + 4;
			if (node && !strncmp(nm, node, strlen(node)))
				in = true;
			p += 4 + ((uint32_t)strlen(nm) + 4) / 4 * 4;
		} else if (tok == TOK_PROP) {
			uint32_t len = rd32(b + p + 4);
			if (in && !strcmp(strs + rd32(b + p + 8), name))
				return p;
			p += 12 + (len + 3) / 4 * 4;
		} else if (tok == TOK_END) {
			break;
		} else {
			p += 4;
		}
	}
	return 0;
}

HTEST(overread_prop_nameoff)
{
	CHECK(load_packed());
	/* The strings block ends the packed buffer: nameoff = its size
	 * names the byte just past max. */
	struct blob b = dup_blob(packed[1].b, packed[1].len);
	uint32_t p = find_prop(&b, "memory", "reg");
	CHECK(p != 0);
	wr32(b.b + p + 8, rd32(b.b + HDR_SIZE_STRINGS));
	CHECK_EQ(rd32(b.b + HDR_OFF_STRINGS) + rd32(b.b + HDR_SIZE_STRINGS),
		 b.len);
	run_reproducer(htest_ctx_, "overread_prop_nameoff", b, false,
		       "a property name offset must lie inside the strings block");
}

HTEST(overread_header_strings_offset)
{
	CHECK(load_packed());
	struct blob b = dup_blob(packed[0].b, packed[0].len);
	wr32(b.b + HDR_OFF_STRINGS, (uint32_t)b.len);
	run_reproducer(htest_ctx_, "overread_header_strings_offset", b, false,
		       "the header offsets must lie inside totalsize and max");
}

HTEST(overread_prop_value_length)
{
	/* bootargs claims 200 bytes but the tree ends 4 bytes later
	 * (strings before struct, so the struct block ends the buffer). */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_begin(&fb, "chosen");
	fb_str(&fb, "bootargs", "abc");
	struct blob b = fb_finish(&fb, true);
	uint32_t p = find_prop(&b, "chosen", "bootargs");
	CHECK(p != 0);
	CHECK_EQ(p + 16, b.len);
	wr32(b.b + p + 4, 200);
	run_reproducer(htest_ctx_, "overread_prop_value_length", b, false,
		       "a property length must not run past the structure block");
}

HTEST(overread_prop_header)
{
	/* The buffer ends right after an FDT_PROP token: its len and
	 * nameoff words lie past max. */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_u32(&fb, TOK_PROP);
	struct blob b = fb_finish(&fb, true);
	run_reproducer(htest_ctx_, "overread_prop_header", b, false,
		       "a property header must fit before the end of the block");
}

HTEST(overread_cpu_address_cells)
{
	/* /cpus #address-cells = 0x40000001: 4 * cells wraps to 4, so a
	 * 4-byte reg passes the length check and be_cells() reads 4 GiB. */
	memset(&fb, 0, sizeof(fb));
	fb_root_memory(&fb, 0x40000000, 0x1000000);
	fb_begin(&fb, "cpus");
	fb_cells(&fb, "#address-cells", 1, 0x40000001u);
	fb_begin(&fb, "cpu@0");
	fb_cells(&fb, "reg", 1, 0u);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	struct blob b = fb_finish(&fb, false);
	run_reproducer(htest_ctx_, "overread_cpu_address_cells", b, false,
		       "/cpus #address-cells must be 1 or 2");
}

HTEST(overread_node_name)
{
	/* The buffer ends inside a node name "memory" with no NUL:
	 * fdt_begin()'s name_is() reads the byte past max. */
	memset(&fb, 0, sizeof(fb));
	fb_begin(&fb, "");
	fb_u32(&fb, TOK_BEGIN);
	memcpy(fb.st + fb.stlen, "memory", 6);
	fb.stlen += 6;
	struct blob b = fb_finish(&fb, true);
	run_reproducer(htest_ctx_, "overread_node_name", b, true,
		       "a node name must be terminated inside the block");
}
