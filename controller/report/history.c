/*
 * history.c - the history section of host and metric pages: every series
 * of a host (or of a metric, on every host) plotted oldest first with its
 * change points marked, and a table of the change points (with CSV and
 * JSON beside it).  The series and change points are analysis/changes.c's
 * (history_series, history_changes), brought up to date by
 * report_write() before the snapshot the pages are written from.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "analysis/changes.h"
#include "report/page.h"
#include "report/svg.h"
#include "banned.h"

/* Plots per page at most: the table and its files list every change. */
#define MAX_HISTORY_PLOTS 48

/* One series as a plot: its points, the means between change points, and
 * a dashed line at each change, its kernels in the tooltip. */
static void history_plot(struct strbuf *b, const struct changes_series *s,
			 int by_host)
{
	struct strbuf title = STRBUF_INIT, err = STRBUF_INIT, lab = STRBUF_INIT;
	struct svg_plot p;
	size_t pts, seg, start = 0;

	strbuf_addf(&title, "%s %s", s->workload, s->metric);
	if (!by_host)
		strbuf_addf(&title, " on %s", s->host);
	if (s->params_text[0])
		strbuf_addf(&title, " (%s)", s->params_text);
	svg_plot_init(&p, title.buf, "observation, oldest first", "", s->metric,
		      s->unit);
	p.height = 260;
	pts = svg_plot_add_series(&p, "observations", SVG_DOTS);
	seg = svg_plot_add_series(&p, "mean between change points", SVG_LINE);
	for (size_t i = 0; i < s->n; i++)
		svg_series_add(&p, pts, (double)(i + 1), s->value[i], NAN, NAN);
	for (size_t c = 0; c <= s->ncp; c++) {
		size_t end = c < s->ncp ? s->cp[c] : s->n;
		double sum = 0;

		if (end <= start)
			continue;
		for (size_t i = start; i < end; i++)
			sum += s->value[i];
		/* A step: flat over the segment, straight up at a change. */
		svg_series_add(&p, seg, (double)start + 0.5,
			       sum / (double)(end - start), NAN, NAN);
		svg_series_add(&p, seg, (double)end + 0.5,
			       sum / (double)(end - start), NAN, NAN);
		if (c < s->ncp) {
			strbuf_reset(&lab);
			strbuf_addf(&lab,
				    "change between %s and %s (before point "
				    "%zu)",
				    s->kernel[end - 1], s->kernel[end],
				    end + 1);
			svg_plot_add_vline(&p, (double)end + 0.5, lab.buf,
					   "change point");
		}
		start = end;
	}
	strbuf_addstr(b, "<figure class=\"plot-fig\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>");
	strbuf_add_html(b, title.buf);
	/* Kernel names are input: escaped like every other text here. */
	strbuf_addf(b, ": %zu observations of ", s->n);
	strbuf_add_html(b, s->n ? s->kernel[0] : "-");
	if (s->n > 1) {
		strbuf_addstr(b, " to ");
		strbuf_add_html(b, s->kernel[s->n - 1]);
	}
	if (s->ncp)
		strbuf_addf(b, "; %zu change point%s, dashed", s->ncp,
			    s->ncp == 1 ? "" : "s");
	else
		strbuf_addstr(b, "; no change point");
	strbuf_addstr(b, ".</figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&err);
	strbuf_release(&lab);
}

/*
 * Rows [0, n) of v, change points as changes_list() returns them (newest
 * first), as table name of pg with its CSV and JSON (empty: the text of
 * the empty row); link_metric links each metric to its page.  v stays
 * the caller's.
 */
void changes_table(struct page *pg, const char *name,
		   const struct changes_row *v, size_t n, const char *empty,
		   int link_metric)
{
	static const struct col cols[] = {
		{ "at", "measured (UTC)", 0 },
		{ "host", "host", RTAB_GROUP },
		{ "workload", "workload", RTAB_GROUP },
		{ "params", "params", RTAB_GROUP },
		{ "metric", "metric", 0 },
		{ "kernel_before", "kernel before", 0 },
		{ "kernel_after", "kernel after", 0 },
		{ "mean_before", "mean before", 1 },
		{ "mean_after", "mean after", 1 },
		{ "pct_shift", "shift", 1 },
		{ "direction", "", 0 },
		{ "p_value", "p", 1 },
	};
	struct rtab t;
	struct strbuf cell = STRBUF_INIT;

	rtab_begin(&t, pg, name, NULL, cols, (int)ARRAY_SIZE(cols));
	for (size_t i = 0; i < n; i++) {
		const struct changes_row *c = &v[i];

		rtab_row(&t, !strcmp(c->direction, "worse")    ? "v-regression"
			     : !strcmp(c->direction, "better") ? "v-improvement"
							       : NULL);
		rtab_str(&t, c->at);
		rtab_str(&t, c->host);
		rtab_str(&t, c->workload);
		rtab_str(&t, c->params_text);
		if (link_metric) {
			strbuf_reset(&cell);
			metric_page_stem(c->metric, &cell);
			strbuf_addstr(&cell, ".html");
			rtab_link(&t, c->metric, cell.buf);
		} else
			rtab_str(&t, c->metric);
		rtab_str(&t, c->kernel_before);
		rtab_str(&t, c->kernel_after);
		rtab_num(&t, c->mean_before, NULL);
		rtab_num(&t, c->mean_after, NULL);
		strbuf_reset(&cell);
		if (isfinite(c->pct_shift))
			strbuf_addf(&cell, "%+.1f%%", c->pct_shift);
		else
			strbuf_addf(&cell, "%+.4g %s", c->shift, c->unit);
		rtab_num(&t, isfinite(c->pct_shift) ? c->pct_shift : c->shift,
			 cell.buf);
		rtab_str(&t, c->direction);
		rtab_num(&t, c->p, NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, empty);
	strbuf_release(&cell);
}

/* The table of the stored change points of cq (newest first). */
static int history_table(struct report *r, struct page *pg,
			 const struct changes_query *cq)
{
	struct changes_rows rows;

	if (changes_list(r->db, cq, &rows, r->err) < 0)
		return -1;
	changes_table(pg, "changes", rows.v, rows.nr,
		      "no change points in this history", 0);
	changes_rows_release(&rows);
	return 0;
}

int render_history(struct report *r, struct page *pg, int64_t host_id,
		   const char *host, const char *metric)
{
	struct changes_series *s = NULL;
	struct changes_query cq = { .host = host, .metric = metric };
	struct strbuf *b = &pg->body;
	size_t n = 0, shown = 0;
	int rc;

	if (changes_load_series(r->db, host_id, metric, &s, &n, r->err) < 0)
		return -1;
	h2(b, "history", "History and change points");
	if (!n) {
		strbuf_addstr(b, "<p class=\"note\">No history yet: results "
				 "of kernels that are not a patch's make "
				 "it.</p>");
		free(s);
		return 0;
	}
	strbuf_addstr(b,
		      "<p class=\"note\">Each series is one workload, params "
		      "and metric over time, measured with the kernels that "
		      "are not a patch's: one point per boot, oldest first. "
		      "Change points (dashed) are found by E-divisive means "
		      "(windows of 50 points, Student's t test: p &lt; 0.01, "
		      "Bonferroni-adjusted over the positions a split could "
		      "take, confirmed at p &lt; 0.001); the line is the mean "
		      "between them.  <code>schedfarm changes</code> lists "
		      "them.</p>");
	rc = history_table(r, pg, &cq);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (shown >= MAX_HISTORY_PLOTS)
			continue;
		/* Series with a change point first, then the rest. */
		if (!s[i].ncp)
			continue;
		history_plot(b, &s[i], host_id > 0);
		shown++;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (shown >= MAX_HISTORY_PLOTS || s[i].ncp)
			continue;
		history_plot(b, &s[i], host_id > 0);
		shown++;
	}
	if (shown < n)
		strbuf_addf(b,
			    "<p class=\"note\">%zu more series not plotted "
			    "(at most %d a page; those with change points "
			    "first).</p>",
			    n - shown, MAX_HISTORY_PLOTS);
	for (size_t i = 0; i < n; i++)
		changes_series_release(&s[i]);
	free(s);
	return rc;
}
