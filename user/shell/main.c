/*
 * shell: the user-level shell on the console. Started by the rootserver
 * (root_shell_serve, user/rootserver/serve.c) as a system program with only what it
 * uses: console input (READ|ADMIN), the scheduling control (migrate),
 * the load area (read-only: cpus, threads), a pool for its one
 * notification, and the rootserver's service endpoint (demo, off).
 *
 * Input: the kernel signals the shell's notification when console bytes
 * arrive (FUL_SYS_CONS_BIND); the shell waits on it, then reads what is
 * buffered (FUL_SYS_CONS_READ) and edits a line: echo, backspace.
 */
#include <stdio.h>
#include <string.h>

#include <fulcrum/rootsrv.h>
#include <ful/ful.h>

#include "shell.h"

#define SH_LINE 80

static unsigned sh_ntfn;
static char sh_in[64];
static unsigned sh_in_len, sh_in_pos;

/** The next console byte, waiting on the notification while none is
 *  buffered; -1 if the console cannot be read. */
static int sh_getc(void)
{
	while (sh_in_pos == sh_in_len) {
		long n = ful_cons_read(FUL_SLOT_CONSOLE, sh_ntfn, sh_in,
				       sizeof(sh_in));
		if (n < 0)
			return -1;
		sh_in_pos = 0;
		sh_in_len = (unsigned)n;
		if (n == 0 && ful_ntfn_wait(sh_ntfn, NULL, FUL_FOREVER) < 0)
			return -1;
	}
	return (unsigned char)sh_in[sh_in_pos++];
}

int sh_key(unsigned long timeout_us)
{
	if (sh_in_pos < sh_in_len) {
		int c = (unsigned char)sh_in[sh_in_pos];
		sh_in_pos = sh_in_len; /* the rest of what was typed */
		return c;
	}
	long n = ful_cons_read(FUL_SLOT_CONSOLE, sh_ntfn, sh_in, sizeof(sh_in));
	if (n == 0 && ful_ntfn_wait(sh_ntfn, NULL, timeout_us) == 0)
		n = ful_cons_read(FUL_SLOT_CONSOLE, sh_ntfn, sh_in, sizeof(sh_in));
	sh_in_pos = sh_in_len = 0;
	return n > 0 ? (unsigned char)sh_in[0] : n < 0 ? '?' : 0;
}

/** Read one line into @buf (@n bytes) with echo and backspace; false if
 *  the console cannot be read. */
static bool sh_readline(char *buf, unsigned n)
{
	unsigned len = 0;
	for (;;) {
		int c = sh_getc();
		if (c < 0)
			return false;
		if (c == '\r' || c == '\n') {
			printf("\n");
			break;
		} else if ((c == 0x7f || c == 8) && len) {
			len--;
			printf("\b \b");
		} else if (c >= ' ' && c < 0x7f && len + 1 < n) {
			buf[len++] = (char)c;
			printf("%c", c);
		}
		fflush(stdout);
	}
	buf[len] = 0;
	return true;
}

long sh_root_call(unsigned long label)
{
	struct ful_msg m = {.info = FUL_MSG(label, 0)};
	long err = ful_call(FUL_SYSPROG_SLOT_DONE, &m, FUL_FOREVER);
	return err < 0 ? err : (long)m.mr[0];
}

/** Make the notification and bind console input to it; 0 or -FUL_E*. */
static long sh_bind(void)
{
	long slot = ful_slot_alloc();
	if (slot < 0)
		return slot;
	long err = ful_ntfn_create(FUL_SLOT_POOL, (unsigned)slot);
	if (!err)
		err = ful_cons_bind(FUL_SLOT_CONSOLE, (unsigned)slot, 1);
	sh_ntfn = (unsigned)slot;
	return err;
}

int main(void)
{
	ful_slot_init(ful_bootinfo()->first_free_slot);
	long err = sh_bind();
	if (err) {
		printf("shell: cannot read the console: error %ld\n", err);
		return 1;
	}
	printf("Fulcrum shell. 'help' lists commands; 'off' or Ctrl-A x quits.\n");
	for (;;) {
		char line[SH_LINE];
		printf("fulcrum$ ");
		fflush(stdout);
		if (!sh_readline(line, sizeof(line))) {
			printf("shell: console read failed\n");
			return 1;
		}
		sh_command(line);
	}
}
