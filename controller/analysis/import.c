/*
 * import.c - results made elsewhere, parsed and stored; see import.h.
 *
 * Another lab's numbers, an old spreadsheet, a table from a mailing-list
 * thread: CSV with a header, either one observation per row
 * (kernel,host,workload,params,metric,unit,better,value[,boot]) or one
 * summary per row (kernel,host,workload,params,metric,unit,better,n,mean,
 * stddev), either with an optional time column (when the run started:
 * ISO 8601 or unix seconds), which becomes the run's started_at and so
 * its place in the history.  Every field is checked before anything is written;
 * a file with any bad row is refused whole, each bad row named FILE:LINE with
 * the reason.  A good file is stored in one transaction: its hash in
 * imports (a second import of the same bytes is refused), hosts and
 * kernels it names (hosts created here are kind 'imported', health
 * 'retired': never scheduled), runs marked imported, results through
 * COPY.  Imported runs then compare like any other.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/hosts.h"
#include "store/kernels.h"
#include "analysis/import.h"
#include "store/ingest.h"
#include "store/runs.h"
#include "parse.h"
#include "strvec.h"
#include "banned.h"

#define IMPORT_MAX_ROWS 1000000
#define IMPORT_MAX_FIELD 1024
#define IMPORT_MAX_PARAMS 64
#define IMPORT_MIN_MAGNITUDE 1e-150
#define IMPORT_MAX_MAGNITUDE 1e150

enum column {
	COL_KERNEL,
	COL_HOST,
	COL_WORKLOAD,
	COL_PARAMS,
	COL_METRIC,
	COL_UNIT,
	COL_BETTER,
	COL_VALUE,
	COL_BOOT,
	COL_N,
	COL_MEAN,
	COL_STDDEV,
	COL_TIME,
	COL_COUNT
};

static const char *const column_names[COL_COUNT] = {
	"kernel", "host", "workload", "params", "metric", "unit", "better",
	"value",  "boot", "n",	      "mean",	"stddev", "time",
};

void import_file_init(struct import_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	strbuf_init(&f->errors, 0);
	f->path = path;
}

void import_file_release(struct import_file *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		struct import_row *r = &f->rows[i];

		free(r->kernel);
		free(r->host);
		free(r->workload);
		free(r->params);
		free(r->metric);
		free(r->unit);
	}
	free(f->rows);
	strbuf_release(&f->errors);
}

__attribute__((format(printf, 3, 4))) static void
row_error(struct import_file *f, unsigned line, const char *fmt, ...)
{
	va_list ap;

	f->nerrors++;
	if (f->nerrors > IMPORT_MAX_ERRORS)
		return;
	strbuf_addf(&f->errors, "%s:%u: ", f->path, line);
	va_start(ap, fmt);
	strbuf_vaddf(&f->errors, fmt, ap);
	va_end(ap);
	strbuf_addch(&f->errors, '\n');
}

/*
 * The offset of the first byte of s[0..len) that is not well-formed UTF-8
 * text (NUL and C0 controls other than tab, CR and LF count), or len.
 */
static size_t first_bad_byte(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_char_len(p + i, len - i);

		if (!n || (n == 1 && (p[i] < 0x20 || p[i] == 0x7f) &&
			   p[i] != '\t' && p[i] != '\n' && p[i] != '\r'))
			return i;
		i += n;
	}
	return len;
}

/*
 * Split one CSV line into fields (RFC 4180 quoting, no line breaks inside
 * quotes; spaces around unquoted fields trimmed).  Returns 0, or -1 with
 * *why set.
 */
static int csv_split(const char *line, struct strvec *fields, const char **why)
{
	struct strbuf field = STRBUF_INIT;
	const char *p = line;

	for (;;) {
		strbuf_reset(&field);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p) {
					*why = "a quoted field is not closed "
					       "on its line";
					strbuf_release(&field);
					return -1;
				}
				if (*p == '"' && p[1] == '"') {
					strbuf_addch(&field, '"');
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					strbuf_addch(&field, *p++);
				}
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != ',') {
				*why = "text after a closing quote";
				strbuf_release(&field);
				return -1;
			}
		} else {
			while (*p && *p != ',') {
				if (*p == '"') {
					*why = "a quote inside an unquoted "
					       "field";
					strbuf_release(&field);
					return -1;
				}
				strbuf_addch(&field, *p++);
			}
			strbuf_rtrim(&field);
		}
		strvec_push(fields, field.buf);
		if (!*p)
			break;
		p++; /* the comma */
	}
	strbuf_release(&field);
	return 0;
}

