/*
 * compare.c - patch against baseline: observations, statistics, verdicts;
 * see compare.h for the method and REFERENCE.md section 1 for why.
 *
 * The numbers come from stats.c (the GSL door); this file decides which
 * statistic applies at which sample size, turns ratios into percentages,
 * applies the verdict rules, and moves rows between the database and
 * those functions.  Every statement is parameterised.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "analysis/compare.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/jobs.h"
#include "analysis/stats.h"
#include "banned.h"

const char *compare_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_REGRESSION:
		return "regression";
	case CMP_IMPROVEMENT:
		return "improvement";
	case CMP_NO_CHANGE:
		return "no-change";
	case CMP_INCONCLUSIVE:
		return "inconclusive";
	case CMP_INSUFFICIENT:
		return "insufficient-data";
	}
	return "inconclusive";
}

const char *compare_better_name(enum cmp_better b)
{
	switch (b) {
	case CMP_BETTER_HIGHER:
		return "higher";
	case CMP_BETTER_LOWER:
		return "lower";
	case CMP_BETTER_NONE:
		return "none";
	}
	return "none";
}

int compare_better_parse(const char *s, enum cmp_better *ret)
{
	if (!strcmp(s, "higher"))
		*ret = CMP_BETTER_HIGHER;
	else if (!strcmp(s, "lower"))
		*ret = CMP_BETTER_LOWER;
	else if (!strcmp(s, "none"))
		*ret = CMP_BETTER_NONE;
	else
		return -1;
	return 0;
}

/* Case-insensitive: does s end with suffix? */
static int ends_with_ci(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lf = strlen(suffix);

	return ls >= lf && !strcasecmp(s + ls - lf, suffix);
}

int compare_unit_is_rate(const char *unit)
{
	static const char *const suffixes[] = {
		"/s",	      "/sec",	 "/sec.",      "/second",  "/min",
		"/minute",    "/h",	 "/hour",      "per sec",  "per sec.",
		"per second", "per min", "per minute", "per hour", "ops",
		"jpm",	      "tps",	 "qps",	       "iops",	   "ops/sec",
	};
	struct strbuf u = STRBUF_INIT;
	int rate = 0;

	if (!unit)
		return 0;
	strbuf_addstr(&u, unit);
	strbuf_trim(&u);
	for (size_t i = 0; i < ARRAY_SIZE(suffixes) && !rate; i++) {
		size_t lu = u.len, ls = strlen(suffixes[i]);

		/* A word suffix ("ops") must be a word of its own: "hops" and
		 * "loops" are not rates. */
		rate = ends_with_ci(u.buf, suffixes[i]) &&
		       (suffixes[i][0] == '/' || suffixes[i][0] == 'p' ||
			lu == ls ||
			!isalpha((unsigned char)u.buf[lu - ls - 1]));
	}
	strbuf_release(&u);
	return rate;
}

double compare_default_tau(const char *metric)
{
	static const char *const tail[] = {
		"p90",	       "p95",	      "p99",	     "p999",
		"90th",	       "95th",	      "99th",	     "tail",
		"max_latency", "latency_max", "max-latency", "latency-max"
	};
	_cleanup_free_ char *m = xstrdup(metric ? metric : "");

	for (char *c = m; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < ARRAY_SIZE(tail); i++)
		if (strstr(m, tail[i]))
			return COMPARE_TAU_TAIL;
	return COMPARE_TAU_DEFAULT;
}

double compare_observation(const double *iter, size_t n, int rate)
{
	if (n == 0)
		return NAN;
	if (rate) {
		double h = stats_harmonic_mean(iter, n);

		if (!isnan(h))
			return h;
	}
	return stats_mean(iter, n);
}

/* A side as a summary, whatever form it came in. */
static void side_summary(const struct compare_sample *s,
			 struct stats_summary *ret)
{
	if (s->obs) {
		stats_summarize(s->obs, s->n, ret);
	} else {
		ret->n = s->n;
		ret->mean = s->n ? s->mean : NAN;
		ret->sd = s->n >= 2 ? s->sd : NAN;
	}
}

static double pct(double ratio)
{
	return isfinite(ratio) ? 100 * (ratio - 1) : NAN;
}

void compare_stats_compute(const struct compare_sample *base,
			   const struct compare_sample *new_,
			   struct compare_stats *ret)
{
	struct stats_summary sa, sb;
	struct stats_interval ci[2];
	size_t nmin;
	int both_obs = base->obs && new_->obs;

