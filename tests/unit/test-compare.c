/*
 * test-compare.c - the method of compare.c: which statistic at which size,
 * the verdict rules, adaptive repetitions, and the error rates the issue
 * asks for (A/A false calls, power at -5%) over synthetic data from GSL's
 * RNG with fixed seeds.  Expected numbers come from
 * tests/unit/stats-reference.py (SciPy 1.10) unless a comment derives
 * them by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "analysis/compare.h"
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

static void test_units_and_tau(void **state)
{
	(void)state;
	assert_true(compare_unit_is_rate("records/s"));
	assert_true(compare_unit_is_rate("messages per second"));
	assert_true(compare_unit_is_rate("per sec."));
	assert_true(compare_unit_is_rate("jobs per minute"));
	assert_true(compare_unit_is_rate("ops"));
	assert_true(compare_unit_is_rate("M/sec"));
	assert_true(compare_unit_is_rate("per_thread_ops"));
	assert_false(compare_unit_is_rate("loops"));
	assert_false(compare_unit_is_rate("hops"));
	assert_false(compare_unit_is_rate("s"));
	assert_false(compare_unit_is_rate("ms"));
	assert_false(compare_unit_is_rate("instructions"));
	assert_false(compare_unit_is_rate(""));
	assert_true(compare_default_tau("latency_p99") == 5.0);
	assert_true(compare_default_tau("Max-Latency") == 5.0);
	assert_true(compare_default_tau("throughput") == 2.0);
	assert_true(compare_default_tau("elapsed") == 2.0);
}

static void test_observation(void **state)
{
	static const double it[] = { 100, 200, 400 }, z[] = { 100, 0 };

	(void)state;
	/* scipy.stats.hmean([100, 200, 400]) = 171.428...; arithmetic 700/3 */
	assert_close(compare_observation(it, 3, 1), 171.42857142857144, 1e-15);
	assert_close(compare_observation(it, 3, 0), 700.0 / 3, 1e-15);
	/* A zero rate has no harmonic mean: the arithmetic one, by hand 50. */
	assert_close(compare_observation(z, 2, 1), 50, 0);
	assert_true(isnan(compare_observation(it, 0, 0)));
}

static const double seed003_a[] = { 1467.06, 1478.82, 1473.36 };
static const double seed003_b[] = { 1375.63, 1278.40, 1293.11 };

static void test_seed003_small_sample(void **state)
{
	struct compare_sample a = { seed003_a, 3, 0, 0 },
			      b = { seed003_b, 3, 0, 0 };
	struct compare_stats s;

	(void)state;
	compare_stats_compute(&a, &b, &s);
	assert_int_equal(s.n_base, 3);
	assert_string_equal(s.ci_method, "fieller");
	assert_string_equal(s.p_method, "welch-log");
	assert_close(s.pct_change, -10.682832342212677, 1e-12);
	/* Fieller ratio ends 0.80649..., 0.98002... as percentages. */
	assert_close(s.ci_low, 100 * (0.8064904432748318 - 1), 1e-8);
	assert_close(s.ci_high, 100 * (0.9800207924354153 - 1), 1e-7);
	assert_close(s.p_value, 0.036786808084414445, 1e-9);
	/* p = 0.037 is not < 0.01, and the 90% CI is not inside +-2%:
	 * three runs a side cannot call this 10% drop. */
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA),
		CMP_INCONCLUSIVE);
}

static void test_insufficient(void **state)
{
	static const double a1[] = { 5381.20 }, b1[] = { 4824.96 };
	struct compare_sample a = { a1, 1, 0, 0 }, b = { b1, 1, 0, 0 };
	struct compare_stats s;

	(void)state;
	compare_stats_compute(&a, &b, &s);
	/* Seed 003's first table, 4-cpu: by hand 4824.96 / 5381.20 - 1. */
	assert_close(s.pct_change, 100 * (4824.96 / 5381.20 - 1), 1e-12);
	assert_true(isnan(s.ci_low) && isnan(s.p_value));
	assert_null(s.ci_method);
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA),
		CMP_INSUFFICIENT);
	/* 2 + 3 is still insufficient, though a CI exists. */
	a.obs = seed003_a;
	a.n = 2;
	b.obs = seed003_b;
	b.n = 3;
	compare_stats_compute(&a, &b, &s);
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA),
		CMP_INSUFFICIENT);
}

