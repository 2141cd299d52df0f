/*
 * command.c - workloads a plan defines rather than the agent: a program
 * run from an argv (no shell), its parameters, and how its output gives
 * the metrics (common/command.h has the formats):
 *
 *   commands:
 *     sysbench-cpu:
 *       command: [sysbench, cpu, "--threads={threads}", "--time={time}", run]
 *       timeout: 5m
 *       params:
 *         threads: {type: integer, min: 1, max: 4096, default: 1}
 *         time: {type: duration, min: 1s, max: 1h, default: 10s}
 *       parse:
 *         format: regex
 *         patterns: ['events per second:\s*(?<events_per_s>[0-9.]+)']
 *       metrics:
 *         events_per_s: {unit: 1/s, direction: higher}
 *
 * or the same map (with name:) in a file of its own, named under
 * include: so that plans can share it.  plan_load_text() (include.c) reads the
 * included files into the plan's text (after a PLAN_INCLUDE_MARK line
 * each), so the queue stores one text and a job parses exactly what was
 * submitted, wherever it runs.
 *
 * A definition becomes a struct plan_command whose desc looks like a
 * table workload to the rest of the checks: parameters with types,
 * ranges and defaults, declared metric names.  Placeholders {param} in
 * the argv are filled per run (command_def_of_run()); durations become
 * seconds.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "plan/plan-int.h"
#include "banned.h"

void plan_command_free(struct plan_command *pc)
{
	if (!pc)
		return;
	free(pc->params);
	free(pc->metric_names);
	strvec_clear(&pc->argv);
	strvec_clear(&pc->patterns);
	for (size_t i = 0; i < pc->nr_metrics; i++) {
		free(pc->metrics[i].name);
		free(pc->metrics[i].key);
		free(pc->metrics[i].unit);
	}
	free(pc->metrics);
	free(pc);
}

static int ok_param_name(const char *s)
{
	return is_word(s, "abcdefghijklmnopqrstuvwxyz0123456789_", 32) &&
	       !(s[0] >= '0' && s[0] <= '9') && strcmp(s, "cgroup");
}

/* A bound given as text for parameter type t into *ret (ms for durations). */
static int bound(enum wl_type t, const char *s, double *ret)
{
	int64_t v;

	if (t == WL_DURATION) {
		if (parse_duration_ms(s, 0, INT64_C(1) << 50, &v, NULL) < 0)
			return -1;
		*ret = (double)v;
		return 0;
	}
	if (t == WL_INT) {
		if (parse_i64(s, -(INT64_C(1) << 53), INT64_C(1) << 53, &v,
			      NULL) < 0)
			return -1;
		*ret = (double)v;
		return 0;
	}
	return parse_double(s, -1e300, 1e300, ret, NULL);
}

/*
 * One declared parameter: {type: integer|number|boolean|string|duration,
 * min, max, default, choices, help}.  Fills wp (strings interned).
 */
static int check_param(struct ctx *c, struct plan *p, const struct ynode *k,
		       const struct ynode *n, const char *path,
		       struct wl_param *wp)
{
	static const char *const keys[] = { "type",    "min",  "max", "default",
					    "choices", "help", NULL };
	static const struct {
		const char *name;
		enum wl_type t;
	} types[] = { { "integer", WL_INT },
		      { "number", WL_DOUBLE },
		      { "boolean", WL_BOOL },
		      { "string", WL_STRING },
		      { "duration", WL_DURATION } };
	const struct ynode *v[7];
	struct strbuf f = STRBUF_INIT, why = STRBUF_INIT, ch = STRBUF_INIT;
	int rc = 0, have_type = 0;

