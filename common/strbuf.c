/*
 * strbuf.c - growable strings and the few allocation helpers everything uses.
 *
 * See strbuf.h for the contract.  The empty strbuf points at a shared empty
 * string so `sb.buf` is always a valid C string, even before the first append.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "banned.h"

char strbuf_slopbuf[1];

static void die_oom(size_t n)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		die_oom(strlen(s));
	return p;
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		die_oom(n);
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *ret_len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (ret_len)
		*ret_len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int new_buf = !sb->alloc;
	size_t want;

	if (extra > SIZE_MAX - sb->len - 1)
		die_oom(SIZE_MAX);
	want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return;
	if (new_buf)
		sb->buf = NULL;
	sb->alloc = sb->alloc ? sb->alloc : 64;
	while (sb->alloc < want)
		sb->alloc = sb->alloc < SIZE_MAX / 2 ? sb->alloc * 2 : want;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (new_buf)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		if (len)
			abort();
		return;
	}
	if (len >= sb->alloc)
		abort();
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!len)
		return;
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other)
{
	strbuf_add(sb, other->buf, other->len);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		abort();
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		if (n < 0)
			abort();
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len &&
	       (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
		sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

void strbuf_trim(struct strbuf *sb)
{
	size_t skip = 0;

	strbuf_rtrim(sb);
	while (skip < sb->len &&
	       (sb->buf[skip] == ' ' || sb->buf[skip] == '\t' ||
		sb->buf[skip] == '\n' || sb->buf[skip] == '\r'))
		skip++;
	if (skip) {
		memmove(sb->buf, sb->buf + skip, sb->len - skip);
		strbuf_setlen(sb, sb->len - skip);
	}
}

/*
 * What unsafe_at() finds at a position: nothing to escape, a byte to
 * write as \xNN (a C0 control, DEL, NUL or a byte that is no UTF-8), or
 * a character to write as \uNNNN (C1, a bidi control, the BOM).
 */
enum unsafe { SAFE, UNSAFE_BYTE, UNSAFE_CHAR };

/*
 * Classify the character at p (avail bytes there) for text shown to a
 * person; *ret_n is how many bytes it takes (1 for an unsafe byte) and
 * *ret_cp its code point.  flags as strbuf_add_printable() takes them.
 */
static enum unsafe unsafe_at(const unsigned char *p, size_t avail,
			     unsigned int flags, size_t *ret_n,
			     unsigned int *ret_cp)
{
	size_t n = utf8_char_len(p, avail);
	unsigned int cp;

	*ret_n = 1;
	*ret_cp = p[0];
	if (!n || !p[0])
		return UNSAFE_BYTE;
	if (n == 1) {
		if ((flags & PRINTABLE_LINES) && (p[0] == '\n' || p[0] == '\t'))
			return SAFE;
		return p[0] < 0x20 || p[0] == 0x7f ? UNSAFE_BYTE : SAFE;
	}
	cp = p[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (p[i] & 0x3f);
	*ret_n = n;
	*ret_cp = cp;
	if ((cp >= 0x80 && cp <= 0x9f) || unicode_is_bidi_or_bom(cp))
		return UNSAFE_CHAR;
	return SAFE;
}

int unicode_is_bidi_or_bom(unsigned int cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

/* The escaped form of an unsafe byte or character: ASCII, no HTML. */
static void add_unsafe(struct strbuf *sb, enum unsafe u, unsigned int cp)
{
	if (u == UNSAFE_BYTE)
		strbuf_addf(sb, "\\x%02x", cp);
	else
		strbuf_addf(sb, "\\u%04x", cp);
}

/*
 * A C1 control, bidi control or the BOM at s (avail bytes) written as
 * \uNNNN, the same character to a JSON reader and inert in a terminal
 * that shows the JSON: returns 1 and moves *pos to its last byte; 0 (and
 * nothing written) for any other character.
 */
static int json_escape_char(struct strbuf *sb, const char *s, size_t avail,
			    size_t *pos)
{
	size_t n;
	unsigned int cp;

	if (unsafe_at((const unsigned char *)s, avail, 0, &n, &cp) !=
	    UNSAFE_CHAR)
		return 0;
	strbuf_addf(sb, "\\u%04x", cp);
	*pos += n - 1;
	return 1;
}

void strbuf_add_json_strn(struct strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				strbuf_addstr(sb, "\\u00");
				strbuf_addch(sb, hex[c >> 4]);
				strbuf_addch(sb, hex[c & 15]);
			} else if (c >= 0xc2 && i + 1 < len &&
				   json_escape_char(sb, s + i, len - i, &i)) {
				/* a C1, bidi or BOM character, as \uNNNN */
			} else {
				strbuf_addch(sb, c);
			}
		}
	}
	strbuf_addch(sb, '"');
}

