/*
 * ingest.c - agent lines: check, summarise, store; see ingest.h.
 *
 * Checking is strict on purpose: a field of the wrong type, a string with
 * control characters, a number out of range or a line from another run
 * fails the run, with the line quoted, rather than storing something that
 * was not measured.  Storing builds one COPY text buffer per table and
 * sends each in one COPY, inside one transaction that first locks the
 * runs row and looks at ingested_at: that row is the key that makes a
 * second ingest of the same run a no-op.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/ingest.h"
#include "json.h"
#include "parse.h"
#include "banned.h"

#define RAW_LINES_CAP (1u << 20)
#define MAX_MESSAGE 4096
/* Sample times: seconds from an iteration's start, up to ~11 days. */
#define MAX_T 1e6

static const char *const line_types[] = { "hello",   "result", "sample",
					  "counter", "error",  "done" };
static const char *const directions[] = { "higher", "lower", "none", NULL };
static const char *const sources[] = { "schedstat", "stat", "task",
				       "cgroup",    "perf", NULL };
static const char *const statuses[] = { "ok",	   "failed",   "interrupted",
					"timeout", "bad-spec", NULL };

void ingest_quote_line(struct strbuf *out, const char *s, size_t len,
		       size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = len > max ? max : len;

	/* Printable ASCII as is, everything else as \xNN: the quote goes
	 * into logs and the database, whatever bytes the agent sent. */
	strbuf_addch(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			strbuf_addch(out, '\\');
			strbuf_addch(out, (char)c);
		} else if (c >= 0x20 && c < 0x7f) {
			strbuf_addch(out, (char)c);
		} else {
			strbuf_addstr(out, "\\x");
			strbuf_addch(out, hex[c >> 4]);
			strbuf_addch(out, hex[c & 15]);
		}
	}
	strbuf_addch(out, '"');
	if (len > max)
		strbuf_addf(out, "... (%zu bytes)", len);
}

void agent_line_release(struct agent_line *l)
{
	json_free(l->root);
	free(l->text_);
	memset(l, 0, sizeof(*l));
}

static int one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

/* A name-like string: 1..max bytes, no control characters (C0, DEL, C1,
 * bidi controls, the BOM). */
static int get_name(const struct json_value *o, const char *key, size_t max,
		    int required, const char **ret, struct strbuf *why)
{
	int r = json_get_string(o, key, max, ret, why);

	if (r == -ENOENT) {
		*ret = NULL;
		if (!required)
			return 0;
		strbuf_addf(why, "\"%s\" is missing", key);
		return -1;
	}
	if (r < 0)
		return -1;
	if (required && !**ret) {
		strbuf_addf(why, "\"%s\" is empty", key);
		return -1;
	}
	/* C0, DEL, C1, bidi controls, the BOM: what would act on a
	 * terminal or reorder a page that shows the name. */
	if (!printable_is_clean(*ret, strlen(*ret), 0)) {
		strbuf_addf(why, "\"%s\" holds a control character", key);
		return -1;
	}
	return 0;
}

/*
 * A message: what a program said (an error, a note), cut after max bytes.
 * It is kept whatever it holds -- refusing it would hide the real reason a
 * run failed (sysbench's errors span lines) -- with line breaks and tabs
 * as they are and every other control character written as \xNN, so it
 * prints as text.  *ret points into l (freed with it).
 */
static int get_text(const struct json_value *o, const char *key, size_t max,
		    int required, struct agent_line *l, const char **ret,
		    struct strbuf *why)
{
	const char *s;
	struct strbuf t = STRBUF_INIT;
	/* Longer than max: cut (on a character boundary), not refused. */
	int r = json_get_string(o, key, INGEST_MAX_LINE, &s, why);
	size_t len;

	*ret = NULL;
	if (r == -ENOENT) {
		if (!required)
			return 0;
		strbuf_addf(why, "\"%s\" is missing", key);
		return -1;
	}
	if (r < 0)
		return -1;
	len = strlen(s);
	if (len > max) {
		len = max;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			strbuf_addf(&t, "\\x%02x", c);
		else
			strbuf_addch(&t, (char)c);
	}
	if (len < strlen(s))
		strbuf_addf(&t, "... (%zu bytes in all)", strlen(s));
	if (required && !t.len) {
		strbuf_addf(why, "\"%s\" is empty", key);
		strbuf_release(&t);
		return -1;
	}
	free(l->text_);
	l->text_ = strbuf_detach(&t, NULL);
	*ret = l->text_;
	return 0;
}

