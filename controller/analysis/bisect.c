/*
 * bisect.c - bisections: the search, one step's rule, and the driver over
 * the rows of schema 007; see bisect.h.
 *
 * The driver's unit of work is one bisection with no job running: it is
 * loaded whole (the bisection, its points, its open step), the open step
 * is decided from comparisons (compare_run, the same code `schedfarm
 * compare` runs), and everything that follows -- the step's verdict, the
 * point's mark, the next step and its job, or the result -- is written in
 * one transaction.  A per-bisection advisory lock keeps two controllers
 * from doing it twice at once.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/adaptive.h"
#include "analysis/bisect.h"
#include "analysis/stats.h"
#include "cleanup.h"
#include "lab/build.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/answers.h"
#include "store/bisections.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "store/kernels.h"
#include "store/queue.h"
#include "banned.h"

/* Bisections advanced per tick, at most (the rest wait for the next). */
#define BISECT_TICK_MAX 32

const char *bisect_mark_name(enum bisect_mark m)
{
	switch (m) {
	case BISECT_UNTESTED:
		return "untested";
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_SKIP:
		return "skip";
	}
	return "?";
}

static enum bisect_mark mark_parse(const char *s)
{
	if (!strcmp(s, "good"))
		return BISECT_GOOD;
	if (!strcmp(s, "bad"))
		return BISECT_BAD;
	if (!strcmp(s, "skip"))
		return BISECT_SKIP;
	return BISECT_UNTESTED;
}

void bisect_search(const enum bisect_mark *marks, int n,
		   struct bisect_next *ret)
{
	int lo = 0, hi = -1, best = -1;
	double mid, bestd = 0;

	memset(ret, 0, sizeof(*ret));
	if (n < 1) {
		ret->what = BISECT_NONE;
		return;
	}
	if (marks[n] == BISECT_UNTESTED) {
		ret->what = BISECT_TEST;
		ret->position = n;
		return;
	}
	if (marks[n] == BISECT_GOOD || marks[n] == BISECT_SKIP) {
		/* The end is not (known to be) bad: nothing to find. */
		ret->what = BISECT_NONE;
		ret->low = 0;
		ret->high = n;
		return;
	}
	/* The first bad point, and the last good point before it. */
	for (int i = 1; i <= n; i++)
		if (marks[i] == BISECT_BAD) {
			hi = i;
			break;
		}
	for (int i = 1; i < hi; i++)
		if (marks[i] == BISECT_GOOD)
			lo = i;
	ret->low = lo;
	ret->high = hi;
	mid = (lo + hi) / 2.0;
	for (int i = lo + 1; i < hi; i++) {
		double d = fabs(i - mid);

		if (marks[i] != BISECT_UNTESTED)
			continue;
		if (best < 0 || d < bestd) {
			best = i;
			bestd = d;
		}
	}
	if (best >= 0) {
		ret->what = BISECT_TEST;
		ret->position = best;
	} else {
		ret->what = hi == lo + 1 ? BISECT_FOUND : BISECT_RANGE;
	}
}

enum bisect_mark bisect_classify(enum cmp_verdict v_good,
				 enum cmp_verdict v_bad, enum cmp_verdict dir)
{
	int bad = v_good == dir || v_bad == CMP_NO_CHANGE;
	int good = v_good == CMP_NO_CHANGE || v_bad == dir;

	if (bad && !good)
		return BISECT_BAD;
	if (good && !bad)
		return BISECT_GOOD;
	/* Both (it shows part of the change) or neither (not enough yet). */
	return v_good == dir ? BISECT_BAD : BISECT_UNTESTED;
}

int bisect_may_continue(int looks, int boots, int max_boots)
{
	return looks < ADAPTIVE_MAX_LOOKS &&
	       (int64_t)boots + COMPARE_BLOCK <= max_boots;
}

