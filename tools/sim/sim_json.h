/*
 * A small JSON reader for workload files: the whole text into a tree of
 * values, each with the line and column it starts at, so that a bad
 * field can be named by line. RFC 8259 syntax (no comments, no trailing
 * commas); numbers as doubles; strings with the usual escapes (\u to
 * ASCII only).
 */
#ifndef SIM_JSON_H
#define SIM_JSON_H

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	unsigned line, col;
	double num;            /* J_NUM, J_BOOL (0/1) */
	char *str;             /* J_STR */
	unsigned n;            /* J_ARR, J_OBJ: elements / members */
	struct jval *items;    /* J_ARR elements, J_OBJ member values */
	char **keys;           /* J_OBJ member names */
};

/** Parse @text. NULL on a syntax error, with "line:col: what" in @err. */
struct jval *json_parse(const char *text, char *err, unsigned errlen);
void json_free(struct jval *v);
/** Member @key of object @o, or NULL. */
const struct jval *json_get(const struct jval *o, const char *key);
const char *json_type_name(enum jtype t);

#endif
