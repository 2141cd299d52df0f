/*
 * json.c - the strict JSON reader; see json.h for what it refuses and why.
 *
 * A recursive-descent parser over a byte range.  Recursion is bounded by
 * max_depth, allocation by max_items and max_string, so the cost of a
 * document is linear in its size whatever it contains.  Objects keep their
 * members in document order in two parallel arrays; lookups are linear,
 * which is the right trade for the small objects of a run spec or an agent
 * line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "banned.h"

struct json_value {
	enum json_type type;
	union {
		int boolean;
		struct {
			char *text; /* the literal as written */
			double d;
		} num;
		struct {
			char *s;
			size_t len;
		} str;
		struct {
			struct json_value **items;
			char **keys; /* objects only */
			size_t n, alloc;
		} list;
	} u;
};

struct parser {
	const char *p, *start, *end;
	size_t depth, items;
	struct json_limits lim;
	struct strbuf *err;
	int failed;
};

const char *json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_NULL:
		return "null";
	case JSON_BOOL:
		return "a boolean";
	case JSON_NUMBER:
		return "a number";
	case JSON_STRING:
		return "a string";
	case JSON_ARRAY:
		return "an array";
	case JSON_OBJECT:
		return "an object";
	}
	return "an unknown type";
}

/* Record the first error with its line and column; later ones are echoes. */
__attribute__((format(printf, 2, 3))) static void fail(struct parser *ps,
						       const char *fmt, ...)
{
	size_t line = 1, col = 1;
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = 1;
	for (const char *q = ps->start; q < ps->p && q < ps->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (!ps->err)
		return;
	strbuf_addf(ps->err, "at line %zu column %zu: ", line, col);
	va_start(ap, fmt);
	strbuf_vaddf(ps->err, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct json_value *new_value(struct parser *ps, enum json_type t)
{
	struct json_value *v;

	if (++ps->items > ps->lim.max_items) {
		fail(ps, "more than %zu values", ps->lim.max_items);
		return NULL;
	}
	v = xcalloc(1, sizeof(*v));
	v->type = t;
	return v;
}

void json_free(struct json_value *v)
{
	if (!v)
		return;
	switch (v->type) {
	case JSON_NUMBER:
		free(v->u.num.text);
		break;
	case JSON_STRING:
		free(v->u.str.s);
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		for (size_t i = 0; i < v->u.list.n; i++) {
			json_free(v->u.list.items[i]);
			if (v->u.list.keys)
				free(v->u.list.keys[i]);
		}
		free(v->u.list.items);
		free(v->u.list.keys);
		break;
	default:
		break;
	}
	free(v);
}

/* Read 4 hex digits after "\u"; return the code unit or -1. */
static long read_hex4(struct parser *ps)
{
	long v = 0;

	if (ps->end - ps->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hex_digit_value((unsigned char)ps->p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	ps->p += 4;
	return v;
}

static void add_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when it
 * is not one: overlong forms, surrogates and code points past U+10FFFF are
 * invalid (RFC 3629).
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned long cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* Parse a string literal at ps->p (on the opening quote) into sb. */
static int parse_string_into(struct parser *ps, struct strbuf *sb)
{
	ps->p++; /* opening quote */
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			fail(ps, "unterminated string");
			return -1;
		}
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20) {
			fail(ps, "control character 0x%02x in a string", c);
			return -1;
		}
		if (c == '\\') {
			long cp;

			if (ps->end - ps->p < 2) {
				fail(ps, "unterminated string");
				return -1;
			}
			ps->p++;
			switch (*ps->p++) {
			case '"':
				strbuf_addch(sb, '"');
				break;
			case '\\':
				strbuf_addch(sb, '\\');
				break;
			case '/':
				strbuf_addch(sb, '/');
				break;
			case 'b':
				strbuf_addch(sb, '\b');
				break;
			case 'f':
				strbuf_addch(sb, '\f');
				break;
			case 'n':
				strbuf_addch(sb, '\n');
				break;
			case 'r':
				strbuf_addch(sb, '\r');
				break;
			case 't':
				strbuf_addch(sb, '\t');
				break;
			case 'u':
				cp = read_hex4(ps);
				if (cp < 0) {
					fail(ps, "\\u needs four hex digits");
					return -1;
				}
				if (cp >= 0xdc00 && cp <= 0xdfff) {
					fail(ps, "lone low surrogate \\u%04lx",
					     cp);
					return -1;
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					long lo;

					if (ps->end - ps->p < 2 ||
					    ps->p[0] != '\\' ||
					    ps->p[1] != 'u') {
						fail(ps,
						     "high surrogate \\u%04lx "
						     "not followed by a low "
						     "one",
						     cp);
						return -1;
					}
					ps->p += 2;
					lo = read_hex4(ps);
					if (lo < 0xdc00 || lo > 0xdfff) {
						fail(ps,
						     "high surrogate \\u%04lx "
						     "not followed by a low "
						     "one",
						     cp);
						return -1;
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
				}
				if (cp == 0) {
					fail(ps, "\\u0000 is not accepted");
					return -1;
				}
				add_utf8(sb, (unsigned long)cp);
				break;
			default:
				ps->p--;
				fail(ps, "invalid escape '\\%c'",
				     (*ps->p >= 0x20 && *ps->p < 0x7f) ? *ps->p
								       : '?');
				return -1;
			}
		} else {
			size_t n = utf8_seq_len((const unsigned char *)ps->p,
						(size_t)(ps->end - ps->p));

			if (!n) {
				fail(ps, "invalid UTF-8 in a string");
				return -1;
			}
			strbuf_add(sb, ps->p, n);
			ps->p += n;
		}
		if (sb->len > ps->lim.max_string) {
			fail(ps, "string longer than %zu bytes",
			     ps->lim.max_string);
			return -1;
		}
	}
	return 0;
}

static struct json_value *parse_value(struct parser *ps);

static struct json_value *parse_number(struct parser *ps)
{
	const char *s = ps->p;
	struct json_value *v;
	char *text, *end;
	double d;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end) {
		fail(ps, "expected a digit");
		return NULL;
	}
	if (*ps->p == '0') {
		ps->p++;
	} else if (*ps->p >= '1' && *ps->p <= '9') {
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	} else {
		fail(ps, "expected a digit");
		return NULL;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
			fail(ps, "expected a digit after '.'");
			return NULL;
		}
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
			fail(ps, "expected a digit in the exponent");
			return NULL;
		}
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if ((size_t)(ps->p - s) > 512) {
		fail(ps, "number literal longer than 512 characters");
		return NULL;
	}
	text = xstrndup(s, (size_t)(ps->p - s));
	errno = 0;
	d = strtod(text, &end);
	/* Underflow to zero ("1e-400") is out of range too: PostgreSQL's
	 * float8 refuses it, so it must not get as far as a COPY.  A
	 * subnormal result (ERANGE, not zero) is a number like any other. */
	if (*end || !isfinite(d) || (errno == ERANGE && d == 0.0)) {
		ps->p = s;
		fail(ps, "number %s is out of range", text);
		free(text);
		return NULL;
	}
	v = new_value(ps, JSON_NUMBER);
	if (!v) {
		free(text);
		return NULL;
	}
	v->u.num.text = text;
	v->u.num.d = d;
	return v;
}

/* Match a bare word (true/false/null) exactly. */
static int match_word(struct parser *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n))
		return 0;
	ps->p += n;
	return 1;
}