int ingest_check_value(const char *unit, double value, struct strbuf *why)
{
	static const char *const time_units[] = { "s",	 "sec",	      "ms",
						  "us",	 "\xc2\xb5s", "ns",
						  "min", "h",	      NULL };

	if (!isfinite(value)) {
		strbuf_addstr(why, "not a finite number");
		return -1;
	}
	if (value < 0 && unit && one_of(unit, time_units)) {
		strbuf_addf(why, "%g is a negative time (unit %s)", value,
			    unit);
		return -1;
	}
	return 0;
}

static int get_number(const struct json_value *o, const char *key, double min,
		      double max, double *ret, struct strbuf *why)
{
	const struct json_value *v = json_get(o, key);

	if (!v) {
		strbuf_addf(why, "\"%s\" is missing", key);
		return -1;
	}
	if (json_number(v, ret) < 0) {
		strbuf_addf(why, "\"%s\": expected a number, got %s", key,
			    json_type_name(json_type_of(v)));
		if (json_type_of(v) == JSON_STRING) {
			strbuf_addch(why, ' ');
			ingest_quote_line(why, json_string(v),
					  json_string_len(v), 40);
		}
		return -1;
	}
	if (!isfinite(*ret) || *ret < min || *ret > max) {
		strbuf_addf(why, "\"%s\": %s is out of range", key,
			    json_number_text(v));
		return -1;
	}
	return 0;
}

static int get_iteration(const struct json_value *o,
			 const struct ingest_expect *ex, int64_t *ret,
			 struct strbuf *why)
{
	int64_t max = (int64_t)ex->iterations + ex->warmup - 1;
	int r = json_get_i64(o, "iteration", 0, max < 0 ? 0 : max, ret, why);

	if (r == -ENOENT) {
		strbuf_addstr(why, "\"iteration\" is missing");
		return -1;
	}
	return r < 0 ? -1 : 0;
}

static int check_fields(const struct json_value *o,
			const struct ingest_expect *ex, struct agent_line *l,
			struct strbuf *why)
{
	int r;

