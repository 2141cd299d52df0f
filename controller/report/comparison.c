/*
 * comparison.c - the body shared by a patch page and a kernel-pair page:
 * what the comparisons of a base and a new kernel say.
 *
 * The verdicts and statistics are read as `schedfarm compare` stored them
 * (the newest per host, workload, params and metric); nothing here
 * recomputes them.  The body has four parts: a line counting regressions
 * and improvements, the PLM-style table (per host, workload and params
 * the headline metric, base row then new row, with the STP ids of the
 * runs behind it), every comparison with its CI, p and verdict, and plots
 * per host and workload: a metric over a swept parameter (threads, users,
 * ...) with bands, and dot plots of the observations in run order.  The
 * observations are bounded (PAGES_OBS_RUNS runs per kernel and compared
 * params, plus the patch's own runs), so a page costs the same however
 * many runs a shared base kernel gathers.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "store/pages.h"
#include "parse.h"
#include "report/svg.h"
#include "report/page.h"
#include "banned.h"

/* Caps on plots per page: the CSV/JSON files hold everything. */
#define MAX_DOT_PLOTS 24

/* Columns of pages_latest_comparisons() (store/pages.h). */
enum {
	CC_HOST,
	CC_HOST_NAME,
	CC_WORKLOAD,
	CC_PARAMS,
	CC_PARAMS_KEY,
	CC_METRIC,
	CC_UNIT,
	CC_BETTER,
	CC_NBASE,
	CC_NNEW,
	CC_MBASE,
	CC_MNEW,
	CC_SBASE,
	CC_SNEW,
	CC_PCT,
	CC_CILO,
	CC_CIHI,
	CC_P,
	CC_TAU,
	CC_VERDICT,
	CC_METHOD,
	CC_BASE_K,
	CC_NEW_K,
	CC_BASE_NAME,
	CC_NEW_NAME,
	CC_NKEY,
	CC_SCALE, /* the columns of schema 008 */
	CC_DIFF,
	CC_DIFF_LO,
	CC_DIFF_HI,
	CC_UNBOUNDED,
	CC_NOTE,
	CC_FAMILY,
	CC_ALPHA,
};

/* One non-warm-up result behind the comparisons (a row of
 * pages_comparison_observations()). */
struct obs {
	int64_t host, kernel, run, job;
	const char *workload, *params, *metric;
	int iteration;
	double value;
};

/* Is o one of row i's (host, workload, params, metric), either kernel? */
static int obs_match(const struct obs *o, const struct db_result *c, int i)
{
	return o->host == id64(db_get(c, i, CC_HOST)) &&
	       !strcmp(o->workload, S(db_get(c, i, CC_WORKLOAD))) &&
	       !strcmp(o->params, S(db_get(c, i, CC_PARAMS_KEY))) &&
	       !strcmp(o->metric, S(db_get(c, i, CC_METRIC)));
}

/* Split "k=v;k=v" into keys and values (first '=' splits). */
static void split_params(const char *s, struct strvec *keys,
			 struct strvec *vals)
{
	struct strvec parts = STRVEC_INIT;

	if (*s)
		strvec_split(&parts, s, ';');
	for (size_t i = 0; i < parts.nr; i++) {
		char *eq = strchr(parts.v[i], '=');

		if (!eq)
			continue;
		*eq = '\0';
		strvec_push(keys, parts.v[i]);
		strvec_push(vals, eq + 1);
	}
	strvec_clear(&parts);
}

/*
 * Which parameter do rows idx[0..n) sweep?  The one numeric key whose
 * value varies (preferring threads, users, jobs, clients, tasks); NULL
 * when none does.  The caller frees the result.
 */
