/*
 * plan.c - read, check and expand test plans (YAML); see plan.h and
 * doc/PLANS.md.
 *
 * The only file that includes yaml.h.  libyaml's event parser feeds a
 * small tree of our own (scalars, lists, maps, each with its line and
 * column) so that every check can name where it looked; aliases are
 * refused (a plan has no use for them and they are the classic way to make
 * a YAML reader do unbounded work), nesting is capped, and the text itself
 * is capped at PLAN_MAX_BYTES, which bounds the tree.
 *
 * Checking does not stop at the first error: each section is checked on
 * its own and everything wrong is reported (up to PLAN_MAX_ERRORS), so a
 * user fixes a plan in one pass.  Expansion only happens when the checks
 * passed, and refuses to go past PLAN_MAX_RUNS before allocating anything.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "parse.h"
#include "plan/plan.h"
#include "banned.h"

/* ---- the tree ------------------------------------------------------- */

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	unsigned line, col; /* 1-based */
	char *text; /* Y_SCALAR */
	int plain; /* Y_SCALAR: unquoted (so ~ and null mean null) */
	struct ynode **kids; /* Y_SEQ: items; Y_MAP: key, value, key, ... */
	size_t nr, alloc;
};

static void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static struct ynode *ynode_new(enum ykind kind, const yaml_mark_t *m)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = (unsigned)m->line + 1;
	n->col = (unsigned)m->column + 1;
	return n;
}

static void ynode_add(struct ynode *parent, struct ynode *kid)
{
	ALLOC_GROW(parent->kids, parent->nr + 1, parent->alloc);
	parent->kids[parent->nr++] = kid;
}

static size_t ymap_len(const struct ynode *n)
{
	return n->nr / 2;
}

/* The value of key in map (a scalar key), or NULL. */
static const struct ynode *ymap_get(const struct ynode *map, const char *key)
{
	if (map->kind != Y_MAP)
		return NULL;
	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i];

		if (k->kind == Y_SCALAR && !strcmp(k->text, key))
			return map->kids[2 * i + 1];
	}
	return NULL;
}

static int ynode_is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && n->plain &&
	       (!n->text[0] || !strcmp(n->text, "~") ||
		!strcmp(n->text, "null") || !strcmp(n->text, "Null") ||
		!strcmp(n->text, "NULL"));
}

/* ---- errors --------------------------------------------------------- */

/*
 * Errors are collected while checking and written out sorted by position
 * (then by the order found), so a file's errors read top to bottom
 * whichever section found them.  At most PLAN_MAX_ERRORS are kept.
 */
struct perror {
	unsigned line, col;
	size_t seq;
	char *text; /* the message, without name and position */
};

struct ctx {
	const char *name;
	struct strbuf *err;
	int nr_errors; /* found, including those past the cap */
	struct perror *list;
	size_t nr, alloc;
};

__attribute__((format(printf, 4, 5))) static void
report(struct ctx *c, unsigned line, unsigned col, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	struct perror *e;
	va_list ap;

	c->nr_errors++;
	if (c->nr >= PLAN_MAX_ERRORS)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	ALLOC_GROW(c->list, c->nr + 1, c->alloc);
	e = &c->list[c->nr];
	e->line = line;
	e->col = col;
	e->seq = c->nr++;
	e->text = strbuf_detach(&msg, NULL);
}

