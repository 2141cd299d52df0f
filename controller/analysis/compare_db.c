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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "analysis/compare.h"
#include "parse.h"
#include "plan/plan.h"
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

static int lookup_id(struct db *db, const char *sql, const char *arg,
		     int64_t *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *params[1] = { arg };

	if (db_exec(db, &res, err, sql, 1, params) < 0)
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
		struct db_args a = DB_ARGS_INIT;
		_cleanup_db_result_ struct db_result *res = NULL;

		db_args_i64(&a, q->patch_id);
		/* The base kernel is the patch's row, else the kernel named
		 * by its base. */
		r = db_exec_args(
			db, &res, err,
			"SELECT coalesce(p.base_kernel_id, kb.id), "
			"p.kernel_id FROM patches p LEFT JOIN kernels kb "
			"ON kb.name = p.base WHERE p.id = $1",
			&a);
		db_args_clear(&a);
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
		r = lookup_id(db, "SELECT id FROM kernels WHERE name = $1",
			      q->base, &set->base_id, err);
		if (r == -ENOENT)
			strbuf_addf(err, "no kernel '%s'", q->base);
		if (r < 0)
			return r;
		r = lookup_id(db, "SELECT id FROM kernels WHERE name = $1",
			      q->new_, &set->new_id, err);
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
		struct db_args a = DB_ARGS_INIT;
		_cleanup_db_result_ struct db_result *res = NULL;

		db_args_i64(&a, set->base_id);
		db_args_i64(&a, set->new_id);
		r = db_exec_args(
			db, &res, err,
			"SELECT (SELECT name FROM kernels WHERE id = $1), "
			"(SELECT name FROM kernels WHERE id = $2)",
			&a);
		db_args_clear(&a);
		if (r < 0)
			return -EIO;
		set->base_name = xstrdup(db_get(res, 0, 0));
		set->new_name = xstrdup(db_get(res, 0, 1));
	}
	if (q->plan) {
		r = lookup_id(db,
			      "SELECT id FROM plans WHERE name = $1 OR "
			      "sha256 = $1 ORDER BY created_at DESC LIMIT 1",
			      q->plan, &set->plan_id, err);
		if (r == -ENOENT)
			strbuf_addf(err, "no plan '%s'", q->plan);
		if (r < 0)
			return r;
	}
	return 0;
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
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int64_t plan_id = 0;
	int r;

	*ret = NULL;
	if (set->plan_id) {
		db_args_i64(&a, set->plan_id);
		r = db_exec_args(
			db, &res, err,
			"SELECT name, body, id FROM plans WHERE id = $1", &a);
	} else if (set->patch_id > 0) {
		db_args_i64(&a, set->patch_id);
		r = db_exec_args(
			db, &res, err,
			"SELECT p.name, p.body, p.id FROM plans p WHERE p.id = "
			"(SELECT min(plan_id) FROM jobs WHERE patch_id "
			"= $1 HAVING count(DISTINCT plan_id) = 1)",
			&a);
	} else {
		return 0;
	}
	db_args_clear(&a);
	if (r < 0)
		return -EIO;
	if (db_nrows(res) != 1)
		return 0;
	/* with the --set overrides its newest job was queued with */
	if (db_get_i64(res, 0, 2, 1, INT64_MAX, &plan_id) < 0)
		return -EIO;
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
	static const char sql[] =
		"SELECT r.host_id, h.name, r.workload, r.params::text, "
		"  coalesce((SELECT string_agg(e.key || '=' || "
		"     coalesce(e.value #>> '{}', 'null'), ';' ORDER BY e.key) "
		"   FROM jsonb_each(r.params) e), ''), "
		"  s.metric, s.unit, s.direction, r.kernel_id, "
		"  CASE WHEN r.boot > 0 AND r.job_id IS NOT NULL "
		"       THEN 'j' || r.job_id || '.' || r.boot "
		"       ELSE 'r' || r.id END AS obs, "
		"  s.value, s.n, s.stddev "
		"FROM results s JOIN runs r ON r.id = s.run_id "
		"  JOIN hosts h ON h.id = r.host_id "
		"WHERE r.kernel_id IN ($1, $2) "
		"  AND r.status IN ('done', 'imported') AND NOT s.warmup "
		"  AND ($3::text IS NULL OR h.name = $3) "
		"  AND ($4::text IS NULL OR r.workload = $4) "
		"  AND ($5::bigint IS NULL OR r.plan_id = $5) "
		"  AND ($6::bigint IS NULL OR EXISTS (SELECT 1 FROM jobs j "
		"       WHERE j.id = r.job_id AND j.patch_id = $6 "
		"       AND j.block <= $7)) "
		/* r.params as jsonb, not text: a sweep's numbers then come
		 * in numeric order (1, 2, 16, 128), not as text sorts. */
		"ORDER BY h.name, r.host_id, r.workload, r.params, s.metric, "
		"  r.kernel_id, obs, s.iteration, s.id";
	struct db_args a = DB_ARGS_INIT;
	_cleanup_db_result_ struct db_result *res = NULL;
	struct group g;
	_cleanup_(plan_freep) struct plan *plan = NULL;
	int r, nrows;

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
	if (r < 0)
		return r;
	r = load_plan(db, ret, &plan, err);
	if (r < 0)
		return r;
	db_args_i64(&a, ret->base_id);
	db_args_i64(&a, ret->new_id);
	db_args_str(&a, q->host);
	db_args_str(&a, q->workload);
	if (ret->plan_id)
		db_args_i64(&a, ret->plan_id);
	else
		db_args_str(&a, NULL);
	if (q->look > 0) {
		db_args_i64(&a, q->patch_id);
		db_args_i64(&a, q->max_block);
	} else {
		db_args_str(&a, NULL);
		db_args_str(&a, NULL);
	}
	r = db_exec_args(db, &res, err, sql, &a);
	db_args_clear(&a);
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
	return 0;
}