static char *find_sweep_key(const struct db_result *c, const int *idx, int n)
{
	static const char *const pref[] = { "threads", "users", "jobs",
					    "clients", "tasks", "groups" };
	struct strvec k0 = STRVEC_INIT, v0 = STRVEC_INIT;
	char *best = NULL;
	int best_rank = 100;

	if (n < 2)
		return NULL;
	split_params(S(db_get(c, idx[0], CC_PARAMS)), &k0, &v0);
	for (size_t k = 0; k < k0.nr; k++) {
		int varies = 0, numeric = 1, rank = 50;

		for (int i = 0; i < n && numeric; i++) {
			struct strvec kk = STRVEC_INIT, vv = STRVEC_INIT;
			int found = 0;

			split_params(S(db_get(c, idx[i], CC_PARAMS)), &kk, &vv);
			for (size_t j = 0; j < kk.nr; j++) {
				double d;

				if (strcmp(kk.v[j], k0.v[k]))
					continue;
				found = 1;
				if (parse_double(vv.v[j], -DBL_MAX, DBL_MAX, &d,
						 NULL) < 0)
					numeric = 0;
				if (strcmp(vv.v[j], v0.v[k]))
					varies = 1;
			}
			if (!found)
				numeric = 0;
			strvec_clear(&kk);
			strvec_clear(&vv);
		}
		if (!varies || !numeric)
			continue;
		for (size_t p = 0; p < ARRAY_SIZE(pref); p++)
			if (!strcmp(pref[p], k0.v[k]))
				rank = (int)p;
		if (rank < best_rank) {
			free(best);
			best = xstrdup(k0.v[k]);
			best_rank = rank;
		}
	}
	strvec_clear(&k0);
	strvec_clear(&v0);
	return best;
}

/* The params without key skip, for grouping sweep lines ("" if none). */
static void params_without(const char *params, const char *skip,
			   struct strbuf *out)
{
	struct strvec k = STRVEC_INIT, v = STRVEC_INIT;

	split_params(params, &k, &v);
	for (size_t i = 0; i < k.nr; i++) {
		if (!strcmp(k.v[i], skip))
			continue;
		if (out->len)
			strbuf_addch(out, ';');
		strbuf_addf(out, "%s=%s", k.v[i], v.v[i]);
	}
	strvec_clear(&k);
	strvec_clear(&v);
}

/* The value of key in "k=v;k=v" as a number; NaN when absent or not one. */
static double param_value(const char *params, const char *key)
{
	struct strvec k = STRVEC_INIT, v = STRVEC_INIT;
	double d = NAN;

	split_params(params, &k, &v);
	for (size_t i = 0; i < k.nr; i++)
		if (!strcmp(k.v[i], key))
			d = num(v.v[i]);
	strvec_clear(&k);
	strvec_clear(&v);
	return d;
}

/* Rows are coloured by verdict, except no-change (NULL). */
static const char *verdict_class(const char *v)
{
	if (!v || !strcmp(v, "no-change"))
		return NULL;
	if (!strcmp(v, "regression"))
		return "v-regression";
	if (!strcmp(v, "improvement"))
		return "v-improvement";
	if (!strcmp(v, "changed"))
		return "v-changed";
	if (!strcmp(v, "inconclusive"))
		return "v-inconclusive";
	return "v-insufficient";
}

struct sweep_pt {
	double x;
	int row;
};

/* qsort() order of sweep points: by x. */
static int sweep_cmp(const void *a, const void *b)
{
	double x = ((const struct sweep_pt *)a)->x,
	       y = ((const struct sweep_pt *)b)->x;

	return x < y ? -1 : x > y;
}

/*
 * One plot of metric over the swept key for rows idx[0..n) (same host,
 * workload, metric and other params), base and new with bands, and the
 * numbers beside it.  The patch's band is the stored 95% CI of the change
 * applied to the base mean; the base's is its stored standard deviation.
 */