/* A params key: letters, digits, '_', '.', '-'. */
static int key_ok(const char *k)
{
	if (!*k || strlen(k) > 64)
		return 0;
	for (; *k; k++)
		if (!(((*k | 0x20) >= 'a' && (*k | 0x20) <= 'z') ||
		      (*k >= '0' && *k <= '9') || *k == '_' || *k == '.' ||
		      *k == '-'))
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "key=value;key=value" to a JSON object with sorted keys (so equal
 * params give equal text).  Integers and decimal numbers become JSON
 * numbers, true/false booleans, anything else a string.  Returns 0, or -1
 * with the reason in why.
 */
static int params_to_json(const char *s, struct strbuf *out, struct strbuf *why)
{
	struct strvec parts = STRVEC_INIT;
	int ret = -1;

	strbuf_addch(out, '{');
	if (!*s) {
		strbuf_addch(out, '}');
		strvec_clear(&parts);
		return 0;
	}
	strvec_split(&parts, s, ';');
	if (parts.nr > IMPORT_MAX_PARAMS) {
		strbuf_addf(why, "params has more than %d entries",
			    IMPORT_MAX_PARAMS);
		goto out;
	}
	qsort(parts.v, parts.nr, sizeof(*parts.v), cmp_str);
	for (size_t i = 0; i < parts.nr; i++) {
		char *eq = strchr(parts.v[i], '=');
		const char *val;
		int64_t iv;
		double dv;

		if (!eq) {
			strbuf_addf(why, "params entry '%s' is not key=value",
				    parts.v[i]);
			goto out;
		}
		*eq = '\0';
		val = eq + 1;
		if (!key_ok(parts.v[i])) {
			strbuf_addf(why,
				    "params key '%s' is not 1-64 letters, "
				    "digits, '_', '.' or '-'",
				    parts.v[i]);
			goto out;
		}
		if (i && !strcmp(parts.v[i], parts.v[i - 1])) {
			strbuf_addf(why, "params key '%s' given twice",
				    parts.v[i]);
			goto out;
		}
		if (i)
			strbuf_addch(out, ',');
		strbuf_add_json_str(out, parts.v[i]);
		strbuf_addch(out, ':');
		if (parse_i64(val, -9007199254740992LL, 9007199254740992LL, &iv,
			      NULL) == 0)
			strbuf_addf(out, "%lld", (long long)iv);
		else if (parse_double(val, -1e300, 1e300, &dv, NULL) == 0)
			strbuf_add_json_double(out, dv);
		else if (!strcmp(val, "true") || !strcmp(val, "false"))
			strbuf_addstr(out, val);
		else if (*val &&
			 check_name("a params value", val, 4096, why) < 0)
			goto out;
		else
			strbuf_add_json_str(out, val);
	}
	strbuf_addch(out, '}');
	ret = 0;
out:
	strvec_clear(&parts);
	return ret;
}

/*
 * A value the comparison can represent: its squares and sums of squares
 * (pooled summaries, variances, harmonic means) stay inside the doubles
 * only for 0 or a magnitude in [IMPORT_MIN_MAGNITUDE, IMPORT_MAX_MAGNITUDE].
 * 0, or -1 with the reason in *why.
 */
static int magnitude_ok(double v, const char **why)
{
	double m = fabs(v);

	if (m != 0 && (m < IMPORT_MIN_MAGNITUDE || m > IMPORT_MAX_MAGNITUDE)) {
		*why = "is beyond what the comparison can represent (0, or a "
		       "magnitude from 1e-150 to 1e150: it squares values)";
		return -1;
	}
	return 0;
}

/*
 * A required text field: non-empty (unless may_be_empty), bounded, and
 * printable as a name is (check_name: no control, bidi control or BOM),
 * since pages, tables and terminals show it.
 */
static int text_field(struct import_file *f, unsigned line, const char *name,
		      const char *v, size_t max, int may_be_empty)
{
	struct strbuf why = STRBUF_INIT;

	if (!*v && !may_be_empty) {
		row_error(f, line, "%s is empty", name);
		return -1;
	}
	if (strlen(v) > max) {
		row_error(f, line, "%s is longer than %zu bytes", name, max);
		return -1;
	}
	if (*v && check_name(name, v, max, &why) < 0) {
		row_error(f, line, "%s", why.buf);
		strbuf_release(&why);
		return -1;
	}
	return 0;
}

/* A kernel or host name: printable, bounded (check_name). */
static int name_field(struct import_file *f, unsigned line, const char *name,
		      const char *v, size_t max)
{
	struct strbuf why = STRBUF_INIT;
	int r = check_name(name, v, max, &why);

	if (r < 0)
		row_error(f, line, "%s", why.buf);
	strbuf_release(&why);
	return r;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n decimal digits at *s into *ret, *s moved past them; -1 if not. */
static int digits(const char **s, int n, int *ret)
{
	*ret = 0;
	for (int i = 0; i < n; i++, (*s)++) {
		if (**s < '0' || **s > '9')
			return -1;
		*ret = *ret * 10 + (**s - '0');
	}
	return 0;
}

/*
 * A run's start time: unix seconds (digits only), or ISO 8601 as
 * YYYY-MM-DD, then 'T' or a space and hh:mm[:ss[.fraction]], then
 * nothing (UTC), 'Z' or +hh[:mm] / -hh[:mm].  Every part is range
 * checked (a day its month has, hh 0-23, mm and ss 0-59, a zone within
 * 14 hours); the year is 1970 to 9999, as are unix seconds.  The seconds
 * since 1970 UTC (the fraction dropped) into *ret; 0, or -1 with *why.
 */
static int parse_time(const char *v, int64_t *ret, const char **why)
{
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30,
				       31, 31, 30, 31, 30, 31 };
	const char *s = v;
	int y, mo, d, h = 0, mi = 0, sec = 0, zh = 0, zm = 0, sign = 0;

	*why = "is not ISO 8601 (YYYY-MM-DD[Thh:mm[:ss]][Z|+hh:mm]) or "
	       "unix seconds";
	if (v[0] && strspn(v, "0123456789") == strlen(v)) {
		if (parse_i64(v, 0, days_from_civil(10000, 1, 1) * 86400 - 1,
			      ret, NULL) < 0) {
			*why = "is out of range (unix seconds of 1970 to 9999)";
			return -1;
		}
		return 0;
	}
	if (digits(&s, 4, &y) < 0 || *s++ != '-' || digits(&s, 2, &mo) < 0 ||
	    *s++ != '-' || digits(&s, 2, &d) < 0)
		return -1;
	if (*s == 'T' || *s == ' ') {
		s++;
		if (digits(&s, 2, &h) < 0 || *s++ != ':' ||
		    digits(&s, 2, &mi) < 0)
			return -1;
		if (*s == ':') {
			s++;
			if (digits(&s, 2, &sec) < 0)
				return -1;
			if (*s == '.' || *s == ',') {
				s++;
				if (*s < '0' || *s > '9')
					return -1;
				s += strspn(s, "0123456789");
			}
		}
		if (*s == 'Z') {
			s++;
		} else if (*s == '+' || *s == '-') {
			sign = *s++ == '+' ? 1 : -1;
			if (digits(&s, 2, &zh) < 0)
				return -1;
			if (*s == ':')
				s++;
			if (*s && digits(&s, 2, &zm) < 0)
				return -1;
		}
	}
	if (*s)
		return -1;
	*why = "is out of range (year 1970-9999, a day the month has, "
	       "hh 0-23, mm and ss 0-59, a zone within 14 hours)";
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))) ||
	    h > 23 || mi > 59 || sec > 59 || zh > 14 || zm > 59 ||
	    zh * 60 + zm > 14 * 60)
		return -1;
	*ret = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	       sign * (zh * 3600 + zm * 60);
	if (*ret < 0) {
		*why = "is before 1970-01-01 UTC";
		return -1;
	}
	return 0;
}

