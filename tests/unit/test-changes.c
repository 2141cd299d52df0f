/*
 * test-changes.c - the pure search of changes.c: E-divisive means with
 * windows and t tests on synthetic histories drawn with GSL's MT19937
 * from fixed seeds.  The cases: 300 points at CV 1% with shifts
 * of 3% at two known places (found within +-3 points, nothing else), 300
 * points without a shift (nothing), and the edges (short, constant, a
 * clean step without noise, non-finite values).  The database step is
 * tests/integration/t5006-history-changes.sh; the rates over 100 seeds
 * are bench/calibration's section 5 (BENCH_SECTIONS=5 bench/calibration).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/changes.h"
#include "analysis/stats.h"

/* 300 points, CV 1%: 1000, +3% from point 100, +3% more from 200. */
static void two_shifts(unsigned long seed, double *x)
{
	struct stats_rng *r = stats_rng_new(seed);

	for (int i = 0; i < 300; i++) {
		double m = 1000 * (i >= 100 ? 1.03 : 1) * (i >= 200 ? 1.03 : 1);

		x[i] = m * (1 + stats_rng_gaussian(r, 0.01));
	}
	stats_rng_free(r);
}

static void test_two_shifts(void **state)
{
	struct changes_list l = { NULL, 0, 0 };
	double x[300];

	(void)state;
	two_shifts(20261201, x);
	assert_int_equal(changes_find(x, 300, &l), 0);
	assert_int_equal(l.nr, 2);
	assert_true(labs((long)l.v[0].idx - 100) <= 3);
	assert_true(labs((long)l.v[1].idx - 200) <= 3);
	/* The shifts are +3%, the segments either side the rest. */
	assert_true(fabs(l.v[0].mean_after / l.v[0].mean_before - 1.03) <
		    0.005);
	assert_true(fabs(l.v[1].mean_after / l.v[1].mean_before - 1.03) <
		    0.005);
	assert_int_equal(l.v[0].n_before, l.v[0].idx);
	assert_int_equal(l.v[1].n_after, 300 - l.v[1].idx);
	assert_true(l.v[0].p < CHANGES_P_CONFIRM && l.v[1].p < 1e-20);
	changes_list_release(&l);
}

static void test_two_shifts_many_seeds(void **state)
{
	struct changes_list l = { NULL, 0, 0 };
	double x[300];
	int exact = 0;

	(void)state;
	/* Twenty seeds: both found within +-3 every time but at most one
	 * (3 sigma shifts leave a few points of doubt), nothing else. */
	for (unsigned long s = 1; s <= 20; s++) {
		two_shifts(s, x);
		assert_int_equal(changes_find(x, 300, &l), 0);
		exact += l.nr == 2 && labs((long)l.v[0].idx - 100) <= 3 &&
			 labs((long)l.v[1].idx - 200) <= 3;
		assert_true(l.nr >= 2 && l.nr <= 3);
	}
	assert_true(exact >= 19);
	changes_list_release(&l);
}

static void test_flat(void **state)
{
	struct changes_list l = { NULL, 0, 0 };
	double x[300];
	size_t found = 0;

	(void)state;
	/* 50 flat series of 300 points: bench/calibration's section 5
	 * counts the false change points per flat series over 100 other
	 * seeds (goal <= 0.05; none in 100 when this was written); allow 2
	 * in 50 here. */
	for (unsigned long s = 1; s <= 50; s++) {
		struct stats_rng *r = stats_rng_new(9000 + s);

		for (int i = 0; i < 300; i++)
			x[i] = 1000 * (1 + stats_rng_gaussian(r, 0.01));
		stats_rng_free(r);
		assert_int_equal(changes_find(x, 300, &l), 0);
		found += l.nr;
	}
	print_message("# flat: %zu false change points in 50 series\n", found);
	assert_true(found <= 2);
	changes_list_release(&l);
}