static void sweep_plot(struct strbuf *b, const struct db_result *c,
		       const int *idx, int n, const char *key, const char *rest)
{
	struct sweep_pt *pts = xcalloc((size_t)n, sizeof(*pts));
	struct strbuf title = STRBUF_INIT, err = STRBUF_INIT,
		      name = STRBUF_INIT;
	struct svg_plot p;
	size_t sb, sn;
	int r0 = idx[0];

	for (int i = 0; i < n; i++) {
		pts[i].x = param_value(S(db_get(c, idx[i], CC_PARAMS)), key);
		pts[i].row = idx[i];
	}
	qsort(pts, (size_t)n, sizeof(*pts), sweep_cmp);
	strbuf_addf(&title, "%s: %s over %s on %s",
		    S(db_get(c, r0, CC_WORKLOAD)), S(db_get(c, r0, CC_METRIC)),
		    key, S(db_get(c, r0, CC_HOST_NAME)));
	if (*rest)
		strbuf_addf(&title, " (%s)", rest);
	svg_plot_init(&p, title.buf, key, "", S(db_get(c, r0, CC_METRIC)),
		      S(db_get(c, r0, CC_UNIT)));
	p.x_log2 = 1;
	strbuf_addf(&name, "base %s (mean \xc2\xb1 1 s.d.)",
		    S(db_get(c, r0, CC_BASE_NAME)));
	sb = svg_plot_add_series(&p, name.buf, SVG_LINE);
	strbuf_reset(&name);
	strbuf_addf(&name, "new %s (mean, 95%% CI)",
		    S(db_get(c, r0, CC_NEW_NAME)));
	sn = svg_plot_add_series(&p, name.buf, SVG_LINE);
	for (int i = 0; i < n; i++) {
		int row = pts[i].row;
		double mb = num(db_get(c, row, CC_MBASE)),
		       mn = num(db_get(c, row, CC_MNEW)),
		       sdb = num(db_get(c, row, CC_SBASE)),
		       lo = num(db_get(c, row, CC_CILO)),
		       hi = num(db_get(c, row, CC_CIHI));

		svg_series_add(&p, sb, pts[i].x, mb, mb - sdb, mb + sdb);
		svg_series_add(&p, sn, pts[i].x, mn, mb * (1 + lo / 100),
			       mb * (1 + hi / 100));
	}
	strbuf_addstr(b, "<figure class=\"plot-fig\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>Lines: means stored by "
			 "<code>schedfarm compare</code>. Shaded: the base "
			 "\xc2\xb1 one standard deviation; the new kernel's "
			 "95% confidence interval of the change, drawn around "
			 "the base mean.<details><summary>The numbers"
			 "</summary><table class=\"data small\"><thead><tr>");
	strbuf_addstr(b, "<th class=\"num\">");
	strbuf_add_html(b, key);
	strbuf_addstr(b, "</th><th class=\"num\">base mean</th><th "
			 "class=\"num\">base s.d.</th><th class=\"num\">new "
			 "mean</th><th class=\"num\">%change</th><th "
			 "class=\"num\">95% CI</th><th>verdict</th></tr>"
			 "</thead><tbody>");
	for (int i = 0; i < n; i++) {
		int row = pts[i].row;

		strbuf_addstr(b, "<tr>");
		td_value(b, pts[i].x);
		td_value(b, num(db_get(c, row, CC_MBASE)));
		td_value(b, num(db_get(c, row, CC_SBASE)));
		td_value(b, num(db_get(c, row, CC_MNEW)));
		td_pct(b, num(db_get(c, row, CC_PCT)));
		strbuf_addstr(b, "<td class=\"num\">");
		fmt_pct(b, num(db_get(c, row, CC_CILO)));
		strbuf_addstr(b, " \xe2\x80\xa6 ");
		fmt_pct(b, num(db_get(c, row, CC_CIHI)));
		strbuf_addstr(b, "</td><td>");
		strbuf_add_html(b, db_get(c, row, CC_VERDICT));
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></details></figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&err);
	strbuf_release(&name);
	free(pts);
}

/*
 * The observations of comparison row i in run order, base and new as
 * dots, with their numbers and run links beside.
 */
