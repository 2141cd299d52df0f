/*
 * page_run.c - run pages (run-ID.html): what ran, where, on which kernel,
 * its results, scheduler counters (counters.c), time series, console log
 * and the agent's lines as received.
 *
 * A run's fingerprint covers the run, its host and kernel rows and its
 * results, samples and counters.  The stale run pages are fetched in
 * batches of RUN_BATCH (one statement per table per batch), so 10 000
 * runs cost a few hundred statements, not tens of thousands; that is why
 * this kind calls page_stale() and page_render() itself instead of
 * page_refresh().
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "store/pages.h"
#include "report/svg.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "banned.h"

/* Runs fetched per batch of statements. */
#define RUN_BATCH 200
/* Caps on plots per page: the CSV/JSON files hold everything. */
#define MAX_SERIES_PLOTS 6
#define MAX_SERIES_PER_PLOT 16

/* Columns of pages_run_details() (store/pages.h). */
enum {
	RC_ID,
	RC_STATUS,
	RC_WORKLOAD,
	RC_PARAMS,
	RC_BOOT,
	RC_SEQ,
	RC_JOB,
	RC_PATCH,
	RC_PATCH_NAME,
	RC_PLAN,
	RC_PLAN_NAME,
	RC_HOST,
	RC_HOST_NAME,
	RC_HOST_KIND,
	RC_SOCKETS,
	RC_CORES,
	RC_THREADS,
	RC_NUMA,
	RC_CPUS,
	RC_MEM,
	RC_KERNEL,
	RC_KNAME,
	RC_KBASE,
	RC_KRELEASE,
	RC_KSTATE,
	RC_KTEXT,
	RC_KDATA,
	RC_KBSS,
	RC_KSECONDS,
	RC_KHASLOG,
	RC_IMPORTED,
	RC_SOURCE,
	RC_AGENT,
	RC_CONSOLE,
	RC_RAW,
	RC_ERROR,
	RC_CREATED,
	RC_STARTED,
	RC_FINISHED,
	RC_INGESTED,
};

/* Write the kernel's build log beside the pages, once per report. */
static int kernel_log_file(struct report *r, struct page *pg, int64_t kid)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf name = STRBUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < r->nkernel_logs; i++)
		if (r->kernel_logs[i] == kid)
			return 0;
	ALLOC_GROW(r->kernel_logs, r->nkernel_logs + 1, r->kernel_logs_alloc);
	r->kernel_logs[r->nkernel_logs++] = kid;
	rc = pages_kernel_build_log(r->db, kid, &res, r->err);
	if (rc < 0 || db_nrows(res) != 1 || !db_get(res, 0, 0))
		return rc;
	strbuf_addf(&name, "kernel-%lld-build.txt", (long long)kid);
	{
		struct strbuf data = STRBUF_INIT;

		/* What make printed: its ESC sequences escaped, as in
		 * add_log()'s files. */
		strbuf_add_printable(&data, db_get(res, 0, 0), PRINTABLE_LINES);
		page_add_file(pg, name.buf, &data);
	}
	strbuf_release(&name);
	(void)r;
	return 0;
}

/* Cursor over rows sorted by run id in column 0. */
static void slice(const struct db_result *res, int *pos, int64_t id,
		  int *ret_from, int *ret_to)
{
	int n = db_nrows(res);

	while (*pos < n && id64(db_get(res, *pos, 0)) < id)
		(*pos)++;
	*ret_from = *pos;
	while (*pos < n && id64(db_get(res, *pos, 0)) == id)
		(*pos)++;
	*ret_to = *pos;
}

/* Is a series per task ("share./a/task3") rather than per group? */
static int is_task_series(const char *name)
{
	return strstr(name, "/task") != NULL;
}

/*
 * One plot of the rows from..to (one iteration) whose series are per task
 * (tasks) or not, with its numbers beside it.  Returns 1 when drawn.
 */
