/*
 * yaml.c - the plan's YAML: libyaml's events into a small tree of our own,
 * and the error list every check of a plan reports into.
 *
 * The only file that includes yaml.h.  libyaml's event parser feeds a
 * small tree of our own (scalars, lists, maps, each with its line and
 * column) so that every check can name where it looked; aliases are
 * refused (a plan has no use for them and they are the classic way to make
 * a YAML reader do unbounded work), nesting is capped, and the text itself
 * is capped at PLAN_MAX_BYTES, which bounds the tree.
 *
 * Errors are collected rather than returned one at a time, so that the
 * checks of check.c, sweep.c and plan.c can go on after a defect and the
 * user sees them all, sorted by position (up to PLAN_MAX_ERRORS).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "plan/plan-int.h"
#include "banned.h"

/* ---- the tree ------------------------------------------------------- */

/* Free n and everything below it; NULL is fine. */
void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static struct ynode *ynode_new(enum ykind kind, unsigned src,
			       const yaml_mark_t *m)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->src = src;
	n->line = (unsigned)m->line + 1;
	n->col = (unsigned)m->column + 1;
	return n;
}

/* A plain scalar made by the checks (a --set key), at src:line:col. */
struct ynode *ynode_scalar(const char *text, unsigned src, unsigned line,
			   unsigned col)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = Y_SCALAR;
	n->text = xstrdup(text);
	n->plain = 1;
	n->src = src;
	n->line = line;
	n->col = col;
	return n;
}

/* An empty map made by the checks (a --set creating a section). */
struct ynode *ynode_map(unsigned src, unsigned line, unsigned col)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = Y_MAP;
	n->src = src;
	n->line = line;
	n->col = col;
	return n;
}

void ynode_add(struct ynode *parent, struct ynode *kid)
{
	ALLOC_GROW(parent->kids, parent->nr + 1, parent->alloc);
	parent->kids[parent->nr++] = kid;
}

size_t ymap_len(const struct ynode *n)
{
	return n->nr / 2;
}

/* The value of key in map (a scalar key), or NULL. */
const struct ynode *ymap_get(const struct ynode *map, const char *key)
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

/* Is n YAML's null: an unquoted ~, null, Null, NULL or nothing at all? */
int ynode_is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && n->plain &&
	       (!n->text[0] || !strcmp(n->text, "~") ||
		!strcmp(n->text, "null") || !strcmp(n->text, "Null") ||
		!strcmp(n->text, "NULL"));
}

/* ---- errors --------------------------------------------------------- */

/*
 * Add a text errors can be in (an include's path, a --set's KEY=VALUE);
 * return its number for the nodes read from it.
 */
unsigned ctx_add_source(struct ctx *c, const char *name, int is_set)
{
	if (!c->nr_srcs) {
		c->srcs = xcalloc(1, sizeof(*c->srcs));
		c->nr_srcs = 1; /* 0 is the plan itself */
	}
	c->srcs = xrealloc(c->srcs, (c->nr_srcs + 1) * sizeof(*c->srcs));
	c->srcs[c->nr_srcs].name = xstrdup(name);
	c->srcs[c->nr_srcs].is_set = is_set;
	return (unsigned)c->nr_srcs++;
}

void ctx_release_sources(struct ctx *c)
{
	for (size_t i = 1; i < c->nr_srcs; i++)
		free(c->srcs[i].name);
	free(c->srcs);
	c->srcs = NULL;
	c->nr_srcs = 0;
}

static void vreport(struct ctx *c, unsigned src, unsigned line, unsigned col,
		    const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;
	struct perror *e;

	c->nr_errors++;
	if (c->nr >= PLAN_MAX_ERRORS)
		return;
	strbuf_vaddf(&msg, fmt, ap);
	ALLOC_GROW(c->list, c->nr + 1, c->alloc);
	e = &c->list[c->nr];
	e->src = src;
	e->line = line;
	e->col = col;
	e->seq = c->nr++;
	e->text = strbuf_detach(&msg, NULL);
}

/*
 * Record one error at line:col of the plan (0:0 for the file as a
 * whole).  Always counted in c->nr_errors, so callers can tell whether a
 * check found anything; the text is kept only for the first
 * PLAN_MAX_ERRORS.
 */
__attribute__((format(printf, 4, 5))) void
report(struct ctx *c, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, 0, line, col, fmt, ap);
	va_end(ap);
}

