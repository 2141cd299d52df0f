/*
 * command.c - plan-defined command workloads: their definition, its JSON
 * form in the run spec, named-group regular expressions, and the four
 * output parsers; see command.h.
 *
 * Output comes from a program the farm does not control, so it is read
 * like any untrusted input: line by line, every line length-checked,
 * every number through parse.h (NaN and infinities refused), and any
 * failure quotes the line it happened on so the user can see what the
 * program said.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "parse.h"
#include "banned.h"

void cmd_def_init(struct cmd_def *d)
{
	memset(d, 0, sizeof(*d));
	strvec_init(&d->argv);
	strvec_init(&d->patterns);
	d->separator = ':';
}

void cmd_def_release(struct cmd_def *d)
{
	for (size_t i = 0; i < d->nmetrics; i++) {
		free(d->metrics[i].name);
		free(d->metrics[i].key);
		free(d->metrics[i].unit);
	}
	free(d->metrics);
	free(d->name);
	strvec_clear(&d->argv);
	strvec_clear(&d->patterns);
	cmd_def_init(d);
}

static const char *const format_names[] = { "keyvalue", "regex", "csv",
					    "jsonl" };
static const char *const stream_names[] = { "stdout", "stderr", "both" };

const char *cmd_format_name(enum cmd_format f)
{
	return format_names[f];
}

int cmd_format_from_name(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(format_names[i], s))
			return i;
	return -1;
}

const char *cmd_stream_name(enum cmd_stream s)
{
	return stream_names[s];
}

int cmd_stream_from_name(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(stream_names[i], s))
			return i;
	return -1;
}

static int all_in(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && strspn(s, set) == n;
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

int cmd_metric_name_ok(const char *s)
{
	return all_in(s, ALNUM "._:/-", 128);
}

int cmd_name_ok(const char *s)
{
	return all_in(s, ALNUM "._-", 64);
}

/* ---- named-group regular expressions ------------------------------ */

void cmd_regex_free(struct cmd_regex *re)
{
	if (re->compiled)
		regfree(&re->re);
	for (size_t i = 0; i <= CMD_MAX_GROUPS; i++)
		free(re->names[i]);
	memset(re, 0, sizeof(*re));
}

