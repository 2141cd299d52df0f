/*
 * stats.c - the statistics behind a verdict; see stats.h.
 *
 * The only file that includes GSL.  Distributions (normal, Student's t),
 * quantiles of a sorted sample, means, variances, sorting and the random
 * number generator are GSL's.  Written here, because GSL has none of
 * them: Fieller's interval and the log-scale interval of a ratio of
 * means, the BCa bootstrap around GSL's quantiles, the
 * exact permutation distribution of the Mann-Whitney rank sum (a counting
 * recursion over doubled mid-ranks, so ties stay exact integers), Welch's
 * t statistic and degrees of freedom, the group-sequential boundary and
 * Holm's adjustment.
 *
 * GSL's default error handler aborts the process (a t quantile at NaN
 * degrees of freedom did, with a mean of 1e300): it is switched off before
 * main() runs, and every GSL result that can fail is checked for NaN.
 * Formulas that square a value first divide everything by a power of two
 * near the largest magnitude (exact, and the ratio and the tests do not
 * change), so no finite input overflows.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "cleanup.h"
#include "analysis/stats.h"
#include "strbuf.h"
#include "banned.h"

struct stats_rng {
	gsl_rng *g;
};

/*
 * Before main(): GSL reports a domain error by returning NaN (checked by
 * the callers) instead of calling abort().  A constructor, so no program
 * that links stats.c -- the controller, the tests, the benches -- can
 * forget it.
 */
__attribute__((constructor)) static void stats_gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

/*
 * A power of two near the largest of |v[0..n)| (1 when all are 0 or
 * none is finite): dividing by it is exact and brings the values to
 * [-1, 1], so their squares and sums cannot overflow.
 */
static double pow2_scale(const double *v, size_t n)
{
	double m = 0;
	int e;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && fabs(v[i]) > m)
			m = fabs(v[i]);
	if (m == 0)
		return 1;
	frexp(m, &e);
	return ldexp(1, e);
}

/* Two summaries divided by one scale (returned). */
static double scale_summaries(const struct stats_summary *a,
			      const struct stats_summary *b,
			      struct stats_summary *sa,
			      struct stats_summary *sb)
{
	const double v[4] = { a->mean, a->sd, b->mean, b->sd };
	double s = pow2_scale(v, 4);

	*sa = *a;
	*sb = *b;
	sa->mean /= s;
	sa->sd /= s;
	sb->mean /= s;
	sb->sd /= s;
	return s;
}

double stats_mean(const double *x, size_t n)
{
	double s, m = 0;

	if (n == 0)
		return NAN;
	s = pow2_scale(x, n);
	if (s < 0x1p1000)
		return gsl_stats_mean(x, 1, n);
	/* Differences of values near DBL_MAX overflow: scale them. */
	for (size_t i = 0; i < n; i++)
		m += (x[i] / s - m) / (double)(i + 1);
	return m * s;
}

double stats_sd(const double *x, size_t n)
{
	double s;
	_cleanup_free_ double *y = NULL;

	if (n < 2)
		return NAN;
	s = pow2_scale(x, n);
	if (s < 0x1p400 && s > 0x1p-400)
		return gsl_stats_sd(x, 1, n);
	/* Squares of values this large (or small) leave the doubles. */
	y = xcalloc(n, sizeof(*y));
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] / s;
	return gsl_stats_sd(y, 1, n) * s;
}

double stats_harmonic_mean(const double *x, size_t n)
{
	double inv = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			return NAN;
		inv += 1.0 / x[i];
	}
	return (double)n / inv;
}

void stats_summarize(const double *x, size_t n, struct stats_summary *ret)
{
	ret->n = n;
	ret->mean = stats_mean(x, n);
	ret->sd = stats_sd(x, n);
}

double stats_norm_cdf(double z)
{
	return gsl_cdf_ugaussian_P(z);
}

double stats_norm_quantile(double p)
{
	return gsl_cdf_ugaussian_Pinv(p);
}

