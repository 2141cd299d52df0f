/*
 * page_bisect.c - bisection pages (bisect-ID.html): what was bisected
 * (a PLM#'s series or a commit range), the result with the culprit's
 * %change and CI, each step (its point's kernel, boots, n, mean, %change
 * against the good end with its CI and p, the verdicts against both
 * ends, the build time), a plot of the metric's mean per point, and the
 * points with their marks.  A page depends on its bisection, its steps
 * and its points: a step that moves on rewrites only its own page.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "report/svg.h"
#include "store/db.h"
#include "store/pages.h"
#include "banned.h"

struct bisect_page {
	const struct db_result *b;
	int i;
};

/* "+1.2% [-0.3%, +2.7%] p=0.012" for the result's numbers. */
static void add_change(struct strbuf *out, double pct, double lo, double hi,
		       double p)
{
	if (!isfinite(pct))
		return;
	strbuf_addf(out, "%+.1f%%", pct);
	if (isfinite(lo) && isfinite(hi))
		strbuf_addf(out, " [%+.1f%%, %+.1f%%]", lo, hi);
	if (isfinite(p))
		strbuf_addf(out, " p=%.2g", p);
}

/* The facts of the bisection at row i of b (pages_bisections()' columns). */
static void bisect_facts(struct strbuf *body, const struct db_result *b, int i)
{
	struct strbuf href = STRBUF_INIT, res = STRBUF_INIT;

	facts_begin(body);
	if (db_get(b, i, 1)) {
		strbuf_addf(&href, "patch-%s.html", db_get(b, i, 1));
		strbuf_addf(&res, "PLM#%s %s", db_get(b, i, 1),
			    S(db_get(b, i, 2)));
		dl_link(body, "series", res.buf, href.buf);
	} else {
		strbuf_addf(&res, "%s %s..%s", S(db_get(b, i, 3)),
			    S(db_get(b, i, 4)), S(db_get(b, i, 5)));
		dl_item(body, "commit range", res.buf);
	}
	dl_item(body, "changes", db_get(b, i, 17));
	strbuf_reset(&href);
	strbuf_addf(&href, "host-%s.html", db_get(b, i, 6));
	dl_link(body, "host", db_get(b, i, 7), href.buf);
	strbuf_reset(&href);
	strbuf_addf(&href, "plan-%s.html", db_get(b, i, 8));
	dl_link(body, "plan", db_get(b, i, 9), href.buf);
	dl_item(body, "metric", db_get(b, i, 10));
	dl_item(body, "workload", db_get(b, i, 11));
	dl_item(body, "params", db_get(b, i, 12));
	dl_item(body, "looking for", db_get(b, i, 13));
	dl_item(body, "state", db_get(b, i, 14));
	dl_item(body, "result", db_get(b, i, 15));
	strbuf_reset(&res);
	add_change(&res, num(db_get(b, i, 21)), num(db_get(b, i, 22)),
		   num(db_get(b, i, 23)), num(db_get(b, i, 24)));
	if (res.len)
		dl_item(body, "the culprit against the good point before it",
			res.buf);
	dl_item(body, "error", db_get(b, i, 25));
	dl_item(body, "started (UTC)", db_get(b, i, 18));
	dl_item(body, "finished (UTC)", db_get(b, i, 19));
	facts_end(body);
	strbuf_release(&href);
	strbuf_release(&res);
}

/* Fill the page of the bisection at row bp->i (a page_fill_fn): its facts,
 * its steps, the plot of the mean per point, its points. */
