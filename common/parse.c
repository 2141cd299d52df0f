/*
 * parse.c - range-checked number parsing; see parse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "banned.h"

static int fail(const char **ret_err, const char *why, int err)
{
	if (ret_err)
		*ret_err = why;
	return -err;
}

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret,
	      const char **ret_err)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return fail(ret_err, "is not an integer", EINVAL);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return fail(ret_err, "is not an integer", EINVAL);
	if (errno == ERANGE || v < min || v > max)
		return fail(ret_err, "is out of range", ERANGE);
	*ret = v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *ret, const char **ret_err)
{
	int64_t v;
	int r = parse_i64(s, min, max, &v, ret_err);

	if (r == 0)
		*ret = (int)v;
	return r;
}

int parse_double(const char *s, double min, double max, double *ret,
		 const char **ret_err)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return fail(ret_err, "is not a number", EINVAL);
	/* strtod accepts "nan", "inf" and hex floats; none is a measurement. */
	for (const char *p = s; *p; p++)
		if (isalpha((unsigned char)*p) && *p != 'e' && *p != 'E')
			return fail(ret_err, "is not a number", EINVAL);
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return fail(ret_err, "is not a number", EINVAL);
	if (!isfinite(v) || errno == ERANGE)
		return fail(ret_err, "is out of range", ERANGE);
	if (v < min || v > max)
		return fail(ret_err, "is out of range", ERANGE);
	*ret = v;
	return 0;
}

int parse_duration_ms(const char *s, int64_t min_ms, int64_t max_ms,
		      int64_t *ret, const char **ret_err)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }
	};
	char *end;
	long long v;
	int64_t mult = 1000;

	if (!s || !isdigit((unsigned char)*s))
		return fail(ret_err, "is not a duration (like 30s, 500ms, 2m)",
			    EINVAL);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return fail(ret_err, "is out of range", ERANGE);
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return fail(ret_err,
				    "is not a duration (like 30s, 500ms, 2m)",
				    EINVAL);
		mult = units[i].ms;
	}
	if (v > INT64_MAX / mult)
		return fail(ret_err, "is out of range", ERANGE);
	v *= mult;
	if (v < min_ms || v > max_ms)
		return fail(ret_err, "is out of range", ERANGE);
	*ret = v;
	return 0;
}
