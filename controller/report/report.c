/*
 * report.c - write the static HTML report (see report.h for the contract):
 * the driver, which calls each page kind in turn and records the digests
 * of the pages they wrote.
 *
 * Shape of one report: make the output folder, load the page template
 * and the digests stored for this folder (report_pages), then let each
 * kind of page write itself in one REPEATABLE READ snapshot: runs
 * (page_run.c), patches (page_patch.c), kernel pairs (page_pair.c),
 * hosts and plans (page_host.c, page_plan.c over runlist.c), and the
 * index (page_index.c).  A kind asks PostgreSQL for a fingerprint of what
 * each of its pages shows and hands it to page_refresh() (page.c), the one
 * stale->render step: a page is rendered only when its digest (template
 * hash + fingerprint) moved or its file is gone, and a file is written
 * only when its bytes differ.  The digests of the pages written
 * are recorded at the end, in the same transaction, so a failed report
 * leaves them unrecorded and the next one writes those pages again.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "analysis/changes.h"
#include "store/db.h"
#include "store/pages.h"
#include "report/report.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "fs.h"
#include "home.h"
#include "banned.h"

/* Bumped whenever the page layout changes, so old pages get rewritten. */
#define REPORT_FORMAT "schedfarm-report-12"

/* Record the digests of the pages written (one statement per 2000). */
static int record_digests(struct report *r)
{
	size_t i = 0;

	while (i < r->rec_pages.nr) {
		struct strbuf pages = STRBUF_INIT, digests = STRBUF_INIT;
		size_t end =
			i + 2000 < r->rec_pages.nr ? i + 2000 : r->rec_pages.nr;
		int rc;

		/* Names and digests are ours ([a-z0-9.-]); quoted anyway. */
		strbuf_addch(&pages, '{');
		strbuf_addch(&digests, '{');
		for (size_t k = i; k < end; k++) {
			strbuf_addf(&pages, "%s\"%s\"", k > i ? "," : "",
				    r->rec_pages.v[k]);
			strbuf_addf(&digests, "%s\"%s\"", k > i ? "," : "",
				    r->rec_digests.v[k]);
		}
		strbuf_addch(&pages, '}');
		strbuf_addch(&digests, '}');
		rc = pages_digests_record(r->db, r->out, pages.buf, digests.buf,
					  r->err);
		strbuf_release(&pages);
		strbuf_release(&digests);
		if (rc < 0)
			return rc;
		i = end;
	}
	return 0;
}

/*
 * Load the digests recorded for this output folder into r->dig, sorted
 * as digest_cmp() searches them.  Returns 0 or negative with r->err
 * filled.
 */
static int load_digests(struct report *r)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rc, n;

	rc = pages_digests_load(r->db, r->out, &res, r->err);
	if (rc < 0)
		return rc;
	n = db_nrows(res);
	r->dig = xcalloc((size_t)n + 1, sizeof(*r->dig));
	for (int i = 0; i < n; i++) {
		r->dig[i].page = xstrdup(db_get(res, i, 0));
		r->dig[i].digest = xstrdup(db_get(res, i, 1));
	}
	r->ndig = (size_t)n;
	return 0;
}

void report_stats_init(struct report_stats *st)
{
	memset(st, 0, sizeof(*st));
	strvec_init(&st->written);
}

void report_stats_release(struct report_stats *st)
{
	strvec_clear(&st->written);
	free(st->out_dir);
	st->out_dir = NULL;
}

/* See report.h: $SCHEDFARM_WEB_STATIC, else beside the binary. */
int report_find_static(struct strbuf *out, struct strbuf *err)
{
	static const char *const rel[] = {
		"/../web-static",
		"/../../web-static",
		"/../share/schedfarm/web-static",
	};
	const char *env = getenv("SCHEDFARM_WEB_STATIC");
	struct strbuf exe = STRBUF_INIT, cand = STRBUF_INIT;
	char buf[PATH_MAX];
	ssize_t n;
	int ret = -1;

	if (env && *env) {
		strbuf_addf(&cand, "%s/page.html", env);
		if (access(cand.buf, R_OK) == 0) {
			strbuf_addstr(out, env);
			ret = 0;
		} else
			strbuf_addf(err,
				    "SCHEDFARM_WEB_STATIC=%s holds no "
				    "readable page.html",
				    env);
		strbuf_release(&cand);
		return ret;
	}
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		char *slash;

		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash)
			*slash = '\0';
		strbuf_addstr(&exe, buf);
	}
	strbuf_addstr(err, "cannot find web-static/ (set SCHEDFARM_WEB_STATIC);"
			   " looked in");
	for (size_t i = 0; exe.len && i < ARRAY_SIZE(rel); i++) {
		strbuf_reset(&cand);
		strbuf_addf(&cand, "%s%s/page.html", exe.buf, rel[i]);
		if (access(cand.buf, R_OK) == 0) {
			strbuf_setlen(&cand, cand.len - strlen("/page.html"));
			strbuf_reset(out);
			strbuf_addbuf(out, &cand);
			strbuf_reset(err);
			ret = 0;
			break;
		}
		strbuf_addf(err, " %s%s", exe.buf, rel[i]);
	}
	strbuf_release(&exe);
	strbuf_release(&cand);
	return ret;
}

