/*
 * compare.c - patch against baseline: the method (see compare.h for what
 * it computes, REFERENCE.md section 1 and doc/STATISTICS.md for why).
 *
 * The numbers come from stats.c (the GSL door); this file decides which
 * statistic applies at which sample size and on which scale (percent, or
 * the difference when the values cross zero), turns ratios into
 * percentages with the base's sign, applies the verdict rules to one row
 * and Holm's correction to a host's deciding rows, and says when a
 * sequence stops.  The database layer is compare_db.c, the renderers
 * compare_format.c.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "analysis/compare.h"
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
	case CMP_CHANGED:
		return "changed";
	}
	return "inconclusive";
}

int compare_verdict_parse(const char *s, enum cmp_verdict *ret)
{
	static const enum cmp_verdict all[] = {
		CMP_REGRESSION,	  CMP_IMPROVEMENT,  CMP_NO_CHANGE,
		CMP_INCONCLUSIVE, CMP_INSUFFICIENT, CMP_CHANGED,
	};

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(s, compare_verdict_name(all[i]))) {
			*ret = all[i];
			return 0;
		}
	return -1;
}

const char *compare_scale_name(enum cmp_scale s)
{
	return s == CMP_SCALE_DIFF ? "difference" : "percent";
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

/*
 * %change from the ratio r = new / base: 100 (new - base) / |base| is
 * 100 (r - 1) for a positive base and 100 (1 - r) for a negative one, so
 * the sign is the difference's.  NaN when r is not finite.
 */
static double pct_of_ratio(double r, double base)
{
	if (!isfinite(r))
		return NAN;
	return base > 0 ? 100 * (r - 1) : 100 * (1 - r);
}

/* A ratio interval as a %change interval (ends swap for a negative base). */
static void pct_interval(const struct stats_interval *ci, double base,
			 double *ret_low, double *ret_high)
{
	double a = pct_of_ratio(ci->low, base),
	       b = pct_of_ratio(ci->high, base);

	if (base > 0) {
		*ret_low = a;
		*ret_high = b;
	} else {
		*ret_low = b;
		*ret_high = a;
	}
}

/*
 * Is a percentage of the base meaningless: do the values cross zero
 * (some below, some above) or include 0, or is the base mean 0?  Then
 * the comparison is on the difference.  Otherwise every value has one
 * sign, and the ratio of the means is compared on the log scale.  A
 * summary's mean stands for its values.
 */
static int needs_difference(const struct compare_sample *base,
			    const struct compare_sample *new_, double mean_base)
{
	const struct compare_sample *side[2] = { base, new_ };
	int neg = 0, pos = 0, zero = 0;

	if (mean_base == 0)
		return 1;
	for (int k = 0; k < 2; k++) {
		if (!side[k]->obs) {
			neg |= side[k]->n && side[k]->mean < 0;
			pos |= side[k]->n && side[k]->mean > 0;
			zero |= side[k]->n && side[k]->mean == 0;
			continue;
		}
		for (size_t i = 0; i < side[k]->n; i++) {
			neg |= side[k]->obs[i] < 0;
			pos |= side[k]->obs[i] > 0;
			zero |= side[k]->obs[i] == 0;
		}
	}
	return (neg && pos) || zero;
}

/*
 * The root-mean-square value of both sides, from their summaries: what
 * tau is a percentage of on the difference scale.  Scaled by the largest
 * magnitude, so it cannot overflow.
 */
static double rms_of(const struct stats_summary *a,
		     const struct stats_summary *b)
{
	const struct stats_summary *side[2] = { a, b };
	double m = 0, acc = 0, n = 0;

	for (int k = 0; k < 2; k++) {
		if (isfinite(side[k]->mean) && fabs(side[k]->mean) > m)
			m = fabs(side[k]->mean);
		if (isfinite(side[k]->sd) && side[k]->sd > m)
			m = side[k]->sd;
	}
	if (m == 0)
		return 0;
	for (int k = 0; k < 2; k++) {
		double nk = (double)side[k]->n, mu, sd;

		if (side[k]->n == 0 || !isfinite(side[k]->mean))
			continue;
		mu = side[k]->mean / m;
		sd = isfinite(side[k]->sd) ? side[k]->sd / m : 0;
		acc += nk * (mu * mu + sd * sd * (nk - 1) / nk);
		n += nk;
	}
	return n > 0 ? sqrt(acc / n) * m : NAN;
}

/*
 * The intervals of the percent scale into ret (n >= 2 a side, every
 * value of one sign): the ratio of means on the log scale
 * (stats_log_ratio, doc/STATISTICS.md section 1), t at n_a + n_b - 2
 * degrees of freedom when both sides have the same n, Welch's otherwise,
 * at every n, so a positive metric's %change never falls below -100%.
 */