/* The length of the bracket expression starting at p[0] == '['. */
static size_t bracket_len(const char *p)
{
	size_t i = 1;

	if (p[i] == '^')
		i++;
	if (p[i] == ']')
		i++;
	while (p[i] && p[i] != ']') {
		if (p[i] == '[' &&
		    (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
			char close = p[i + 1];
			const char *e = p + i + 2;

			while (*e && !(e[0] == close && e[1] == ']'))
				e++;
			if (!*e)
				break;
			i = (size_t)(e - p) + 2;
			continue;
		}
		i++;
	}
	if (p[i] == ']')
		i++;
	return i;
}

/* Copy the bracket expression at p to out, as it is; its length. */
static size_t copy_bracket(const char *p, struct strbuf *out)
{
	size_t n = bracket_len(p);

	strbuf_add(out, p, n);
	return n;
}

/* What makes a pattern dear to compile or match (ere_expansion()). */
struct ere_cost {
	int backref; /* a back-reference (\1..\9) */
	int repeats; /* repeat operators: * + ? {m,n} */
	int stacked; /* the most repeats on one atom, group inside group */
};

/*
 * How many copies of its parts a POSIX extended regular expression
 * becomes when compiled (glibc copies the atom before "+" once, before
 * "{m,n}" max(m, n) times, and so on, group inside group): an estimate,
 * saturating just above limit.  "x+++...+" doubles at each "+", and a
 * 100-byte pattern of that shape took regcomp() past 2 GB (found by the
 * fuzzers, through a plan and through a run spec).  cost gets the rest:
 * back-references make matching exponential, and repeats stacked three
 * deep ('.??+' 33 times) or long runs of them ('1' and 31 '?', then '+')
 * keep glibc's epsilon closures busy for seconds to minutes (found by
 * the plan fuzzer).
 */
static double ere_expansion(const char *p, double limit, struct ere_cost *cost)
{
	double total[CMD_MAX_GROUPS + 2] = { 0 },
				      alt[CMD_MAX_GROUPS + 2] = { 0 };
	int stack[CMD_MAX_GROUPS + 2] = { 0 };
	double last = 0;
	int depth = 0, laststack = 0;

	memset(cost, 0, sizeof(*cost));
	while (*p) {
		double f = 0;

		if (*p == '\\') {
			if (p[1] >= '1' && p[1] <= '9')
				cost->backref = 1;
			p += p[1] ? 2 : 1;
			last = 1;
			laststack = 0;
		} else if (*p == '[') {
			p += bracket_len(p);
			last = 1;
			laststack = 0;
		} else if (*p == '(') {
			p++;
			if (depth < CMD_MAX_GROUPS + 1) {
				depth++;
				total[depth] = alt[depth] = 0;
				stack[depth] = 0;
			}
			last = 0;
			continue;
		} else if (*p == ')' && depth > 0) {
			p++;
			last = (total[depth] > alt[depth] ? total[depth]
							  : alt[depth]) +
			       1;
			laststack = stack[depth];
			depth--;
		} else if (*p == '|') {
			p++;
			if (total[depth] > alt[depth])
				alt[depth] = total[depth];
			total[depth] = 0;
			last = 0;
			continue;
		} else if (*p == '*' || *p == '?') {
			p++;
			f = 1;
		} else if (*p == '+') {
			p++;
			f = 2;
		} else if (*p == '{' &&
			   ((p[1] >= '0' && p[1] <= '9') ||
			    (p[1] == ',' && p[2] >= '0' && p[2] <= '9'))) {
			char *e;
			unsigned long m = strtoul(p + 1, &e, 10), n = m;

			if (*e == ',')
				n = e[1] >= '0' && e[1] <= '9'
					    ? strtoul(e + 1, &e, 10)
					    : (e++, m + 1);
			if (*e != '}') {
				p++;
				last = 1;
				laststack = 0;
			} else {
				p = e + 1;
				f = (double)(m > n ? m : n);
				if (f < 1)
					f = 1;
			}
		} else {
			p++;
			last = 1;
			laststack = 0;
		}
		if (f) {
			/* the atom before the repeat, f times over */
			total[depth] += last * (f - 1);
			last *= f;
			cost->repeats++;
			laststack++;
		} else {
			total[depth] += last;
		}
		if (laststack > stack[depth])
			stack[depth] = laststack;
		if (laststack > cost->stacked)
			cost->stacked = laststack;
		if (total[depth] > limit || last > limit)
			return limit + 1;
	}
	while (depth > 0) {
		if (total[depth] > alt[depth])
			alt[depth] = total[depth];
		depth--;
	}
	return total[0] > alt[0] ? total[0] : alt[0];
}

int cmd_regex_compile(const char *pattern, struct cmd_regex *re,
		      struct strbuf *err)
{
	struct strbuf ere = STRBUF_INIT;
	const char *p = pattern;
	int rc = -1, r;

	memset(re, 0, sizeof(*re));
	if (!*pattern || strlen(pattern) > 4096) {
		strbuf_addstr(err, "a pattern of 1..4096 bytes");
		return -1;
	}
	while (*p) {
		if (*p == '\\') {
			if (!p[1]) {
				strbuf_addstr(err, "a pattern ending in '\\'");
				goto out;
			}
			if (p[1] == 'd')
				strbuf_addstr(&ere, "[0-9]");
			else if (p[1] == 'D')
				strbuf_addstr(&ere, "[^0-9]");
			else
				strbuf_add(&ere, p, 2);
			p += 2;
		} else if (*p == '[') {
			p += copy_bracket(p, &ere);
		} else if (*p == '(') {
			const char *name = NULL;
			size_t nlen = 0;

			if (p[1] == '?') {
				const char *q = p + 2;

				if (*q == 'P')
					q++;
				if (*q == ':') {
					p = q + 1;
				} else if (*q == '<') {
					name = q + 1;
					nlen = strspn(name, ALNUM "_");
					if (!nlen || nlen > 64 ||
					    name[nlen] != '>' ||
					    (name[0] >= '0' &&
					     name[0] <= '9')) {
						strbuf_addf(
							err,
							"a group name of "
							"letters, digits and "
							"'_' after '(?<' at "
							"offset %zu",
							(size_t)(p - pattern));
						goto out;
					}
					p = name + nlen + 1;
				} else {
					strbuf_addf(err,
						    "unsupported construct "
						    "'(?%c' at offset %zu "
						    "(POSIX extended regular "
						    "expressions with named "
						    "groups)",
						    *q ? *q : ' ',
						    (size_t)(p - pattern));
					goto out;
				}
			} else {
				p++;
			}
			if (re->ngroups >= CMD_MAX_GROUPS) {
				strbuf_addf(err, "more than %d groups",
					    CMD_MAX_GROUPS);
				goto out;
			}
			re->ngroups++;
			if (name) {
				for (size_t i = 1; i < re->ngroups; i++)
					if (re->names[i] &&
					    strlen(re->names[i]) == nlen &&
					    !strncmp(re->names[i], name,
						     nlen)) {
						strbuf_addf(err,
							    "group name '%s' "
							    "given twice",
							    re->names[i]);
						goto out;
					}
				re->names[re->ngroups] = xstrndup(name, nlen);
			}
			strbuf_addch(&ere, '(');
		} else {
			strbuf_addch(&ere, *p++);
		}
	}
	{
		struct ere_cost cost;

		if (ere_expansion(ere.buf, CMD_MAX_EXPANSION, &cost) >
		    CMD_MAX_EXPANSION) {
			strbuf_addf(
				err,
				"a pattern whose repeats multiply it more "
				"than %d times (repeats of repeats, such as "
				"'a++++++++++++++' or '(a{100}){100}')",
				CMD_MAX_EXPANSION);
			goto out;
		}
		if (cost.stacked > CMD_MAX_STACKED) {
			strbuf_addf(err,
				    "more than %d repeats on one atom (such as "
				    "'a??+' or '((a?)+)*'): compiling them can "
				    "take minutes",
				    CMD_MAX_STACKED);
			goto out;
		}
		if (cost.repeats > CMD_MAX_REPEATS) {
			strbuf_addf(err,
				    "more than %d repeat operators (* + ? "
				    "{m,n}) in one pattern",
				    CMD_MAX_REPEATS);
			goto out;
		}
		if (cost.backref) {
			strbuf_addstr(err, "a back-reference (\\1..\\9): "
					   "not supported (matching with them "
					   "can take exponential time)");
			goto out;
		}
	}
	r = regcomp(&re->re, ere.buf, REG_EXTENDED);
	if (r) {
		char buf[256];

		regerror(r, &re->re, buf, sizeof(buf));
		strbuf_addf(err, "not a valid regular expression: %s", buf);
		goto out;
	}
	re->compiled = 1;
	rc = 0;
out:
	strbuf_release(&ere);
	return rc;
}

/* ---- the definition --------------------------------------------------- */

static int find_key(const struct cmd_def *d, const char *key, size_t n)
{
	for (size_t i = 0; i < d->nmetrics; i++)
		if (strlen(d->metrics[i].key) == n &&
		    !strncmp(d->metrics[i].key, key, n))
			return (int)i;
	return -1;
}

int cmd_def_check(const struct cmd_def *d, struct strbuf *field,
		  struct strbuf *err)
{
	size_t total = 0;

	if (!d->name || !cmd_name_ok(d->name)) {
		strbuf_addstr(field, "name");
		strbuf_addstr(err, "a name of 1..64 bytes of [A-Za-z0-9._-]");
		return -1;
	}
	if (!d->argv.nr || d->argv.nr > CMD_MAX_ARGS) {
		strbuf_addstr(field, "argv");
		strbuf_addf(err, "a program and its arguments: 1..%d words",
			    CMD_MAX_ARGS);
		return -1;
	}
	for (size_t i = 0; i < d->argv.nr; i++) {
		size_t n = strlen(d->argv.v[i]);

		if ((i == 0 && !n) || n > CMD_MAX_ARG) {
			strbuf_addf(field, "argv[%zu]", i);
			strbuf_addf(err, "a word of %d..%d bytes", i ? 0 : 1,
				    CMD_MAX_ARG);
			return -1;
		}
		total += n;
	}
	if (total > 65536) {
		strbuf_addstr(field, "argv");
		strbuf_addstr(err, "at most 64 KiB of arguments in all");
		return -1;
	}
	if (!d->nmetrics || d->nmetrics > CMD_MAX_METRICS) {
		strbuf_addstr(field, "metrics");
		strbuf_addf(err, "1..%d declared metrics", CMD_MAX_METRICS);
		return -1;
	}
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct cmd_metric *m = &d->metrics[i];

		if (!cmd_metric_name_ok(m->name)) {
			strbuf_addf(field, "metrics[%zu].name", i);
			strbuf_addstr(err, "a metric name of 1..128 bytes of "
					   "[A-Za-z0-9._:/-]");
			return -1;
		}
		if (!*m->key || strlen(m->key) > 128 ||
		    strcspn(m->key, "\n\r") != strlen(m->key)) {
			strbuf_addf(field, "metrics[%zu].key", i);
			strbuf_addstr(err, "a key of 1..128 bytes on one line");
			return -1;
		}
		if (strlen(m->unit) > 32) {
			strbuf_addf(field, "metrics[%zu].unit", i);
			strbuf_addstr(err, "a unit of at most 32 bytes");
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->metrics[j].name, m->name) ||
			    !strcmp(d->metrics[j].key, m->key)) {
				strbuf_addf(field, "metrics[%zu]", i);
				strbuf_addf(err,
					    "metric '%s' (key '%s') repeats "
					    "an earlier name or key",
					    m->name, m->key);
				return -1;
			}
	}
	if (d->format == CMD_REGEX) {
		int *seen = xcalloc(d->nmetrics, sizeof(int));
		int rc = 0;

		if (!d->patterns.nr || d->patterns.nr > CMD_MAX_PATTERNS) {
			strbuf_addstr(field, "patterns");
			strbuf_addf(err, "1..%d patterns", CMD_MAX_PATTERNS);
			free(seen);
			return -1;
		}
		for (size_t i = 0; i < d->patterns.nr && !rc; i++) {
			struct cmd_regex re;

			if (cmd_regex_compile(d->patterns.v[i], &re, err) < 0) {
				strbuf_addf(field, "patterns[%zu]", i);
				rc = -1;
			}
			for (size_t g = 1; !rc && g <= re.ngroups; g++) {
				int k;

				if (!re.names[g])
					continue;
				k = find_key(d, re.names[g],
					     strlen(re.names[g]));
				if (k < 0) {
					strbuf_addf(field, "patterns[%zu]", i);
					strbuf_addf(err,
						    "group '%s' is not a "
						    "declared metric",
						    re.names[g]);
					rc = -1;
				} else {
					seen[k] = 1;
				}
			}
			cmd_regex_free(&re);
		}
		for (size_t i = 0; i < d->nmetrics && !rc; i++)
			if (!seen[i]) {
				strbuf_addf(field, "metrics[%zu]", i);
				strbuf_addf(err,
					    "metric '%s': no pattern has a "
					    "group (?<%s>...)",
					    d->metrics[i].name,
					    d->metrics[i].key);
				rc = -1;
			}
		free(seen);
		if (rc)
			return -1;
	} else if (d->patterns.nr) {
		strbuf_addstr(field, "patterns");
		strbuf_addstr(err, "patterns go with the regex format only");
		return -1;
	}
	if ((d->format == CMD_KEYVALUE || d->format == CMD_CSV) &&
	    (d->separator == '\n' || d->separator == '\r' ||
	     d->separator == '"' || !d->separator)) {
		strbuf_addstr(field, "separator");
		strbuf_addstr(err, "one character, not a newline or '\"'");
		return -1;
	}
	return 0;
}

