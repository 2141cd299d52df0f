/*
 * bisect_start.c - making a bisection's rows (its points and their
 * kernels), reading one back, cancelling one; see bisect.h.  Deciding
 * steps is bisect.c's.
 *
 * The kernels of the points are rows like any other: a submission's
 * prefix k is BASE+PLM<id>.<k>, built from the base's source with the
 * first k files of the series (kernels.series_patch_id/series_count); a
 * commit of a range is <tree>@<commit12>, built from the tree at that
 * commit.  All are built in the incremental tree of their base and
 * config (kernels.build_mode), so a step rebuilds what its point changes.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/bisect.h"
#include "cleanup.h"
#include "kind_names.h"
#include "lab/build.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/bisections.h"
#include "store/hosts.h"
#include "store/kernels.h"
#include "store/queue.h"
#include "banned.h"

static int is_change(enum cmp_verdict v)
{
	return v == CMP_REGRESSION || v == CMP_IMPROVEMENT;
}

/* Host name -> id, refused when it cannot boot kernels. */
static int boot_host(struct db *db, const char *name, int64_t *ret_id,
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = bisections_host(db, name, &res, err);
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no host named '%s'", name);
		return -1;
	}
	if (!hosts_kind_boots(db_get(res, 0, 1))) {
		struct strbuf kinds = STRBUF_INIT;

		kind_names_join(&kinds, kind_names_booting(), " or ");
		strbuf_addf(err,
			    "host %s is a %s host: it runs the kernel it has, "
			    "so it cannot boot the kernels of a bisection "
			    "(use a %s host: --host)",
			    name, db_get(res, 0, 1), kinds.buf);
		strbuf_release(&kinds);
		return -1;
	}
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id);
}

/*
 * The row of the submission's comparison to follow: metric's (or any
 * deciding metric's) row with a regression, else an improvement, of the
 * largest size; a row without a change only when nothing changed.
 */
static const struct compare_row *pick_row(const struct compare_set *set,
					  const char *metric)
{
	const struct compare_row *best = NULL;
	int any_flag = 0;

	for (size_t i = 0; i < set->nr; i++)
		any_flag |= set->rows[i].decides;
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];
		int better;

		if (metric ? strcmp(r->metric, metric)
			   : any_flag && !r->decides)
			continue;
		if (!best) {
			best = r;
			continue;
		}
		better = is_change(r->verdict) &&
			 (!is_change(best->verdict) ||
			  (r->verdict == CMP_REGRESSION &&
			   best->verdict != CMP_REGRESSION) ||
			  (r->verdict == best->verdict &&
			   fabs(r->s.pct_change) > fabs(best->s.pct_change)));
		if (better)
			best = r;
	}
	return best;
}

/*
 * 0 when no bisection of the patch on host_id for metric is running;
 * else -1 with err naming the one that is (two would run the same
 * steps twice on one host).
 */
static int running_twin(struct db *db, int64_t patch_id, int64_t host_id,
			const char *metric, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = bisections_running(db, patch_id, host_id, metric, &res, err);
	if (r < 0)
		return -1;
	if (!db_nrows(res))
		return 0;
	strbuf_addf(err,
		    "PLM#%lld is being bisected for %s on %s already: bisect "
		    "#%s is running ('schedfarm bisect cancel %s' stops it)",
		    (long long)patch_id, metric, db_get(res, 0, 1),
		    db_get(res, 0, 0), db_get(res, 0, 0));
	return -1;
}

/*
 * The points of bisection id of patch_id's series of n patches on base:
 * 0 the base kernel kb (good), 1..n-1 a queued kernel per prefix of the
 * series ("BASE+PLM<id>.<k>", untested), labelled by the subject of its
 * last file (files: position, subject rows), and n the patched kernel kn
 * (good when the whole series showed no change, done_none, else bad).
 * Inside the caller's transaction.  0, or -1 with err.
 */
static int insert_patch_points(struct db *db, int64_t id, int64_t patch_id,
			       const char *base, int n, int64_t kb, int64_t kn,
			       const struct db_result *files, int done_none,
			       struct strbuf *err)
{
	struct strbuf kname = STRBUF_INIT;
	int r = -1;

