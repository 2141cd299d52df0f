/*
 * plan.c - read, check and expand test plans (YAML); see plan.h and
 * doc/PLANS.md.
 *
 * The entry points: plan_parse() and plan_load() run the YAML reader
 * (yaml.c), the whole-plan check (check_plan() here, over the sections of
 * check.c and the workloads of sweep.c) and the expansion; plan_free()
 * and the JSON and label writers the queue and the pages use.
 *
 * Checking does not stop at the first error: each section is checked on
 * its own and everything wrong is reported (up to PLAN_MAX_ERRORS), so a
 * user fixes a plan in one pass.  Expansion only happens when the checks
 * passed, and refuses to go past PLAN_MAX_RUNS before allocating anything.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "conninfo.h"
#include "rtapp.h"
#include "plan/plan-int.h"
#include "banned.h"

static int ok_plan_name(const char *s)
{
	return is_word(s, WORD_CHARS "._-", 64);
}

/* The default name: the basename of source without .yaml or .yml. */
static char *default_name(const char *source)
{
	const char *base = strrchr(source, '/');
	size_t len;
	char *name;

	base = base ? base + 1 : source;
	len = strlen(base);
	if (ends_with(base, ".yaml"))
		len -= 5;
	else if (ends_with(base, ".yml"))
		len -= 4;
	if (!len)
		len = strlen(base);
	/* What a name given in the plan may hold ([A-Za-z0-9._-], 64
	 * bytes): a file name can hold anything, escapes included. */
	name = xstrndup(base, len > 64 ? 64 : len);
	for (char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			*p = '_';
	return *name ? name : (free(name), xstrdup("plan"));
}

/*
 * Check one workloads: item (a map with workload, params, variants, or a
 * together: entry) at path and fill e: one parameter group per variant
 * (params: plus the variant), or one group of params: alone.  Parameters
 * without a default must be given in params or in every variant.  Return
 * 0 or -1; e's groups are the caller's to release (sgroup_release) either
 * way.
 */
static int check_entry(struct ctx *c, struct plan *p, const struct ynode *n,
		       const char *path, struct sentry *e)
{
	static const char *const keys[] = { "workload",	       "params",
					    "variants",	       "together",
					    "sample_interval", NULL };
	const struct ynode *v[6];
	int rc;

	if (n->kind != Y_MAP) {
		expected(c, n, path, "a map with workload, params, variants");
		return -1;
	}
	rc = map_fields(c, n, path, keys, v);
	if (v[3] || v[4])
		return check_together(c, p, n, path, v, e) < 0 || rc < 0 ? -1
									 : 0;
	return check_entry_fields(c, p, n, path, v, e) < 0 || rc < 0 ? -1 : 0;
}

/*
 * The plan's workloads: w4 holds the top-level values of workloads:,
 * workload:, params: and variants: (each NULL when absent): either the
 * list, or the one entry the top level holds.  Each entry is checked into
 * *ret_e (allocated here, *ret_nr of them; NULL and 0 when there are
 * none); the caller releases their groups and the array.  Errors are
 * reported into c.
 */
static void check_workloads(struct ctx *c, struct plan *p,
			    const struct ynode *root,
			    const struct ynode *const *w4,
			    struct sentry **ret_e, size_t *ret_nr)
{
	struct sentry *e = NULL;
	struct strbuf f = STRBUF_INIT;

	*ret_nr = 0;
	if (w4[0] && (w4[1] || w4[2] || w4[3])) {
		const struct ynode *k = w4[1] ? w4[1] : w4[2] ? w4[2] : w4[3];

		nerror(c, k,
		       "plan: give either workloads: (a list) or one "
		       "workload: with params:, not both");
	} else if (w4[0]) {
		const struct ynode *w = w4[0];

		if (w->kind != Y_SEQ)
			expected(c, w, "workloads", "a list of workloads");
		else if (!w->nr)
			nerror(c, w, "workloads: empty list");
		else if (w->nr > PLAN_MAX_WORKLOADS)
			nerror(c, w, "workloads: more than %d entries",
			       PLAN_MAX_WORKLOADS);
		else {
			e = xcalloc(w->nr, sizeof(*e));
			*ret_nr = w->nr;
			for (size_t i = 0; i < w->nr; i++) {
				strbuf_reset(&f);
				strbuf_addf(&f, "workloads[%zu]", i);
				check_entry(c, p, w->kids[i], f.buf, &e[i]);
				e[i].listed = 1;
			}
		}
	} else if (w4[1] || w4[2] || w4[3]) {
		const struct ynode *ev[3] = { w4[1], w4[2], w4[3] };

		e = xcalloc(1, sizeof(*e));
		*ret_nr = 1;
		check_entry_fields(c, p, root, "", ev, &e[0]);
	} else {
		nerror(c, root,
		       "plan: missing key 'workloads' (or 'workload')");
	}
	*ret_e = e;
	strbuf_release(&f);
}

/*
 * Check the whole tree into p (docs: the trees of the files it includes).
 * Every section is checked even after an error in another; runs are
 * expanded only when all is well.
 */
static int check_plan(struct ctx *c, struct plan *p, const struct ynode *root,
		      struct ynode *const *docs, size_t nr_docs)
{
	static const char *const keys[] = {
		"name",	     "description", "workloads", "workload", "params",
		"variants",  "iterations",  "warmup",	 "boots",    "until",
		"max_boots", "base",	    "cgroups",	 "host",     "kernel",
		"metrics",   "timeouts",    "expect",	 "commands", "include",
		NULL
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
		K_BASE,
		K_CGROUPS,
		K_HOST,
		K_KERNEL,
		K_METRICS,
		K_TIMEOUTS,
		K_EXPECT,
		K_COMMANDS,
		K_INCLUDE,
		K_NR
	};
	const struct ynode *v[K_NR + 1];
	struct sentry *e = NULL;
	size_t nr_entries = 0;
	double total = 0;
	int before = c->nr_errors;

	/* The file may be no plan at all: its text is not quoted. */
	if (root->kind != Y_MAP) {
		nerror(c, root,
		       "plan: expected a map of plan settings (workloads, "
		       "...), got %s",
		       yshape(root));
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
	if (v[K_EXPECT])
		check_expect(c, p, v[K_EXPECT]);
	/* Workloads the plan defines, before the entries that use them. */
	if (v[K_INCLUDE])
		check_includes(c, p, v[K_INCLUDE], docs, nr_docs);
	else if (nr_docs)
		report(c, 0, 0,
		       "the plan's text carries included files but no "
		       "include: names them");
	if (v[K_COMMANDS])
		check_commands(c, p, v[K_COMMANDS]);

	check_workloads(c, p, root, &v[K_WORKLOADS], &e, &nr_entries);

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
			check_run_params(c, p, e, nr_entries);
			check_together_runs(c, p, e, nr_entries);
			check_metric_names(c, p, v[K_METRICS]);
		}
	}

	for (size_t i = 0; i < nr_entries; i++) {
		for (size_t g = 0; g < e[i].nr_groups; g++)
			sgroup_release(&e[i].groups[g]);
		free(e[i].groups);
	}
	free(e);
	return c->nr_errors == before ? 0 : -1;
}