void cmd_def_to_json(const struct cmd_def *d, struct strbuf *out)
{
	strbuf_addstr(out, "{\"name\":");
	strbuf_add_json_str(out, d->name);
	strbuf_addstr(out, ",\"argv\":[");
	for (size_t i = 0; i < d->argv.nr; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_add_json_str(out, d->argv.v[i]);
	}
	strbuf_addf(out, "],\"timeout_ms\":%lld,", (long long)d->timeout_ms);
	if (d->root)
		strbuf_addstr(out, "\"root\":true,");
	strbuf_addstr(out, "\"format\":");
	strbuf_add_json_str(out, cmd_format_name(d->format));
	strbuf_addstr(out, ",\"stream\":");
	strbuf_add_json_str(out, cmd_stream_name(d->stream));
	if (d->format == CMD_KEYVALUE || d->format == CMD_CSV) {
		char sep[2] = { d->separator, 0 };

		strbuf_addstr(out, ",\"separator\":");
		strbuf_add_json_str(out, sep);
	}
	if (d->format == CMD_REGEX) {
		strbuf_addstr(out, ",\"patterns\":[");
		for (size_t i = 0; i < d->patterns.nr; i++) {
			if (i)
				strbuf_addch(out, ',');
			strbuf_add_json_str(out, d->patterns.v[i]);
		}
		strbuf_addch(out, ']');
	}
	strbuf_addstr(out, ",\"metrics\":[");
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct cmd_metric *m = &d->metrics[i];

		strbuf_addstr(out, i ? ",{\"name\":" : "{\"name\":");
		strbuf_add_json_str(out, m->name);
		strbuf_addstr(out, ",\"key\":");
		strbuf_add_json_str(out, m->key);
		strbuf_addstr(out, ",\"unit\":");
		strbuf_add_json_str(out, m->unit);
		strbuf_addstr(out, ",\"direction\":");
		strbuf_add_json_str(out, m->direction);
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, "]}");
}