/* The same in source src (ctx_add_source()); nerror() uses the node's. */
__attribute__((format(printf, 5, 6))) void
report_src(struct ctx *c, unsigned src, unsigned line, unsigned col,
	   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, src, line, col, fmt, ap);
	va_end(ap);
}

static int perror_cmp(const void *a, const void *b)
{
	const struct perror *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Write the collected errors to c->err, sorted, and forget them. */
void flush_errors(struct ctx *c)
{
	if (c->nr)
		qsort(c->list, c->nr, sizeof(*c->list), perror_cmp);
	for (size_t i = 0; i < c->nr; i++) {
		const struct perror *e = &c->list[i];
		const struct psource *s =
			e->src && e->src < c->nr_srcs ? &c->srcs[e->src] : NULL;
		const char *name = s && !s->is_set ? s->name : c->name;

		if (s && s->is_set)
			strbuf_addf(c->err, "%s: error: --set %s: %s\n", name,
				    s->name, e->text);
		else if (e->line)
			strbuf_addf(c->err, "%s:%u:%u: error: %s\n", name,
				    e->line, e->col, e->text);
		else
			strbuf_addf(c->err, "%s: error: %s\n", name, e->text);
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

/*
 * Describe what node n is, for "got ..." in messages: the scalar quoted
 * (cut at 40 bytes, control bytes as '?'), or "a list", "a map", "nothing".
 */
const char *ydescribe(const struct ynode *n, struct strbuf *buf)
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

/*
 * What n is without a word of its text: "a list", "a map", "nothing" or
 * "a text".  For the top of a file that may not be a plan at all (an
 * include naming some other file): its content is never quoted back.
 */
const char *yshape(const struct ynode *n)
{
	if (n->kind == Y_SEQ)
		return "a list";
	if (n->kind == Y_MAP)
		return "a map";
	return ynode_is_null(n) ? "nothing" : "a text";
}

/* "PATH: expected WHAT, got DESCRIPTION" at n. */
void expected(struct ctx *c, const struct ynode *n, const char *path,
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
static void yaml_error(struct ctx *c, unsigned src, const yaml_parser_t *parser,
		       const char *text, size_t len)
{
	const yaml_mark_t *m = &parser->problem_mark;
	unsigned line = (unsigned)m->line + 1, col = (unsigned)m->column + 1;

	if (m->index < len && text[m->index] == '\t') {
		report_src(c, src, line, col,
			   "invalid YAML: a tab character (YAML indents with "
			   "spaces)");
		return;
	}

	if (parser->error == YAML_MEMORY_ERROR) {
		report_src(c, src, 0, 0, "out of memory reading YAML");
		return;
	}
	if (parser->context && (parser->context_mark.line != m->line ||
				parser->context_mark.column != m->column))
		report_src(c, src, line, col,
			   "invalid YAML: %s %s (from %zu:%zu)",
			   parser->problem ? parser->problem : "syntax error",
			   parser->context, parser->context_mark.line + 1,
			   parser->context_mark.column + 1);
	else if (parser->context)
		report_src(c, src, line, col, "invalid YAML: %s %s",
			   parser->problem ? parser->problem : "syntax error",
			   parser->context);
	else
		report_src(c, src, line, col, "invalid YAML: %s",
			   parser->problem ? parser->problem : "syntax error");
}

/*
 * Parse text (source src: its nodes and errors say so) into one tree.
 * Return 0 with *ret (NULL for an empty document), or -1 after reporting
 * why.  Refuses aliases, more than one document, nesting deeper than
 * PLAN_MAX_DEPTH and more than PLAN_MAX_NODES values.
 */
int yaml_to_tree(struct ctx *c, unsigned src, const char *text, size_t len,
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
		report_src(c, src, 0, 0, "cannot start the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		struct ynode *n = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			yaml_error(c, src, &parser, text, len);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				report_src(c, src,
					   (unsigned)ev.start_mark.line + 1,
					   (unsigned)ev.start_mark.column + 1,
					   "a plan is one YAML document; found "
					   "a second");
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			report_src(c, src, (unsigned)ev.start_mark.line + 1,
				   (unsigned)ev.start_mark.column + 1,
				   "YAML aliases (*name) are not supported in "
				   "plans");
			yaml_event_delete(&ev);
			goto out;
		case YAML_SCALAR_EVENT:
			n = ynode_new(Y_SCALAR, src, &ev.start_mark);
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
				      src, &ev.start_mark);
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
