/*
 * strvec.c - growable NULL-terminated string vectors; see strvec.h.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "strvec.h"
#include "banned.h"

const char *empty_strvec[] = { NULL };

void strvec_init(struct strvec *sv)
{
	sv->v = (char **)empty_strvec;
	sv->nr = sv->alloc = 0;
}

void strvec_clear(struct strvec *sv)
{
	if (sv->v != (char **)empty_strvec) {
		for (size_t i = 0; i < sv->nr; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

static const char *push_owned(struct strvec *sv, char *s)
{
	if (sv->v == (char **)empty_strvec)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
	return s;
}

const char *strvec_push(struct strvec *sv, const char *s)
{
	return push_owned(sv, xstrdup(s));
}

const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return push_owned(sv, strbuf_detach(&sb, NULL));
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

void strvec_pop(struct strvec *sv)
{
	if (!sv->nr)
		return;
	free(sv->v[--sv->nr]);
	sv->v[sv->nr] = NULL;
}

void strvec_split(struct strvec *sv, const char *s, char sep)
{
	for (;;) {
		const char *p = strchr(s, sep);

		if (!p) {
			push_owned(sv, xstrdup(s));
			return;
		}
		push_owned(sv, xstrndup(s, (size_t)(p - s)));
		s = p + 1;
	}
}

char *strvec_join(const struct strvec *sv, const char *sep)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sv->nr; i++) {
		if (i)
			strbuf_addstr(&sb, sep);
		strbuf_addstr(&sb, sv->v[i]);
	}
	return strbuf_detach(&sb, NULL);
}
