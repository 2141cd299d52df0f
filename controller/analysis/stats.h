/*
 * stats.h - the statistics behind a verdict (REFERENCE.md section 1).
 *
 * stats.c is the only file that includes GSL: means and standard
 * deviations, the t, normal and quantile functions, sorting and the random
 * number generator all come from it.  What GSL lacks is written here and
 * says so: Fieller's interval for a ratio of means and its log-scale
 * (delta method) interval, the BCa bootstrap of that ratio, the exact
 * (permutation) null distribution of the Mann-Whitney rank sum with ties, and
 * Welch's t on logarithms.
 *
 * Also here: Welch's interval and test of a difference of means (for
 * metrics whose values cross zero), the constant per-look boundary of a
 * group-sequential design (Pocock's, for any information fractions, by
 * the recursive numerical integration of Armitage, McPherson and Rowe),
 * and Holm's step-down adjustment.
 *
 * Every function is pure apart from the RNG it is handed: no I/O, no
 * globals.  Errors are negative errno values; nothing here prints.  No
 * finite input aborts: GSL's error handler is switched off when the
 * program starts (a domain error returns NaN, which the callers turn into
 * "cannot compute" with a reason), and the formulas that square their
 * inputs scale them first, so values up to the largest double work.
 */
#ifndef SCHEDFARM_STATS_H
#define SCHEDFARM_STATS_H

#include <stddef.h>

/* n, mean and sample standard deviation (n - 1 in the denominator). */
struct stats_summary {
	size_t n;
	double mean;
	double sd;
};

/* Arithmetic mean; NaN for n == 0. */
double stats_mean(const double *x, size_t n);
/* Sample standard deviation; NaN for n < 2. */
double stats_sd(const double *x, size_t n);
/* Harmonic mean n / sum(1/x); NaN for n == 0 or any x <= 0. */
double stats_harmonic_mean(const double *x, size_t n);
/* Fill *ret from observations (sd NaN for n < 2). */
void stats_summarize(const double *x, size_t n, struct stats_summary *ret);

/* Standard normal: P(Z <= z) and its inverse. */
double stats_norm_cdf(double z);
double stats_norm_quantile(double p);
/* Student's t quantile P(T <= t) = p at df degrees of freedom (df > 0). */
double stats_t_quantile(double p, double df);
/*
 * Welch-Satterthwaite degrees of freedom for two variances of the mean
 * va = sa^2/na and vb = sb^2/nb, computed from the share r = va/(va+vb)
 * as 1 / (r^2/(na-1) + (1-r)^2/(nb-1)), so that no variance is squared:
 * variances near the largest double do not overflow.  NaN when both are
 * zero, either is negative or not finite, or a side has n < 2.
 */
double stats_welch_df(double va, size_t na, double vb, size_t nb);

/* A confidence interval; unbounded = 1 when it has no finite ends. */
struct stats_interval {
	double low, high;
	int unbounded;
};

/*
 * Fieller's confidence interval at level conf (0.95) for the ratio
 * mean_b / mean_a of two independent samples given as summaries:
 * v = s^2/n, a = xa^2 - t^2 va, b = -2 xa xb, c = xb^2 - t^2 vb, bounds
 * (-b -+ sqrt(b^2 - 4ac)) / 2a, with t at Welch's degrees of freedom.
 * When a <= 0 the denominator mean is not distinguishable from zero and
 * the set is unbounded: ret->unbounded = 1 and both ends are NaN.  When
 * both variances are zero the interval is the point ratio.  Either mean
 * may be negative (the ratio keeps its sign).  Both summaries are scaled
 * by a power of two first, so any finite input is safe.  Returns 0, or
 * -EINVAL for n < 2 on a side, a non-finite input or mean_a == 0, or
 * -EDOM when the t quantile cannot be computed.
 */
int stats_fieller(const struct stats_summary *a, const struct stats_summary *b,
		  double conf, struct stats_interval *ret);
/*
 * The same with t at df degrees of freedom (df > 0; NaN: Welch's).  The
 * comparison used it up to method version 2 with n_a + n_b - 2 when both
 * sides have the same n (the standard errors then coincide, and Welch's
 * smaller df would widen the interval past its level at small n); it now
 * uses stats_log_ratio(), and bench/calibration section 4 prints this one
 * beside it (doc/STATISTICS.md section 1).
 */