	if (bisections_insert_point(db, id, 0, kb, NULL, base, "good", err) < 0)
		goto out;
	for (int k = 1; k < n; k++) {
		struct kernel_fields f = { .base = base,
					   .build_state = "queued" };
		int64_t kid;

		strbuf_reset(&kname);
		strbuf_addf(&kname, "%s+PLM%lld.%d", base, (long long)patch_id,
			    k);
		f.name = kname.buf;
		if (kernels_upsert(db, &f, KERNEL_KEEP, &kid, err) < 0 ||
		    kernels_set_series(db, kid, patch_id, k, 1, err) < 0 ||
		    bisections_insert_point(db, id, k, kid, NULL,
					    db_get(files, k - 1, 1), "untested",
					    err) < 0)
			goto out;
	}
	if (bisections_insert_point(db, id, n, kn, NULL,
				    db_get(files, n - 1, 1),
				    done_none ? "good" : "bad", err) < 0)
		goto out;
	r = 0;
out:
	strbuf_release(&kname);
	return r;
}

/*
 * Start the bisection of rq's patch (bisect_start() with a patch id):
 * the series' prefixes between its base and patched kernels, on rq's host
 * (else the answer's, else its first job's), following rq's metric (else
 * the row pick_row() gives).  Its id in *ret_id, a line in msg.  0, or -1
 * with err.
 */