static void percent_intervals(const struct stats_summary *sa,
			      const struct stats_summary *sb,
			      struct compare_stats *ret)
{
	double df = stats_equal_n_df(sa, sb);
	struct stats_interval ci[2];

	if (stats_log_ratio(sa, sb, 0.95, df, &ci[0]) < 0 ||
	    stats_log_ratio(sa, sb, ret->nc_level, df, &ci[1]) < 0) {
		ret->why = "cannot compute the interval of the ratio";
		return;
	}
	ret->ci_method = "log-ratio";
	if (ci[0].unbounded) {
		ret->ci_unbounded = 1;
		ret->why = "the base mean is not distinguishable from 0: "
			   "the interval of %change is unbounded";
		return;
	}
	pct_interval(&ci[0], sa->mean, &ret->ci_low, &ret->ci_high);
	if (!ci[1].unbounded)
		pct_interval(&ci[1], sa->mean, &ret->ci90_low, &ret->ci90_high);
	if (isnan(ret->ci_low) || isnan(ret->ci_high))
		ret->why = "cannot compute the interval: the ratio overflows";
}

/*
 * The intervals of the difference scale into ret (n >= 2 a side): the t
 * interval, t at n_a + n_b - 2 degrees of freedom for equal n, Welch's
 * otherwise, at every n.
 */
static void diff_intervals(const struct stats_summary *sa,
			   const struct stats_summary *sb,
			   struct compare_stats *ret)
{
	double df = stats_equal_n_df(sa, sb);
	struct stats_interval ci[2];

	if (stats_diff_interval(sa, sb, 0.95, df, &ci[0]) < 0 ||
	    stats_diff_interval(sa, sb, ret->nc_level, df, &ci[1]) < 0) {
		ret->why = "cannot compute Welch's interval";
		return;
	}
	ret->ci_method = "t-diff";
	ret->diff_low = ci[0].low;
	ret->diff_high = ci[0].high;
	ret->diff90_low = ci[1].low;
	ret->diff90_high = ci[1].high;
}

/* The p-value into ret (both sides have n >= 2). */
static void p_value(const struct compare_sample *base,
		    const struct compare_sample *new_,
		    const struct stats_summary *sa,
		    const struct stats_summary *sb, size_t nmin,
		    struct compare_stats *ret)
{
	int both_obs = base->obs && new_->obs, positive = 1;
	double p = NAN;

	if (both_obs && nmin >= COMPARE_MW_MIN_N) {
		double u;
		int exact;

		if (stats_mann_whitney(base->obs, base->n, new_->obs, new_->n,
				       COMPARE_MW_EXACT_MAX, &u, &p,
				       &exact) == 0)
			ret->p_method = exact ? "mann-whitney-exact"
					      : "mann-whitney-normal";
	} else {
		/* Welch's t: on logs when every value is positive (ratios
		 * are what varies), else on the values themselves. */
		if (both_obs) {
			for (size_t i = 0; i < base->n; i++)
				positive &= base->obs[i] > 0;
			for (size_t i = 0; i < new_->n; i++)
				positive &= new_->obs[i] > 0;
		} else {
			positive = sa->mean > 0 && sb->mean > 0;
		}
		if (positive && both_obs)
			stats_welch_log(base->obs, base->n, new_->obs, new_->n,
					&p);
		else if (positive)
			stats_welch_log_summary(sa, sb, &p);
		else
			stats_welch_diff(sa, sb, 0.95, NULL, &p);
		if (!isnan(p))
			ret->p_method = positive ? "welch-log" : "welch";
	}
	if (!ret->p_method || isnan(p)) {
		ret->p_method = NULL;
		p = NAN;
		if (!ret->why)
			ret->why = "cannot compute the p-value";
	}
	ret->p_value = p;
}

void compare_stats_compute_at(const struct compare_sample *base,
			      const struct compare_sample *new_,
			      double nc_level, struct compare_stats *ret)
{
	struct stats_summary sa, sb;
	size_t nmin;

	memset(ret, 0, sizeof(*ret));
	side_summary(base, &sa);
	side_summary(new_, &sb);
	ret->n_base = sa.n;
	ret->n_new = sb.n;
	ret->mean_base = sa.mean;
	ret->mean_new = sb.mean;
	ret->sd_base = sa.sd;
	ret->sd_new = sb.sd;
	ret->scale = CMP_SCALE_PERCENT;
	ret->pct_change = ret->ci_low = ret->ci_high = NAN;
	ret->ci90_low = ret->ci90_high = ret->p_value = NAN;
	ret->diff = ret->diff_low = ret->diff_high = NAN;
	ret->diff90_low = ret->diff90_high = ret->tau_ref = NAN;
	ret->nc_level = nc_level > 0 && nc_level < 1 ? nc_level
						     : COMPARE_NOCHANGE_LEVEL;
	if (sa.n == 0 || sb.n == 0) {
		ret->why = "no observations on a side";
		return;
	}
	ret->diff = sb.mean - sa.mean;
	if (!isfinite(ret->diff))
		ret->diff = NAN;
	if (needs_difference(base, new_, sa.mean)) {
		ret->scale = CMP_SCALE_DIFF;
		ret->tau_ref = rms_of(&sa, &sb);
	} else {
		ret->pct_change = pct_of_ratio(sb.mean / sa.mean, sa.mean);
	}
	nmin = sa.n < sb.n ? sa.n : sb.n;
	if (nmin < 2) {
		ret->why = "one observation on a side: no interval, no p";
		return;
	}
	if (ret->scale == CMP_SCALE_DIFF)
		diff_intervals(&sa, &sb, ret);
	else
		percent_intervals(&sa, &sb, ret);
	p_value(base, new_, &sa, &sb, nmin, ret);
}

