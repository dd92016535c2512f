/* The few C library routines the freestanding kernel (and gcc) needs. */
#include "types.h"

/* Word-wise when both ends are 8-byte aligned: page zeroing and IPC
 * buffer copies are on hot paths, and so are the small records system
 * calls copy in and out (a 16-byte move is two words, not 16 bytes).
 * may_alias keeps the word accesses legal for any object type. */
typedef uint64_t __attribute__((may_alias)) word_t;

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	if (((uintptr_t)p & 7) == 0 && n >= 8) {
		uint64_t w = (unsigned char)c * 0x0101010101010101ull;
		for (; n >= 32; n -= 32, p += 32) {
			((word_t *)p)[0] = w;
			((word_t *)p)[1] = w;
			((word_t *)p)[2] = w;
			((word_t *)p)[3] = w;
		}
		if (!n) /* pages and page tables: no tail to test */
			return d;
		for (; n >= 8; n -= 8, p += 8)
			*(word_t *)p = w;
	}
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	if ((((uintptr_t)p | (uintptr_t)q) & 7) == 0) {
		for (; n >= 32; n -= 32, p += 32, q += 32) {
			word_t a = ((const word_t *)q)[0];
			word_t b = ((const word_t *)q)[1];
			word_t c = ((const word_t *)q)[2];
			word_t e = ((const word_t *)q)[3];
			((word_t *)p)[0] = a;
			((word_t *)p)[1] = b;
			((word_t *)p)[2] = c;
			((word_t *)p)[3] = e;
		}
		if (!n) /* IPC messages and pages: no tail to test */
			return d;
		for (; n >= 8; n -= 8, p += 8, q += 8)
			*(word_t *)p = *(const word_t *)q;
	}
	while (n--)
		*p++ = *q++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	if (p < q || p >= q + n)
		return memcpy(d, s, n);
	while (n--)
		p[n] = q[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}