static int fill_bisect(struct report *r, struct page *pg, void *ctx)
{
	const struct bisect_page *bp = ctx;
	const struct db_result *b = bp->b;
	int i = bp->i;
	_cleanup_db_result_ struct db_result *steps = NULL, *pts = NULL;
	static const struct col scols[] = {
		{ "step", "step", 1 },
		{ "point", "point", 1 },
		{ "kernel", "kernel", 0 },
		{ "state", "verdict", 0 },
		{ "boots", "boots", 1 },
		{ "looks", "looks", 1 },
		{ "n", "n", 1 },
		{ "mean", "mean", 1 },
		{ "pct_vs_good", "%change vs good", 1 },
		{ "ci_low", "95% CI low", 1 },
		{ "ci_high", "95% CI high", 1 },
		{ "p", "p", 1 },
		{ "verdict_good", "vs good end", 0 },
		{ "verdict_bad", "bad end vs it", 0 },
		{ "build_s", "build s", 1 },
		{ "note", "note", 0 },
	};
	static const struct col pcols[] = {
		{ "position", "point", 1 },
		{ "mark", "mark", 0 },
		{ "kernel", "kernel", 0 },
		{ "change", "change", 0 },
	};
	struct strbuf *body = &pg->body, e = STRBUF_INIT;
	struct svg_plot plot;
	double good = NAN, bad = NAN;
	int64_t id = id64(db_get(b, i, 0));
	int n = (int)num(db_get(b, i, 17)), rc;
	size_t s0;
	struct rtab t;

	rc = pages_bisection_steps(r->db, id, &steps, r->err);
	if (rc >= 0)
		rc = pages_bisection_points(r->db, id, &pts, r->err);
	if (rc < 0)
		return rc;
	page_open(pg, "Bisection %lld: %s on %s", (long long)id,
		  S(db_get(b, i, 10)), S(db_get(b, i, 7)));
	bisect_facts(body, b, i);

	h2(body, "steps", "Steps");
	rtab_begin(&t, pg, "steps", NULL, scols, (int)ARRAY_SIZE(scols));
	for (int k = 0; k < db_nrows(steps); k++) {
		const char *state = S(db_get(steps, k, 3));

		rtab_row(&t, !strcmp(state, "bad")    ? "v-regression"
			     : !strcmp(state, "good") ? "v-improvement"
						      : NULL);
		for (int c = 0; c < 16; c++) {
			if (scols[c].num)
				rtab_num(&t, num(db_get(steps, k, c)), NULL);
			else
				rtab_str(&t, db_get(steps, k, c));
		}
		rtab_end_row(&t);
		if (isfinite(num(db_get(steps, k, 16))))
			good = num(db_get(steps, k, 16));
		if (isfinite(num(db_get(steps, k, 17))))
			bad = num(db_get(steps, k, 17));
	}
	rtab_end(&t, "no steps yet");

	/* The metric's mean per point: the ends and each measured point. */
	svg_plot_init(&plot, "mean per point", "point (changes applied)", "",
		      db_get(b, i, 10), "");
	s0 = svg_plot_add_series(&plot, "measured point", SVG_DOTS);
	{
		size_t ends = svg_plot_add_series(&plot, "the ends", SVG_DOTS);

		svg_series_add(&plot, ends, 0, good, NAN, NAN);
		svg_series_add(&plot, ends, n, bad, NAN, NAN);
	}
	for (int k = 0; k < db_nrows(steps); k++)
		if (num(db_get(steps, k, 0)) > 0)
			svg_series_add(&plot, s0, num(db_get(steps, k, 1)),
				       num(db_get(steps, k, 7)), NAN, NAN);
	strbuf_addstr(body, "<figure>");
	if (svg_plot_write(&plot, body, &e) < 0)
		strbuf_addstr(body, "<p class=\"note\">no plot</p>");
	strbuf_addstr(body, "</figure>");
	svg_plot_release(&plot);

	h2(body, "points", "Points");
	rtab_begin(&t, pg, "points", NULL, pcols, (int)ARRAY_SIZE(pcols));
	for (int k = 0; k < db_nrows(pts); k++) {
		rtab_row(&t, NULL);
		rtab_num(&t, num(db_get(pts, k, 0)), NULL);
		rtab_str(&t, db_get(pts, k, 1));
		rtab_str(&t, db_get(pts, k, 2));
		rtab_str(&t, db_get(pts, k, 3));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no points");
	strbuf_release(&e);
	return 0;
}

int write_bisect_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *b = NULL;
	int rc;

	rc = pages_bisections(r->db, r->o->since, &b, r->err);
	for (int i = 0; rc >= 0 && i < db_nrows(b); i++) {
		struct strbuf stem = STRBUF_INIT;
		struct bisect_page bp = { b, i };

		strbuf_addf(&stem, "bisect-%s", db_get(b, i, 0));
		rc = page_refresh(r, stem.buf, db_get(b, i, 20), fill_bisect,
				  &bp);
		strbuf_release(&stem);
	}
	return rc;
}