static void test_summaries_seed004(void **state)
{
	/* perf stat --repeat 5000: sd = se% / 100 * mean * sqrt(5000). */
	const double r = sqrt(5000);
	struct compare_sample ia = { NULL, 5000, 994061050.0,
				     0.00133 * 994061050.0 * r },
			      ib = { NULL, 5000, 1064610666.0,
				     0.00086 * 1064610666.0 * r },
			      ca = { NULL, 5000, 2414463154.0,
				     0.00056 * 2414463154.0 * r },
			      cb = { NULL, 5000, 2448568573.0,
				     0.00037 * 2448568573.0 * r };
	struct compare_stats s;

	(void)state;
	compare_stats_compute(&ia, &ib, &s);
	assert_string_equal(s.ci_method, "fieller");
	assert_string_equal(s.p_method, "welch-log");
	assert_close(s.pct_change, 7.0971109872980165, 1e-12);
	assert_close(s.ci_low, 6.76533674892108, 1e-7);
	assert_close(s.ci_high, 7.430341114917005, 1e-7);
	/* More instructions is worse. */
	assert_int_equal(compare_decide(&s, CMP_BETTER_LOWER, 2, COMPARE_ALPHA),
			 CMP_REGRESSION);
	compare_stats_compute(&ca, &cb, &s);
	assert_close(s.pct_change, 1.4125466749616011, 1e-12);
	assert_close(s.ci90_low, 1.300659891131839, 1e-7);
	assert_close(s.ci90_high, 1.5246055841056316, 1e-7);
	assert_close(s.p_value, 1.71117437138583e-100, 1e-5);
	/* +1.4% cycles: inside the default 2% band, a regression at 1%. */
	assert_int_equal(compare_decide(&s, CMP_BETTER_LOWER, 2, COMPARE_ALPHA),
			 CMP_NO_CHANGE);
	assert_int_equal(compare_decide(&s, CMP_BETTER_LOWER, 1, COMPARE_ALPHA),
			 CMP_REGRESSION);
	/* A metric with no direction is never better or worse. */
	assert_int_equal(compare_decide(&s, CMP_BETTER_NONE, 1, COMPARE_ALPHA),
			 CMP_INCONCLUSIVE);
}

static void test_mann_whitney_from_five(void **state)
{
	static const double a[] = { 100, 101, 99, 100.5, 99.5 },
			    b[] = { 95, 96, 94, 95.5, 94.5 };
	struct compare_sample sa = { a, 5, 0, 0 }, sb = { b, 5, 0, 0 };
	struct compare_stats s;

	(void)state;
	compare_stats_compute(&sa, &sb, &s);
	assert_string_equal(s.p_method, "mann-whitney-exact");
	assert_string_equal(s.ci_method, "fieller");
	/* Complete separation at 5 + 5: 2 / C(10,5), by hand. */
	assert_close(s.p_value, 2.0 / 252, 1e-12);
	/* By hand: 95 / 100 - 1. */
	assert_close(s.pct_change, -5, 1e-12);
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA),
		CMP_REGRESSION);
	assert_int_equal(compare_decide(&s, CMP_BETTER_LOWER, 2, COMPARE_ALPHA),
			 CMP_IMPROVEMENT);
}