static int perror_cmp(const void *a, const void *b)
{
	const struct perror *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Write the collected errors to c->err, sorted, and forget them. */
static void flush_errors(struct ctx *c)
{
	qsort(c->list, c->nr, sizeof(*c->list), perror_cmp);
	for (size_t i = 0; i < c->nr; i++) {
		const struct perror *e = &c->list[i];

		if (e->line)
			strbuf_addf(c->err, "%s:%u:%u: error: %s\n", c->name,
				    e->line, e->col, e->text);
		else
			strbuf_addf(c->err, "%s: error: %s\n", c->name,
				    e->text);
		free(e->text);
	}
	if (c->nr_errors > PLAN_MAX_ERRORS)
		strbuf_addf(c->err,
			    "%s: error: too many errors (%d), stopping\n",
			    c->name, c->nr_errors);
	free(c->list);
	c->list = NULL;
	c->nr = c->alloc = 0;
}

#define nerror(c, n, ...) report((c), (n)->line, (n)->col, __VA_ARGS__)

/*
 * Describe what node n is, for "got ..." in messages: the scalar quoted
 * (cut at 40 bytes, control bytes as '?'), or "a list", "a map", "nothing".
 */
static const char *ydescribe(const struct ynode *n, struct strbuf *buf)
{
	strbuf_reset(buf);
	if (n->kind == Y_SEQ)
		strbuf_addstr(buf, "a list");
	else if (n->kind == Y_MAP)
		strbuf_addstr(buf, "a map");
	else if (ynode_is_null(n))
		strbuf_addstr(buf, "nothing");
	else {
		size_t len = strlen(n->text);

		strbuf_addch(buf, '\'');
		for (size_t i = 0; i < len && i < 40; i++) {
			unsigned char ch = (unsigned char)n->text[i];

			strbuf_addch(buf, ch < 0x20 || ch == 0x7f ? '?' : ch);
		}
		if (len > 40)
			strbuf_addstr(buf, "...");
		strbuf_addch(buf, '\'');
	}
	return buf->buf;
}

/* "PATH: expected WHAT, got DESCRIPTION" at n. */
static void expected(struct ctx *c, const struct ynode *n, const char *path,
		     const char *what)
{
	struct strbuf got = STRBUF_INIT;

	nerror(c, n, "%s: expected %s, got %s", path, what, ydescribe(n, &got));
	strbuf_release(&got);
}

/* ---- YAML events to the tree ---------------------------------------- */

/*
 * Report libyaml's error: its problem at the problem mark, with where the
 * construct it was reading began when that is elsewhere.  A tab where the
 * problem is gets said plainly, libyaml's words for it being obscure.
 */
static void yaml_error(struct ctx *c, const yaml_parser_t *parser,
		       const char *text, size_t len)
{
	const yaml_mark_t *m = &parser->problem_mark;

	if (m->index < len && text[m->index] == '\t') {
		report(c, (unsigned)m->line + 1, (unsigned)m->column + 1,
		       "invalid YAML: a tab character (YAML indents with "
		       "spaces)");
		return;
	}

	if (parser->error == YAML_MEMORY_ERROR) {
		report(c, 0, 0, "out of memory reading YAML");
		return;
	}
	if (parser->context && (parser->context_mark.line != m->line ||
				parser->context_mark.column != m->column))
		report(c, (unsigned)m->line + 1, (unsigned)m->column + 1,
		       "invalid YAML: %s %s (from %zu:%zu)",
		       parser->problem ? parser->problem : "syntax error",
		       parser->context, parser->context_mark.line + 1,
		       parser->context_mark.column + 1);
	else if (parser->context)
		report(c, (unsigned)m->line + 1, (unsigned)m->column + 1,
		       "invalid YAML: %s %s",
		       parser->problem ? parser->problem : "syntax error",
		       parser->context);
	else
		report(c, (unsigned)m->line + 1, (unsigned)m->column + 1,
		       "invalid YAML: %s",
		       parser->problem ? parser->problem : "syntax error");
}

/*
 * Parse text into one tree.  Return 0 with *ret (NULL for an empty
 * document), or -1 after reporting why.  Refuses aliases, more than one
 * document, nesting deeper than PLAN_MAX_DEPTH and more than
 * PLAN_MAX_NODES values.
 */
static int yaml_to_tree(struct ctx *c, const char *text, size_t len,
			struct ynode **ret)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ynode *stack[PLAN_MAX_DEPTH + 1];
	struct ynode *root = NULL;
	int depth = 0, docs = 0, rc = -1, done = 0;
	size_t nodes = 0;

	*ret = NULL;
	if (!yaml_parser_initialize(&parser)) {
		report(c, 0, 0, "cannot start the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		struct ynode *n = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			yaml_error(c, &parser, text, len);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				report(c, (unsigned)ev.start_mark.line + 1,
				       (unsigned)ev.start_mark.column + 1,
				       "a plan is one YAML document; found a "
				       "second");
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			report(c, (unsigned)ev.start_mark.line + 1,
			       (unsigned)ev.start_mark.column + 1,
			       "YAML aliases (*name) are not supported in "
			       "plans");
			yaml_event_delete(&ev);
			goto out;
		case YAML_SCALAR_EVENT:
			n = ynode_new(Y_SCALAR, &ev.start_mark);
			n->text = xstrndup((const char *)ev.data.scalar.value,
					   ev.data.scalar.length);
			n->plain =
				ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			if (strlen(n->text) != ev.data.scalar.length) {
				nerror(c, n, "NUL byte in a value");
				ynode_free(n);
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			n = ynode_new(ev.type == YAML_SEQUENCE_START_EVENT
					      ? Y_SEQ
					      : Y_MAP,
				      &ev.start_mark);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (n && ++nodes > PLAN_MAX_NODES) {
			nerror(c, n, "more than %d YAML values",
			       PLAN_MAX_NODES);
			ynode_free(n);
			yaml_event_delete(&ev);
			goto out;
		}
		if (n) {
			if (depth > 0)
				ynode_add(stack[depth - 1], n);
			else if (!root)
				root = n;
			else
				ynode_free(n); /* unreachable: one document */
			if (n->kind != Y_SCALAR) {
				if (depth >= PLAN_MAX_DEPTH) {
					nerror(c, n,
					       "nested deeper than %d levels",
					       PLAN_MAX_DEPTH);
					yaml_event_delete(&ev);
					goto out;
				}
				stack[depth++] = n;
			}
		}
		yaml_event_delete(&ev);
	}
	*ret = root;
	root = NULL;
	rc = 0;
out:
	ynode_free(root);
	yaml_parser_delete(&parser);
	return rc;
}

/* ---- small checkers ------------------------------------------------- */

/*
 * Each get_* checks node n (found at path) and stores the value on
 * success.  On failure they report one error and return -1, leaving the
 * output alone (so the caller's default stays).
 */
static int get_scalar(struct ctx *c, const struct ynode *n, const char *path,
		      const char *what)
{
	if (n->kind != Y_SCALAR || ynode_is_null(n)) {
		expected(c, n, path, what);
		return -1;
	}
	return 0;
}

static int get_i64(struct ctx *c, const struct ynode *n, const char *path,
		   int64_t min, int64_t max, int64_t *out)
{
	struct strbuf what = STRBUF_INIT;
	int64_t v;
	int rc = 0;

	strbuf_addf(&what, "an integer in %" PRId64 "..%" PRId64, min, max);
	if (n->kind != Y_SCALAR || ynode_is_null(n) ||
	    parse_i64(n->text, min, max, &v, NULL) < 0) {
		expected(c, n, path, what.buf);
		rc = -1;
	} else {
		*out = v;
	}
	strbuf_release(&what);
	return rc;
}

static int get_int(struct ctx *c, const struct ynode *n, const char *path,
		   int min, int max, int *out)
{
	int64_t v;

	if (get_i64(c, n, path, min, max, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* A number with an optional '%' after it (tau: 2% or tau: 2). */
static int get_percent(struct ctx *c, const struct ynode *n, const char *path,
		       double min, double max, double *out)
{
	struct strbuf what = STRBUF_INIT, num = STRBUF_INIT;
	int rc = -1;

	strbuf_addf(&what, "a percentage in %g..%g (like 2%% or 2.5)", min,
		    max);
	if (n->kind == Y_SCALAR && !ynode_is_null(n)) {
		strbuf_addstr(&num, n->text);
		if (num.len && num.buf[num.len - 1] == '%')
			strbuf_setlen(&num, num.len - 1);
		if (parse_double(num.buf, min, max, out, NULL) == 0)
			rc = 0;
	}
	if (rc < 0)
		expected(c, n, path, what.buf);
	strbuf_release(&what);
	strbuf_release(&num);
	return rc;
}

static int get_duration(struct ctx *c, const struct ynode *n, const char *path,
			int64_t min_ms, int64_t max_ms, int64_t *out)
{
	struct strbuf what = STRBUF_INIT;
	int rc = 0;

	strbuf_addf(&what, "a duration in %gs..%gs (like 30s, 10m, 1h)",
		    (double)min_ms / 1000, (double)max_ms / 1000);
	if (n->kind != Y_SCALAR || ynode_is_null(n) ||
	    parse_duration_ms(n->text, min_ms, max_ms, out, NULL) < 0) {
		expected(c, n, path, what.buf);
		rc = -1;
	}
	strbuf_release(&what);
	return rc;
}

static int get_bool(struct ctx *c, const struct ynode *n, const char *path,
		    int *out)
{
	if (n->kind == Y_SCALAR && !strcmp(n->text, "true"))
		*out = 1;
	else if (n->kind == Y_SCALAR && !strcmp(n->text, "false"))
		*out = 0;
	else {
		expected(c, n, path, "true or false");
		return -1;
	}
	return 0;
}

/* Is every byte of s in the set allowed, and s 1..max bytes long? */
static int is_word(const char *s, const char *allowed, size_t max)
{
	size_t len = strlen(s);

	return len && len <= max && strspn(s, allowed) == len;
}

#define WORD_CHARS                                                             \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/*
 * A cgroup path the agent may create: absolute, components of
 * [A-Za-z0-9._-] that are not "." or "..", no empty component, no
 * trailing slash.  allow_root: "/" itself is fine.
 */
static int is_cgroup_path(const char *s, int allow_root)
{
	const char *p = s;

	if (s[0] != '/' || strlen(s) > 256)
		return 0;
	if (!s[1])
		return allow_root;
	while (*p == '/') {
		size_t len;

		p++;
		len = strspn(p, WORD_CHARS "._-");
		if (!len || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += len;
	}
	return *p == '\0';
}

/* A cpuset list: "0-3,6,8-9". */
static int is_cpu_list(const char *s)
{
	const char *p = s;

	if (!*s || strlen(s) > 256)
		return 0;
	for (;;) {
		size_t a = strspn(p, "0123456789");

		if (!a || a > 5)
			return 0;
		p += a;
		if (*p == '-') {
			size_t b = strspn(++p, "0123456789");

			if (!b || b > 5)
				return 0;
			p += b;
		}
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

/* A map's keys must be scalars, given once each. */
static int check_map_keys(struct ctx *c, const struct ynode *map,
			  const char *path)
{
	int rc = 0;

	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i];

		if (k->kind != Y_SCALAR || ynode_is_null(k)) {
			struct strbuf got = STRBUF_INIT;

			nerror(c, k, "%s: expected a key name, got %s", path,
			       ydescribe(k, &got));
			strbuf_release(&got);
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < i; j++) {
			const struct ynode *o = map->kids[2 * j];

			if (o->kind == Y_SCALAR && !strcmp(o->text, k->text)) {
				nerror(c, k,
				       "%s: key '%s' given twice (first at "
				       "line %u)",
				       path, k->text, o->line);
				rc = -1;
				break;
			}
		}
	}
	return rc;
}

/* The index of key in the NULL-terminated keys, or -1. */
static int key_index(const char *const *keys, const char *key)
{
	for (int i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

/* Report key k as unknown at path, listing the keys that are known. */
static void unknown_key(struct ctx *c, const struct ynode *k, const char *path,
			const char *const *keys)
{
	struct strbuf list = STRBUF_INIT;

	for (int i = 0; keys[i]; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", keys[i]);
	nerror(c, k, "%s: unknown key '%s' (expected one of: %s)", path,
	       k->text, list.buf);
	strbuf_release(&list);
}

/*
 * Walk map (at path) against keys: report unknown keys, and store each
 * known key's value node in vals[index].  Return 0 or -1.
 */
static int map_fields(struct ctx *c, const struct ynode *map, const char *path,
		      const char *const *keys, const struct ynode **vals)
{
	int rc = check_map_keys(c, map, path);

	for (int i = 0; keys[i]; i++)
		vals[i] = NULL;
	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i];
		int idx;

		if (k->kind != Y_SCALAR || ynode_is_null(k))
			continue;
		idx = key_index(keys, k->text);
		if (idx < 0) {
			unknown_key(c, k, path, keys);
			rc = -1;
		} else if (!vals[idx]) {
			vals[idx] = map->kids[2 * i + 1];
		}
	}
	return rc;
}

/*
 * A list of words (or one word standing for a list of one), each checked
 * by ok() and described by what; pushed to out.  Duplicates are errors.
 */
static int get_word_list(struct ctx *c, const struct ynode *n, const char *path,
			 int (*ok)(const char *), const char *what,
			 struct strvec *out)
{
	struct strbuf item = STRBUF_INIT;
	size_t nr = n->kind == Y_SEQ ? n->nr : 1;
	int rc = 0;

	if (n->kind == Y_MAP || ynode_is_null(n)) {
		struct strbuf w = STRBUF_INIT;

		strbuf_addf(&w, "%s, or a list of them", what);
		expected(c, n, path, w.buf);
		strbuf_release(&w);
		return -1;
	}
	if (n->kind == Y_SEQ && !n->nr) {
		nerror(c, n, "%s: empty list", path);
		return -1;
	}
	if (nr > PLAN_MAX_ITEMS) {
		nerror(c, n, "%s: more than %d items", path, PLAN_MAX_ITEMS);
		return -1;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct ynode *v = n->kind == Y_SEQ ? n->kids[i] : n;
		int dup = 0;

		strbuf_reset(&item);
		if (n->kind == Y_SEQ)
			strbuf_addf(&item, "%s[%zu]", path, i);
		else
			strbuf_addstr(&item, path);
		if (v->kind != Y_SCALAR || ynode_is_null(v) || !ok(v->text)) {
			expected(c, v, item.buf, what);
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < out->nr; j++)
			dup |= !strcmp(out->v[j], v->text);
		if (dup) {
			nerror(c, v, "%s: '%s' given twice", item.buf, v->text);
			rc = -1;
			continue;
		}
		strvec_push(out, v->text);
	}
	strbuf_release(&item);
	return rc;
}

static int ok_kind(const char *s)
{
	return !strcmp(s, "local") || !strcmp(s, "ssh") ||
	       !strcmp(s, "libvirt") || !strcmp(s, "ipmi");
}

static int ok_tag(const char *s)
{
	return is_word(s, WORD_CHARS "._:=-", 64);
}

/* A file name in kernels/: no slash, not hidden. */
static int ok_config(const char *s)
{
	return s[0] != '.' && is_word(s, WORD_CHARS "._+-", 128);
}

/* ---- sections ------------------------------------------------------- */

/*
 * iterations, warmup, boots, until and max_boots: v holds their nodes in
 * that order (NULL when not given); defaults are already in p.
 */
static void check_settings(struct ctx *c, struct plan *p,
			   const struct ynode *const *v)
{
	const struct ynode *until = v[3], *maxb = v[4];

	if (v[0])
		get_int(c, v[0], "iterations", 1, 10000, &p->iterations);
	if (v[1])
		get_int(c, v[1], "warmup", 0, 1000, &p->warmup);
	if (v[2])
		get_int(c, v[2], "boots", 1, 1000, &p->boots);
	if (until &&
	    get_scalar(c, until, "until", "'decided' or 'fixed'") == 0) {
		if (!strcmp(until->text, "decided"))
			p->until = PLAN_UNTIL_DECIDED;
		else if (!strcmp(until->text, "fixed"))
			p->until = PLAN_UNTIL_FIXED;
		else
			expected(c, until, "until", "'decided' or 'fixed'");
	}
	if (p->until == PLAN_UNTIL_DECIDED) {
		p->max_boots = p->boots > 20 ? p->boots : 20;
		if (maxb &&
		    get_int(c, maxb, "max_boots", 1, 1000, &p->max_boots) ==
			    0 &&
		    p->max_boots < p->boots)
			nerror(c, maxb,
			       "max_boots: expected at least boots (%d), got "
			       "%d",
			       p->boots, p->max_boots);
	} else {
		p->max_boots = p->boots;
		if (maxb)
			nerror(c, maxb,
			       "max_boots: only meaningful with 'until: "
			       "decided'");
	}
}

/* host: requirements into p->host; see doc/PLANS.md for the ranges. */
static void check_host(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "kind",	"min_sockets",
					    "min_cpus", "min_memory_mb",
					    "tags",	NULL };
	const struct ynode *v[6];

	if (n->kind != Y_MAP) {
		expected(c, n, "host", "a map of host requirements");
		return;
	}
	map_fields(c, n, "host", keys, v);
	if (v[0])
		get_word_list(c, v[0], "host.kind", ok_kind,
			      "a host kind (local, ssh, libvirt or ipmi)",
			      &p->host.kinds);
	if (v[1])
		get_int(c, v[1], "host.min_sockets", 1, 1024,
			&p->host.min_sockets);
	if (v[2])
		get_int(c, v[2], "host.min_cpus", 1, 65536, &p->host.min_cpus);
	if (v[3])
		get_i64(c, v[3], "host.min_memory_mb", 1, INT64_C(1) << 32,
			&p->host.min_memory_mb);
	if (v[4])
		get_word_list(c, v[4], "host.tags", ok_tag,
			      "a tag of at most 64 bytes of [A-Za-z0-9._:=-]",
			      &p->host.tags);
}

/* kernel: config fragment names into p->kernel_config. */
static void check_kernel(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "config", NULL };
	const struct ynode *v[2];

	if (n->kind != Y_MAP) {
		expected(c, n, "kernel", "a map (config: FRAGMENTS)");
		return;
	}
	map_fields(c, n, "kernel", keys, v);
	if (v[0])
		get_word_list(c, v[0], "kernel.config", ok_config,
			      "a config fragment file name in kernels/ "
			      "(no slash, not hidden)",
			      &p->kernel_config);
}

/* timeouts: the four phase limits into p->timeouts (defaults stay). */
static void check_timeouts(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "power", "boot", "run", "collect",
					    NULL };
	const struct ynode *v[5];
	const int64_t s = 1000, h = 3600 * s;

	if (n->kind != Y_MAP) {
		expected(c, n, "timeouts",
			 "a map of power, boot, run, collect");
		return;
	}
	map_fields(c, n, "timeouts", keys, v);
	if (v[0])
		get_duration(c, v[0], "timeouts.power", s, h,
			     &p->timeouts.power_ms);
	if (v[1])
		get_duration(c, v[1], "timeouts.boot", s, 6 * h,
			     &p->timeouts.boot_ms);
	if (v[2])
		get_duration(c, v[2], "timeouts.run", s, 7 * 24 * h,
			     &p->timeouts.run_ms);
	if (v[3])
		get_duration(c, v[3], "timeouts.collect", s, 6 * h,
			     &p->timeouts.collect_ms);
}

/*
 * cgroups: the layout into p->cgroups.  Each item is checked whole, so a
 * bad path does not hide a bad weight beside it.
 */
static void check_cgroups(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "path", "weight", "cpu_max_pct",
					    "cpus", NULL };
	struct strbuf path = STRBUF_INIT, f = STRBUF_INIT;

	if (n->kind != Y_SEQ) {
		expected(c, n, "cgroups",
			 "a list of cgroups (path, weight, ...)");
		return;
	}
	if (!n->nr) {
		nerror(c, n, "cgroups: empty list");
		return;
	}
	if (n->nr > PLAN_MAX_ITEMS) {
		nerror(c, n, "cgroups: more than %d items", PLAN_MAX_ITEMS);
		return;
	}
	p->cgroups = xcalloc(n->nr, sizeof(*p->cgroups));
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *item = n->kids[i], *v[5];
		struct plan_cgroup *cg;

		strbuf_reset(&path);
		strbuf_addf(&path, "cgroups[%zu]", i);
		if (item->kind != Y_MAP) {
			expected(c, item, path.buf,
				 "a map with path and optional weight, "
				 "cpu_max_pct, cpus");
			continue;
		}
		map_fields(c, item, path.buf, keys, v);
		/*
		 * Every field is checked even when another is wrong; the
		 * entry is kept (with a NULL path) only while checking.
		 */
		cg = &p->cgroups[p->nr_cgroups++];
		cg->weight = 100;
		strbuf_reset(&f);
		strbuf_addf(&f, "%s.path", path.buf);
		if (!v[0]) {
			nerror(c, item, "%s: missing key 'path'", path.buf);
		} else if (v[0]->kind != Y_SCALAR ||
			   !is_cgroup_path(v[0]->text, 0)) {
			expected(c, v[0], f.buf,
				 "an absolute cgroup path below the root, like "
				 "/a");
		} else {
			for (size_t j = 0; j + 1 < p->nr_cgroups; j++)
				if (p->cgroups[j].path &&
				    !strcmp(p->cgroups[j].path, v[0]->text)) {
					nerror(c, v[0],
					       "%s: cgroup '%s' given twice",
					       f.buf, v[0]->text);
					break;
				}
			cg->path = xstrdup(v[0]->text);
		}
		if (v[1]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.weight", path.buf);
			get_int(c, v[1], f.buf, 1, 10000, &cg->weight);
		}
		if (v[2]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.cpu_max_pct", path.buf);
			get_percent(c, v[2], f.buf, 1, 100000,
				    &cg->cpu_max_pct);
		}
		if (v[3]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.cpus", path.buf);
			if (v[3]->kind != Y_SCALAR || !is_cpu_list(v[3]->text))
				expected(c, v[3], f.buf,
					 "a CPU list like 0-3,6");
			else
				cg->cpus = xstrdup(v[3]->text);
		}
	}
	strbuf_release(&path);
	strbuf_release(&f);
}

static int ok_metric_name(const char *s)
{
	return is_word(s, WORD_CHARS "._:/*?[]-", 128);
}

/* metrics: per-metric tau, direction and decides into p->metrics. */
static void check_metrics(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "tau", "direction", "decides",
					    NULL };
	struct strbuf path = STRBUF_INIT, f = STRBUF_INIT;

	if (n->kind != Y_MAP) {
		expected(c, n, "metrics",
			 "a map of metric name to tau, direction, decides");
		return;
	}
	if (!n->nr) {
		nerror(c, n, "metrics: empty map");
		return;
	}
	if (ymap_len(n) > PLAN_MAX_ITEMS) {
		nerror(c, n, "metrics: more than %d metrics", PLAN_MAX_ITEMS);
		return;
	}
	if (check_map_keys(c, n, "metrics") < 0)
		return;
	p->metrics = xcalloc(ymap_len(n), sizeof(*p->metrics));
	for (size_t i = 0; i < ymap_len(n); i++) {
		const struct ynode *k = n->kids[2 * i],
				   *val = n->kids[2 * i + 1];
		const struct ynode *v[4];
		struct plan_metric *m;

		strbuf_reset(&path);
		strbuf_addf(&path, "metrics.%s", k->text);
		if (!ok_metric_name(k->text)) {
			expected(c, k, "metrics",
				 "a metric name or glob of "
				 "[A-Za-z0-9._:/*?[]-]");
			continue;
		}
		if (val->kind != Y_MAP || !val->nr) {
			expected(c, val, path.buf,
				 "a map with tau, direction and/or decides");
			continue;
		}
		m = &p->metrics[p->nr_metrics++];
		m->name = xstrdup(k->text);
		m->tau_pct = -1;
		map_fields(c, val, path.buf, keys, v);
		if (v[0]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.tau", path.buf);
			get_percent(c, v[0], f.buf, 0, 100, &m->tau_pct);
		}
		if (v[1]) {
			static const char what[] = "higher, lower or none";

			strbuf_reset(&f);
			strbuf_addf(&f, "%s.direction", path.buf);
			if (get_scalar(c, v[1], f.buf, what) < 0)
				;
			else if (!strcmp(v[1]->text, "higher"))
				m->direction = PLAN_DIR_HIGHER;
			else if (!strcmp(v[1]->text, "lower"))
				m->direction = PLAN_DIR_LOWER;
			else if (!strcmp(v[1]->text, "none"))
				m->direction = PLAN_DIR_NONE;
			else
				expected(c, v[1], f.buf, what);
		}
		if (v[2]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.decides", path.buf);
			get_bool(c, v[2], f.buf, &m->decides);
		}
	}
	strbuf_release(&path);
	strbuf_release(&f);
}