int bisect_levels(int first_boots, int max_boots, double *ret_alpha,
		  double *ret_nc_level)
{
	double info[ADAPTIVE_MAX_LOOKS], c;
	int looks = 0, boots = first_boots;

	*ret_alpha = COMPARE_ALPHA;
	*ret_nc_level = COMPARE_NOCHANGE_LEVEL;
	if (first_boots < 1)
		return -EINVAL;
	/* The looks a step can take: the first, then one per block. */
	for (;;) {
		info[looks++] = boots;
		if (!bisect_may_continue(looks, boots, max_boots))
			break;
		boots += COMPARE_BLOCK;
	}
	if (looks == 1)
		return 0;
	if (stats_gs_constant(info, (size_t)looks, COMPARE_ALPHA, 2, &c) < 0)
		return -EINVAL;
	*ret_alpha = 2 * (1 - stats_norm_cdf(c));
	if (stats_gs_constant(info, (size_t)looks, ADAPTIVE_NOCHANGE_ALPHA, 1,
			      &c) < 0)
		return -EINVAL;
	*ret_nc_level = 1 - 2 * (1 - stats_norm_cdf(c));
	return 0;
}

/* --- The driver ---------------------------------------------------------- */

struct point {
	int64_t kernel_id;
	char *kernel, *label;
	enum bisect_mark mark;
};

/* One bisection as loaded, with its open step (step_id 0: none). */
struct bis {
	int64_t id, patch_id, host_id, plan_id;
	char *host, *plan_sha, *workload, *params, *metric, *tree;
	int dir_known;
	enum cmp_verdict dir;
	int n, max_boots, priority;
	struct plan *plan;
	struct point *pt; /* 0..n */
	int64_t step_id;
	int step, position, looks, boots, last_step;
	double alpha, nc_level; /* every look's levels (bisect_levels()) */
	struct strvec plan_set; /* the submission's --set overrides */
};

static void bis_release(struct bis *b)
{
	free(b->host);
	free(b->plan_sha);
	free(b->workload);
	free(b->params);
	free(b->metric);
	free(b->tree);
	plan_free(b->plan);
	strvec_clear(&b->plan_set);
	for (int i = 0; b->pt && i <= b->n; i++) {
		free(b->pt[i].kernel);
		free(b->pt[i].label);
	}
	free(b->pt);
	memset(b, 0, sizeof(*b));
}

/* The boots of a step's first look: the plan's, at least what a
 * verdict needs. */
static int first_look_boots(const struct plan *p)
{
	return p->boots > COMPARE_MIN_N ? p->boots : COMPARE_MIN_N;
}

/*
 * Load bisection id into *b (zeroed first; release it either way): the
 * row with its host and plan (parsed), every point with its kernel and
 * mark, and its open step -- the latest step when it is still running --
 * with the number of the latest step in b->last_step (-1: none).  0, or
 * -1 with err.
 */
