/*
 * override.c - `--set KEY=VALUE` (run, submit, rerun, plan check/expand):
 * change one setting of a plan from the command line without copying the
 * file.  The value is read as YAML (20s, [1, 2, 4], {from: 1, to: 8,
 * times: 2}, "a string") and put into the plan's tree at KEY before
 * anything is checked, so a --set value is checked exactly like the file
 * and its errors say which --set they come from:
 *
 *     plans/x.yaml: error: --set params.duration=ten: params.duration:
 *         expected a duration in 1s..86400s (like 10s, 500ms, 2m), got 'ten'
 *
 * KEY is a path of map keys and list indexes: boots, params.duration,
 * workloads[1].params.threads, cgroups[0].weight, metrics."share./a".tau
 * (quotes for a key with dots).  A key the file lacks is added (with the
 * maps above it); a list index must exist.  params.NAME on a plan with a
 * workloads: list sets NAME in every entry whose workload takes it.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan-int.h"
#include "banned.h"

struct seg {
	char *name; /* a map key, or NULL for an index */
	size_t index;
};

static void segs_free(struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

/*
 * Split key into segments; -1 with why for a malformed key (an empty
 * name, an unclosed quote or bracket, an index that is not a number).
 */
static int parse_key(const char *key, struct seg **ret, size_t *ret_n,
		     struct strbuf *why)
{
	struct seg *s = NULL;
	size_t n = 0, alloc = 0;
	const char *p = key;

	for (;;) {
		struct strbuf name = STRBUF_INIT;

		if (*p == '"') {
			const char *e = strchr(p + 1, '"');

			if (!e || e == p + 1) {
				strbuf_addstr(why,
					      "a quoted key needs a closing "
					      "quote and a name");
				goto bad;
			}
			strbuf_add(&name, p + 1, (size_t)(e - p - 1));
			p = e + 1;
		} else {
			size_t len = strcspn(p, ".[]\"");

			if (!len) {
				strbuf_addstr(why, "an empty key in the path");
				goto bad;
			}
			strbuf_add(&name, p, len);
			p += len;
		}
		ALLOC_GROW(s, n + 1, alloc);
		s[n].name = strbuf_detach(&name, NULL);
		s[n++].index = 0;
		while (*p == '[') {
			size_t len = strspn(p + 1, "0123456789");

			if (!len || len > 6 || p[1 + len] != ']') {
				strbuf_addstr(why, "an index like [0]");
				goto bad;
			}
			ALLOC_GROW(s, n + 1, alloc);
			s[n].name = NULL;
			s[n].index = 0;
			for (size_t i = 0; i < len; i++)
				s[n].index = s[n].index * 10 +
					     (size_t)(p[1 + i] - '0');
			n++;
			p += len + 2;
		}
		if (!*p)
			break;
		if (*p != '.') {
			strbuf_addf(why, "'.' or '[' after a key, not '%c'",
				    *p);
			goto bad;
		}
		p++;
		continue;
	bad:
		strbuf_release(&name);
		segs_free(s, n);
		return -1;
	}
	*ret = s;
	*ret_n = n;
	return 0;
}

static struct ynode *ynode_copy(const struct ynode *n)
{
	struct ynode *c = xcalloc(1, sizeof(*c));

	*c = *n;
	c->text = n->text ? xstrdup(n->text) : NULL;
	c->kids = NULL;
	c->nr = c->alloc = 0;
	for (size_t i = 0; i < n->nr; i++)
		ynode_add(c, ynode_copy(n->kids[i]));
	return c;
}

/* Index of key's node in map (its key's position), or -1. */
static int map_index(const struct ynode *map, const char *key)
{
	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i];

		if (k->kind == Y_SCALAR && !strcmp(k->text, key))
			return (int)i;
	}
	return -1;
}

/*
 * Put val (taken) at segments s[0..n) below node; src is the --set's.
 * Return 0, or -1 after reporting.
 */