static void test_edges(void **state)
{
	struct changes_list l = { NULL, 0, 0 };
	double x[60] = { 0 };

	(void)state;
	/* Nothing to split: empty, short, constant. */
	assert_int_equal(changes_find(x, 0, &l), 0);
	assert_int_equal(l.nr, 0);
	for (int i = 0; i < 60; i++)
		x[i] = 5;
	assert_int_equal(changes_find(x, 9, &l), 0);
	assert_int_equal(l.nr, 0);
	assert_int_equal(changes_find(x, 60, &l), 0);
	assert_int_equal(l.nr, 0);
	/* A clean step without noise: found exactly, p 0 (no spread at
	 * all: the step is certain). */
	for (int i = 30; i < 60; i++)
		x[i] = 6;
	assert_int_equal(changes_find(x, 60, &l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.v[0].idx, 30);
	assert_true(l.v[0].p == 0);
	assert_true(l.v[0].mean_before == 5 && l.v[0].mean_after == 6);
	/* A recent shift near the end still counts: 8 points after it. */
	for (int i = 0; i < 60; i++)
		x[i] = (i < 52 ? 100 : 110) + (i % 3) * 0.5;
	assert_int_equal(changes_find(x, 60, &l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.v[0].idx, 52);
	/* Values that are not numbers are refused. */
	x[10] = NAN;
	assert_int_equal(changes_find(x, 60, &l), -EINVAL);
	x[10] = INFINITY;
	assert_int_equal(changes_find(x, 60, &l), -EINVAL);
	changes_list_release(&l);
}

/*
 * 365 points at CV 1%, +5% from point 200, and one point +20% at 195,
 * five points before the shift (the real series): the shift is
 * named at its own index, never at the outlier, in every one of 20
 * seeds, and nothing else is reported.
 */
static void test_outlier_before_shift(void **state)
{
	struct changes_list l = { NULL, 0, 0 };
	double x[365];

	(void)state;
	for (unsigned long s = 1; s <= 20; s++) {
		struct stats_rng *r = stats_rng_new(31000 + s);

		for (int i = 0; i < 365; i++)
			x[i] = 1000 * (i >= 200 ? 1.05 : 1) *
			       (1 + stats_rng_gaussian(r, 0.01));
		stats_rng_free(r);
		x[195] *= 1.2;
		assert_int_equal(changes_find(x, 365, &l), 0);
		assert_int_equal(l.nr, 1);
		assert_int_equal(l.v[0].idx, 200);
		assert_true(l.v[0].p < CHANGES_P_CONFIRM);
	}
	changes_list_release(&l);
}

/*
 * Every reported change point meets its own rule (p < CHANGES_P_CONFIRM
 * against its neighbours) over 300 seeded perturbed series: 365 points at
 * CV 1% with shifts of +2%, -2% and +1.5% (points 120, 250, 300) and one
 * point in a hundred off by a normal 30%.
 */
static void test_every_point_meets_rule(void **state)
{
	struct changes_list l = { NULL, 0, 0 };
	double x[365];
	size_t points = 0;

	(void)state;
	for (unsigned long s = 1; s <= 300; s++) {
		struct stats_rng *r = stats_rng_new(200000 + s);

		for (int i = 0; i < 365; i++) {
			double m = 1000 * (i >= 120 ? 1.02 : 1) *
				   (i >= 250 ? 0.98 : 1) *
				   (i >= 300 ? 1.015 : 1);

			x[i] = m * (1 + stats_rng_gaussian(r, 0.01));
			if (stats_rng_uniform(r) < 0.01)
				x[i] *= 1 + stats_rng_gaussian(r, 0.3);
		}
		stats_rng_free(r);
		assert_int_equal(changes_find(x, 365, &l), 0);
		for (size_t i = 0; i < l.nr; i++) {
			assert_true(l.v[i].p < CHANGES_P_CONFIRM);
			assert_true(!i || l.v[i].idx > l.v[i - 1].idx);
		}
		points += l.nr;
	}
	print_message("# perturbed: %zu change points in 300 series\n", points);
	changes_list_release(&l);
}

/* Large values and negative ones: only the shape matters. */
static void test_scale_free(void **state)
{
	struct changes_list a = { NULL, 0, 0 }, b = { NULL, 0, 0 };
	double x[300], y[300];

	(void)state;
	two_shifts(77, x);
	for (int i = 0; i < 300; i++)
		y[i] = -x[i] * 1e120;
	assert_int_equal(changes_find(x, 300, &a), 0);
	assert_int_equal(changes_find(y, 300, &b), 0);
	assert_int_equal(a.nr, b.nr);
	for (size_t i = 0; i < a.nr; i++)
		assert_int_equal(a.v[i].idx, b.v[i].idx);
	changes_list_release(&a);
	changes_list_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_shifts),
		cmocka_unit_test(test_two_shifts_many_seeds),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_scale_free),
		cmocka_unit_test(test_outlier_before_shift),
		cmocka_unit_test(test_every_point_meets_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