static int bis_load(struct db *db, int64_t id, struct bis *b,
		    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *pts = NULL,
					     *st = NULL;
	struct strbuf perr = STRBUF_INIT;
	int r = -1;

	memset(b, 0, sizeof(*b));
	strvec_init(&b->plan_set);
	b->id = id;
	if (bisections_row(db, id, &res, err) < 0)
		goto out;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no bisection %lld", (long long)id);
		goto out;
	}
	if (db_get_i64(res, 0, 0, 0, INT64_MAX, &b->patch_id) < 0 ||
	    db_get_i64(res, 0, 1, 1, INT64_MAX, &b->host_id) < 0 ||
	    db_get_i64(res, 0, 3, 1, INT64_MAX, &b->plan_id) < 0 ||
	    parse_int(db_get(res, 0, 11), 1, INT_MAX - 1, &b->n, NULL) < 0 ||
	    parse_int(db_get(res, 0, 12), 1, 100000, &b->max_boots, NULL) < 0 ||
	    parse_int(db_get(res, 0, 13), -1000, 1000, &b->priority, NULL) <
		    0) {
		strbuf_addf(err, "bisection %lld: an unreadable row",
			    (long long)id);
		goto out;
	}
	b->host = xstrdup(db_get(res, 0, 2));
	b->plan_sha = xstrdup(db_get(res, 0, 4));
	b->workload = xstrdup_or_null(db_get(res, 0, 7));
	b->params = xstrdup_or_null(db_get(res, 0, 8));
	b->metric = xstrdup(db_get(res, 0, 9));
	b->tree = xstrdup_or_null(db_get(res, 0, 14));
	if (db_get(res, 0, 10)) {
		b->dir_known = 1;
		b->dir = !strcmp(db_get(res, 0, 10), "regression")
				 ? CMP_REGRESSION
				 : CMP_IMPROVEMENT;
	}
	/* A submission's bisection measures with the submission's --set
	 * overrides, as its own jobs did; any other with none. */
	r = jobs_load_plan_of_plan(db, b->plan_id,
				   b->patch_id > 0 ? b->patch_id : -1,
				   &b->plan_set, &b->plan, &perr);
	if (r != 0) {
		if (r == -2)
			strbuf_addstr(
				err, "the bisection's plan no longer parses: ");
		else if (r == 1)
			strbuf_addf(err, "no plan %lld", (long long)b->plan_id);
		strbuf_addbuf(err, &perr);
		r = -1;
		goto out;
	}
	r = -1;
	if (bisect_levels(first_look_boots(b->plan), b->max_boots, &b->alpha,
			  &b->nc_level) < 0) {
		strbuf_addf(err, "bisection %lld: no design for its looks",
			    (long long)id);
		goto out;
	}
	if (bisections_points(db, id, &pts, err) < 0)
		goto out;
	if (db_nrows(pts) != b->n + 1) {
		strbuf_addf(err, "bisection %lld has %d points, not %d",
			    (long long)id, db_nrows(pts), b->n + 1);
		goto out;
	}
	b->pt = xcalloc((size_t)b->n + 1, sizeof(*b->pt));
	for (int i = 0; i <= b->n; i++) {
		db_get_i64(pts, i, 1, 0, INT64_MAX, &b->pt[i].kernel_id);
		b->pt[i].kernel =
			xstrdup(db_get(pts, i, 2) ? db_get(pts, i, 2) : "?");
		b->pt[i].label = xstrdup(db_get(pts, i, 3));
		b->pt[i].mark = mark_parse(db_get(pts, i, 4));
	}
	if (bisections_last_step(db, id, &st, err) < 0)
		goto out;
	b->last_step = -1;
	if (db_nrows(st) == 1) {
		parse_int(db_get(st, 0, 6), 0, INT_MAX, &b->last_step, NULL);
		if (!strcmp(db_get(st, 0, 5), "running")) {
			db_get_i64(st, 0, 0, 1, INT64_MAX, &b->step_id);
			parse_int(db_get(st, 0, 1), 0, INT_MAX, &b->step, NULL);
			parse_int(db_get(st, 0, 2), 0, INT_MAX, &b->position,
				  NULL);
			parse_int(db_get(st, 0, 3), 0, INT_MAX, &b->looks,
				  NULL);
			parse_int(db_get(st, 0, 4), 0, INT_MAX, &b->boots,
				  NULL);
		}
	}
	r = 0;
out:
	strbuf_release(&perr);
	return r;
}

/* A step's row of compare output: the bisection's metric, workload and
 * params (any workload while the ends have not picked one). */
struct pair {
	int found;
	struct compare_stats s;
	enum cmp_verdict verdict;
	char *workload, *params;
};

static void pair_release(struct pair *p)
{
	free(p->workload);
	free(p->params);
	memset(p, 0, sizeof(*p));
}

static int is_change(enum cmp_verdict v)
{
	return v == CMP_REGRESSION || v == CMP_IMPROVEMENT;
}

/*
 * Compare kernel base_k against new_k on b's host with b's plan at look
 * `look` (0: a single comparison) and pick b's row: the one of b's
 * workload and params, or (none chosen yet) among b's metric's rows the
 * one with a regression (else an improvement) of the largest size.
 */