	switch (l->type) {
	case AGENT_HELLO:
		if (get_name(o, "agent_version", 64, 1, &l->name, why) < 0)
			return -1;
		l->info = json_get(o, "info");
		if (l->info && json_type_of(l->info) != JSON_OBJECT) {
			strbuf_addstr(why, "\"info\": expected an object");
			return -1;
		}
		return 0;
	case AGENT_RESULT:
		if (get_iteration(o, ex, &l->iteration, why) < 0)
			return -1;
		r = json_get_bool(o, "warmup", &l->warmup, why);
		if (r == -ENOENT) {
			strbuf_addstr(why, "\"warmup\" is missing");
			return -1;
		}
		if (r < 0)
			return -1;
		if (l->warmup != (l->iteration < ex->warmup)) {
			strbuf_addf(why,
				    "\"warmup\": iteration %lld is %sa warm-up "
				    "iteration (the spec asked for %d)",
				    (long long)l->iteration,
				    l->warmup ? "not " : "", ex->warmup);
			return -1;
		}
		if (get_name(o, "metric", INGEST_MAX_NAME, 1, &l->metric, why) <
			    0 ||
		    get_number(o, "value", -DBL_MAX, DBL_MAX, &l->value, why) <
			    0 ||
		    get_name(o, "unit", INGEST_MAX_UNIT, 0, &l->unit, why) <
			    0 ||
		    get_name(o, "direction", 8, 1, &l->direction, why) < 0)
			return -1;
		if (!l->unit)
			l->unit = "";
		if (ingest_check_value(l->unit, l->value, why) < 0)
			return -1;
		if (!one_of(l->direction, directions)) {
			strbuf_addstr(why, "\"direction\": expected higher, "
					   "lower or none");
			return -1;
		}
		return 0;
	case AGENT_SAMPLE:
		if (get_iteration(o, ex, &l->iteration, why) < 0 ||
		    get_name(o, "series", INGEST_MAX_NAME, 1, &l->series, why) <
			    0 ||
		    get_number(o, "t", 0, MAX_T, &l->t, why) < 0 ||
		    get_number(o, "value", -DBL_MAX, DBL_MAX, &l->value, why) <
			    0)
			return -1;
		return 0;
	case AGENT_COUNTER:
		if (get_iteration(o, ex, &l->iteration, why) < 0 ||
		    get_name(o, "source", 16, 1, &l->source, why) < 0 ||
		    get_name(o, "scope", INGEST_MAX_NAME, 0, &l->scope, why) <
			    0 ||
		    get_name(o, "name", INGEST_MAX_NAME, 1, &l->name, why) < 0)
			return -1;
		if (!one_of(l->source, sources)) {
			strbuf_addstr(why, "\"source\": expected schedstat, "
					   "stat, task, cgroup or perf");
			return -1;
		}
		if (!l->scope)
			l->scope = "";
		l->available = 1;
		r = json_get_bool(o, "available", &l->available, why);
		if (r < 0 && r != -ENOENT)
			return -1;
		if (!l->available)
			return get_text(o, "note", MAX_MESSAGE, 0, l, &l->note,
					why);
		return get_number(o, "value", -DBL_MAX, DBL_MAX, &l->value,
				  why);
	case AGENT_ERROR: {
		const char *blame = NULL;

		if (get_name(o, "blame", 16, 0, &blame, why) < 0)
			return -1;
		if (blame && strcmp(blame, "host")) {
			strbuf_addstr(why, "\"blame\": expected host");
			return -1;
		}
		l->host_blame = blame != NULL;
		return get_text(o, "message", MAX_MESSAGE, 1, l, &l->message,
				why);
	}
	case AGENT_DONE:
		if (get_name(o, "status", 16, 1, &l->status, why) < 0)
			return -1;
		if (!one_of(l->status, statuses)) {
			strbuf_addstr(why, "\"status\": expected ok, failed, "
					   "interrupted, timeout or bad-spec");
			return -1;
		}
		return get_number(o, "elapsed_s", 0, 1e9, &l->elapsed_s, why);
	}
	return -1;
}

int ingest_check_line(const char *line, size_t len,
		      const struct ingest_expect *ex, struct agent_line *ret,
		      struct strbuf *err)
{
	static const struct json_limits lim = { .max_depth = 8,
						.max_string = INGEST_MAX_LINE,
						.max_items = 10000 };
	struct strbuf why = STRBUF_INIT;
	const char *type;
	int64_t run_id;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (len > INGEST_MAX_LINE) {
		strbuf_addf(&why,
			    "the line is %zu bytes, over the %d-byte "
			    "limit",
			    len, INGEST_MAX_LINE);
		goto bad;
	}
	if (json_parse(line, len, &lim, &ret->root, &why) < 0)
		goto bad;
	if (json_type_of(ret->root) != JSON_OBJECT) {
		strbuf_addf(&why, "expected a JSON object, got %s",
			    json_type_name(json_type_of(ret->root)));
		goto bad;
	}
	r = json_get_string(ret->root, "type", 16, &type, &why);
	if (r == -ENOENT)
		strbuf_addstr(&why, "\"type\" is missing");
	if (r < 0)
		goto bad;
	for (r = 0; r < (int)ARRAY_SIZE(line_types); r++)
		if (!strcmp(type, line_types[r]))
			break;
	if (r == (int)ARRAY_SIZE(line_types)) {
		strbuf_addstr(&why, "unknown \"type\": ");
		strbuf_add_json_str(&why, type);
		goto bad;
	}
	ret->type = (enum agent_line_type)r;
	r = json_get_i64(ret->root, "run_id", 1, INT64_MAX, &run_id, &why);
	if (r == -ENOENT)
		strbuf_addstr(&why, "\"run_id\" is missing");
	if (r < 0)
		goto bad;
	if (run_id != ex->run_id) {
		strbuf_addf(&why, "\"run_id\" is %lld, not this run's %lld",
			    (long long)run_id, (long long)ex->run_id);
		goto bad;
	}
	if (check_fields(ret->root, ex, ret, &why) < 0)
		goto bad;
	strbuf_release(&why);
	return 0;
bad:
	strbuf_addf(err,
		    "bad agent line for run %lld (%s): ", (long long)ex->run_id,
		    why.buf);
	ingest_quote_line(err, line, len, 200);
	strbuf_release(&why);
	agent_line_release(ret);
	return -1;
}

