/*
 * test-stats.c - every statistic of stats.c against values computed
 * independently.  Unless a comment says otherwise the expected numbers
 * are printed by tests/unit/stats-reference.py with SciPy 1.10 (Debian
 * python3-scipy); textbook values are derived by hand beside them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>

#include "analysis/stats.h"

#define assert_close(got, want, rel)                                           \
	do {                                                                   \
		double g_ = (got), w_ = (want);                                \
		if (!(fabs(g_ - w_) <= (rel)*fabs(w_))) {                      \
			print_error("%s = %.17g, expected %.17g (rel %g)\n",   \
				    #got, g_, w_, (double)(rel));              \
			fail();                                                \
		}                                                              \
	} while (0)

/* Seed 003: re-aim JPM on 4-way, before and after sched-2.6.0-test2-mm2-A3. */
static const double seed003_a[] = { 1467.06, 1478.82, 1473.36 };
static const double seed003_b[] = { 1375.63, 1278.40, 1293.11 };

static void test_means(void **state)
{
	static const double x[] = { 1, 2, 4 };

	(void)state;
	/* By hand: (1 + 2 + 4) / 3; sd = sqrt(((-4/3)^2 + (-1/3)^2 +
	 * (5/3)^2) / 2) = sqrt(7/3); harmonic 3 / (1 + 1/2 + 1/4) = 12/7. */
	assert_close(stats_mean(x, 3), 7.0 / 3, 1e-15);
	assert_close(stats_sd(x, 3), sqrt(7.0 / 3), 1e-15);
	assert_close(stats_harmonic_mean(x, 3), 12.0 / 7, 1e-15);
	assert_true(isnan(stats_sd(x, 1)));
	assert_true(isnan(stats_mean(x, 0)));
	{
		static const double z[] = { 1, 0, 2 };

		assert_true(isnan(stats_harmonic_mean(z, 3)));
	}
}

static void test_quantiles(void **state)
{
	(void)state;
	/* scipy.stats.t.ppf(0.975, 10), t.ppf(0.95, 2.5), norm.ppf(0.975).
	 * GSL's t quantile is good to about 1e-11 relative, hence 1e-9. */
	assert_close(stats_t_quantile(0.975, 10), 2.2281388519649385, 1e-9);
	assert_close(stats_t_quantile(0.95, 2.5), 2.5582186141360017, 1e-10);
	assert_close(stats_norm_quantile(0.975), 1.959963984540054, 1e-12);
	assert_close(stats_norm_cdf(1.959963984540054), 0.975, 1e-12);
}

static void test_welch_df(void **state)
{
	struct stats_summary a, b;

	(void)state;
	stats_summarize(seed003_a, 3, &a);
	stats_summarize(seed003_b, 3, &b);
	/* stats-reference.py: "seed003 welch df" */
	assert_close(stats_welch_df(a.sd * a.sd / 3, 3, b.sd * b.sd / 3, 3),
		     2.050429882307951, 1e-12);
	assert_true(isnan(stats_welch_df(0, 3, 0, 3)));
}

static void test_fieller(void **state)
{
	struct stats_summary a, b;
	struct stats_interval ci;

	(void)state;
	stats_summarize(seed003_a, 3, &a);
	stats_summarize(seed003_b, 3, &b);
	/* The reference finds the ends by root finding on
	 * |xb - r xa| / sqrt(vb + r^2 va) = t (scipy.optimize.brentq), not
	 * with the quadratic formula used here. */
	assert_int_equal(stats_fieller(&a, &b, 0.95, &ci), 0);
	assert_false(ci.unbounded);
	assert_close(ci.low, 0.8064904432748318, 1e-9);
	assert_close(ci.high, 0.9800207924354153, 1e-9);
	assert_int_equal(stats_fieller(&a, &b, 0.90, &ci), 0);
	assert_close(ci.low, 0.8339296693229231, 1e-9);
	assert_close(ci.high, 0.9524920536354898, 1e-9);
}