double stats_t_quantile(double p, double df)
{
	return gsl_cdf_tdist_Pinv(p, df);
}

double stats_welch_df(double va, size_t na, double vb, size_t nb)
{
	double r, sum;

	if (na < 2 || nb < 2 || !(va >= 0) || !(vb >= 0) || !isfinite(va) ||
	    !isfinite(vb) || (va == 0 && vb == 0))
		return NAN;
	/* The share of a in the total, in place of va^2 and vb^2: va + vb
	 * may overflow only when both are near DBL_MAX, so scale first. */
	sum = va / 2 + vb / 2;
	r = (va / 2) / sum;
	return 1 / (r * r / (double)(na - 1) +
		    (1 - r) * (1 - r) / (double)(nb - 1));
}

static int summary_ok(const struct stats_summary *s)
{
	return s->n >= 2 && isfinite(s->mean) && isfinite(s->sd) && s->sd >= 0;
}

double stats_equal_n_df(const struct stats_summary *a,
			const struct stats_summary *b)
{
	return a->n == b->n && a->n >= 2 ? (double)(a->n + b->n - 2) : NAN;
}

int stats_fieller(const struct stats_summary *a0,
		  const struct stats_summary *b0, double conf,
		  struct stats_interval *ret)
{
	return stats_fieller_df(a0, b0, conf, NAN, ret);
}

int stats_fieller_df(const struct stats_summary *a0,
		     const struct stats_summary *b0, double conf, double df0,
		     struct stats_interval *ret)
{
	struct stats_summary sa, sb, *a = &sa, *b = &sb;
	double va, vb, df, t, qa, qb, qc, disc, root;

	ret->low = ret->high = NAN;
	ret->unbounded = 0;
	if (!summary_ok(a0) || !summary_ok(b0) || a0->mean == 0 ||
	    !(conf > 0 && conf < 1))
		return -EINVAL;
	/* The ratio does not change when both sides are scaled alike. */
	scale_summaries(a0, b0, a, b);
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	if (va == 0 && vb == 0) {
		/* No spread at all: the data pin the ratio down exactly. */
		ret->low = ret->high = b->mean / a->mean;
		return 0;
	}
	df = df0 > 0 ? df0 : stats_welch_df(va, a->n, vb, b->n);
	t = stats_t_quantile(1 - (1 - conf) / 2, df);
	if (!isfinite(t))
		return -EDOM;
	qa = a->mean * a->mean - t * t * va;
	qb = -2 * a->mean * b->mean;
	qc = b->mean * b->mean - t * t * vb;
	if (qa <= 0) {
		ret->unbounded = 1;
		return 0;
	}
	/* qa > 0 makes the discriminant >= 0; guard rounding all the same. */
	disc = qb * qb - 4 * qa * qc;
	root = disc > 0 ? sqrt(disc) : 0;
	ret->low = (-qb - root) / (2 * qa);
	ret->high = (-qb + root) / (2 * qa);
	return 0;
}

int stats_log_ratio(const struct stats_summary *a,
		    const struct stats_summary *b, double conf, double df0,
		    struct stats_interval *ret)
{
	double cva, cvb, va, vb, r, df, t, se;

	ret->low = ret->high = NAN;
	ret->unbounded = 0;
	if (!summary_ok(a) || !summary_ok(b) || a->mean == 0 || b->mean == 0 ||
	    (a->mean < 0) != (b->mean < 0) || !(conf > 0 && conf < 1))
		return -EINVAL;
	/* Two finite means of one sign: the ratio is positive. */
	r = b->mean / a->mean;
	cva = a->sd / fabs(a->mean);
	cvb = b->sd / fabs(b->mean);
	if (!isfinite(cva) || !isfinite(cvb) || !isfinite(r) || r == 0)
		return -EINVAL;
	va = cva * cva / (double)a->n;
	vb = cvb * cvb / (double)b->n;
	if (va == 0 && vb == 0) {
		ret->low = ret->high = r;
		return 0;
	}
	df = df0 > 0 ? df0 : stats_welch_df(va, a->n, vb, b->n);
	t = stats_t_quantile(1 - (1 - conf) / 2, df);
	if (!isfinite(t))
		return -EDOM;
	/* Fieller's a = mean_a^2 - t^2 sd_a^2 / n_a <= 0, divided by
	 * mean_a^2: the base could be 0, and a ratio to it anything. */
	if (t * t * va >= 1) {
		ret->unbounded = 1;
		return 0;
	}
	se = sqrt(va + vb);
	/* exp() of the log ends; r's sign carries through. */
	ret->low = r * exp(-t * se);
	ret->high = r * exp(t * se);
	if (r < 0) {
		double lo = ret->high;

		ret->high = ret->low;
		ret->low = lo;
	}
	return 0;
}

