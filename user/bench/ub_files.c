/*
 * ubench=files (boot arguments `ubench=files,disk,cache=N,fs[,form=K]`,
 * an ext2 image with /big.bin attached: tests/harness/ext2_image.py):
 * F, the file server, from a client's side (issue 13's bounds).
 *
 *   fs_read_4k_ring   pread() of 4 KiB of a cached file through the
 *                     POSIX layer and the client's ring to F (F's ext2
 *                     code, B's cached block, the copy into the caller's
 *                     buffer): instructions, from the call to the data
 *                     in the buffer. With form=1 all on core 0.
 *   fs_read_4k_ipc    the same 4 KiB over IPC: eight 512-byte READ
 *                     calls, each copied out of the IPC buffer.
 *   fsring_rtt_over_ipc_mttcg  (multi-threaded TCG, F on another core,
 *                     form=4, fs_spin=200): time of FR_CALLS null
 *                     requests (INFO; FR_QUICK_CALLS under bench_quick)
 *                     through the ring, F's ring thread
 *                     and the client awake (polling),
 *                     over the same number of IPC calls to F's other
 *                     thread, in percent; FR_REPEATS pairs in one boot.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fulcrum/fs.h>
#include <ful/posix.h>

#include "tests/user/tests/utest.h"
#include "ub.h"

#define FR_RUNS 20
#define FR_WARMUP 3
#define FR_CALLS 2000
#define FR_QUICK_CALLS 100 /* under bench_quick */
#define FR_REPEATS 5

static unsigned char fr_buf[4096];

/** fs_read_4k_ring: pread of 4 KiB at offset 0 of /big.bin. */
static unsigned fr_read_ring(void)
{
	static unsigned long s[FR_RUNS];
	int fd = open("/big.bin", O_RDONLY);
	if (fd < 0) {
		printf("ubench: files: no /big.bin\n");
		return 0;
	}
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -FR_WARMUP; i < FR_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		ssize_t r = pread(fd, fr_buf, sizeof fr_buf, 0);
		unsigned long t1 = ful_cycles();
		if (r != (ssize_t)sizeof fr_buf) {
			printf("ubench: files: pread %zd\n", r);
			return 0;
		}
		if (i >= 0)
			s[i] = t1 - t0 - ovh;
	}
	close(fd);
	ful_bench_print("fs_read_4k_ring", "instructions", s, FR_RUNS);
	return 1;
}

/** The inode of @path over IPC, or 0. */
static unsigned long fr_ino(const char *path)
{
	struct ful_msg m = {.info = FUL_MSG(FUL_FS_OP_LOOKUP, strlen(path))};
	memcpy(ful_ipcbuf(), path, strlen(path));
	long err = ful_call(FUL_SLOT_FS, &m, FUL_FOREVER);
	return err < 0 || (long)m.mr[0] < 0 ? 0 : m.mr[1];
}

/** fs_read_4k_ipc: the same 4 KiB in eight IPC calls. */
static unsigned fr_read_ipc(void)
{
	static unsigned long s[FR_RUNS];
	unsigned long ino = fr_ino("/big.bin");
	if (!ino)
		return 0;
	unsigned long ovh = ful_cycles_overhead();
	for (int i = -FR_WARMUP; i < FR_RUNS; i++) {
		unsigned long t0 = ful_cycles();
		for (unsigned off = 0; off < sizeof fr_buf; off += FUL_IPCBUF_SIZE) {
			struct ful_msg m = {.info = FUL_MSG(FUL_FS_OP_READ, 0),
					    .mr = {ino, off, FUL_IPCBUF_SIZE}};
			if (ful_call(FUL_SLOT_FS, &m, FUL_FOREVER) < 0 ||
			    (long)m.mr[0] != FUL_IPCBUF_SIZE)
				return 0;
			memcpy(fr_buf + off, ful_ipcbuf(), FUL_IPCBUF_SIZE);
		}
		unsigned long t1 = ful_cycles();
		if (i >= 0)
			s[i] = t1 - t0 - ovh;
	}
	ful_bench_print("fs_read_4k_ipc", "instructions", s, FR_RUNS);
	return 1;
}

/** Counter ticks of @calls INFO requests, through the ring or IPC. */
static unsigned long fr_null_calls(bool ring, unsigned calls)
{
	unsigned long t0 = ful_counter();
	for (unsigned i = 0; i < calls; i++) {
		struct ful_msg m = {.info = FUL_MSG(FUL_FS_OP_INFO, 0)};
		long r;
		if (ring) {
			size_t cap;
			ful_fs_begin(&cap);
			r = ful_fs_call(FUL_FS_OP_INFO, &m, 0);
			ful_fs_end();
		} else {
			r = ful_call(FUL_SLOT_FS, &m, FUL_FOREVER);
		}
		if (r < 0)
			return 0;
	}
	return ful_counter() - t0;
}

/** fsring_rtt_over_ipc_mttcg: ring over IPC round trips, percent. */
static unsigned fr_rtt_mttcg(void)
{
	static unsigned long pct[FR_REPEATS];
	unsigned calls = ub_count(FR_CALLS, FR_QUICK_CALLS);
	for (unsigned i = 0; i < FR_REPEATS; i++) {
		unsigned long r0, s0, r1, s1;
		ful_fs_ring_stats(&r0, &s0);
		unsigned long ring = fr_null_calls(true, calls);
		ful_fs_ring_stats(&r1, &s1);
		unsigned long ipc = fr_null_calls(false, calls);
		if (!ring || !ipc)
			return 0;
		pct[i] = ring * 100 / ipc;
		printf("ubench: %u null requests to F: ring %lu ticks (%lu "
		       "doorbells), IPC %lu ticks\n", calls, ring, s1 - s0, ipc);
	}
	ful_bench_print("fsring_rtt_over_ipc_mttcg", "percent", pct, FR_REPEATS);
	return 1;
}

unsigned ub_files_run(bool mttcg)
{
	unsigned long req, sig;
	struct stat st;
	if (stat("/", &st)) { /* also sets up the ring */
		printf("ubench: files: no file server (boot arguments "
		       "disk,cache=N,fs and an ext2 disk)\n");
		return 0;
	}
	ful_fs_ring_stats(&req, &sig);
	if (!req) {
		printf("ubench: files: no ring to F\n");
		return 0;
	}
	if (mttcg) {
		ful_fs_set_spin(256); /* F polls too: boot argument fs_spin */
		return fr_rtt_mttcg();
	}
	return fr_read_ring() + fr_read_ipc();
}