void ingest_summary_release(struct ingest_summary *s)
{
	free(s->first_error);
	memset(s, 0, sizeof(*s));
}

static void add_line_to_summary(struct ingest_summary *s,
				const struct agent_line *l)
{
	s->lines++;
	switch (l->type) {
	case AGENT_RESULT:
		s->results++;
		break;
	case AGENT_SAMPLE:
		s->samples++;
		break;
	case AGENT_COUNTER:
		s->counters++;
		break;
	case AGENT_ERROR:
		s->errors++;
		if (!s->first_error) {
			s->first_error = xstrdup(l->message);
			s->host_fault = l->host_blame;
		}
		break;
	case AGENT_DONE:
		s->done = 1;
		snprintf(s->status, sizeof(s->status), "%s", l->status);
		s->elapsed_s = l->elapsed_s;
		break;
	case AGENT_HELLO:
		break;
	}
}

/*
 * Walk the lines of text; for each, check it and call fn.  Stops at the
 * first bad line, or a line after `done` (nothing may follow it).
 */
static int for_each_line(const char *text, size_t len,
			 const struct ingest_expect *ex,
			 int (*fn)(const struct agent_line *, void *),
			 void *ctx, struct ingest_summary *sum,
			 struct strbuf *err)
{
	const char *p = text, *end = text + len;

	memset(sum, 0, sizeof(*sum));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct agent_line line;

		if (l == 0) {
			p += 1;
			continue;
		}
		if (sum->done) {
			strbuf_addf(err,
				    "bad agent line for run %lld (a line "
				    "after \"done\"): ",
				    (long long)ex->run_id);
			ingest_quote_line(err, p, l, 200);
			return -1;
		}
		if (ingest_check_line(p, l, ex, &line, err) < 0)
			return -1;
		add_line_to_summary(sum, &line);
		if (fn && fn(&line, ctx) < 0) {
			agent_line_release(&line);
			return -1;
		}
		agent_line_release(&line);
		p += l + (nl ? 1 : 0);
	}
	return 0;
}

int ingest_check_all(const char *text, size_t len,
		     const struct ingest_expect *ex, struct ingest_summary *ret,
		     struct strbuf *err)
{
	return for_each_line(text, len, ex, NULL, NULL, ret, err);
}

void ingest_json_write(const struct json_value *v, struct strbuf *out)
{
	double d;
	int b;

	switch (json_type_of(v)) {
	case JSON_STRING:
		strbuf_add_json_strn(out, json_string(v), json_string_len(v));
		break;
	case JSON_NUMBER:
		json_number(v, &d);
		strbuf_add_json_double(out, d);
		break;
	case JSON_BOOL:
		json_bool(v, &b);
		strbuf_addstr(out, b ? "true" : "false");
		break;
	case JSON_ARRAY:
		strbuf_addch(out, '[');
		for (size_t i = 0; i < json_len(v); i++) {
			if (i)
				strbuf_addch(out, ',');
			ingest_json_write(json_at(v, i), out);
		}
		strbuf_addch(out, ']');
		break;
	case JSON_OBJECT:
		strbuf_addch(out, '{');
		for (size_t i = 0; i < json_len(v); i++) {
			if (i)
				strbuf_addch(out, ',');
			strbuf_add_json_str(out, json_key_at(v, i));
			strbuf_addch(out, ':');
			ingest_json_write(json_value_at(v, i), out);
		}
		strbuf_addch(out, '}');
		break;
	case JSON_NULL:
	default:
		strbuf_addstr(out, "null");
		break;
	}
}

/*
 * Numbers go to COPY as the agent wrote them: JSON's number syntax is a
 * subset of what float8 input accepts, the value was checked finite and in
 * range, and reprinting each with %.17g would cost more than the rest of
 * the line.
 */
struct copy_bufs {
	struct strbuf results, samples, counters, info;
	char run_id[24];
	struct db *db; /* results stream to it while lines are read */
	struct strbuf *err;
};