static const char *direction_of(const char *s)
{
	if (!strcmp(s, "higher"))
		return "higher";
	if (!strcmp(s, "lower"))
		return "lower";
	if (!strcmp(s, "none"))
		return "none";
	return NULL;
}

/* The strings of JSON array a (at most max) into sv; -1 if not that. */
static int string_array(const struct json_value *a, size_t max,
			struct strvec *sv)
{
	if (json_type_of(a) != JSON_ARRAY || json_len(a) > max)
		return -1;
	for (size_t i = 0; i < json_len(a); i++) {
		const char *s = json_string(json_at(a, i));

		if (!s)
			return -1;
		strvec_push(sv, s);
	}
	return 0;
}

int cmd_def_from_json(const struct json_value *o, struct cmd_def *d,
		      struct strbuf *field, struct strbuf *err)
{
	static const char *const known[] = {
		"name",	     "argv",	 "timeout_ms", "format", "stream",
		"separator", "patterns", "metrics",    "root",	 NULL
	};
	const struct json_value *v;
	const char *s;
	size_t mark = field->len;
	int r;

	if (json_type_of(o) != JSON_OBJECT) {
		strbuf_addstr(err, "expected an object");
		return -1;
	}
	for (size_t i = 0; i < json_len(o); i++) {
		const char *key = json_key_at(o, i);
		int ok = 0;

		for (size_t k = 0; known[k]; k++)
			ok |= !strcmp(known[k], key);
		if (!ok) {
			strbuf_addf(field, ".%s", key);
			strbuf_addf(err, "unknown field \"%s\"", key);
			return -1;
		}
	}
	if (json_get_string(o, "name", 64, &s, err) < 0) {
		strbuf_addstr(field, ".name");
		return -1;
	}
	d->name = xstrdup(s);
	if (string_array(json_get(o, "argv"), CMD_MAX_ARGS, &d->argv) < 0) {
		strbuf_addstr(field, ".argv");
		strbuf_addstr(err, "\"argv\": expected an array of strings");
		return -1;
	}
	r = json_get_i64(o, "timeout_ms", 0, 7LL * 24 * 3600 * 1000,
			 &d->timeout_ms, err);
	if (r == -EINVAL) {
		strbuf_addstr(field, ".timeout_ms");
		return -1;
	}
	v = json_get(o, "root");
	if (v && json_bool(v, &d->root) < 0) {
		strbuf_addstr(field, ".root");
		strbuf_addstr(err, "\"root\": expected true or false");
		return -1;
	}
	if (json_get_string(o, "format", 16, &s, err) < 0 ||
	    (r = cmd_format_from_name(s)) < 0) {
		strbuf_addstr(field, ".format");
		strbuf_addstr(err,
			      " (\"format\": keyvalue, regex, csv or jsonl)");
		return -1;
	}
	d->format = (enum cmd_format)r;
	d->separator = d->format == CMD_CSV ? ',' : ':';
	r = json_get_string(o, "stream", 16, &s, err);
	if (r == 0 && (r = cmd_stream_from_name(s)) >= 0)
		d->stream = (enum cmd_stream)r;
	else if (r != -ENOENT) {
		strbuf_addstr(field, ".stream");
		strbuf_addstr(err, " (\"stream\": stdout, stderr or both)");
		return -1;
	}
	r = json_get_string(o, "separator", 1, &s, err);
	if (r == 0 && strlen(s) == 1)
		d->separator = s[0];
	else if (r != -ENOENT) {
		strbuf_addstr(field, ".separator");
		strbuf_addstr(err, " (\"separator\": one character)");
		return -1;
	}
	v = json_get(o, "patterns");
	if (v && string_array(v, CMD_MAX_PATTERNS, &d->patterns) < 0) {
		strbuf_addstr(field, ".patterns");
		strbuf_addstr(err,
			      "\"patterns\": expected an array of strings");
		return -1;
	}
	v = json_get(o, "metrics");
	if (json_type_of(v) != JSON_ARRAY || json_len(v) > CMD_MAX_METRICS) {
		strbuf_addstr(field, ".metrics");
		strbuf_addstr(err, "\"metrics\": expected an array of objects");
		return -1;
	}
	d->metrics =
		xcalloc(json_len(v) ? json_len(v) : 1, sizeof(*d->metrics));
	for (size_t i = 0; i < json_len(v); i++) {
		const struct json_value *m = json_at(v, i);
		struct cmd_metric *cm = &d->metrics[d->nmetrics];
		const char *name = NULL, *key = NULL, *unit = NULL, *dir = NULL;

		if (json_get_string(m, "name", 128, &name, err) < 0 ||
		    json_get_string(m, "key", 128, &key, err) < 0 ||
		    json_get_string(m, "unit", 32, &unit, err) < 0 ||
		    json_get_string(m, "direction", 8, &dir, err) < 0 ||
		    !direction_of(dir) || json_len(m) != 4) {
			strbuf_addf(field, ".metrics[%zu]", i);
			strbuf_addstr(err, " (a metric is {name, key, unit, "
					   "direction: higher|lower|none})");
			return -1;
		}
		cm->name = xstrdup(name);
		cm->key = xstrdup(key);
		cm->unit = xstrdup(unit);
		cm->direction = direction_of(dir);
		d->nmetrics++;
	}
	strbuf_addch(field, '.');
	if (cmd_def_check(d, field, err) < 0)
		return -1;
	strbuf_setlen(field, mark);
	return 0;
}