void compare_stats_compute(const struct compare_sample *base,
			   const struct compare_sample *new_,
			   struct compare_stats *ret)
{
	compare_stats_compute_at(base, new_, COMPARE_NOCHANGE_LEVEL, ret);
}

enum cmp_verdict compare_decide_p(const struct compare_stats *s, double p,
				  enum cmp_better better, double tau_pct,
				  double alpha)
{
	double e, lo, hi, nlo, nhi, band;

	if (s->n_base < COMPARE_MIN_N || s->n_new < COMPARE_MIN_N)
		return CMP_INSUFFICIENT;
	if (s->scale == CMP_SCALE_DIFF) {
		e = s->diff;
		lo = s->diff_low;
		hi = s->diff_high;
		nlo = s->diff90_low;
		nhi = s->diff90_high;
		band = tau_pct / 100 * s->tau_ref;
	} else {
		/* A base not told apart from zero: reported, never decided. */
		if (s->ci_unbounded)
			return CMP_INCONCLUSIVE;
		e = s->pct_change;
		lo = s->ci_low;
		hi = s->ci_high;
		nlo = s->ci90_low;
		nhi = s->ci90_high;
		band = tau_pct;
	}
	if (!isfinite(band))
		return CMP_INCONCLUSIVE;
	if (!isnan(p) && p < alpha && isfinite(e) && !isnan(lo) && !isnan(hi)) {
		/* Below COMPARE_MW_MIN_N a side, p is Welch's t, which leans
		 * on near-normal boots: there the whole interval must lie
		 * beyond tau (REFERENCE.md 1.4), or two-mode noise at 3 a
		 * side is called 1.3% of the time (bench/calibration). */
		int small = s->n_base < COMPARE_MW_MIN_N ||
			    s->n_new < COMPARE_MW_MIN_N;
		int up = small ? lo > band : lo > 0 && e > band;
		int down = small ? hi < -band : hi < 0 && e < -band;

		if (up || down) {
			if (better == CMP_BETTER_NONE)
				return CMP_CHANGED;
			return up == (better == CMP_BETTER_HIGHER)
				       ? CMP_IMPROVEMENT
				       : CMP_REGRESSION;
		}
	}
	if (!isnan(nlo) && !isnan(nhi) && nlo >= -band && nhi <= band)
		return CMP_NO_CHANGE;
	return CMP_INCONCLUSIVE;
}

enum cmp_verdict compare_decide(const struct compare_stats *s,
				enum cmp_better better, double tau_pct,
				double alpha)
{
	return compare_decide_p(s, s->p_value, better, tau_pct, alpha);
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
	free(r->note);
}

void compare_set_release(struct compare_set *set)
{
	for (size_t i = 0; i < set->nr; i++)
		compare_row_release(&set->rows[i]);
	free(set->rows);
	free(set->base_name);
	free(set->new_name);
	free(set->question);
	memset(set, 0, sizeof(*set));
}

void compare_keep_rows(struct compare_set *set, const char *metric_glob,
		       const char *workload)
{
	size_t k = 0;

	for (size_t i = 0; i < set->nr; i++) {
		struct compare_row *r = &set->rows[i];

		if ((!metric_glob || !fnmatch(metric_glob, r->metric, 0)) &&
		    (!workload || !strcmp(workload, r->workload))) {
			set->rows[k++] = *r;
			continue;
		}
		compare_row_release(r);
	}
	set->nr = k;
}

int compare_row_decides(const struct compare_set *set, size_t i)
{
	for (size_t k = 0; k < set->nr; k++)
		if (set->rows[k].decides)
			return set->rows[i].decides;
	return 1;
}

/* Deciding rows sorted by host: Holm's families are runs of one host. */
struct fam_item {
	int64_t host_id;
	size_t row;
};