/* ---- the API -------------------------------------------------------- */

/*
 * Split a plan's text at its PLAN_INCLUDE_MARK lines: *ret_plan_len is
 * the plan's own length; the includes' paths and texts (offset, length)
 * go to paths, offs, lens.
 */
static void split_bundle(const char *text, size_t len, size_t *ret_plan_len,
			 struct strvec *paths, size_t *offs, size_t *lens,
			 size_t max)
{
	const char *p = text, *end = text + len;
	size_t mlen = strlen(PLAN_INCLUDE_MARK), n = 0;

	*ret_plan_len = len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		if ((size_t)(end - p) > mlen &&
		    !memcmp(p, PLAN_INCLUDE_MARK, mlen) && n < max) {
			if (!n)
				*ret_plan_len = (size_t)(p - text);
			else
				lens[n - 1] = (size_t)(p - text) - offs[n - 1];
			{
				char *path = xstrndup(
					p + mlen,
					(size_t)((nl ? nl : end) - p) - mlen);

				strvec_push(paths, path);
				free(path);
			}
			offs[n] = (size_t)(next - text);
			n++;
		}
		p = next;
	}
	if (n)
		lens[n - 1] = len - offs[n - 1];
}

/* "plans/x.yaml" and "inc.yaml" -> "plans/inc.yaml", for messages. */
static char *include_name(const char *plan, const char *path)
{
	const char *slash = strrchr(plan, '/');

	if (path[0] == '/' || !slash)
		return xstrdup(path);
	return xstrfmt("%.*s/%s", (int)(slash - plan), plan, path);
}

