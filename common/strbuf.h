/*
 * strbuf.h - growable, always NUL-terminated byte strings.
 *
 * Every string built from input (paths, SQL text, HTML, JSON, argv words)
 * lives in a strbuf.  Allocation failure aborts the process: there is no
 * sensible recovery for a controller or agent that cannot allocate a few
 * bytes, and checking every append would hide the real errors.
 * (After git's strbuf.h.)
 */
#ifndef SCHEDFARM_STRBUF_H
#define SCHEDFARM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT                                                            \
	{                                                                      \
		.alloc = 0, .len = 0, .buf = strbuf_slopbuf                    \
	}

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller (who frees it) and reset sb. */
char *strbuf_detach(struct strbuf *sb, size_t *ret_len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);
__attribute__((format(printf, 2, 3))) void strbuf_addf(struct strbuf *sb,
						       const char *fmt, ...);
__attribute__((format(printf, 2, 0))) void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_rtrim(struct strbuf *sb);
void strbuf_trim(struct strbuf *sb);

/* Append s as a JSON string literal, quotes included. */
void strbuf_add_json_str(struct strbuf *sb, const char *s);
void strbuf_add_json_strn(struct strbuf *sb, const char *s, size_t len);
/* Append a finite double in the shortest form that reads back exactly;
 * NaN and infinities become null, which is what JSON can say of them. */
void strbuf_add_json_double(struct strbuf *sb, double v);
/*
 * Append s (NULL: nothing) as HTML text or attribute value: &, <, >, "
 * and ' as entities, and what strbuf_add_printable() escapes (with
 * PRINTABLE_LINES: a log keeps its lines) escaped the same way.  The one
 * escaper of the report's pages.
 */
void strbuf_add_html(struct strbuf *sb, const char *s);

/*
 * Text from outside (a name, a git subject, what a program printed) made
 * safe to show a person in a terminal, a CSV file or a page: every byte
 * that is a C0 control (ESC included), DEL or NUL, or no part of a
 * well-formed UTF-8 character, as "\xNN"; every C1 control (U+0080..
 * U+009F), bidi control (U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069) and the BOM U+FEFF as "\uNNNN", so that nothing can
 * move the cursor, recolour the screen or reorder what follows.  With
 * PRINTABLE_LINES, newline and tab are kept (a log, a message of several
 * lines); without, they are escaped too (a table cell).  The rest is
 * copied as it is.
 */
#define PRINTABLE_LINES 1u
void strbuf_add_printable(struct strbuf *sb, const char *s, unsigned int flags);
void strbuf_add_printablen(struct strbuf *sb, const char *s, size_t len,
			   unsigned int flags);
/* 1 when strbuf_add_printablen() would copy s unchanged, else 0. */
int printable_is_clean(const char *s, size_t len, unsigned int flags);
/* Is cp a bidi control or the BOM (the code points listed above)? */
int unicode_is_bidi_or_bom(unsigned int cp);

/*
 * The length (1..4) of the well-formed UTF-8 character at p, of which
 * avail bytes are there; 0 when the bytes there are not one (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut
 * short).
 */
size_t utf8_char_len(const unsigned char *p, size_t avail);
/*
 * Append the len bytes at s as text a UTF-8 database accepts: each byte
 * that is not part of a well-formed character, and NUL, as "\xNN".  For
 * what programs printed (build logs, agent messages), which is stored
 * even when it is not clean.
 */
void strbuf_add_utf8_safe(struct strbuf *sb, const char *s, size_t len);
/* The len bytes at data as lowercase hex, two digits a byte (what
 * PostgreSQL's decode(.., 'hex') reads). */
void strbuf_add_hex(struct strbuf *sb, const char *data, size_t len);
/* The value of the hex digit c (either case), or -1. */
int hex_digit_value(int c);
/*
 * Append the bytes the hex digit pairs of hex stand for (PostgreSQL's
 * encode(.., 'hex')); an odd last digit is ignored.  0, or -1 at the
 * first character that is not a hex digit (the bytes before it are
 * appended).
 */
int strbuf_add_unhex(struct strbuf *sb, const char *hex);

/*
 * Read everything from fd (until EOF) or from the file at path.  Return 0,
 * or -errno.  max_len caps what is read (0 = no cap); reading more fails
 * with -EFBIG so hostile input cannot make us allocate without bound.
 */
int strbuf_read_fd(struct strbuf *sb, int fd, size_t max_len);
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_len);
/* Read one line (without its newline) from f; return 0, or EOF at end. */
int strbuf_getline(struct strbuf *sb, FILE *f);

int strbuf_starts_with(const struct strbuf *sb, const char *prefix);
int starts_with(const char *s, const char *prefix);
int ends_with(const char *s, const char *suffix);

/* malloc/strdup that abort on failure, for the same reason as above. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup(s), or NULL when s is NULL (an SQL NULL, an unset option). */
char *xstrdup_or_null(const char *s);
__attribute__((format(printf, 1, 2))) char *xstrfmt(const char *fmt, ...);

/* Grow an array to hold at least nr elements (after git's ALLOC_GROW). */
#define ALLOC_GROW(x, nr, alloc)                                               \
	do {                                                                   \
		if ((nr) > (alloc)) {                                          \
			(alloc) = (alloc) ? (alloc)*2 : 16;                    \
			if ((alloc) < (nr))                                    \
				(alloc) = (nr);                                \
			(x) = xrealloc((x), sizeof(*(x)) * (alloc));           \
		}                                                              \
	} while (0)

#endif