/* ---- workloads and their sweeps ------------------------------------- */

/* One parameter of an entry: its name and its values (1, or a sweep). */
struct sparam {
	const char *name; /* in p->strings_ */
	const char **values; /* in p->strings_ */
	size_t nr;
};

/* One group of parameters to take the product of: params + one variant. */
struct sgroup {
	struct sparam *params;
	size_t nr, alloc;
};

/* One checked item of workloads: (or the top-level workload:). */
struct sentry {
	const struct wl_desc *wl;
	struct sgroup *groups; /* one per variant, or one */
	size_t nr_groups;
};

static void sgroup_release(struct sgroup *g)
{
	for (size_t i = 0; i < g->nr; i++)
		free(g->params[i].values);
	free(g->params);
}

/* Intern s in the plan's string pool; the copy lives as long as the plan. */
static const char *intern(struct plan *p, const char *s)
{
	return strvec_push(&p->strings_, s);
}

/* "cgroup, short_threads, ..." for messages. */
static void list_params(const struct wl_desc *wl, struct strbuf *out)
{
	strbuf_addstr(out, workload_cgroup_param.name);
	for (const struct wl_param *wp = wl->params; wp->name; wp++)
		strbuf_addf(out, ", %s", wp->name);
}

/*
 * Check one value of parameter wp for the workload; report at v with the
 * workload's type description.  *ret_num gets the value as a number (see
 * workload_check_value()), so sweeps can tell 60s and 1m are the same.
 */
