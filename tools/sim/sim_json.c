/*
 * The JSON reader (sim_json.h): recursive descent over the text, with
 * the position tracked as line and column for every value and error.
 * Nesting is bounded (JSON_DEPTH) so a hostile file cannot exhaust the
 * stack.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_json.h"

#define JSON_DEPTH 64

struct jp {
	const char *s;
	unsigned line, col;
	char *err;
	unsigned errlen;
	int failed;
};

static void jp_fail(struct jp *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	int k = snprintf(p->err, p->errlen, "%u:%u: ", p->line, p->col);
	va_list ap;
	va_start(ap, fmt);
	if (k >= 0 && (unsigned)k < p->errlen)
		vsnprintf(p->err + k, p->errlen - (unsigned)k, fmt, ap);
	va_end(ap);
}

static void jp_adv(struct jp *p)
{
	if (*p->s == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->s++;
}

static void jp_ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		jp_adv(p);
}

static void *jp_grow(void *a, unsigned n, size_t size)
{
	void *b = realloc(a, (n + 1) * size);
	if (!b) {
		fprintf(stderr, "fulsim: out of memory\n");
		exit(1);
	}
	return b;
}

/** A string starting at the opening quote; the result is malloc'd. */
static char *jp_string(struct jp *p)
{
	size_t n = 0, cap = 16;
	char *out = malloc(cap);
	jp_adv(p); /* the quote */
	for (;;) {
		char c = *p->s;
		if (!c || c == '\n') {
			jp_fail(p, "unterminated string");
			break;
		}
		if ((unsigned char)c < 0x20) {
			jp_fail(p, "control character in a string");
			break;
		}
		jp_adv(p);
		if (c == '"')
			break;
		if (c == '\\') {
			char e = *p->s;
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			const char *k = e ? strchr(from, e) : NULL;
			if (k) {
				c = to[k - from];
				jp_adv(p);
			} else if (e == 'u') {
				unsigned v = 0;
				jp_adv(p);
				for (int i = 0; i < 4; i++, jp_adv(p)) {
					char h = *p->s;
					int d = h >= '0' && h <= '9' ? h - '0'
						: h >= 'a' && h <= 'f' ? h - 'a' + 10
						: h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
					if (d < 0) {
						jp_fail(p, "bad \\u escape");
						break;
					}
					v = v * 16 + (unsigned)d;
				}
				c = v < 0x80 ? (char)v : '?';
			} else {
				jp_fail(p, "bad escape \\%c", e ? e : '0');
				break;
			}
		}
		if (n + 2 > cap)
			out = realloc(out, cap *= 2);
		out[n++] = c;
	}
	out[n] = '\0';
	return out;
}

static void jp_value(struct jp *p, struct jval *v, unsigned depth);

static void jp_array(struct jp *p, struct jval *v, unsigned depth)
{
	v->type = J_ARR;
	jp_adv(p);
	jp_ws(p);
	if (*p->s == ']') {
		jp_adv(p);
		return;
	}
	while (!p->failed) {
		v->items = jp_grow(v->items, v->n, sizeof(*v->items));
		memset(&v->items[v->n], 0, sizeof(*v->items));
		jp_value(p, &v->items[v->n++], depth + 1);
		jp_ws(p);
		if (*p->s == ',') {
			jp_adv(p);
		} else if (*p->s == ']') {
			jp_adv(p);
			return;
		} else {
			jp_fail(p, "expected ',' or ']' in an array");
		}
	}
}

static void jp_object(struct jp *p, struct jval *v, unsigned depth)
{
	v->type = J_OBJ;
	jp_adv(p);
	jp_ws(p);
	if (*p->s == '}') {
		jp_adv(p);
		return;
	}
	while (!p->failed) {
		jp_ws(p);
		if (*p->s != '"') {
			jp_fail(p, "expected a member name in quotes");
			return;
		}
		v->keys = jp_grow(v->keys, v->n, sizeof(*v->keys));
		v->items = jp_grow(v->items, v->n, sizeof(*v->items));
		memset(&v->items[v->n], 0, sizeof(*v->items));
		v->keys[v->n] = jp_string(p);
		struct jval *m = &v->items[v->n++];
		jp_ws(p);
		if (*p->s != ':') {
			jp_fail(p, "expected ':' after a member name");
			return;
		}
		jp_adv(p);
		jp_value(p, m, depth + 1);
		jp_ws(p);
		if (*p->s == ',') {
			jp_adv(p);
		} else if (*p->s == '}') {
			jp_adv(p);
			return;
		} else {
			jp_fail(p, "expected ',' or '}' in an object");
		}
	}
}

static void jp_number(struct jp *p, struct jval *v)
{
	const char *q = p->s;
	if (*q == '-')
		q++;
	if (!(*q >= '0' && *q <= '9')) {
		jp_fail(p, "unexpected character '%c'", *p->s);
		return;
	}
	char *end;
	v->type = J_NUM;
	v->num = strtod(p->s, &end);
	while (p->s < end)
		jp_adv(p);
}

static void jp_word(struct jp *p, struct jval *v, const char *w,
		    enum jtype t, double num)
{
	size_t n = strlen(w);
	if (strncmp(p->s, w, n)) {
		jp_fail(p, "unexpected character '%c'", *p->s);
		return;
	}
	v->type = t;
	v->num = num;
	for (size_t i = 0; i < n; i++)
		jp_adv(p);
}

static void jp_value(struct jp *p, struct jval *v, unsigned depth)
{
	jp_ws(p);
	v->line = p->line;
	v->col = p->col;
	if (depth > JSON_DEPTH) {
		jp_fail(p, "nested too deeply");
		return;
	}
	switch (*p->s) {
	case '{': jp_object(p, v, depth); break;
	case '[': jp_array(p, v, depth); break;
	case '"': v->type = J_STR; v->str = jp_string(p); break;
	case 't': jp_word(p, v, "true", J_BOOL, 1); break;
	case 'f': jp_word(p, v, "false", J_BOOL, 0); break;
	case 'n': jp_word(p, v, "null", J_NULL, 0); break;
	case '\0': jp_fail(p, "unexpected end of file"); break;
	default: jp_number(p, v); break;
	}
}

struct jval *json_parse(const char *text, char *err, unsigned errlen)
{
	struct jp p = {.s = text, .line = 1, .col = 1, .err = err,
		       .errlen = errlen};
	struct jval *v = calloc(1, sizeof(*v));
	jp_value(&p, v, 0);
	jp_ws(&p);
	if (!p.failed && *p.s)
		jp_fail(&p, "text after the end of the document");
	if (p.failed) {
		json_free(v);
		return NULL;
	}
	return v;
}

static void json_free_in(struct jval *v)
{
	for (unsigned i = 0; i < v->n; i++) {
		json_free_in(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void json_free(struct jval *v)
{
	if (!v)
		return;
	json_free_in(v);
	free(v);
}

const struct jval *json_get(const struct jval *o, const char *key)
{
	if (!o || o->type != J_OBJ)
		return NULL;
	for (unsigned i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}

const char *json_type_name(enum jtype t)
{
	static const char *const names[] = {"null", "boolean", "number",
					    "string", "array", "object"};
	return t <= J_OBJ ? names[t] : "?";
}