/* Check and keep one data line; errors are recorded in f. */
static void parse_row(struct import_file *f, unsigned line,
		      const struct strvec *fields, const int *col)
{
	struct import_row r;
	struct strbuf params = STRBUF_INIT, why = STRBUF_INIT;
	const char *v, *e;
	int bad = 0;

	memset(&r, 0, sizeof(r));
	r.line = line;
#define FIELD(c) (fields->v[col[c]])
	bad |= name_field(f, line, "kernel", FIELD(COL_KERNEL), 200);
	bad |= name_field(f, line, "host", FIELD(COL_HOST), 128);
	bad |= text_field(f, line, "workload", FIELD(COL_WORKLOAD), 64, 0);
	bad |= text_field(f, line, "metric", FIELD(COL_METRIC), 128, 0);
	bad |= text_field(f, line, "unit", FIELD(COL_UNIT), 64, 1);
	if (params_to_json(FIELD(COL_PARAMS), &params, &why) < 0) {
		row_error(f, line, "%s", why.buf);
		bad = 1;
	}
	v = FIELD(COL_BETTER);
	if (compare_better_parse(v, &r.better) < 0) {
		row_error(f, line,
			  "better is '%s', expected higher, lower or none", v);
		bad = 1;
	}
	if (f->format == IMPORT_OBSERVATIONS) {
		v = FIELD(COL_VALUE);
		if (parse_double(v, -1e300, 1e300, &r.value, &e) < 0 ||
		    magnitude_ok(r.value, &e) < 0) {
			row_error(f, line, "value '%s' %s", v, e);
			bad = 1;
		}
		if (f->has_boot) {
			v = FIELD(COL_BOOT);
			if (parse_int(v, 0, 1000000, &r.boot, &e) < 0) {
				row_error(f, line,
					  "boot '%s' %s (expected 0..1000000)",
					  v, e);
				bad = 1;
			}
		}
	} else {
		v = FIELD(COL_N);
		if (parse_i64(v, 1, 1000000000, &r.n, &e) < 0) {
			row_error(f, line, "n '%s' %s (expected 1..1000000000)",
				  v, e);
			bad = 1;
		}
		v = FIELD(COL_MEAN);
		if (parse_double(v, -1e300, 1e300, &r.value, &e) < 0 ||
		    magnitude_ok(r.value, &e) < 0) {
			row_error(f, line, "mean '%s' %s", v, e);
			bad = 1;
		}
		v = FIELD(COL_STDDEV);
		if (parse_double(v, 0, 1e300, &r.sd, &e) < 0) {
			/* Said only where it is the reason: a magnitude
			 * out of range is not "expected >= 0". */
			row_error(f, line,
				  "stddev '%s' %s (a standard deviation is 0 "
				  "or more)",
				  v, e);
			bad = 1;
		} else if (magnitude_ok(r.sd, &e) < 0) {
			row_error(f, line, "stddev '%s' %s", v, e);
			bad = 1;
		} else if (r.n == 1 && r.sd != 0) {
			row_error(f, line, "n is 1 but stddev is not 0");
			bad = 1;
		}
	}
	r.time = -1;
	if (col[COL_TIME] >= 0 && *FIELD(COL_TIME)) {
		v = FIELD(COL_TIME);
		if (parse_time(v, &r.time, &e) < 0) {
			row_error(f, line, "time '%s' %s", v, e);
			bad = 1;
		}
	}
	if (!bad && ingest_check_value(FIELD(COL_UNIT), r.value, &why) < 0) {
		row_error(f, line, "%s %s",
			  f->format == IMPORT_SUMMARIES ? "mean" : "value",
			  why.buf);
		bad = 1;
	}
#undef FIELD
	if (!bad) {
		r.kernel = xstrdup(fields->v[col[COL_KERNEL]]);
		r.host = xstrdup(fields->v[col[COL_HOST]]);
		r.workload = xstrdup(fields->v[col[COL_WORKLOAD]]);
		r.metric = xstrdup(fields->v[col[COL_METRIC]]);
		r.unit = xstrdup(fields->v[col[COL_UNIT]]);
		r.params = strbuf_detach(&params, NULL);
		ALLOC_GROW(f->rows, f->nr + 1, f->alloc);
		f->rows[f->nr++] = r;
	}
	strbuf_release(&params);
	strbuf_release(&why);
}