static int check_value(struct ctx *c, const struct wl_desc *wl,
		       const struct wl_param *wp, const struct ynode *v,
		       const char *path, double *ret_num)
{
	struct strbuf why = STRBUF_INIT, got = STRBUF_INIT;
	int rc = 0;

	if (v->kind != Y_SCALAR || ynode_is_null(v)) {
		workload_describe_type(wp, &why);
		nerror(c, v, "%s: %s takes %s, got %s", path, wl->name, why.buf,
		       ydescribe(v, &got));
		rc = -1;
	} else if (workload_check_value(wp, v->text, ret_num, &why) < 0) {
		nerror(c, v, "%s: expected %s, got %s", path, why.buf,
		       ydescribe(v, &got));
		rc = -1;
	} else if (wp == &workload_cgroup_param &&
		   !is_cgroup_path(v->text, 1)) {
		nerror(c, v,
		       "%s: expected an absolute cgroup path like / or /foo, "
		       "got %s",
		       path, ydescribe(v, &got));
		rc = -1;
	}
	strbuf_release(&why);
	strbuf_release(&got);
	return rc;
}

/*
 * Add the parameters of map (params: or one variant, at path) to g,
 * checking names against wl and values against their types.  A name
 * already in g is an error (a variant may not repeat a params: key).
 */