static void test_fieller_unbounded(void **state)
{
	/* A base too noisy to tell its mean from zero: x_a^2 - t^2 v_a =
	 * -161.455 < 0 (stats-reference.py "unbounded case"). */
	static const double ua[] = { 1.0, 10.0, 0.5 }, ub[] = { 2.0, 2.1, 2.2 };
	struct stats_summary a, b;
	struct stats_interval ci;

	(void)state;
	stats_summarize(ua, 3, &a);
	stats_summarize(ub, 3, &b);
	assert_int_equal(stats_fieller(&a, &b, 0.95, &ci), 0);
	assert_true(ci.unbounded);
	assert_true(isnan(ci.low) && isnan(ci.high));
	/* No spread: the point ratio (by hand 2/1). */
	a.mean = 1;
	a.sd = 0;
	b.mean = 2;
	b.sd = 0;
	assert_int_equal(stats_fieller(&a, &b, 0.95, &ci), 0);
	assert_false(ci.unbounded);
	assert_true(ci.low == 2 && ci.high == 2);
	/* n < 2 and a zero base mean are refused. */
	a.n = 1;
	assert_int_equal(stats_fieller(&a, &b, 0.95, &ci), -EINVAL);
	a.n = 3;
	a.mean = 0;
	assert_int_equal(stats_fieller(&a, &b, 0.95, &ci), -EINVAL);
}

/*
 * The ratio of means on the log scale (issue 28): a positive new side
 * with a huge spread.  Fieller's interval reaches a negative ratio, which
 * a positive metric cannot have; the log-scale one stays positive.  Ends
 * from stats-reference.py ("huge spread fieller95 df 6" by numpy.roots,
 * "huge spread log-ratio95 df 6" with scipy.stats.t.ppf).
 */
static void test_log_ratio(void **state)
{
	static const double ha[] = { 120.0, 95.0, 140.0, 110.0 },
			    hb[] = { 3.0, 260.0, 1.5, 90.0 },
			    ua[] = { 1.0, 10.0, 0.5 }, ub[] = { 2.0, 2.1, 2.2 };
	struct stats_summary a, b;
	struct stats_interval ci;

	(void)state;
	stats_summarize(ha, 4, &a);
	stats_summarize(hb, 4, &b);
	assert_int_equal(stats_fieller_df(&a, &b, 0.95, 6, &ci), 0);
	/* 1e-8: the quadratic formula loses a few digits to cancellation
	 * at this end (a 50-digit Decimal evaluation agrees with numpy). */
	assert_close(ci.low, -0.5206181760997451, 1e-8);
	/* 1e-8 below: GSL's t quantile and SciPy's differ in the tenth
	 * digit, and the ends are exp(t se) with t se near 1.7. */
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, 6, &ci), 0);
	assert_false(ci.unbounded);
	assert_close(ci.low, 1 - 0.8592080538432013, 1e-8);
	assert_close(ci.high, 1 + 3.1280862351324726, 1e-8);
	assert_true(ci.low > 0 && ci.low < b.mean / a.mean &&
		    b.mean / a.mean < ci.high);
	/* Seed 003 at 4 df ("seed003 log-ratio95 df 4", as a ratio). */
	stats_summarize(seed003_a, 3, &a);
	stats_summarize(seed003_b, 3, &b);
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, 4, &ci), 0);
	assert_close(ci.low, 1 - 0.16234370609319093, 1e-8);
	assert_close(ci.high, 1 - 0.04763367786539819, 1e-8);
	/* Two negative means: a positive ratio, ends in order. */
	a.mean = -a.mean;
	b.mean = -b.mean;
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, 4, &ci), 0);
	assert_close(ci.low, 1 - 0.16234370609319093, 1e-8);
	assert_close(ci.high, 1 - 0.04763367786539819, 1e-8);
	/* Means of opposite signs, a zero mean, n < 2: refused. */
	b.mean = -b.mean;
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, 4, &ci), -EINVAL);
	b.mean = 0;
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, 4, &ci), -EINVAL);
	b.mean = a.mean;
	a.n = 1;
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, 4, &ci), -EINVAL);
	/* A base not told apart from 0: unbounded, as Fieller's (the
	 * "unbounded case" of test_fieller_unbounded, at Welch's df). */
	stats_summarize(ua, 3, &a);
	stats_summarize(ub, 3, &b);
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, NAN, &ci), 0);
	assert_true(ci.unbounded);
	assert_true(isnan(ci.low) && isnan(ci.high));
	/* No spread: the point ratio (by hand 2/1). */
	a.mean = 1;
	a.sd = 0;
	b.mean = 2;
	b.sd = 0;
	assert_int_equal(stats_log_ratio(&a, &b, 0.95, NAN, &ci), 0);
	assert_true(ci.low == 2 && ci.high == 2);
}

