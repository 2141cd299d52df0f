/*
 * shquote.c - words for a POSIX shell; see shquote.h.
 *
 * Single quotes are the one quoting that sh(1) does not look into: no
 * $, `, \ or ! expansion happens there, so the only byte to take care of
 * is the single quote itself, closed, escaped and reopened (git's
 * sq_quote_buf does the same).
 */
#include <string.h>

#include "shquote.h"
#include "banned.h"

static int is_plain(const char *s)
{
	if (!*s || *s == '~')
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c)))
			return 0;
	}
	return 1;
}

void strbuf_add_sh_quoted(struct strbuf *sb, const char *s)
{
	if (is_plain(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void strbuf_add_sh_argv(struct strbuf *sb, const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		strbuf_add_sh_quoted(sb, argv[i]);
	}
}
