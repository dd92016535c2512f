/* Boot-argument lookup (portable, no library calls): shared by the kernel
 * and the rootserver, which reads the same string from its bootinfo. */
#ifndef KERNEL_ARGS_H
#define KERNEL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/** The value of "key=value" in @args (entries separated by spaces or
 *  commas), copied to @out (@n > 0 bytes, truncated, NUL-terminated); a
 *  bare "key" yields "". Returns false if the key is absent. */
bool args_find(const char *args, const char *key, char *out, size_t n);

#endif