static int compare_pair(struct db *db, const struct bis *b, int base_k,
			int new_k, int look, struct pair *ret,
			struct strbuf *err)
{
	struct compare_query q = { .base = b->pt[base_k].kernel,
				   .new_ = b->pt[new_k].kernel,
				   .host = b->host,
				   .workload = b->workload,
				   .plan = b->plan_sha,
				   .tau_pct = NAN };
	struct compare_set set;
	const struct compare_row *best = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	/* A look of a step tests at the step's per-look levels; look 0 is
	 * one comparison at the fixed design's.  Every observation of the
	 * two kernels on the host with the plan counts (not a sequence's
	 * own jobs only: q.look stays 0). */
	if (look > 0) {
		q.alpha = b->alpha;
		q.nc_level = b->nc_level;
	}
	r = compare_run(db, &q, &set, err);
	if (r < 0)
		return -1;
	for (size_t i = 0; i < set.nr; i++) {
		const struct compare_row *row = &set.rows[i];

		if (strcmp(row->metric, b->metric))
			continue;
		if (b->params) {
			if (!strcmp(row->params_json, b->params)) {
				best = row;
				break;
			}
			continue;
		}
		if (!best ||
		    (is_change(row->verdict) &&
		     (!is_change(best->verdict) ||
		      (row->verdict == CMP_REGRESSION &&
		       best->verdict != CMP_REGRESSION) ||
		      (row->verdict == best->verdict &&
		       fabs(row->s.pct_change) > fabs(best->s.pct_change)))))
			best = row;
	}
	if (best) {
		ret->found = 1;
		ret->s = best->s;
		ret->verdict = best->verdict;
		ret->workload = xstrdup(best->workload);
		ret->params = xstrdup(best->params_json);
	}
	compare_set_release(&set);
	return 0;
}

/* Queue a job of `boots` boots of point pos for step step_id. */
static int queue_step_job(struct db *db, const struct bis *b, int64_t step_id,
			  int step, int pos, int boots, int first_boot,
			  struct strbuf *log, struct strbuf *err)
{
	struct job_row job;
	int64_t id;
	int r;

	job_row_init(&job);
	job_row_from_plan(&job, b->plan, boots);
	job.kernel_id = b->pt[pos].kernel_id;
	job.plan_id = b->plan_id;
	job.host_constraint = xstrdup(b->host);
	job.priority = b->priority;
	job.name = xstrfmt("bisect #%lld step %d: %s", (long long)b->id, step,
			   b->pt[pos].kernel);
	job.boots = boots;
	job.first_boot = first_boot;
	job.bisect_step_id = step_id;
	strvec_pushv(&job.plan_set, (const char *const *)b->plan_set.v);
	r = jobs_insert(db, &job, &id, err);
	if (r == 0)
		strbuf_addf(log,
			    "bisect #%lld step %d: queued STP#%lld, %s (point "
			    "%d of %d), %d boot%s on %s\n",
			    (long long)b->id, step, (long long)id,
			    b->pt[pos].kernel, pos, b->n, boots,
			    boots == 1 ? "" : "s", b->host);
	job_row_release(&job);
	return r;
}

static int set_mark(struct db *db, const struct bis *b, int pos,
		    enum bisect_mark m, struct strbuf *err)
{
	int r;

	r = bisections_set_mark(db, b->id, pos, bisect_mark_name(m), err);
	b->pt[pos].mark = m;
	return r;
}

