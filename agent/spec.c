/*
 * spec.c - read and check a run spec (doc/PROTOCOL.md) before anything runs.
 *
 * The spec comes from the controller over SSH, so it is treated as hostile:
 * parsed with the strict JSON reader under small limits, every field typed
 * and ranged, every parameter checked against the shared workload table,
 * unknown fields refused (a typo must not silently take a default).  Each
 * error names its field so the `error` line can say where.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "parse.h"
#include "wl_check.h"
#include "banned.h"

void run_spec_init(struct run_spec *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->pnames);
	strvec_init(&s->pvalues);
}

void run_spec_release(struct run_spec *s)
{
	strvec_clear(&s->pnames);
	strvec_clear(&s->pvalues);
	for (size_t i = 0; i < s->ncgroups; i++) {
		free(s->cgroups[i].path);
		free(s->cgroups[i].cpus);
	}
	free(s->cgroups);
	free(s->results_file);
	if (s->cmd) {
		cmd_def_release(s->cmd);
		free(s->cmd);
	}
	for (size_t i = 0; i < s->nmembers; i++)
		run_spec_release(&s->members[i]);
	free(s->members);
	free(s->name);
	run_spec_init(s);
}

/* A command spec has one parameter: where it runs. */
static const struct wl_param command_params[] = {
	{ NULL, WL_INT, 0, 0, NULL, NULL, NULL },
};
static const char *const command_metrics[] = { "*", NULL };

const struct wl_desc wl_command_desc = {
	"command",	WL_COMMAND,	 NULL, "a plan-defined command",
	command_params, command_metrics,
};

/* A cgroup path from a spec: absolute, plain components, no "." or "..". */
static int check_cg_path(const char *p, struct strbuf *why)
{
	if (p[0] != '/') {
		strbuf_addstr(why, "a path starting with '/'");
		return -1;
	}
	if (strlen(p) > 256) {
		strbuf_addstr(why, "a path of at most 256 bytes");
		return -1;
	}
	for (const char *c = p + 1; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.')) {
			strbuf_addstr(
				why,
				"a path of plain names like /a or /foo/bar");
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)c[i];

			if (!(ch == '-' || ch == '_' || ch == '.' ||
			      (ch >= '0' && ch <= '9') ||
			      (ch >= 'a' && ch <= 'z') ||
			      (ch >= 'A' && ch <= 'Z'))) {
				strbuf_addstr(why,
					      "a path of names made of "
					      "letters, digits, '-', '_', '.'");
				return -1;
			}
		}
		c += n;
		if (*c == '/') {
			c++;
			if (!*c) {
				strbuf_addstr(why,
					      "a path without a trailing '/'");
				return -1;
			}
		}
	}
	return 0;
}

/* A cpuset list: digits, ',', '-' only. */
static int check_cpus(const char *s)
{
	if (!*s || strlen(s) > 256)
		return -1;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == ',' || *s == '-'))
			return -1;
	return 0;
}

void free_loop_groups(struct loop_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].path);
	free(g);
}

int parse_loop_groups(const char *text, struct loop_group **ret, size_t *ret_n,
		      struct strbuf *err)
{
	struct strvec items = STRVEC_INIT;
	struct loop_group *g = NULL;
	size_t n = 0, total = 0;
	int rc = -1;

