/*
 * Console output. kprintf formats a whole line into a local buffer and
 * writes it under the console lock, so lines from different cores never
 * interleave. Supports %d %i %u %x %X %p %s %c %% with l/ll/z, a width,
 * and the '0' and '-' flags (strings always pad on the right).
 */
#include "kernel.h"
#include "spinlock.h"

static spinlock_t console_lock = SPINLOCK_INIT;
bool console_panicking;

struct out {
	char *buf;
	size_t n, len;
};

static void out_c(struct out *o, char c)
{
	if (o->len + 1 < o->n)
		o->buf[o->len] = c;
	o->len++;
}

/* Pad to @width with @pad on the left, or with spaces on the right when
 * @width is negative (the '-' flag). */
static void out_num(struct out *o, uint64_t v, unsigned base, bool neg,
		    int width, char pad, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int i = 0;
	do {
		tmp[i++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[i++] = '-';
	int len = i;
	for (int w = len; w < width; w++)
		out_c(o, pad);
	while (i)
		out_c(o, tmp[--i]);
	for (int w = len; w < -width; w++)
		out_c(o, ' ');
}

/** Fetch an integer argument of length @lng (0 int, 1 long, 2 long long). */
#define ARG_U(ap, lng) \
	((lng) ? va_arg(ap, uint64_t) : (uint64_t)va_arg(ap, unsigned))
#define ARG_S(ap, lng) \
	((lng) ? va_arg(ap, int64_t) : (int64_t)va_arg(ap, int))

struct spec {
	char pad;  /* '0' or ' ' */
	int width; /* negative: pad on the right ('-' flag) */
	int lng;   /* count of l/z modifiers */
	char conv;
};

/** Parse the conversion after a '%'; returns the pointer to its letter. */
static const char *spec_parse(const char *fmt, struct spec *sp)
{
	*sp = (struct spec){.pad = ' '};
	bool left = *fmt == '-';
	if (left)
		fmt++;
	else if (*fmt == '0')
		sp->pad = '0';
	while (*fmt >= '0' && *fmt <= '9')
		sp->width = sp->width * 10 + (*fmt++ - '0');
	if (left)
		sp->width = -sp->width;
	while (*fmt == 'l' || *fmt == 'z') {
		sp->lng++;
		fmt++;
	}
	sp->conv = *fmt;
	return fmt;
}

static void out_str(struct out *o, const char *s, int width)
{
	int len = 0;
	for (const char *q = s ? s : "(null)"; *q; q++, len++)
		out_c(o, *q);
	for (; len < (width < 0 ? -width : width); len++)
		out_c(o, ' ');
}

/** Emit one conversion, consuming its argument from @ap. */
static void out_conv(struct out *o, const struct spec *sp, va_list *ap)
{
	switch (sp->conv) {
	case 'd':
	case 'i': {
		int64_t v = ARG_S(*ap, sp->lng);
		out_num(o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, v < 0,
			sp->width, sp->pad, false);
		break;
	}
	case 'u':
		out_num(o, ARG_U(*ap, sp->lng), 10, false, sp->width, sp->pad,
			false);
		break;
	case 'x':
	case 'X':
		out_num(o, ARG_U(*ap, sp->lng), 16, false, sp->width, sp->pad,
			sp->conv == 'X');
		break;
	case 'p':
		out_c(o, '0');
		out_c(o, 'x');
		out_num(o, (uint64_t)va_arg(*ap, void *), 16, false, 0, ' ',
			false);
		break;
	case 's':
		out_str(o, va_arg(*ap, const char *), sp->width);
		break;
	case 'c':
		out_c(o, (char)va_arg(*ap, int));
		break;
	case '%':
		out_c(o, '%');
		break;
	default:
		out_c(o, '?');
	}
}

int kvsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct out o = {buf, n, 0};
	va_list args;
	va_copy(args, ap);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			out_c(&o, *fmt);
			continue;
		}
		struct spec sp;
		fmt = spec_parse(fmt + 1, &sp);
		if (!*fmt)
			break;
		out_conv(&o, &sp, &args);
	}
	va_end(args);
	if (n)
		buf[o.len < n ? o.len : n - 1] = 0;
	return (int)o.len;
}

int ksnprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = kvsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return len;
}

/** Write @s under the console lock (bypassed once panicking). */
void console_write(const char *s)
{
	uint64_t flags = arch_irq_save();
	if (!console_panicking)
		spin_lock_raw(&console_lock);
	for (; *s; s++) {
		if (*s == '\n')
			arch_console_putc('\r');
		arch_console_putc(*s);
	}
	if (!console_panicking)
		spin_unlock_raw(&console_lock);
	arch_irq_restore(flags);
}

int kprintf(const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	int len = kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write(buf);
	return len;
}