	memset(wp, 0, sizeof(*wp));
	wp->name = intern(p, k->text);
	wp->help = "";
	if (!ok_param_name(k->text)) {
		expected(c, k, path,
			 "a parameter name of [a-z0-9_] (not 'cgroup', which "
			 "every workload takes)");
		return -1;
	}
	if (n->kind != Y_MAP) {
		expected(c, n, path,
			 "a map with type and optional min, max, default, "
			 "choices, help");
		return -1;
	}
	rc = map_fields(c, n, path, keys, v);
	subpath(&f, path, "type");
	if (!v[0]) {
		nerror(c, n, "%s: missing key 'type'", path);
		rc = -1;
	} else if (get_scalar(c, v[0], f.buf, "a type") == 0) {
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (!strcmp(types[i].name, v[0]->text)) {
				wp->type = types[i].t;
				have_type = 1;
			}
		if (!have_type) {
			expected(c, v[0], f.buf,
				 "integer, number, boolean, string or "
				 "duration");
			rc = -1;
		}
	}
	if (!have_type)
		goto out;
	wp->min = wp->type == WL_STRING ? 0 : -1e15;
	wp->max = wp->type == WL_STRING ? 4096 : 1e15;
	if (wp->type == WL_INT) {
		wp->min = -(double)(INT64_C(1) << 53);
		wp->max = (double)(INT64_C(1) << 53);
	} else if (wp->type == WL_DURATION) {
		wp->min = 0;
		wp->max = 7.0 * 24 * 3600 * 1000;
	} else if (wp->type == WL_BOOL) {
		wp->min = 0;
		wp->max = 1;
	}
	for (int b = 1; b <= 2; b++) {
		double x;

		if (!v[b])
			continue;
		subpath(&f, path, b == 1 ? "min" : "max");
		if (wp->type == WL_BOOL || wp->type == WL_STRING) {
			if (wp->type == WL_STRING && b == 2 &&
			    v[b]->kind == Y_SCALAR &&
			    parse_double(v[b]->text, 1, 65536, &x, NULL) == 0) {
				wp->max = x; /* a string's longest */
				continue;
			}
			nerror(c, v[b], "%s: %s", f.buf,
			       wp->type == WL_BOOL
				       ? "a boolean has no range"
				       : "a string takes max (its longest, "
					 "1..65536 bytes) but no min");
			rc = -1;
		} else if (v[b]->kind != Y_SCALAR ||
			   bound(wp->type, v[b]->text, &x) < 0) {
			expected(c, v[b], f.buf,
				 wp->type == WL_DURATION ? "a duration"
							 : "a number");
			rc = -1;
		} else if (b == 1) {
			wp->min = x;
		} else {
			wp->max = x;
		}
	}
	if (wp->min > wp->max) {
		nerror(c, n, "%s: min is above max", path);
		rc = -1;
	}
	if (v[4]) {
		subpath(&f, path, "choices");
		if (wp->type != WL_STRING || v[4]->kind != Y_SEQ || !v[4]->nr) {
			expected(c, v[4], f.buf,
				 "a list of the values a string may take");
			rc = -1;
		} else {
			for (size_t i = 0; i < v[4]->nr; i++) {
				const struct ynode *x = v[4]->kids[i];

				if (x->kind != Y_SCALAR || !*x->text ||
				    strchr(x->text, '|')) {
					expected(c, x, f.buf,
						 "a value without '|'");
					rc = -1;
					continue;
				}
				strbuf_addf(&ch, "%s%s", i ? "|" : "", x->text);
			}
			wp->choices = intern(p, ch.buf);
		}
	}
	if (v[5]) {
		subpath(&f, path, "help");
		if (get_scalar(c, v[5], f.buf, "a text") == 0)
			wp->help = intern(p, v[5]->text);
	}
	if (v[3]) {
		subpath(&f, path, "default");
		if (v[3]->kind != Y_SCALAR || ynode_is_null(v[3]) ||
		    workload_check_value(wp, v[3]->text, NULL, &why) < 0) {
			if (!why.len)
				workload_describe_type(wp, &why);
			expected(c, v[3], f.buf, why.buf);
			rc = -1;
		} else {
			wp->def = intern(p, v[3]->text);
		}
	}
out:
	strbuf_release(&f);
	strbuf_release(&why);
	strbuf_release(&ch);
	return rc;
}

/* Does every {name} in word name a declared parameter? */
static int check_placeholders(struct ctx *c, const struct plan_command *pc,
			      const struct ynode *n, const char *path)
{
	const char *s = n->text;

	while (*s) {
		if (s[0] == '{' && s[1] == '{') {
			s += 2;
		} else if (s[0] == '}' && s[1] == '}') {
			s += 2;
		} else if (*s == '{') {
			const char *e = strchr(s, '}');
			char *name;
			int found = 0;

			if (!e) {
				nerror(c, n,
				       "%s: '{' without '}' (write {{ for a "
				       "brace)",
				       path);
				return -1;
			}
			name = xstrndup(s + 1, (size_t)(e - s - 1));
			for (const struct wl_param *wp = pc->params; wp->name;
			     wp++)
				found |= !strcmp(wp->name, name);
			if (!found) {
				nerror(c, n,
				       "%s: {%s} is not a declared parameter",
				       path, name);
				free(name);
				return -1;
			}
			free(name);
			s = e + 1;
		} else {
			s++;
		}
	}
	return 0;
}