/* Read page.html and style.css; refuse a template without the CSP. */
static int load_static(struct report *r, struct strbuf *css)
{
	struct strbuf path = STRBUF_INIT;
	uint64_t h = 0xcbf29ce484222325ULL;
	int rc;

	strbuf_addf(&path, "%s/page.html", r->o->static_dir);
	rc = strbuf_read_file(&r->tmpl, path.buf, 1 << 20);
	if (rc < 0) {
		strbuf_addf(r->err, "cannot read %s: %s", path.buf,
			    strerror(-rc));
		goto out;
	}
	if (!strstr(r->tmpl.buf, "Content-Security-Policy") ||
	    !strstr(r->tmpl.buf, "default-src 'none'") ||
	    !strstr(r->tmpl.buf, "@BODY@")) {
		strbuf_addf(r->err,
			    "%s lacks the Content-Security-Policy "
			    "(default-src 'none') or @BODY@",
			    path.buf);
		rc = -1;
		goto out;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/style.css", r->o->static_dir);
	rc = strbuf_read_file(css, path.buf, 1 << 20);
	if (rc < 0) {
		strbuf_addf(r->err, "cannot read %s: %s", path.buf,
			    strerror(-rc));
		goto out;
	}
	h = fnv1a(h, REPORT_FORMAT, strlen(REPORT_FORMAT));
	h = fnv1a(h, r->tmpl.buf, r->tmpl.len);
	snprintf(r->tmpl_hash, sizeof(r->tmpl_hash), "%016llx",
		 (unsigned long long)h);
out:
	strbuf_release(&path);
	return rc < 0 ? -1 : 0;
}

/*
 * The report folder out_dir (real path abs, links resolved) is checked
 * like the folders of the state folder (home_check_owned()): a folder of
 * the user the farm runs as that nobody else can write to.  --out may be
 * a link (to a larger disk, a web server's tree), but not one into
 * /tmp-like folders: there another user could swap the pages' folder or
 * plant files the farm then publishes.  The pages are then written by
 * abs, which has no link in it, each through a fresh temporary file
 * renamed into place (fs.h), so a link left in the folder is replaced,
 * never followed.  0, or -1 with err.
 */
static int check_out_dir(const char *out_dir, const char *abs,
			 struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int rc = home_check_owned(abs, 0, 1, &why);

	if (rc < 0) {
		strbuf_addf(err, "refusing the report folder %s", out_dir);
		if (strcmp(out_dir, abs))
			strbuf_addf(err, " (a link to %s)", abs);
		strbuf_addf(err, ": %s", why.buf);
	}
	strbuf_release(&why);
	return rc;
}

/*
 * See report.h for the contract.  The order of the page kinds is the
 * order of the files in st->written: style.css, runs, patches, kernel
 * pairs, hosts and plans (each followed by its archive pages), then the
 * patch archives and the index.
 */
int report_write(struct db *db, const struct report_opts *o,
		 struct report_stats *st, struct strbuf *err)
{
	struct report r;
	struct strbuf css = STRBUF_INIT;
	struct runlist rl = { NULL, NULL };
	char *abs = NULL;
	int rc, in_tx = 0;

	memset(&r, 0, sizeof(r));
	r.db = db;
	r.o = o;
	r.st = st;
	r.err = err;
	strbuf_init(&r.tmpl, 0);
	strvec_init(&r.rec_pages);
	strvec_init(&r.rec_digests);

	rc = mkdir_p(o->out_dir, 0755, err);
	if (rc < 0)
		goto out;
	{
		struct stat sb;

		if (stat(o->out_dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			strbuf_addf(err, "%s is not a folder", o->out_dir);
			rc = -1;
			goto out;
		}
	}
	abs = realpath(o->out_dir, NULL);
	if (!abs) {
		strbuf_addf(err, "cannot resolve %s: %s", o->out_dir,
			    strerror(errno));
		rc = -1;
		goto out;
	}
	rc = check_out_dir(o->out_dir, abs, err);
	if (rc < 0)
		goto out;
	r.out = abs;
	free(st->out_dir);
	st->out_dir = xstrdup(abs);
	rc = load_static(&r, &css);
	if (rc < 0)
		goto out;
	/* Each host's history up to date first: its own transactions. */
	{
		struct changes_update_stats hs;

		rc = changes_update(db, NULL, &hs, err);
		if (rc < 0)
			goto out;
	}
	/* One snapshot for every page, and the digests recorded with it. */
	rc = pages_begin_snapshot(db, err);
	if (rc < 0)
		goto out;
	in_tx = 1;
	if (o->since) {
		/* Check the date once, so a typo fails with a clear word. */
		rc = pages_check_since(db, o->since, err);
		if (rc < 0)
			goto out;
	}
	rc = load_digests(&r);
	if (rc >= 0)
		rc = write_if_changed(&r, "style.css", css.buf, css.len);
	if (rc >= 0)
		rc = write_run_pages(&r);
	if (rc >= 0)
		rc = write_patch_pages(&r);
	if (rc >= 0)
		rc = write_bisect_pages(&r);
	if (rc >= 0)
		rc = write_pair_pages(&r);
	if (rc >= 0)
		rc = runlist_load(&r, &rl);
	if (rc >= 0)
		rc = write_host_pages(&r, &rl);
	if (rc >= 0)
		rc = write_plan_pages(&r, &rl);
	if (rc >= 0)
		rc = write_metric_pages(&r);
	if (rc >= 0)
		rc = write_index(&r);
	if (rc >= 0)
		rc = record_digests(&r);
	if (rc >= 0) {
		rc = db_commit(db, err);
		in_tx = 0;
	}
out:
	if (in_tx)
		db_rollback(db);
	runlist_release(&rl);
	for (size_t i = 0; i < r.ndig; i++) {
		free(r.dig[i].page);
		free(r.dig[i].digest);
	}
	free(r.dig);
	free(r.kernel_logs);
	strvec_clear(&r.rec_pages);
	strvec_clear(&r.rec_digests);
	strbuf_release(&r.tmpl);
	strbuf_release(&css);
	free(abs);
	return rc < 0 ? rc : 0;
}
