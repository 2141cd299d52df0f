/*
 * stats.c - the statistics behind a verdict; see stats.h.
 *
 * The only file that includes GSL.  Distributions (normal, Student's t),
 * quantiles of a sorted sample, means, variances, sorting and the random
 * number generator are GSL's.  Written here, because GSL has none of
 * them: Fieller's interval, the BCa bootstrap around GSL's quantiles, the
 * exact permutation distribution of the Mann-Whitney rank sum (a counting
 * recursion over doubled mid-ranks, so ties stay exact integers), and
 * Welch's t statistic and degrees of freedom.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
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

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	return gsl_stats_mean(x, 1, n);
}

double stats_sd(const double *x, size_t n)
{
	if (n < 2)
		return NAN;
	return gsl_stats_sd(x, 1, n);
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
	double den;

	if (na < 2 || nb < 2 || (va == 0 && vb == 0))
		return NAN;
	den = va * va / (double)(na - 1) + vb * vb / (double)(nb - 1);
	return (va + vb) * (va + vb) / den;
}

static int summary_ok(const struct stats_summary *s)
{
	return s->n >= 2 && isfinite(s->mean) && isfinite(s->sd) && s->sd >= 0;
}

int stats_fieller(const struct stats_summary *a, const struct stats_summary *b,
		  double conf, struct stats_interval *ret)
{
	double va, vb, df, t, qa, qb, qc, disc, root;

	ret->low = ret->high = NAN;
	ret->unbounded = 0;
	if (!summary_ok(a) || !summary_ok(b) || a->mean == 0 ||
	    !(conf > 0 && conf < 1))
		return -EINVAL;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	if (va == 0 && vb == 0) {
		/* No spread at all: the data pin the ratio down exactly. */
		ret->low = ret->high = b->mean / a->mean;
		return 0;
	}
	df = stats_welch_df(va, a->n, vb, b->n);
	t = stats_t_quantile(1 - (1 - conf) / 2, df);
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

/* Welch's two-sided p from log-scale means, variances and sizes. */
static double welch_p(double ma, double va, size_t na, double mb, double vb,
		      size_t nb)
{
	double sa = va / (double)na, sb = vb / (double)nb, t, df;

	if (sa + sb == 0)
		return NAN;
	t = (mb - ma) / sqrt(sa + sb);
	df = stats_welch_df(sa, na, sb, nb);
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
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
	cva = a->sd / a->mean;
	cvb = b->sd / b->mean;
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

/* Jackknife influence of each observation of one side on the ratio. */
static void jackknife_side(const double *x, size_t n, double other_mean,
			   int numerator, double *ret_s2, double *ret_s3)
{
	double sum = 0, mean_jack = 0, s2 = 0, s3 = 0;
	_cleanup_free_ double *th = xcalloc(n, sizeof(*th));

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	for (size_t i = 0; i < n; i++) {
		double m = (sum - x[i]) / (double)(n - 1);

		th[i] = numerator ? m / other_mean : other_mean / m;
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

int stats_bca_ratio(const double *a, size_t na, const double *b, size_t nb,
		    const double *confs, size_t nconf, size_t nboot,
		    struct stats_rng *rng, struct stats_interval *ret)
{
	double ma, mb, theta, s2a, s3a, s2b, s3b, acc, den;
	_cleanup_free_ double *reps = NULL, *work = NULL;

	if (na < 2 || nb < 2 || nboot < 100)
		return -EINVAL;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	if (ma == 0 || !isfinite(ma) || !isfinite(mb))
		return -EINVAL;
	theta = mb / ma;
	reps = xcalloc(nboot, sizeof(*reps));
	work = xcalloc(nboot, sizeof(*work));
	for (size_t r = 0; r < nboot; r++) {
		double sa = 0, sb = 0;

		for (size_t i = 0; i < na; i++)
			sa += a[gsl_rng_uniform_int(rng->g, na)];
		for (size_t i = 0; i < nb; i++)
			sb += b[gsl_rng_uniform_int(rng->g, nb)];
		reps[r] = (sb / (double)nb) / (sa / (double)na);
	}
	jackknife_side(a, na, mb, 0, &s2a, &s3a);
	jackknife_side(b, nb, ma, 1, &s2b, &s3b);
	den = s2a + s2b;
	acc = den > 0 ? (s3a + s3b) / (6 * pow(den, 1.5)) : 0;
	for (size_t k = 0; k < nconf; k++) {
		memcpy(work, reps, nboot * sizeof(*work));
		stats_bca_from_replicates(work, nboot, theta, acc, confs[k],
					  &ret[k]);
	}
	return 0;
}