/* parse: {format, patterns, separator, stream} into pc. */
static int check_parse(struct ctx *c, struct plan_command *pc,
		       const struct ynode *n, const char *path)
{
	static const char *const keys[] = { "format", "patterns", "separator",
					    "stream", NULL };
	const struct ynode *v[5];
	struct strbuf f = STRBUF_INIT;
	int rc, r;

	if (n->kind != Y_MAP) {
		expected(c, n, path,
			 "a map with format and its settings (patterns, "
			 "separator, stream)");
		return -1;
	}
	rc = map_fields(c, n, path, keys, v);
	subpath(&f, path, "format");
	if (!v[0]) {
		nerror(c, n, "%s: missing key 'format'", path);
		rc = -1;
	} else if (v[0]->kind != Y_SCALAR ||
		   (r = cmd_format_from_name(v[0]->text)) < 0) {
		expected(c, v[0], f.buf, "keyvalue, regex, csv or jsonl");
		rc = -1;
	} else {
		pc->format = (enum cmd_format)r;
		pc->separator = pc->format == CMD_CSV ? ',' : ':';
	}
	if (v[1]) {
		const struct ynode *l = v[1];
		size_t nr = l->kind == Y_SEQ ? l->nr : 1;

		subpath(&f, path, "patterns");
		if (l->kind == Y_MAP || (l->kind == Y_SEQ && !l->nr)) {
			expected(c, l, f.buf, "a pattern or a list of them");
			rc = -1;
			nr = 0;
		}
		for (size_t i = 0; i < nr; i++) {
			const struct ynode *x =
				l->kind == Y_SEQ ? l->kids[i] : l;
			struct cmd_regex re;
			struct strbuf why = STRBUF_INIT;

			if (x->kind != Y_SCALAR) {
				expected(c, x, f.buf, "a regular expression");
				rc = -1;
				continue;
			}
			if (cmd_regex_compile(x->text, &re, &why) < 0) {
				nerror(c, x, "%s: %s", f.buf, why.buf);
				rc = -1;
			}
			cmd_regex_free(&re);
			strbuf_release(&why);
			strvec_push(&pc->patterns, x->text);
		}
	}
	if (v[2]) {
		subpath(&f, path, "separator");
		if (v[2]->kind != Y_SCALAR || strlen(v[2]->text) != 1 ||
		    v[2]->text[0] == '"')
			expected(c, v[2], f.buf, "one character");
		else
			pc->separator = v[2]->text[0];
	}
	if (v[3]) {
		subpath(&f, path, "stream");
		if (v[3]->kind != Y_SCALAR ||
		    (r = cmd_stream_from_name(v[3]->text)) < 0) {
			expected(c, v[3], f.buf, "stdout, stderr or both");
			rc = -1;
		} else {
			pc->stream = (enum cmd_stream)r;
		}
	}
	strbuf_release(&f);
	return rc;
}