static void dot_plot(struct strbuf *b, const struct db_result *c, int i,
		     const struct obs *ob, size_t nob)
{
	struct strbuf title = STRBUF_INIT, err = STRBUF_INIT,
		      name = STRBUF_INIT;
	int64_t kb = id64(db_get(c, i, CC_BASE_K)),
		kn = id64(db_get(c, i, CC_NEW_K));
	struct svg_plot p;
	size_t sb, sn;
	int order = 0;

	strbuf_addf(&title, "%s %s on %s", S(db_get(c, i, CC_WORKLOAD)),
		    S(db_get(c, i, CC_METRIC)), S(db_get(c, i, CC_HOST_NAME)));
	if (*S(db_get(c, i, CC_PARAMS)))
		strbuf_addf(&title, " (%s)", db_get(c, i, CC_PARAMS));
	svg_plot_init(&p, title.buf, "observation in run order", "",
		      S(db_get(c, i, CC_METRIC)), S(db_get(c, i, CC_UNIT)));
	p.width = 380;
	p.height = 240;
	strbuf_addf(&name, "base %s", S(db_get(c, i, CC_BASE_NAME)));
	sb = svg_plot_add_series(&p, name.buf, SVG_DOTS);
	strbuf_reset(&name);
	strbuf_addf(&name, "new %s", S(db_get(c, i, CC_NEW_NAME)));
	sn = svg_plot_add_series(&p, name.buf, SVG_DOTS);
	for (size_t k = 0; k < nob; k++) {
		if (!obs_match(&ob[k], c, i) ||
		    (ob[k].kernel != kb && ob[k].kernel != kn))
			continue;
		order++;
		svg_series_add(&p, ob[k].kernel == kb ? sb : sn, order,
			       ob[k].value, NAN, NAN);
	}
	strbuf_addstr(b, "<figure class=\"plot-fig small\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>");
	strbuf_add_html(b, title.buf);
	strbuf_addstr(b, ": every non-warm-up result in run order."
			 "<details><summary>The numbers"
			 "</summary><table class=\"data small\"><thead><tr>"
			 "<th class=\"num\">#</th><th>run</th><th>kernel</th>"
			 "<th class=\"num\">iteration</th><th class=\"num\">"
			 "value</th></tr></thead><tbody>");
	order = 0;
	for (size_t k = 0; k < nob; k++) {
		if (!obs_match(&ob[k], c, i) ||
		    (ob[k].kernel != kb && ob[k].kernel != kn))
			continue;
		order++;
		if (order > MAX_PLOT_TABLE_ROWS)
			continue;
		strbuf_addf(b,
			    "<tr><td class=\"num\">%d</td><td><a "
			    "href=\"run-%lld.html\">%lld</a></td><td>",
			    order, (long long)ob[k].run, (long long)ob[k].run);
		strbuf_add_html(b, ob[k].kernel == kb
					   ? S(db_get(c, i, CC_BASE_NAME))
					   : S(db_get(c, i, CC_NEW_NAME)));
		strbuf_addf(b,
			    "</td><td class=\"num\">%d</td><td "
			    "class=\"num\">",
			    ob[k].iteration);
		fmt_value(b, ob[k].value);
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></details></figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&err);
	strbuf_release(&name);
}

/* How many observations row i has on its base and new side. */
static void count_obs(const struct db_result *c, int i, const struct obs *ob,
		      size_t nob, int *ret_base, int *ret_new)
{
	int64_t kb = id64(db_get(c, i, CC_BASE_K)),
		kn = id64(db_get(c, i, CC_NEW_K));

	*ret_base = *ret_new = 0;
	for (size_t k = 0; k < nob; k++) {
		if (!obs_match(&ob[k], c, i))
			continue;
		if (ob[k].kernel == kb)
			(*ret_base)++;
		else if (ob[k].kernel == kn)
			(*ret_new)++;
	}
}

/*
 * The headline metric of a (host, workload, params) group, for the PLM
 * table: a workload's own headline (DESIGN.md's table) when present, else
 * the first metric with a direction and a %change, else the first row.
 */
static int headline_row(const struct db_result *c, int from, int to)
{
	static const char *const headline[] = {
		"max_jpm",	 "jain_index",	  "transactions", "messages",
		"records_per_s", "round_trip_us", "elapsed_s",	  "time",
	};

	for (size_t h = 0; h < ARRAY_SIZE(headline); h++)
		for (int i = from; i < to; i++)
			if (!strcmp(S(db_get(c, i, CC_METRIC)), headline[h]))
				return i;
	for (int i = from; i < to; i++)
		if (strcmp(S(db_get(c, i, CC_BETTER)), "none") &&
		    db_get(c, i, CC_PCT))
			return i;
	return from;
}

/*
 * Are rows a and b of the same host and workload (and, with params, the
 * same params)?  The groups of the PLM table and of the plots.
 */
static int same_group(const struct db_result *c, int a, int b, int params)
{
	return !strcmp(S(db_get(c, a, CC_HOST_NAME)),
		       S(db_get(c, b, CC_HOST_NAME))) &&
	       !strcmp(S(db_get(c, a, CC_WORKLOAD)),
		       S(db_get(c, b, CC_WORKLOAD))) &&
	       (!params || !strcmp(S(db_get(c, a, CC_PARAMS_KEY)),
				   S(db_get(c, b, CC_PARAMS_KEY))));
}

