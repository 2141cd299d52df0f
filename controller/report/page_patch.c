/*
 * page_patch.c - patch pages (patch-ID.html): the patch (PLM#), its jobs
 * (STP ids), and the comparison body of its base and patched kernels
 * (comparison.c).  A patch page depends on the patch, its jobs, their
 * runs and the comparisons stored for it or its kernel pair: a
 * base-kernel run made for another patch reaches it with the next
 * `schedfarm compare`, so one new run rewrites a handful of pages, not
 * every patch on that base.  The answer (state, verdict, headline) and
 * the bisections of the patch are part of the page and its fingerprint.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/answer_account.h"
#include "store/db.h"
#include "store/lists.h"
#include "store/pages.h"
#include "time-util.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "banned.h"

static int render_patch_bisections(struct report *r, struct page *pg,
				   int64_t id);
static int render_patch_phases(struct report *r, struct page *pg, int64_t id);
static int render_patch_origin(struct report *r, struct page *pg, int64_t id);

/* A patch page being filled: its row of pages_patches(). */
struct patch_page {
	const struct db_result *p;
	int i;
};

/* Fill the page of patch row pp->i (a page_fill_fn). */
static int fill_patch(struct report *r, struct page *pg, void *ctx)
{
	const struct patch_page *pp = ctx;
	const struct db_result *p = pp->p;
	int i = pp->i;
	_cleanup_db_result_ struct db_result *jobs = NULL;
	static const struct col jcols[] = {
		{ "stp_id", "STP id", 1 },
		{ "state", "state", 0 },
		{ "kernel", "kernel", 0 },
		{ "plan", "plan", 0 },
		{ "host", "host", 0 },
		{ "attempts", "attempts", 1 },
		{ "created", "created (UTC)", 0 },
		{ "finished", "finished (UTC)", 0 },
		{ "stop_reason", "why it stopped", 0 },
		{ "error", "error", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	int64_t id = id64(db_get(p, i, 0));
	struct strbuf *b = &pg->body;
	int rc;
	struct rtab t;

	rc = pages_patch_jobs(r->db, id, &jobs, r->err);
	if (rc < 0)
		return rc;
	page_open(pg, "PLM %lld: %s", (long long)id, S(db_get(p, i, 1)));
	facts_begin(b);
	dl_item(b, "PLM#", db_get(p, i, 0));
	dl_item(b, "name", db_get(p, i, 1));
	dl_item(b, "submitter", db_get(p, i, 2));
	dl_item(b, "base", db_get(p, i, 3));
	dl_item(b, "patches in the series", db_get(p, i, 4));
	dl_item(b, "series sha256", db_get(p, i, 5));
	dl_item(b, "submitted", db_get(p, i, 6));
	dl_item(b, "base kernel", db_get(p, i, 8));
	dl_item(b, "patched kernel", db_get(p, i, 10));
	if (!strcmp(S(db_get(p, i, 12)), "t"))
		dl_item(b, "how it was made",
			"labelled, not built: the name given with --kernel to "
			"what a local or ssh host runs; the farm did not apply "
			"the series, build or boot it");
	dl_item(b, "mail to", db_get(p, i, 18));
	if (strcmp(S(db_get(p, i, 13)), "none")) {
		struct strbuf ans = STRBUF_INIT;

		strbuf_addstr(&ans, S(db_get(p, i, 13)));
		if (db_get(p, i, 14))
			strbuf_addf(&ans, ": %s", db_get(p, i, 14));
		dl_item(b, "answer", ans.buf);
		dl_item(b, "headline", db_get(p, i, 15));
		dl_item(b, "note", db_get(p, i, 16));
		dl_item(b, "base runs", db_get(p, i, 19));
		dl_item(b, "answered (UTC)", db_get(p, i, 17));
		strbuf_release(&ans);
	}
	facts_end(b);
	rc = render_patch_origin(r, pg, id);
	if (rc < 0)
		return rc;
	rc = render_patch_bisections(r, pg, id);
	if (rc < 0)
		return rc;
	rc = render_patch_phases(r, pg, id);
	if (rc < 0)
		return rc;

	h2(b, "jobs", "Jobs");
	rtab_begin(&t, pg, "jobs", NULL, jcols, (int)ARRAY_SIZE(jcols));
	for (int k = 0; k < db_nrows(jobs); k++) {
		rtab_row(&t, !strcmp(S(db_get(jobs, k, 1)), "failed")
				     ? "v-regression"
				     : NULL);
		rtab_str(&t, db_get(jobs, k, 0));
		rtab_str(&t, db_get(jobs, k, 1));
		rtab_str(&t, db_get(jobs, k, 2));
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%s.html", db_get(jobs, k, 4));
		rtab_link(&t, db_get(jobs, k, 3), href.buf);
		if (db_get(jobs, k, 6)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "host-%s.html", db_get(jobs, k, 6));
			rtab_link(&t, db_get(jobs, k, 5), href.buf);
		} else
			rtab_str(&t, db_get(jobs, k, 5));
		rtab_num(&t, num(db_get(jobs, k, 7)), NULL);
		rtab_str(&t, db_get(jobs, k, 8));
		rtab_str(&t, db_get(jobs, k, 9));
		rtab_str(&t, db_get(jobs, k, 10));
		rtab_str(&t, db_get(jobs, k, 11));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no jobs");

	if (!db_get(p, i, 7) || !db_get(p, i, 9))
		strbuf_addstr(b, "<p class=\"note\">The patched kernel is not "
				 "built yet; comparisons stored under this "
				 "PLM# are shown.</p>");
	rc = render_comparison_body(r, pg, id64(db_get(p, i, 7)),
				    id64(db_get(p, i, 9)), id);
	strbuf_release(&href);
	return rc;
}

/*
 * Where patch id came from when a list sent it (store/lists.h): the
 * list, the thread's Message-ID linked into the archive, and each reply
 * the farm made on the thread (its Message-ID, verdict, state).  0, or
 * negative with r->err.
 */
/* A dl row for another version of the series: "vN, PLM#P" linked to its
 * page (no link when it was never queued); nothing for version 0. */
static void version_item(struct page *pg, const char *label, int version,
			 int64_t patch)
{
	struct strbuf v = STRBUF_INIT, href = STRBUF_INIT;

	if (!version)
		return;
	if (patch) {
		strbuf_addf(&v, "v%d, PLM#%lld", version, (long long)patch);
		strbuf_addf(&href, "patch-%lld.html", (long long)patch);
		dl_link(&pg->body, label, v.buf, href.buf);
	} else {
		strbuf_addf(&v, "v%d (not queued)", version);
		dl_item(&pg->body, label, v.buf);
	}
	strbuf_release(&v);
	strbuf_release(&href);
}

static int render_patch_origin(struct report *r, struct page *pg, int64_t id)
{
	struct list_origin o;
	struct strbuf v = STRBUF_INIT;
	int rc;

	list_origin_init(&o);
	rc = lists_patch_origin(r->db, id, &o, r->err);
	if (rc <= 0) {
		list_origin_release(&o);
		return rc < 0 ? -EIO : 0;
	}
	h2(&pg->body, "origin", "From the list");
	facts_begin(&pg->body);
	strbuf_addf(&v, "%s (v%d)", o.list_name, o.version);
	dl_item(&pg->body, "list", v.buf);
	strbuf_reset(&v);
	strbuf_addf(&v, "<%s>", o.message_id);
	dl_link(&pg->body, "Message-ID", v.buf, o.link);
	if (o.base_method)
		dl_item(&pg->body, "base chosen by", o.base_method);
	version_item(pg, "superseded by", o.newer_version, o.newer_patch);
	version_item(pg, "supersedes", o.older_version, o.older_patch);
	for (size_t k = 0; k < o.reply_ids.nr; k++) {
		strbuf_reset(&v);
		strbuf_addf(&v, "<%s>: %s, %s%s%s%s", o.reply_ids.v[k],
			    o.reply_verdicts.v[k], o.reply_states.v[k],
			    *o.reply_sent.v[k] ? " " : "", o.reply_sent.v[k],
			    strcmp(o.reply_delivery.v[k], "mbox")
				    ? ""
				    : " (dry run: into the mbox)");
		dl_item(&pg->body, "reply on the thread", v.buf);
	}
	if (!o.reply_ids.nr)
		dl_item(&pg->body, "reply on the thread", "none");
	facts_end(&pg->body);
	strbuf_release(&v);
	list_origin_release(&o);
	return 0;
}

/* The bisections of patch id: a table linking to their pages. */
static int render_patch_bisections(struct report *r, struct page *pg,
				   int64_t id)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	static const struct col cols[] = {
		{ "bisection", "bisection", 1 }, { "state", "state", 0 },
		{ "metric", "metric", 0 },	 { "host", "host", 0 },
		{ "result", "result", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;
	int rc;

	rc = pages_patch_bisections(r->db, id, &res, r->err);
	if (rc < 0 || !db_nrows(res))
		return rc < 0 ? rc : 0;
	h2(&pg->body, "bisections", "Bisections");
	rtab_begin(&t, pg, "bisections", NULL, cols, (int)ARRAY_SIZE(cols));
	for (int k = 0; k < db_nrows(res); k++) {
		rtab_row(&t, NULL);
		strbuf_reset(&href);
		strbuf_addf(&href, "bisect-%s.html", db_get(res, k, 0));
		rtab_link(&t, db_get(res, k, 0), href.buf);
		rtab_str(&t, db_get(res, k, 1));
		rtab_str(&t, db_get(res, k, 2));
		rtab_str(&t, db_get(res, k, 3));
		rtab_str(&t, db_get(res, k, 4));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no bisections");
	strbuf_release(&href);
	return 0;
}

/*
 * Where the time of patch id's answer went (store/answer_account.h): a
 * table of the phases queued, build, boot, run, compare and their total,
 * once it is answered.  0, or negative with r->err.
 */
static int render_patch_phases(struct report *r, struct page *pg, int64_t id)
{
	static const struct col cols[] = {
		{ "phase", "phase", 0 },
		{ "duration", "duration", 0 },
		{ "seconds", "seconds", 1 },
	};
	static const char *const names[] = { "queued", "build",	  "boot",
					     "run",    "compare", "total" };
	struct answer_phases ph;
	int64_t ms[ARRAY_SIZE(names)];
	struct strbuf d = STRBUF_INIT;
	struct rtab t;

	if (answers_phases(r->db, id, &ph, r->err) < 0)
		return -EIO;
	if (!ph.answered)
		return 0;
	ms[0] = ph.queued_ms;
	ms[1] = ph.build_ms;
	ms[2] = ph.boot_ms;
	ms[3] = ph.run_ms;
	ms[4] = ph.compare_ms;
	ms[5] = ph.span_ms;
	h2(&pg->body, "phases", "Where the time went");
	rtab_begin(&t, pg, "phases", NULL, cols, (int)ARRAY_SIZE(cols));
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		rtab_row(&t, NULL);
		rtab_str(&t, names[k]);
		strbuf_reset(&d);
		format_duration_ms(&d, ms[k]);
		rtab_str(&t, d.buf);
		rtab_num(&t, (double)ms[k] / 1000.0, NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no phases");
	strbuf_release(&d);
	return 0;
}

/* Write the stale patch pages.  Returns 0 or negative, r->err filled. */
int write_patch_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *p = NULL;
	int rc;

	rc = pages_patches(r->db, r->o->since, &p, r->err);
	for (int i = 0; rc >= 0 && i < db_nrows(p); i++) {
		struct strbuf stem = STRBUF_INIT;
		struct patch_page pp = { p, i };

		strbuf_addf(&stem, "patch-%s", db_get(p, i, 0));
		rc = page_refresh(r, stem.buf, db_get(p, i, 11), fill_patch,
				  &pp);
		strbuf_release(&stem);
	}
	return rc;
}