/* metrics: {NAME: {unit, direction, key}} into pc. */
static int check_declared(struct ctx *c, struct plan_command *pc,
			  const struct ynode *n, const char *path)
{
	static const char *const keys[] = { "unit", "direction", "key", NULL };
	struct strbuf f = STRBUF_INIT;
	int rc = 0;

	if (n->kind != Y_MAP || !n->nr) {
		expected(c, n, path,
			 "a map of metric name to unit, direction, key");
		return -1;
	}
	if (ymap_len(n) > CMD_MAX_METRICS) {
		nerror(c, n, "%s: more than %d metrics", path, CMD_MAX_METRICS);
		return -1;
	}
	if (check_map_keys(c, n, path) < 0)
		return -1;
	pc->metrics = xcalloc(ymap_len(n), sizeof(*pc->metrics));
	for (size_t i = 0; i < ymap_len(n); i++) {
		const struct ynode *k = n->kids[2 * i],
				   *val = n->kids[2 * i + 1];
		const struct ynode *v[4];
		struct cmd_metric *m;

		strbuf_reset(&f);
		strbuf_addf(&f, "%s.%s", path, k->text);
		if (!cmd_metric_name_ok(k->text)) {
			expected(c, k, path,
				 "a metric name of 1..128 bytes of "
				 "[A-Za-z0-9._:/-]");
			rc = -1;
			continue;
		}
		if (val->kind != Y_MAP) {
			expected(c, val, f.buf,
				 "a map with direction and optional unit, key");
			rc = -1;
			continue;
		}
		rc |= map_fields(c, val, f.buf, keys, v);
		m = &pc->metrics[pc->nr_metrics++];
		m->name = xstrdup(k->text);
		m->key = xstrdup(k->text);
		m->unit = xstrdup("");
		m->direction = "none";
		if (!v[1]) {
			nerror(c, val, "%s: missing key 'direction'", f.buf);
			rc = -1;
		} else if (v[1]->kind != Y_SCALAR ||
			   (strcmp(v[1]->text, "higher") &&
			    strcmp(v[1]->text, "lower") &&
			    strcmp(v[1]->text, "none"))) {
			struct strbuf d = STRBUF_INIT;

			strbuf_addf(&d, "%s.direction", f.buf);
			expected(c, v[1], d.buf, "higher, lower or none");
			strbuf_release(&d);
			rc = -1;
		} else {
			m->direction = !strcmp(v[1]->text, "higher")  ? "higher"
				       : !strcmp(v[1]->text, "lower") ? "lower"
								      : "none";
		}
		if (v[0]) {
			if (v[0]->kind != Y_SCALAR || strlen(v[0]->text) > 32) {
				expected(c, v[0], f.buf,
					 "a unit of at most 32 bytes");
				rc = -1;
			} else {
				free(m->unit);
				m->unit = xstrdup(v[0]->text);
			}
		}
		if (v[2]) {
			if (v[2]->kind != Y_SCALAR || !*v[2]->text ||
			    strlen(v[2]->text) > 128) {
				expected(c, v[2], f.buf,
					 "the output's name for it (1..128 "
					 "bytes)");
				rc = -1;
			} else {
				free(m->key);
				m->key = xstrdup(v[2]->text);
			}
		}
	}
	strbuf_release(&f);
	return rc;
}

/* Is name free for a new command (not the agent's, not defined yet)? */
static int name_free(struct ctx *c, const struct plan *p, const struct ynode *k,
		     const char *path, const char *name)
{
	const struct plan_command *cmd;

	if (!cmd_name_ok(name) || !strcmp(name, "together")) {
		expected(c, k, path,
			 "a workload name of 1..64 bytes of [A-Za-z0-9._-] "
			 "(not 'together')");
		return 0;
	}
	if (find_workload(p, name, &cmd)) {
		nerror(c, k, "%s: '%s' is %s", path, name,
		       cmd ? "defined twice"
			   : "a workload of the agent already");
		return 0;
	}
	return 1;
}

/*
 * The params: map of a definition at path (pv, NULL when there is none)
 * into pc->params (allocated here: one per parameter and a terminating
 * empty one; pc owns them).  0, or -1 after reporting.
 */
static int check_def_params(struct ctx *c, struct plan *p,
			    struct plan_command *pc, const struct ynode *pv,
			    const char *path)
{
	struct strbuf f = STRBUF_INIT;
	size_t np = pv && pv->kind == Y_MAP ? ymap_len(pv) : 0;
	int rc = 0;

	pc->params = xcalloc(np + 1, sizeof(*pc->params));
	if (pv) {
		subpath(&f, path, "params");
		if (pv->kind != Y_MAP) {
			expected(c, pv, f.buf, "a map of parameter names");
			rc = -1;
		} else if (check_map_keys(c, pv, f.buf) < 0) {
			rc = -1;
		} else {
			for (size_t i = 0; i < np; i++) {
				struct strbuf pp = STRBUF_INIT;

				strbuf_addf(&pp, "%s.%s", f.buf,
					    pv->kids[2 * i]->text);
				rc |= check_param(c, p, pv->kids[2 * i],
						  pv->kids[2 * i + 1], pp.buf,
						  &pc->params[i]);
				strbuf_release(&pp);
			}
		}
	}
	pc->desc.params = pc->params;
	strbuf_release(&f);
	return rc;
}

