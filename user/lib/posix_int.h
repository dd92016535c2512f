/* The POSIX layer's internals, shared between user/lib/posix_*.c. */
#ifndef FUL_POSIX_INT_H
#define FUL_POSIX_INT_H

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include <ful/posix.h>

/** Set errno to -@err and return -1 (the POSIX failure convention). */
static inline int px_fail(int err)
{
	errno = -err;
	return -1;
}

int px_lookup(const char *path, struct ful_fs_stat *st);
int px_parent(const char *path, char buf[FUL_PATH_MAX + 1], uint32_t *dir,
	      const char **name, size_t *len);
long px_name_op(unsigned op, uint32_t dir, const char *name, size_t len,
		uint32_t *ino);
void px_stat_fill(struct stat *out, const struct ful_fs_stat *st);
void px_path_clean(char *path);
long px_simple(unsigned op, unsigned long a, unsigned long b);

/* Rings to F from the rootserver (fs_client.c; system programs only). */
/** Ask for a ring: its number, with its frame, notification (READ), F's
 *  doorbell (WRITE) and page window (READ|WRITE) in this process's
 *  slots @s; or -1, @s empty. */
#define FS_RING_CAPS 4
int fs_ring_request(long s[FS_RING_CAPS]);
/** Drop this process's copies of a ring's capabilities (@s set to -1). */
void fs_ring_slots_drop(long s[FS_RING_CAPS]);
/** Tell the rootserver ring @k's user is gone (nothing if @k < 0). */
void fs_ring_free(int k);

/* An open file (posix_fd.c). */
enum px_kind { PX_FREE, PX_CONS_IN, PX_CONS_OUT, PX_FILE, PX_DIR };

struct px_file {
	enum px_kind kind;
	int flags;     /* O_ACCMODE | O_APPEND of open() */
	uint32_t ino;
	uint64_t off;
};

/** The open file of @fd, its table locked (px_put() unlocks), or NULL
 *  with errno EBADF. */
struct px_file *px_get(int fd);
void px_put(void);
/** A free descriptor for @f: its number, or -EMFILE. */
int px_install(const struct px_file *f);

#endif