	*ret = NULL;
	*ret_n = 0;
	strvec_split(&items, text, ',');
	if (items.nr == 0 || items.nr > 64) {
		strbuf_addstr(err, "expected 1..64 groups PATH:N[:WEIGHT]");
		goto out;
	}
	g = xcalloc(items.nr, sizeof(*g));
	for (size_t i = 0; i < items.nr; i++) {
		struct strvec f = STRVEC_INIT;
		struct strbuf why = STRBUF_INIT;
		int ok = 1;

		strvec_split(&f, items.v[i], ':');
		if (f.nr < 2 || f.nr > 3 || check_cg_path(f.v[0], &why) < 0 ||
		    parse_int(f.v[1], 0, 4096, &g[n].tasks, NULL) < 0 ||
		    (f.nr == 3 &&
		     parse_int(f.v[2], 1, 10000, &g[n].weight, NULL) < 0))
			ok = 0;
		for (size_t j = 0; ok && j < n; j++)
			if (!strcmp(g[j].path, f.v[0]))
				ok = 0;
		if (ok) {
			g[n].path = xstrdup(f.v[0]);
			total += (size_t)g[n].tasks;
			n++;
		} else {
			strbuf_addf(err,
				    "group %zu \"%s\": expected "
				    "PATH:N[:WEIGHT] with a distinct path, N "
				    "in 0..4096, WEIGHT in 1..10000",
				    i + 1, items.v[i]);
		}
		strvec_clear(&f);
		strbuf_release(&why);
		if (!ok)
			goto out;
	}
	if (total == 0 || total > 4096) {
		strbuf_addf(err, "expected 1..4096 loops in all, got %zu",
			    total);
		goto out;
	}
	*ret = g;
	*ret_n = n;
	g = NULL;
	n = 0;
	rc = 0;
out:
	free_loop_groups(g, n);
	strvec_clear(&items);
	return rc;
}

/* Turn a JSON scalar into the text workload_check_value() reads. */
static int scalar_text(const struct json_value *v, struct strbuf *out)
{
	int b;

	switch (json_type_of(v)) {
	case JSON_STRING:
		strbuf_addstr(out, json_string(v));
		return 0;
	case JSON_NUMBER:
		strbuf_addstr(out, json_number_text(v));
		return 0;
	case JSON_BOOL:
		json_bool(v, &b);
		strbuf_addstr(out, b ? "true" : "false");
		return 0;
	default:
		return -1;
	}
}

/*
 * The parameters of s's workload from the spec's params object (NULL: all
 * defaults), checked against the workload table.  Field names in messages
 * start with prefix ("" or "together[1].").
 */
static int parse_params(const struct json_value *params, struct run_spec *s,
			const char *prefix, struct strbuf *field,
			struct strbuf *err)
{
	const struct wl_desc *wl = s->wl;
	size_t n = json_len(params);

	strbuf_addstr(field, prefix);
	if (params && json_type_of(params) != JSON_OBJECT) {
		strbuf_addstr(field, "params");
		strbuf_addstr(err, "\"params\": expected an object");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *key = json_key_at(params, i);

		if (!workload_param(wl, key)) {
			strbuf_addf(field, "params.%s", key);
			strbuf_addf(err,
				    "\"params.%s\": %s has no parameter %s",
				    key, s->cmd ? s->cmd->name : wl->name, key);
			return -1;
		}
	}
	/* Every parameter, in table order, then cgroup. */
	for (const struct wl_param *p = wl->params;; p++) {
		const struct wl_param *pp =
			p->name ? p : &workload_cgroup_param;
		const struct json_value *v = json_get(params, pp->name);
		struct strbuf val = STRBUF_INIT, why = STRBUF_INIT;

		if (v) {
			if (scalar_text(v, &val) < 0) {
				workload_describe_type(pp, &why);
				strbuf_addf(field, "params.%s", pp->name);
				strbuf_addf(
					err,
					"\"params.%s\": expected %s, got %s",
					pp->name, why.buf,
					json_type_name(json_type_of(v)));
				goto bad;
			}
		} else if (pp->def) {
			strbuf_addstr(&val, pp->def);
		} else {
			workload_describe_type(pp, &why);
			strbuf_addf(field, "params.%s", pp->name);
			strbuf_addf(err, "\"params.%s\": required (%s)",
				    pp->name, why.buf);
			goto bad;
		}
		if (workload_check_value(pp, val.buf, NULL, &why) < 0) {
			strbuf_addf(field, "params.%s", pp->name);
			strbuf_addf(err, "\"params.%s\": expected %s, got ",
				    pp->name, why.buf);
			strbuf_add_json_str(err, val.buf);
			goto bad;
		}
		if (pp == &workload_cgroup_param &&
		    check_cg_path(val.buf, &why) < 0 && strcmp(val.buf, "/")) {
			strbuf_addf(field, "params.%s", pp->name);
			strbuf_addf(err, "\"params.cgroup\": expected %s",
				    why.buf);
			goto bad;
		}
		strvec_push(&s->pnames, pp->name);
		strvec_push(&s->pvalues, val.buf);
		strbuf_release(&val);
		strbuf_release(&why);
		if (!p->name)
			break;
		continue;
	bad:
		strbuf_release(&val);
		strbuf_release(&why);
		return -1;
	}
	strbuf_setlen(field, 0);
	return 0;
}

