/*
 * The POSIX layer of libfulcrum (issue 13 item 7): files through F, the
 * file server (<fulcrum/fs.h>), and processes started from boot modules.
 * The POSIX functions themselves (open, read, stat, opendir, posix_spawn,
 * waitpid, clock_gettime, ...) have their standard prototypes in
 * picolibc's headers; this header adds what is Fulcrum's own.
 *
 * Where a program finds F: its endpoint (WRITE) in slot FUL_SLOT_FS,
 * the slot system programs have it in (FUL_SYSPROG_SLOT_FS) and the one
 * ful_proc_spawn() fills in a child. Without it, every file call fails
 * with ENOSYS... except on the console descriptors 0, 1 and 2.
 *
 * File descriptors live in the process (FUL_OPEN_MAX of them, EMFILE
 * past that): F keeps no per-client state, so a client that dies leaves
 * nothing behind in the servers. Calls from several threads are safe.
 */
#ifndef FUL_POSIX_H
#define FUL_POSIX_H

#include <stddef.h>
#include <fulcrum/fs.h>
#include <ful/ful.h>
#include <ful/spawn.h>

#define FUL_SLOT_FS FUL_SYSPROG_SLOT_FS
#define FUL_OPEN_MAX 32
#define FUL_PATH_MAX FUL_IPCBUF_SIZE

/* The argument page of a process started by ful_proc_spawn(): mapped
 * read-only at FUL_PROC_ARGS_VADDR, its address passed in x1 (ful_arg1),
 * argc in x0. */
#define FUL_PROC_ARGS_VADDR 0x3f000000UL
#define FUL_PROC_ARGS_MAGIC 0x50524f43u /* "PROC" */
#define FUL_PROC_ARGV_MAX 32

struct ful_proc_args {
	unsigned int magic, argc;
	unsigned int fs_ring; /* 1: a ring to F at FUL_FSR_CLIENT_VADDR */
	unsigned int fs_spin; /* the parent's ful_fs_set_spin(), inherited */
	char cwd[256];               /* its starting directory */
	char *argv[FUL_PROC_ARGV_MAX + 1];
	char strings[];              /* argv's bytes, up to the page end */
};

/* The exit message of such a process: a send with this label on its
 * FUL_CHILD_SLOT_REPORT, mr0 the status given to exit(). */
#define FUL_PROC_EXIT 0x70e1

/* A child process as its parent holds it. */
struct ful_proc {
	struct ful_task task;
	unsigned args_frame; /* the argument page (caller's frame cap) */
	int pid;
	int ring;            /* its ring to F, -1 if none */
	unsigned pool;       /* its pool (attr->pool_kib), 0 if none */
};

struct ful_proc_attr {
	unsigned cpu;  /* core of its first thread */
	unsigned prio; /* 0: FUL_PROC_PRIO */
	bool fs_ipc;   /* talk to F over IPC, not through a ring */
	unsigned pool_kib; /* a pool of this budget for the child's own
			    * objects (threads: FUL_SLOT_POOL), and its
			    * vspace (FUL_SLOT_SELF_VS); 0: neither */
	unsigned place; /* slot of the placement capability the child gets
			 * in FUL_SLOT_PLACE (<fulcrum/balctl.h>); 0: our
			 * own FUL_SLOT_PLACE, if we hold one */
};
#define FUL_PROC_PRIO 80 /* clients: below F and B (paper 002) */
/* The pool posix_spawn() and the shell's `run` give a child, so that it
 * may create threads (the workloads of user/workloads do). */
#define FUL_PROC_POOL_KIB 256

/** Start boot module @module as a process with arguments @argv
 *  (argv[0] its name, NULL-terminated) and this process's working
 *  directory; F's endpoint goes with it if this process has one, and a
 *  placement capability (attr->place, else our own) if there is one.
 *  Needs the module's frame, a pool and ADMIN on the own vspace (a
 *  system program). 0, or -FUL_E* with nothing left behind. */
int ful_proc_spawn(const char *module, char *const argv[],
		   const struct ful_proc_attr *attr, struct ful_proc *p);

