/*
 * conninfo.c - connection strings: words and masked passwords; see
 * conninfo.h.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "conninfo.h"
#include "banned.h"

static const char *const keywords[] = { "host",	    "port",   "user",
					"password", "dbname", NULL };

/* Read one value at *pp (libpq's rules) into val; -1 on an open quote. */
static int read_value(const char **pp, struct strbuf *val)
{
	const char *p = *pp;

	if (*p == '\'') {
		for (p++; *p && *p != '\''; p++) {
			if (*p == '\\' && p[1])
				p++;
			strbuf_addch(val, *p);
		}
		if (*p != '\'')
			return -1;
		p++;
	} else {
		for (; *p && !isspace((unsigned char)*p); p++) {
			if (*p == '\\' && p[1])
				p++;
			strbuf_addch(val, *p);
		}
	}
	*pp = p;
	return 0;
}

int conninfo_split(const char *ci, struct strvec *keys, struct strvec *vals,
		   struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	const char *p = ci;
	int r = -1;

	if (strstr(ci, "://")) {
		strbuf_addstr(err, "a URI is not taken here: write it as "
				   "host=... port=... user=... password=... "
				   "dbname=...");
		return -1;
	}
	for (;;) {
		size_t k;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		strbuf_reset(&key);
		strbuf_reset(&val);
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			strbuf_addch(&key, *p++);
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=') {
			strbuf_addf(err, "\"%s\" is not a keyword=value word",
				    key.buf);
			goto out;
		}
		for (k = 0; keywords[k]; k++)
			if (!strcmp(key.buf, keywords[k]))
				break;
		if (!keywords[k]) {
			strbuf_addf(err,
				    "\"%s\" is not one of host, port, user, "
				    "password, dbname",
				    key.buf);
			goto out;
		}
		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (read_value(&p, &val) < 0) {
			strbuf_addf(err, "the value of %s has no closing quote",
				    key.buf);
			goto out;
		}
		strvec_push(keys, key.buf);
		strvec_push(vals, val.buf);
	}
	r = 0;
out:
	strbuf_release(&key);
	strbuf_release(&val);
	return r;
}

/* Append v as a libpq value: bare when it can be, else single-quoted. */
static void add_value(struct strbuf *out, const char *v)
{
	int bare = *v != '\0';

	for (const char *p = v; *p; p++)
		if (isspace((unsigned char)*p) || *p == '\'' || *p == '\\')
			bare = 0;
	if (bare) {
		strbuf_addstr(out, v);
		return;
	}
	strbuf_addch(out, '\'');
	for (const char *p = v; *p; p++) {
		if (*p == '\'' || *p == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *p);
	}
	strbuf_addch(out, '\'');
}

void conninfo_mask(const char *ci, struct strbuf *out)
{
	struct strvec keys = STRVEC_INIT, vals = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	if (conninfo_split(ci, &keys, &vals, &err) < 0) {
		text_mask_passwords(ci, out);
	} else {
		for (size_t i = 0; i < keys.nr; i++) {
			if (i)
				strbuf_addch(out, ' ');
			strbuf_addf(out, "%s=", keys.v[i]);
			if (!strcmp(keys.v[i], "password"))
				strbuf_addstr(out, CONNINFO_MASK);
			else
				add_value(out, vals.v[i]);
		}
	}
	strvec_clear(&keys);
	strvec_clear(&vals);
	strbuf_release(&err);
}

/*
 * The end of the password value that starts at p, in free text; line
 * is where its line starts (to see whether a YAML double-quoted scalar
 * is open, whose closing '"' is not part of the value).
 */
static const char *value_end(const char *line, const char *p)
{
	const char *q = p;
	int dquotes = 0;

	if (*q == '\'') {
		for (q++; *q && *q != '\'' && *q != '\n'; q++)
			if (*q == '\\' && q[1] && q[1] != '\n')
				q++;
		return *q == '\'' ? q + 1 : q;
	}
	for (; *q && !isspace((unsigned char)*q); q++)
		if (*q == '\\' && q[1] && !isspace((unsigned char)q[1]))
			q++;
	for (const char *s = line; s < p; s++) {
		if (*s == '\\' && s + 1 < p)
			s++;
		else if (*s == '"')
			dquotes++;
	}
	if ((dquotes & 1) && q > p && q[-1] == '"' &&
	    (q - 1 == p || q[-2] != '\\'))
		q--;
	return q;
}

void text_mask_passwords(const char *text, struct strbuf *out)
{
	const char *p = text, *line = text;

	while (*p) {
		if (*p == '\n') {
			strbuf_addch(out, *p++);
			line = p;
			continue;
		}
		if (!strncasecmp(p, "password", 8)) {
			const char *q = p + 8;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=') {
				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				strbuf_add(out, p, (size_t)(q - p));
				p = value_end(line, q);
				if (p > q)
					strbuf_addstr(out, CONNINFO_MASK);
				continue;
			}
		}
		if (!strncmp(p, "://", 3)) {
			/* scheme://user:password@host: mask what lies between
			 * the first ':' and the '@' of the authority. */
			const char *a = p + 3, *end = a, *colon;

			while (*end && *end != '/' && *end != '?' &&
			       *end != '@' && !isspace((unsigned char)*end))
				end++;
			colon = memchr(a, ':', (size_t)(end - a));
			if (*end == '@' && colon) {
				strbuf_add(out, p, (size_t)(colon + 1 - p));
				strbuf_addstr(out, CONNINFO_MASK);
				p = end;
				continue;
			}
		}
		strbuf_addch(out, *p++);
	}
}
