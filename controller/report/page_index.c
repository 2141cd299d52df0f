/*
 * page_index.c - index.html, rendered every time: the queue, the newest
 * patches with their verdict counts, kernel pairs compared without a
 * patch, hosts, plans and the newest INDEX_CHANGES change points.  The
 * patch listing is cut into blocks of PATCHES_PER_BLOCK counted from the
 * oldest; older blocks are archive pages patches-pK.html, rendered when
 * stale like any other page.  Every change point, and the metrics with a
 * history (linking their pages), are on changes.html, rendered when what
 * it shows changed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "analysis/changes.h"
#include "store/db.h"
#include "store/pages.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "banned.h"

/* Items per listing block (archive page). */
#define PATCHES_PER_BLOCK 50

/* The newest change points the index shows; changes.html has them all. */
#define INDEX_CHANGES 5

/* Columns of pages_index_patches() (store/pages.h). */
enum {
	PS_ID,
	PS_NAME,
	PS_SUBMITTER,
	PS_BASE,
	PS_STATE,
	PS_REGR,
	PS_IMPR,
	PS_CHG,
	PS_NCMP,
	PS_CREATED,
};

/* Patches rows [from, to) of ps, newest first, as a table into pg. */
static void patch_table(struct page *pg, const struct db_result *ps, int from,
			int to, const char *name)
{
	static const struct col cols[] = {
		{ "plm", "PLM#", 1 },
		{ "name", "name", 0 },
		{ "submitter", "submitter", 0 },
		{ "base", "base", 0 },
		{ "state", "jobs", 0 },
		{ "regressions", "regressions", 1 },
		{ "improvements", "improvements", 1 },
		{ "changed", "changed (no direction)", 1 },
		{ "comparisons", "comparisons", 1 },
		{ "submitted", "submitted (UTC)", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;

	rtab_begin(&t, pg, name, NULL, cols, (int)ARRAY_SIZE(cols));
	for (int i = to; i-- > from;) {
		const char *cls = NULL;

		if (id64(db_get(ps, i, PS_REGR)) > 0)
			cls = "v-regression";
		else if (id64(db_get(ps, i, PS_IMPR)) > 0)
			cls = "v-improvement";
		rtab_row(&t, cls);
		strbuf_reset(&href);
		strbuf_addf(&href, "patch-%s.html", db_get(ps, i, PS_ID));
		rtab_link(&t, db_get(ps, i, PS_ID), href.buf);
		rtab_link(&t, db_get(ps, i, PS_NAME), href.buf);
		rtab_str(&t, db_get(ps, i, PS_SUBMITTER));
		rtab_str(&t, db_get(ps, i, PS_BASE));
		rtab_str(&t, db_get(ps, i, PS_STATE));
		rtab_num(&t, num(db_get(ps, i, PS_REGR)), NULL);
		rtab_num(&t, num(db_get(ps, i, PS_IMPR)), NULL);
		rtab_num(&t, num(db_get(ps, i, PS_CHG)), NULL);
		rtab_num(&t, num(db_get(ps, i, PS_NCMP)), NULL);
		rtab_str(&t, db_get(ps, i, PS_CREATED));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no patches submitted yet");
	strbuf_release(&href);
}

/* An archive page of the patch listing, for fill_patch_archive(). */
struct patch_archive {
	const struct db_result *ps;
	int nfull, k;
};

/* Fill archive page k of the patch listing (a page_fill_fn). */
static int fill_patch_archive(struct report *r, struct page *pg, void *ctx)
{
	const struct patch_archive *ar = ctx;

	(void)r;
	page_open(pg, "Patches, page %d", ar->k);
	archive_links(&pg->body, "patches", ar->nfull, PATCHES_PER_BLOCK,
		      "patches");
	patch_table(pg, ar->ps, (ar->k - 1) * PATCHES_PER_BLOCK,
		    ar->k * PATCHES_PER_BLOCK, "patches");
	return 0;
}

/*
 * Write the stale archive pages of the patch listing ps; a block's
 * fingerprint is what its rows show.  Returns 0 or negative with r->err
 * filled.
 */
static int write_patch_archives(struct report *r, const struct db_result *ps)
{
	struct patch_archive ar = { ps, db_nrows(ps) / PATCHES_PER_BLOCK, 0 };
	int rc = 0;

	for (ar.k = 1; ar.k <= ar.nfull && rc >= 0; ar.k++) {
		struct strbuf stem = STRBUF_INIT, fp = STRBUF_INIT;
		int from = (ar.k - 1) * PATCHES_PER_BLOCK,
		    to = ar.k * PATCHES_PER_BLOCK;

		strbuf_addf(&stem, "patches-p%d", ar.k);
		for (int i = from; i < to; i++)
			for (int c = 0; c <= PS_CREATED; c++)
				strbuf_addf(&fp, "%s\x1f", S(db_get(ps, i, c)));
		rc = page_refresh(r, stem.buf, fp.buf, fill_patch_archive, &ar);
		strbuf_release(&stem);
		strbuf_release(&fp);
	}
	return rc;
}

/* What the index shows: the results of its statements. */
struct index_data {
	struct db_result *queue, *nq, *ps, *pairs, *hosts, *plans, *metrics;
	struct changes_rows cps; /* every change point, newest first */
};

/*
 * Run the index's statements into d (zeroed first), all of them before
 * anything of the index is written.  Returns 0 or negative with r->err
 * filled; either way the caller releases d with index_data_release().
 */
static int index_data_load(struct report *r, struct index_data *d)
{
	int rc;

	memset(d, 0, sizeof(*d));
	rc = pages_index_queue(r->db, &d->queue, r->err);
	if (rc >= 0)
		rc = pages_index_queue_count(r->db, &d->nq, r->err);
	if (rc >= 0)
		rc = pages_index_patches(r->db, &d->ps, r->err);
	if (rc >= 0)
		rc = pages_index_pairs(r->db, &d->pairs, r->err);
	if (rc >= 0)
		rc = pages_index_hosts(r->db, &d->hosts, r->err);
	if (rc >= 0)
		rc = pages_index_plans(r->db, &d->plans, r->err);
	if (rc >= 0)
		rc = pages_index_metrics(r->db, &d->metrics, r->err);
	if (rc >= 0) {
		struct changes_query all = { 0 };

		rc = changes_list(r->db, &all, &d->cps, r->err);
	}
	return rc;
}

/* Free what index_data_load() filled in, loaded or not. */
static void index_data_release(struct index_data *d)
{
	db_result_free(d->queue);
	db_result_free(d->nq);
	db_result_free(d->ps);
	db_result_free(d->pairs);
	db_result_free(d->hosts);
	db_result_free(d->plans);
	db_result_free(d->metrics);
	changes_rows_release(&d->cps);
}

/* The jobs waiting or running, the first 200 by priority; how many
 * there are is said above the table unless there are none, which the
 * table's own empty row says. */
static void queue_section(struct page *pg, const struct db_result *queue,
			  const struct db_result *nq)
{
	static const struct col qcols[] = {
		{ "stp_id", "STP id", 1 },	 { "plm", "PLM#", 1 },
		{ "patch", "patch", 0 },	 { "kernel", "kernel", 0 },
		{ "plan", "plan", 0 },		 { "host", "host", 0 },
		{ "state", "state", 0 },	 { "priority", "priority", 1 },
		{ "queued", "queued (UTC)", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct strbuf *b = &pg->body;
	struct rtab t;

	h2(b, "queue", "Queue");
	if (id64(db_get(nq, 0, 0)) > 0)
		strbuf_addf(b, "<p>%s job%s waiting or running%s.</p>",
			    S(db_get(nq, 0, 0)),
			    strcmp(S(db_get(nq, 0, 0)), "1") ? "s" : "",
			    db_nrows(queue) < (int)id64(db_get(nq, 0, 0))
				    ? "; the first 200 by priority"
				    : "");
	rtab_begin(&t, pg, "queue", NULL, qcols, (int)ARRAY_SIZE(qcols));
	for (int i = 0; i < db_nrows(queue); i++) {
		rtab_row(&t, NULL);
		rtab_str(&t, db_get(queue, i, 0));
		if (db_get(queue, i, 1)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "patch-%s.html",
				    db_get(queue, i, 1));
			rtab_link(&t, db_get(queue, i, 1), href.buf);
			rtab_link(&t, db_get(queue, i, 2), href.buf);
		} else {
			rtab_str(&t, NULL);
			rtab_str(&t, NULL);
		}
		rtab_str(&t, db_get(queue, i, 3));
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%s.html", db_get(queue, i, 5));
		rtab_link(&t, db_get(queue, i, 4), href.buf);
		if (db_get(queue, i, 7)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "host-%s.html", db_get(queue, i, 7));
			rtab_link(&t, db_get(queue, i, 6), href.buf);
		} else
			rtab_str(&t, db_get(queue, i, 6));
		rtab_str(&t, db_get(queue, i, 8));
		rtab_num(&t, num(db_get(queue, i, 9)), NULL);
		rtab_str(&t, db_get(queue, i, 10));
		rtab_end_row(&t);
	}
	rtab_end(&t, "the queue is empty");
	strbuf_release(&href);
}

/* The newest block of patches; older blocks are on patches-pK.html. */
static void patches_section(struct page *pg, const struct db_result *ps)
{
	struct strbuf *b = &pg->body;
	int n = db_nrows(ps);

	h2(b, "patches", "Patches, newest first");
	patch_table(pg, ps, front_start(n, PATCHES_PER_BLOCK), n, "patches");
	archive_links(b, "patches", n / PATCHES_PER_BLOCK, PATCHES_PER_BLOCK,
		      "patches");
}

/* Kernel pairs compared without a patch, newest first. */
static void kernels_section(struct page *pg, const struct db_result *pairs)
{
	static const struct col kcols[] = {
		{ "new", "new kernel", 0 },
		{ "base", "base kernel", 0 },
		{ "regressions", "regressions", 1 },
		{ "improvements", "improvements", 1 },
		{ "changed", "changed (no direction)", 1 },
		{ "comparisons", "comparisons", 1 },
		{ "computed", "latest (UTC)", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;

	h2(&pg->body, "kernels", "Kernel comparisons without a patch");
	rtab_begin(&t, pg, "kernels", NULL, kcols, (int)ARRAY_SIZE(kcols));
	for (int i = 0; i < db_nrows(pairs); i++) {
		const char *cls = NULL;

		if (id64(db_get(pairs, i, 4)) > 0)
			cls = "v-regression";
		else if (id64(db_get(pairs, i, 5)) > 0)
			cls = "v-improvement";
		rtab_row(&t, cls);
		strbuf_reset(&href);
		strbuf_addf(&href, "compare-%s-%s.html", db_get(pairs, i, 0),
			    db_get(pairs, i, 1));
		rtab_link(&t, db_get(pairs, i, 2), href.buf);
		rtab_str(&t, db_get(pairs, i, 3));
		rtab_num(&t, num(db_get(pairs, i, 4)), NULL);
		rtab_num(&t, num(db_get(pairs, i, 5)), NULL);
		rtab_num(&t, num(db_get(pairs, i, 6)), NULL);
		rtab_num(&t, num(db_get(pairs, i, 7)), NULL);
		rtab_str(&t, db_get(pairs, i, 8));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no kernel comparisons yet");
	strbuf_release(&href);
}

/* Every host with its health and how many runs it has. */
static void hosts_section(struct page *pg, const struct db_result *hosts)
{
	static const struct col hcols[] = {
		{ "host", "host", 0 },	   { "kind", "kind", 0 },
		{ "health", "health", 0 }, { "cpus", "CPUs", 1 },
		{ "runs", "runs", 1 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;

	h2(&pg->body, "hosts", "Hosts");
	rtab_begin(&t, pg, "hosts", NULL, hcols, (int)ARRAY_SIZE(hcols));
	for (int i = 0; i < db_nrows(hosts); i++) {
		const char *hl = db_get(hosts, i, 3);

		rtab_row(&t, health_class(hl));
		strbuf_reset(&href);
		strbuf_addf(&href, "host-%s.html", db_get(hosts, i, 0));
		rtab_link(&t, db_get(hosts, i, 1), href.buf);
		rtab_str(&t, db_get(hosts, i, 2));
		rtab_str(&t, hl);
		rtab_num(&t, num(db_get(hosts, i, 4)), NULL);
		rtab_num(&t, num(db_get(hosts, i, 5)), NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no hosts registered");
	strbuf_release(&href);
}

/* Every stored plan with how many runs were made from it. */
static void plans_section(struct page *pg, const struct db_result *plans)
{
	static const struct col pcols[] = {
		{ "plan", "plan", 0 },
		{ "sha256", "sha256", 0 },
		{ "runs", "runs", 1 },
		{ "stored", "stored (UTC)", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;

	h2(&pg->body, "plans", "Plans");
	rtab_begin(&t, pg, "plans", NULL, pcols, (int)ARRAY_SIZE(pcols));
	for (int i = 0; i < db_nrows(plans); i++) {
		rtab_row(&t, NULL);
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%s.html", db_get(plans, i, 0));
		rtab_link(&t, db_get(plans, i, 1), href.buf);
		rtab_str(&t, db_get(plans, i, 2));
		rtab_num(&t, num(db_get(plans, i, 3)), NULL);
		rtab_str(&t, db_get(plans, i, 4));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no plans stored");
	strbuf_release(&href);
}

/* The metrics with a history: their pages, series and change points. */
static void metrics_section(struct page *pg, const struct db_result *m)
{
	static const struct col mcols[] = {
		{ "metric", "metric", 0 },
		{ "hosts", "hosts", 1 },
		{ "series", "series", 1 },
		{ "change_points", "change points", 1 },
		{ "latest", "latest change (UTC)", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;

	h2(&pg->body, "metrics", "Change points per metric");
	rtab_begin(&t, pg, "metrics", NULL, mcols, (int)ARRAY_SIZE(mcols));
	for (int i = 0; i < db_nrows(m); i++) {
		rtab_row(&t, NULL);
		strbuf_reset(&href);
		metric_page_stem(db_get(m, i, 0), &href);
		strbuf_addstr(&href, ".html");
		rtab_link(&t, db_get(m, i, 0), href.buf);
		rtab_num(&t, num(db_get(m, i, 1)), NULL);
		rtab_num(&t, num(db_get(m, i, 2)), NULL);
		rtab_num(&t, num(db_get(m, i, 3)), NULL);
		rtab_str(&t, db_get(m, i, 4));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no history yet");
	strbuf_release(&href);
}

/* The newest INDEX_CHANGES change points of cps, and a link to all. */
static void latest_changes_section(struct page *pg,
				   const struct changes_rows *cps)
{
	struct strbuf *b = &pg->body;

	h2(b, "history", "Latest change points");
	changes_table(pg, "changes", cps->v,
		      cps->nr < INDEX_CHANGES ? cps->nr : INDEX_CHANGES,
		      "no change points yet", 1);
	strbuf_addf(b,
		    "<p class=\"pages\"><a href=\"changes.html\">all %zu "
		    "change point%s</a>, and the history of each metric</p>",
		    cps->nr, cps->nr == 1 ? "" : "s");
}

/* Fill changes.html from the index_data ctx (a page_fill_fn). */
static int fill_changes(struct report *r, struct page *pg, void *ctx)
{
	const struct index_data *d = ctx;
	struct strbuf *b = &pg->body;

	(void)r;
	page_open(pg, "Change points");
	strbuf_addf(b,
		    "<p class=\"note\">%zu change point%s in the history "
		    "of the kernels that are not a patch's, newest first; "
		    "each metric's page plots its series with them marked. "
		    "<code>schedfarm changes</code> lists them.</p>",
		    d->cps.nr, d->cps.nr == 1 ? "" : "s");
	metrics_section(pg, d->metrics);
	h2(b, "changes", "Every change point");
	changes_table(pg, "changes", d->cps.v, d->cps.nr,
		      "no change points yet", 1);
	return 0;
}

/*
 * Write changes.html when stale; its fingerprint is what it shows: the
 * metric rows and every change point.  With --since (r->o->since) it is
 * looked at only when a change point was measured from then on, as the
 * other pages are only when something of theirs is new.  Returns 0 or
 * negative with r->err filled.
 */
static int write_changes_page(struct report *r, struct index_data *d)
{
	struct strbuf fp = STRBUF_INIT;
	int rc;

	if (r->o->since) {
		struct changes_query q = { .since = r->o->since, .limit = 1 };
		struct changes_rows recent;
		size_t n;

		if (changes_list(r->db, &q, &recent, r->err) < 0)
			return -1;
		n = recent.nr;
		changes_rows_release(&recent);
		if (!n)
			return 0;
	}

	for (int i = 0; i < db_nrows(d->metrics); i++)
		for (int c = 0; c < 5; c++)
			strbuf_addf(&fp, "%s\x1f", S(db_get(d->metrics, i, c)));
	for (size_t i = 0; i < d->cps.nr; i++) {
		const struct changes_row *c = &d->cps.v[i];

		strbuf_addf(&fp,
			    "\x1e%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f"
			    "%s\x1f%s\x1f%.17g\x1f%.17g\x1f%.17g\x1f%.17g\x1f"
			    "%.17g",
			    S(c->at), S(c->host), S(c->workload),
			    S(c->params_text), S(c->metric), S(c->unit),
			    S(c->kernel_before), S(c->kernel_after),
			    c->direction, c->mean_before, c->mean_after,
			    c->shift, c->pct_shift, c->p);
	}
	rc = page_refresh(r, "changes", fp.buf, fill_changes, d);
	strbuf_release(&fp);
	return rc;
}

/* Fill index.html from the index_data ctx (a page_fill_fn). */
static int fill_index(struct report *r, struct page *pg, void *ctx)
{
	const struct index_data *d = ctx;
	struct strbuf *b = &pg->body;

	/* The index is the nav line's root: no crumb, and a heading shorter
	 * than its title, so it does not use page_open(). */
	strbuf_addstr(&pg->title, "schedfarm: queue and latest patches");
	nav(b, NULL);
	strbuf_addstr(b, "<h1>Queue and latest patches</h1>");
	if (r->o->now) {
		strbuf_addstr(b, "<p class=\"generated\">Generated ");
		strbuf_add_html(b, r->o->now);
		strbuf_addstr(b, ".</p>");
	}
	queue_section(pg, d->queue, d->nq);
	patches_section(pg, d->ps);
	kernels_section(pg, d->pairs);
	hosts_section(pg, d->hosts);
	plans_section(pg, d->plans);
	latest_changes_section(pg, &d->cps);
	return 0;
}

/*
 * Write index.html, rendered every time, and the archive pages of its
 * patch listing and changes.html (before it, when stale).  Returns 0 or
 * negative with r->err filled.
 */
int write_index(struct report *r)
{
	struct index_data d;
	int rc;

	rc = index_data_load(r, &d);
	if (rc >= 0)
		rc = write_patch_archives(r, d.ps);
	if (rc >= 0)
		rc = write_changes_page(r, &d);
	if (rc >= 0)
		rc = page_render(r, "index", NULL, fill_index, &d);
	index_data_release(&d);
	return rc;
}