/*
 * The workload part of a spec or of a member: "workload" and "params", or
 * "command" and "params".  Fills s->wl (and s->cmd) and the parameters,
 * then the workload's own deeper check.
 */
static int parse_workload(const struct json_value *o, struct run_spec *s,
			  const char *prefix, struct strbuf *field,
			  struct strbuf *err)
{
	const struct json_value *cmd = json_get(o, "command");
	const char *name = NULL;
	int r;

	if (cmd && json_get(o, "workload")) {
		strbuf_addf(field, "%scommand", prefix);
		strbuf_addstr(err, "give \"workload\" or \"command\", not "
				   "both");
		return -1;
	}
	if (cmd) {
		s->cmd = xcalloc(1, sizeof(*s->cmd));
		cmd_def_init(s->cmd);
		strbuf_addf(field, "%scommand", prefix);
		if (cmd_def_from_json(cmd, s->cmd, field, err) < 0) {
			struct strbuf msg = STRBUF_INIT;

			strbuf_addf(&msg, "\"%s\": %s", field->buf, err->buf);
			strbuf_reset(err);
			strbuf_addbuf(err, &msg);
			strbuf_release(&msg);
			return -1;
		}
		strbuf_reset(field);
		s->wl = &wl_command_desc;
	} else {
		r = json_get_string(o, "workload", 64, &name, err);
		if (r == -ENOENT)
			strbuf_addstr(err, "\"workload\": required (or "
					   "\"command\" or \"together\")");
		if (r < 0) {
			strbuf_addf(field, "%sworkload", prefix);
			return -1;
		}
		s->wl = workload_find(name);
		if (!s->wl) {
			strbuf_addf(err,
				    "\"workload\": no workload named \"%s\" "
				    "(see schedfarm-agent list)",
				    name);
			strbuf_addf(field, "%sworkload", prefix);
			return -1;
		}
	}
	if (parse_params(json_get(o, "params"), s, prefix, field, err) < 0)
		return -1;
	{
		const struct wl_ops *ops = wl_ops_of(s);
		size_t mark = field->len;

		if (ops && ops->check && ops->check(s, field, err) < 0) {
			if (*prefix) {
				char *f = xstrdup(field->buf + mark);

				strbuf_setlen(field, mark);
				strbuf_addf(field, "%s%s", prefix, f);
				free(f);
			}
			return -1;
		}
	}
	return 0;
}

/* Names the cross-group figures use: no member may be called so. */
static int reserved_member_name(const char *n)
{
	static const char *const r[] = { "share",      "cpu_pct",
					 "elapsed_s",  "elapsed_ratio",
					 "jain_index", "max_min_ratio",
					 "window_s",   NULL };

	for (size_t i = 0; r[i]; i++)
		if (!strcmp(r[i], n))
			return 1;
	return 0;
}

