/*
 * sweep.c - a plan's workloads and their sweeps: each entry (workload,
 * params, variants) checked against the agent's workload table
 * (common/workloads.c), its parameter groups collected, and the checked
 * entries expanded into the plan's flat list of runs.
 *
 * A list under any parameter is a sweep; several lists give their
 * product, each variant adding its own group.  Expansion only happens
 * when the checks passed, and the caller refuses to go past
 * PLAN_MAX_RUNS before anything is allocated (group_runs() counts).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan-int.h"
#include "banned.h"

/* ---- workloads and their sweeps ------------------------------------- */

/* Free g's parameters and their value arrays (the strings are p's). */
void sgroup_release(struct sgroup *g)
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

/* Set f to path.key, or to key alone at a plan's top level (path ""). */
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
int check_entry_fields(struct ctx *c, struct plan *p, const struct ynode *n,
		       const char *path, const struct ynode *const *v,
		       struct sentry *e)
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

/*
 * Check one workloads: item (a map with workload, params, variants) at
 * path and fill e: one parameter group per variant (params: plus the
 * variant), or one group of params: alone.  Parameters without a default
 * must be given in params or in every variant.  Return 0 or -1; e's
 * groups are the caller's to release (sgroup_release) either way.
 */
int check_entry(struct ctx *c, struct plan *p, const struct ynode *n,
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
double group_runs(const struct sgroup *g)
{
	double n = 1;

	for (size_t i = 0; i < g->nr; i++)
		n *= (double)g->params[i].nr;
	return n;
}

/* Expand the checked entries into p->runs (total runs, within the cap). */
void expand(struct plan *p, const struct sentry *e, size_t nr_entries,
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
void check_run_time(struct ctx *c, const struct plan *p, const struct ynode *at)
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
