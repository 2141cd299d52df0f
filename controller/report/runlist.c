/*
 * runlist.c - the pages that list runs: host pages and plan pages, and
 * the archive pages of their older runs.
 *
 * Every run is loaded once per report as a listing shows it, with a hash
 * per row of what it shows (runlist_load()).  A host or plan page is a
 * struct run_owner kind (page_host.c, page_plan.c): its own part on top,
 * then its runs cut into blocks of RUNS_PER_BLOCK counted from the
 * oldest, the newest block on the page and each older block on an archive
 * page prefix-ID-pK.html.  A page's fingerprint covers only the block it
 * shows, so one new run rewrites the owner's page, not its archives.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "store/pages.h"
#include "report/page.h"
#include "banned.h"

/*
 * Load every run into rl (pages_runlist(), oldest first) with a hash per row
 * of what a listing shows of it.  Returns 0 or negative with r->err
 * filled; either way the caller frees rl with runlist_release().
 */
int runlist_load(struct report *r, struct runlist *rl)
{
	int rc = pages_runlist(r->db, &rl->res, r->err), n;

	if (rc < 0)
		return rc;
	n = db_nrows(rl->res);
	rl->hash = xcalloc((size_t)n + 1, sizeof(*rl->hash));
	for (int i = 0; i < n; i++) {
		uint64_t h = 0xcbf29ce484222325ULL;

		for (int c = 0; c <= RL_PLAN_NAME; c++) {
			const char *v = S(db_get(rl->res, i, c));

			h = fnv1a(h, v, strlen(v));
			h = fnv1a(h, "\x1f", 1);
		}
		rl->hash[i] = h;
	}
	return 0;
}

/* Free what runlist_load() filled in; rl may be all NULL. */
void runlist_release(struct runlist *rl)
{
	db_result_free(rl->res);
	free(rl->hash);
}

/* The rows of rl whose column col equals owner, in id order. */
static int *runlist_select(const struct runlist *rl, int col, int64_t owner,
			   int *ret_n)
{
	int n = db_nrows(rl->res), k = 0;
	int *idx = xcalloc((size_t)n + 1, sizeof(int));

	for (int i = 0; i < n; i++)
		if (db_get(rl->res, i, col) &&
		    id64(db_get(rl->res, i, col)) == owner)
			idx[k++] = i;
	*ret_n = k;
	return idx;
}

/* Fingerprint text of rows idx[from..to). */
static void runlist_fp(const struct runlist *rl, const int *idx, int from,
		       int to, struct strbuf *out)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = from; i < to; i++) {
		char b[17];

		snprintf(b, sizeof(b), "%016llx",
			 (unsigned long long)rl->hash[idx[i]]);
		h = fnv1a(h, b, 16);
	}
	strbuf_addf(out, "%d:%d:%016llx", from, to, (unsigned long long)h);
}

/*
 * A table of the runs idx[from..to), newest first, into pg under name.
 * by_host says whether the other column is the host (plan pages) or the
 * plan (host pages).
 */