static void test_welch_log(void **state)
{
	static const double va[] = { 124089, 121962, 121223 },
			    vb[] = { 121499, 120181, 119775 },
			    fa[] = { 117789, 118154, 118945 },
			    fb[] = { 130208, 129086, 129362 };
	static const double bad[] = { 1, 0, 2 };
	double p;

	(void)state;
	/* scipy.stats.ttest_ind(log a, log b, equal_var=False).pvalue */
	assert_int_equal(stats_welch_log(seed003_a, 3, seed003_b, 3, &p), 0);
	assert_close(p, 0.036786808084414445, 1e-9);
	assert_int_equal(stats_welch_log(va, 3, vb, 3, &p), 0);
	assert_close(p, 0.13878141449877204, 1e-9);
	assert_int_equal(stats_welch_log(fa, 3, fb, 3, &p), 0);
	assert_close(p, 2.1491125667735656e-05, 1e-8);
	assert_int_equal(stats_welch_log(bad, 3, fb, 3, &p), -EDOM);
	assert_int_equal(stats_welch_log(fa, 1, fb, 3, &p), -EINVAL);
}

static void test_welch_log_summary(void **state)
{
	struct stats_summary a = { 6, 10.0, 1.0 }, b = { 7, 10.6, 1.2 };
	double p;

	(void)state;
	/* scipy.stats.ttest_ind_from_stats on lognormal log-moments */
	assert_int_equal(stats_welch_log_summary(&a, &b, &p), 0);
	assert_close(p, 0.3555689313887588, 1e-9);
	/* Seed 004 cycles: n 5000, sd = se% * mean * sqrt(n). */
	a.n = b.n = 5000;
	a.mean = 2414463154.0;
	a.sd = 0.00056 * a.mean * sqrt(5000);
	b.mean = 2448568573.0;
	b.sd = 0.00037 * b.mean * sqrt(5000);
	assert_int_equal(stats_welch_log_summary(&a, &b, &p), 0);
	assert_close(p, 1.71117437138583e-100, 1e-5);
	a.mean = -1;
	assert_int_equal(stats_welch_log_summary(&a, &b, &p), -EDOM);
}

static void test_mann_whitney_exact(void **state)
{
	static const double x[] = { 1.1, 2.3, 3.2, 4.8, 5.5, 6.1 },
			    y[] = { 3.9, 5.0, 7.2, 8.4, 9.9, 10.3, 11.0 };
	static const double s5a[] = { 1, 2, 3, 4, 5 },
			    s5b[] = { 6, 7, 8, 9, 10 };
	double u, p;
	int exact;

	(void)state;
	/* scipy.stats.mannwhitneyu(y, x, method='exact'): U 37, p 0.02214 */
	assert_int_equal(stats_mann_whitney(x, 6, y, 7, 20, &u, &p, &exact), 0);
	assert_true(exact);
	assert_close(u, 37, 0);
	assert_close(p, 0.022144522144522144, 1e-12);
	/* Textbook (REFERENCE.md 1.5): complete separation, two-sided,
	 * 2 / C(10, 5) = 0.0079 at 5 + 5 and 2 / C(8, 4) = 0.029 at 4 + 4. */
	assert_int_equal(stats_mann_whitney(s5a, 5, s5b, 5, 20, &u, &p, NULL),
			 0);
	assert_close(p, 2.0 / 252, 1e-12);
	assert_close(u, 25, 0);
	assert_int_equal(stats_mann_whitney(s5a, 4, s5b, 4, 20, &u, &p, NULL),
			 0);
	assert_close(p, 2.0 / 70, 1e-12);
	/* Identical samples: p = 1. */
	assert_int_equal(stats_mann_whitney(s5a, 5, s5a, 5, 20, &u, &p, NULL),
			 0);
	assert_close(p, 1, 0);
	assert_int_equal(stats_mann_whitney(s5a, 0, s5b, 5, 20, &u, &p, NULL),
			 -EINVAL);
}

static void test_mann_whitney_ties(void **state)
{
	static const double tx[] = { 1, 2, 2, 3, 5 },
			    ty[] = { 2, 3, 3, 4, 5, 6 };
	double u, p;
	int exact;

	(void)state;
	/* scipy.stats.permutation_test on the mid-rank sum, all C(11,5) =
	 * 462 splits enumerated: p = 0.21212121 (= 98/462); U from
	 * scipy.stats.mannwhitneyu(ty, tx).statistic = 22.5. */
	assert_int_equal(stats_mann_whitney(tx, 5, ty, 6, 20, &u, &p, &exact),
			 0);
	assert_true(exact);
	assert_close(u, 22.5, 0);
	assert_close(p, 0.21212121212121213, 1e-12);
}