/** Wait up to @timeout_us for @p to end: 0 and *@status as waitpid()
 *  encodes it (exited: WEXITSTATUS; killed by a fault: WTERMSIG 11),
 *  then the process is gone; or -FUL_ETIMEOUT (it keeps running). */
int ful_proc_wait(struct ful_proc *p, int *status, unsigned long timeout_us);

/** Kill @p (its first thread, and with a pool every thread) and tear
 *  it down as ful_proc_wait() does after an end: 0 or -FUL_E*. */
int ful_proc_kill(struct ful_proc *p);

/* Requests to F (fs_client.c): between ful_fs_begin() and ful_fs_end()
 * the caller owns the transport's data buffer (the ring's data area, or
 * the IPC buffer: its size in *@cap), puts a request's bytes at its
 * start, calls, and finds the reply's bytes there. */
unsigned char *ful_fs_begin(size_t *cap);
void ful_fs_end(void);
/** A request to F with @len bytes of the buffer, the reply in *@m (its
 *  bytes: FUL_MSG_LEN(m->info)). mr0 (>= 0 or -errno), or -EIO if F
 *  cannot be reached, -ENOSYS if the program has no F. */
long ful_fs_call(unsigned op, struct ful_msg *m, size_t len);
/** Use the ring mapped at @va, with notification @ntfn (READ) and F's
 *  doorbell @bell (WRITE), its page window mapped at @omf (NULL: none). */
void ful_fs_use_ring(void *va, unsigned ntfn, unsigned bell, void *omf);
/** Poll the ring up to @polls times for a reply before sleeping (0, the
 *  default: sleep at once; worth it only when F polls too, boot argument
 *  fs_spin=N, and the two run on different cores). */
void ful_fs_set_spin(unsigned polls);
/** The current setting (a child started by ful_proc_spawn inherits it). */
unsigned ful_fs_get_spin(void);
/** Requests this process sent through its ring so far, and the
 *  doorbell signals among them (0, 0 without a ring). */
void ful_fs_ring_stats(unsigned long *requests, unsigned long *signals);
/** Was this process started by ful_proc_spawn() (start.c)? */
bool ful_proc_is_child(void);

/* OMF, the On-Memory File (user/lib/omf.c): a file's first @room bytes
 * (up to FUL_FSR_OMF) as memory at @base: B's cache lines themselves,
 * with no server and no copy on the path of a read or a write. Write
 * through @base (a file opened for writing), mark what was written with
 * ful_omf_dirty(), change the size with ful_omf_resize() (within @room,
 * for a file that fits in it), and ful_omf_sync() has B write it back
 * at the next fsync. Others see the writes at once. While mapped, the
 * file cannot be cut, unlinked or replaced (EBUSY). Needs a ring to F;
 * one mapping per process. Each returns 0, or -1 with errno. */
struct ful_omf {
	unsigned char *base;
	size_t size;          /* the file's size, as the client sets it */
	size_t room;          /* mapped bytes (the file may be larger) */
	unsigned long dirty;  /* bit p: page p written since the last sync */
	bool writable;
};
int ful_omf_map(int fd, size_t max, struct ful_omf *o);
void ful_omf_dirty(struct ful_omf *o, size_t off, size_t len);
int ful_omf_resize(struct ful_omf *o, size_t size);
int ful_omf_sync(struct ful_omf *o);
int ful_omf_unmap(struct ful_omf *o); /* syncs first if dirty */
/** The OMF window of this process's ring (fs_client.c), or NULL. */
unsigned char *ful_fs_omf_window(void);

/* Where a process's ring is mapped, and (for a child) the slots of its
 * notification and F's doorbell. */
#define FUL_FSR_CLIENT_VADDR 0x3d000000UL
#define FUL_FSR_CLIENT_OMF_VADDR 0x3d100000UL /* the ring's page window */
#define FUL_PROC_SLOT_FSR_NTFN 5
#define FUL_PROC_SLOT_FSR_BELL 6

/** The absolute form of @path (relative to the working directory) in
 *  @out: its length, or -ENAMETOOLONG / -ENOENT (empty). */
long ful_path_abs(const char *path, char out[FUL_PATH_MAX + 1]);

/** The working directory at start-up (crt: from the argument page). */
void ful_posix_init(const struct ful_proc_args *args);

#endif