static int add_params(struct ctx *c, struct plan *p, const struct wl_desc *wl,
		      const struct ynode *map, const char *path,
		      struct sgroup *g)
{
	struct strbuf f = STRBUF_INIT, list = STRBUF_INIT;
	double *nums = NULL, num = 0;
	int rc = 0;

	if (map->kind != Y_MAP) {
		expected(c, map, path, "a map of parameter names to values");
		return -1;
	}
	if (check_map_keys(c, map, path) < 0)
		return -1;
	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i],
				   *v = map->kids[2 * i + 1];
		const struct wl_param *wp = workload_param(wl, k->text);
		struct sparam *sp;
		int bad = 0;

		strbuf_reset(&f);
		strbuf_addf(&f, "%s.%s", path, k->text);
		if (!wp) {
			strbuf_reset(&list);
			list_params(wl, &list);
			nerror(c, k,
			       "%s: %s has no parameter '%s' (it takes: %s)",
			       path, wl->name, k->text, list.buf);
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < g->nr; j++)
			if (!strcmp(g->params[j].name, k->text)) {
				nerror(c, k,
				       "%s: parameter '%s' is already set in "
				       "params",
				       path, k->text);
				bad = 1;
			}
		if (bad) {
			rc = -1;
			continue;
		}
		if (v->kind == Y_SEQ) {
			if (!v->nr) {
				nerror(c, v,
				       "%s: empty sweep (a list needs at least "
				       "one value)",
				       f.buf);
				rc = -1;
				continue;
			}
			if (v->nr > PLAN_MAX_VALUES) {
				nerror(c, v,
				       "%s: sweep of %zu values, more than %d",
				       f.buf, v->nr, PLAN_MAX_VALUES);
				rc = -1;
				continue;
			}
		}
		ALLOC_GROW(g->params, g->nr + 1, g->alloc);
		sp = &g->params[g->nr];
		memset(sp, 0, sizeof(*sp));
		sp->name = intern(p, k->text);
		sp->values = xcalloc(v->kind == Y_SEQ ? v->nr : 1,
				     sizeof(*sp->values));
		nums = xrealloc(nums,
				(v->kind == Y_SEQ ? v->nr : 1) * sizeof(*nums));
		g->nr++;
		for (size_t j = 0; j < (v->kind == Y_SEQ ? v->nr : 1); j++) {
			const struct ynode *one =
				v->kind == Y_SEQ ? v->kids[j] : v;
			struct strbuf item = STRBUF_INIT;
			int dup = 0;

			strbuf_addbuf(&item, &f);
			if (v->kind == Y_SEQ)
				strbuf_addf(&item, "[%zu]", j);
			if (check_value(c, wl, wp, one, item.buf, &num) < 0) {
				rc = -1;
				strbuf_release(&item);
				continue;
			}
			/* Strings compare as text, the rest as numbers. */
			for (size_t m = 0; m < sp->nr; m++)
				dup |= wp->type == WL_STRING
					       ? !strcmp(sp->values[m],
							 one->text)
					       : nums[m] == num;
			if (dup) {
				nerror(c, one,
				       "%s: value '%s' repeats an earlier one "
				       "in the sweep",
				       item.buf, one->text);
				rc = -1;
			} else {
				nums[sp->nr] = num;
				sp->values[sp->nr++] = intern(p, one->text);
			}
			strbuf_release(&item);
		}
	}
	free(nums);
	strbuf_release(&f);
	strbuf_release(&list);
	return rc;
}

/* Append a deep copy of every parameter of from to to. */
static void sgroup_copy(struct sgroup *to, const struct sgroup *from)
{
	for (size_t i = 0; i < from->nr; i++) {
		struct sparam *sp;

		ALLOC_GROW(to->params, to->nr + 1, to->alloc);
		sp = &to->params[to->nr++];
		*sp = from->params[i];
		sp->values = xcalloc(sp->nr ? sp->nr : 1, sizeof(*sp->values));
		memcpy(sp->values, from->params[i].values,
		       sp->nr * sizeof(*sp->values));
	}
}

/*
 * Report each parameter of wl that has no default and is not in g; at is
 * where to point, path what to call it.
 */
static int check_required(struct ctx *c, const struct wl_desc *wl,
			  const struct sgroup *g, const struct ynode *at,
			  const char *path)
{
	int rc = 0;

	for (const struct wl_param *wp = wl->params; wp->name; wp++) {
		int given = 0;

		if (wp->def)
			continue;
		for (size_t i = 0; i < g->nr; i++)
			given |= !strcmp(g->params[i].name, wp->name);
		if (!given) {
			nerror(c, at, "%s: %s needs parameter '%s' (%s)", path,
			       wl->name, wp->name, wp->help);
			rc = -1;
		}
	}
	return rc;
}

/*
 * Check one workloads: item (a map with workload, params, variants) at
 * path and fill e: one parameter group per variant (params: plus the
 * variant), or one group of params: alone.  Parameters without a default
 * must be given in params or in every variant.  Return 0 or -1.
 */
static void subpath(struct strbuf *f, const char *path, const char *key)
{
	strbuf_reset(f);
	if (*path)
		strbuf_addf(f, "%s.%s", path, key);
	else
		strbuf_addstr(f, key);
}

/*
 * The body of check_entry(): v holds the workload, params and variants
 * nodes (params and variants may be NULL), n is the entry (for messages
 * about it as a whole), path its name ("" for a plan's top level).
 */