/*
 * The command: list of definition n at path (cv, NULL when missing): the
 * program and its arguments into pc->argv, each argument's placeholders
 * checked against pc's parameters (check_def_params() ran first).  0, or
 * -1 after reporting.
 */
static int check_def_argv(struct ctx *c, struct plan_command *pc,
			  const struct ynode *n, const struct ynode *cv,
			  const char *path)
{
	struct strbuf f = STRBUF_INIT;
	int rc = 0;

	subpath(&f, path, "command");
	if (!cv) {
		nerror(c, n, "%s: missing key 'command'", path);
		rc = -1;
	} else if (cv->kind != Y_SEQ || !cv->nr || cv->nr > CMD_MAX_ARGS) {
		expected(c, cv, f.buf,
			 "a list: the program and its arguments (no shell)");
		rc = -1;
	} else {
		for (size_t i = 0; i < cv->nr; i++) {
			const struct ynode *x = cv->kids[i];
			struct strbuf item = STRBUF_INIT;

			strbuf_addf(&item, "%s[%zu]", f.buf, i);
			if (x->kind != Y_SCALAR || (!i && !*x->text) ||
			    strlen(x->text) > CMD_MAX_ARG) {
				expected(c, x, item.buf,
					 i ? "an argument (a string)"
					   : "a program name or path");
				rc = -1;
			} else if (check_placeholders(c, pc, x, item.buf) < 0) {
				rc = -1;
			}
			if (x->kind == Y_SCALAR)
				strvec_push(&pc->argv, x->text);
			strbuf_release(&item);
		}
		pc->desc.program = pc->argv.nr ? pc->argv.v[0] : NULL;
	}
	strbuf_release(&f);
	return rc;
}

/*
 * One definition n (a map) called name (node k for messages, or NULL: n
 * holds name:) at path.  On success it is added to p->commands.
 */