int plan_parse_set(const char *name, const char *text, size_t len,
		   const struct strvec *sets, struct plan **ret,
		   struct strbuf *err)
{
	struct ctx c = { .name = name, .err = err };
	struct ynode *root = NULL, *docs[PLAN_MAX_INCLUDES];
	struct strvec paths = STRVEC_INIT;
	size_t offs[PLAN_MAX_INCLUDES], lens[PLAN_MAX_INCLUDES], plan_len = 0;
	struct plan *p = NULL;

	*ret = NULL;
	memset(docs, 0, sizeof(docs));
	if (len > PLAN_MAX_BUNDLE) {
		report(&c, 0, 0, "plan is %zu bytes, more than the cap of %d",
		       len, PLAN_MAX_BYTES);
		goto out;
	}
	split_bundle(text, len, &plan_len, &paths, offs, lens,
		     PLAN_MAX_INCLUDES);
	if (plan_len > PLAN_MAX_BYTES) {
		report(&c, 0, 0, "plan is %zu bytes, more than the cap of %d",
		       plan_len, PLAN_MAX_BYTES);
		goto out;
	}
	if (yaml_to_tree(&c, 0, text, plan_len, &root) < 0)
		goto out;
	if (!root) {
		report(&c, 1, 1, "empty plan (expected a map with workloads)");
		goto out;
	}
	for (size_t i = 0; i < paths.nr; i++) {
		char *shown = include_name(name, paths.v[i]);
		unsigned src = ctx_add_source(&c, shown, 0);

		free(shown);
		if (yaml_to_tree(&c, src, text + offs[i], lens[i], &docs[i]) <
		    0)
			goto out;
	}
	apply_sets(&c, root, sets);
	p = xcalloc(1, sizeof(*p));
	strvec_init(&p->strings_);
	strvec_init(&p->bad_commands_);
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
	p->timeouts.build_ms = 3 * 3600 * 1000;
	p->timeouts.stall_ms = 20 * 1000;
	p->timeouts.job_ms = 0;
	check_plan(&c, p, root, docs, paths.nr);
out:
	ynode_free(root);
	for (size_t i = 0; i < paths.nr; i++)
		ynode_free(docs[i]);
	strvec_clear(&paths);
	if (c.nr_errors) {
		flush_errors(&c);
		ctx_release_sources(&c);
		plan_free(p);
		return -EINVAL;
	}
	ctx_release_sources(&c);
	*ret = p;
	return 0;
}

int plan_parse(const char *name, const char *text, size_t len,
	       struct plan **ret, struct strbuf *err)
{
	return plan_parse_set(name, text, len, NULL, ret, err);
}

int plan_load_set(const char *path, const struct strvec *sets,
		  struct plan **ret, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int rc;

	*ret = NULL;
	rc = plan_load_text(path, &text, err);
	if (rc == 0)
		rc = plan_parse_set(path, text.buf, text.len, sets, ret, err);
	strbuf_release(&text);
	return rc;
}

int64_t plan_job_budget_ms(const struct plan *p, int boots)
{
	const struct plan_timeouts *t = &p->timeouts;
	/* Durations are capped by the checker (7 days a run, 10 000 runs),
	 * so this sum cannot overflow. */
	int64_t round = 2 * t->power_ms + t->boot_ms +
			(int64_t)p->nr_runs * t->run_ms + t->collect_ms;

	if (t->job_ms > 0)
		return t->job_ms;
	return t->build_ms + (int64_t)(boots > 0 ? boots : 1) * round +
	       10 * 60 * 1000;
}