static int check_entry_fields(struct ctx *c, struct plan *p,
			      const struct ynode *n, const char *path,
			      const struct ynode *const *v, struct sentry *e)
{
	struct strbuf f = STRBUF_INIT, list = STRBUF_INIT;
	struct sgroup base = { 0 };
	int rc = 0;

	if (!v[0]) {
		nerror(c, n, "%s%smissing key 'workload'", path,
		       *path ? ": " : "");
		return -1;
	}
	subpath(&f, path, "workload");
	if (get_scalar(c, v[0], f.buf, "a workload name") < 0) {
		rc = -1;
		goto out;
	}
	e->wl = workload_find(v[0]->text);
	if (!e->wl) {
		for (size_t i = 0; i < workload_count; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "",
				    workload_table[i].name);
		nerror(c, v[0],
		       "%s: the agent has no workload '%s' (it has: %s)", f.buf,
		       v[0]->text, list.buf);
		rc = -1;
		goto out;
	}
	if (v[1]) {
		subpath(&f, path, "params");
		rc |= add_params(c, p, e->wl, v[1], f.buf, &base);
	}
	if (!v[2]) {
		rc |= check_required(c, e->wl, &base, v[0],
				     *path ? path : "workload");
		e->nr_groups = 1;
		e->groups = xcalloc(1, sizeof(*e->groups));
		e->groups[0] = base;
		memset(&base, 0, sizeof(base));
		goto out;
	}
	subpath(&f, path, "variants");
	if (v[2]->kind != Y_SEQ) {
		expected(c, v[2], f.buf, "a list of parameter maps");
		rc = -1;
		goto out;
	}
	if (!v[2]->nr) {
		nerror(c, v[2], "%s: empty list", f.buf);
		rc = -1;
		goto out;
	}
	if (v[2]->nr > PLAN_MAX_VALUES) {
		nerror(c, v[2], "%s: more than %d variants", f.buf,
		       PLAN_MAX_VALUES);
		rc = -1;
		goto out;
	}
	e->nr_groups = v[2]->nr;
	e->groups = xcalloc(e->nr_groups, sizeof(*e->groups));
	for (size_t g = 0; g < e->nr_groups; g++) {
		struct sgroup *grp = &e->groups[g];

		sgroup_copy(grp, &base);
		subpath(&f, path, "variants");
		strbuf_addf(&f, "[%zu]", g);
		if (add_params(c, p, e->wl, v[2]->kids[g], f.buf, grp) < 0)
			rc = -1;
		else
			rc |= check_required(c, e->wl, grp, v[2]->kids[g],
					     f.buf);
	}
out:
	sgroup_release(&base);
	strbuf_release(&f);
	strbuf_release(&list);
	return rc ? -1 : 0;
}

/* Check one item of workloads: (a map) at path into e. */
static int check_entry(struct ctx *c, struct plan *p, const struct ynode *n,
		       const char *path, struct sentry *e)
{
	static const char *const keys[] = { "workload", "params", "variants",
					    NULL };
	const struct ynode *v[4];
	int rc;

	if (n->kind != Y_MAP) {
		expected(c, n, path, "a map with workload, params, variants");
		return -1;
	}
	rc = map_fields(c, n, path, keys, v);
	return check_entry_fields(c, p, n, path, v, e) < 0 || rc < 0 ? -1 : 0;
}

/* How many runs group g expands to, as a double (it may be huge). */
static double group_runs(const struct sgroup *g)
{
	double n = 1;

	for (size_t i = 0; i < g->nr; i++)
		n *= (double)g->params[i].nr;
	return n;
}

/* Expand the checked entries into p->runs (total runs, within the cap). */
static void expand(struct plan *p, const struct sentry *e, size_t nr_entries,
		   size_t total)
{
	p->runs = xcalloc(total, sizeof(*p->runs));
	for (size_t i = 0; i < nr_entries; i++) {
		for (size_t gi = 0; gi < e[i].nr_groups; gi++) {
			const struct sgroup *g = &e[i].groups[gi];
			size_t *idx = xcalloc(g->nr + 1, sizeof(*idx));
			size_t count = (size_t)group_runs(g);

			for (size_t k = 0; k < count; k++) {
				struct plan_run *r = &p->runs[p->nr_runs];

				r->index = p->nr_runs++;
				r->entry = i;
				r->wl = e[i].wl;
				r->workload = e[i].wl->name;
				r->nr_params = g->nr;
				r->params = xcalloc(g->nr ? g->nr : 1,
						    sizeof(*r->params));
				for (size_t j = 0; j < g->nr; j++) {
					r->params[j].name = g->params[j].name;
					r->params[j].value =
						g->params[j].values[idx[j]];
				}
				/* Odometer: the last parameter turns fastest.
				 */
				for (size_t j = g->nr; j-- > 0;) {
					if (++idx[j] < g->params[j].nr)
						break;
					idx[j] = 0;
				}
			}
			free(idx);
		}
	}
}

/* Seconds as "90s", "15m", "1h30m" for messages. */
static void add_secs(struct strbuf *out, int64_t ms)
{
	int64_t s = ms / 1000;

	if (ms % 1000)
		strbuf_addf(out, "%" PRId64 "ms", ms);
	else if (s % 60)
		strbuf_addf(out, "%" PRId64 "s", s);
	else if (s % 3600)
		strbuf_addf(out, "%" PRId64 "m", s / 60);
	else if (s % 3600 == 0 && s / 3600 < 48)
		strbuf_addf(out, "%" PRId64 "h", s / 3600);
	else
		strbuf_addf(out, "%" PRId64 "s", s);
}

/*
 * A run whose workload has a length (duration, time) cannot fit its
 * iterations in timeouts.run: say so once, for the first such run.
 */
static void check_run_time(struct ctx *c, const struct plan *p,
			   const struct ynode *at)
{
	for (size_t i = 0; i < p->nr_runs; i++) {
		const struct plan_run *r = &p->runs[i];
		int64_t per = 0, need;

		for (const struct wl_param *wp = r->wl->params; wp->name;
		     wp++) {
			const char *v;
			double ms;
			struct strbuf why = STRBUF_INIT;

			if (wp->type != WL_DURATION ||
			    (strcmp(wp->name, "duration") &&
			     strcmp(wp->name, "time")))
				continue;
			v = plan_run_param(r, wp->name);
			if (v && workload_check_value(wp, v, &ms, &why) == 0)
				per += (int64_t)ms;
			strbuf_release(&why);
		}
		need = per * (p->iterations + p->warmup);
		if (need > p->timeouts.run_ms) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT,
				      d = STRBUF_INIT;

			add_secs(&a, p->timeouts.run_ms);
			add_secs(&b, need);
			add_secs(&d, per);
			report(c, at ? at->line : 0, at ? at->col : 0,
			       "timeouts.run: %s is too short for run %zu "
			       "(%d iterations of %s need %s)",
			       a.buf, r->index, p->iterations + p->warmup,
			       d.buf, b.buf);
			strbuf_release(&a);
			strbuf_release(&b);
			strbuf_release(&d);
			return;
		}
	}
}

static int ok_plan_name(const char *s)
{
	return is_word(s, WORD_CHARS "._-", 64);
}

/* The default name: the basename of source without .yaml or .yml. */
static char *default_name(const char *source)
{
	const char *base = strrchr(source, '/');
	size_t len;

	base = base ? base + 1 : source;
	len = strlen(base);
	if (ends_with(base, ".yaml"))
		len -= 5;
	else if (ends_with(base, ".yml"))
		len -= 4;
	return xstrndup(base, len ? len : strlen(base));
}