/* The STP ids of the new kernel's runs behind row i, for the PLM table. */
static void stp_ids(struct strbuf *out, const struct db_result *c, int i,
		    const struct obs *ob, size_t nob, int64_t kernel)
{
	int64_t seen[6];
	int nseen = 0, imported = 0;

	for (size_t k = 0; k < nob; k++) {
		int dup = 0;

		if (!obs_match(&ob[k], c, i) || ob[k].kernel != kernel)
			continue;
		if (!ob[k].job) {
			imported = 1;
			continue;
		}
		for (int s = 0; s < nseen; s++)
			if (seen[s] == ob[k].job)
				dup = 1;
		if (dup)
			continue;
		if (nseen == 5) {
			strbuf_addstr(out, " \xe2\x80\xa6");
			break;
		}
		seen[nseen++] = ob[k].job;
		strbuf_addf(out, "%s%lld", out->len ? ", " : "",
			    (long long)ob[k].job);
	}
	if (imported && !out->len)
		strbuf_addstr(out, "imported");
}

/*
 * What the comparison body shows: the newest verdicts for the kernel
 * pair (and the patch), and the observations behind them.
 */
struct cmp_data {
	struct db_result *c; /* pages_latest_comparisons(), nc rows */
	int nc;
	struct db_result *o; /* the observations; ob's strings point into it */
	struct obs *ob;
	size_t nob;
	int64_t patch; /* 0 on a kernel-pair page */
};

/*
 * Run the body's two statements into d (zeroed first).  Returns 0 or
 * negative with r->err filled; either way the caller releases d with
 * cmp_data_release().
 */
static int cmp_data_load(struct report *r, struct cmp_data *d, int64_t base_k,
			 int64_t new_k, int64_t patch)
{
	int rc;

	memset(d, 0, sizeof(*d));
	d->patch = patch;
	rc = pages_latest_comparisons(r->db, base_k, new_k, patch, &d->c,
				      r->err);
	if (rc < 0)
		return rc;
	d->nc = db_nrows(d->c);
	rc = pages_comparison_observations(r->db, base_k, new_k, patch, &d->o,
					   r->err);
	if (rc < 0)
		return rc;
	d->nob = (size_t)db_nrows(d->o);
	d->ob = xcalloc(d->nob + 1, sizeof(*d->ob));
	for (size_t k = 0; k < d->nob; k++) {
		struct obs *ob = &d->ob[k];
		int row = (int)k;

		ob->host = id64(db_get(d->o, row, 0));
		ob->kernel = id64(db_get(d->o, row, 1));
		ob->run = id64(db_get(d->o, row, 2));
		ob->job = id64(db_get(d->o, row, 3));
		ob->workload = S(db_get(d->o, row, 4));
		ob->params = S(db_get(d->o, row, 5));
		ob->metric = S(db_get(d->o, row, 6));
		ob->iteration = (int)id64(db_get(d->o, row, 7));
		ob->value = num(db_get(d->o, row, 8));
	}
	return 0;
}

/* Free what cmp_data_load() filled in, loaded or not. */
static void cmp_data_release(struct cmp_data *d)
{
	db_result_free(d->c);
	db_result_free(d->o);
	free(d->ob);
}

/*
 * The line counting regressions and improvements among the verdicts, the
 * changes of metrics without a direction apart from them, and the level
 * the verdicts were tested at (with Holm's correction when a host had
 * several deciding metrics).
 */
static void verdict_counts(struct strbuf *b, const struct db_result *c, int nc)
{
	int regr = 0, impr = 0, chg = 0, holm = 0;
	double alpha = NAN;

	for (int i = 0; i < nc; i++) {
		const char *v = S(db_get(c, i, CC_VERDICT));

		regr += !strcmp(v, "regression");
		impr += !strcmp(v, "improvement");
		chg += !strcmp(v, "changed");
		holm |= num(db_get(c, i, CC_FAMILY)) > 1;
		if (db_get(c, i, CC_ALPHA))
			alpha = num(db_get(c, i, CC_ALPHA));
	}
	strbuf_addf(b,
		    "<p class=\"verdicts\"><span class=\"count "
		    "v-regression\">%d regression%s</span> <span "
		    "class=\"count v-improvement\">%d improvement%s</span> "
		    "<span class=\"count v-changed\">%d changed (no "
		    "direction)</span> "
		    "over %d comparison%s (the newest verdict per host, "
		    "workload, params and metric).",
		    regr, regr == 1 ? "" : "s", impr, impr == 1 ? "" : "s", chg,
		    nc, nc == 1 ? "" : "s");
	if (!isnan(alpha))
		strbuf_addf(b, " Verdicts at p &lt; %.2g", alpha);
	if (holm)
		strbuf_addstr(b, ", with Holm's correction over each host's "
				 "deciding metrics (the adjusted p is in the "
				 "note)");
	strbuf_addstr(b, isnan(alpha) ? "</p>" : ".</p>");
}