/*
 * Welch's two-sided p from means, variances and sizes (already scaled by
 * the caller).  No variance at all: the means are the truth, so p is 1
 * when they are equal and 0 when they differ.  NaN when GSL cannot.
 */
static double welch_p(double ma, double va, size_t na, double mb, double vb,
		      size_t nb)
{
	double sa = va / (double)na, sb = vb / (double)nb, t, df;

	if (sa + sb == 0)
		return ma == mb ? 1 : 0;
	t = (mb - ma) / sqrt(sa + sb);
	df = stats_welch_df(sa, na, sb, nb);
	if (!isfinite(t) || !isfinite(df))
		return NAN;
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

int stats_welch_diff(const struct stats_summary *a0,
		     const struct stats_summary *b0, double conf,
		     struct stats_interval *ret, double *ret_p)
{
	int r = stats_diff_interval(a0, b0, conf, NAN, ret);
	struct stats_summary a, b;

	if (ret_p)
		*ret_p = NAN;
	if (r < 0 && r != -EDOM)
		return r;
	if (ret_p) {
		scale_summaries(a0, b0, &a, &b);
		*ret_p = welch_p(a.mean, a.sd * a.sd, a.n, b.mean, b.sd * b.sd,
				 b.n);
	}
	return r;
}

int stats_student(const struct stats_summary *a0,
		  const struct stats_summary *b0, double *ret_p)
{
	struct stats_summary a, b;
	double ss, df, se, t;

	*ret_p = NAN;
	if (a0->n < 1 || b0->n < 1 || a0->n + b0->n < 3 ||
	    !isfinite(a0->mean) || !isfinite(b0->mean))
		return -EINVAL;
	a = *a0;
	b = *b0;
	if (a.n < 2)
		a.sd = 0;
	if (b.n < 2)
		b.sd = 0;
	if (!isfinite(a.sd) || !isfinite(b.sd))
		return -EINVAL;
	{
		struct stats_summary sa = a, sb = b;

		scale_summaries(&sa, &sb, &a, &b);
	}
	df = (double)(a.n + b.n - 2);
	ss = ((double)(a.n - 1) * a.sd * a.sd +
	      (double)(b.n - 1) * b.sd * b.sd) /
	     df;
	se = sqrt(ss * (1 / (double)a.n + 1 / (double)b.n));
	if (se == 0) {
		*ret_p = a.mean == b.mean ? 1 : 0;
		return 0;
	}
	t = (b.mean - a.mean) / se;
	*ret_p = 2 * gsl_cdf_tdist_Q(fabs(t), df);
	return isnan(*ret_p) ? -EDOM : 0;
}

int stats_diff_interval(const struct stats_summary *a0,
			const struct stats_summary *b0, double conf, double df0,
			struct stats_interval *ret)
{
	struct stats_summary a, b;
	double s, va, vb, d, se, t, df;

	if (ret) {
		ret->low = ret->high = NAN;
		ret->unbounded = 0;
	}
	if (!summary_ok(a0) || !summary_ok(b0) || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (!ret)
		return 0;
	s = scale_summaries(a0, b0, &a, &b);
	va = a.sd * a.sd / (double)a.n;
	vb = b.sd * b.sd / (double)b.n;
	d = b.mean - a.mean;
	if (va + vb == 0) {
		ret->low = ret->high = d * s;
		return 0;
	}
	se = sqrt(va + vb);
	df = df0 > 0 ? df0 : stats_welch_df(va, a.n, vb, b.n);
	t = stats_t_quantile(1 - (1 - conf) / 2, df);
	if (!isfinite(t))
		return -EDOM;
	ret->low = (d - t * se) * s;
	ret->high = (d + t * se) * s;
	return 0;
}

int stats_welch_log(const double *a, size_t na, const double *b, size_t nb,
		    double *ret_p)
{
	_cleanup_free_ double *la = NULL, *lb = NULL;

	*ret_p = NAN;
	if (na < 2 || nb < 2)
		return -EINVAL;
	la = xcalloc(na, sizeof(*la));
	lb = xcalloc(nb, sizeof(*lb));
	for (size_t i = 0; i < na; i++) {
		if (!(a[i] > 0) || !isfinite(a[i]))
			return -EDOM;
		la[i] = log(a[i]);
	}
	for (size_t i = 0; i < nb; i++) {
		if (!(b[i] > 0) || !isfinite(b[i]))
			return -EDOM;
		lb[i] = log(b[i]);
	}
	*ret_p = welch_p(
		gsl_stats_mean(la, 1, na), gsl_stats_variance(la, 1, na), na,
		gsl_stats_mean(lb, 1, nb), gsl_stats_variance(lb, 1, nb), nb);
	return 0;
}

int stats_welch_log_summary(const struct stats_summary *a,
			    const struct stats_summary *b, double *ret_p)
{
	double va, vb, cva, cvb;

	*ret_p = NAN;
	if (!summary_ok(a) || !summary_ok(b))
		return -EINVAL;
	if (!(a->mean > 0) || !(b->mean > 0))
		return -EDOM;
	/* Coefficients of variation: no square of a raw value anywhere. */
	cva = a->sd / a->mean;
	cvb = b->sd / b->mean;
	if (!isfinite(cva) || !isfinite(cvb))
		return -EDOM;
	va = log1p(cva * cva);
	vb = log1p(cvb * cvb);
	*ret_p = welch_p(log(a->mean) - va / 2, va, a->n, log(b->mean) - vb / 2,
			 vb, b->n);
	return 0;
}

/*
 * Doubled mid-ranks of the pooled sample x[0..n): ties share the mean of
 * the ranks they span, and doubling keeps that an integer.  Fills
 * dranks[i] for x[i] and returns sum over tie groups of t^3 - t.
 */
static double doubled_midranks(const double *x, size_t n, long *dranks)
{
	_cleanup_free_ size_t *idx = xcalloc(n, sizeof(*idx));
	double ties = 0;
	size_t i = 0;

	gsl_sort_index(idx, x, 1, n);
	while (i < n) {
		size_t j = i;

		while (j + 1 < n && x[idx[j + 1]] == x[idx[i]])
			j++;
		/* positions i..j (0-based) hold ranks i+1..j+1 */
		for (size_t k = i; k <= j; k++)
			dranks[idx[k]] = (long)(i + j + 2);
		if (j > i) {
			double t = (double)(j - i + 1);

			ties += t * t * t - t;
		}
		i = j + 1;
	}
	return ties;
}

/*
 * The exact two-sided p of the doubled rank sum s_obs of na items drawn
 * from the n doubled ranks dr[], by counting subsets: ways[k][s] is the
 * number of k-subsets of the ranks seen so far with doubled sum s.  All
 * counts stay below C(40, 20) < 2^53, so doubles hold them exactly.
 */
static double exact_rank_sum_p(const long *dr, size_t n, size_t na, long s_obs)
{
	long smax = 0;
	double total = 0, le = 0, ge = 0, p;
	size_t width;
	_cleanup_free_ double *ways = NULL;

	for (size_t i = 0; i < n; i++)
		smax += dr[i];
	width = (size_t)smax + 1;
	ways = xcalloc((na + 1) * width, sizeof(*ways));
	ways[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t top = i + 1 < na ? i + 1 : na;

		for (size_t k = top; k >= 1; k--) {
			double *row = ways + k * width;
			const double *prev = ways + (k - 1) * width;

			for (long s = smax; s >= dr[i]; s--)
				row[s] += prev[s - dr[i]];
		}
	}
	for (long s = 0; s <= smax; s++) {
		double w = ways[na * width + (size_t)s];

		total += w;
		if (s <= s_obs)
			le += w;
		if (s >= s_obs)
			ge += w;
	}
	p = 2 * fmin(le, ge) / total;
	return p > 1 ? 1 : p;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       size_t exact_max, double *ret_u, double *ret_p,
		       int *ret_exact)
{
	size_t n = na + nb;
	_cleanup_free_ double *x = NULL;
	_cleanup_free_ long *dr = NULL;
	long sa2 = 0;
	double ties, ua, ub, mu, var, z;

	*ret_u = *ret_p = NAN;
	if (ret_exact)
		*ret_exact = 0;
	if (na == 0 || nb == 0)
		return -EINVAL;
	x = xcalloc(n, sizeof(*x));
	dr = xcalloc(n, sizeof(*dr));
	for (size_t i = 0; i < na; i++)
		x[i] = a[i];
	for (size_t i = 0; i < nb; i++)
		x[na + i] = b[i];
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	ties = doubled_midranks(x, n, dr);
	for (size_t i = 0; i < na; i++)
		sa2 += dr[i];
	ua = (double)sa2 / 2 - (double)na * (double)(na + 1) / 2;
	ub = (double)na * (double)nb - ua;
	*ret_u = ub;
	if (na <= exact_max && nb <= exact_max) {
		*ret_p = exact_rank_sum_p(dr, n, na, sa2);
		if (ret_exact)
			*ret_exact = 1;
		return 0;
	}
	mu = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (!(var > 0)) {
		*ret_p = 1; /* every value tied: nothing separates the sides */
		return 0;
	}
	z = (fabs(ua - mu) - 0.5) / sqrt(var);
	*ret_p = fmin(1, 2 * gsl_cdf_ugaussian_Q(z));
	return 0;
}

struct stats_rng *stats_rng_new(unsigned long seed)
{
	struct stats_rng *r = xcalloc(1, sizeof(*r));

	r->g = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r->g)
		abort(); /* out of memory, as xmalloc would */
	gsl_rng_set(r->g, seed);
	return r;
}

void stats_rng_free(struct stats_rng *r)
{
	if (!r)
		return;
	gsl_rng_free(r->g);
	free(r);
}

double stats_rng_uniform(struct stats_rng *r)
{
	return gsl_rng_uniform(r->g);
}

unsigned long stats_rng_int(struct stats_rng *r, unsigned long n)
{
	return gsl_rng_uniform_int(r->g, n);
}

double stats_rng_gaussian(struct stats_rng *r, double sigma)
{
	return gsl_ran_gaussian(r->g, sigma);
}

void stats_bca_from_replicates(double *reps, size_t nboot, double theta_hat,
			       double acc, double conf,
			       struct stats_interval *ret)
{
	double below = 0, p0, z0, alpha = (1 - conf) / 2;
	double zs[2], ends[2];

	gsl_sort(reps, 1, nboot);
	for (size_t i = 0; i < nboot; i++) {
		if (reps[i] < theta_hat)
			below += 1;
		else if (reps[i] == theta_hat)
			below += 0.5;
	}
	/* Keep z0 finite when every replicate lies on one side. */
	p0 = below / (double)nboot;
	if (p0 < 0.5 / (double)nboot)
		p0 = 0.5 / (double)nboot;
	if (p0 > 1 - 0.5 / (double)nboot)
		p0 = 1 - 0.5 / (double)nboot;
	z0 = gsl_cdf_ugaussian_Pinv(p0);
	zs[0] = gsl_cdf_ugaussian_Pinv(alpha);
	zs[1] = gsl_cdf_ugaussian_Pinv(1 - alpha);
	for (int k = 0; k < 2; k++) {
		double w = z0 + zs[k], den = 1 - acc * w, q;

		if (den <= 0)
			q = k == 0 ? 0 : 1; /* acceleration ran off the end */
		else
			q = gsl_cdf_ugaussian_P(z0 + w / den);
		ends[k] =
			gsl_stats_quantile_from_sorted_data(reps, 1, nboot, q);
	}
	ret->low = ends[0];
	ret->high = ends[1];
	ret->unbounded = 0;
}

/*
 * The estimate from two side means: mb / ma or mb - ma.
 */
static double effect_of(enum stats_effect e, double ma, double mb)
{
	return e == STATS_RATIO ? mb / ma : mb - ma;
}

/*
 * Jackknife influence of each observation of one side on the effect:
 * the sums of squares and cubes of U_i = (n - 1)(mean of the leave-one-out
 * estimates - the one without observation i), divided by n^2 and n^3.
 * numerator: x is side b (the effect's first argument is other_mean).
 */
static void jackknife_side(enum stats_effect e, const double *x, size_t n,
			   double other_mean, int numerator, double *ret_s2,
			   double *ret_s3)
{
	double sum = 0, mean_jack = 0, s2 = 0, s3 = 0;
	_cleanup_free_ double *th = xcalloc(n, sizeof(*th));

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	for (size_t i = 0; i < n; i++) {
		double m = (sum - x[i]) / (double)(n - 1);

		th[i] = numerator ? effect_of(e, other_mean, m)
				  : effect_of(e, m, other_mean);
		mean_jack += th[i];
	}
	mean_jack /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double l = (double)(n - 1) * (mean_jack - th[i]);

		s2 += l * l;
		s3 += l * l * l;
	}
	*ret_s2 = s2 / ((double)n * (double)n);
	*ret_s3 = s3 / ((double)n * (double)n * (double)n);
}