/* Does path a contain b (equal, or b below a)? */
static int path_contains(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

/*
 * "together": 1..SPEC_MAX_MEMBERS members, each {name, workload|command,
 * params, background}: distinct names, at least one measured member, and
 * no two members in the same (or a nested) cgroup other than "/", so each
 * group's CPU is its member's.
 */
static int parse_together(const struct json_value *arr, struct run_spec *s,
			  struct strbuf *field, struct strbuf *err)
{
	size_t n = json_len(arr);
	int measured = 0;

	if (json_type_of(arr) != JSON_ARRAY || !n || n > SPEC_MAX_MEMBERS) {
		strbuf_addstr(field, "together");
		strbuf_addf(err,
			    "\"together\": expected an array of 1..%d members",
			    SPEC_MAX_MEMBERS);
		return -1;
	}
	s->members = xcalloc(n, sizeof(*s->members));
	for (size_t i = 0; i < n; i++) {
		const struct json_value *o = json_at(arr, i);
		struct run_spec *m = &s->members[i];
		struct strbuf prefix = STRBUF_INIT;
		const char *name = NULL;
		int bg = 0, rc = 0;

		run_spec_init(m);
		s->nmembers = i + 1;
		strbuf_addf(&prefix, "together[%zu].", i);
		if (json_type_of(o) != JSON_OBJECT) {
			strbuf_addf(field, "together[%zu]", i);
			strbuf_addstr(err, "a member: expected an object");
			rc = -1;
		}
		for (size_t k = 0; !rc && k < json_len(o); k++) {
			const char *key = json_key_at(o, k);

			if (strcmp(key, "name") && strcmp(key, "workload") &&
			    strcmp(key, "command") && strcmp(key, "params") &&
			    strcmp(key, "background")) {
				strbuf_addf(field, "%s%s", prefix.buf, key);
				strbuf_addf(
					err,
					"unknown field \"%s\" (expected "
					"name, workload or command, params, "
					"background)",
					key);
				rc = -1;
			}
		}
		if (!rc &&
		    (json_get_string(o, "name", 32, &name, err) < 0 || !*name ||
		     strspn(name, "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789_-") != strlen(name) ||
		     reserved_member_name(name))) {
			strbuf_addf(field, "%sname", prefix.buf);
			strbuf_addstr(err,
				      " (a member's name: 1..32 bytes of "
				      "[A-Za-z0-9_-], not one of share, "
				      "cpu_pct, elapsed_s, elapsed_ratio, "
				      "jain_index, max_min_ratio, window_s)");
			rc = -1;
		}
		for (size_t j = 0; !rc && j < i; j++)
			if (!strcmp(s->members[j].name, name)) {
				strbuf_addf(field, "%sname", prefix.buf);
				strbuf_addf(err,
					    "member name \"%s\" given "
					    "twice",
					    name);
				rc = -1;
			}
		if (!rc &&
		    json_get_bool(o, "background", &bg, err) == -EINVAL) {
			strbuf_addf(field, "%sbackground", prefix.buf);
			rc = -1;
		}
		if (!rc) {
			m->name = xstrdup(name);
			m->background = bg;
			m->run_id = s->run_id;
			measured += !bg;
			rc = parse_workload(o, m, prefix.buf, field, err);
		}
		for (size_t j = 0; !rc && j < i; j++) {
			const char *a = spec_param(&s->members[j], "cgroup"),
				   *b = spec_param(m, "cgroup");

			if (strcmp(a, "/") && strcmp(b, "/") &&
			    (path_contains(a, b) || path_contains(b, a))) {
				strbuf_addf(field, "%sparams.cgroup",
					    prefix.buf);
				strbuf_addf(err,
					    "members %s and %s run in cgroups "
					    "%s and %s: each member needs a "
					    "cgroup of its own (or /) for its "
					    "CPU to be told apart",
					    s->members[j].name, name, a, b);
				rc = -1;
			}
		}
		strbuf_release(&prefix);
		if (rc)
			return -1;
	}
	if (!measured) {
		strbuf_addstr(field, "together");
		strbuf_addstr(err, "\"together\": every member is background; "
				   "at least one must be measured");
		return -1;
	}
	return 0;
}

static int parse_cgroups(const struct json_value *arr, struct run_spec *s,
			 struct strbuf *field, struct strbuf *err)
{
	size_t n = json_len(arr);

	if (json_type_of(arr) != JSON_ARRAY || n > 64) {
		strbuf_addstr(field, "cgroups");
		strbuf_addstr(
			err,
			"\"cgroups\": expected an array of at most 64 groups");
		return -1;
	}
	s->cgroups = xcalloc(n ? n : 1, sizeof(*s->cgroups));
	for (size_t i = 0; i < n; i++) {
		const struct json_value *g = json_at(arr, i);
		struct cg_spec *c = &s->cgroups[i];
		struct strbuf why = STRBUF_INIT;
		const char *path = NULL, *cpus = NULL;
		int64_t w = 100;
		double pct = 0;
		int r;

		s->ncgroups = i + 1;
		if (json_type_of(g) != JSON_OBJECT) {
			strbuf_addf(field, "cgroups[%zu]", i);
			strbuf_addf(err, "\"cgroups[%zu]\": expected an object",
				    i);
			return -1;
		}
		for (size_t k = 0; k < json_len(g); k++) {
			const char *key = json_key_at(g, k);

			if (strcmp(key, "path") && strcmp(key, "weight") &&
			    strcmp(key, "cpu_max_pct") && strcmp(key, "cpus")) {
				strbuf_addf(field, "cgroups[%zu].%s", i, key);
				strbuf_addf(err,
					    "\"cgroups[%zu]\": unknown field "
					    "\"%s\" (expected path, weight, "
					    "cpu_max_pct, cpus)",
					    i, key);
				return -1;
			}
		}
		r = json_get_string(g, "path", 256, &path, err);
		if (r == -ENOENT)
			strbuf_addstr(err, "\"path\": required");
		if (r < 0 || check_cg_path(path, &why) < 0) {
			if (r == 0)
				strbuf_addf(err, "\"path\": expected %s",
					    why.buf);
			strbuf_release(&why);
			strbuf_addf(field, "cgroups[%zu].path", i);
			return -1;
		}
		strbuf_release(&why);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->cgroups[j].path, path)) {
				strbuf_addf(field, "cgroups[%zu].path", i);
				strbuf_addf(err, "\"path\": %s is named twice",
					    path);
				return -1;
			}
		c->path = xstrdup(path);
		if (json_get_i64(g, "weight", 1, 10000, &w, err) == -EINVAL) {
			strbuf_addf(field, "cgroups[%zu].weight", i);
			return -1;
		}
		c->weight = (int)w;
		if (json_get_double(g, "cpu_max_pct", 1, 100000, &pct, err) ==
		    -EINVAL) {
			strbuf_addf(field, "cgroups[%zu].cpu_max_pct", i);
			return -1;
		}
		c->cpu_max_pct = pct;
		r = json_get_string(g, "cpus", 256, &cpus, err);
		if (r == -EINVAL || (r == 0 && check_cpus(cpus) < 0)) {
			if (r == 0)
				strbuf_addstr(err, "\"cpus\": expected a CPU "
						   "list like 0-3,6");
			strbuf_addf(field, "cgroups[%zu].cpus", i);
			return -1;
		}
		if (r == 0)
			c->cpus = xstrdup(cpus);
	}
	return 0;
}