void strbuf_add_json_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_addstr(sb, "null");
		return;
	}
	strbuf_add_json_strn(sb, s, strlen(s));
}

void strbuf_add_json_double(struct strbuf *sb, double v)
{
	if (!isfinite(v)) {
		strbuf_addstr(sb, "null");
		return;
	}
	/* The range first: converting a double past long long's is
	 * undefined (the import fuzzer's 2.7e27, UBSan). */
	if (fabs(v) < 1e15 && v == (double)(long long)v) {
		strbuf_addf(sb, "%lld", (long long)v);
		return;
	}
	for (int prec = 6; prec <= 17; prec++) {
		size_t mark = sb->len;
		char *end;

		strbuf_addf(sb, "%.*g", prec, v);
		if (strtod(sb->buf + mark, &end) == v)
			return;
		strbuf_setlen(sb, mark);
	}
	strbuf_addf(sb, "%.17g", v);
}

void strbuf_add_printablen(struct strbuf *sb, const char *s, size_t len,
			   unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_grow(sb, len);
	for (size_t i = 0; i < len;) {
		size_t n;
		unsigned int cp;
		enum unsafe u = unsafe_at(p + i, len - i, flags, &n, &cp);

		if (u == SAFE)
			strbuf_add(sb, p + i, n);
		else
			add_unsafe(sb, u, cp);
		i += n;
	}
}

void strbuf_add_printable(struct strbuf *sb, const char *s, unsigned int flags)
{
	if (s)
		strbuf_add_printablen(sb, s, strlen(s), flags);
}

int printable_is_clean(const char *s, size_t len, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n;
		unsigned int cp;

		if (unsafe_at(p + i, len - i, flags, &n, &cp) != SAFE)
			return 0;
		i += n;
	}
	return 1;
}

void strbuf_add_html(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = s ? strlen(s) : 0;

	for (size_t i = 0; i < len;) {
		size_t n;
		unsigned int cp;
		enum unsafe u =
			unsafe_at(p + i, len - i, PRINTABLE_LINES, &n, &cp);

		if (u != SAFE) {
			add_unsafe(sb, u, cp);
			i += n;
			continue;
		}
		switch (p[i]) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_add(sb, p + i, n);
		}
		i += n;
	}
}

int strbuf_read_fd(struct strbuf *sb, int fd, size_t max_len)
{
	size_t start = sb->len;

	for (;;) {
		ssize_t n;

		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			strbuf_setlen(sb, start);
			return (int)n;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
		if (max_len && sb->len - start > max_len) {
			strbuf_setlen(sb, start);
			return -EFBIG;
		}
	}
	return 0;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = strbuf_read_fd(sb, fd, max_len);
	close(fd);
	return r;
}

int strbuf_getline(struct strbuf *sb, FILE *f)
{
	int c;

	strbuf_reset(sb);
	while ((c = getc(f)) != EOF) {
		if (c == '\n')
			return 0;
		strbuf_addch(sb, c);
	}
	return sb->len ? 0 : EOF;
}

int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int strbuf_starts_with(const struct strbuf *sb, const char *prefix)
{
	return starts_with(sb->buf, prefix);
}

int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

size_t utf8_char_len(const unsigned char *p, size_t avail)
{
	size_t n;
	unsigned int cp;

	if (!avail)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void strbuf_add_utf8_safe(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_grow(sb, len);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_char_len(p + i, len - i);

		if (n && p[i]) {
			strbuf_add(sb, p + i, n);
			i += n;
		} else {
			strbuf_addf(sb, "\\x%02x", p[i]);
			i++;
		}
	}
}

void strbuf_add_hex(struct strbuf *sb, const char *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	strbuf_grow(sb, len * 2);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		strbuf_addch(sb, hex[c >> 4]);
		strbuf_addch(sb, hex[c & 15]);
	}
}

int hex_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int strbuf_add_unhex(struct strbuf *sb, const char *hex)
{
	for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
		int hi = hex_digit_value((unsigned char)hex[i]);
		int lo = hex_digit_value((unsigned char)hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		strbuf_addch(sb, (char)(hi * 16 + lo));
	}
	return 0;
}