static void test_bca_from_ten(void **state)
{
	static const double ba[] = { 100.2, 99.1,  101.5, 98.7,	 100.9, 99.8,
				     102.3, 100.1, 98.9,  101.0, 99.5,	100.4 },
			    bb[] = { 95.3, 96.8, 94.9, 95.7, 97.1, 95.0,
				     96.2, 94.4, 95.9, 96.5, 95.2 };
	struct compare_sample sa = { ba, 12, 0, 0 }, sb = { bb, 11, 0, 0 };
	struct compare_stats s, s2;

	(void)state;
	compare_stats_compute(&sa, &sb, &s);
	assert_string_equal(s.ci_method, "bca");
	assert_string_equal(s.p_method, "mann-whitney-exact");
	/* scipy.stats.bootstrap BCa (200000 resamples): ratio
	 * [0.947830, 0.962615]; to Monte Carlo error, 0.15 points. */
	assert_true(fabs(s.ci_low - 100 * (0.947830150284138 - 1)) < 0.15);
	assert_true(fabs(s.ci_high - 100 * (0.9626150495860869 - 1)) < 0.15);
	assert_true(s.ci90_low > s.ci_low && s.ci90_high < s.ci_high);
	/* The seed is fixed: a recompute gives the very same interval. */
	compare_stats_compute(&sa, &sb, &s2);
	assert_true(s.ci_low == s2.ci_low && s.ci_high == s2.ci_high);
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA),
		CMP_REGRESSION);
}

static void test_decide_rules(void **state)
{
	struct compare_stats s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.n_base = s.n_new = 8;
	s.p_value = 0.005;
	s.ci_low = -6;
	s.ci_high = -3;
	s.ci90_low = -5.5;
	s.ci90_high = -3.5;
	assert_int_equal(compare_decide(&s, CMP_BETTER_HIGHER, 2, 0.01),
			 CMP_REGRESSION);
	/* The CI touches the band: not beyond tau. */
	assert_int_equal(compare_decide(&s, CMP_BETTER_HIGHER, 3, 0.01),
			 CMP_INCONCLUSIVE);
	/* Significant but not at alpha. */
	s.p_value = 0.015;
	assert_int_equal(compare_decide(&s, CMP_BETTER_HIGHER, 2, 0.01),
			 CMP_INCONCLUSIVE);
	/* ... which Pocock's per-look threshold accepts. */
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_POCOCK_ALPHA),
		CMP_REGRESSION);
	/* No-change: the 90% CI inside +-tau, whatever p says. */
	s.p_value = 0.001;
	s.ci_low = -1.5;
	s.ci_high = -0.2;
	s.ci90_low = -1.3;
	s.ci90_high = -0.4;
	assert_int_equal(compare_decide(&s, CMP_BETTER_HIGHER, 2, 0.01),
			 CMP_NO_CHANGE);
	/* No p and no CI: inconclusive. */
	s.p_value = s.ci_low = s.ci_high = s.ci90_low = s.ci90_high = NAN;
	assert_int_equal(compare_decide(&s, CMP_BETTER_HIGHER, 2, 0.01),
			 CMP_INCONCLUSIVE);
}

static void test_fieller_unbounded_is_inconclusive(void **state)
{
	static const double a[] = { 1.0, 10.0, 0.5 }, b[] = { 2.0, 2.1, 2.2 };
	struct compare_sample sa = { a, 3, 0, 0 }, sb = { b, 3, 0, 0 };
	struct compare_stats s;

	(void)state;
	compare_stats_compute(&sa, &sb, &s);
	assert_true(s.ci_unbounded);
	assert_true(isnan(s.ci_low) && isnan(s.ci_high));
	assert_int_equal(
		compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA),
		CMP_INCONCLUSIVE);
}

/* n draws of mean * (1 + cv * N(0,1)). */
static void draw(struct stats_rng *rng, double *x, size_t n, double mean,
		 double cv)
{
	for (size_t i = 0; i < n; i++)
		x[i] = mean * (1 + stats_rng_gaussian(rng, cv));
}