/* Close the open step with its state, numbers and note. */
static int close_step(struct db *db, const struct bis *b, const char *state,
		      const struct pair *vg, const struct pair *vb,
		      const char *note, struct strbuf *err)
{
	struct bisection_step_end e = {
		.state = state,
		.looks = b->looks,
		.measured = vg && vg->found,
		.verdict_bad = vb && vb->found
				       ? compare_verdict_name(vb->verdict)
				       : NULL,
		.note = note,
		.mean_good = vg && vg->found		       ? vg->s.mean_base
			     : vb && vb->found && b->step == 0 ? vb->s.mean_base
							       : NAN,
		.mean_bad = vb && vb->found ? vb->s.mean_new : NAN,
	};

	if (e.measured) {
		e.n = (int64_t)vg->s.n_new;
		e.mean = vg->s.mean_new;
		e.pct_vs_good = vg->s.pct_change;
		e.ci_low = vg->s.ci_low;
		e.ci_high = vg->s.ci_high;
		e.p_value = vg->s.p_value;
		e.verdict_good = compare_verdict_name(vg->verdict);
	}
	return bisections_close_step(db, b->step_id, &e, err);
}

/* Open step `step` on point pos and queue its first look. */
static int open_step(struct db *db, struct bis *b, int step, int pos,
		     struct strbuf *log, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int boots = first_look_boots(b->plan);
	int64_t sid;
	int r;

	r = bisections_open_step(db, b->id, step, pos, b->pt[pos].kernel_id,
				 boots, &res, err);
	if (r < 0 || db_get_i64(res, 0, 0, 1, INT64_MAX, &sid) < 0)
		return -1;
	return queue_step_job(db, b, sid, step, pos, boots, 0, log, err);
}

/* Add a look to the open step: COMPARE_BLOCK more boots of its point(s). */
static int add_look(struct db *db, struct bis *b, struct strbuf *log,
		    struct strbuf *err)
{
	if (b->step == 0) {
		/* The ends: more boots of both. */
		if (queue_step_job(db, b, b->step_id, 0, 0, COMPARE_BLOCK,
				   b->boots, log, err) < 0)
			return -1;
	}
	if (queue_step_job(db, b, b->step_id, b->step, b->position,
			   COMPARE_BLOCK, b->boots, log, err) < 0)
		return -1;
	return bisections_step_looks(db, b->step_id, b->looks,
				     b->boots + COMPARE_BLOCK, err);
}

/* What a point is called in results: "patch 3/5 (NAME)", "commit X". */
static void point_name(const struct bis *b, int pos, struct strbuf *out)
{
	if (b->tree)
		strbuf_addf(out, "commit %s", b->pt[pos].label);
	else
		strbuf_addf(out, "patch %d/%d (%s)", pos, b->n,
			    b->pt[pos].label);
}

static void add_stats(struct strbuf *out, const struct compare_stats *s)
{
	if (isfinite(s->pct_change))
		strbuf_addf(out, " %+.1f%%", s->pct_change);
	if (isfinite(s->ci_low) && isfinite(s->ci_high))
		strbuf_addf(out, " [%+.1f%%, %+.1f%%]", s->ci_low, s->ci_high);
	if (isfinite(s->p_value))
		strbuf_addf(out, " p=%.2g", s->p_value);
}

/* Finish: the result of the search in nx, the culprit's numbers. */
static int finish(struct db *db, struct bis *b, const struct bisect_next *nx,
		  struct strbuf *log, struct strbuf *err)
{
	struct strbuf res = STRBUF_INIT, e = STRBUF_INIT;
	struct pair cp = { 0 };
	int r;