int spec_parse(const char *text, size_t len, struct run_spec *s,
	       struct strbuf *field, struct strbuf *err)
{
	static const char *const known[] = {
		"run_id",     "workload",      "command",
		"together",   "params",	       "iterations",
		"warmup",     "cgroups",       "results_file",
		"deadline_s", "parent_weight", "sample_ms",
		NULL
	};
	const struct json_limits lim = { 8, 4096, 4096 };
	struct json_value *doc = NULL;
	const char *rf = NULL;
	int64_t v;
	int r, rc = -1;

	if (len > (1u << 20)) {
		strbuf_addstr(err, "spec larger than 1 MiB");
		return -1;
	}
	if (json_parse(text, len, &lim, &doc, err) < 0)
		return -1;
	if (json_type_of(doc) != JSON_OBJECT) {
		strbuf_addstr(err, "expected a JSON object");
		goto out;
	}
	for (size_t i = 0; i < json_len(doc); i++) {
		const char *key = json_key_at(doc, i);
		int ok = 0;

		for (size_t k = 0; known[k]; k++)
			ok |= !strcmp(known[k], key);
		if (!ok) {
			strbuf_addstr(field, key);
			strbuf_addf(err, "unknown field \"%s\"", key);
			goto out;
		}
	}
#define FIELD(f)                                                               \
	do {                                                                   \
		strbuf_addstr(field, f);                                       \
		goto out;                                                      \
	} while (0)
	r = json_get_i64(doc, "run_id", 1, INT64_MAX, &s->run_id, err);
	if (r == -ENOENT)
		strbuf_addstr(err, "\"run_id\": required (an integer >= 1)");
	if (r < 0)
		FIELD("run_id");
	if (json_get(doc, "together")) {
		if (json_get(doc, "workload") || json_get(doc, "command") ||
		    json_get(doc, "params")) {
			strbuf_addstr(err, "\"together\" holds the workloads: "
					   "no \"workload\", \"command\" or "
					   "\"params\" beside it");
			FIELD("together");
		}
		if (parse_together(json_get(doc, "together"), s, field, err) <
		    0)
			goto out;
		s->sample_ms = 1000;
	} else if (parse_workload(doc, s, "", field, err) < 0) {
		goto out;
	}
	v = s->sample_ms;
	r = json_get_i64(doc, "sample_ms", 0, 60000, &v, err);
	if (r == -EINVAL || (r == 0 && v && v < 100)) {
		if (r == 0)
			strbuf_addstr(err, "\"sample_ms\": expected 0 (off) "
					   "or 100..60000");
		FIELD("sample_ms");
	}
	s->sample_ms = (int)v;
	v = 1;
	if (json_get_i64(doc, "iterations", 1, 10000, &v, err) == -EINVAL)
		FIELD("iterations");
	s->iterations = (int)v;
	v = 0;
	if (json_get_i64(doc, "warmup", 0, 1000, &v, err) == -EINVAL)
		FIELD("warmup");
	s->warmup = (int)v;
	for (size_t i = 0; i < s->nmembers; i++) {
		s->members[i].iterations = s->iterations;
		s->members[i].warmup = s->warmup;
	}
	v = 0;
	if (json_get_i64(doc, "deadline_s", 1, 7 * 24 * 3600, &v, err) ==
	    -EINVAL)
		FIELD("deadline_s");
	s->deadline_s = v;
	v = 0;
	if (json_get_i64(doc, "parent_weight", 1, 10000, &v, err) == -EINVAL)
		FIELD("parent_weight");
	s->parent_weight = (int)v;
	r = json_get_string(doc, "results_file", 4096, &rf, err);
	if (r == -EINVAL)
		FIELD("results_file");
	if (r == 0) {
		if (!*rf) {
			strbuf_addstr(err, "\"results_file\": expected a path");
			FIELD("results_file");
		}
		s->results_file = xstrdup(rf);
	}
	if (json_get(doc, "cgroups") &&
	    parse_cgroups(json_get(doc, "cgroups"), s, field, err) < 0)
		goto out;
#undef FIELD
	rc = 0;
out:
	json_free(doc);
	return rc;
}