static void list_push(struct json_value *v, struct json_value *item, char *key)
{
	if (v->u.list.n == v->u.list.alloc) {
		size_t na = v->u.list.alloc ? v->u.list.alloc * 2 : 4;

		v->u.list.items = xrealloc(v->u.list.items,
					   na * sizeof(*v->u.list.items));
		if (v->type == JSON_OBJECT)
			v->u.list.keys = xrealloc(v->u.list.keys,
						  na * sizeof(*v->u.list.keys));
		v->u.list.alloc = na;
	}
	v->u.list.items[v->u.list.n] = item;
	if (v->type == JSON_OBJECT)
		v->u.list.keys[v->u.list.n] = key;
	v->u.list.n++;
}

static struct json_value *parse_container(struct parser *ps, int is_obj)
{
	struct json_value *v;
	char close = is_obj ? '}' : ']';

	if (++ps->depth > ps->lim.max_depth) {
		fail(ps, "nesting deeper than %zu", ps->lim.max_depth);
		return NULL;
	}
	v = new_value(ps, is_obj ? JSON_OBJECT : JSON_ARRAY);
	if (!v)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		struct json_value *item;
		char *key = NULL;

		skip_ws(ps);
		if (is_obj) {
			struct strbuf kb = STRBUF_INIT;

			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, "expected a string key");
				goto bad;
			}
			if (parse_string_into(ps, &kb) < 0) {
				strbuf_release(&kb);
				goto bad;
			}
			key = strbuf_detach(&kb, NULL);
			for (size_t i = 0; i < v->u.list.n; i++)
				if (!strcmp(v->u.list.keys[i], key)) {
					fail(ps, "duplicate key \"%s\"", key);
					free(key);
					goto bad;
				}
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				fail(ps, "expected ':' after an object key");
				free(key);
				goto bad;
			}
			ps->p++;
		}
		item = parse_value(ps);
		if (!item) {
			free(key);
			goto bad;
		}
		list_push(v, item, key);
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == close) {
				fail(ps, "trailing comma");
				goto bad;
			}
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		fail(ps, "expected ',' or '%c'", close);
		goto bad;
	}
	ps->depth--;
	return v;