	if (nx->what == BISECT_FOUND &&
	    compare_pair(db, b, nx->low, nx->high, 0, &cp, &e) < 0)
		strbuf_addf(&res, "(the culprit's comparison failed: %s) ",
			    e.buf);
	if (nx->what == BISECT_FOUND) {
		point_name(b, nx->high, &res);
		strbuf_addf(&res, " is the first bad %s: %s",
			    b->tree ? "commit" : "patch", b->metric);
		if (cp.found)
			add_stats(&res, &cp.s);
		strbuf_addf(&res, " %s against %s on %s",
			    cp.found ? compare_verdict_name(cp.verdict)
				     : compare_verdict_name(b->dir),
			    nx->low ? b->pt[nx->low].kernel : "the good end",
			    b->host);
	} else if (nx->what == BISECT_RANGE) {
		strbuf_addf(&res,
			    "the first bad change is one of points %d..%d "
			    "(",
			    nx->low + 1, nx->high);
		for (int i = nx->low + 1; i <= nx->high; i++) {
			if (i > nx->low + 1)
				strbuf_addstr(&res, ", ");
			point_name(b, i, &res);
		}
		strbuf_addf(&res, "): the points between could not be decided, "
				  "built or booted");
	} else {
		strbuf_addf(&res,
			    "no change is bad: the bad end does not show the "
			    "%s of %s on %s",
			    b->dir_known ? compare_verdict_name(b->dir)
					 : "change",
			    b->metric, b->host);
	}
	r = bisections_finish(
		db, b->id, nx->what == BISECT_FOUND ? nx->high : 0,
		nx->what == BISECT_RANGE ? nx->low + 1 : 0,
		nx->what == BISECT_RANGE ? nx->high : 0,
		cp.found ? cp.s.pct_change : NAN, cp.found ? cp.s.ci_low : NAN,
		cp.found ? cp.s.ci_high : NAN, cp.found ? cp.s.p_value : NAN,
		res.buf, err);
	if (r == 0)
		strbuf_addf(log, "bisect #%lld done: %s\n", (long long)b->id,
			    res.buf);
	pair_release(&cp);
	strbuf_release(&res);
	strbuf_release(&e);
	return r;
}

/* End b as failed (an end could not be measured), why as its result. */
static int fail_bisection(struct db *db, const struct bis *b, const char *why,
			  struct strbuf *log, struct strbuf *err)
{
	int r;

	r = bisections_fail(db, b->id, why, err);
	if (r == 0)
		strbuf_addf(log, "bisect #%lld failed: %s\n", (long long)b->id,
			    why);
	return r;
}

/* The open step's jobs: 1 when one is live, else the last failure's
 * error in why (empty when all are done). */
static int step_jobs(struct db *db, const struct bis *b, struct strbuf *why,
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = bisections_step_jobs(db, b->step_id, &res, err);
	if (r < 0)
		return -1;
	if (strcmp(db_get(res, 0, 0), "0"))
		return 1;
	if (db_get(res, 0, 1))
		strbuf_addstr(why, db_get(res, 0, 1));
	return 0;
}

/*
 * Step 0 of a range bisection: compare the two ends.  Decided: the
 * direction and the row to follow are stored and the search goes on.
 */
static int decide_ends(struct db *db, struct bis *b, int *ret_search,
		       struct strbuf *log, struct strbuf *err)
{
	struct pair pr = { 0 };
	struct bisect_next nx = { .what = BISECT_NONE, .high = b->n };
	int r = -1;

	*ret_search = 0;
	b->looks++;
	if (compare_pair(db, b, 0, b->n, b->looks, &pr, err) < 0)
		return -1;
	if (pr.found && is_change(pr.verdict)) {
		b->dir_known = 1;
		b->dir = pr.verdict;
		if (bisections_set_direction(db, b->id,
					     compare_verdict_name(pr.verdict),
					     pr.workload, pr.params, err) < 0)
			goto out;
		free(b->workload);
		free(b->params);
		b->workload = xstrdup(pr.workload);
		b->params = xstrdup(pr.params);
		if (set_mark(db, b, b->n, BISECT_BAD, err) < 0 ||
		    close_step(db, b, "measured", NULL, &pr, NULL, err) < 0)
			goto out;
		strbuf_addf(log, "bisect #%lld: the ends differ: %s %s",
			    (long long)b->id, b->metric,
			    compare_verdict_name(pr.verdict));
		add_stats(log, &pr.s);
		strbuf_addch(log, '\n');
		*ret_search = 1;
		r = 0;
		goto out;
	}
	if (pr.found && pr.verdict != CMP_NO_CHANGE &&
	    bisect_may_continue(b->looks, b->boots, b->max_boots)) {
		r = add_look(db, b, log, err);
		goto out;
	}
	if (close_step(db, b, "measured", NULL, &pr,
		       pr.found ? NULL : "no results of the metric", err) < 0 ||
	    set_mark(db, b, b->n, BISECT_GOOD, err) < 0)
		goto out;
	r = finish(db, b, &nx, log, err);
out:
	pair_release(&pr);
	return r;
}