static int put(struct ctx *c, unsigned src, struct ynode *node,
	       const struct seg *s, size_t n, struct ynode *val,
	       struct strbuf *where)
{
	if (s->name) {
		int i;

		if (node->kind != Y_MAP) {
			report_src(
				c, src, 0, 0,
				"%s is not a map, there is no key '%s' in it",
				where->len ? where->buf : "the plan", s->name);
			ynode_free(val);
			return -1;
		}
		if (where->len)
			strbuf_addch(where, '.');
		strbuf_addstr(where, s->name);
		i = map_index(node, s->name);
		if (i < 0) {
			if (n > 1 && !s[1].name) {
				report_src(c, src, 0, 0,
					   "%s is not in the plan: there is no "
					   "list to index",
					   where->buf);
				ynode_free(val);
				return -1;
			}
			ynode_add(node, ynode_scalar(s->name, src, 1, 1));
			if (n == 1) {
				ynode_add(node, val);
				return 0;
			}
			ynode_add(node, ynode_map(src, 1, 1));
			i = (int)ymap_len(node) - 1;
		} else if (n == 1) {
			ynode_free(node->kids[2 * i + 1]);
			node->kids[2 * i + 1] = val;
			return 0;
		}
		return put(c, src, node->kids[2 * i + 1], s + 1, n - 1, val,
			   where);
	}
	if (node->kind != Y_SEQ || s->index >= node->nr) {
		report_src(c, src, 0, 0, "%s has no item [%zu]%s",
			   where->len ? where->buf : "the plan", s->index,
			   node->kind == Y_SEQ ? "" : " (it is not a list)");
		ynode_free(val);
		return -1;
	}
	strbuf_addf(where, "[%zu]", s->index);
	if (n == 1) {
		ynode_free(node->kids[s->index]);
		node->kids[s->index] = val;
		return 0;
	}
	return put(c, src, node->kids[s->index], s + 1, n - 1, val, where);
}

/* Does the workload named by entry (a workloads: item) take param? */
static int entry_takes(const struct ynode *root, const struct ynode *entry,
		       const char *param)
{
	const struct ynode *w = ymap_get(entry, "workload"), *cmds, *def,
			   *params;
	const struct wl_desc *wl;

	if (!w || w->kind != Y_SCALAR)
		return 0;
	if (!strcmp(param, "cgroup"))
		return 1;
	wl = workload_find(w->text);
	if (wl)
		return workload_param(wl, param) != NULL;
	cmds = ymap_get(root, "commands");
	def = cmds ? ymap_get(cmds, w->text) : NULL;
	params = def ? ymap_get(def, "params") : NULL;
	return params && ymap_get(params, param) != NULL;
}

/* One --set: "KEY=VALUE" into root. */
static void apply_one(struct ctx *c, struct ynode *root, const char *set)
{
	unsigned src = ctx_add_source(c, set, 1);
	const char *eq = strchr(set, '=');
	struct strbuf why = STRBUF_INIT, where = STRBUF_INIT;
	struct seg *s = NULL;
	size_t n = 0;
	char *key;
	struct ynode *val = NULL;
	const struct ynode *list;

	if (!eq || eq == set) {
		report_src(c, src, 0, 0,
			   "expected KEY=VALUE, like params.duration=20s");
		return;
	}
	key = xstrndup(set, (size_t)(eq - set));
	if (parse_key(key, &s, &n, &why) < 0) {
		report_src(c, src, 0, 0, "bad key '%s': %s", key, why.buf);
		goto out;
	}
	if (yaml_to_tree(c, src, eq + 1, strlen(eq + 1), &val) < 0)
		goto out;
	if (!val)
		val = ynode_scalar("", src, 1, (unsigned)(eq - set) + 2);
	list = ymap_get(root, "workloads");
	if (n >= 2 && s[0].name && !strcmp(s[0].name, "params") && s[1].name &&
	    list && list->kind == Y_SEQ && !ymap_get(root, "params") &&
	    !ymap_get(root, "workload")) {
		int done = 0;

		for (size_t i = 0; i < list->nr; i++) {
			if (list->kids[i]->kind != Y_MAP ||
			    !entry_takes(root, list->kids[i], s[1].name))
				continue;
			strbuf_reset(&where);
			strbuf_addf(&where, "workloads[%zu]", i);
			put(c, src, list->kids[i], s, n, ynode_copy(val),
			    &where);
			done = 1;
		}
		if (!done)
			report_src(c, src, 0, 0,
				   "no entry of workloads: takes a parameter "
				   "'%s' (name one: workloads[N].params.%s)",
				   s[1].name, s[1].name);
		ynode_free(val);
		goto out;
	}
	put(c, src, root, s, n, val, &where);
out:
	segs_free(s, n);
	free(key);
	strbuf_release(&why);
	strbuf_release(&where);
}

/*
 * Apply every "KEY=VALUE" of sets (NULL: none) to the plan's tree root,
 * in order (a later one wins), each as a source of its own for errors.
 */
void apply_sets(struct ctx *c, struct ynode *root, const struct strvec *sets)
{
	if (!sets)
		return;
	if (sets->nr > PLAN_MAX_SETS) {
		report(c, 0, 0, "more than %d --set options", PLAN_MAX_SETS);
		return;
	}
	for (size_t i = 0; i < sets->nr; i++)
		apply_one(c, root, sets->v[i]);
}