/* Read the header line into col[] and the format; 0 or -1 (recorded). */
static int parse_header(struct import_file *f, unsigned line,
			const struct strvec *fields, int *col)
{
	int bad = 0;

	for (int c = 0; c < COL_COUNT; c++)
		col[c] = -1;
	for (size_t i = 0; i < fields->nr; i++) {
		int c;

		for (c = 0; c < COL_COUNT; c++)
			if (!strcmp(fields->v[i], column_names[c]))
				break;
		if (c == COL_COUNT) {
			row_error(f, line, "unknown column '%s'", fields->v[i]);
			return -1;
		}
		if (col[c] >= 0) {
			row_error(f, line, "column '%s' given twice",
				  fields->v[i]);
			return -1;
		}
		col[c] = (int)i;
	}
	if (col[COL_VALUE] >= 0 &&
	    (col[COL_N] >= 0 || col[COL_MEAN] >= 0 || col[COL_STDDEV] >= 0)) {
		row_error(f, line,
			  "header mixes value with n/mean/stddev: a file is "
			  "observations or summaries");
		return -1;
	}
	f->format =
		col[COL_VALUE] >= 0 ? IMPORT_OBSERVATIONS : IMPORT_SUMMARIES;
	if (f->format == IMPORT_SUMMARIES && col[COL_BOOT] >= 0) {
		row_error(f, line, "boot is a column of observations only");
		return -1;
	}
	f->has_boot = col[COL_BOOT] >= 0;
	for (int c = 0; c <= COL_STDDEV; c++) {
		int needed = c <= COL_BETTER ||
			     (f->format == IMPORT_OBSERVATIONS
				      ? c == COL_VALUE
				      : (c == COL_N || c == COL_MEAN ||
					 c == COL_STDDEV));

		if (needed && col[c] < 0) {
			row_error(f, line, "header lacks column '%s'",
				  column_names[c]);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/*
 * Parse and check all of content; rows go to f->rows, problems to
 * f->errors.  Returns 0 when the file is good.
 */
int import_parse(struct import_file *f, const struct strbuf *content)
{
	int col[COL_COUNT], have_header = 0;
	unsigned line = 0;
	const char *p = content->buf, *end = content->buf + content->len;

	size_t bad = first_bad_byte(content->buf, content->len);

	if (bad < content->len) {
		/* Say where: the line, and the byte in it. */
		const char *nl = content->buf;
		unsigned at = 1;

		for (const char *q = content->buf; q < content->buf + bad; q++)
			if (*q == '\n') {
				at++;
				nl = q + 1;
			}
		row_error(f, at,
			  "not UTF-8 text: byte 0x%02x at column %zu is %s",
			  (unsigned char)content->buf[bad],
			  (size_t)(content->buf + bad - nl) + 1,
			  (unsigned char)content->buf[bad] < 0x80
				  ? "a control character (or NUL)"
				  : "not part of a UTF-8 character");
		return -1;
	}
	if (content->len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3; /* a spreadsheet's byte order mark */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		_cleanup_free_ char *text = NULL;
		struct strvec fields = STRVEC_INIT;
		const char *why;

		line++;
		if (len && p[len - 1] == '\r')
			len--;
		text = xstrndup(p, len);
		p = nl ? nl + 1 : end;
		if (!text[strspn(text, " \t")] || text[0] == '#')
			continue;
		if (len > 16 * IMPORT_MAX_FIELD) {
			row_error(f, line, "line longer than %d bytes",
				  16 * IMPORT_MAX_FIELD);
			continue;
		}
		if (csv_split(text, &fields, &why) < 0) {
			row_error(f, line, "%s", why);
		} else if (!have_header) {
			have_header = 1;
			if (parse_header(f, line, &fields, col) < 0) {
				strvec_clear(&fields);
				return -1;
			}
		} else {
			size_t want = 0;

			for (int c = 0; c < COL_COUNT; c++)
				want += col[c] >= 0;
			if (fields.nr != want)
				row_error(f, line,
					  "%zu fields, the header has %zu",
					  fields.nr, want);
			else if (f->nr >= IMPORT_MAX_ROWS)
				row_error(f, line, "more than %d rows",
					  IMPORT_MAX_ROWS);
			else
				parse_row(f, line, &fields, col);
		}
		strvec_clear(&fields);
	}
	if (!have_header)
		row_error(f, line ? line : 1, "no header line");
	else if (!f->nr && !f->nerrors)
		row_error(f, line, "no data rows");
	return f->nerrors ? -1 : 0;
}

/* The id of the kernel or host named name, creating it if missing. */
static int find_or_create(struct db *db, int host, const char *name,
			  const char *file, int64_t *ret, struct strbuf *err)
{
	struct kernel_fields k = { .name = name, .build_state = "external" };

	if (host)
		return hosts_find_or_import(db, name, file, ret, err);
	return kernels_upsert(db, &k, KERNEL_KEEP, ret, err);
}

/* Cache of names to ids within one import. */
struct name_ids {
	struct strvec names;
	int64_t *ids;
	size_t alloc;
};

static int cached_id(struct db *db, struct name_ids *c, int host,
		     const char *name, const char *file, int64_t *ret,
		     struct strbuf *err)
{
	for (size_t i = 0; i < c->names.nr; i++)
		if (!strcmp(c->names.v[i], name)) {
			*ret = c->ids[i];
			return 0;
		}
	if (find_or_create(db, host, name, file, ret, err) < 0)
		return -1;
	ALLOC_GROW(c->ids, c->names.nr + 1, c->alloc);
	c->ids[c->names.nr] = *ret;
	strvec_push(&c->names, name);
	return 0;
}

static void name_ids_release(struct name_ids *c)
{
	strvec_clear(&c->names);
	free(c->ids);
}

/* Same kernel, host, workload, params and boot: the same run. */
static int same_setup(const struct import_row *a, const struct import_row *b)
{
	return a->boot == b->boot && !strcmp(a->kernel, b->kernel) &&
	       !strcmp(a->host, b->host) && !strcmp(a->workload, b->workload) &&
	       !strcmp(a->params, b->params);
}

/* Row order for grouping: by setup and boot, then by position. */
static const struct import_file *sort_file;
static int cmp_row_run(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct import_row *a = &sort_file->rows[ia],
				*b = &sort_file->rows[ib];
	int c;

	if ((c = strcmp(a->kernel, b->kernel)) ||
	    (c = strcmp(a->host, b->host)) ||
	    (c = strcmp(a->workload, b->workload)) ||
	    (c = strcmp(a->params, b->params)))
		return c;
	if (a->boot != b->boot)
		return a->boot < b->boot ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/*
 * Which run each row goes to (group_of[i], the index of the run's first
 * row) and its iteration within that run for its metric.  Rows with the
 * same setup and boot number are one run; without a boot column every
 * row is a run of its own.
 */
static void group_rows(const struct import_file *f, size_t *group_of,
		       int *iter_of)
{
	_cleanup_free_ size_t *idx = NULL;
	size_t start = 0;

	for (size_t i = 0; i < f->nr; i++) {
		group_of[i] = i;
		iter_of[i] = 0;
	}
	if (f->format != IMPORT_OBSERVATIONS || !f->has_boot || !f->nr)
		return;
	idx = xcalloc(f->nr, sizeof(*idx));
	for (size_t i = 0; i < f->nr; i++)
		idx[i] = i;
	sort_file = f;
	qsort(idx, f->nr, sizeof(*idx), cmp_row_run);
	sort_file = NULL;
	for (size_t k = 0; k < f->nr; k++) {
		const struct import_row *row = &f->rows[idx[k]];

		if (k > 0 && !same_setup(&f->rows[idx[start]], row))
			start = k;
		group_of[idx[k]] = idx[start];
		for (size_t j = start; j < k; j++)
			if (!strcmp(f->rows[idx[j]].metric, row->metric))
				iter_of[idx[k]]++;
	}
}

/*
 * Store a checked file in one transaction.  *ret_runs counts runs made;
 * *ret_import is the imports row.  -EEXIST when the same bytes were
 * imported before (err names that import).
 */
int import_store(struct db *db, struct import_file *f,
		 const struct strbuf *content, int64_t *ret_import,
		 size_t *ret_runs, struct strbuf *err)
{
	struct name_ids hosts = { STRVEC_INIT, NULL, 0 },
			kernels = { STRVEC_INIT, NULL, 0 };
	struct strbuf copy = STRBUF_INIT;
	_cleanup_free_ int64_t *run_of =
		xcalloc(f->nr ? f->nr : 1, sizeof(*run_of));
	_cleanup_free_ int *iter_of =
		xcalloc(f->nr ? f->nr : 1, sizeof(*iter_of));
	_cleanup_free_ size_t *group_of =
		xcalloc(f->nr ? f->nr : 1, sizeof(*group_of));
	int64_t import_id = 0;
	size_t nruns = 0;
	int r = -EIO;

	*ret_runs = 0;
	if (db_begin(db, err) < 0)
		return -EIO;
	{
		_cleanup_db_result_ struct db_result *res = NULL;

		if (runs_import_find(db, content->buf, &res, err) < 0)
			goto fail;
		if (db_nrows(res) > 0) {
			strbuf_addf(err,
				    "already imported (import #%s of %s on %s)",
				    db_get(res, 0, 0), db_get(res, 0, 1),
				    db_get(res, 0, 2));
			r = -EEXIST;
			goto fail;
		}
	}
	if (runs_import_insert(db, f->path, content->buf,
			       f->format == IMPORT_OBSERVATIONS ? "observations"
								: "summaries",
			       (int64_t)f->nr, &import_id, err) < 0)
		goto fail;
	/* Runs: one per boot group, else one per row. */
	group_rows(f, group_of, iter_of);
	for (size_t i = 0; i < f->nr; i++) {
		const struct import_row *row = &f->rows[i];
		int64_t host_id, kernel_id;

		if (group_of[i] != i)
			continue; /* its run is made with its first row */
		if (cached_id(db, &hosts, 1, row->host, f->path, &host_id,
			      err) < 0 ||
		    cached_id(db, &kernels, 0, row->kernel, f->path, &kernel_id,
			      err) < 0)
			goto fail;
		if (runs_import_insert_run(db, host_id, kernel_id,
					   row->workload, row->params,
					   row->boot, row->time, f->path,
					   import_id, &run_of[i], err) < 0)
			goto fail;
		nruns++;
	}
	for (size_t i = 0; i < f->nr; i++)
		run_of[i] = run_of[group_of[i]];
	if (ingest_results_copy_begin(db, err) < 0)
		goto fail;
	for (size_t i = 0; i < f->nr; i++) {
		const struct import_row *row = &f->rows[i];
		char run_id[24], value[32], n[24], sd[32];
		struct results_line line = {
			.run_id = run_id,
			.metric = row->metric,
			.iteration = iter_of[i],
			.value = value,
			.unit = row->unit,
			.direction = compare_better_name(row->better),
		};

		snprintf(run_id, sizeof(run_id), "%lld", (long long)run_of[i]);
		snprintf(value, sizeof(value), "%.17g", row->value);
		if (f->format == IMPORT_SUMMARIES) {
			snprintf(n, sizeof(n), "%lld", (long long)row->n);
			snprintf(sd, sizeof(sd), "%.17g", row->sd);
			line.n = n;
			line.stddev = sd;
		}
		ingest_results_line(&copy, &line);
		if (copy.len > (1u << 20) || i + 1 == f->nr) {
			if (db_copy_put(db, copy.buf, copy.len, err) < 0) {
				db_copy_end(db, err);
				goto fail;
			}
			strbuf_reset(&copy);
		}
	}
	if (db_copy_end(db, err) < 0)
		goto fail;
	if (runs_import_set_runs(db, import_id, (int64_t)nruns, err) < 0)
		goto fail;
	if (db_commit(db, err) < 0)
		goto fail_nocommit;
	*ret_import = import_id;
	*ret_runs = nruns;
	r = 0;
	goto out;
fail:
	db_rollback(db);
fail_nocommit:
	if (r == 0)
		r = -EIO;
out:
	name_ids_release(&hosts);
	name_ids_release(&kernels);
	strbuf_release(&copy);
	return r;
}