int ingest_results_copy_begin(struct db *db, struct strbuf *err)
{
	return db_copy_begin(db,
			     "COPY results (run_id, metric, iteration, warmup, "
			     "value, unit, direction, n, stddev) FROM STDIN",
			     err);
}

void ingest_results_line(struct strbuf *sb, const struct results_line *row)
{
	strbuf_addstr(sb, row->run_id);
	strbuf_addch(sb, '\t');
	db_copy_escape(sb, row->metric);
	strbuf_addf(sb, "\t%lld\t%c\t", row->iteration,
		    row->warmup ? 't' : 'f');
	strbuf_addstr(sb, row->value);
	strbuf_addch(sb, '\t');
	db_copy_escape(sb, row->unit);
	strbuf_addch(sb, '\t');
	strbuf_addstr(sb, row->direction);
	strbuf_addch(sb, '\t');
	db_copy_escape(sb, row->n);
	strbuf_addch(sb, '\t');
	db_copy_escape(sb, row->stddev);
	strbuf_addch(sb, '\n');
}

/* Results are sent in pieces of this size while the rest is parsed. */
#define COPY_CHUNK (256u << 10)

static int collect_line(const struct agent_line *l, void *ctx)
{
	struct copy_bufs *b = ctx;
	struct strbuf *sb;

	switch (l->type) {
	case AGENT_RESULT: {
		struct results_line row = {
			.run_id = b->run_id,
			.metric = l->metric,
			.iteration = (long long)l->iteration,
			.warmup = l->warmup,
			.value = json_number_text(json_get(l->root, "value")),
			.unit = l->unit,
			.direction = l->direction,
		};

		sb = &b->results;
		ingest_results_line(sb, &row);
		if (b->db && sb->len >= COPY_CHUNK) {
			if (db_copy_put(b->db, sb->buf, sb->len, b->err) < 0)
				return -1;
			strbuf_reset(sb);
		}
		break;
	}
	case AGENT_SAMPLE:
		sb = &b->samples;
		strbuf_addstr(sb, b->run_id);
		strbuf_addch(sb, '\t');
		db_copy_escape(sb, l->series);
		strbuf_addch(sb, '\t');
		strbuf_addstr(sb, json_number_text(json_get(l->root, "t")));
		strbuf_addch(sb, '\t');
		strbuf_addstr(sb, json_number_text(json_get(l->root, "value")));
		strbuf_addf(sb, "\t%lld\n", (long long)l->iteration);
		break;
	case AGENT_COUNTER:
		sb = &b->counters;
		strbuf_addstr(sb, b->run_id);
		strbuf_addf(sb, "\t%lld\t", (long long)l->iteration);
		db_copy_escape(sb, l->source);
		strbuf_addch(sb, '\t');
		db_copy_escape(sb, l->scope);
		strbuf_addch(sb, '\t');
		db_copy_escape(sb, l->name);
		strbuf_addch(sb, '\t');
		if (l->available)
			strbuf_addstr(sb, json_number_text(
						  json_get(l->root, "value")));
		else
			strbuf_addstr(sb, "\\N");
		strbuf_addf(sb, "\t%c\t", l->available ? 't' : 'f');
		db_copy_escape(sb, l->note);
		strbuf_addch(sb, '\n');
		break;
	case AGENT_HELLO:
		if (l->info && !b->info.len)
			ingest_json_write(l->info, &b->info);
		break;
	case AGENT_ERROR:
	case AGENT_DONE:
		break;
	}
	return 0;
}

static int copy_table(struct db *db, const char *sql, const struct strbuf *sb,
		      struct strbuf *err)
{
	if (!sb->len)
		return 0;
	if (db_copy_begin(db, sql, err) < 0)
		return -1;
	if (db_copy_put(db, sb->buf, sb->len, err) < 0) {
		struct strbuf ignore = STRBUF_INIT;

		db_copy_end(db, &ignore);
		strbuf_release(&ignore);
		return -1;
	}
	return db_copy_end(db, err);
}