static void check_definition(struct ctx *c, struct plan *p,
			     const struct ynode *k, const struct ynode *n,
			     const char *path, const char *default_name)
{
	static const char *const keys[] = { "name",    "summary", "command",
					    "timeout", "params",  "parse",
					    "metrics", "root",	  NULL };
	const struct ynode *v[9];
	struct plan_command *pc = xcalloc(1, sizeof(*pc));
	struct strbuf f = STRBUF_INIT, field = STRBUF_INIT, why = STRBUF_INIT;
	const char *name = k ? k->text : default_name;
	int rc;

	strvec_init(&pc->argv);
	strvec_init(&pc->patterns);
	if (n->kind != Y_MAP) {
		expected(c, n, path,
			 "a map with command, params, parse, metrics");
		goto bad;
	}
	rc = map_fields(c, n, path, keys, v);
	if (v[0]) {
		subpath(&f, path, "name");
		if (k) {
			nerror(c, v[0],
			       "%s: the name is the key above (name: goes in "
			       "an included file)",
			       f.buf);
			rc = -1;
		} else if (get_scalar(c, v[0], f.buf, "a workload name") == 0) {
			name = v[0]->text;
			k = v[0];
		}
	}
	if (!name_free(c, p, k ? k : n, *path ? path : "name", name))
		rc = -1;
	pc->desc.name = intern(p, name);
	pc->desc.kind = WL_COMMAND;
	pc->desc.summary = "a command the plan defines";
	if (v[1]) {
		subpath(&f, path, "summary");
		if (get_scalar(c, v[1], f.buf, "a text") == 0)
			pc->desc.summary = intern(p, v[1]->text);
	}
	/* parameters first: the argv's placeholders refer to them */
	rc |= check_def_params(c, p, pc, v[4], path);
	rc |= check_def_argv(c, pc, n, v[2], path);
	if (v[3]) {
		subpath(&f, path, "timeout");
		if (v[3]->kind != Y_SCALAR ||
		    parse_duration_ms(v[3]->text, 1000, 7LL * 24 * 3600 * 1000,
				      &pc->timeout_ms, NULL) < 0) {
			expected(c, v[3], f.buf, "a duration in 1s..7d");
			rc = -1;
		}
	}
	if (v[7]) {
		subpath(&f, path, "root");
		if (v[7]->kind == Y_SCALAR && !strcmp(v[7]->text, "true")) {
			pc->root = 1;
		} else if (v[7]->kind != Y_SCALAR ||
			   strcmp(v[7]->text, "false")) {
			expected(c, v[7], f.buf, "true or false");
			rc = -1;
		}
	}
	subpath(&f, path, "metrics");
	if (!v[6]) {
		nerror(c, n, "%s: missing key 'metrics'", path);
		rc = -1;
	} else {
		rc |= check_declared(c, pc, v[6], f.buf);
	}
	subpath(&f, path, "parse");
	if (!v[5]) {
		nerror(c, n, "%s: missing key 'parse'", path);
		rc = -1;
	} else if (check_parse(c, pc, v[5], f.buf) < 0) {
		rc = -1;
	} else if (!rc) {
		/* The same check the agent makes, on the template. */
		struct cmd_def d;

		cmd_def_init(&d);
		command_def_of_run(pc, NULL, NULL, &d);
		if (cmd_def_check(&d, &field, &why) < 0) {
			nerror(c, v[5], "%s: %s%s%s", f.buf,
			       starts_with(field.buf, "patterns") ||
					       starts_with(field.buf, "metrics")
				       ? field.buf
				       : "",
			       starts_with(field.buf, "patterns") ||
					       starts_with(field.buf, "metrics")
				       ? ": "
				       : "",
			       why.buf);
			rc = -1;
		}
		cmd_def_release(&d);
	}
	if (rc)
		goto bad;
	pc->metric_names = xcalloc(pc->nr_metrics + 1, sizeof(char *));
	for (size_t i = 0; i < pc->nr_metrics; i++)
		pc->metric_names[i] = pc->metrics[i].name;
	pc->desc.metrics = pc->metric_names;
	p->commands = xrealloc(p->commands,
			       (p->nr_commands + 1) * sizeof(*p->commands));
	p->commands[p->nr_commands++] = pc;
	goto out;
bad:
	/* entries naming it say nothing more: its errors are reported */
	strvec_push(&p->bad_commands_, name);
	plan_command_free(pc);
out:
	strbuf_release(&f);
	strbuf_release(&field);
	strbuf_release(&why);
}

/* commands: a map of name to definition. */
void check_commands(struct ctx *c, struct plan *p, const struct ynode *n)
{
	struct strbuf path = STRBUF_INIT;

	if (n->kind != Y_MAP || !n->nr) {
		expected(c, n, "commands",
			 "a map of workload names to their definitions");
		return;
	}
	if (ymap_len(n) > PLAN_MAX_WORKLOADS) {
		nerror(c, n, "commands: more than %d", PLAN_MAX_WORKLOADS);
		return;
	}
	if (check_map_keys(c, n, "commands") < 0)
		return;
	for (size_t i = 0; i < ymap_len(n); i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "commands.%s", n->kids[2 * i]->text);
		check_definition(c, p, n->kids[2 * i], n->kids[2 * i + 1],
				 path.buf, NULL);
	}
	strbuf_release(&path);
}

/* "dir/name.yaml" -> "name". */
static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t len;

	b = b ? b + 1 : path;
	len = strlen(b);
	if (ends_with(b, ".yaml"))
		len -= 5;
	else if (ends_with(b, ".yml"))
		len -= 4;
	return xstrndup(b, len);
}

/*
 * include: one path or a list; docs[i] is the tree of the i-th file as
 * the plan's text carries it (NULL for a file that was empty), its name
 * in docs[i]'s source.  Each file is one definition.
 */
void check_includes(struct ctx *c, struct plan *p, const struct ynode *n,
		    struct ynode *const *docs, size_t nr_docs)
{
	size_t nr = n->kind == Y_SEQ ? n->nr : 1;