int stats_fieller_df(const struct stats_summary *a,
		     const struct stats_summary *b, double conf, double df,
		     struct stats_interval *ret);
/*
 * The interval at level conf of the ratio of means mean_b / mean_a on the
 * log scale: log(mean_b / mean_a) +- t se, se^2 = cv_a^2 / n_a +
 * cv_b^2 / n_b (cv = sd / |mean|: the delta method's variance of the log
 * of a mean), ends exp()'d back.  Both ends have the ratio's sign, so a
 * positive metric's %change interval never reaches -100%, and the
 * estimate mean_b / mean_a always lies inside.  t at df degrees of
 * freedom (df > 0; NaN: Welch's, from the two cv^2 / n).  When the base
 * mean is not distinguishable from zero at conf (|mean_a| <= t sd_a /
 * sqrt(n_a), Fieller's a <= 0) the ratio has no usable interval:
 * ret->unbounded = 1, both ends NaN.  Both variances zero: the point
 * ratio.  Only coefficients of variation are squared, so any finite
 * input is safe; an end past the largest double is +inf.  Returns 0,
 * -EINVAL for n < 2 on a side, a non-finite input, a zero mean or means
 * of opposite signs, or -EDOM when the t quantile cannot be computed.
 */
int stats_log_ratio(const struct stats_summary *a,
		    const struct stats_summary *b, double conf, double df,
		    struct stats_interval *ret);
/* n_a + n_b - 2 when both sides have the same n >= 2, else NaN. */
double stats_equal_n_df(const struct stats_summary *a,
			const struct stats_summary *b);

/*
 * Welch's interval at level conf for the difference mean_b - mean_a and
 * the two-sided p of Welch's t test of it, from summaries (n >= 2 per
 * side, finite, else -EINVAL).  When both standard deviations are zero
 * the data pin the difference down: the interval is the point and p is 1
 * when the means are equal, 0 when they differ (a metric without noise,
 * such as a flag that went from 1 to 0 on every boot).  Scaled like
 * stats_fieller().  ret or ret_p may be NULL.
 */
int stats_welch_diff(const struct stats_summary *a,
		     const struct stats_summary *b, double conf,
		     struct stats_interval *ret, double *ret_p);
/*
 * Student's two-sided t test of mean_b - mean_a with the pooled variance
 * (equal variances assumed: right where no change means one noise, and
 * robust to a short side whose own variance happens to be small).  n >=
 * 1 per side and n_a + n_b >= 3, else -EINVAL; both sides without spread:
 * p 1 for equal means, 0 otherwise.  Scaled like stats_fieller().
 */
int stats_student(const struct stats_summary *a, const struct stats_summary *b,
		  double *ret_p);
/* The interval with t at df (NaN: Welch's), as stats_fieller_df(). */
int stats_diff_interval(const struct stats_summary *a,
			const struct stats_summary *b, double conf, double df,
			struct stats_interval *ret);

/*
 * Welch's two-sided t test on the logarithms of two samples (all values
 * must be > 0, else -EDOM; n >= 2 per side, else -EINVAL).  *ret_p is the
 * p-value; when both log samples have zero variance it is 1 for equal
 * means and 0 otherwise, as in stats_welch_diff().
 */
int stats_welch_log(const double *a, size_t na, const double *b, size_t nb,
		    double *ret_p);
/*
 * The same from summaries of the raw values: each side's log-scale mean
 * and variance are taken from a lognormal with that mean and sd
 * (s_log^2 = ln(1 + cv^2), m_log = ln(mean) - s_log^2 / 2).  Means must be
 * > 0 (-EDOM), n >= 2 (-EINVAL).
 */
int stats_welch_log_summary(const struct stats_summary *a,
			    const struct stats_summary *b, double *ret_p);

/*
 * Two-sided Mann-Whitney U test of a against b.  *ret_u is U for b: the
 * number of pairs (a_i, b_j) with b_j > a_i plus half the ties.  When
 * both sides have at most exact_max observations (20) the p-value comes
 * from the exact permutation distribution of the rank sum given the
 * mid-ranks (so ties are handled exactly, as R's coin::wilcox_test with
 * distribution = "exact" does): p = min(1, 2 min(P(S <= s), P(S >= s))).
 * Above that, the normal approximation with the tie correction and a
 * continuity correction of 0.5 (R's wilcox.test(correct = TRUE)).
 * *ret_exact (may be NULL) says which.  Returns 0, or -EINVAL when a
 * side is empty or a value is not finite.
 */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       size_t exact_max, double *ret_u, double *ret_p,
		       int *ret_exact);