	memset(ret, 0, sizeof(*ret));
	side_summary(base, &sa);
	side_summary(new_, &sb);
	ret->n_base = sa.n;
	ret->n_new = sb.n;
	ret->mean_base = sa.mean;
	ret->mean_new = sb.mean;
	ret->sd_base = sa.sd;
	ret->sd_new = sb.sd;
	ret->pct_change = ret->ci_low = ret->ci_high = NAN;
	ret->ci90_low = ret->ci90_high = ret->p_value = NAN;
	if (sa.n >= 1 && sb.n >= 1 && sa.mean != 0)
		ret->pct_change = pct(sb.mean / sa.mean);
	nmin = sa.n < sb.n ? sa.n : sb.n;
	if (nmin < 2)
		return;

	/* The interval of the ratio, then of %change. */
	if (both_obs && nmin >= COMPARE_BCA_MIN_N) {
		static const double confs[2] = { 0.95, 0.90 };
		struct stats_rng *rng = stats_rng_new(COMPARE_BOOT_SEED);

		if (stats_bca_ratio(base->obs, base->n, new_->obs, new_->n,
				    confs, 2, COMPARE_NBOOT, rng, ci) == 0)
			ret->ci_method = "bca";
		stats_rng_free(rng);
	} else if (stats_fieller(&sa, &sb, 0.95, &ci[0]) == 0 &&
		   stats_fieller(&sa, &sb, 0.90, &ci[1]) == 0) {
		ret->ci_method = "fieller";
		ret->ci_unbounded = ci[0].unbounded;
	}
	if (ret->ci_method && !ret->ci_unbounded) {
		ret->ci_low = pct(ci[0].low);
		ret->ci_high = pct(ci[0].high);
		if (!ci[1].unbounded) {
			ret->ci90_low = pct(ci[1].low);
			ret->ci90_high = pct(ci[1].high);
		}
	}

	/* The test. */
	if (both_obs && nmin >= COMPARE_MW_MIN_N) {
		double u;
		int exact;

		if (stats_mann_whitney(base->obs, base->n, new_->obs, new_->n,
				       COMPARE_MW_EXACT_MAX, &u, &ret->p_value,
				       &exact) == 0)
			ret->p_method = exact ? "mann-whitney-exact"
					      : "mann-whitney-normal";
	} else if (both_obs) {
		if (stats_welch_log(base->obs, base->n, new_->obs, new_->n,
				    &ret->p_value) == 0 &&
		    !isnan(ret->p_value))
			ret->p_method = "welch-log";
	} else if (stats_welch_log_summary(&sa, &sb, &ret->p_value) == 0 &&
		   !isnan(ret->p_value)) {
		ret->p_method = "welch-log";
	}
	if (!ret->p_method)
		ret->p_value = NAN;
}

enum cmp_verdict compare_decide(const struct compare_stats *s,
				enum cmp_better better, double tau_pct,
				double alpha)
{
	int have_ci = !isnan(s->ci_low) && !isnan(s->ci_high);
	int have_ci90 = !isnan(s->ci90_low) && !isnan(s->ci90_high);
	int significant = !isnan(s->p_value) && s->p_value < alpha;

	if (s->n_base < COMPARE_MIN_N || s->n_new < COMPARE_MIN_N)
		return CMP_INSUFFICIENT;
	if (significant && have_ci && better != CMP_BETTER_NONE) {
		int up = s->ci_low > tau_pct, down = s->ci_high < -tau_pct;

		if (up)
			return better == CMP_BETTER_HIGHER ? CMP_IMPROVEMENT
							   : CMP_REGRESSION;
		if (down)
			return better == CMP_BETTER_HIGHER ? CMP_REGRESSION
							   : CMP_IMPROVEMENT;
	}
	if (have_ci90 && s->ci90_low >= -tau_pct && s->ci90_high <= tau_pct)
		return CMP_NO_CHANGE;
	return CMP_INCONCLUSIVE;
}

int compare_adaptive_next(const struct compare_sample *base,
			  const struct compare_sample *new_,
			  enum cmp_better better, double tau_pct, int look,
			  int cap_per_side, struct compare_next *ret,
			  struct strbuf *reason)
{
	size_t nmin;

