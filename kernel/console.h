#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H
/** The interactive kernel console (never returns). */
void console_run(void) __attribute__((noreturn));
void console_write(const char *s);
#endif