const char *spec_param(const struct run_spec *s, const char *name)
{
	for (size_t i = 0; i < s->pnames.nr; i++)
		if (!strcmp(s->pnames.v[i], name))
			return s->pvalues.v[i];
	return "";
}

int64_t spec_param_i64(const struct run_spec *s, const char *name)
{
	int64_t v = 0;

	parse_i64(spec_param(s, name), INT64_MIN, INT64_MAX, &v, NULL);
	return v;
}

double spec_param_double(const struct run_spec *s, const char *name)
{
	double v = 0;

	parse_double(spec_param(s, name), -1e300, 1e300, &v, NULL);
	return v;
}

int spec_param_bool(const struct run_spec *s, const char *name)
{
	return !strcmp(spec_param(s, name), "true");
}

int64_t spec_param_ms(const struct run_spec *s, const char *name)
{
	int64_t v = 0;

	parse_duration_ms(spec_param(s, name), 0, INT64_MAX, &v, NULL);
	return v;
}

/* spec_param() as workload_check_params() reads parameters. */
static const char *spec_get(const void *ctx, const char *name)
{
	return spec_param(ctx, name);
}

int spec_check_params(const struct run_spec *s, const char *name,
		      struct strbuf *field, struct strbuf *err)
{
	struct strbuf param = STRBUF_INIT, why = STRBUF_INIT;
	const struct wl_desc *wl = workload_find(name);
	int rc = wl ? workload_check_params(wl, spec_get, s, &param, &why) : 0;

	if (rc < 0) {
		strbuf_addf(field, "params.%s", param.buf);
		strbuf_addf(err, "\"params.%s\": %s", param.buf, why.buf);
	}
	strbuf_release(&param);
	strbuf_release(&why);
	return rc;
}