/*
 * The PLM table: per (host, workload, params) the headline metric, base
 * row then new row, as OSDL's PLM printed it.
 */
static void plm_table(struct page *pg, const struct cmp_data *d)
{
	static const struct col plm_cols[] = {
		{ "stp_id", "STP id", 0 },
		{ "plm", "PLM#", 1 },
		{ "kernel", "Kernel", 0 },
		{ "workload", "Workload", RTAB_GROUP },
		{ "params", "Params", RTAB_GROUP },
		{ "metric", "Metric", 0 },
		{ "value", "Value", 1 },
		{ "unit", "Unit", 0 },
		{ "host", "Host", RTAB_GROUP },
		{ "pct_change", "%Change", 1 },
	};
	const struct db_result *c = d->c;
	struct strbuf tmp = STRBUF_INIT;
	struct rtab t;

	h2(&pg->body, "plm", "Result table (PLM style)");
	rtab_begin(&t, pg, "plm", NULL, plm_cols, (int)ARRAY_SIZE(plm_cols));
	for (int i = 0; i < d->nc;) {
		int j = i + 1, hl;

		while (j < d->nc && same_group(c, i, j, 1))
			j++;
		hl = headline_row(c, i, j);
		for (int side = 0; side < 2; side++) {
			int64_t k = id64(
				db_get(c, hl, side ? CC_NEW_K : CC_BASE_K));

			rtab_row(&t,
				 side ? verdict_class(db_get(c, hl, CC_VERDICT))
				      : "base");
			strbuf_reset(&tmp);
			stp_ids(&tmp, c, hl, d->ob, d->nob, k);
			rtab_str(&t, tmp.buf);
			if (side && d->patch)
				rtab_num(&t, (double)d->patch, NULL);
			else
				rtab_str(&t, NULL);
			rtab_str(&t, db_get(c, hl,
					    side ? CC_NEW_NAME : CC_BASE_NAME));
			rtab_str(&t, db_get(c, hl, CC_WORKLOAD));
			rtab_str(&t, db_get(c, hl, CC_PARAMS));
			rtab_str(&t, db_get(c, hl, CC_METRIC));
			rtab_num(&t,
				 num(db_get(c, hl, side ? CC_MNEW : CC_MBASE)),
				 NULL);
			rtab_str(&t, db_get(c, hl, CC_UNIT));
			rtab_str(&t, db_get(c, hl, CC_HOST_NAME));
			if (side) {
				strbuf_reset(&tmp);
				fmt_pct(&tmp, num(db_get(c, hl, CC_PCT)));
				rtab_num(&t, num(db_get(c, hl, CC_PCT)),
					 tmp.buf);
			} else
				rtab_num(&t, NAN, "base");
			rtab_end_row(&t);
		}
		i = j;
	}
	rtab_end(&t, "no comparisons stored yet: run schedfarm compare");
	strbuf_release(&tmp);
}