/*
 * Check the whole tree into p.  Every section is checked even after an
 * error in another; runs are expanded only when all is well.
 */
static int check_plan(struct ctx *c, struct plan *p, const struct ynode *root)
{
	static const char *const keys[] = {
		"name",	     "description", "workloads", "workload", "params",
		"variants",  "iterations",  "warmup",	 "boots",    "until",
		"max_boots", "cgroups",	    "host",	 "kernel",   "metrics",
		"timeouts",  NULL
	};
	enum {
		K_NAME,
		K_DESC,
		K_WORKLOADS,
		K_WORKLOAD,
		K_PARAMS,
		K_VARIANTS,
		K_ITER,
		K_WARMUP,
		K_BOOTS,
		K_UNTIL,
		K_MAXB,
		K_CGROUPS,
		K_HOST,
		K_KERNEL,
		K_METRICS,
		K_TIMEOUTS,
		K_NR
	};
	const struct ynode *v[K_NR + 1];
	struct sentry *e = NULL;
	size_t nr_entries = 0;
	struct strbuf f = STRBUF_INIT;
	double total = 0;
	int before = c->nr_errors;

	if (root->kind != Y_MAP) {
		expected(c, root, "plan",
			 "a map of plan settings (workloads, ...)");
		return -1;
	}
	map_fields(c, root, "plan", keys, v);

	if (v[K_NAME] && get_scalar(c, v[K_NAME], "name", "a plan name") == 0) {
		if (!ok_plan_name(v[K_NAME]->text))
			expected(
				c, v[K_NAME], "name",
				"a name of at most 64 bytes of [A-Za-z0-9._-]");
		else
			p->name = xstrdup(v[K_NAME]->text);
	}
	if (!p->name)
		p->name = default_name(p->source);
	if (v[K_DESC] &&
	    get_scalar(c, v[K_DESC], "description", "a text") == 0) {
		if (strlen(v[K_DESC]->text) > 4096)
			nerror(c, v[K_DESC],
			       "description: longer than 4096 bytes");
		else
			p->description = xstrdup(v[K_DESC]->text);
	}
	check_settings(c, p, &v[K_ITER]);
	if (v[K_CGROUPS])
		check_cgroups(c, p, v[K_CGROUPS]);
	if (v[K_HOST])
		check_host(c, p, v[K_HOST]);
	if (v[K_KERNEL])
		check_kernel(c, p, v[K_KERNEL]);
	if (v[K_METRICS])
		check_metrics(c, p, v[K_METRICS]);
	if (v[K_TIMEOUTS])
		check_timeouts(c, p, v[K_TIMEOUTS]);

	if (v[K_WORKLOADS] && (v[K_WORKLOAD] || v[K_PARAMS] || v[K_VARIANTS])) {
		const struct ynode *k = v[K_WORKLOAD] ? v[K_WORKLOAD]
					: v[K_PARAMS] ? v[K_PARAMS]
						      : v[K_VARIANTS];

		nerror(c, k,
		       "plan: give either workloads: (a list) or one "
		       "workload: with params:, not both");
	} else if (v[K_WORKLOADS]) {
		const struct ynode *w = v[K_WORKLOADS];

		if (w->kind != Y_SEQ)
			expected(c, w, "workloads", "a list of workloads");
		else if (!w->nr)
			nerror(c, w, "workloads: empty list");
		else if (w->nr > PLAN_MAX_WORKLOADS)
			nerror(c, w, "workloads: more than %d entries",
			       PLAN_MAX_WORKLOADS);
		else {
			e = xcalloc(w->nr, sizeof(*e));
			nr_entries = w->nr;
			for (size_t i = 0; i < w->nr; i++) {
				strbuf_reset(&f);
				strbuf_addf(&f, "workloads[%zu]", i);
				check_entry(c, p, w->kids[i], f.buf, &e[i]);
			}
		}
	} else if (v[K_WORKLOAD] || v[K_PARAMS] || v[K_VARIANTS]) {
		const struct ynode *ev[3] = { v[K_WORKLOAD], v[K_PARAMS],
					      v[K_VARIANTS] };

		e = xcalloc(1, sizeof(*e));
		nr_entries = 1;
		check_entry_fields(c, p, root, "", ev, &e[0]);
	} else {
		nerror(c, root,
		       "plan: missing key 'workloads' (or 'workload')");
	}

	if (c->nr_errors == before) {
		for (size_t i = 0; i < nr_entries; i++)
			for (size_t g = 0; g < e[i].nr_groups; g++)
				total += group_runs(&e[i].groups[g]);
		if (total > PLAN_MAX_RUNS) {
			const struct ynode *at =
				v[K_WORKLOADS] ? v[K_WORKLOADS] : v[K_WORKLOAD];

			if (total < 1e15)
				nerror(c, at,
				       "the sweeps expand to %.0f runs, more "
				       "than "
				       "the cap of %d",
				       total, PLAN_MAX_RUNS);
			else
				nerror(c, at,
				       "the sweeps expand to %.3g runs, more "
				       "than "
				       "the cap of %d",
				       total, PLAN_MAX_RUNS);
		} else {
			const struct ynode *at = root;

			/* Point at timeouts.run when the plan set it. */
			if (v[K_TIMEOUTS] && ymap_get(v[K_TIMEOUTS], "run"))
				at = ymap_get(v[K_TIMEOUTS], "run");
			expand(p, e, nr_entries, (size_t)total);
			check_run_time(c, p, at);
		}
	}

	for (size_t i = 0; i < nr_entries; i++) {
		for (size_t g = 0; g < e[i].nr_groups; g++)
			sgroup_release(&e[i].groups[g]);
		free(e[i].groups);
	}
	free(e);
	strbuf_release(&f);
	return c->nr_errors == before ? 0 : -1;
}

/* ---- the API -------------------------------------------------------- */

int plan_parse(const char *name, const char *text, size_t len,
	       struct plan **ret, struct strbuf *err)
{
	struct ctx c = { .name = name, .err = err };
	struct ynode *root = NULL;
	struct plan *p = NULL;

	*ret = NULL;
	if (len > PLAN_MAX_BYTES)
		report(&c, 0, 0, "plan is %zu bytes, more than the cap of %d",
		       len, PLAN_MAX_BYTES);
	else if (yaml_to_tree(&c, text, len, &root) < 0)
		;
	else if (!root)
		report(&c, 1, 1, "empty plan (expected a map with workloads)");
	else {
		p = xcalloc(1, sizeof(*p));
		strvec_init(&p->strings_);
		strvec_init(&p->host.kinds);
		strvec_init(&p->host.tags);
		strvec_init(&p->kernel_config);
		p->source = xstrdup(name);
		p->iterations = 3;
		p->warmup = 1;
		p->boots = 1;
		p->until = PLAN_UNTIL_FIXED;
		p->timeouts.power_ms = 5 * 60 * 1000;
		p->timeouts.boot_ms = 10 * 60 * 1000;
		p->timeouts.run_ms = 60 * 60 * 1000;
		p->timeouts.collect_ms = 5 * 60 * 1000;
		check_plan(&c, p, root);
	}
	ynode_free(root);
	if (c.nr_errors) {
		flush_errors(&c);
		plan_free(p);
		return -EINVAL;
	}
	*ret = p;
	return 0;
}

