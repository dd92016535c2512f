/*
 * <dirent.h>'s types for Fulcrum (picolibc's own <sys/dirent.h> says
 * the system has none): directories of F, read by libfulcrum's
 * opendir/readdir/closedir (user/lib/posix_dir.c).
 */
#ifndef FUL_SYS_DIRENT_H
#define FUL_SYS_DIRENT_H

#include <sys/types.h>

#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_REG 8

struct dirent {
	ino_t d_ino;
	unsigned char d_type;
	char d_name[256];
};

typedef struct ful_dir DIR;

#endif