/* Every comparison row with its statistics and verdict. */
static void compare_table(struct page *pg, const struct db_result *c, int nc)
{
	/* The verdict first: it is what a reader looks for.  Host,
	 * workload and params head the rows that share them (group
	 * columns), so that a long params string does not make every row
	 * tall and the table wider than a window. */
	static const struct col cmp_cols[] = {
		{ "verdict", "verdict", RTAB_WORDS },
		{ "host", "host", RTAB_GROUP },
		{ "workload", "workload", RTAB_GROUP },
		{ "params", "params", RTAB_GROUP },
		{ "metric", "metric", 0 },
		{ "unit", "unit", 0 },
		{ "better", "better", RTAB_WORDS },
		{ "n_base", "n base", 1 },
		{ "mean_base", "base mean", 1 },
		{ "stddev_base", "base s.d.", 1 },
		{ "n_new", "n new", 1 },
		{ "mean_new", "new mean", 1 },
		{ "stddev_new", "new s.d.", 1 },
		{ "pct_change", "%change", 1 },
		{ "ci_low", "95% CI low", 1 },
		{ "ci_high", "95% CI high", 1 },
		{ "p_value", "p", 1 },
		{ "tau", "\xcf\x84 (%)", 1 },
		{ "note", "note", 0 },
	};
	struct strbuf *b = &pg->body, tmp = STRBUF_INIT;
	struct rtab t;

	h2(b, "compare", "Every comparison");
	strbuf_addstr(b, "<p class=\"note\">Coloured only where the verdict "
			 "is not no-change. %change = 100\xc2\xb7(new "
			 "\xe2\x88\x92 base)/|base|; the interval is the 95% "
			 "confidence interval of the %change.  Where the "
			 "values cross 0 the change is the difference new "
			 "\xe2\x88\x92 base in the metric's unit (the note "
			 "says so).</p>");
	rtab_begin(&t, pg, "compare", NULL, cmp_cols,
		   (int)ARRAY_SIZE(cmp_cols));
	for (int i = 0; i < nc; i++) {
		rtab_row(&t, verdict_class(db_get(c, i, CC_VERDICT)));
		rtab_str(&t, db_get(c, i, CC_VERDICT));
		rtab_str(&t, db_get(c, i, CC_HOST_NAME));
		rtab_str(&t, db_get(c, i, CC_WORKLOAD));
		rtab_str(&t, db_get(c, i, CC_PARAMS));
		rtab_str(&t, db_get(c, i, CC_METRIC));
		rtab_str(&t, db_get(c, i, CC_UNIT));
		rtab_str(&t, db_get(c, i, CC_BETTER));
		rtab_num(&t, num(db_get(c, i, CC_NBASE)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_MBASE)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_SBASE)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_NNEW)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_MNEW)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_SNEW)), NULL);
		for (int k = CC_PCT; k <= CC_CIHI; k++) {
			int diff = !strcmp(S(db_get(c, i, CC_SCALE)),
					   "difference");
			int col = !diff		 ? k
				  : k == CC_PCT	 ? CC_DIFF
				  : k == CC_CILO ? CC_DIFF_LO
						 : CC_DIFF_HI;

			strbuf_reset(&tmp);
			if (k != CC_PCT &&
			    !strcmp(S(db_get(c, i, CC_UNBOUNDED)), "t"))
				strbuf_addstr(&tmp, "unbounded");
			else if (diff && db_get(c, i, col))
				strbuf_addf(&tmp, "%+.4g %s",
					    num(db_get(c, i, col)),
					    S(db_get(c, i, CC_UNIT)));
			else
				fmt_pct(&tmp, num(db_get(c, i, col)));
			rtab_num(&t, num(db_get(c, i, col)), tmp.buf);
		}
		strbuf_reset(&tmp);
		if (db_get(c, i, CC_P))
			strbuf_addf(&tmp, "%.3g", num(db_get(c, i, CC_P)));
		else
			strbuf_addstr(&tmp, "\xe2\x80\x94");
		rtab_num(&t, num(db_get(c, i, CC_P)), tmp.buf);
		rtab_num(&t, num(db_get(c, i, CC_TAU)), NULL);
		rtab_str(&t, db_get(c, i, CC_NOTE));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no comparisons stored yet: run schedfarm compare");
	strbuf_release(&tmp);
}

/*
 * The sweep plots of rows idx[0..n) (one host, workload and metric) over
 * key: one plot per value of the other params, for those with at least
 * two points.  Consumes idx (its entries become -1).
 */
static void sweeps_over(struct strbuf *b, const struct db_result *c, int *idx,
			int n, const char *key)
{
	struct strbuf rest = STRBUF_INIT, other = STRBUF_INIT;
	int *sub = xcalloc((size_t)n, sizeof(int));

	for (int m = 0; m < n; m++) {
		int ns = 0;

		if (idx[m] < 0)
			continue;
		strbuf_reset(&rest);
		params_without(S(db_get(c, idx[m], CC_PARAMS)), key, &rest);
		for (int z = m; z < n; z++) {
			if (idx[z] < 0)
				continue;
			strbuf_reset(&other);
			params_without(S(db_get(c, idx[z], CC_PARAMS)), key,
				       &other);
			if (strcmp(rest.buf, other.buf))
				continue;
			sub[ns++] = idx[z];
			idx[z] = -1;
		}
		if (ns >= 2)
			sweep_plot(b, c, sub, ns, key, rest.buf);
	}
	free(sub);
	strbuf_release(&rest);
	strbuf_release(&other);
}

/*
 * The sweep plots of rows [from, to) (one host and workload): per metric,
 * when a numeric parameter varies (find_sweep_key()), sweeps_over() it.
 */
