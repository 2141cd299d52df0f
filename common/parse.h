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

#include <stdint.h>

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret,
	      const char **ret_err);
int parse_int(const char *s, int min, int max, int *ret, const char **ret_err);
/* Doubles: NaN and infinities are always refused. */
int parse_double(const char *s, double min, double max, double *ret,
		 const char **ret_err);
/* "30", "30s", "500ms", "2m", "1h" to milliseconds within [min_ms, max_ms]. */
int parse_duration_ms(const char *s, int64_t min_ms, int64_t max_ms,
		      int64_t *ret, const char **ret_err);

#endif