static void test_mann_whitney_normal(void **state)
{
	double ax[25], ay[22], u, p;
	int exact;

	(void)state;
	for (int i = 0; i < 25; i++)
		ax[i] = (double)(i % 7);
	for (int i = 0; i < 22; i++)
		ay[i] = (double)(i % 7) + (i % 3) * 0.5;
	/* scipy.stats.mannwhitneyu(ay, ax, method='asymptotic',
	 * use_continuity=True): U 318, p 0.36209 (tie-corrected variance). */
	assert_int_equal(stats_mann_whitney(ax, 25, ay, 22, 20, &u, &p, &exact),
			 0);
	assert_false(exact);
	assert_close(u, 318, 0);
	assert_close(p, 0.3620911207595553, 1e-9);
}

static void test_bca_from_replicates(void **state)
{
	double reps[1000];
	struct stats_interval ci;

	(void)state;
	/* The same replicates and acceleration in stats-reference.py,
	 * worked through Efron & Tibshirani's steps with np.percentile. */
	for (int k = 0; k < 1000; k++)
		reps[k] = 1.0 + 0.05 * stats_norm_quantile((k + 0.5) / 1000);
	stats_bca_from_replicates(reps, 1000, 1.01, 0.05, 0.95, &ci);
	assert_close(ci.low, 0.9292021847659473, 1e-9);
	assert_close(ci.high, 1.1292421613272003, 1e-9);
	for (int k = 0; k < 1000; k++)
		reps[k] = 1.0 + 0.05 * stats_norm_quantile((k + 0.5) / 1000);
	stats_bca_from_replicates(reps, 1000, 1.01, 0.05, 0.90, &ci);
	assert_close(ci.low, 0.9426532390590381, 1e-9);
	assert_close(ci.high, 1.1108259109817624, 1e-9);
}

static void test_bca_end_to_end(void **state)
{
	static const double ba[] = { 100.2, 99.1,  101.5, 98.7,	 100.9, 99.8,
				     102.3, 100.1, 98.9,  101.0, 99.5,	100.4 },
			    bb[] = { 95.3, 96.8, 94.9, 95.7, 97.1, 95.0,
				     96.2, 94.4, 95.9, 96.5, 95.2 };
	static const double conf[1] = { 0.95 };
	struct stats_interval ci;
	struct stats_rng *rng = stats_rng_new(5489);

	(void)state;
	/* scipy.stats.bootstrap(method='BCa', 200000 resamples):
	 * [0.947830, 0.962615].  Ours draws 10000 replicates from GSL's
	 * MT19937, so the ends agree to Monte Carlo error: 0.1% of the
	 * ratio is about a fifth of the interval's half-width. */
	assert_int_equal(
		stats_bca_ratio(ba, 12, bb, 11, conf, 1, 10000, rng, &ci), 0);
	assert_close(ci.low, 0.947830150284138, 1e-3);
	assert_close(ci.high, 0.9626150495860869, 1e-3);
	stats_rng_free(rng);
	/* All values equal: the interval is the point, no NaN. */
	{
		static const double c[] = { 5, 5, 5, 5 };
		struct stats_rng *r2 = stats_rng_new(1);

		assert_int_equal(
			stats_bca_ratio(c, 4, c, 4, conf, 1, 1000, r2, &ci), 0);
		assert_true(ci.low == 1 && ci.high == 1);
		stats_rng_free(r2);
	}
}

static void test_rng_fixed_seed(void **state)
{
	struct stats_rng *a = stats_rng_new(42), *b = stats_rng_new(42);

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_true(stats_rng_gaussian(a, 1) ==
			    stats_rng_gaussian(b, 1));
	assert_true(stats_rng_int(a, 10) < 10);
	stats_rng_free(a);
	stats_rng_free(b);
	stats_rng_free(NULL);
}

