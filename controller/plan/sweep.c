/*
 * sweep.c - a plan's workloads and their sweeps: each entry (workload,
 * params, variants) checked against the agent's workload table
 * (common/workloads.c), its parameter groups collected, and the checked
 * entries expanded into the plan's flat list of runs.
 *
 * A list under any parameter is a sweep, a map {from, to, step|times} a
 * range (a sweep written short); several give their product, each
 * variant adding its own group.  Together entries (together.c) use the
 * same groups with parameter names "MEMBER.param".  Expansion only happens
 * when the checks passed, and the caller refuses to go past
 * PLAN_MAX_RUNS before anything is allocated (group_runs() counts).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "wl_check.h"
#include "plan/plan-int.h"
#include "banned.h"

/* ---- workloads and their sweeps ------------------------------------- */

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
		       const char *text, const char *path, double *ret_num)
{
	struct strbuf why = STRBUF_INIT, got = STRBUF_INIT;
	int rc = 0;

	if (!text && (v->kind != Y_SCALAR || ynode_is_null(v))) {
		workload_describe_type(wp, &why);
		nerror(c, v, "%s: %s takes %s, got %s", path, wl->name, why.buf,
		       ydescribe(v, &got));
		rc = -1;
	} else if (workload_check_value(wp, text ? text : v->text, ret_num,
					&why) < 0) {
		if (text)
			nerror(c, v, "%s: expected %s, got '%s'", path, why.buf,
			       text);
		else
			nerror(c, v, "%s: expected %s, got %s", path, why.buf,
			       ydescribe(v, &got));
		rc = -1;
	} else if (wp == &workload_cgroup_param &&
		   !is_cgroup_path(text ? text : v->text, 1)) {
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

/* ---- ranges ----------------------------------------------------------- */

/* A bound or step of a range as a number of the parameter's kind. */
static int range_number(struct ctx *c, const struct wl_param *wp,
			const struct ynode *n, const char *path, double *ret)
{
	int64_t i;

	if (n->kind == Y_SCALAR && !ynode_is_null(n)) {
		if (wp->type == WL_DURATION &&
		    parse_duration_ms(n->text, 0, INT64_C(1) << 50, &i, NULL) ==
			    0) {
			*ret = (double)i;
			return 0;
		}
		if (wp->type == WL_INT &&
		    parse_i64(n->text, -(INT64_C(1) << 50), INT64_C(1) << 50,
			      &i, NULL) == 0) {
			*ret = (double)i;
			return 0;
		}
		if (wp->type == WL_DOUBLE &&
		    parse_double(n->text, -1e15, 1e15, ret, NULL) == 0)
			return 0;
	}
	expected(c, n, path,
		 wp->type == WL_DURATION ? "a duration (like 10s)"
		 : wp->type == WL_INT	 ? "an integer"
					 : "a number");
	return -1;
}

/* A value of a range as the text a plan would have written. */
static void range_text(const struct wl_param *wp, double v, struct strbuf *out)
{
	strbuf_reset(out);
	if (wp->type == WL_DURATION) {
		int64_t ms = (int64_t)llround(v);

		if (ms % 1000)
			strbuf_addf(out, "%" PRId64 "ms", ms);
		else
			strbuf_addf(out, "%" PRId64 "s", ms / 1000);
	} else if (wp->type == WL_INT) {
		strbuf_addf(out, "%" PRId64, (int64_t)llround(v));
	} else {
		strbuf_addf(out, "%.15g", v);
	}
}

/*
 * A range under parameter wp: {from: A, to: B, step: S} (A, A+S, ... up
 * to B) or {from: A, to: B, times: T} (A, A*T, A*T*T, ... up to B, T > 1),
 * for integers, numbers and durations.  Append the values' texts to out.
 * Return 0 or -1 after reporting what is wrong.
 */
static int expand_range(struct ctx *c, const struct wl_param *wp,
			const struct ynode *n, const char *path,
			struct strvec *out)
{
	static const char *const keys[] = { "from", "to", "step", "times",
					    NULL };
	const struct ynode *v[5];
	struct strbuf f = STRBUF_INIT, t = STRBUF_INIT;
	double from = 0, to = 0, step = 0, times = 0;
	int rc = -1;

	if (wp->type != WL_INT && wp->type != WL_DOUBLE &&
	    wp->type != WL_DURATION) {
		nerror(c, n,
		       "%s: a range needs a numeric or duration parameter; "
		       "give a list of values instead",
		       path);
		return -1;
	}
	if (map_fields(c, n, path, keys, v) < 0)
		return -1;
	if (!v[0] || !v[1] || (!v[2] == !v[3])) {
		nerror(c, n,
		       "%s: a range is {from: A, to: B, step: S} or {from: A, "
		       "to: B, times: T}",
		       path);
		return -1;
	}
	subpath(&f, path, "from");
	if (range_number(c, wp, v[0], f.buf, &from) < 0)
		goto out;
	subpath(&f, path, "to");
	if (range_number(c, wp, v[1], f.buf, &to) < 0)
		goto out;
	if (to < from) {
		nerror(c, n, "%s: a range from %s to %s is empty (to < from)",
		       path, v[0]->text, v[1]->text);
		goto out;
	}
	if (v[2]) {
		subpath(&f, path, "step");
		if (range_number(c, wp, v[2], f.buf, &step) < 0)
			goto out;
		if (step <= 0) {
			nerror(c, v[2], "%s: a step must be more than 0",
			       f.buf);
			goto out;
		}
		if ((to - from) / step >= PLAN_MAX_VALUES) {
			nerror(c, n, "%s: the range has more than %d values",
			       path, PLAN_MAX_VALUES);
			goto out;
		}
		for (double x = from, k = 0; x <= to + step * 1e-9;
		     k++, x = from + k * step) {
			range_text(wp, x, &t);
			strvec_push(out, t.buf);
		}
	} else {
		subpath(&f, path, "times");
		if (v[3]->kind != Y_SCALAR ||
		    parse_double(v[3]->text, 1.0000001, 1e6, &times, NULL) <
			    0 ||
		    (wp->type != WL_DOUBLE && times != floor(times))) {
			expected(c, v[3], f.buf,
				 wp->type == WL_DOUBLE
					 ? "a factor above 1"
					 : "an integer factor of at least 2");
			goto out;
		}
		if (from <= 0) {
			nerror(c, v[0],
			       "%s.from: a range with times starts "
			       "above 0",
			       path);
			goto out;
		}
		for (double x = from; x <= to * (1 + 1e-12); x *= times) {
			if (out->nr >= PLAN_MAX_VALUES) {
				nerror(c, n,
				       "%s: the range has more than %d values",
				       path, PLAN_MAX_VALUES);
				goto out;
			}
			range_text(wp, x, &t);
			strvec_push(out, t.buf);
		}
	}
	rc = 0;
out:
	strbuf_release(&f);
	strbuf_release(&t);
	return rc;
}

/* ---- parameters of an entry --------------------------------------------- */

/*
 * Resolve a parameter name of entry e: a bare name of m's (or the entry's)
 * workload, or, in a together entry's variants (m NULL), "MEMBER.param".
 * Sets *ret_wl, *ret_wp and the name the group stores in *stored.
 * Return 0, or -1 after reporting at k.
 */
static int resolve_param(struct ctx *c, const struct sentry *e,
			 const struct plan_member *m, const struct ynode *k,
			 const char *path, const struct wl_desc **ret_wl,
			 const struct wl_param **ret_wp, struct strbuf *stored)
{
	const char *name = k->text;
	struct strbuf list = STRBUF_INIT;

	strbuf_reset(stored);
	if (!m && e->nr_members) {
		const char *dot = strchr(name, '.');

		for (size_t i = 0; dot && i < e->nr_members; i++)
			if (strlen(e->members[i].name) ==
				    (size_t)(dot - name) &&
			    !strncmp(e->members[i].name, name,
				     (size_t)(dot - name)))
				m = &e->members[i];
		if (!m) {
			for (size_t i = 0; i < e->nr_members; i++)
				strbuf_addf(&list, "%s%s", i ? ", " : "",
					    e->members[i].name);
			nerror(c, k,
			       "%s: '%s' is not MEMBER.param of a member "
			       "(the members: %s)",
			       path, name, list.buf);
			strbuf_release(&list);
			return -1;
		}
		name = dot + 1;
	}
	*ret_wl = m ? m->wl : e->wl;
	*ret_wp = workload_param(*ret_wl, name);
	if (!*ret_wp) {
		list_params(*ret_wl, &list);
		if (m)
			nerror(c, k,
			       "%s: member %s (%s) has no parameter '%s' (it "
			       "takes: %s)",
			       path, m->name, (*ret_wl)->name, name, list.buf);
		else
			nerror(c, k,
			       "%s: %s has no parameter '%s' (it takes: %s)",
			       path, (*ret_wl)->name, name, list.buf);
		strbuf_release(&list);
		return -1;
	}
	if (m)
		strbuf_addf(stored, "%s.%s", m->name, name);
	else
		strbuf_addstr(stored, name);
	strbuf_release(&list);
	return 0;
}

/*
 * Add the parameters of map (params: or one variant, at path) to g,
 * checking names against the workload (of member m in a together entry,
 * where they are stored as "MEMBER.param") and values against their
 * types.  A list is a sweep, a map {from, to, step|times} a range.  A
 * name already in g is an error (a variant may not repeat a params: key).
 */
int add_params(struct ctx *c, struct plan *p, const struct sentry *e,
	       const struct plan_member *m, const struct ynode *map,
	       const char *path, struct sgroup *g)
{
	struct strbuf f = STRBUF_INIT, stored = STRBUF_INIT;
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
		const struct wl_desc *wl;
		const struct wl_param *wp;
		struct strvec range = STRVEC_INIT;
		struct sparam *sp;
		size_t nvals;
		int bad = 0;

		strbuf_reset(&f);
		strbuf_addf(&f, "%s.%s", path, k->text);
		if (resolve_param(c, e, m, k, path, &wl, &wp, &stored) < 0) {
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < g->nr; j++)
			if (!strcmp(g->params[j].name, stored.buf)) {
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
		if (v->kind == Y_MAP && !ymap_get(v, "from") &&
		    !ymap_get(v, "to")) {
			/* not a range at all: say what the value should be */
			check_value(c, wl, wp, v, NULL, f.buf, &num);
			rc = -1;
			continue;
		}
		if (v->kind == Y_MAP) {
			if (expand_range(c, wp, v, f.buf, &range) < 0) {
				rc = -1;
				strvec_clear(&range);
				continue;
			}
		} else if (v->kind == Y_SEQ) {
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
		nvals = v->kind == Y_MAP   ? range.nr
			: v->kind == Y_SEQ ? v->nr
					   : 1;
		ALLOC_GROW(g->params, g->nr + 1, g->alloc);
		sp = &g->params[g->nr];
		memset(sp, 0, sizeof(*sp));
		sp->name = intern(p, stored.buf);
		sp->values = xcalloc(nvals ? nvals : 1, sizeof(*sp->values));
		nums = xrealloc(nums, (nvals ? nvals : 1) * sizeof(*nums));
		g->nr++;
		for (size_t j = 0; j < nvals; j++) {
			const struct ynode *one =
				v->kind == Y_SEQ ? v->kids[j] : v;
			const char *text = v->kind == Y_MAP ? range.v[j] : NULL;
			struct strbuf item = STRBUF_INIT;
			int dup = 0;

			strbuf_addbuf(&item, &f);
			if (v->kind != Y_SCALAR)
				strbuf_addf(&item, "[%zu]", j);
			if (check_value(c, wl, wp, one, text, item.buf, &num) <
			    0) {
				rc = -1;
				strbuf_release(&item);
				if (text)
					break; /* one message per range */
				continue;
			}
			if (!text)
				text = one->text;
			/* Strings compare as text, the rest as numbers. */
			for (size_t q = 0; q < sp->nr; q++)
				dup |= wp->type == WL_STRING
					       ? !strcmp(sp->values[q], text)
					       : nums[q] == num;
			if (dup) {
				nerror(c, one,
				       "%s: value '%s' repeats an earlier one "
				       "in the sweep",
				       item.buf, text);
				rc = -1;
			} else {
				nums[sp->nr] = num;
				sp->values[sp->nr++] = intern(p, text);
			}
			strbuf_release(&item);
		}
		strvec_clear(&range);
	}
	free(nums);
	strbuf_release(&f);
	strbuf_release(&stored);
	return rc;
}

/* Append a deep copy of every parameter of from to to. */
void sgroup_copy(struct sgroup *to, const struct sgroup *from)
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

/* Required parameters of wl (stored with prefix) missing from g. */
static int required_of(struct ctx *c, const struct wl_desc *wl,
		       const char *member, const struct sgroup *g,
		       const struct ynode *at, const char *path)
{
	struct strbuf name = STRBUF_INIT;
	int rc = 0;

	for (const struct wl_param *wp = wl->params; wp->name; wp++) {
		int given = 0;

		if (wp->def)
			continue;
		strbuf_reset(&name);
		if (member)
			strbuf_addf(&name, "%s.", member);
		strbuf_addstr(&name, wp->name);
		for (size_t i = 0; i < g->nr; i++)
			given |= !strcmp(g->params[i].name, name.buf);
		if (given)
			continue;
		if (member)
			nerror(c, at,
			       "%s: member %s (%s) needs parameter '%s' "
			       "(%s)",
			       path, member, wl->name, wp->name, wp->help);
		else
			nerror(c, at, "%s: %s needs parameter '%s' (%s)", path,
			       wl->name, wp->name, wp->help);
		rc = -1;
	}
	strbuf_release(&name);
	return rc;
}

/*
 * Report each parameter without a default that g does not give: of the
 * entry's workload, or of each member of a together entry.  at is where
 * to point, path what to call it.
 */
int check_required(struct ctx *c, const struct sentry *e,
		   const struct sgroup *g, const struct ynode *at,
		   const char *path)
{
	int rc = 0;

	if (!e->nr_members)
		return required_of(c, e->wl, NULL, g, at, path);
	for (size_t i = 0; i < e->nr_members; i++)
		rc |= required_of(c, e->members[i].wl, e->members[i].name, g,
				  at, path);
	return rc;
}

/*
 * The groups of entry e from base (params: already added) and variants
 * node n (NULL: base alone): one group per variant, base plus the
 * variant.  Takes base over.  Return 0 or -1.
 */
int check_variants(struct ctx *c, struct plan *p, const struct ynode *n,
		   const char *path, struct sgroup *base, struct sentry *e)
{
	struct strbuf f = STRBUF_INIT;
	int rc = 0;

	if (!n) {
		rc = check_required(c, e, base, e->at,
				    *path ? path : "workload");
		e->nr_groups = 1;
		e->groups = xcalloc(1, sizeof(*e->groups));
		e->groups[0] = *base;
		memset(base, 0, sizeof(*base));
		return rc;
	}
	subpath(&f, path, "variants");
	if (n->kind != Y_SEQ) {
		expected(c, n, f.buf, "a list of parameter maps");
		rc = -1;
	} else if (!n->nr) {
		nerror(c, n, "%s: empty list", f.buf);
		rc = -1;
	} else if (n->nr > PLAN_MAX_VALUES) {
		nerror(c, n, "%s: more than %d variants", f.buf,
		       PLAN_MAX_VALUES);
		rc = -1;
	} else {
		e->nr_groups = n->nr;
		e->groups = xcalloc(e->nr_groups, sizeof(*e->groups));
		for (size_t g = 0; g < e->nr_groups; g++) {
			struct sgroup *grp = &e->groups[g];

			sgroup_copy(grp, base);
			subpath(&f, path, "variants");
			strbuf_addf(&f, "[%zu]", g);
			if (add_params(c, p, e, NULL, n->kids[g], f.buf, grp) <
			    0)
				rc = -1;
			else
				rc |= check_required(c, e, grp, n->kids[g],
						     f.buf);
		}
	}
	sgroup_release(base);
	memset(base, 0, sizeof(*base));
	strbuf_release(&f);
	return rc;
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

	e->at = n;
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
	e->wl = find_workload(p, v[0]->text, &e->cmd);
	if (!e->wl && defined_badly(p, v[0]->text)) {
		rc = -1; /* its definition's errors say why */
		goto out;
	}
	if (!e->wl) {
		no_workload(c, p, v[0], f.buf, v[0]->text);
		rc = -1;
		goto out;
	}
	e->at = v[0];
	if (v[1]) {
		subpath(&f, path, "params");
		rc |= add_params(c, p, e, NULL, v[1], f.buf, &base);
	}
	rc |= check_variants(c, p, v[2], path, &base, e);
	if (v[2] && v[2]->kind == Y_SEQ)
		e->at = v[2];
out:
	sgroup_release(&base);
	strbuf_release(&f);
	strbuf_release(&list);
	return rc ? -1 : 0;
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
				r->cmd = e[i].cmd;
				r->members = e[i].members;
				r->nr_members = e[i].nr_members;
				r->sample_ms = e[i].sample_ms;
				r->workload =
					e[i].wl ? e[i].wl->name : "together";
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
 * The length of one iteration of workload wl in run r: its duration or
 * time parameters (named with prefix "MEMBER." in a together run).
 */
static int64_t length_ms(const struct plan_run *r, const struct wl_desc *wl,
			 const char *member)
{
	struct strbuf name = STRBUF_INIT;
	int64_t per = 0;

	for (const struct wl_param *wp = wl->params; wp->name; wp++) {
		const char *v;
		double ms;
		struct strbuf why = STRBUF_INIT;

		if (wp->type != WL_DURATION ||
		    (strcmp(wp->name, "duration") && strcmp(wp->name, "time")))
			continue;
		strbuf_reset(&name);
		if (member)
			strbuf_addf(&name, "%s.", member);
		strbuf_addstr(&name, wp->name);
		v = plan_run_param(r, name.buf);
		if (v && workload_check_value(wp, v, &ms, &why) == 0)
			per += (int64_t)ms;
		strbuf_release(&why);
	}
	strbuf_release(&name);
	return per;
}

/*
 * A run whose workload has a length (duration, time) cannot fit its
 * iterations in timeouts.run: say so once, for the first such run.  The
 * members of a together run run at once: the longest counts.
 */
void check_run_time(struct ctx *c, const struct plan *p, const struct ynode *at)
{
	for (size_t i = 0; i < p->nr_runs; i++) {
		const struct plan_run *r = &p->runs[i];
		int64_t per = 0, need;

		if (r->wl)
			per = length_ms(r, r->wl, NULL);
		for (size_t m = 0; m < r->nr_members; m++) {
			int64_t one = length_ms(r, r->members[m].wl,
						r->members[m].name);

			if (one > per && !r->members[m].background)
				per = one;
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

/* What workload_check_params() reads: one run's parameters, a member's
 * with its "MEMBER." prefix. */
struct run_params {
	const struct plan_run *r;
	const char *member; /* NULL: the run's own workload */
	struct strbuf name;
};

static const char *run_get(const void *ctx, const char *name)
{
	struct run_params *rp = (struct run_params *)ctx;

	if (!rp->member)
		return plan_run_param(rp->r, name);
	strbuf_reset(&rp->name);
	strbuf_addf(&rp->name, "%s.%s", rp->member, name);
	return plan_run_param(rp->r, rp->name.buf);
}

/*
 * Report a run of entry e whose parameters fail their workload's check
 * taken together (common/wl_check.h): schbench's warm-up no shorter than
 * its duration, tbench's clients list.  Each entry is reported once, for
 * its first such run; a sweep's value is only known run by run.
 */
void check_run_params(struct ctx *c, const struct plan *p,
		      const struct sentry *e, size_t nr_entries)
{
	struct run_params rp = { .name = STRBUF_INIT };
	struct strbuf param = STRBUF_INIT, why = STRBUF_INIT,
		      path = STRBUF_INIT;
	int *said = xcalloc(nr_entries ? nr_entries : 1, sizeof(int));

	for (size_t i = 0; i < p->nr_runs; i++) {
		const struct plan_run *r = &p->runs[i];
		const struct sentry *en = &e[r->entry];

		for (size_t m = 0; m <= r->nr_members && !said[r->entry]; m++) {
			const struct wl_desc *wl =
				m < r->nr_members ? r->members[m].wl : r->wl;

			if (!wl || (m == r->nr_members && r->nr_members))
				continue;
			rp.r = r;
			rp.member =
				m < r->nr_members ? r->members[m].name : NULL;
			strbuf_reset(&param);
			strbuf_reset(&why);
			if (workload_check_params(wl, run_get, &rp, &param,
						  &why) == 0)
				continue;
			strbuf_reset(&path);
			if (en->listed)
				strbuf_addf(&path, "workloads[%zu].", r->entry);
			if (rp.member)
				strbuf_addf(&path, "together[%zu].", m);
			nerror(c, en->at, "%sparams.%s: %s (run %zu)", path.buf,
			       param.buf, why.buf, r->index);
			said[r->entry] = 1;
		}
	}
	free(said);
	strbuf_release(&rp.name);
	strbuf_release(&param);
	strbuf_release(&why);
	strbuf_release(&path);
}