int plan_load(const char *path, struct plan **ret, struct strbuf *err)
{
	return plan_load_set(path, NULL, ret, err);
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
	for (size_t i = 0; i < p->nr_commands; i++)
		plan_command_free(p->commands[i]);
	free(p->commands);
	for (size_t i = 0; i < p->nr_members_; i++)
		free(p->members_[i]);
	free(p->members_);
	strvec_clear(&p->host.kinds);
	strvec_clear(&p->host.tags);
	strvec_clear(&p->kernel_config);
	strvec_clear(&p->strings_);
	strvec_clear(&p->bad_commands_);
	free(p->source);
	free(p->name);
	free(p->description);
	free(p);
}

/* The table entry of run r's parameter name ("MEMBER.param" in a
 * together run), or NULL. */
static const struct wl_param *run_param_desc(const struct plan_run *r,
					     const char *name)
{
	const char *dot;
	const struct plan_member *m;

	if (r->wl)
		return workload_param(r->wl, name);
	dot = strchr(name, '.');
	m = dot ? run_member(r, name, (size_t)(dot - name)) : NULL;
	return m ? workload_param(m->wl, dot + 1) : NULL;
}

/*
 * Append parameter wp of run r as "name":value, typed by the table; a
 * together member's (prefix "a") is the run's "a.name", written so when
 * shown_prefixed (runs.params), as "name" in the member's own spec.
 * secrets says how a conninfo's password is written.
 */
static void add_param_json(const struct plan_run *r, const char *prefix,
			   const struct wl_param *wp, enum plan_secrets secrets,
			   struct strbuf *out, int shown_prefixed)
{
	struct strbuf name = STRBUF_INIT, why = STRBUF_INIT;
	const char *v;
	double d = 0;

	if (prefix)
		strbuf_addf(&name, "%s.", prefix);
	strbuf_addstr(&name, wp->name);
	v = plan_run_param(r, name.buf);
	strbuf_add_json_str(out, shown_prefixed ? name.buf : wp->name);
	strbuf_release(&name);
	strbuf_addch(out, ':');
	if (!v || workload_check_value(wp, v, &d, &why) < 0) {
		strbuf_addstr(out, "null"); /* plan_parse never lets this by */
	} else if (wp->type == WL_INT) {
		strbuf_addf(out, "%" PRId64, (int64_t)d);
	} else if (wp->type == WL_DOUBLE) {
		strbuf_add_json_double(out, d);
	} else if (wp->type == WL_BOOL) {
		strbuf_addstr(out, d ? "true" : "false");
	} else if (wp->type == WL_CONNINFO && secrets == PLAN_SECRETS_MASKED) {
		conninfo_mask(v, &why);
		strbuf_add_json_str(out, why.buf);
	} else {
		strbuf_add_json_str(out, v);
	}
	strbuf_release(&why);
}

/*
 * The parameters of wl in run r, cgroup first; a member's named
 * "MEMBER.param" when shown_prefixed.
 */
static void add_params_json(const struct plan_run *r, const char *prefix,
			    const struct wl_desc *wl, enum plan_secrets secrets,
			    struct strbuf *out, int shown_prefixed)
{
	add_param_json(r, prefix, &workload_cgroup_param, secrets, out,
		       shown_prefixed);
	for (const struct wl_param *wp = wl->params; wp->name; wp++) {
		strbuf_addch(out, ',');
		add_param_json(r, prefix, wp, secrets, out, shown_prefixed);
	}
}

void plan_run_params_json(const struct plan *p, const struct plan_run *r,
			  enum plan_secrets secrets, struct strbuf *out)
{
	(void)p;
	strbuf_addch(out, '{');
	if (r->wl) {
		add_params_json(r, NULL, r->wl, secrets, out, 1);
	} else {
		strbuf_addf(out, "\"sample_ms\":%d", r->sample_ms);
		for (size_t i = 0; i < r->nr_members; i++) {
			const struct plan_member *m = &r->members[i];

			strbuf_addch(out, ',');
			strbuf_add_json_str(out, m->name);
			strbuf_addstr(out, ":");
			strbuf_add_json_str(out, m->wl->name);
			if (m->background) {
				strbuf_addf(out, ",\"%s.background\":true",
					    m->name);
			}
			strbuf_addch(out, ',');
			add_params_json(r, m->name, m->wl, secrets, out, 1);
		}
	}
	strbuf_addch(out, '}');
}