/* Welch's df from the shares, so variances near DBL_MAX do not overflow. */
static void test_welch_df_huge(void **state)
{
	(void)state;
	/* Equal variances, 3 a side: (2v)^2 / (2 v^2 / 2) = 4, by hand. */
	assert_close(stats_welch_df(1e300, 3, 1e300, 3), 4, 1e-12);
	assert_close(stats_welch_df(1.5e308, 3, 1.5e308, 3), 4, 1e-12);
	assert_close(stats_welch_df(2, 3, 2, 3), 4, 1e-12);
	assert_true(isnan(stats_welch_df(NAN, 3, 1, 3)));
	/* GSL's handler is off: a NaN argument returns NaN, no abort. */
	assert_true(isnan(stats_t_quantile(0.975, NAN)));
}

static void test_welch_diff(void **state)
{
	static const double da[] = { 0.5, -0.4, 0.3, -0.6, 0.2, -0.1 },
			    db[] = { 4.8, 5.3, 5.1, 4.6, 5.2, 5.0 };
	struct stats_summary a, b;
	struct stats_interval ci;
	double p;

	(void)state;
	stats_summarize(da, 6, &a);
	stats_summarize(db, 6, &b);
	/* stats-reference.py "crossing zero": Welch's interval by hand
	 * from scipy's t.ppf, p from scipy.stats.ttest_ind. */
	assert_int_equal(stats_welch_diff(&a, &b, 0.95, &ci, &p), 0);
	assert_close(ci.low, 4.549053493775446, 1e-9);
	assert_close(ci.high, 5.484279839557885, 1e-9);
	assert_close(p, 4.8998142108519946e-09, 1e-6);
	/* Scaled by 1e300: the same interval, scaled. */
	a.mean *= 1e300;
	a.sd *= 1e300;
	b.mean *= 1e300;
	b.sd *= 1e300;
	assert_int_equal(stats_welch_diff(&a, &b, 0.95, &ci, &p), 0);
	assert_close(ci.low, 4.549053493775446e300, 1e-9);
	assert_close(p, 4.8998142108519946e-09, 1e-6);
	/* No spread: the point, p 0 when the means differ, 1 when not. */
	a.sd = b.sd = 0;
	assert_int_equal(stats_welch_diff(&a, &b, 0.95, &ci, &p), 0);
	assert_true(ci.low == ci.high && p == 0);
	b.mean = a.mean;
	assert_int_equal(stats_welch_diff(&a, &b, 0.95, NULL, &p), 0);
	assert_true(p == 1);
	a.n = 1;
	assert_int_equal(stats_welch_diff(&a, &b, 0.95, &ci, &p), -EINVAL);
}

static void test_bca_diff(void **state)
{
	/* stats-reference.py "bca-diff sample a/b", scipy.stats.bootstrap
	 * BCa of mean(b) - mean(a), 200000 resamples: [4.32954, 5.27326];
	 * ours 10000 replicates, so to Monte Carlo error. */
	static const double xa[] = { 1.827,  -3.078, 0.958,  0.07,   1.318,
				     0.386,  1.827,  0.032,  -0.516, 0.58,
				     0.432,  -0.357, -0.247, 0.719,  0.704,
				     -0.494, -0.368, -1.807, 1.679,  -0.224,
				     1.337,  0.417,  1.944,  1.537,  0.318,
				     1.481,  -0.95,  1.259,  -1.48,  0.343,
				     1.065,  0.224,  -0.367, -0.806, -0.343 };
	static const double xb[] = { 6.051, 5.891, 4.738, 3.754, 5.674, 3.55,
				     4.469, 4.265, 5.743, 5.236, 5.462, 5.272,
				     4.322, 5.535, 6.412, 4.963, 5.634, 4.874,
				     6.029, 5.667, 5.876, 5.348, 6.64,	4.639,
				     4.666, 4.408, 5.611, 4.378, 4.355, 5.727,
				     6.162, 5.574, 2.317, 4.046, 3.927 };
	static const double conf[1] = { 0.95 };
	struct stats_interval ci;
	struct stats_rng *rng = stats_rng_new(5489);
	double big_a[35], big_b[35];

	(void)state;
	assert_int_equal(
		stats_bca(STATS_DIFF, xa, 35, xb, 35, conf, 1, 10000, rng, &ci),
		0);
	assert_true(fabs(ci.low - 4.329542857142858) < 0.03);
	assert_true(fabs(ci.high - 5.273257142857142) < 0.03);
	stats_rng_free(rng);
	/* The same values times 1e305: the same interval, scaled back. */
	for (int i = 0; i < 35; i++) {
		big_a[i] = xa[i] * 1e305;
		big_b[i] = xb[i] * 1e305;
	}
	rng = stats_rng_new(5489);
	assert_int_equal(stats_bca(STATS_DIFF, big_a, 35, big_b, 35, conf, 1,
				   10000, rng, &ci),
			 0);
	assert_true(isfinite(ci.low) && isfinite(ci.high));
	assert_true(fabs(ci.low / 1e305 - 4.329542857142858) < 0.03);
	stats_rng_free(rng);
}

