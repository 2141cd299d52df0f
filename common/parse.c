/*
 * parse.c - range-checked number parsing, and the check of names given
 * by users; see parse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <arpa/inet.h>
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
	static const char *const bad =
		"is not a duration (like 30s, 1.5s, 500ms, 2m)";
	const char *p = s;
	int64_t whole = 0, frac = 0, scale = 1, mult = 1000;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return fail(ret_err, bad, EINVAL);
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > (INT64_MAX - 9) / 10)
			return fail(ret_err, "is out of range", ERANGE);
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)p[1]))
			return fail(ret_err, bad, EINVAL);
		/* Up to 9 decimals: finer ones are no millisecond anyway. */
		for (p++; isdigit((unsigned char)*p); p++) {
			if (scale == 1000000000)
				return fail(ret_err,
					    "is finer than a millisecond",
					    EINVAL);
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
	}
	if (*p) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return fail(ret_err, bad, EINVAL);
		mult = units[i].ms;
	}
	/* frac < scale <= 1e9 and mult <= 3.6e6: frac * mult fits. */
	if ((frac * mult) % scale)
		return fail(ret_err, "is finer than a millisecond", EINVAL);
	if (whole > (INT64_MAX - frac * mult / scale) / mult)
		return fail(ret_err, "is out of range", ERANGE);
	whole = whole * mult + frac * mult / scale;
	if (whole < min_ms || whole > max_ms)
		return fail(ret_err, "is out of range", ERANGE);
	*ret = whole;
	return 0;
}

int parse_size_bytes(const char *s, int64_t min, int64_t max, int64_t *ret,
		     const char **ret_err)
{
	static const struct {
		const char *suffix;
		int shift;
	} units[] = { { "K", 10 }, { "M", 20 }, { "G", 30 }, { "T", 40 } };
	char *end;
	long long v;
	int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return fail(ret_err, "is not a size (like 5G, 500M, 1T)",
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
				    "is not a size (like 5G, 500M, 1T)",
				    EINVAL);
		shift = units[i].shift;
	}
	if (v > INT64_MAX >> shift)
		return fail(ret_err, "is out of range", ERANGE);
	v <<= shift;
	if (v < min || v > max)
		return fail(ret_err, "is out of range", ERANGE);
	*ret = v;
	return 0;
}

int check_name(const char *what, const char *s, size_t max, struct strbuf *err)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	if (!len) {
		strbuf_addf(err, "%s is empty", what);
		return -1;
	}
	if (len > max) {
		strbuf_addf(err, "%s is at most %zu bytes (this one has %zu)",
			    what, max, len);
		return -1;
	}
	for (size_t i = 0; i < len;) {
		size_t n = utf8_char_len(p + i, len - i);

		if (!n) {
			strbuf_addf(err,
				    "%s is not UTF-8 text (byte 0x%02x at "
				    "byte %zu)",
				    what, p[i], i + 1);
			return -1;
		}
		/* C0 and DEL; C1 (U+0080..U+009F) is 0xc2 0x80..0x9f. */
		if ((n == 1 && (p[i] < 0x20 || p[i] == 0x7f)) ||
		    (n == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f)) {
			strbuf_addf(err,
				    "%s holds a control character (0x%02x at "
				    "byte %zu); names are printable text",
				    what, n == 1 ? p[i] : p[i + 1], i + 1);
			return -1;
		}
		/* Bidi controls and the BOM: invisible, they reorder or hide
		 * what a terminal or page shows after them. */
		if (n == 2 || n == 3) {
			unsigned int cp = n == 2 ? (p[i] & 0x1fu) << 6 |
							   (p[i + 1] & 0x3fu)
						 : (p[i] & 0x0fu) << 12 |
							   (p[i + 1] & 0x3fu)
								   << 6 |
							   (p[i + 2] & 0x3fu);

			if (unicode_is_bidi_or_bom(cp)) {
				strbuf_addf(err,
					    "%s holds an invisible control "
					    "character (U+%04X at byte %zu); "
					    "names are printable text",
					    what, cp, i + 1);
				return -1;
			}
		}
		i += n;
	}
	return 0;
}

int ssh_user_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n < 1 || n > 32 || name[0] == '-' || name[0] == '.')
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

const char *virt_address_problem(const char *addr)
{
	struct in_addr a;
	unsigned first;

	if (inet_pton(AF_INET, addr, &a) != 1)
		return "not an IPv4 address (like 127.0.0.1)";
	first = (unsigned)(ntohl(a.s_addr) >> 24);
	if (first == 0)
		return "in 0.0.0.0/8, no one address (0.0.0.0 would open "
		       "the forward on every interface)";
	if (first >= 224 && first <= 239)
		return "a multicast address (224.0.0.0/4)";
	if (first >= 240)
		return "a broadcast or reserved address (240.0.0.0/4, "
		       "255.255.255.255)";
	return NULL;
}

int virt_address_ok(const char *addr)
{
	return virt_address_problem(addr) == NULL;
}