static void runlist_table(struct page *pg, const struct runlist *rl,
			  const int *idx, int from, int to, const char *name,
			  int by_host)
{
	static const struct col cols_h[] = {
		{ "run", "run", 1 },	   { "created", "created (UTC)", 0 },
		{ "kernel", "kernel", 0 }, { "workload", "workload", 0 },
		{ "params", "params", 0 }, { "status", "status", 0 },
		{ "stp_id", "STP id", 1 }, { "plm", "PLM#", 1 },
		{ "host", "host", 0 },
	};
	static const struct col cols_p[] = {
		{ "run", "run", 1 },	   { "created", "created (UTC)", 0 },
		{ "kernel", "kernel", 0 }, { "workload", "workload", 0 },
		{ "params", "params", 0 }, { "status", "status", 0 },
		{ "stp_id", "STP id", 1 }, { "plm", "PLM#", 1 },
		{ "plan", "plan", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	const struct db_result *res = rl->res;
	struct rtab t;

	rtab_begin(&t, pg, name, NULL, by_host ? cols_h : cols_p,
		   (int)ARRAY_SIZE(cols_h));
	for (int k = to; k-- > from;) {
		int i = idx[k];

		rtab_row(&t, NULL);
		strbuf_reset(&href);
		strbuf_addf(&href, "run-%s.html", db_get(res, i, RL_ID));
		rtab_link(&t, db_get(res, i, RL_ID), href.buf);
		rtab_str(&t, db_get(res, i, RL_CREATED));
		rtab_str(&t, db_get(res, i, RL_KERNEL));
		rtab_str(&t, db_get(res, i, RL_WORKLOAD));
		rtab_str(&t, db_get(res, i, RL_PARAMS));
		rtab_str(&t, db_get(res, i, RL_STATUS));
		rtab_str(&t, db_get(res, i, RL_JOB));
		if (db_get(res, i, RL_PATCH)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "patch-%s.html",
				    db_get(res, i, RL_PATCH));
			rtab_link(&t, db_get(res, i, RL_PATCH), href.buf);
		} else
			rtab_str(&t, NULL);
		strbuf_reset(&href);
		if (by_host) {
			strbuf_addf(&href, "host-%s.html",
				    db_get(res, i, RL_HOST));
			rtab_link(&t, db_get(res, i, RL_HOST_NAME), href.buf);
		} else if (db_get(res, i, RL_PLAN)) {
			strbuf_addf(&href, "plan-%s.html",
				    db_get(res, i, RL_PLAN));
			rtab_link(&t, db_get(res, i, RL_PLAN_NAME), href.buf);
		} else
			rtab_str(&t, NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no runs");
	strbuf_release(&href);
}

/*
 * The "Runs" section of a host or plan page: how many runs idx (n of them)
 * holds, the newest block as a table (by_host: with a host column), and
 * links to the archive pages of the older blocks, named after stem.
 */
static void runs_section(struct page *pg, const struct runlist *rl,
			 const int *idx, int n, const char *stem, int by_host)
{
	struct strbuf *b = &pg->body;

	h2(b, "runs", "Runs");
	strbuf_addf(b, "<p>%d run%s in all; the newest here.</p>", n,
		    n == 1 ? "" : "s");
	runlist_table(pg, rl, idx, front_start(n, RUNS_PER_BLOCK), n, "runs",
		      by_host);
	archive_links(b, stem, n / RUNS_PER_BLOCK, RUNS_PER_BLOCK, "runs");
}

/*
 * One page of a run_owner kind and, for its archive pages, one block of
 * its runs: what fill_owner() and fill_run_archive() need.
 */
struct owner_page {
	const struct run_owner *kind;
	const struct db_result *res; /* the kind's statement */
	int row; /* the host or plan */
	const struct runlist *rl;
	int *idx, n; /* its runs: rows of rl, oldest first */
	const char *stem; /* of the owner's page: host-ID */
	const char *back; /* its title: "Host NAME" */
	int nfull, k; /* full blocks of runs; the archive page being filled */
};

/* Fill the page of a host or plan (a page_fill_fn). */
static int fill_owner(struct report *r, struct page *pg, void *ctx)
{
	const struct owner_page *op = ctx;
	int rc;

	page_open(pg, "%s", op->back);
	rc = op->kind->body(r, pg, op->res, op->row);
	if (rc >= 0)
		runs_section(pg, op->rl, op->idx, op->n, op->stem,
			     op->kind->by_host);
	return rc;
}

/* Fill archive page op->k of a host's or plan's runs (a page_fill_fn). */
static int fill_run_archive(struct report *r, struct page *pg, void *ctx)
{
	const struct owner_page *op = ctx;

	(void)r;
	page_open(pg, "%s: runs, page %d", op->back, op->k);
	strbuf_addf(&pg->body, "<p><a href=\"%s.html\">", op->stem);
	strbuf_add_html(&pg->body, op->back);
	strbuf_addstr(&pg->body, "</a></p>");
	archive_links(&pg->body, op->stem, op->nfull, RUNS_PER_BLOCK, "runs");
	runlist_table(pg, op->rl, op->idx, (op->k - 1) * RUNS_PER_BLOCK,
		      op->k * RUNS_PER_BLOCK, "runs", op->kind->by_host);
	return 0;
}

/*
 * The pages of a host or plan (op->row): its own page, then the archive
 * pages of its older blocks of runs, each rendered when stale.  A page's
 * fingerprint is the kind's own (from its statement) with what the
 * listing on it shows of its runs.
 */
static int write_owner(struct report *r, struct owner_page *op)
{
	struct strbuf fp = STRBUF_INIT;
	int rc;

	strbuf_addf(&fp, "%s|%d|",
		    S(db_get(op->res, op->row, op->kind->fp_col)), op->n);
	runlist_fp(op->rl, op->idx, front_start(op->n, RUNS_PER_BLOCK), op->n,
		   &fp);
	rc = page_refresh(r, op->stem, fp.buf, fill_owner, op);
	for (op->k = 1; rc >= 0 && op->k <= op->nfull; op->k++) {
		struct strbuf stem = STRBUF_INIT;

		strbuf_reset(&fp);
		strbuf_addf(&stem, "%s-p%d", op->stem, op->k);
		runlist_fp(op->rl, op->idx, (op->k - 1) * RUNS_PER_BLOCK,
			   op->k * RUNS_PER_BLOCK, &fp);
		rc = page_refresh(r, stem.buf, fp.buf, fill_run_archive, op);
		strbuf_release(&stem);
	}
	strbuf_release(&fp);
	return rc;
}

/*
 * Write the pages of every host or plan kind->load() gives (with --since): each
 * one's page and archive pages, as write_owner() does.  Returns 0 or
 * negative with r->err filled.
 */
int write_run_owner_pages(struct report *r, const struct runlist *rl,
			  const struct run_owner *kind)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rc;

	rc = kind->load(r->db, r->o->since, &res, r->err);
	for (int i = 0; rc >= 0 && i < db_nrows(res); i++) {
		int64_t id = id64(db_get(res, i, 0));
		struct strbuf stem = STRBUF_INIT, back = STRBUF_INIT;
		struct owner_page op = {
			.kind = kind, .res = res, .row = i, .rl = rl
		};

		op.idx = runlist_select(rl, kind->rl_col, id, &op.n);
		op.nfull = op.n / RUNS_PER_BLOCK;
		strbuf_addf(&stem, "%s-%lld", kind->prefix, (long long)id);
		strbuf_addf(&back, "%s %s", kind->title, S(db_get(res, i, 1)));
		op.stem = stem.buf;
		op.back = back.buf;
		rc = write_owner(r, &op);
		free(op.idx);
		strbuf_release(&stem);
		strbuf_release(&back);
	}
	return rc;
}