static int start_patch(struct db *db, const struct bisect_request *rq,
		       int64_t *ret_id, struct strbuf *msg, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *files = NULL;
	struct compare_query q = { .patch_id = rq->patch_id, .tau_pct = NAN };
	struct compare_set set;
	const struct compare_row *row = NULL;
	struct strbuf host = STRBUF_INIT;
	int64_t host_id = 0, plan_id, kb, kn, id = 0;
	int n, priority, r = -1, done_none;
	const char *base, *src;

	memset(&set, 0, sizeof(set));
	if (bisections_patch(db, rq->patch_id, &res, err) < 0)
		goto out;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no patch PLM#%lld", (long long)rq->patch_id);
		goto out;
	}
	if (parse_int(db_get(res, 0, 0), 1, INT_MAX - 1, &n, NULL) < 0 ||
	    db_get_i64(res, 0, 2, 0, INT64_MAX, &kb) < 0 ||
	    db_get_i64(res, 0, 4, 0, INT64_MAX, &kn) < 0 ||
	    db_get_i64(res, 0, 5, 0, INT64_MAX, &plan_id) < 0 ||
	    parse_int(db_get(res, 0, 7), -1000, 1000, &priority, NULL) < 0) {
		strbuf_addstr(err, "an unreadable patch row");
		goto out;
	}
	base = db_get(res, 0, 1);
	src = db_get(res, 0, 3);
	if (!kb || !kn || !plan_id) {
		strbuf_addf(err,
			    "PLM#%lld has no %s yet: nothing was measured to "
			    "bisect",
			    (long long)rq->patch_id,
			    !kb	  ? "base kernel"
			    : !kn ? "kernel"
				  : "job");
		goto out;
	}
	strbuf_addstr(&host, rq->host		 ? rq->host
			     : db_get(res, 0, 8) ? db_get(res, 0, 8)
			     : db_get(res, 0, 9) ? db_get(res, 0, 9)
						 : "");
	if (!host.len) {
		strbuf_addf(err, "PLM#%lld ran on no host yet: give --host",
			    (long long)rq->patch_id);
		goto out;
	}
	if (boot_host(db, host.buf, &host_id, err) < 0)
		goto out;
	if (!src || access(src, F_OK) < 0) {
		strbuf_addf(err,
			    "the base kernel %s has no source to build the "
			    "series' prefixes from (it was registered as an "
			    "image); register it with 'schedfarm kernel build "
			    "--name %s --base SRC'",
			    base, base);
		goto out;
	}
	q.host = host.buf;
	q.plan = db_get(res, 0, 6);
	if (compare_run(db, &q, &set, err) < 0)
		goto out;
	row = pick_row(&set, rq->metric);
	if (!row) {
		if (rq->metric)
			strbuf_addf(err,
				    "PLM#%lld has no results of %s on %s with "
				    "its plan",
				    (long long)rq->patch_id, rq->metric,
				    host.buf);
		else
			strbuf_addf(err,
				    "PLM#%lld has no results on %s to bisect",
				    (long long)rq->patch_id, host.buf);
		goto out;
	}
	done_none = !is_change(row->verdict);
	if (running_twin(db, rq->patch_id, host_id, row->metric, err) != 0)
		goto out;
	if (bisections_patch_files(db, rq->patch_id, &files, err) < 0)
		goto out;
	if (db_nrows(files) != n) {
		strbuf_addf(err,
			    "PLM#%lld was submitted before series were kept "
			    "file by file: it cannot be bisected (submit it "
			    "again)",
			    (long long)rq->patch_id);
		goto out;
	}
	if (db_begin(db, err) < 0)
		goto out;
	if (bisections_insert(
		    db, rq->patch_id, NULL, NULL, NULL, NULL, host_id, plan_id,
		    row->workload, row->params_json, row->metric,
		    done_none ? NULL : compare_verdict_name(row->verdict), n,
		    rq->max_boots, priority, rq->is_auto, &id, err) < 0) {
		/* a twin inserted between running_twin()'s look and ours:
		 * bisections_running_once (schema 013) refused this one */
		if (!strcmp(db_last_sqlstate(db), "23505")) {
			db_rollback(db);
			strbuf_reset(err);
			if (running_twin(db, rq->patch_id, host_id, row->metric,
					 err) == 0)
				strbuf_addf(err,
					    "PLM#%lld was being bisected for "
					    "%s on this host already",
					    (long long)rq->patch_id,
					    row->metric);
			goto out;
		}
		goto fail;
	}
	if (insert_patch_points(db, id, rq->patch_id, base, n, kb, kn, files,
				done_none, err) < 0)
		goto fail;
	if (db_commit(db, err) < 0)
		goto out;
	*ret_id = id;
	strbuf_addf(msg,
		    "bisect #%lld: PLM#%lld, %d patches, %s (%s) on %s: %s "
		    "%+.1f%% for the whole series\n",
		    (long long)id, (long long)rq->patch_id, n, row->metric,
		    row->params_text[0] ? row->params_text : row->workload,
		    host.buf, compare_verdict_name(row->verdict),
		    row->s.pct_change);
	r = 0;
	goto out;
fail:
	db_rollback(db);
out:
	compare_set_release(&set);
	strbuf_release(&host);
	return r;
}

