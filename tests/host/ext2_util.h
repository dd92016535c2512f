/* Helpers of the ext2 host tests (ext2_util.c). */
#ifndef EXT2_UTIL_H
#define EXT2_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../user/servers/fs/ext2.h"
#include "../../user/servers/fs/ext2_int.h" /* ext2_iget */

#define DIR_ "build/host/ext2"
#define PATHS "PATH=$PATH:/usr/sbin:/sbin "
#define BIG_SIZE (4u * 1024 * 1024 + 300 * 1024) /* past double indirect */

/* The symlinks of make_link_image: "t" reads as block 0x74 if taken
 * for a block number, inside the inode table of a 16 MiB image. */
#define FAST_TARGET "t"
#define SLOW_TARGET                                                        \
	"sub/deep/../../sub/deep/../../sub/deep/../../sub/deep/../../small.txt"

#define TEST_GROUPS 256u /* group table of a test's mount */

/* The devices: the image file img_fd; that file failing (dev_failing:
 * writes while write_fails is set and the fail_n ones numbered from
 * fail_write on, counted in dev_writes; reads while read_fails is set);
 * that file
 * with a get callback that poisons the block it gave before; and the
 * image in memory, ram (ram_n bytes), failing as dev_failing does. */
extern int img_fd;
extern bool write_fails, read_fails;
extern unsigned long fail_write, fail_n, dev_writes;
extern const struct ext2_dev dev, dev_failing, dev_with_get, dev_ram;
extern const struct ext2_dev *devp; /* open_image mounts through it */
extern uint8_t *ram;
extern size_t ram_n;
extern struct ext2_fs fs; /* the mounted image */
extern unsigned img_bs;      /* block size of the images made next */
extern const char *mkfs_opts; /* more options of their mke2fs */

/* A test run on images of several block sizes (img_bs): NAME on 4 KiB
 * blocks, then NAME_2k and NAME_1k (BS_TESTS) or NAME_1k only
 * (BS_TESTS_1K). A 64 MiB image of 1 KiB blocks has 8 groups, a 16
 * MiB one 2. */
#define BS_TEST_(name, suffix, bs)                                       \
	HTEST(name##suffix)                                              \
	{                                                                \
		img_bs = bs;                                             \
		name##_body(htest_ctx_);                                 \
		img_bs = 4096;                                           \
	}
#define BS_TESTS_1K(name)                                               \
	static void name##_body(struct htest_ctx *htest_ctx_);           \
	BS_TEST_(name, , 4096)                                           \
	BS_TEST_(name, _1k, 1024)                                        \
	static void name##_body(struct htest_ctx *htest_ctx_)
#define BS_TESTS(name)                                                  \
	static void name##_body(struct htest_ctx *htest_ctx_);           \
	BS_TEST_(name, , 4096)                                           \
	BS_TEST_(name, _2k, 2048)                                        \
	BS_TEST_(name, _1k, 1024)                                        \
	static void name##_body(struct htest_ctx *htest_ctx_)

uint8_t pat(unsigned seed, size_t i);
void fill(uint8_t *b, size_t n, unsigned seed, size_t from);
int sh(const char *cmd);
void write_tree(void);
int mkfs_tree(const char *img, unsigned mb);
int make_image(const char *img, unsigned mb);
int make_link_image(const char *img, unsigned mb);
int mount_fs(struct ext2_fs *f, const struct ext2_dev *d);
int open_image(const char *img);
int fsck(const char *img);
bool file_is(uint32_t ino, size_t n, unsigned seed);
bool tree_intact(void);
int close_fsck(const char *img);
unsigned entry_type(uint32_t dir, const char *name);
const char *long_name(unsigned i);
unsigned long_per_block(void);
int fill_dir(uint32_t d, unsigned blocks);
int fill_disk(uint32_t dir, uint32_t left);
uint8_t *slurp(const char *img, size_t *n);
bool same_bytes(const uint8_t *now, const uint8_t *was, size_t n);
bool same_image(const char *img, const uint8_t *was, size_t was_n);
bool snapshot(const char *img, uint8_t **snap, size_t *n);
int ram_fsck(const char *img);

#endif
