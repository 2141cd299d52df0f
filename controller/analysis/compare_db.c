/*
 * compare_db.c - the database layer of the comparison (see compare.h):
 * resolve the kernels of a query, stream their results out of
 * PostgreSQL into observations per (host, workload, params, metric),
 * compute each row with compare.c's method, decide the set (Holm per
 * host), and store the rows in comparisons (or delete a pair's, and
 * say which filter matched nothing).  A look of an adaptive sequence
 * reads only the runs of the sequence's own jobs.  Every statement is
 * parameterised.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "analysis/compare.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/comparisons.h"
#include "store/jobs.h"
#include "banned.h"

/* A growable array of doubles. */
struct dvec {
	double *v;
	size_t nr, alloc;
};

static void dvec_push(struct dvec *d, double x)
{
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	d->v[d->nr++] = x;
}

/* One side of a row while rows stream in. */
struct side_acc {
	struct dvec obs; /* finished observations */
	struct dvec iter; /* iterations of the observation in hand */
	char *obs_key; /* which observation iter belongs to */
	int have_summary; /* how many summaries */
	double one_n, one_mean, one_sd; /* the first, kept exact */
	double pool_n, pool_mean, pool_m2; /* running pooled moments */
};

static void side_flush_obs(struct side_acc *s, int rate)
{
	if (s->iter.nr)
		dvec_push(&s->obs,
			  compare_observation(s->iter.v, s->iter.nr, rate));
	s->iter.nr = 0;
	free(s->obs_key);
	s->obs_key = NULL;
}

/*
 * Fold a summary (n, mean, sd) into the side's pooled moments (Chan et
 * al.'s parallel update), so several imported summaries, or a summary and
 * some observations, become one sample.
 */
static void side_pool(struct side_acc *s, double n, double mean, double sd)
{
	double m2 = (n - 1) * sd * sd, tot = s->pool_n + n, delta;

	if (n <= 0)
		return;
	delta = mean - s->pool_mean;
	s->pool_m2 += m2 + delta * delta * s->pool_n * n / tot;
	s->pool_mean += delta * n / tot;
	s->pool_n = tot;
}

static void side_release(struct side_acc *s)
{
	free(s->obs.v);
	free(s->iter.v);
	free(s->obs_key);
	memset(s, 0, sizeof(*s));
}

/* Turn a side into a sample; the sample points into s. */
static void side_sample(struct side_acc *s, struct compare_sample *ret)
{
	static const double none[1];

	memset(ret, 0, sizeof(*ret));
	if (!s->have_summary) {
		ret->obs = s->obs.v ? s->obs.v : none;
		ret->n = s->obs.nr;
		return;
	}
	ret->obs = NULL;
	if (s->have_summary == 1 && s->obs.nr == 0) {
		/* One summary: its own numbers, without pooling round-off. */
		ret->n = (size_t)s->one_n;
		ret->mean = s->one_mean;
		ret->sd = s->one_sd;
		return;
	}
	for (size_t i = 0; i < s->obs.nr; i++)
		side_pool(s, 1, s->obs.v[i], 0);
	ret->n = (size_t)s->pool_n;
	ret->mean = s->pool_mean;
	ret->sd = s->pool_n > 1 ? sqrt(s->pool_m2 / (s->pool_n - 1)) : NAN;
}

/*
 * The id in the one row of a look-up (res, from a store/comparisons.c
 * function that returned rc): 0, -ENOENT without the row, -EIO.
 */
static int lookup_id(int rc, const struct db_result *res, int64_t *ret)
{
	if (rc < 0)
		return -EIO;
	if (db_nrows(res) != 1)
		return -ENOENT;
	return parse_i64(db_get(res, 0, 0), 1, INT64_MAX, ret, NULL) < 0 ? -EIO
									 : 0;
}

/* Fill base/new kernel ids and names from the query. */
static int resolve_kernels(struct db *db, const struct compare_query *q,
			   struct compare_set *set, struct strbuf *err)
{
	int r;