int stats_bca(enum stats_effect effect, const double *a0, size_t na,
	      const double *b0, size_t nb, const double *confs, size_t nconf,
	      size_t nboot, struct stats_rng *rng, struct stats_interval *ret)
{
	double ma, mb, theta, s2a, s3a, s2b, s3b, acc, den, scale;
	_cleanup_free_ double *reps = NULL, *work = NULL, *a = NULL, *b = NULL;

	if (na < 2 || nb < 2 || nboot < 100)
		return -EINVAL;
	for (size_t i = 0; i < na; i++)
		if (!isfinite(a0[i]))
			return -EINVAL;
	for (size_t i = 0; i < nb; i++)
		if (!isfinite(b0[i]))
			return -EINVAL;
	/* One scale for both sides: the ratio is unchanged, the difference
	 * is scaled back at the end; sums of n values of at most 1 cannot
	 * overflow. */
	a = xcalloc(na, sizeof(*a));
	b = xcalloc(nb, sizeof(*b));
	{
		double sa = pow2_scale(a0, na), sb = pow2_scale(b0, nb);

		scale = sa > sb ? sa : sb;
	}
	for (size_t i = 0; i < na; i++)
		a[i] = a0[i] / scale;
	for (size_t i = 0; i < nb; i++)
		b[i] = b0[i] / scale;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	if ((effect == STATS_RATIO && ma == 0) || !isfinite(ma) ||
	    !isfinite(mb))
		return -EINVAL;
	theta = effect_of(effect, ma, mb);
	reps = xcalloc(nboot, sizeof(*reps));
	work = xcalloc(nboot, sizeof(*work));
	for (size_t r = 0; r < nboot; r++) {
		double sa = 0, sb = 0;

		for (size_t i = 0; i < na; i++)
			sa += a[gsl_rng_uniform_int(rng->g, na)];
		for (size_t i = 0; i < nb; i++)
			sb += b[gsl_rng_uniform_int(rng->g, nb)];
		reps[r] = effect_of(effect, sa / (double)na, sb / (double)nb);
	}
	jackknife_side(effect, a, na, mb, 0, &s2a, &s3a);
	jackknife_side(effect, b, nb, ma, 1, &s2b, &s3b);
	den = s2a + s2b;
	acc = den > 0 ? (s3a + s3b) / (6 * pow(den, 1.5)) : 0;
	if (!isfinite(acc))
		acc = 0;
	for (size_t k = 0; k < nconf; k++) {
		memcpy(work, reps, nboot * sizeof(*work));
		stats_bca_from_replicates(work, nboot, theta, acc, confs[k],
					  &ret[k]);
		if (effect == STATS_DIFF) {
			ret[k].low *= scale;
			ret[k].high *= scale;
		}
	}
	return 0;
}

