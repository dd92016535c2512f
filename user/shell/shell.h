/* shell internals: main.c (input, line editing), cmds.c (commands),
 * bal.c (balancer commands). */
#ifndef SHELL_SHELL_H
#define SHELL_SHELL_H

/** Run one command line (possibly empty). */
void sh_command(const char *line);
/** Call the rootserver's service endpoint with request @label
 *  (<fulcrum/rootsrv.h>): its answer, or the call's -FUL_E*. */
long sh_root_call(unsigned long label);

/* bal.c: the balancer commands (<fulcrum/balctl.h>). */
void sh_policy(const char *args);
void sh_set(const char *args);
void sh_get(void);

/* files.c: the file commands, as a client of F (<fulcrum/fs.h>). */
void sh_ls(const char *args);
void sh_cat(const char *args);
void sh_df(void);
void sh_run(const char *args);
void sh_place(const char *args);
void sh_top(const char *args);
void sh_ps(void);
void sh_trace(const char *args);
void sh_explain(const char *args);
/** The balancer policy's score of each of @n threads @tids into @out
 *  (FUL_BAL_NOSCORE: none; FUL_BAL_SCORES, <fulcrum/balctl.h>): how many
 *  it scored, or the call's error (< 0). */
long sh_bal_scores(const unsigned *tids, int *out, unsigned n);
/** The first key pressed within @timeout_us (what else was typed is
 *  dropped), or 0 if none was. */
int sh_key(unsigned long timeout_us);

#endif