	memset(ret, 0, sizeof(*ret));
	if (look < 1 || look > COMPARE_POCOCK_LOOKS || cap_per_side < 1)
		return -1;
	ret->threshold = COMPARE_POCOCK_ALPHA;
	compare_stats_compute(base, new_, &ret->stats);
	ret->verdict =
		compare_decide(&ret->stats, better, tau_pct, ret->threshold);
	nmin = base->n < new_->n ? base->n : new_->n;
	if (ret->verdict == CMP_REGRESSION || ret->verdict == CMP_IMPROVEMENT) {
		ret->stop = 1;
		strbuf_addf(reason,
			    "decided at look %d of %d: %s (p = %.3g < %.4g, "
			    "95%% CI beyond %.3g%%)",
			    look, COMPARE_POCOCK_LOOKS,
			    compare_verdict_name(ret->verdict),
			    ret->stats.p_value, ret->threshold, tau_pct);
	} else if (ret->verdict == CMP_NO_CHANGE) {
		ret->stop = 1;
		strbuf_addf(reason,
			    "decided at look %d of %d: no-change (90%% CI "
			    "inside +-%.3g%%)",
			    look, COMPARE_POCOCK_LOOKS, tau_pct);
	} else if (look >= COMPARE_POCOCK_LOOKS) {
		ret->stop = 1;
		strbuf_addf(reason,
			    "stopped %s after the last look (%d of %d), %zu "
			    "and %zu boots",
			    compare_verdict_name(ret->verdict), look,
			    COMPARE_POCOCK_LOOKS, base->n, new_->n);
	} else if (nmin + COMPARE_BLOCK > (size_t)cap_per_side) {
		ret->stop = 1;
		strbuf_addf(reason,
			    "stopped %s at the cap: %zu and %zu boots, "
			    "another block of %d would pass %d per side",
			    compare_verdict_name(ret->verdict), base->n,
			    new_->n, COMPARE_BLOCK, cap_per_side);
	} else {
		ret->add_per_side = COMPARE_BLOCK;
		strbuf_addf(reason,
			    "%s at look %d of %d with %zu and %zu boots: "
			    "queue %d more per side",
			    compare_verdict_name(ret->verdict), look,
			    COMPARE_POCOCK_LOOKS, base->n, new_->n,
			    COMPARE_BLOCK);
	}
	return 0;
}

/* --- The database layer ------------------------------------------------ */

static void compare_row_release(struct compare_row *r)
{
	free(r->host);
	free(r->workload);
	free(r->params_json);
	free(r->params_text);
	free(r->metric);
	free(r->unit);
}

void compare_set_release(struct compare_set *set)
{
	for (size_t i = 0; i < set->nr; i++)
		compare_row_release(&set->rows[i]);
	free(set->rows);
	free(set->base_name);
	free(set->new_name);
	memset(set, 0, sizeof(*set));
}

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
	struct strvec sets = STRVEC_INIT;
	const char *body;
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
	body = db_get(res, 0, 1);
	/* with the --set overrides its newest job was queued with */
	if (db_get_i64(res, 0, 2, 1, INT64_MAX, &plan_id) < 0 ||
	    jobs_load_plan_set_of_plan(db, plan_id, set->patch_id, &sets, err) <
		    0) {
		strvec_clear(&sets);
		return -EIO;
	}
	r = plan_parse_set(db_get(res, 0, 0), body, strlen(body), &sets, ret,
			   err);
	strvec_clear(&sets);
	if (r < 0) {
		strbuf_addstr(err, "(the stored plan no longer parses)");
		return -EINVAL;
	}
	return 0;
}