int stats_bca_ratio(const double *a, size_t na, const double *b, size_t nb,
		    const double *confs, size_t nconf, size_t nboot,
		    struct stats_rng *rng, struct stats_interval *ret)
{
	return stats_bca(STATS_RATIO, a, na, b, nb, confs, nconf, nboot, rng,
			 ret);
}

/* --- Group-sequential boundaries ------------------------------------- */

#define GS_MIN_POINTS 41
#define GS_MAX_POINTS 2001
#define GS_MAX_LOOKS 64
#define GS_TAIL 10.0 /* one-sided: paths below -10 sd are dropped */

/*
 * A grid for one look: m points (odd, for Simpson's rule) from lo to hi,
 * spaced at most h apart, with Simpson's weights.  Arrays of
 * GS_MAX_POINTS.
 */
static size_t gs_grid(double lo, double hi, double h, double *x, double *w)
{
	size_t m = (size_t)ceil((hi - lo) / h) + 1;
	double step;

	if (m < GS_MIN_POINTS)
		m = GS_MIN_POINTS;
	if (m > GS_MAX_POINTS)
		m = GS_MAX_POINTS;
	m |= 1;
	step = (hi - lo) / (double)(m - 1);
	for (size_t i = 0; i < m; i++) {
		x[i] = lo + step * (double)i;
		w[i] = step / 3 * (i == 0 || i == m - 1 ? 1 : i % 2 ? 4 : 2);
	}
	return m;
}