static void test_aa_false_calls(void **state)
{
	struct stats_rng *rng = stats_rng_new(20261130);
	double a[5], b[5];
	int calls = 0, nochange = 0;

	(void)state;
	/* 200 A/A pairs, CV 2%, 5 per side: at most 2 called either way. */
	for (int k = 0; k < 200; k++) {
		struct compare_sample sa = { a, 5, 0, 0 }, sb = { b, 5, 0, 0 };
		struct compare_stats s;
		enum cmp_verdict v;

		draw(rng, a, 5, 1000, 0.02);
		draw(rng, b, 5, 1000, 0.02);
		compare_stats_compute(&sa, &sb, &s);
		v = compare_decide(&s, CMP_BETTER_HIGHER, 2, COMPARE_ALPHA);
		calls += v == CMP_REGRESSION || v == CMP_IMPROVEMENT;
		nochange += v == CMP_NO_CHANGE;
	}
	print_message("# A/A: %d of 200 pairs called regression or "
		      "improvement, %d no-change\n",
		      calls, nochange);
	assert_true(calls <= 2);
	stats_rng_free(rng);
}

static void test_minus_five_percent_power(void **state)
{
	struct stats_rng *rng = stats_rng_new(20261201);
	double a[10], b[10];
	int hits = 0;

	(void)state;
	/* -5% at CV 1%, 10 per side: regression in at least 95% of 50. */
	for (int k = 0; k < 50; k++) {
		struct compare_sample sa = { a, 10, 0, 0 },
				      sb = { b, 10, 0, 0 };
		struct compare_stats s;

		draw(rng, a, 10, 1000, 0.01);
		draw(rng, b, 10, 950, 0.01);
		compare_stats_compute(&sa, &sb, &s);
		assert_string_equal(s.ci_method, "bca");
		hits += compare_decide(&s, CMP_BETTER_HIGHER, 2,
				       COMPARE_ALPHA) == CMP_REGRESSION;
	}
	print_message("# -5%% at CV 1%%, 10 per side: %d of 50 called "
		      "regression\n",
		      hits);
	assert_true(hits >= 48);
	stats_rng_free(rng);
}

static void test_adaptive(void **state)
{
	struct compare_sample a = { seed003_a, 3, 0, 0 },
			      b = { seed003_b, 3, 0, 0 };
	struct compare_next next;
	struct strbuf why = STRBUF_INIT;
	static const double ca[] = { 100, 101, 99, 100.5, 99.5 },
			    cb[] = { 95, 96, 94, 95.5, 94.5 };

	(void)state;
	/* Seed 003 after its first 3 + 3: inconclusive, queue 4 more. */
	assert_int_equal(compare_adaptive_next(&a, &b, CMP_BETTER_HIGHER, 2, 1,
					       20, &next, &why),
			 0);
	assert_false(next.stop);
	assert_int_equal(next.add_per_side, 4);
	assert_int_equal(next.verdict, CMP_INCONCLUSIVE);
	assert_true(next.threshold == 0.0182);
	assert_non_null(strstr(why.buf, "queue 4 more per side"));
	/* The same at the last look stops. */
	strbuf_reset(&why);
	assert_int_equal(compare_adaptive_next(&a, &b, CMP_BETTER_HIGHER, 2, 4,
					       20, &next, &why),
			 0);
	assert_true(next.stop);
	assert_int_equal(next.add_per_side, 0);
	assert_non_null(strstr(why.buf, "last look"));
	/* ... and so does a cap another block would pass. */
	strbuf_reset(&why);
	assert_int_equal(compare_adaptive_next(&a, &b, CMP_BETTER_HIGHER, 2, 2,
					       6, &next, &why),
			 0);
	assert_true(next.stop);
	assert_non_null(strstr(why.buf, "cap"));
	/* A clear -5% at 5 + 5 is decided at once. */
	a.obs = ca;
	a.n = 5;
	b.obs = cb;
	b.n = 5;
	strbuf_reset(&why);
	assert_int_equal(compare_adaptive_next(&a, &b, CMP_BETTER_HIGHER, 2, 1,
					       20, &next, &why),
			 0);
	assert_true(next.stop);
	assert_int_equal(next.verdict, CMP_REGRESSION);
	assert_non_null(strstr(why.buf, "decided at look 1 of 4: regression"));
	/* Looks are 1..4. */
	assert_int_equal(compare_adaptive_next(&a, &b, CMP_BETTER_HIGHER, 2, 5,
					       20, &next, &why),
			 -1);
	strbuf_release(&why);
}