/* Lock the run row; 1 = already ingested, 0 = go on, -1 = error. */
static int lock_run(struct db *db, int64_t run_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *status;
	int r;

	r = db_query(db, &res, err,
		     "SELECT status, ingested_at IS NOT NULL FROM runs "
		     "WHERE id = $1 FOR UPDATE",
		     db_i64(run_id), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no run %lld", (long long)run_id);
		return -1;
	}
	if (!strcmp(db_get(res, 0, 1), "t"))
		return 1;
	status = db_get(res, 0, 0);
	if (!strcmp(status, "aborted") || !strcmp(status, "imported")) {
		strbuf_addf(err, "run %lld is %s: not ingesting it",
			    (long long)run_id, status);
		return -1;
	}
	return 0;
}

static char *raw_head(const char *text, size_t len)
{
	size_t n = len > RAW_LINES_CAP ? RAW_LINES_CAP : len;
	char *s = xstrndup(text, n);

	/* A cut inside a UTF-8 sequence would make the text invalid. */
	while (n && ((unsigned char)s[n - 1] & 0xc0) == 0x80)
		s[--n] = '\0';
	if (n && (unsigned char)s[n - 1] >= 0xc0)
		s[--n] = '\0';
	return s;
}

int ingest_run(struct db *db, const struct ingest_expect *ex, const char *text,
	       size_t len, struct ingest_summary *ret_sum, struct strbuf *err)
{
	struct copy_bufs b = { .results = STRBUF_INIT,
			       .samples = STRBUF_INIT,
			       .counters = STRBUF_INIT,
			       .info = STRBUF_INIT };
	struct ingest_summary sum;
	_cleanup_free_ char *raw = NULL;
	int r = -1, locked;

	snprintf(b.run_id, sizeof(b.run_id), "%lld", (long long)ex->run_id);
	memset(&sum, 0, sizeof(sum));
	if (db_begin(db, err) < 0)
		goto out;
	locked = lock_run(db, ex->run_id, err);
	if (locked != 0) {
		db_rollback(db);
		r = locked > 0 ? 1 : -1;
		goto out;
	}
	/*
	 * Results go to the server while the lines are still being read and
	 * checked, so its work overlaps ours; samples and counters follow
	 * from memory.  A bad line ends the COPY and rolls it all back.
	 */
	if (ingest_results_copy_begin(db, err) < 0)
		goto fail;
	b.db = db;
	b.err = err;
	if (for_each_line(text, len, ex, collect_line, &b, &sum, err) < 0) {
		struct strbuf ignore = STRBUF_INIT;

		db_copy_end(db, &ignore);
		strbuf_release(&ignore);
		goto fail;
	}
	if (!sum.done || strcmp(sum.status, "ok")) {
		struct strbuf ignore = STRBUF_INIT;

		db_copy_end(db, &ignore);
		strbuf_release(&ignore);
		/* The run itself failed (its workload, or the agent died):
		 * not a failure to store it.  The caller names the run. */
		if (!sum.done)
			strbuf_addstr(err, "the agent's lines end without "
					   "\"done\" (the agent stopped)");
		else if (sum.host_fault)
			strbuf_addstr(err, "the host's fault, not the "
					   "workload's");
		else
			strbuf_addf(err, "the workload %s", sum.status);
		if (sum.done && sum.first_error)
			strbuf_addf(err, ": %s", sum.first_error);
		r = INGEST_RUN_FAILED;
		goto fail;
	}
	if ((b.results.len &&
	     db_copy_put(db, b.results.buf, b.results.len, err) < 0) ||
	    db_copy_end(db, err) < 0 ||
	    copy_table(db,
		       "COPY samples (run_id, series, t, value, iteration) "
		       "FROM STDIN",
		       &b.samples, err) < 0 ||
	    copy_table(db,
		       "COPY counters (run_id, iteration, source, scope, "
		       "name, value, available, note) FROM STDIN",
		       &b.counters, err) < 0)
		goto fail;
	raw = raw_head(text, len);
	if (db_query(db, NULL, err,
		     "UPDATE runs SET status = 'done', ingested_at = now(), "
		     "finished_at = coalesce(finished_at, now()), "
		     "agent_info = coalesce($2::jsonb, agent_info), "
		     "raw_lines = $3, error = NULL WHERE id = $1",
		     db_i64(ex->run_id), db_str(b.info.len ? b.info.buf : NULL),
		     db_str(raw), db_end()) < 0)
		goto fail;
	if (db_commit(db, err) < 0)
		goto out;
	r = 0;
	goto out;
fail:
	db_rollback(db);
out:
	if (r < 0 && !err->len)
		strbuf_addstr(err, "ingest failed");
	if (ret_sum)
		*ret_sum = sum;
	else
		ingest_summary_release(&sum);
	strbuf_release(&b.results);
	strbuf_release(&b.samples);
	strbuf_release(&b.counters);
	strbuf_release(&b.info);
	return r;
}