int compare_store(struct db *db, const struct compare_set *set,
		  struct strbuf *err)
{
	static const char sql[] =
		"INSERT INTO comparisons (base_kernel_id, new_kernel_id, "
		"  patch_id, host_id, workload, params, metric, unit, better, "
		"  n_base, n_new, mean_base, mean_new, stddev_base, "
		"stddev_new, "
		"  pct_change, ci_low, ci_high, p_value, tau, verdict, "
		"  method_version, ci90_low, ci90_high, ci_method, p_method, "
		"  note, scale, diff, diff_low, diff_high, diff90_low, "
		"  diff90_high, tau_ref, ci_unbounded, nc_level, alpha, "
		"  p_adjusted, family, look, looks) "
		"VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, "
		"  $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, "
		"  $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, "
		"  $36, $37, $38, $39, nullif($40, 0), nullif($41, 0))";
	struct strbuf note = STRBUF_INIT;

	if (db_begin(db, err) < 0)
		return -EIO;
	/* One storer at a time: two concurrent compares of the same key
	 * would otherwise both retire the old row and collide on the
	 * one-latest-per-key index. */
	if (db_cmd(db, err,
		   "SELECT "
		   "pg_advisory_xact_lock(hashtext('schedfarm.compare'))") <
	    0) {
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
		r = db_exec_args(db, NULL, err, sql, &a);
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
	_cleanup_db_result_ struct db_result *res = NULL;
	struct compare_set set;
	struct db_args a = DB_ARGS_INIT;
	int r;

	memset(&set, 0, sizeof(set));
	*ret_rows = 0;
	r = resolve_kernels(db, q, &set, err);
	if (r < 0)
		goto out;
	db_args_i64(&a, set.base_id);
	db_args_i64(&a, set.new_id);
	db_args_str(&a, q->host);
	db_args_str(&a, q->workload);
	/* Every row of the key, not only the latest: a comparison made by
	 * mistake leaves no history behind to become the latest again. */
	r = db_exec_args(
		db, &res, err,
		"DELETE FROM comparisons c WHERE c.base_kernel_id = $1 "
		"AND c.new_kernel_id = $2 AND ($3::text IS NULL OR "
		"c.host_id IN (SELECT id FROM hosts WHERE name = $3)) "
		"AND ($4::text IS NULL OR c.workload = $4)",
		&a);
	db_args_clear(&a);
	if (r < 0) {
		r = -EIO;
		goto out;
	}
	*ret_rows = db_cmd_tuples(res);
	r = 0;
out:
	compare_set_release(&set);
	return r;
}

/* Append the distinct values of one column among the runs of the pair
 * ("memchunk, pipe-pingpong"), for a message; col is fixed SQL. */
static void list_values(struct db *db, const struct compare_set *set,
			const char *col, struct strbuf *out)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf sql = STRBUF_INIT, err = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;

	strbuf_addf(&sql,
		    "SELECT string_agg(DISTINCT %s, ', ') FROM runs r JOIN "
		    "hosts h ON h.id = r.host_id LEFT JOIN plans p ON p.id = "
		    "r.plan_id WHERE r.kernel_id IN ($1, $2) AND r.status IN "
		    "('done', 'imported')",
		    col);
	db_args_i64(&a, set->base_id);
	db_args_i64(&a, set->new_id);
	if (db_exec_args(db, &res, &err, sql.buf, &a) == 0 && db_get(res, 0, 0))
		strbuf_addstr(out, db_get(res, 0, 0));
	db_args_clear(&a);
	strbuf_release(&sql);
	strbuf_release(&err);
}

int compare_why_empty(struct db *db, const struct compare_query *q,
		      const struct compare_set *set, struct strbuf *why)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	struct strbuf have = STRBUF_INIT;
	int64_t all = 0, host = 0, wl = 0, plan = 0, known_host = 1;
	int r;

	db_args_i64(&a, set->base_id);
	db_args_i64(&a, set->new_id);
	db_args_str(&a, q->host);
	db_args_str(&a, q->workload);
	if (set->plan_id)
		db_args_i64(&a, set->plan_id);
	else
		db_args_str(&a, NULL);
	r = db_exec_args(
		db, &res, why,
		"SELECT count(*), count(*) FILTER (WHERE h.name = $3), "
		"count(*) FILTER (WHERE r.workload = $4), count(*) FILTER "
		"(WHERE r.plan_id = $5), (SELECT count(*) FROM hosts WHERE "
		"$3::text IS NULL OR name = $3) FROM runs r JOIN hosts h ON "
		"h.id = r.host_id WHERE r.kernel_id IN ($1, $2) AND r.status "
		"IN ('done', 'imported')",
		&a);
	db_args_clear(&a);
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