	if (n->kind == Y_MAP || (n->kind == Y_SEQ && !n->nr) ||
	    ynode_is_null(n)) {
		expected(c, n, "include", "a file name or a list of them");
		return;
	}
	if (nr > PLAN_MAX_INCLUDES) {
		nerror(c, n, "include: more than %d files", PLAN_MAX_INCLUDES);
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct ynode *x = n->kind == Y_SEQ ? n->kids[i] : n;
		struct strbuf item = STRBUF_INIT;
		char *name;

		strbuf_addstr(&item, "include");
		if (n->kind == Y_SEQ)
			strbuf_addf(&item, "[%zu]", i);
		if (x->kind != Y_SCALAR || !*x->text) {
			expected(c, x, item.buf, "a file name");
		} else if (i >= nr_docs) {
			nerror(c, x,
			       "%s: %s was not read with the plan (a plan that "
			       "includes files is loaded with its folder, e.g. "
			       "by 'schedfarm plan check FILE')",
			       item.buf, x->text);
		} else if (!docs[i]) {
			nerror(c, x, "%s: %s is empty", item.buf, x->text);
		} else if (docs[i]->kind != Y_MAP) {
			/* Maybe not a plan's file at all: name it, do not
			 * quote it. */
			nerror(c, x,
			       "%s: %s is not a workload definition (%s, not "
			       "a map)",
			       item.buf, x->text, yshape(docs[i]));
		} else {
			name = base_name(x->text);
			check_definition(c, p, NULL, docs[i], "", name);
			free(name);
		}
		strbuf_release(&item);
	}
}

/* Append the text of parameter name's value in run r to out. */
static void param_text(const struct plan_command *pc, const char *prefix,
		       const struct plan_run *r, const char *name,
		       struct strbuf *out)
{
	struct strbuf full = STRBUF_INIT, why = STRBUF_INIT;
	const char *v = NULL;
	const struct wl_param *wp = workload_param(&pc->desc, name);
	double d;

	if (prefix)
		strbuf_addf(&full, "%s.", prefix);
	strbuf_addstr(&full, name);
	if (r)
		v = plan_run_param(r, full.buf);
	else if (wp)
		v = wp->def;
	if (!v) {
		/* a template: keep the placeholder */
		strbuf_addf(out, "{%s}", name);
	} else if (wp && wp->type == WL_DURATION &&
		   workload_check_value(wp, v, &d, &why) == 0) {
		strbuf_addf(out, "%.15g", d / 1000);
	} else {
		strbuf_addstr(out, v);
	}
	strbuf_release(&full);
	strbuf_release(&why);
}

/*
 * The agent's definition of command pc for run r (NULL: the template,
 * placeholders without a default kept): the argv with {param} filled (a
 * member's parameters are "prefix.param"), the parser and the metrics.
 * d is initialised by the caller.
 */
void command_def_of_run(const struct plan_command *pc, const char *prefix,
			const struct plan_run *r, struct cmd_def *d)
{
	struct strbuf w = STRBUF_INIT;

	d->name = xstrdup(pc->desc.name);
	for (size_t i = 0; i < pc->argv.nr; i++) {
		const char *s = pc->argv.v[i];

		strbuf_reset(&w);
		while (*s) {
			if ((s[0] == '{' && s[1] == '{') ||
			    (s[0] == '}' && s[1] == '}')) {
				strbuf_addch(&w, *s);
				s += 2;
			} else if (*s == '{' && strchr(s, '}')) {
				const char *e = strchr(s, '}');
				char *name =
					xstrndup(s + 1, (size_t)(e - s - 1));

				param_text(pc, prefix, r, name, &w);
				free(name);
				s = e + 1;
			} else {
				strbuf_addch(&w, *s++);
			}
		}
		strvec_push(&d->argv, w.buf);
	}
	d->timeout_ms = pc->timeout_ms;
	d->root = pc->root;
	d->format = pc->format;
	d->stream = pc->stream;
	d->separator = pc->separator;
	strvec_pushv(&d->patterns, (const char *const *)pc->patterns.v);
	d->metrics = xcalloc(pc->nr_metrics ? pc->nr_metrics : 1,
			     sizeof(*d->metrics));
	for (size_t i = 0; i < pc->nr_metrics; i++) {
		d->metrics[i].name = xstrdup(pc->metrics[i].name);
		d->metrics[i].key = xstrdup(pc->metrics[i].key);
		d->metrics[i].unit = xstrdup(pc->metrics[i].unit);
		d->metrics[i].direction = pc->metrics[i].direction;
	}
	d->nmetrics = pc->nr_metrics;
	strbuf_release(&w);
}
