/*
 * parse.h - the one place numbers are read from text.
 *
 * argv, YAML, CSV and agent lines all come through here: the whole string
 * must be the number (no trailing junk, no empty string), and it must lie in
 * [min, max].  On failure the functions return a negative errno and, when
 * ret_err is not NULL, point it at a static phrase fit for an error message
 * ("is not a number", "is out of range 1..64").  (After OpenBSD strtonum.)
 */
#ifndef SCHEDFARM_PARSE_H
#define SCHEDFARM_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret,
	      const char **ret_err);
int parse_int(const char *s, int min, int max, int *ret, const char **ret_err);
/* Doubles: NaN and infinities are always refused. */
int parse_double(const char *s, double min, double max, double *ret,
		 const char **ret_err);
/* "30", "30s", "500ms", "2m", "1h" to milliseconds within [min_ms, max_ms]. */
int parse_duration_ms(const char *s, int64_t min_ms, int64_t max_ms,
		      int64_t *ret, const char **ret_err);

/*
 * A name a user gives something (a host, a kernel, a patch): 1..max bytes
 * of UTF-8 text without control characters (C0, DEL or C1), bidi
 * controls or the BOM (unicode_is_bidi_or_bom()), so that it prints as
 * itself in a terminal, a table row or a page.  0, or -1 with
 * err saying what is wrong ("WHAT holds a control character (0x1b at
 * byte 4)"); the name itself is never echoed, since it may be what a
 * terminal would act on.  what names the thing ("a host name").
 */
int check_name(const char *what, const char *s, size_t max, struct strbuf *err);

#endif