struct stats_rng;
/* A Mersenne Twister (gsl_rng_mt19937) seeded with seed; never NULL. */
struct stats_rng *stats_rng_new(unsigned long seed);
void stats_rng_free(struct stats_rng *r);
/* Uniform in [0, 1), a uniform integer in [0, n), and N(0, sigma^2). */
double stats_rng_uniform(struct stats_rng *r);
unsigned long stats_rng_int(struct stats_rng *r, unsigned long n);
double stats_rng_gaussian(struct stats_rng *r, double sigma);

/* What a bootstrap estimates: mean(b) / mean(a) or mean(b) - mean(a). */
enum stats_effect { STATS_RATIO, STATS_DIFF };

/*
 * BCa bootstrap intervals for the ratio mean(b) / mean(a), resampling each
 * side independently (a two-sample, stratified bootstrap) nboot times
 * with rng.  The bias correction z0 counts replicates below the estimate
 * (ties count half); the acceleration is the multi-sample jackknife
 * estimate of Efron & Tibshirani (1993), An Introduction to the
 * Bootstrap, section 14.3 and eq. 15.36, with U_ki = (n_k - 1)(mean of
 * the leave-one-out estimates - the one without observation i):
 * a = sum_k n_k^-3 sum_i U_ki^3 / (6 (sum_k n_k^-2 sum_i U_ki^2)^1.5).
 * One set of replicates serves every level in confs[0..nconf): ret[i] is
 * the interval at confs[i].  Needs n >= 2 per side and mean(a) != 0
 * (-EINVAL).
 */
int stats_bca_ratio(const double *a, size_t na, const double *b, size_t nb,
		    const double *confs, size_t nconf, size_t nboot,
		    struct stats_rng *rng, struct stats_interval *ret);
/*
 * The same for either effect.  STATS_DIFF needs no mean(a) != 0.  The
 * values are scaled by a power of two while resampling, so any finite
 * input is safe; the interval is in the values' own unit.
 */
int stats_bca(enum stats_effect effect, const double *a, size_t na,
	      const double *b, size_t nb, const double *confs, size_t nconf,
	      size_t nboot, struct stats_rng *rng, struct stats_interval *ret);

/*
 * The BCa end points from given replicates (sorted in place): theta_hat
 * the estimate, acc the acceleration.  Exposed so a test can check the
 * arithmetic against an independent computation on the same replicates.
 */
void stats_bca_from_replicates(double *reps, size_t nboot, double theta_hat,
			       double acc, double conf,
			       struct stats_interval *ret);

/*
 * The constant boundary of a group-sequential design (Pocock 1977, for
 * any spacing of the looks): the c for which a standardised statistic
 * looked at k times, at information fractions info[0] < ... < info[k-1]
 * (any positive scale; only the ratios matter), crosses |Z| >= c (sides
 * 2) or Z >= c (sides 1) at some look with probability alpha when there
 * is no effect.  The crossing probability is computed by the recursive
 * numerical integration of Armitage, McPherson & Rowe (1969), as in
 * Jennison & Turnbull (2000), Group Sequential Methods, chapter 19
 * (Simpson's rule, points a sixth of the smallest step's sd apart), and c
 * is found by regula falsi to 1e-10.
 * The nominal level each look then tests at is 2(1 - Phi(c)) (sides 2)
 * or 1 - Phi(c) (sides 1).  k == 1 gives the fixed design's quantile.
 * Returns 0, or -EINVAL for k < 1, k > 64, info not increasing and
 * positive, alpha outside (0, 0.5) or sides not 1 or 2.
 */
int stats_gs_constant(const double *info, size_t k, double alpha, int sides,
		      double *ret_c);
/* The probability that the design above crosses c (exposed for tests). */
double stats_gs_crossing(const double *info, size_t k, double c, int sides);

/*
 * Holm's step-down adjustment of m p-values: ret[i] is p[i]'s adjusted
 * p-value, max over the j-th smallest p_(j) <= p[i] of min(1, (m - j + 1)
 * p_(j)), so that rejecting every ret[i] < alpha keeps the family-wise
 * error at alpha.  NaN p-values are left NaN and do not count in m.
 * ret may be p.
 */
void stats_holm(const double *p, size_t m, double *ret);

#endif