static void test_set_next(void **state)
{
	struct compare_row rows[3];
	struct compare_set set;
	struct strbuf why = STRBUF_INIT;
	int stop, add;

	(void)state;
	memset(rows, 0, sizeof(rows));
	memset(&set, 0, sizeof(set));
	rows[0].metric = (char *)"throughput";
	rows[0].host = (char *)"box1";
	rows[0].verdict = CMP_INCONCLUSIVE;
	rows[0].s.n_base = rows[0].s.n_new = 8;
	rows[1].metric = (char *)"latency_p99";
	rows[1].host = (char *)"box1";
	rows[1].verdict = CMP_NO_CHANGE;
	rows[1].s.n_base = rows[1].s.n_new = 8;
	rows[2].metric = (char *)"ctxsw";
	rows[2].host = (char *)"box1";
	rows[2].verdict = CMP_INSUFFICIENT;
	rows[2].s.n_base = rows[2].s.n_new = 2;
	set.rows = rows;
	set.nr = 3;
	/* Nothing marked deciding: every row decides; two are open. */
	assert_int_equal(compare_set_next(&set, 2, 20, &stop, &add, &why), 0);
	assert_false(stop);
	assert_int_equal(add, 4);
	assert_non_null(strstr(why.buf, "2 undecided (throughput "
					"inconclusive on box1, ctxsw "
					"insufficient-data on box1)"));
	/* Only the decided row decides: stop. */
	rows[1].decides = 1;
	strbuf_reset(&why);
	assert_int_equal(compare_set_next(&set, 2, 20, &stop, &add, &why), 0);
	assert_true(stop);
	assert_int_equal(add, 0);
	assert_non_null(strstr(why.buf, "all 1 deciding metric decided"));
	/* An open deciding row at the cap: 8 + 4 > 10. */
	rows[0].decides = 1;
	strbuf_reset(&why);
	assert_int_equal(compare_set_next(&set, 2, 10, &stop, &add, &why), 0);
	assert_true(stop);
	assert_non_null(
		strstr(why.buf, "stopped at the cap (10 boots per side)"));
	/* ... or at the last look. */
	strbuf_reset(&why);
	assert_int_equal(compare_set_next(&set, 4, 20, &stop, &add, &why), 0);
	assert_true(stop);
	assert_non_null(strstr(why.buf, "last look (4 of 4)"));
	assert_int_equal(compare_set_next(&set, 0, 20, &stop, &add, &why), -1);
	strbuf_release(&why);
}

static void test_names(void **state)
{
	enum cmp_better b;

	(void)state;
	assert_string_equal(compare_verdict_name(CMP_INSUFFICIENT),
			    "insufficient-data");
	assert_string_equal(compare_verdict_name(CMP_NO_CHANGE), "no-change");
	assert_int_equal(compare_better_parse("lower", &b), 0);
	assert_int_equal(b, CMP_BETTER_LOWER);
	assert_int_equal(compare_better_parse("Lower", &b), -1);
	assert_string_equal(compare_better_name(CMP_BETTER_HIGHER), "higher");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_and_tau),
		cmocka_unit_test(test_observation),
		cmocka_unit_test(test_seed003_small_sample),
		cmocka_unit_test(test_insufficient),
		cmocka_unit_test(test_summaries_seed004),
		cmocka_unit_test(test_mann_whitney_from_five),
		cmocka_unit_test(test_bca_from_ten),
		cmocka_unit_test(test_decide_rules),
		cmocka_unit_test(test_fieller_unbounded_is_inconclusive),
		cmocka_unit_test(test_aa_false_calls),
		cmocka_unit_test(test_minus_five_percent_power),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_set_next),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