/* ---- output parsing ------------------------------------------------- */

struct out_state {
	const struct cmd_def *d;
	double *values;
	int *have;
	struct strbuf *err;
	size_t lineno;
	int failed;
	/* regex */
	struct cmd_regex *res;
	/* csv */
	struct strvec header;
	int *column; /* per metric: its column, or -1 */
	int have_header;
	size_t rows;
};

/* Append line (cut at 200 bytes, control bytes as '?') in quotes. */
static void quote_line(struct strbuf *sb, const char *line, size_t len)
{
	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len && i < 200; i++) {
		unsigned char c = (unsigned char)line[i];

		strbuf_addch(sb, c < 0x20 || c == 0x7f ? '?' : c);
	}
	if (len > 200)
		strbuf_addstr(sb, "...");
	strbuf_addch(sb, '"');
}

__attribute__((format(printf, 4, 5))) static void
line_fail(struct out_state *st, const char *line, size_t len, const char *fmt,
	  ...)
{
	va_list ap;

	if (st->failed)
		return;
	st->failed = 1;
	strbuf_addf(st->err, "line %zu: ", st->lineno);
	quote_line(st->err, line, len);
	strbuf_addstr(st->err, ": ");
	va_start(ap, fmt);
	strbuf_vaddf(st->err, fmt, ap);
	va_end(ap);
}