/*
 * Compute the finished group into a new row of set (taking its strings).
 * tau: --tau, else the plan's for this metric, else the metric's default;
 * the plan may also override the direction.
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
	if (!isnan(q->tau_pct))
		row->tau = q->tau_pct;
	compare_stats_compute(&sb, &sn, &row->s);
	row->verdict = compare_decide(&row->s, row->better, row->tau,
				      q->look > 0 ? COMPARE_POCOCK_ALPHA
						  : COMPARE_ALPHA);
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
		"ORDER BY h.name, r.host_id, r.workload, 4, s.metric, "
		"  r.kernel_id, obs, s.iteration, s.id";
	struct db_args a = DB_ARGS_INIT;
	_cleanup_db_result_ struct db_result *res = NULL;
	struct group g;
	_cleanup_(plan_freep) struct plan *plan = NULL;
	int r, nrows;

	memset(ret, 0, sizeof(*ret));
	memset(&g, 0, sizeof(g));
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
		"  note) "
		"VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, "
		"  $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, "
		"  $24, $25, $26, $27)";

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
		db_args_str(&a,
			    row->s.ci_unbounded
				    ? "Fieller interval unbounded: the base "
				      "mean is not distinguishable from 0"
				    : NULL);
		r = db_exec_args(db, NULL, err, sql, &a);
		db_args_clear(&a);
		if (r < 0) {
			db_rollback(db);
			return -EIO;
		}
	}
	if (db_commit(db, err) < 0)
		return -EIO;
	return 0;
}

static int is_decided(enum cmp_verdict v)
{
	return v == CMP_REGRESSION || v == CMP_IMPROVEMENT ||
	       v == CMP_NO_CHANGE;
}

int compare_set_next(const struct compare_set *set, int look, int cap_per_side,
		     int *ret_stop, int *ret_add, struct strbuf *reason)
{
	size_t deciding = 0, open = 0, nmin = SIZE_MAX;
	int any_flag = 0;
	struct strbuf list = STRBUF_INIT;

	*ret_stop = 1;
	*ret_add = 0;
	if (look < 1 || look > COMPARE_POCOCK_LOOKS || cap_per_side < 1)
		return -1;
	for (size_t i = 0; i < set->nr; i++)
		any_flag |= set->rows[i].decides;
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];
		size_t n = r->s.n_base < r->s.n_new ? r->s.n_base : r->s.n_new;

		if (any_flag && !r->decides)
			continue;
		deciding++;
		if (n < nmin)
			nmin = n;
		if (is_decided(r->verdict))
			continue;
		open++;
		if (open <= 5)
			strbuf_addf(&list, "%s%s %s on %s",
				    open > 1 ? ", " : "", r->metric,
				    compare_verdict_name(r->verdict), r->host);
	}
	if (open > 5)
		strbuf_addf(&list, " and %zu more", open - 5);
	if (deciding == 0) {
		strbuf_addf(reason,
			    "look %d of %d: no deciding metric has "
			    "results: stop",
			    look, COMPARE_POCOCK_LOOKS);
	} else if (open == 0) {
		strbuf_addf(reason,
			    "decided at look %d of %d: all %zu deciding "
			    "metric%s decided (p < %.4g per look)",
			    look, COMPARE_POCOCK_LOOKS, deciding,
			    deciding == 1 ? "" : "s", COMPARE_POCOCK_ALPHA);
	} else if (look >= COMPARE_POCOCK_LOOKS) {
		strbuf_addf(reason,
			    "stopped after the last look (%d of %d) with %zu "
			    "undecided: %s",
			    look, COMPARE_POCOCK_LOOKS, open, list.buf);
	} else if (nmin + COMPARE_BLOCK > (size_t)cap_per_side) {
		strbuf_addf(reason,
			    "stopped at the cap (%d boots per side) with %zu "
			    "undecided: %s",
			    cap_per_side, open, list.buf);
	} else {
		*ret_stop = 0;
		*ret_add = COMPARE_BLOCK;
		strbuf_addf(reason,
			    "look %d of %d: %zu undecided (%s): queue %d more "
			    "boots per side",
			    look, COMPARE_POCOCK_LOOKS, open, list.buf,
			    COMPARE_BLOCK);
	}
	strbuf_release(&list);
	return 0;
}

/* --- Rendering ----------------------------------------------------------- */

/* A number in a width-limited column: integers when large. */
static void add_num(struct strbuf *out, int width, double v)
{
	if (isnan(v))
		strbuf_addf(out, "%*s", width, "-");
	else if (fabs(v) >= 1e15)
		strbuf_addf(out, "%*.4g", width, v);
	else if (fabs(v) >= 1000)
		strbuf_addf(out, "%*.0f", width, v);
	else if (fabs(v) >= 1)
		strbuf_addf(out, "%*.2f", width, v);
	else
		strbuf_addf(out, "%*.4g", width, v);
}

/* "± N%" when the relative sd is above 2% (as LKP prints it), else blank. */
static void add_rsd(struct strbuf *out, double mean, double sd)
{
	double rsd = mean != 0 ? 100 * sd / fabs(mean) : NAN;

	if (isfinite(rsd) && rsd > 2)
		strbuf_addf(out, " \xc2\xb1%3.0f%%", rsd);
	else
		strbuf_addstr(out, "      ");
}

static void add_pct(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "-");
	else
		strbuf_addf(out, "%+.1f%%", v);
}

