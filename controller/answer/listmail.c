/*
 * listmail.c - which mails of a list are patches; see listmail.h.
 *
 * The subject forms are those kernel developers send (git format-patch
 * and send-email): one or more bracket groups before the title, holding
 * PATCH (or PATCHv3), RFC, RESEND, vN, k/n and tree names such as
 * sched/core, in any order.  Replies ("Re:"), pull requests and mails
 * without a diff are not patches; a cover letter (0/n) names a series.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "answer/listmail.h"
#include "parse.h"
#include "banned.h"

void patch_subject_init(struct patch_subject *s)
{
	memset(s, 0, sizeof(*s));
	s->version = 1;
	strvec_init(&s->words);
	strbuf_init(&s->title, 0);
}

void patch_subject_release(struct patch_subject *s)
{
	strvec_clear(&s->words);
	strbuf_release(&s->title);
	patch_subject_init(s);
}

/* Push the len bytes at p as one string. */
static void push_n(struct strvec *sv, const char *p, size_t len)
{
	char *t = xstrndup(p, len);

	strvec_push(sv, t);
	free(t);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "Re:", "RE:", "Fwd:", "Aw:" at p: its length, else 0. */
static size_t reply_marker(const char *p)
{
	static const char *const marks[] = { "re:", "fwd:", "fw:", "aw:" };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (!strncasecmp(p, marks[i], strlen(marks[i])))
			return strlen(marks[i]);
	return 0;
}

/* A number of 1..4 digits at s, up to end; -1 when it is not one. */
static int small_number(const char *s, const char *end)
{
	int v = 0;

	if (s == end || end - s > 4)
		return -1;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* One word of a bracket group, of len bytes at w. */
static void subject_word(struct patch_subject *s, const char *w, size_t len)
{
	const char *slash = memchr(w, '/', len), *end = w + len;
	int a, b;

	push_n(&s->words, w, len);
	if (len >= 5 && !strncasecmp(w, "PATCH", 5)) {
		s->patch = 1;
		w += 5;
		len -= 5;
		if (len && (*w == '-' || *w == '_'))
			w++, len--;
		if (!len)
			return;
	}
	if (len == 6 && !strncasecmp(w, "RESEND", 6))
		s->resend = 1;
	else if (len == 3 && !strncasecmp(w, "RFC", 3))
		s->rfc = 1;
	else if (len == 4 && !strncasecmp(w, "PULL", 4))
		s->pull = 1;
	else if (len >= 2 && (*w == 'v' || *w == 'V') &&
		 (a = small_number(w + 1, end)) > 0)
		s->version = a;
	else if (slash && (a = small_number(w, slash)) >= 0 &&
		 (b = small_number(slash + 1, end)) > 0 && a <= b)
		s->part = a, s->total = b;
}

void patch_subject_parse(const char *subject, struct patch_subject *s)
{
	const char *p = skip_space(subject);
	size_t n;

	for (;;) {
		if ((n = reply_marker(p))) {
			s->reply = 1;
			p = skip_space(p + n);
			continue;
		}
		if (*p != '[')
			break;
		{
			const char *close = strchr(p, ']'), *w;

			if (!close)
				break;
			for (w = p + 1; w < close;) {
				const char *e = w;

				while (e < close && *e != ' ' && *e != ',')
					e++;
				if (e > w)
					subject_word(s, w, (size_t)(e - w));
				w = e + 1;
			}
			p = skip_space(close + 1);
		}
	}
	strbuf_addstr(&s->title, p);
	strbuf_rtrim(&s->title);
}

static void push_path(struct strvec *ret, const char *p, size_t len)
{
	for (size_t i = 0; i < ret->nr; i++)
		if (strlen(ret->v[i]) == len && !memcmp(ret->v[i], p, len))
			return;
	push_n(ret, p, len);
}

/* The path of a "--- a/X" or "+++ b/X" line's rest, up to a tab. */
static void header_path(struct strvec *ret, const char *p, size_t len)
{
	const char *tab = memchr(p, '\t', len);

	if (tab)
		len = (size_t)(tab - p);
	if (len >= 9 && !memcmp(p, "/dev/null", 9))
		return;
	if (len > 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/')
		push_path(ret, p + 2, len - 2);
}

int patch_touched_paths(const char *body, struct strvec *ret)
{
	size_t before = ret->nr;
	int git_lines = 0;

	for (const char *l = body; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len && l[len - 1] == '\r')
			len--;
		if (len > 13 && !memcmp(l, "diff --git a/", 13)) {
			const char *b = memmem(l + 13, len - 13, " b/", 3);

			git_lines = 1;
			if (b) {
				push_path(ret, l + 13, (size_t)(b - l - 13));
				push_path(ret, b + 3,
					  (size_t)(l + len - b - 3));
			}
		} else if (!git_lines && len > 4 &&
			   (!memcmp(l, "--- ", 4) || !memcmp(l, "+++ ", 4))) {
			header_path(ret, l + 4, len - 4);
		}
		l = nl ? nl + 1 : l + len;
	}
	return (int)(ret->nr - before);
}

int policy_path_matches(const char *glob, const char *path)
{
	size_t n = strlen(glob);

	if (n && glob[n - 1] == '/')
		return !strncmp(glob, path, n);
	return fnmatch(glob, path, 0) == 0;
}

/* Why a patch with these paths and subject is outside the policy, or
 * nothing when it is inside. */
static void policy_check(const struct strvec *paths,
			 const struct patch_subject *s,
			 const struct strvec *globs, const struct strvec *words,
			 struct strbuf *reason)
{
	int hit = !words->nr;

	for (size_t i = 0; !hit && i < words->nr; i++)
		for (size_t j = 0; !hit && j < s->words.nr; j++)
			hit = !strcasecmp(words->v[i], s->words.v[j]);
	if (!hit) {
		strbuf_addstr(reason, "its subject has no word of the policy");
		return;
	}
	hit = !globs->nr;
	for (size_t i = 0; !hit && i < globs->nr; i++)
		for (size_t j = 0; !hit && j < paths->nr; j++)
			hit = policy_path_matches(globs->v[i], paths->v[j]);
	if (!hit)
		strbuf_addf(reason, "touches no path of the policy (%s%s)",
			    paths->v[0], paths->nr > 1 ? ", ..." : "");
}

enum listmail_kind listmail_classify(const struct mail_msg *m,
				     const struct patch_subject *s,
				     const struct strvec *path_globs,
				     const struct strvec *subject_words,
				     struct strbuf *reason)
{
	struct strvec paths = STRVEC_INIT;

	strbuf_reset(reason);
	if (s->pull) {
		strbuf_addstr(reason, "a pull request ([GIT PULL])");
		return LISTMAIL_NOT_PATCH;
	}
	if (!s->patch) {
		strbuf_addstr(reason, "no PATCH in the subject");
		return LISTMAIL_NOT_PATCH;
	}
	if (s->reply) {
		strbuf_addstr(reason, "a reply");
		return LISTMAIL_NOT_PATCH;
	}
	if (s->total && s->part == 0)
		return LISTMAIL_COVER;
	if (patch_touched_paths(m->body.buf, &paths) == 0) {
		strbuf_addstr(reason, "no diff in the body");
		strvec_clear(&paths);
		return LISTMAIL_NOT_PATCH;
	}
	policy_check(&paths, s, path_globs, subject_words, reason);
	strvec_clear(&paths);
	return LISTMAIL_PATCH;
}

const char *listmail_series_key(const struct mail_msg *m,
				const struct patch_subject *s)
{
	if (s->total && s->part == 0)
		return m->message_id;
	if (s->total > 1 && m->in_reply_to)
		return m->in_reply_to;
	if (s->total > 1 && m->references.nr)
		return m->references.v[m->references.nr - 1];
	return m->message_id;
}