/* Store the number text s (its whole text) for metric k. */
static void put_value(struct out_state *st, int k, const char *s,
		      const char *line, size_t len)
{
	double v;

	if (parse_double(s, -1e300, 1e300, &v, NULL) < 0) {
		line_fail(st, line, len,
			  "the value of '%s' is not a finite number",
			  st->d->metrics[k].key);
		return;
	}
	st->values[k] = v;
	st->have[k] = 1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static void kv_line(struct out_state *st, char *line, size_t len)
{
	char *sep = strchr(line, st->d->separator), *key, *val, *end;
	char *copy;
	int k;

	if (!sep)
		return;
	copy = xstrndup(line, len);
	*sep = '\0';
	key = trim(line);
	k = find_key(st->d, key, strlen(key));
	if (k >= 0) {
		val = trim(sep + 1);
		end = val + strcspn(val, " \t");
		*end = '\0';
		put_value(st, k, val, copy, len);
	}
	free(copy);
}

static void regex_line(struct out_state *st, char *line, size_t len)
{
	regmatch_t m[CMD_MAX_GROUPS + 1];

	for (size_t p = 0; p < st->d->patterns.nr && !st->failed; p++) {
		struct cmd_regex *re = &st->res[p];

		if (regexec(&re->re, line, re->ngroups + 1, m, 0))
			continue;
		for (size_t g = 1; g <= re->ngroups && !st->failed; g++) {
			char *text;
			int k;

			if (!re->names[g] || m[g].rm_so < 0)
				continue;
			k = find_key(st->d, re->names[g], strlen(re->names[g]));
			if (k < 0)
				continue;
			text = xstrndup(line + m[g].rm_so,
					(size_t)(m[g].rm_eo - m[g].rm_so));
			put_value(st, k, text, line, len);
			free(text);
		}
	}
}

/* Split a CSV line at sep; fields trimmed, one pair of quotes removed. */
static void csv_split(const char *line, char sep, struct strvec *out)
{
	struct strvec raw = STRVEC_INIT;

	strvec_split(&raw, line, sep);
	for (size_t i = 0; i < raw.nr; i++) {
		char *f = trim(raw.v[i]);
		size_t n = strlen(f);

		if (n >= 2 && f[0] == '"' && f[n - 1] == '"') {
			f[n - 1] = '\0';
			f++;
		}
		strvec_push(out, f);
	}
	strvec_clear(&raw);
}

static void csv_line(struct out_state *st, char *line, size_t len)
{
	struct strvec f = STRVEC_INIT;

	csv_split(line, st->d->separator, &f);
	if (!st->have_header) {
		st->have_header = 1;
		strvec_clear(&st->header);
		strvec_pushv(&st->header, (const char *const *)f.v);
		for (size_t i = 0; i < st->d->nmetrics; i++) {
			st->column[i] = -1;
			for (size_t c = 0; c < f.nr; c++)
				if (!strcmp(f.v[c], st->d->metrics[i].key))
					st->column[i] = (int)c;
			if (st->column[i] < 0) {
				line_fail(st, line, len,
					  "the header has no column '%s'",
					  st->d->metrics[i].key);
				break;
			}
		}
	} else if (f.nr != st->header.nr) {
		line_fail(st, line, len, "%zu fields where the header has %zu",
			  f.nr, st->header.nr);
	} else {
		st->rows++;
		for (size_t i = 0; i < st->d->nmetrics && !st->failed; i++)
			put_value(st, (int)i, f.v[st->column[i]], line, len);
	}
	strvec_clear(&f);
}

static void jsonl_line(struct out_state *st, char *line, size_t len)
{
	const struct json_limits lim = { 16, 4096, 65536 };
	struct json_value *doc = NULL;
	struct strbuf why = STRBUF_INIT;

	if (json_parse(line, len, &lim, &doc, &why) < 0 ||
	    json_type_of(doc) != JSON_OBJECT) {
		line_fail(st, line, len, "not a JSON object%s%s",
			  why.len ? ": " : "", why.buf);
		goto out;
	}
	for (size_t i = 0; i < st->d->nmetrics && !st->failed; i++) {
		const struct json_value *v =
			json_get(doc, st->d->metrics[i].key);
		double x;

		if (!v)
			continue;
		if (json_number(v, &x) < 0) {
			line_fail(st, line, len,
				  "field '%s' is %s, not a number",
				  st->d->metrics[i].key,
				  json_type_name(json_type_of(v)));
			break;
		}
		if (json_number_text(v))
			put_value(st, (int)i, json_number_text(v), line, len);
	}
out:
	json_free(doc);
	strbuf_release(&why);
}

int cmd_parse_output(const struct cmd_def *d, const char *text, size_t len,
		     double *values, struct strbuf *err)
{
	struct out_state st;
	const char *p = text, *end = text + len;
	int rc = -1;

	memset(&st, 0, sizeof(st));
	st.d = d;
	st.values = values;
	st.err = err;
	st.have = xcalloc(d->nmetrics ? d->nmetrics : 1, sizeof(int));
	st.column = xcalloc(d->nmetrics ? d->nmetrics : 1, sizeof(int));
	strvec_init(&st.header);
	if (len > CMD_MAX_OUTPUT) {
		strbuf_addf(err,
			    "the output is %zu bytes, more than the %u MiB "
			    "a command may print",
			    len, CMD_MAX_OUTPUT >> 20);
		goto out;
	}
	if (d->format == CMD_REGEX) {
		st.res = xcalloc(d->patterns.nr ? d->patterns.nr : 1,
				 sizeof(*st.res));
		for (size_t i = 0; i < d->patterns.nr; i++)
			if (cmd_regex_compile(d->patterns.v[i], &st.res[i],
					      err) < 0)
				goto out;
	}
	while (p < end && !st.failed) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line;

		st.lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n > CMD_MAX_LINE) {
			line_fail(&st, p, n,
				  "a line of %zu bytes, more than %d", n,
				  CMD_MAX_LINE);
			break;
		}
		if (memchr(p, '\0', n)) {
			line_fail(&st, p, n, "a NUL byte in the output");
			break;
		}
		line = xstrndup(p, n);
		if (*trim(line)) {
			/* trim() cut the line's trailing blanks in place:
			 * the readers get the length of what is left. */
			n = strlen(line);
			switch (d->format) {
			case CMD_KEYVALUE:
				kv_line(&st, line, n);
				break;
			case CMD_REGEX:
				regex_line(&st, line, n);
				break;
			case CMD_CSV:
				csv_line(&st, line, n);
				break;
			case CMD_JSONL:
				jsonl_line(&st, line, n);
				break;
			}
		}
		free(line);
		p = next;
	}
	if (st.failed)
		goto out;
	if (d->format == CMD_CSV && !st.rows) {
		strbuf_addstr(err,
			      st.have_header
				      ? "the CSV output has a header but no "
					"row"
				      : "the output is empty (expected a "
					"CSV header and rows)");
		goto out;
	}
	for (size_t i = 0; i < d->nmetrics; i++)
		if (!st.have[i]) {
			strbuf_addf(err,
				    "the output gives no value for metric '%s'",
				    d->metrics[i].name);
			if (strcmp(d->metrics[i].key, d->metrics[i].name))
				strbuf_addf(err, " (%s '%s')",
					    d->format == CMD_REGEX   ? "group"
					    : d->format == CMD_CSV   ? "column"
					    : d->format == CMD_JSONL ? "field"
								     : "key",
					    d->metrics[i].key);
			goto out;
		}
	rc = 0;
out:
	if (st.res) {
		for (size_t i = 0; i < d->patterns.nr; i++)
			cmd_regex_free(&st.res[i]);
		free(st.res);
	}
	strvec_clear(&st.header);
	free(st.have);
	free(st.column);
	return rc;
}