void compare_format_text(const struct compare_set *set, struct strbuf *out)
{
	const struct compare_row *prev = NULL;

	strbuf_addf(out, "base: %s    new: %s", set->base_name, set->new_name);
	if (set->patch_id > 0)
		strbuf_addf(out, "    PLM#%lld", (long long)set->patch_id);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];
		struct strbuf ci = STRBUF_INIT, change = STRBUF_INIT;

		if (!prev || strcmp(prev->host, r->host) ||
		    strcmp(prev->workload, r->workload) ||
		    strcmp(prev->params_json, r->params_json)) {
			strbuf_addf(out, "\nhost %s  workload %s", r->host,
				    r->workload);
			if (r->params_text[0])
				strbuf_addf(out, "  params %s", r->params_text);
			strbuf_addf(
				out,
				"\n%13s %6s %9s  %-18s %13s %6s  %-5s  %s\n",
				"base", "%sd", "%change", "95% CI", "new",
				"%sd", "n", "metric");
		}
		prev = r;
		add_num(out, 13, r->s.mean_base);
		add_rsd(out, r->s.mean_base, r->s.sd_base);
		add_pct(&change, r->s.pct_change);
		strbuf_addf(out, " %9s  ", change.buf);
		if (r->s.ci_unbounded) {
			strbuf_addstr(&ci, "unbounded");
		} else if (isnan(r->s.ci_low)) {
			strbuf_addstr(&ci, "-");
		} else {
			strbuf_addch(&ci, '[');
			add_pct(&ci, r->s.ci_low);
			strbuf_addstr(&ci, ", ");
			add_pct(&ci, r->s.ci_high);
			strbuf_addch(&ci, ']');
		}
		strbuf_addf(out, "%-18s ", ci.buf);
		add_num(out, 13, r->s.mean_new);
		add_rsd(out, r->s.mean_new, r->s.sd_new);
		strbuf_reset(&change);
		strbuf_addf(&change, "%zu/%zu", r->s.n_base, r->s.n_new);
		strbuf_addf(out, "  %-5s  %s", change.buf, r->metric);
		if (r->unit[0])
			strbuf_addf(out, " (%s)", r->unit);
		/* Marked only when it is not no-change, as LKP marks. */
		if (r->verdict != CMP_NO_CHANGE) {
			strbuf_addf(out, "  %s",
				    compare_verdict_name(r->verdict));
			if (r->s.p_value < 1e-15)
				strbuf_addstr(out, " (p<1e-15)");
			else if (!isnan(r->s.p_value))
				strbuf_addf(out, " (p=%.2g)", r->s.p_value);
		}
		strbuf_addch(out, '\n');
		strbuf_release(&ci);
		strbuf_release(&change);
	}
}

void compare_format_json(const struct compare_set *set, struct strbuf *out)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];

		strbuf_addstr(out, i ? ",\n{" : "\n{");
		strbuf_addstr(out, "\"host\":");
		strbuf_add_json_str(out, r->host);
		strbuf_addstr(out, ",\"workload\":");
		strbuf_add_json_str(out, r->workload);
		/* params is jsonb text from the database: already JSON. */
		strbuf_addf(out, ",\"params\":%s", r->params_json);
		strbuf_addstr(out, ",\"metric\":");
		strbuf_add_json_str(out, r->metric);
		strbuf_addstr(out, ",\"unit\":");
		strbuf_add_json_str(out, r->unit);
		strbuf_addstr(out, ",\"better\":");
		strbuf_add_json_str(out, compare_better_name(r->better));
		strbuf_addf(out, ",\"n_base\":%zu,\"n_new\":%zu", r->s.n_base,
			    r->s.n_new);
		strbuf_addstr(out, ",\"mean_base\":");
		strbuf_add_json_double(out, r->s.mean_base);
		strbuf_addstr(out, ",\"mean_new\":");
		strbuf_add_json_double(out, r->s.mean_new);
		strbuf_addstr(out, ",\"stddev_base\":");
		strbuf_add_json_double(out, r->s.sd_base);
		strbuf_addstr(out, ",\"stddev_new\":");
		strbuf_add_json_double(out, r->s.sd_new);
		strbuf_addstr(out, ",\"pct_change\":");
		strbuf_add_json_double(out, r->s.pct_change);
		strbuf_addstr(out, ",\"ci_low\":");
		strbuf_add_json_double(out, r->s.ci_low);
		strbuf_addstr(out, ",\"ci_high\":");
		strbuf_add_json_double(out, r->s.ci_high);
		strbuf_addstr(out, ",\"p_value\":");
		strbuf_add_json_double(out, r->s.p_value);
		strbuf_addstr(out, ",\"verdict\":");
		strbuf_add_json_str(out, compare_verdict_name(r->verdict));
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, set->nr ? "\n]\n" : "]\n");
}