/* The workload part of one spec (or member): workload or command, params. */
static void add_workload_spec(const struct plan_run *r, const char *prefix,
			      const struct wl_desc *wl,
			      const struct plan_command *cmd,
			      enum plan_secrets secrets, struct strbuf *out)
{
	if (cmd) {
		struct cmd_def d;

		/* its parameters are in the argv; the agent takes cgroup */
		cmd_def_init(&d);
		command_def_of_run(cmd, prefix, r, &d);
		strbuf_addstr(out, "\"command\":");
		cmd_def_to_json(&d, out);
		cmd_def_release(&d);
		strbuf_addstr(out, ",\"params\":{");
		add_param_json(r, prefix, &workload_cgroup_param, secrets, out,
			       0);
		strbuf_addch(out, '}');
		return;
	}
	strbuf_addstr(out, "\"workload\":");
	strbuf_add_json_str(out, wl->name);
	strbuf_addstr(out, ",\"params\":{");
	add_params_json(r, prefix, wl, secrets, out, 0);
	strbuf_addch(out, '}');
}

void plan_run_spec_json(const struct plan *p, const struct plan_run *r,
			enum plan_secrets secrets, struct strbuf *out)
{
	(void)p;
	if (r->wl) {
		add_workload_spec(r, NULL, r->wl, r->cmd, secrets, out);
		return;
	}
	strbuf_addstr(out, "\"together\":[");
	for (size_t i = 0; i < r->nr_members; i++) {
		const struct plan_member *m = &r->members[i];

		strbuf_addstr(out, i ? ",{\"name\":" : "{\"name\":");
		strbuf_add_json_str(out, m->name);
		strbuf_addch(out, ',');
		add_workload_spec(r, m->name, m->wl, m->cmd, secrets, out);
		strbuf_addf(out, ",\"background\":%s}",
			    m->background ? "true" : "false");
	}
	strbuf_addf(out, "],\"sample_ms\":%d", r->sample_ms);
}

void plan_run_label(const struct plan_run *r, struct strbuf *out)
{
	strbuf_addstr(out, r->workload);
	for (size_t i = 0; i < r->nr_members; i++)
		strbuf_addf(out, " %s=%s%s", r->members[i].name,
			    r->members[i].wl->name,
			    r->members[i].background ? "(background)" : "");
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct wl_param *wp =
			run_param_desc(r, r->params[i].name);

		strbuf_addf(out, " %s=", r->params[i].name);
		if (wp && wp->type == WL_CONNINFO)
			conninfo_mask(r->params[i].value, out);
		else if (wp && wp->type == WL_RTAPP_TASKS)
			rtapp_taskset_label(r->params[i].value, out);
		else
			strbuf_addstr(out, r->params[i].value);
	}
}

void plan_run_json(const struct plan *p, const struct plan_run *r,
		   struct strbuf *out)
{
	strbuf_addf(out, "{\"index\":%zu,\"workload\":", r->index);
	strbuf_add_json_str(out, r->workload);
	strbuf_addstr(out, ",\"params\":");
	plan_run_params_json(p, r, PLAN_SECRETS_MASKED, out);
	strbuf_addstr(out, ",\"spec\":{");
	plan_run_spec_json(p, r, PLAN_SECRETS_MASKED, out);
	strbuf_addstr(out, "}}");
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
		    ",\"collect_ms\":%" PRId64 ",\"build_ms\":%" PRId64
		    ",\"stall_ms\":%" PRId64 ",\"job_ms\":%" PRId64
		    "},\"nr_runs\":%zu}",
		    p->timeouts.power_ms, p->timeouts.boot_ms,
		    p->timeouts.run_ms, p->timeouts.collect_ms,
		    p->timeouts.build_ms, p->timeouts.stall_ms,
		    plan_job_budget_ms(p, p->boots), p->nr_runs);
}

void plan_describe_runs(const struct plan *p, struct strbuf *out)
{
	size_t total = p->nr_runs * (size_t)p->boots;

	strbuf_addf(out, "%zu run%s", total, total == 1 ? "" : "s");
	if (p->boots > 1)
		strbuf_addf(out, " (%zu per boot x %d boots)", p->nr_runs,
			    p->boots);
	if (p->until == PLAN_UNTIL_DECIDED)
		strbuf_addf(out, ", more until decided (at most %d boots)",
			    p->max_boots);
}