/* Set the run's final status (failed, expected-panic) with error and the
 * raw lines, unless it was already ingested. */
static int mark_ended(struct db *db, int64_t run_id, const char *status,
		      const char *error, const char *text, size_t len,
		      struct strbuf *err)
{
	_cleanup_free_ char *raw = NULL;
	size_t n = len > RAW_LINES_CAP ? RAW_LINES_CAP : len;
	int r;

	/* Failed lines may be anything: keep printable ASCII and newlines
	 * only, so the text is valid in any encoding. */
	raw = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		raw[i] = (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
				 ? (char)c
				 : '?';
	}
	raw[n] = '\0';

	r = db_query(db, NULL, err,
		     "UPDATE runs SET status = $4, error = $2, "
		     "raw_lines = $3, finished_at = coalesce(finished_at, "
		     "now()) WHERE id = $1 AND ingested_at IS NULL",
		     db_i64(run_id), db_str(error), db_str(raw), db_str(status),
		     db_end());
	return r;
}

int ingest_mark_failed(struct db *db, int64_t run_id, const char *error,
		       const char *text, size_t len, struct strbuf *err)
{
	return mark_ended(db, run_id, "failed", error, text, len, err);
}

int ingest_mark_expected_panic(struct db *db, int64_t run_id, const char *what,
			       const char *text, size_t len, struct strbuf *err)
{
	return mark_ended(db, run_id, "expected-panic", what, text, len, err);
}

int ingest_run_shape(struct db *db, int64_t run_id, struct db_result **ret,
		     struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, run_id);
	r = db_exec_args(db, ret, err,
			 "SELECT coalesce(iterations, 1), coalesce(warmup, 0) "
			 "FROM runs WHERE id = $1",
			 &a);
	db_args_clear(&a);
	return r;
}

int ingest_results_target(struct db *db, int64_t job, int64_t run,
			  const char *kernel, struct db_result **ret,
			  struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, job);
	db_args_i64(&a, run);
	db_args_str(&a, kernel);
	r = db_exec_args(
		db, ret, err,
		"SELECT CASE WHEN $1 <> 0 THEN EXISTS (SELECT 1 FROM "
		"jobs WHERE id = $1) WHEN $2 <> 0 THEN EXISTS (SELECT "
		"1 FROM runs WHERE id = $2) ELSE EXISTS (SELECT 1 FROM "
		"kernels WHERE name = $3) END",
		&a);
	db_args_clear(&a);
	return r;
}

int ingest_results_rows(struct db *db, int64_t job, int64_t run,
			const char *kernel, const char *workload,
			const struct strvec *keys, const struct strvec *vals,
			struct db_result **ret, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, job);
	db_args_i64(&a, run);
	db_args_str(&a, kernel);
	db_args_str(&a, workload);
	db_args_text_array(&a, keys);
	db_args_text_array(&a, vals);
	r = db_exec_args(db, ret, err,
			 "SELECT r.job_id, r.id, h.name, k.name, r.workload, "
			 "r.params::text, x.iteration, x.warmup, x.metric, "
			 "x.value, x.unit, x.direction FROM results x JOIN "
			 "runs r ON r.id = x.run_id JOIN hosts h ON h.id = "
			 "r.host_id JOIN kernels k ON k.id = r.kernel_id WHERE "
			 "CASE WHEN $1 <> 0 THEN r.job_id = $1 WHEN $2 <> 0 "
			 "THEN r.id = $2 ELSE k.name = $3 END "
			 "AND ($4::text IS NULL OR r.workload = $4) "
			 "AND NOT EXISTS (SELECT 1 FROM unnest($5::text[], "
			 "$6::text[]) AS f(k, v) WHERE r.params ->> f.k IS "
			 "DISTINCT FROM f.v) "
			 "ORDER BY r.id, x.metric, x.iteration",
			 &a);
	db_args_clear(&a);
	return r;
}