double stats_gs_crossing(const double *info, size_t k, double c, int sides)
{
	_cleanup_free_ double *buf = xcalloc(5 * GS_MAX_POINTS, sizeof(*buf));
	double *x = buf, *f = x + GS_MAX_POINTS, *w = f + GS_MAX_POINTS;
	double *nx = w + GS_MAX_POINTS, *nw = nx + GS_MAX_POINTS;
	double sq = sqrt(info[0]), hi, lo, total, h = sq;
	size_t m;

	/* Look 1: Z_1 is standard normal. */
	total = sides == 2 ? 2 * gsl_cdf_ugaussian_Q(c)
			   : gsl_cdf_ugaussian_Q(c);
	if (k < 2)
		return total;
	/* Points a sixth of the smallest step's sd apart keep Simpson's
	 * rule on the normal kernels accurate to far below 1e-6. */
	for (size_t j = 1; j < k; j++)
		if (sqrt(info[j] - info[j - 1]) < h)
			h = sqrt(info[j] - info[j - 1]);
	h /= 6;
	/* The density of the score S_1 = Z_1 sqrt(I_1) where it goes on. */
	hi = c * sq;
	lo = sides == 2 ? -hi : -GS_TAIL * sq;
	m = gs_grid(lo, hi, h, x, w);
	for (size_t i = 0; i < m; i++)
		f[i] = gsl_ran_ugaussian_pdf(x[i] / sq) / sq;
	for (size_t j = 1; j < k; j++) {
		double d = sqrt(info[j] - info[j - 1]), sqj = sqrt(info[j]);
		double hij = c * sqj, loj = sides == 2 ? -hij : -GS_TAIL * sqj;
		double cross = 0;
		size_t nm;

		/* S_j = S_{j-1} + N(0, I_j - I_{j-1}): independent steps. */
		for (size_t i = 0; i < m; i++) {
			double up = gsl_cdf_ugaussian_Q((hij - x[i]) / d);

			if (sides == 2)
				up += gsl_cdf_ugaussian_P((loj - x[i]) / d);
			cross += w[i] * f[i] * up;
		}
		total += cross;
		if (j + 1 == k)
			break;
		nm = gs_grid(loj, hij, h, nx, nw);
		/* The new density, in place of the old one's weights. */
		for (size_t i = 0; i < m; i++)
			w[i] *= f[i] / d;
		for (size_t q = 0; q < nm; q++) {
			double acc = 0;

			for (size_t i = 0; i < m; i++)
				acc += w[i] * gsl_ran_ugaussian_pdf(
						      (nx[q] - x[i]) / d);
			f[q] = acc;
		}
		memcpy(x, nx, nm * sizeof(*x));
		memcpy(w, nw, nm * sizeof(*w));
		m = nm;
	}
	return total;
}