bad:
	json_free(v);
	return NULL;
}

static struct json_value *parse_value(struct parser *ps)
{
	struct json_value *v;

	skip_ws(ps);
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end of input");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, 1);
	case '[':
		return parse_container(ps, 0);
	case '"': {
		struct strbuf sb = STRBUF_INIT;

		if (parse_string_into(ps, &sb) < 0) {
			strbuf_release(&sb);
			return NULL;
		}
		v = new_value(ps, JSON_STRING);
		if (!v) {
			strbuf_release(&sb);
			return NULL;
		}
		v->u.str.s = strbuf_detach(&sb, &v->u.str.len);
		return v;
	}
	case 't':
	case 'f': {
		int is_true = match_word(ps, "true");

		if (is_true || match_word(ps, "false")) {
			v = new_value(ps, JSON_BOOL);
			if (v)
				v->u.boolean = is_true;
			return v;
		}
		break;
	}
	case 'n':
		if (match_word(ps, "null"))
			return new_value(ps, JSON_NULL);
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps);
		break;
	}
	fail(ps, "unexpected character '%c'",
	     (*ps->p >= 0x20 && *ps->p < 0x7f) ? *ps->p : '?');
	return NULL;
}

int json_parse(const char *text, size_t len, const struct json_limits *lim,
	       struct json_value **ret, struct strbuf *err)
{
	struct parser ps = { 0 };
	struct json_value *v;

	*ret = NULL;
	ps.p = ps.start = text;
	ps.end = text + len;
	ps.err = err;
	ps.lim.max_depth =
		lim && lim->max_depth ? lim->max_depth : JSON_DEFAULT_MAX_DEPTH;
	ps.lim.max_string = lim && lim->max_string ? lim->max_string
						   : JSON_DEFAULT_MAX_STRING;
	ps.lim.max_items =
		lim && lim->max_items ? lim->max_items : JSON_DEFAULT_MAX_ITEMS;
	v = parse_value(&ps);
	if (!v)
		return -1;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "trailing characters after the value");
		json_free(v);
		return -1;
	}
	*ret = v;
	return 0;
}

enum json_type json_type_of(const struct json_value *v)
{
	return v ? v->type : JSON_NULL;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT || !key)
		return NULL;
	for (size_t i = 0; i < obj->u.list.n; i++)
		if (!strcmp(obj->u.list.keys[i], key))
			return obj->u.list.items[i];
	return NULL;
}

size_t json_len(const struct json_value *v)
{
	if (!v || (v->type != JSON_ARRAY && v->type != JSON_OBJECT))
		return 0;
	return v->u.list.n;
}

const struct json_value *json_at(const struct json_value *arr, size_t i)
{
	if (!arr || arr->type != JSON_ARRAY || i >= arr->u.list.n)
		return NULL;
	return arr->u.list.items[i];
}

const char *json_key_at(const struct json_value *obj, size_t i)
{
	if (!obj || obj->type != JSON_OBJECT || i >= obj->u.list.n)
		return NULL;
	return obj->u.list.keys[i];
}