	if (q->patch_id > 0) {
		_cleanup_db_result_ struct db_result *res = NULL;

		r = comparisons_patch_kernels(db, q->patch_id, &res, err);
		if (r < 0)
			return -EIO;
		if (db_nrows(res) != 1) {
			strbuf_addf(err, "no patch PLM#%lld",
				    (long long)q->patch_id);
			return -ENOENT;
		}
		if (!db_get(res, 0, 0) || !db_get(res, 0, 1)) {
			strbuf_addf(err, "patch PLM#%lld has no %s kernel yet",
				    (long long)q->patch_id,
				    db_get(res, 0, 0) ? "built" : "base");
			return -ENOENT;
		}
		if (parse_i64(db_get(res, 0, 0), 1, INT64_MAX, &set->base_id,
			      NULL) < 0 ||
		    parse_i64(db_get(res, 0, 1), 1, INT64_MAX, &set->new_id,
			      NULL) < 0)
			return -EIO;
		set->patch_id = q->patch_id;
	} else {
		_cleanup_db_result_ struct db_result *rb = NULL, *rn = NULL;

		r = comparisons_kernel_by_name(db, q->base, &rb, err);
		r = lookup_id(r, rb, &set->base_id);
		if (r == -ENOENT)
			strbuf_addf(err, "no kernel '%s'", q->base);
		if (r < 0)
			return r;
		r = comparisons_kernel_by_name(db, q->new_, &rn, err);
		r = lookup_id(r, rn, &set->new_id);
		if (r == -ENOENT)
			strbuf_addf(err, "no kernel '%s'", q->new_);
		if (r < 0)
			return r;
	}
	if (set->base_id == set->new_id) {
		strbuf_addstr(err, "base and new are the same kernel");
		return -EINVAL;
	}
	{
		_cleanup_db_result_ struct db_result *res = NULL;

		r = comparisons_kernel_names(db, set->base_id, set->new_id,
					     &res, err);
		if (r < 0)
			return -EIO;
		set->base_name = xstrdup(db_get(res, 0, 0));
		set->new_name = xstrdup(db_get(res, 0, 1));
	}
	if (q->plan && q->patch_id <= 0) {
		_cleanup_db_result_ struct db_result *res = NULL;

		r = comparisons_plan_by_name(db, q->plan, &res, err);
		r = lookup_id(r, res, &set->plan_id);
		if (r == -ENOENT)
			strbuf_addf(err, "no plan '%s'", q->plan);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A PLM#'s question (compare_query.patch_id): the plan its own jobs ran
 * -- q->plan when given (a name or a plan's sha256), which must be one
 * of them, else the only one -- into set->plan_id; unless q gives them,
 * the submission's --set overrides (those of its first job of that plan)
 * into sets and its fresh base into *own.  A patch without jobs (recorded
 * by hand) has no plan: set->plan_id stays 0.  0; -ENOENT (a plan the
 * patch never ran) or -EINVAL (several plans and no --plan) with err in
 * words; -EIO.
 */
static int patch_question(struct db *db, const struct compare_query *q,
			  struct compare_set *set, struct strvec *sets,
			  int *own, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf names = STRBUF_INIT;
	int64_t job = 0;
	int n, pick = -1, r = 0;

	if (comparisons_patch_plans(db, q->patch_id, &res, err) < 0)
		return -EIO;
	n = db_nrows(res);
	for (int i = 0; i < n; i++) {
		strbuf_addf(&names, "%s'%s'",
			    !i		 ? ""
			    : i + 1 == n ? " and "
					 : ", ",
			    db_get(res, i, 1));
		if (q->plan && (!strcmp(q->plan, db_get(res, i, 1)) ||
				!strcmp(q->plan, db_get(res, i, 2))))
			pick = i;
	}
	if (!n && !q->plan) {
		/* A patch recorded without jobs (by hand, imported): its
		 * kernels' plain question. */
		strbuf_release(&names);
		*own = q->own_jobs;
		return 0;
	} else if (q->plan && pick < 0) {
		strbuf_addf(err, "PLM#%lld never ran the plan '%s' (it ran %s)",
			    (long long)q->patch_id, q->plan,
			    n ? names.buf : "nothing");
		r = -ENOENT;
	} else if (!q->plan && n > 1) {
		strbuf_addf(err,
			    "PLM#%lld ran the plans %s: say which with "
			    "--plan",
			    (long long)q->patch_id, names.buf);
		r = -EINVAL;
	}
	strbuf_release(&names);
	if (r < 0)
		return r;
	if (pick < 0)
		pick = 0;
	if (db_get_i64(res, pick, 0, 1, INT64_MAX, &set->plan_id) < 0 ||
	    db_get_i64(res, pick, 3, 1, INT64_MAX, &job) < 0)
		return -EIO;
	if (q->plan_set) {
		*own = q->own_jobs;
		return 0;
	}
	*own = !strcmp(db_get(res, pick, 4), "t");
	return jobs_load_plan_set(db, job, sets, err) < 0 ? -EIO : 0;
}

/*
 * set's question in words (struct compare_set): the plan read
 * (plan_label, NAME@SHA12), its --set overrides, a fresh base, a
 * sequence's looks or all its blocks, a --tau or level asked for by
 * hand; and whether it is the patch's own, planned one.
 */
static void make_question(struct compare_set *set,
			  const struct compare_query *q,
			  const struct strvec *sets, int own,
			  const char *plan_label, const struct plan *plan)
{
	struct strbuf b = STRBUF_INIT;
	int decided = plan && plan->until == PLAN_UNTIL_DECIDED,
	    tau_asked = !isnan(q->tau_pct),
	    alpha_asked = q->look <= 0 && q->alpha > 0 && q->alpha < 1 &&
			  q->alpha != COMPARE_ALPHA;

	if (set->plan_id && plan_label[0])
		strbuf_addf(&b, ";plan=%s", plan_label);
	if (sets && sets->nr) {
		strbuf_addstr(&b, ";set=");
		for (size_t i = 0; i < sets->nr; i++)
			strbuf_addf(&b, "%s%s", i ? "," : "", sets->v[i]);
	}
	if (own)
		strbuf_addstr(&b, ";fresh-base");
	if (q->look > 0)
		strbuf_addstr(&b, ";sequence");
	else if (decided && q->patch_id > 0)
		strbuf_addstr(&b, ";all-blocks");
	if (tau_asked)
		strbuf_addf(&b, ";tau=%g", q->tau_pct);
	if (alpha_asked)
		strbuf_addf(&b, ";alpha=%g", q->alpha);
	set->question = xstrdup(b.len ? b.buf + 1 : "");
	set->planned = q->patch_id > 0 && set->plan_id && !tau_asked &&
		       !alpha_asked && (!decided || q->look > 0);
	strbuf_release(&b);
}

/* The current group while rows stream in. */
struct group {
	int64_t host_id;
	char *host, *workload, *params_json, *params_text, *metric, *unit;
	enum cmp_better better;
	int better_conflict; /* the results disagree on the direction */
	enum cmp_better other; /* the first direction that disagreed */
	int rate;
	struct side_acc side[2]; /* 0 base, 1 new */
};

static void group_release(struct group *g)
{
	free(g->host);
	free(g->workload);
	free(g->params_json);
	free(g->params_text);
	free(g->metric);
	free(g->unit);
	side_release(&g->side[0]);
	side_release(&g->side[1]);
	memset(g, 0, sizeof(*g));
}

static void plan_freep(struct plan **p)
{
	if (*p)
		plan_free(*p);
}

/* The plan's override for a metric: the first entry whose name (a glob)
 * matches, or NULL. */
static const struct plan_metric *plan_metric_for(const struct plan *p,
						 const char *metric)
{
	for (size_t i = 0; p && i < p->nr_metrics; i++)
		if (!fnmatch(p->metrics[i].name, metric, 0))
			return &p->metrics[i];
	return NULL;
}

/*
 * The plan of the comparison, for its metric overrides: --plan, else the
 * one plan all of the patch's jobs ran.  *ret stays NULL when there is
 * none; a stored plan that no longer parses is an error.
 */
static int load_plan(struct db *db, struct compare_set *set, struct plan **ret,
		     struct strbuf *label, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t plan_id = 0;
	int r;

	*ret = NULL;
	if (set->plan_id)
		r = comparisons_plan_of_id(db, set->plan_id, &res, err);
	else if (set->patch_id > 0)
		r = comparisons_plan_of_patch(db, set->patch_id, &res, err);
	else
		return 0;
	if (r < 0)
		return -EIO;
	if (db_nrows(res) != 1)
		return 0;
	/* with the --set overrides its newest job was queued with */
	if (db_get_i64(res, 0, 2, 1, INT64_MAX, &plan_id) < 0)
		return -EIO;
	if (set->plan_id)
		strbuf_addf(label, "%s@%.12s", db_get(res, 0, 0),
			    db_get(res, 0, 3));
	r = jobs_load_plan_of_plan(db, plan_id,
				   set->patch_id > 0 ? set->patch_id : 0, NULL,
				   ret, err);
	if (r == -2) {
		strbuf_addstr(err, "(the stored plan no longer parses)");
		return -EINVAL;
	}
	if (r < 0)
		return -EIO;
	return 0;
}

/*
 * Compute the finished group into a new row of set (taking its strings);
 * compare_run() decides the whole set at the end.  tau: --tau, else the
 * plan's for this metric, else the metric's default; the plan may also
 * set the direction, which otherwise is the results' own -- or none, with
 * a note, when the two kernels' results disagree on it.
 */
static void group_finish(struct group *g, const struct compare_query *q,
			 const struct plan *plan, struct compare_set *set)
{
	const struct plan_metric *pm;
	struct compare_sample sb, sn;
	struct compare_row *row;

	side_flush_obs(&g->side[0], g->rate);
	side_flush_obs(&g->side[1], g->rate);
	side_sample(&g->side[0], &sb);
	side_sample(&g->side[1], &sn);
	if (!sb.n || !sn.n) {
		/* Measured under one kernel only: nothing to compare. */
		set->one_sided++;
		group_release(g);
		return;
	}
	ALLOC_GROW(set->rows, set->nr + 1, set->alloc);
	row = &set->rows[set->nr++];
	memset(row, 0, sizeof(*row));
	row->host_id = g->host_id;
	row->host = TAKE_PTR(g->host);
	row->workload = TAKE_PTR(g->workload);
	row->params_json = TAKE_PTR(g->params_json);
	row->params_text = TAKE_PTR(g->params_text);
	row->metric = TAKE_PTR(g->metric);
	row->unit = TAKE_PTR(g->unit);
	row->better = g->better;
	row->tau = compare_default_tau(row->metric);
	pm = plan_metric_for(plan, row->metric);
	if (pm && pm->tau_pct >= 0)
		row->tau = pm->tau_pct;
	row->decides = pm && pm->decides;
	if (pm && pm->direction == PLAN_DIR_HIGHER)
		row->better = CMP_BETTER_HIGHER;
	else if (pm && pm->direction == PLAN_DIR_LOWER)
		row->better = CMP_BETTER_LOWER;
	else if (pm && pm->direction == PLAN_DIR_NONE)
		row->better = CMP_BETTER_NONE;
	else if (g->better_conflict) {
		row->note = xstrfmt(
			"the results disagree on the direction (%s and %s "
			"is better): compared without one; set it in the "
			"plan's metrics",
			compare_better_name(g->better),
			compare_better_name(g->other));
		row->better = CMP_BETTER_NONE;
	}
	if (!isnan(q->tau_pct))
		row->tau = q->tau_pct;
	compare_stats_compute_at(&sb, &sn, set->nc_level, &row->s);
	group_release(g);
}

static int same_group(const struct group *g, int64_t host_id,
		      const char *workload, const char *params,
		      const char *metric)
{
	return g->metric && g->host_id == host_id &&
	       !strcmp(g->workload, workload) &&
	       !strcmp(g->params_json, params) && !strcmp(g->metric, metric);
}

int compare_run(struct db *db, const struct compare_query *q,
		struct compare_set *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct group g;
	_cleanup_(plan_freep) struct plan *plan = NULL;
	struct compare_query pq = *q;
	struct strvec sets = STRVEC_INIT;
	struct strbuf label = STRBUF_INIT;
	int r, nrows, own = q->own_jobs;

	memset(ret, 0, sizeof(*ret));
	memset(&g, 0, sizeof(g));
	ret->alpha = q->alpha > 0 && q->alpha < 1 ? q->alpha : COMPARE_ALPHA;
	ret->nc_level = q->nc_level > 0 && q->nc_level < 1
				? q->nc_level
				: COMPARE_NOCHANGE_LEVEL;
	if (q->look > 0) {
		if (q->patch_id <= 0 || !q->host || !q->plan ||
		    q->looks < q->look || q->max_block < 0) {
			strbuf_addstr(err, "a look of a sequence needs its "
					   "patch, host, plan and design");
			return -EINVAL;
		}
		ret->look = q->look;
		ret->looks = q->looks;
	}
	r = resolve_kernels(db, q, ret, err);
	if (r == 0 && q->patch_id > 0) {
		r = patch_question(db, q, ret, &sets, &own, err);
		if (!q->plan_set)
			pq.plan_set = &sets;
		pq.own_jobs = own;
	}
	if (r == 0)
		r = load_plan(db, ret, &plan, &label, err);
	if (r < 0) {
		strvec_clear(&sets);
		strbuf_release(&label);
		return r;
	}
	make_question(ret, &pq, pq.plan_set, own, label.buf, plan);
	strbuf_release(&label);
	/* A look reads only the runs of the sequence's own jobs, an
	 * answer with a fresh base those of the submission's jobs.  The
	 * workload is not a filter here: it keeps rows of the decided set
	 * (compare_keep_rows()), so that it never changes the family. */
	r = comparisons_results(
		db, ret->base_id, ret->new_id, q->host, NULL, ret->plan_id,
		q->look > 0 || own ? q->patch_id : 0,
		q->look > 0 ? q->max_block : INT_MAX, pq.plan_set, &res, err);
	strvec_clear(&sets);
	if (r < 0)
		return -EIO;
	nrows = db_nrows(res);
	for (int i = 0; i < nrows; i++) {
		int64_t host_id, kernel_id, n_sum = 0;
		double value, sd = 0;
		const char *metric = db_get(res, i, 5),
			   *obs = db_get(res, i, 9);
		struct side_acc *side;

		if (parse_i64(db_get(res, i, 0), 1, INT64_MAX, &host_id, NULL) <
			    0 ||
		    parse_i64(db_get(res, i, 8), 1, INT64_MAX, &kernel_id,
			      NULL) < 0 ||
		    parse_double(db_get(res, i, 10), -HUGE_VAL, HUGE_VAL,
				 &value, NULL) < 0) {
			strbuf_addstr(err, "unreadable result row");
			group_release(&g);
			return -EIO;
		}
		if (!same_group(&g, host_id, db_get(res, i, 2),
				db_get(res, i, 3), metric)) {
			if (g.metric)
				group_finish(&g, q, plan, ret);
			g.host_id = host_id;
			g.host = xstrdup(db_get(res, i, 1));
			g.workload = xstrdup(db_get(res, i, 2));
			g.params_json = xstrdup(db_get(res, i, 3));
			g.params_text = xstrdup(db_get(res, i, 4));
			g.metric = xstrdup(metric);
			g.unit = xstrdup(db_get(res, i, 6));
			if (compare_better_parse(db_get(res, i, 7), &g.better))
				g.better = CMP_BETTER_NONE;
			g.rate = compare_unit_is_rate(g.unit);
		} else if (!g.better_conflict) {
			enum cmp_better b;

			if (compare_better_parse(db_get(res, i, 7), &b))
				b = CMP_BETTER_NONE;
			if (b != g.better) {
				g.better_conflict = 1;
				g.other = b;
			}
		}
		side = &g.side[kernel_id == ret->new_id];
		if (db_get(res, i, 11)) {
			/* An imported summary; n = 1 is one observation. */
			if (parse_i64(db_get(res, i, 11), 1, INT32_MAX, &n_sum,
				      NULL) < 0 ||
			    (db_get(res, i, 12) &&
			     parse_double(db_get(res, i, 12), 0, HUGE_VAL, &sd,
					  NULL) < 0)) {
				strbuf_addstr(err, "unreadable summary row");
				group_release(&g);
				return -EIO;
			}
			if (n_sum > 1) {
				if (!side->have_summary++) {
					side->one_n = (double)n_sum;
					side->one_mean = value;
					side->one_sd = sd;
				}
				side_pool(side, (double)n_sum, value, sd);
				continue;
			}
		}
		if (!side->obs_key || strcmp(side->obs_key, obs)) {
			side_flush_obs(side, g.rate);
			side->obs_key = xstrdup(obs);
		}
		dvec_push(&side->iter, value);
	}
	if (g.metric)
		group_finish(&g, q, plan, ret);
	compare_set_decide(ret, ret->alpha);
	compare_keep_rows(ret, NULL, q->workload);
	return 0;
}

int compare_store(struct db *db, const struct compare_set *set,
		  struct strbuf *err)
{
	struct strbuf note = STRBUF_INIT;

	if (db_begin(db, err) < 0)
		return -EIO;
	/* One storer at a time: two concurrent compares of the same key
	 * would otherwise both retire the old row and collide on the
	 * one-latest-per-key index. */
	if (comparisons_lock(db, err) < 0) {
		db_rollback(db);
		return -EIO;
	}
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *row = &set->rows[i];
		struct db_args a = DB_ARGS_INIT;
		int r;

		db_args_i64(&a, set->base_id);
		db_args_i64(&a, set->new_id);
		if (set->patch_id > 0)
			db_args_i64(&a, set->patch_id);
		else
			db_args_str(&a, NULL);
		db_args_i64(&a, row->host_id);
		db_args_str(&a, row->workload);
		db_args_str(&a, row->params_json);
		db_args_str(&a, row->metric);
		db_args_str(&a, row->unit);
		db_args_str(&a, compare_better_name(row->better));
		db_args_i64(&a, (int64_t)row->s.n_base);
		db_args_i64(&a, (int64_t)row->s.n_new);
		db_args_double(&a, row->s.mean_base);
		db_args_double(&a, row->s.mean_new);
		db_args_double(&a, row->s.sd_base);
		db_args_double(&a, row->s.sd_new);
		db_args_double(&a, row->s.pct_change);
		db_args_double(&a, row->s.ci_low);
		db_args_double(&a, row->s.ci_high);
		db_args_double(&a, row->s.p_value);
		db_args_double(&a, row->tau);
		db_args_str(&a, compare_verdict_name(row->verdict));
		db_args_i64(&a, COMPARE_METHOD_VERSION);
		db_args_double(&a, row->s.ci90_low);
		db_args_double(&a, row->s.ci90_high);
		db_args_str(&a, row->s.ci_method);
		db_args_str(&a, row->s.p_method);
		strbuf_reset(&note);
		compare_row_note(row, &note);
		db_args_str(&a, note.len ? note.buf : NULL);
		db_args_str(&a, compare_scale_name(row->s.scale));
		db_args_double(&a, row->s.diff);
		db_args_double(&a, row->s.diff_low);
		db_args_double(&a, row->s.diff_high);
		db_args_double(&a, row->s.diff90_low);
		db_args_double(&a, row->s.diff90_high);
		db_args_double(&a, row->s.tau_ref);
		db_args_bool(&a, row->s.ci_unbounded);
		db_args_double(&a, row->s.nc_level);
		db_args_double(&a, set->alpha);
		db_args_double(&a, row->p_adjusted);
		db_args_i64(&a, row->family);
		db_args_i64(&a, set->look);
		db_args_i64(&a, set->looks);
		db_args_i64(&a, set->plan_id);
		db_args_str(&a, set->question ? set->question : "");
		db_args_bool(&a, set->planned);
		r = comparisons_insert(db, &a, err);
		db_args_clear(&a);
		if (r < 0) {
			db_rollback(db);
			strbuf_release(&note);
			return -EIO;
		}
	}
	strbuf_release(&note);
	if (db_commit(db, err) < 0)
		return -EIO;
	return 0;
}

int compare_delete(struct db *db, const struct compare_query *q,
		   int64_t *ret_rows, struct strbuf *err)
{
	struct compare_set set;
	int r;

	memset(&set, 0, sizeof(set));
	*ret_rows = 0;
	r = resolve_kernels(db, q, &set, err);
	if (r < 0)
		goto out;
	/* Every row of the key, not only the latest: a comparison made by
	 * mistake leaves no history behind to become the latest again. */
	r = comparisons_delete(db, set.base_id, set.new_id, q->host,
			       q->workload, ret_rows, err) < 0
		    ? -EIO
		    : 0;
out:
	compare_set_release(&set);
	return r;
}

/* Append the distinct values of one column among the runs of the pair
 * ("memchunk, pipe-pingpong"), for a message; col is fixed SQL. */
static void list_values(struct db *db, const struct compare_set *set,
			const char *col, struct strbuf *out)
{
	comparisons_runs_values(db, set->base_id, set->new_id, col, out);
}

int compare_why_empty(struct db *db, const struct compare_query *q,
		      const struct compare_set *set, struct strbuf *why)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf have = STRBUF_INIT;
	int64_t all = 0, host = 0, wl = 0, plan = 0, known_host = 1;
	int r;

	r = comparisons_runs_counts(db, set->base_id, set->new_id, q->host,
				    q->workload, set->plan_id, &res, why);
	if (r < 0)
		return -EIO;
	if (db_get_i64(res, 0, 0, 0, INT64_MAX, &all) < 0 ||
	    db_get_i64(res, 0, 1, 0, INT64_MAX, &host) < 0 ||
	    db_get_i64(res, 0, 2, 0, INT64_MAX, &wl) < 0 ||
	    db_get_i64(res, 0, 3, 0, INT64_MAX, &plan) < 0 ||
	    db_get_i64(res, 0, 4, 0, INT64_MAX, &known_host) < 0)
		return -EIO;
	if (q->host && !known_host) {
		strbuf_addf(why,
			    "no host named '%s' ('schedfarm host list' shows "
			    "them)",
			    q->host);
	} else if (!all) {
		strbuf_addf(why,
			    "neither %s nor %s has finished runs to compare",
			    set->base_name, set->new_name);
	} else if (q->host && !host) {
		list_values(db, set, "h.name", &have);
		strbuf_addf(why,
			    "%s and %s have no results on host '%s' (their "
			    "hosts: %s)",
			    set->base_name, set->new_name, q->host, have.buf);
	} else if (q->workload && !wl) {
		list_values(db, set, "r.workload", &have);
		strbuf_addf(why,
			    "%s and %s have no results of workload '%s' "
			    "(their workloads: %s)",
			    set->base_name, set->new_name, q->workload,
			    have.buf);
	} else if (q->plan && !plan) {
		list_values(db, set, "p.name", &have);
		strbuf_addf(why,
			    "%s and %s have no results of plan '%s' (their "
			    "plans: %s)",
			    set->base_name, set->new_name, q->plan, have.buf);
	} else {
		strbuf_addf(why,
			    "%s and %s have no results in common with these "
			    "filters (--host, --workload and --plan together)",
			    set->base_name, set->new_name);
	}
	strbuf_release(&have);
	return 0;
}