static int start_range(struct db *db, const struct bisect_request *rq,
		       int64_t *ret_id, struct strbuf *msg, struct strbuf *err)
{
	struct strvec commits = STRVEC_INIT, subjects = STRVEC_INIT;
	struct strbuf text = STRBUF_INIT, kname = STRBUF_INIT,
		      label = STRBUF_INIT;
	struct plan *plan = NULL;
	_cleanup_free_ char *tree = NULL;
	const char *tname;
	int64_t host_id, plan_id, id = 0;
	int n, r = -1;

	if (!rq->plan_path || !rq->host || !rq->metric) {
		strbuf_addstr(err, "a range bisection needs --plan FILE, "
				   "--host NAME and --metric NAME");
		return -1;
	}
	tree = realpath(rq->tree, NULL);
	if (!tree) {
		strbuf_addf(err, "cannot find the tree %s: %s", rq->tree,
			    strerror(errno));
		return -1;
	}
	if (queue_load_plan(rq->plan_path, NULL, &text, &plan, err) < 0 ||
	    boot_host(db, rq->host, &host_id, err) < 0 ||
	    kernel_git_range(tree, rq->good, rq->bad, &commits, &subjects,
			     err) < 0)
		goto out;
	n = (int)commits.nr - 1;
	tname = strrchr(tree, '/') ? strrchr(tree, '/') + 1 : tree;
	if (db_begin(db, err) < 0)
		goto out;
	if (queue_store_plan(db, plan->name, text.buf, text.len, &plan_id,
			     err) < 0 ||
	    bisections_insert(db, 0, tree, rq->good, rq->bad, rq->config_spec,
			      host_id, plan_id, NULL, NULL, rq->metric, NULL, n,
			      rq->max_boots, 0, rq->is_auto, &id, err) < 0)
		goto fail;
	for (int k = 0; k <= n; k++) {
		struct kernel_fields f = { .base = tree,
					   .base_ref = commits.v[k],
					   .config_spec = rq->config_spec,
					   .build_state = "queued" };
		int64_t kid;

		strbuf_reset(&kname);
		strbuf_addf(&kname, "%s@%.12s", tname, commits.v[k]);
		strbuf_reset(&label);
		strbuf_addf(&label, "%.12s%s%s", commits.v[k],
			    k ? " " : " (good)", subjects.v[k]);
		f.name = kname.buf;
		if (kernels_upsert(db, &f, KERNEL_KEEP, &kid, err) < 0 ||
		    kernels_set_series(db, kid, 0, 0, 1, err) < 0 ||
		    bisections_insert_point(db, id, k, kid, commits.v[k],
					    label.buf, k ? "untested" : "good",
					    err) < 0)
			goto fail;
	}
	if (db_commit(db, err) < 0)
		goto out;
	*ret_id = id;
	strbuf_addf(msg,
		    "bisect #%lld: %s %s..%s, %d commit%s, %s on %s: the "
		    "ends are measured first\n",
		    (long long)id, tree, rq->good, rq->bad, n,
		    n == 1 ? "" : "s", rq->metric, rq->host);
	r = 0;
	goto out;
fail:
	db_rollback(db);
out:
	strvec_clear(&commits);
	strvec_clear(&subjects);
	strbuf_release(&text);
	strbuf_release(&kname);
	strbuf_release(&label);
	plan_free(plan);
	return r;
}

int bisect_start(struct db *db, const struct bisect_request *rq,
		 int64_t *ret_id, struct strbuf *msg, struct strbuf *err)
{
	int r;

	*ret_id = 0;
	if (rq->max_boots < COMPARE_MIN_N) {
		strbuf_addf(err, "max_boots %d is below the %d a verdict needs",
			    rq->max_boots, COMPARE_MIN_N);
		return -1;
	}
	r = rq->tree ? start_range(db, rq, ret_id, msg, err)
		     : start_patch(db, rq, ret_id, msg, err);
	if (r < 0)
		return -1;
	/* The first step (or the result, when there is nothing to do). */
	if (bisect_advance(db, *ret_id, msg, err) < 0)
		return -1;
	return 0;
}

int bisect_show_json(struct db *db, int64_t id, const char *page_url,
		     struct strbuf *out, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = bisections_show_json(db, id, page_url, &res, err);
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	strbuf_addstr(out, db_get(res, 0, 0));
	return 0;
}

int bisect_cancel(struct db *db, int64_t id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = bisections_cancel(db, id, &res, err);
	if (r < 0)
		return -1;
	if (!strcmp(db_get(res, 0, 1), "0")) {
		strbuf_addf(err, "no bisection %lld", (long long)id);
		return -1;
	}
	if (!strcmp(db_get(res, 0, 0), "0"))
		return 0;
	db_result_free(res);
	res = NULL;
	r = bisections_live_jobs(db, id, &res, err);
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++) {
		int64_t jid;

		if (db_get_i64(res, i, 0, 1, INT64_MAX, &jid) == 0 &&
		    queue_cancel(db, jid, err) < 0)
			return -1;
	}
	return 1;
}

int bisect_find_auto(struct db *db, int64_t patch_id, int64_t *ret_id,
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	*ret_id = 0;
	r = bisections_find_auto(db, patch_id, &res, err);
	if (r < 0)
		return -1;
	if (!db_nrows(res))
		return 0;
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0 ? -1 : 1;
}