static void sweep_plots(struct strbuf *b, const struct db_result *c, int from,
			int to)
{
	int *idx = xcalloc((size_t)(to - from), sizeof(int));
	int *done = xcalloc((size_t)(to - from), sizeof(int));

	for (int k = from; k < to; k++) {
		char *key;
		int n = 0;

		if (done[k - from])
			continue;
		for (int m = k; m < to; m++)
			if (!strcmp(S(db_get(c, m, CC_METRIC)),
				    S(db_get(c, k, CC_METRIC)))) {
				idx[n++] = m;
				done[m - from] = 1;
			}
		key = find_sweep_key(c, idx, n);
		if (!key)
			continue;
		sweeps_over(b, c, idx, n, key);
		free(key);
	}
	free(idx);
	free(done);
}

/*
 * The dot plots of rows [from, to) of d: one per row with more than one
 * observation on a side, until *dots (the page's count so far) reaches
 * MAX_DOT_PLOTS, which is said once.  Returns how many rows had at most
 * one observation a side and so no plot.
 */
static int dot_plots(struct strbuf *b, const struct cmp_data *d, int from,
		     int to, int *dots)
{
	int single = 0;

	for (int k = from; k < to; k++) {
		int nb = 0, nn = 0;

		count_obs(d->c, k, d->ob, d->nob, &nb, &nn);
		if (nb <= 1 && nn <= 1) {
			/* One number a side: the sweep plot and the tables
			 * already say everything. */
			single++;
			continue;
		}
		if (*dots == MAX_DOT_PLOTS) {
			strbuf_addf(b,
				    "<p class=\"note\">Dot plots stop at %d "
				    "per page; every observation is on the run "
				    "pages.</p>",
				    MAX_DOT_PLOTS);
			(*dots)++;
		}
		if (*dots > MAX_DOT_PLOTS)
			break;
		dot_plot(b, d->c, k, d->ob, d->nob);
		(*dots)++;
	}
	return single;
}

/* Plots per (host, workload): sweeps per metric, then dot plots. */
static void plots_section(struct strbuf *b, const struct cmp_data *d)
{
	const struct db_result *c = d->c;
	int dots = 0;

	h2(b, "plots", "Plots");
	if (!d->nc)
		strbuf_addstr(b, "<p class=\"note\">Nothing to plot yet.</p>");
	for (int i = 0; i < d->nc;) {
		int j = i + 1, single;

		while (j < d->nc && same_group(c, i, j, 0))
			j++;
		strbuf_addstr(b, "<h3>");
		strbuf_add_html(b, db_get(c, i, CC_WORKLOAD));
		strbuf_addstr(b, " on ");
		strbuf_add_html(b, db_get(c, i, CC_HOST_NAME));
		strbuf_addstr(b, "</h3><div class=\"plots\">");
		sweep_plots(b, c, i, j);
		single = dot_plots(b, d, i, j, &dots);
		strbuf_addstr(b, "</div>");
		strbuf_addf(b,
			    "<p class=\"note\">Dot plots show %sthe "
			    "newest " PAGES_OBS_RUNS " runs of each "
			    "kernel with these parameters; n in the "
			    "tables counts every observation the "
			    "comparison used.</p>",
			    d->patch ? "the runs of this patch's jobs and "
				     : "");
		if (single)
			strbuf_addf(b,
				    "<p class=\"note\">%d comparison%s "
				    "with at most one observation a side "
				    "get%s no dot plot.</p>",
				    single, single == 1 ? "" : "s",
				    single == 1 ? "s" : "");
		i = j;
	}
}

/*
 * The body shared by a patch page and a kernel-pair page, below their
 * facts: the verdict counts, the PLM-style table, every comparison, and
 * plots per host and workload.  base_k and new_k are the kernel pair;
 * patch (0 for none) adds the comparisons stored under its PLM# and the
 * runs of its jobs.  Returns 0 or negative with r->err filled.
 */
int render_comparison_body(struct report *r, struct page *pg, int64_t base_k,
			   int64_t new_k, int64_t patch)
{
	struct cmp_data d;
	int rc;

	rc = cmp_data_load(r, &d, base_k, new_k, patch);
	if (rc >= 0) {
		verdict_counts(&pg->body, d.c, d.nc);
		plm_table(pg, &d);
		compare_table(pg, d.c, d.nc);
		plots_section(&pg->body, &d);
	}
	cmp_data_release(&d);
	return rc;
}