int stats_gs_constant(const double *info, size_t k, double alpha, int sides,
		      double *ret_c)
{
	double lo, hi, flo, fhi;
	int side = 0;

	*ret_c = NAN;
	if (k < 1 || k > GS_MAX_LOOKS || !(alpha > 0 && alpha < 0.5) ||
	    (sides != 1 && sides != 2) || !(info[0] > 0))
		return -EINVAL;
	for (size_t i = 1; i < k; i++)
		if (!(info[i] > info[i - 1]) || !isfinite(info[i]))
			return -EINVAL;
	/* Between the one-look quantile (crosses with at least alpha) and
	 * Bonferroni's (at most alpha). */
	lo = gsl_cdf_ugaussian_Qinv(alpha / sides);
	hi = gsl_cdf_ugaussian_Qinv(alpha / sides / (double)k);
	if (k == 1) {
		*ret_c = lo;
		return 0;
	}
	/* The Illinois variant of regula falsi on the crossing probability
	 * minus alpha (decreasing in c): a few evaluations to 1e-10. */
	flo = stats_gs_crossing(info, k, lo, sides) - alpha;
	fhi = stats_gs_crossing(info, k, hi, sides) - alpha;
	for (int it = 0; it < 60 && hi - lo > 1e-10; it++) {
		double mid = (lo * fhi - hi * flo) / (fhi - flo), fm;

		if (!(mid > lo && mid < hi))
			mid = (lo + hi) / 2;
		fm = stats_gs_crossing(info, k, mid, sides) - alpha;
		if (fm == 0) {
			lo = hi = mid;
			break;
		}
		if (fm > 0) {
			lo = mid;
			flo = fm;
			if (side == 1)
				fhi /= 2;
			side = 1;
		} else {
			hi = mid;
			fhi = fm;
			if (side == -1)
				flo /= 2;
			side = -1;
		}
		if (fabs(fm) < 1e-13)
			break;
	}
	*ret_c = (lo + hi) / 2;
	return 0;
}

/* A p-value and where it came from, sorted by p (NaN last). */
struct holm_item {
	double p;
	size_t i;
};

static int holm_cmp(const void *x, const void *y)
{
	double a = ((const struct holm_item *)x)->p,
	       b = ((const struct holm_item *)y)->p;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a < b ? -1 : a > b;
}

void stats_holm(const double *p, size_t m, double *ret)
{
	_cleanup_free_ struct holm_item *it = xcalloc(m ? m : 1, sizeof(*it));
	size_t valid = 0;
	double run = 0;

	for (size_t i = 0; i < m; i++) {
		it[i].p = p[i];
		it[i].i = i;
		valid += !isnan(p[i]);
	}
	qsort(it, m, sizeof(*it), holm_cmp);
	for (size_t j = 0; j < m; j++) {
		double v = it[j].p;

		if (isnan(v)) {
			ret[it[j].i] = NAN;
			continue;
		}
		/* The j-th smallest (0-based) is tested at alpha/(m - j). */
		v *= (double)(valid - j);
		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		ret[it[j].i] = run;
	}
}