const struct json_value *json_value_at(const struct json_value *obj, size_t i)
{
	if (!obj || obj->type != JSON_OBJECT || i >= obj->u.list.n)
		return NULL;
	return obj->u.list.items[i];
}

const char *json_string(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->u.str.s : NULL;
}

size_t json_string_len(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->u.str.len : 0;
}

int json_number(const struct json_value *v, double *ret)
{
	if (!v || v->type != JSON_NUMBER)
		return -1;
	*ret = v->u.num.d;
	return 0;
}

int json_bool(const struct json_value *v, int *ret)
{
	if (!v || v->type != JSON_BOOL)
		return -1;
	*ret = v->u.boolean;
	return 0;
}

const char *json_number_text(const struct json_value *v)
{
	return v && v->type == JSON_NUMBER ? v->u.num.text : NULL;
}

/* Describe what was found, for "expected X, got Y" messages. */
static void describe_got(const struct json_value *v, struct strbuf *err)
{
	if (v->type == JSON_NUMBER) {
		strbuf_addstr(err, v->u.num.text);
	} else if (v->type == JSON_STRING) {
		if (v->u.str.len > 40) {
			strbuf_add_json_strn(err, v->u.str.s, 40);
			strbuf_addstr(err, "...");
		} else {
			strbuf_add_json_strn(err, v->u.str.s, v->u.str.len);
		}
	} else if (v->type == JSON_BOOL) {
		strbuf_addstr(err, v->u.boolean ? "true" : "false");
	} else {
		strbuf_addstr(err, json_type_name(v->type));
	}
}

int json_get_i64(const struct json_value *obj, const char *key, int64_t min,
		 int64_t max, int64_t *ret, struct strbuf *err)
{
	const struct json_value *v = json_get(obj, key);
	int64_t n;

	if (!v)
		return -ENOENT;
	if (v->type != JSON_NUMBER ||
	    parse_i64(v->u.num.text, min, max, &n, NULL) < 0) {
		strbuf_addf(err,
			    "\"%s\": expected an integer in %lld..%lld, got ",
			    key, (long long)min, (long long)max);
		describe_got(v, err);
		return -EINVAL;
	}
	*ret = n;
	return 0;
}

int json_get_double(const struct json_value *obj, const char *key, double min,
		    double max, double *ret, struct strbuf *err)
{
	const struct json_value *v = json_get(obj, key);

	if (!v)
		return -ENOENT;
	if (v->type != JSON_NUMBER || v->u.num.d < min || v->u.num.d > max) {
		strbuf_addf(err, "\"%s\": expected a number in %g..%g, got ",
			    key, min, max);
		describe_got(v, err);
		return -EINVAL;
	}
	*ret = v->u.num.d;
	return 0;
}

int json_get_string(const struct json_value *obj, const char *key,
		    size_t max_len, const char **ret, struct strbuf *err)
{
	const struct json_value *v = json_get(obj, key);

	if (!v)
		return -ENOENT;
	if (v->type != JSON_STRING) {
		strbuf_addf(err, "\"%s\": expected a string, got ", key);
		describe_got(v, err);
		return -EINVAL;
	}
	if (max_len && v->u.str.len > max_len) {
		strbuf_addf(err,
			    "\"%s\": expected a string of at most %zu bytes, "
			    "got %zu",
			    key, max_len, v->u.str.len);
		return -EINVAL;
	}
	*ret = v->u.str.s;
	return 0;
}

int json_get_bool(const struct json_value *obj, const char *key, int *ret,
		  struct strbuf *err)
{
	const struct json_value *v = json_get(obj, key);

	if (!v)
		return -ENOENT;
	if (v->type != JSON_BOOL) {
		strbuf_addf(err, "\"%s\": expected true or false, got ", key);
		describe_got(v, err);
		return -EINVAL;
	}
	*ret = v->u.boolean;
	return 0;
}

const char *json_member_string(const struct json_value *obj, const char *key)
{
	const struct json_value *v = json_get(obj, key);

	return v && json_type_of(v) == JSON_STRING ? json_string(v) : NULL;
}

double json_member_number(const struct json_value *obj, const char *key)
{
	const struct json_value *v = json_get(obj, key);
	double d;

	return v && json_number(v, &d) == 0 ? d : NAN;
}