/* The open step (a point) after its jobs: decide it or add a look. */
static int decide_step(struct db *db, struct bis *b, const char *failed,
		       int *ret_search, struct strbuf *log, struct strbuf *err)
{
	struct pair vg = { 0 }, vb = { 0 };
	enum bisect_mark m;
	int r = -1;

	*ret_search = 0;
	if (*failed) {
		struct strbuf note = STRBUF_INIT;

		strbuf_addf(&note, "skipped: %s", failed);
		r = close_step(db, b, "failed", NULL, NULL, note.buf, err);
		if (r == 0)
			r = set_mark(db, b, b->position, BISECT_SKIP, err);
		strbuf_addf(log, "bisect #%lld step %d (%s): %s\n",
			    (long long)b->id, b->step,
			    b->pt[b->position].kernel, note.buf);
		strbuf_release(&note);
		*ret_search = 1;
		return r;
	}
	b->looks++;
	if (compare_pair(db, b, 0, b->position, b->looks, &vg, err) < 0 ||
	    compare_pair(db, b, b->position, b->n, b->looks, &vb, err) < 0)
		goto out;
	m = bisect_classify(vg.found ? vg.verdict : CMP_INSUFFICIENT,
			    vb.found ? vb.verdict : CMP_INSUFFICIENT, b->dir);
	if (m == BISECT_UNTESTED &&
	    bisect_may_continue(b->looks, b->boots, b->max_boots)) {
		r = add_look(db, b, log, err);
		goto out;
	}
	if (m == BISECT_UNTESTED)
		m = BISECT_SKIP;
	if (close_step(db, b,
		       m == BISECT_GOOD	 ? "good"
		       : m == BISECT_BAD ? "bad"
					 : "inconclusive",
		       &vg, &vb,
		       m == BISECT_SKIP ? "undecided at the cap: skipped"
					: NULL,
		       err) < 0 ||
	    set_mark(db, b, b->position, m, err) < 0)
		goto out;
	strbuf_addf(log, "bisect #%lld step %d (%s): %s after %d look%s, %s",
		    (long long)b->id, b->step, b->pt[b->position].kernel,
		    m == BISECT_SKIP ? "inconclusive" : bisect_mark_name(m),
		    b->looks, b->looks == 1 ? "" : "s", b->metric);
	if (vg.found)
		add_stats(log, &vg.s);
	strbuf_addstr(log, " against the good end\n");
	*ret_search = 1;
	r = 0;
out:
	pair_release(&vg);
	pair_release(&vb);
	return r;
}

/* The search's next move: a new step, or the end. */
static int search(struct db *db, struct bis *b, struct strbuf *log,
		  struct strbuf *err)
{
	enum bisect_mark *marks = xcalloc((size_t)b->n + 1, sizeof(*marks));
	struct bisect_next nx;
	int r;

	for (int i = 0; i <= b->n; i++)
		marks[i] = b->pt[i].mark;
	bisect_search(marks, b->n, &nx);
	free(marks);
	/* Steps of points count from 1; 0 is a range's ends. */
	if (nx.what == BISECT_TEST)
		r = open_step(db, b, b->last_step < 0 ? 1 : b->last_step + 1,
			      nx.position, log, err);
	else
		r = finish(db, b, &nx, log, err);
	return r;
}

/*
 * Advance bisection id (locked by the caller).  1 when it finished now,
 * 0 otherwise, -1 with err (its transaction rolled back).
 */
static int advance(struct db *db, int64_t id, struct strbuf *log,
		   struct strbuf *err)
{
	struct strbuf failed = STRBUF_INIT;
	struct bis b;
	int r, go = 0;