static int series_plot(struct strbuf *b, const struct db_result *res, int from,
		       int to, int iter, int warm, int tasks)
{
	struct strbuf title = STRBUF_INIT, cur = STRBUF_INIT, err = STRBUF_INIT;
	int all_share = 1, nseries = 0, rows = 0;
	struct svg_plot p;
	size_t sidx = 0;

	for (int k = from; k < to; k++) {
		const char *sname = S(db_get(res, k, 2));

		if (is_task_series(sname) != tasks)
			continue;
		rows++;
		if (!starts_with(sname, "share."))
			all_share = 0;
	}
	if (!rows)
		return 0;
	strbuf_addf(&title, "Iteration %d%s: %s", iter,
		    warm ? " (warm-up)" : "",
		    tasks	? "per task"
		    : all_share ? "per group"
				: "series");
	/* The agent reports shares in percent of one CPU (wl_fairness_loop.c);
	 * other series carry no unit in the protocol. */
	svg_plot_init(&p, title.buf, "time since the iteration started", "s",
		      all_share ? "CPU share" : "value",
		      all_share ? "% of one CPU" : "as reported");
	for (int k = from; k < to; k++) {
		const char *sname = S(db_get(res, k, 2));

		if (is_task_series(sname) != tasks)
			continue;
		if (!nseries || strcmp(cur.buf, sname)) {
			if (nseries == MAX_SERIES_PER_PLOT)
				break;
			strbuf_reset(&cur);
			strbuf_addstr(&cur, sname);
			sidx = svg_plot_add_series(&p, sname, SVG_LINE);
			nseries++;
		}
		svg_series_add(&p, sidx, num(db_get(res, k, 3)),
			       num(db_get(res, k, 4)), NAN, NAN);
	}
	strbuf_addstr(b, "<figure class=\"plot-fig\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>");
	strbuf_add_html(b, title.buf);
	strbuf_addf(b, ": %d series", nseries);
	if (nseries == MAX_SERIES_PER_PLOT)
		strbuf_addstr(b, " (the first ones; all are in the data "
				 "files)");
	strbuf_addstr(b, ".<details><summary>The numbers</summary><table "
			 "class=\"data small\"><thead><tr><th>series</th><th "
			 "class=\"num\">t (s)</th><th class=\"num\">value"
			 "</th></tr></thead><tbody>");
	rows = 0;
	for (int k = from; k < to && rows < MAX_PLOT_TABLE_ROWS; k++) {
		if (is_task_series(S(db_get(res, k, 2))) != tasks)
			continue;
		rows++;
		strbuf_addstr(b, "<tr><td>");
		strbuf_add_html(b, db_get(res, k, 2));
		strbuf_addstr(b, "</td>");
		td_value(b, num(db_get(res, k, 3)));
		td_value(b, num(db_get(res, k, 4)));
		strbuf_addstr(b, "</tr>");
	}
	strbuf_addstr(b, "</tbody></table></details></figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&cur);
	strbuf_release(&err);
	return 1;
}

/*
 * Plots of the time series of one run (samples rows from..to, sorted by
 * iteration, series, t): per iteration one plot of the groups and one of
 * the tasks, measured iterations first, at most MAX_SERIES_PLOTS plots;
 * every sample is in the data files.
 */
static void render_samples(struct page *pg, const struct db_result *res,
			   int from, int to, const struct db_result *results,
			   int rfrom, int rto)
{
	static const struct col cols[] = {
		{ "iteration", "iteration", 1 },
		{ "series", "series", 0 },
		{ "t", "t (s)", 1 },
		{ "value", "value", 1 },
	};
	struct strbuf *b = &pg->body;
	struct rtab t;
	int plots = 0;

	h2(b, "series", "Time series");
	if (from == to) {
		strbuf_addstr(b, "<p class=\"note\">No time series were "
				 "reported for this run.</p>");
		return;
	}
	strbuf_addstr(b, "<div class=\"plots\">");
	/* Two passes: measured iterations, then warm-up ones. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = from; i < to;) {
			int iter = (int)id64(db_get(res, i, 1)), j = i,
			    warm = 0;

			while (j < to && id64(db_get(res, j, 1)) == iter)
				j++;
			for (int k = rfrom; k < rto; k++)
				if (id64(db_get(results, k, 2)) == iter &&
				    !strcmp(S(db_get(results, k, 3)), "t"))
					warm = 1;
			if (warm == pass && plots < MAX_SERIES_PLOTS)
				plots += series_plot(b, res, i, j, iter, warm,
						     0);
			if (warm == pass && plots < MAX_SERIES_PLOTS)
				plots += series_plot(b, res, i, j, iter, warm,
						     1);
			i = j;
		}
	}
	strbuf_addstr(b, "</div>");
	if (plots == MAX_SERIES_PLOTS)
		strbuf_addf(b,
			    "<p class=\"note\">Plots stop at %d per run; "
			    "every sample is in the table below.</p>",
			    MAX_SERIES_PLOTS);
	strbuf_addstr(b, "<details><summary>All samples as a table</summary>");
	rtab_begin(&t, pg, "samples", NULL, cols, (int)ARRAY_SIZE(cols));
	for (int k = from; k < to; k++) {
		rtab_row(&t, NULL);
		rtab_num(&t, num(db_get(res, k, 1)), NULL);
		rtab_str(&t, db_get(res, k, 2));
		rtab_num(&t, num(db_get(res, k, 3)), NULL);
		rtab_num(&t, num(db_get(res, k, 4)), NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, NULL);
	strbuf_addstr(b, "</details>");
}

/*
 * One batch of run pages: the results of its four statements, and where
 * the run whose page is being filled stands in them.
 */
struct run_batch {
	struct db_result *det, *res, *cnt, *smp;
	int i; /* the run's row of det */
	int rfrom, rto, cfrom, cto, sfrom, sto; /* its rows of res, cnt, smp */
};

/* The facts of the run at row i of det (pages_run_details()' columns). */
static void run_facts(struct strbuf *b, const struct db_result *det, int i)
{
	struct strbuf href = STRBUF_INIT, tmp = STRBUF_INIT;

	facts_begin(b);
	dl_item(b, "status", db_get(det, i, RC_STATUS));
	dl_item(b, "workload", db_get(det, i, RC_WORKLOAD));
	dl_item(b, "params", db_get(det, i, RC_PARAMS));
	dl_item(b, "boot", db_get(det, i, RC_BOOT));
	dl_item(b, "order in job", db_get(det, i, RC_SEQ));
	if (db_get(det, i, RC_JOB)) {
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "STP %s", db_get(det, i, RC_JOB));
		dl_item(b, "job", tmp.buf);
	}
	if (db_get(det, i, RC_PATCH)) {
		strbuf_reset(&href);
		strbuf_addf(&href, "patch-%lld.html",
			    (long long)id64(db_get(det, i, RC_PATCH)));
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "PLM %s: %s", db_get(det, i, RC_PATCH),
			    S(db_get(det, i, RC_PATCH_NAME)));
		dl_link(b, "patch", tmp.buf, href.buf);
	}
	if (db_get(det, i, RC_PLAN)) {
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%lld.html",
			    (long long)id64(db_get(det, i, RC_PLAN)));
		dl_link(b, "plan", db_get(det, i, RC_PLAN_NAME), href.buf);
	}
	if (!strcmp(S(db_get(det, i, RC_IMPORTED)), "t"))
		dl_item(b, "imported from", S(db_get(det, i, RC_SOURCE)));
	dl_item(b, "created", db_get(det, i, RC_CREATED));
	dl_item(b, "started", db_get(det, i, RC_STARTED));
	dl_item(b, "finished", db_get(det, i, RC_FINISHED));
	dl_item(b, "ingested", db_get(det, i, RC_INGESTED));
	dl_item(b, "error", db_get(det, i, RC_ERROR));
	facts_end(b);
	strbuf_release(&href);
	strbuf_release(&tmp);
}