int plan_load(const char *path, struct plan **ret, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int rc;

	*ret = NULL;
	rc = strbuf_read_file(&text, path, PLAN_MAX_BYTES);
	if (rc == -EFBIG) {
		strbuf_addf(
			err,
			"%s: error: plan is more than the cap of %d bytes\n",
			path, PLAN_MAX_BYTES);
	} else if (rc < 0) {
		strbuf_addf(err, "%s: error: cannot read: %s\n", path,
			    strerror(-rc));
	} else {
		rc = plan_parse(path, text.buf, text.len, ret, err);
	}
	strbuf_release(&text);
	return rc;
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_runs; i++)
		free(p->runs[i].params);
	free(p->runs);
	for (size_t i = 0; i < p->nr_cgroups; i++) {
		free(p->cgroups[i].path);
		free(p->cgroups[i].cpus);
	}
	free(p->cgroups);
	for (size_t i = 0; i < p->nr_metrics; i++)
		free(p->metrics[i].name);
	free(p->metrics);
	strvec_clear(&p->host.kinds);
	strvec_clear(&p->host.tags);
	strvec_clear(&p->kernel_config);
	strvec_clear(&p->strings_);
	free(p->source);
	free(p->name);
	free(p->description);
	free(p);
}

const char *plan_run_param(const struct plan_run *r, const char *name)
{
	const struct wl_param *wp;

	for (size_t i = 0; i < r->nr_params; i++)
		if (!strcmp(r->params[i].name, name))
			return r->params[i].value;
	wp = workload_param(r->wl, name);
	return wp ? wp->def : NULL;
}

/* Append parameter wp of run r as "name":value, typed by the table. */
static void add_param_json(const struct plan_run *r, const struct wl_param *wp,
			   struct strbuf *out)
{
	const char *v = plan_run_param(r, wp->name);
	struct strbuf why = STRBUF_INIT;
	double d = 0;

	strbuf_add_json_str(out, wp->name);
	strbuf_addch(out, ':');
	if (!v || workload_check_value(wp, v, &d, &why) < 0) {
		strbuf_addstr(out, "null"); /* plan_parse never lets this by */
	} else if (wp->type == WL_INT) {
		strbuf_addf(out, "%" PRId64, (int64_t)d);
	} else if (wp->type == WL_DOUBLE) {
		strbuf_add_json_double(out, d);
	} else if (wp->type == WL_BOOL) {
		strbuf_addstr(out, d ? "true" : "false");
	} else {
		strbuf_add_json_str(out, v);
	}
	strbuf_release(&why);
}

void plan_run_params_json(const struct plan *p, const struct plan_run *r,
			  struct strbuf *out)
{
	(void)p;
	strbuf_addch(out, '{');
	add_param_json(r, &workload_cgroup_param, out);
	for (const struct wl_param *wp = r->wl->params; wp->name; wp++) {
		strbuf_addch(out, ',');
		add_param_json(r, wp, out);
	}
	strbuf_addch(out, '}');
}

void plan_run_label(const struct plan_run *r, struct strbuf *out)
{
	strbuf_addstr(out, r->workload);
	for (size_t i = 0; i < r->nr_params; i++)
		strbuf_addf(out, " %s=%s", r->params[i].name,
			    r->params[i].value);
}

void plan_run_json(const struct plan *p, const struct plan_run *r,
		   struct strbuf *out)
{
	strbuf_addf(out, "{\"index\":%zu,\"workload\":", r->index);
	strbuf_add_json_str(out, r->workload);
	strbuf_addstr(out, ",\"params\":");
	plan_run_params_json(p, r, out);
	strbuf_addch(out, '}');
}

void plan_cgroups_json(const struct plan *p, struct strbuf *out)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < p->nr_cgroups; i++) {
		const struct plan_cgroup *cg = &p->cgroups[i];

		strbuf_addstr(out, i ? ",{\"path\":" : "{\"path\":");
		strbuf_add_json_str(out, cg->path);
		strbuf_addf(out, ",\"weight\":%d", cg->weight);
		if (cg->cpu_max_pct > 0) {
			strbuf_addstr(out, ",\"cpu_max_pct\":");
			strbuf_add_json_double(out, cg->cpu_max_pct);
		}
		if (cg->cpus) {
			strbuf_addstr(out, ",\"cpus\":");
			strbuf_add_json_str(out, cg->cpus);
		}
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, ']');
}

static void add_strvec_json(struct strbuf *out, const struct strvec *sv)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < sv->nr; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_add_json_str(out, sv->v[i]);
	}
	strbuf_addch(out, ']');
}

const char *plan_direction_name(enum plan_direction d)
{
	switch (d) {
	case PLAN_DIR_HIGHER:
		return "higher";
	case PLAN_DIR_LOWER:
		return "lower";
	case PLAN_DIR_NONE:
		return "none";
	case PLAN_DIR_DEFAULT:
		break;
	}
	return NULL;
}

void plan_settings_json(const struct plan *p, struct strbuf *out)
{
	strbuf_addstr(out, "{\"name\":");
	strbuf_add_json_str(out, p->name);
	strbuf_addstr(out, ",\"description\":");
	if (p->description)
		strbuf_add_json_str(out, p->description);
	else
		strbuf_addstr(out, "null");
	strbuf_addf(out,
		    ",\"iterations\":%d,\"warmup\":%d,\"boots\":%d,"
		    "\"until\":\"%s\",\"max_boots\":%d,\"cgroups\":",
		    p->iterations, p->warmup, p->boots,
		    p->until == PLAN_UNTIL_DECIDED ? "decided" : "fixed",
		    p->max_boots);
	plan_cgroups_json(p, out);
	strbuf_addstr(out, ",\"host\":{\"kinds\":");
	add_strvec_json(out, &p->host.kinds);
	strbuf_addf(out,
		    ",\"min_sockets\":%d,\"min_cpus\":%d,"
		    "\"min_memory_mb\":%" PRId64 ",\"tags\":",
		    p->host.min_sockets, p->host.min_cpus,
		    p->host.min_memory_mb);
	add_strvec_json(out, &p->host.tags);
	strbuf_addstr(out, "},\"kernel_config\":");
	add_strvec_json(out, &p->kernel_config);
	strbuf_addstr(out, ",\"metrics\":[");
	for (size_t i = 0; i < p->nr_metrics; i++) {
		const struct plan_metric *m = &p->metrics[i];
		const char *dir = plan_direction_name(m->direction);

		strbuf_addstr(out, i ? ",{\"name\":" : "{\"name\":");
		strbuf_add_json_str(out, m->name);
		strbuf_addstr(out, ",\"tau_pct\":");
		if (m->tau_pct >= 0)
			strbuf_add_json_double(out, m->tau_pct);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"direction\":");
		if (dir)
			strbuf_add_json_str(out, dir);
		else
			strbuf_addstr(out, "null");
		strbuf_addf(out, ",\"decides\":%s}",
			    m->decides ? "true" : "false");
	}
	strbuf_addf(out,
		    "],\"timeouts\":{\"power_ms\":%" PRId64
		    ",\"boot_ms\":%" PRId64 ",\"run_ms\":%" PRId64
		    ",\"collect_ms\":%" PRId64 "},\"nr_runs\":%zu}",
		    p->timeouts.power_ms, p->timeouts.boot_ms,
		    p->timeouts.run_ms, p->timeouts.collect_ms, p->nr_runs);
}