	if (bis_load(db, id, &b, err) < 0) {
		bis_release(&b);
		strbuf_release(&failed);
		return -1;
	}
	if (b.step_id) {
		r = step_jobs(db, &b, &failed, err);
		if (r != 0) {
			bis_release(&b);
			strbuf_release(&failed);
			return r < 0 ? -1 : 0;
		}
	}
	if (db_begin(db, err) < 0) {
		bis_release(&b);
		strbuf_release(&failed);
		return -1;
	}
	if (!b.step_id && !b.dir_known && b.tree && b.last_step < 0) {
		/* A range bisection starts with its two ends. */
		r = open_step(db, &b, 0, b.n, log, err);
		if (r == 0) {
			b.step_id = 0;
			r = 0;
		}
		/* open_step queued the bad end; the good end too. */
		if (r == 0) {
			_cleanup_db_result_ struct db_result *res = NULL;
			int64_t sid = 0;

			r = bisections_first_step(db, b.id, &res, err);
			if (r == 0 &&
			    db_get_i64(res, 0, 0, 1, INT64_MAX, &sid) == 0)
				r = queue_step_job(db, &b, sid, 0, 0,
						   first_look_boots(b.plan), 0,
						   log, err);
		}
	} else if (b.step_id && b.step == 0) {
		if (*failed.buf) {
			struct strbuf why = STRBUF_INIT;

			strbuf_addf(&why, "an end could not be measured: %s",
				    failed.buf);
			r = close_step(db, &b, "failed", NULL, NULL, why.buf,
				       err);
			if (r == 0)
				r = fail_bisection(db, &b, why.buf, log, err);
			strbuf_release(&why);
		} else {
			r = decide_ends(db, &b, &go, log, err);
		}
	} else if (b.step_id) {
		r = decide_step(db, &b, failed.buf, &go, log, err);
	} else {
		go = 1;
		r = 0;
	}
	if (r == 0 && go)
		r = search(db, &b, log, err);
	if (r < 0) {
		db_rollback(db);
	} else if (db_commit(db, err) < 0) {
		r = -1;
	} else {
		_cleanup_db_result_ struct db_result *res = NULL;
		struct strbuf e = STRBUF_INIT;

		r = 0;
		if (bisections_state(db, id, &res, &e) == 0 &&
		    db_nrows(res) == 1 && strcmp(db_get(res, 0, 0), "running"))
			r = 1;
		strbuf_release(&e);
	}
	bis_release(&b);
	strbuf_release(&failed);
	return r;
}

int bisect_advance(struct db *db, int64_t id, struct strbuf *log,
		   struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *lk = NULL;
	struct strbuf e = STRBUF_INIT;
	int r;

	if (bisections_try_lock(db, id, &lk, err) < 0)
		return -1;
	if (strcmp(db_get(lk, 0, 0), "t"))
		return 0; /* another controller has it */
	r = advance(db, id, log, err);
	bisections_unlock(db, id, &e);
	strbuf_release(&e);
	return r;
}

int bisect_tick(struct db *db, int64_t **ret_done, size_t *ret_nr_done,
		struct strbuf *log, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	size_t alloc = 0;
	int r;

	*ret_done = NULL;
	*ret_nr_done = 0;
	r = bisections_idle(db, BISECT_TICK_MAX, &res, err);
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++) {
		struct strbuf e = STRBUF_INIT;
		int64_t id;

		if (db_get_i64(res, i, 0, 1, INT64_MAX, &id) < 0)
			continue;
		r = bisect_advance(db, id, log, &e);
		if (r < 0)
			strbuf_addf(log, "bisect #%lld: %s\n", (long long)id,
				    e.buf);
		if (r == 1) {
			ALLOC_GROW(*ret_done, *ret_nr_done + 1, alloc);
			(*ret_done)[(*ret_nr_done)++] = id;
		}
		strbuf_release(&e);
	}
	return 0;
}