/*
 * The "Kernel" section of the run at row i of det: its facts, its build
 * log written beside the page (kernel_log_file()), its vmlinux sizes.
 * Returns 0, or -1 with r->err filled when the log could not be read.
 */
static int run_kernel(struct report *r, struct page *pg,
		      const struct db_result *det, int i)
{
	struct strbuf href = STRBUF_INIT, tmp = STRBUF_INIT;
	struct strbuf *b = &pg->body;
	int rc = 0;

	h2(b, "kernel", "Kernel");
	facts_begin(b);
	dl_item(b, "name", db_get(det, i, RC_KNAME));
	dl_item(b, "base", db_get(det, i, RC_KBASE));
	dl_item(b, "release", db_get(det, i, RC_KRELEASE));
	dl_item(b, "build", db_get(det, i, RC_KSTATE));
	if (db_get(det, i, RC_KSECONDS)) {
		strbuf_reset(&tmp);
		fmt_value(&tmp, num(db_get(det, i, RC_KSECONDS)));
		strbuf_addstr(&tmp, " s");
		dl_item(b, "build time", tmp.buf);
	}
	if (!strcmp(S(db_get(det, i, RC_KHASLOG)), "t")) {
		int64_t kid = id64(db_get(det, i, RC_KERNEL));

		strbuf_reset(&href);
		strbuf_addf(&href, "kernel-%lld-build.txt", (long long)kid);
		dl_link(b, "build log", href.buf, href.buf);
		if (kernel_log_file(r, pg, kid) < 0) {
			rc = -1;
			goto out;
		}
	}
	facts_end(b);
	if (db_get(det, i, RC_KTEXT) || db_get(det, i, RC_KDATA) ||
	    db_get(det, i, RC_KBSS)) {
		strbuf_addstr(b, "<table class=\"data small\"><caption>size "
				 "vmlinux (bytes)</caption><thead><tr><th "
				 "class=\"num\">text</th><th class=\"num\">"
				 "data</th><th class=\"num\">bss</th></tr>"
				 "</thead><tbody><tr>");
		for (int c = RC_KTEXT; c <= RC_KBSS; c++)
			td_value(b, num(db_get(det, i, c)));
		strbuf_addstr(b, "</tr></tbody></table>");
	}
out:
	strbuf_release(&href);
	strbuf_release(&tmp);
	return rc;
}

