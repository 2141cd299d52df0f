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

/* --- Sets of rows ------------------------------------------------------ */

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
