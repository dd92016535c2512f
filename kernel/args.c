/* Boot-argument lookup (see args.h). */
#include "args.h"

static bool is_sep(char c)
{
	return c == ' ' || c == ',';
}

/** Does the entry [p, end) name @key (as "key" or "key=...")? */
static bool entry_is(const char *p, const char *end, const char *key)
{
	while (*key && p < end && *p == *key)
		p++, key++;
	return !*key && (p == end || *p == '=');
}

bool args_find(const char *args, const char *key, char *out, size_t n)
{
	for (const char *p = args; *p;) {
		while (is_sep(*p))
			p++;
		const char *end = p;
		while (*end && !is_sep(*end))
			end++;
		if (end > p && entry_is(p, end, key)) {
			const char *v = p;
			while (v < end && *v != '=')
				v++;
			v += v < end; /* skip '=' */
			size_t len = 0;
			while (v + len < end && len + 1 < n) {
				out[len] = v[len];
				len++;
			}
			out[len] = 0;
			return true;
		}
		p = end;
	}
	return false;
}