/* The results table of a run: rows [rfrom, rto) of res
 * (pages_run_results()' columns). */
static void run_results(struct page *pg, const struct db_result *res, int rfrom,
			int rto)
{
	static const struct col rcols[] = {
		{ "iteration", "iteration", 1 },
		{ "warmup", "warm-up", 0 },
		{ "metric", "metric", 0 },
		{ "value", "value", 1 },
		{ "unit", "unit", 0 },
		{ "direction", "better", 0 },
		{ "n", "n", 1 },
		{ "stddev", "s.d.", 1 },
	};
	struct rtab t;

	h2(&pg->body, "results", "Results");
	rtab_begin(&t, pg, "results", NULL, rcols, (int)ARRAY_SIZE(rcols));
	for (int k = rfrom; k < rto; k++) {
		rtab_row(&t,
			 !strcmp(S(db_get(res, k, 3)), "t") ? "warmup" : NULL);
		rtab_num(&t, num(db_get(res, k, 2)), NULL);
		rtab_str(&t, !strcmp(S(db_get(res, k, 3)), "t") ? "yes" : "no");
		rtab_str(&t, db_get(res, k, 1));
		rtab_num(&t, num(db_get(res, k, 4)), NULL);
		rtab_str(&t, db_get(res, k, 5));
		rtab_str(&t, db_get(res, k, 6));
		rtab_num(&t, num(db_get(res, k, 7)), NULL);
		rtab_num(&t, num(db_get(res, k, 8)), NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no results");
}

/* Fill the page of the run at row bt->i of the batch (a page_fill_fn). */
static int fill_run(struct report *r, struct page *pg, void *ctx)
{
	const struct run_batch *bt = ctx;
	const struct db_result *det = bt->det, *res = bt->res;
	int i = bt->i, rfrom = bt->rfrom, rto = bt->rto;
	struct strbuf href = STRBUF_INIT;
	int64_t id = id64(db_get(det, i, RC_ID));
	struct strbuf *b = &pg->body;

	page_open(pg, "Run %lld: %s on %s", (long long)id,
		  S(db_get(det, i, RC_WORKLOAD)),
		  S(db_get(det, i, RC_HOST_NAME)));
	run_facts(b, det, i);

	h2(b, "host", "Host");
	facts_begin(b);
	strbuf_addf(&href, "host-%lld.html",
		    (long long)id64(db_get(det, i, RC_HOST)));
	dl_link(b, "name", db_get(det, i, RC_HOST_NAME), href.buf);
	strbuf_release(&href);
	dl_item(b, "kind", db_get(det, i, RC_HOST_KIND));
	dl_hardware(b, det, i, RC_SOCKETS);
	facts_end(b);

	if (run_kernel(r, pg, det, i) < 0)
		return -1;

	h2(b, "agent", "Agent");
	if (db_get(det, i, RC_AGENT)) {
		strbuf_addstr(b, "<pre class=\"json\">");
		strbuf_add_html(b, db_get(det, i, RC_AGENT));
		strbuf_addstr(b, "</pre>");
	} else
		strbuf_addstr(b, "<p class=\"note\">No agent information "
				 "(imported or not yet run).</p>");

	run_results(pg, res, rfrom, rto);
	if (!strcmp(S(db_get(det, i, RC_WORKLOAD)), "together"))
		render_together(pg, res, rfrom, rto);

	render_counters(pg, bt->cnt, bt->cfrom, bt->cto);
	render_samples(pg, bt->smp, bt->sfrom, bt->sto, res, rfrom, rto);

	h2(b, "console", "Console log");
	if (db_get(det, i, RC_CONSOLE))
		add_log(pg, "console", "console log",
			db_get(det, i, RC_CONSOLE));
	else
		strbuf_addstr(b, "<p class=\"note\">No console log.</p>");
	h2(b, "raw", "Agent lines as received");
	if (db_get(det, i, RC_RAW))
		add_log(pg, "agent", "agent lines", db_get(det, i, RC_RAW));
	else
		strbuf_addstr(b, "<p class=\"note\">No agent lines.</p>");
	return 0;
}

/* The n ids as a PostgreSQL array literal: {1,2,3}. */
static void ids_literal(struct strbuf *sb, const int64_t *ids, size_t n)
{
	strbuf_addch(sb, '{');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%lld", i ? "," : "", (long long)ids[i]);
	strbuf_addch(sb, '}');
}

/*
 * Render the pages of the n runs in ids (sorted; digests[k] is ids[k]'s
 * digest to record) from four statements for the whole batch.  Returns 0
 * or negative with r->err filled.
 */
static int render_run_batch(struct report *r, const int64_t *ids,
			    char **digests, size_t n)
{
	_cleanup_db_result_ struct db_result *det = NULL, *res = NULL,
					     *cnt = NULL, *smp = NULL;
	struct strbuf lit = STRBUF_INIT;
	struct run_batch bt;
	int rc, pr = 0, pc = 0, ps = 0;

	ids_literal(&lit, ids, n);
	rc = pages_run_details(r->db, lit.buf, &det, r->err);
	if (rc >= 0)
		rc = pages_run_results(r->db, lit.buf, &res, r->err);
	if (rc >= 0)
		rc = pages_run_counters(r->db, lit.buf, &cnt, r->err);
	if (rc >= 0)
		rc = pages_run_samples(r->db, lit.buf, &smp, r->err);
	strbuf_release(&lit);
	if (rc < 0)
		return rc;
	memset(&bt, 0, sizeof(bt));
	bt.det = det;
	bt.res = res;
	bt.cnt = cnt;
	bt.smp = smp;
	for (int i = 0; i < db_nrows(det) && rc >= 0; i++) {
		int64_t id = id64(db_get(det, i, RC_ID));
		struct strbuf stem = STRBUF_INIT;
		const char *dg = NULL;

		for (size_t k = 0; k < n; k++)
			if (ids[k] == id)
				dg = digests[k];
		bt.i = i;
		slice(res, &pr, id, &bt.rfrom, &bt.rto);
		slice(cnt, &pc, id, &bt.cfrom, &bt.cto);
		slice(smp, &ps, id, &bt.sfrom, &bt.sto);
		strbuf_addf(&stem, "run-%lld", (long long)id);
		rc = page_render(r, stem.buf, dg, fill_run, &bt);
		strbuf_release(&stem);
	}
	return rc;
}

/*
 * Write the stale run pages (runs created from --since on), a batch of
 * RUN_BATCH at a time.  Returns 0 or negative with r->err filled.
 */
int write_run_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *fp = NULL;
	int64_t ids[RUN_BATCH];
	char *digests[RUN_BATCH];
	size_t n = 0;
	int rc;

	rc = pages_runs(r->db, r->o->since, &fp, r->err);
	if (rc < 0)
		return rc;
	for (int i = 0; i <= db_nrows(fp) && rc >= 0; i++) {
		if (i < db_nrows(fp)) {
			struct strbuf name = STRBUF_INIT;
			char *dg;

			strbuf_addf(&name, "run-%s.html", db_get(fp, i, 0));
			if (page_stale(r, name.buf, db_get(fp, i, 1), &dg)) {
				ids[n] = id64(db_get(fp, i, 0));
				digests[n++] = dg;
			}
			strbuf_release(&name);
		}
		if (n && (n == RUN_BATCH || i == db_nrows(fp))) {
			rc = render_run_batch(r, ids, digests, n);
			for (size_t k = 0; k < n; k++)
				free(digests[k]);
			n = 0;
		}
	}
	for (size_t k = 0; k < n; k++)
		free(digests[k]);
	return rc;
}