/*
 * Pocock's constant: Pocock (1977), Biometrika 64, table 1 (and
 * Jennison & Turnbull 2000, table 2.1), equal looks at alpha 0.05:
 * K = 2..5: 2.178, 2.289, 2.361, 2.413; stats-reference.py checks those
 * with scipy's multivariate normal and gives the unequal looks of a
 * sequence with boots 3 (7, 11, 15, 19 per side).
 */
static void test_gs_constant(void **state)
{
	static const double eq[5] = { 1, 2, 3, 4, 5 },
			    seq[4] = { 7, 11, 15, 19 };
	static const double pocock05[] = { 2.178272088833023,
					   2.2894784954515113,
					   2.361298844082786,
					   2.4131730009252705 };
	double c;

	(void)state;
	for (int k = 2; k <= 5; k++) {
		assert_int_equal(stats_gs_constant(eq, (size_t)k, 0.05, 2, &c),
				 0);
		assert_close(c, pocock05[k - 2], 1e-4);
	}
	/* One look: the fixed design's quantile. */
	assert_int_equal(stats_gs_constant(eq, 1, 0.01, 2, &c), 0);
	assert_close(c, 2.5758293035489004, 1e-9);
	/* REFERENCE.md 1.4: "about 0.0033 per look" for 4 looks at 0.01. */
	assert_int_equal(stats_gs_constant(eq, 4, 0.01, 2, &c), 0);
	assert_close(c, 2.938664473125745, 1e-4);
	assert_close(2 * (1 - stats_norm_cdf(c)), 0.0032962970929989355, 1e-3);
	assert_int_equal(stats_gs_constant(seq, 4, 0.01, 2, &c), 0);
	assert_close(c, 2.9133576540404653, 1e-4);
	assert_close(stats_gs_crossing(seq, 4, c, 2), 0.01, 1e-6);
	assert_int_equal(stats_gs_constant(seq, 4, 0.05, 1, &c), 0);
	assert_close(c, 2.029930716141668, 1e-4);
	/* Looks must grow; alpha in (0, 0.5). */
	{
		static const double bad[2] = { 2, 1 };

		assert_int_equal(stats_gs_constant(bad, 2, 0.05, 2, &c),
				 -EINVAL);
		assert_int_equal(stats_gs_constant(eq, 2, 0.6, 2, &c), -EINVAL);
		assert_int_equal(stats_gs_constant(eq, 0, 0.05, 2, &c),
				 -EINVAL);
	}
}

static void test_holm(void **state)
{
	double p[4] = { 0.02, 0.004, NAN, 0.006 }, adj[4];

	(void)state;
	/* By hand (Holm 1979; stats-reference.py "Holm of"): sorted 0.004,
	 * 0.006, 0.02 times 3, 2, 1 with a running maximum; NaN stays. */
	stats_holm(p, 4, adj);
	assert_close(adj[1], 0.012, 1e-12);
	assert_close(adj[3], 0.012, 1e-12);
	assert_close(adj[0], 0.02, 1e-12);
	assert_true(isnan(adj[2]));
	/* In place, and capped at 1. */
	p[0] = 0.6;
	p[1] = 0.5;
	stats_holm(p, 2, p);
	assert_close(p[1], 1, 0);
	assert_close(p[0], 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_means),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_welch_df),
		cmocka_unit_test(test_fieller),
		cmocka_unit_test(test_fieller_unbounded),
		cmocka_unit_test(test_log_ratio),
		cmocka_unit_test(test_welch_log),
		cmocka_unit_test(test_welch_log_summary),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_mann_whitney_normal),
		cmocka_unit_test(test_bca_from_replicates),
		cmocka_unit_test(test_bca_end_to_end),
		cmocka_unit_test(test_rng_fixed_seed),
		cmocka_unit_test(test_welch_df_huge),
		cmocka_unit_test(test_welch_diff),
		cmocka_unit_test(test_bca_diff),
		cmocka_unit_test(test_gs_constant),
		cmocka_unit_test(test_holm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
