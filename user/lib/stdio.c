/*
 * stdin, stdout and stderr for picolibc's tiny stdio. Output goes to the
 * kernel console with FUL_SYS_DEBUG_WRITE, one line per call: each
 * thread collects characters in its own line buffer (TLS), so lines from
 * different threads never interleave and no lock is needed. stdout and
 * stderr share the buffer, which keeps one thread's output in order.
 * stdin reads nothing (EOF).
 */
#include <stdio.h>

#include <ful/ful.h>

#define LINE_MAX_ 160

static _Thread_local struct {
	unsigned len;
	char buf[LINE_MAX_];
} line;

/** Write the calling thread's buffered characters, if any. */
void ful_stdio_flush(void)
{
	if (line.len) {
		ful_debug_write(line.buf, line.len);
		line.len = 0;
	}
}

/** put() of the output streams: buffer @c, write out on '\n' or full. */
static int out_put(char c, FILE *f)
{
	(void)f;
	line.buf[line.len++] = c;
	if (c == '\n' || line.len == LINE_MAX_)
		ful_stdio_flush();
	return (unsigned char)c;
}

static int out_flush(FILE *f)
{
	(void)f;
	ful_stdio_flush();
	return 0;
}

static int in_get(FILE *f)
{
	(void)f;
	return EOF;
}

static FILE ful_stdout = FDEV_SETUP_STREAM(out_put, NULL, out_flush, _FDEV_SETUP_WRITE);
static FILE ful_stdin = FDEV_SETUP_STREAM(NULL, in_get, NULL, _FDEV_SETUP_READ);

FILE *const stdin = &ful_stdin;
FILE *const stdout = &ful_stdout;
FILE *const stderr = &ful_stdout;