static int fam_cmp(const void *x, const void *y)
{
	const struct fam_item *a = x, *b = y;

	if (a->host_id != b->host_id)
		return a->host_id < b->host_id ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

void compare_set_decide(struct compare_set *set, double alpha)
{
	_cleanup_free_ struct fam_item *it = NULL;
	_cleanup_free_ double *p = NULL, *adj = NULL;
	size_t m = 0, any_flag = 0;

	set->alpha = alpha;
	it = xcalloc(set->nr ? set->nr : 1, sizeof(*it));
	p = xcalloc(set->nr ? set->nr : 1, sizeof(*p));
	adj = xcalloc(set->nr ? set->nr : 1, sizeof(*adj));
	for (size_t i = 0; i < set->nr; i++)
		any_flag |= (size_t)set->rows[i].decides;
	for (size_t i = 0; i < set->nr; i++) {
		struct compare_row *r = &set->rows[i];

		r->p_adjusted = r->s.p_value;
		r->family = 0;
		if (any_flag && !r->decides)
			continue;
		it[m].host_id = r->host_id;
		it[m++].row = i;
	}
	qsort(it, m, sizeof(*it), fam_cmp);
	for (size_t a = 0; a < m;) {
		size_t b = a;

		while (b < m && it[b].host_id == it[a].host_id)
			b++;
		for (size_t k = a; k < b; k++)
			p[k - a] = set->rows[it[k].row].s.p_value;
		stats_holm(p, b - a, adj);
		for (size_t k = a; k < b; k++) {
			set->rows[it[k].row].p_adjusted = adj[k - a];
			set->rows[it[k].row].family = (int)(b - a);
		}
		a = b;
	}
	for (size_t i = 0; i < set->nr; i++) {
		struct compare_row *r = &set->rows[i];

		r->verdict = compare_decide_p(&r->s, r->p_adjusted, r->better,
					      r->tau, alpha);
	}
}

void compare_row_note(const struct compare_row *r, struct strbuf *out)
{
	size_t start = out->len;

#define SEP() (out->len > start ? "; " : "")
	if (r->s.why)
		strbuf_addf(out, "%s", r->s.why);
	if (r->s.scale == CMP_SCALE_DIFF)
		strbuf_addf(out,
			    "%sthe values cross 0: compared on the difference "
			    "new - base%s%s%s, tau a percentage of their "
			    "root-mean-square value",
			    SEP(), r->unit && r->unit[0] ? " in " : "",
			    r->unit ? r->unit : "", "");
	if (r->note)
		strbuf_addf(out, "%s%s", SEP(), r->note);
	if (r->family > 1 && !isnan(r->p_adjusted))
		strbuf_addf(out,
			    "%sHolm's correction over the %d deciding "
			    "metrics on %s: adjusted p %.3g",
			    SEP(), r->family, r->host ? r->host : "this host",
			    r->p_adjusted);
#undef SEP
}

static int is_decided(enum cmp_verdict v)
{
	return v == CMP_REGRESSION || v == CMP_IMPROVEMENT ||
	       v == CMP_NO_CHANGE || v == CMP_CHANGED;
}

int compare_set_next(const struct compare_set *set, int look, int looks,
		     int cap_per_side, int *ret_stop, int *ret_add,
		     struct strbuf *reason)
{
	size_t deciding = 0, open = 0, nmin = SIZE_MAX;
	struct strbuf list = STRBUF_INIT;

	*ret_stop = 1;
	*ret_add = 0;
	if (looks < 1 || look < 1 || look > looks || cap_per_side < 1)
		return -1;
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];
		size_t n = r->s.n_base < r->s.n_new ? r->s.n_base : r->s.n_new;

		if (!compare_row_decides(set, i))
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
			    look, looks);
	} else if (open == 0) {
		strbuf_addf(reason,
			    "decided at look %d of %d: all %zu deciding "
			    "metric%s decided (p < %.2g per look%s)",
			    look, looks, deciding, deciding == 1 ? "" : "s",
			    set->alpha > 0 ? set->alpha : COMPARE_ALPHA,
			    deciding > 1 ? ", Holm over the deciding metrics"
					 : "");
	} else if (look >= looks &&
		   nmin + COMPARE_BLOCK > (size_t)cap_per_side) {
		strbuf_addf(reason,
			    "stopped at the cap (%d boots per side) after the "
			    "last look (%d of %d) with %zu undecided: %s",
			    cap_per_side, look, looks, open, list.buf);
	} else if (look >= looks) {
		strbuf_addf(reason,
			    "stopped after the last look (%d of %d) with %zu "
			    "undecided: %s",
			    look, looks, open, list.buf);
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
			    look, looks, open, list.buf, COMPARE_BLOCK);
	}
	strbuf_release(&list);
	return 0;
}
