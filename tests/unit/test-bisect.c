/*
 * test-bisect.c - the search of analysis/bisect.c and the rule that
 * decides one step, alone: series of 1..64 changes with the culprit at
 * every place, steps that come back inconclusive (skipped), a series in
 * which no change is bad, and the cap on a step's looks.  The driver over
 * the database, with real kernels, is tests/kernel/t7102-bisect-five-
 * patches.sh (make check-kernel).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/adaptive.h"
#include "analysis/bisect.h"

/* ceil(log2(n)) */
static int clog2(int n)
{
	int k = 0;

	while ((1 << k) < n)
		k++;
	return k;
}

/*
 * Run a whole search over n changes with the first bad one at culprit
 * (points >= culprit are bad; culprit > n: none is bad), where the
 * points listed in skip[] come back inconclusive.  Returns the number
 * of steps; *ret the final answer.
 */
static int simulate(int n, int culprit, const int *skip, size_t nskip,
		    struct bisect_next *ret)
{
	enum bisect_mark *m = calloc((size_t)n + 1, sizeof(*m));
	int steps = 0;

	assert_non_null(m);
	m[0] = BISECT_GOOD;
	/* The bad end is known from the answer when the series is bad;
	 * else it is measured like any point. */
	m[n] = culprit <= n ? BISECT_BAD : BISECT_UNTESTED;
	for (;;) {
		int sk = 0;

		bisect_search(m, n, ret);
		if (ret->what != BISECT_TEST)
			break;
		assert_true(ret->position >= 1 && ret->position <= n);
		assert_int_equal(m[ret->position], BISECT_UNTESTED);
		steps++;
		assert_true(steps <= n + 1); /* never loops */
		for (size_t i = 0; i < nskip; i++)
			sk |= skip[i] == ret->position;
		m[ret->position] = sk			      ? BISECT_SKIP
				   : ret->position >= culprit ? BISECT_BAD
							      : BISECT_GOOD;
	}
	free(m);
	return steps;
}

static void test_culprit_anywhere(void **state)
{
	(void)state;
	for (int n = 1; n <= 64; n++) {
		for (int c = 1; c <= n; c++) {
			struct bisect_next nx;
			int steps = simulate(n, c, NULL, 0, &nx);

			assert_int_equal(nx.what, BISECT_FOUND);
			assert_int_equal(nx.high, c);
			assert_int_equal(nx.low, c - 1);
			/* Binary search: at most ceil(log2 n) steps (the
			 * ends are known: n - 1 candidates in between). */
			assert_true(steps <= clog2(n));
		}
	}
}

static void test_five(void **state)
{
	/* The check-kernel series: culprit 3 of 5 in at most 3 steps. */
	struct bisect_next nx;

	(void)state;
	assert_true(simulate(5, 3, NULL, 0, &nx) <= 3);
	assert_int_equal(nx.what, BISECT_FOUND);
	assert_int_equal(nx.high, 3);
}

static void test_first_step_is_the_middle(void **state)
{
	enum bisect_mark m[6] = { BISECT_GOOD,	   BISECT_UNTESTED,
				  BISECT_UNTESTED, BISECT_UNTESTED,
				  BISECT_UNTESTED, BISECT_BAD };
	struct bisect_next nx;

	(void)state;
	bisect_search(m, 5, &nx);
	assert_int_equal(nx.what, BISECT_TEST);
	assert_int_equal(nx.position, 2); /* 2.5: the lower on a tie */
	m[2] = BISECT_GOOD;
	bisect_search(m, 5, &nx);
	assert_int_equal(nx.position, 3);
}

static void test_inconclusive_steps(void **state)
{
	(void)state;
	/* Every pattern of skipped points around every culprit of a
	 * series of 12: the answer is the culprit, or a range holding it
	 * in which every point but the last was skipped. */
	for (int c = 1; c <= 12; c++) {
		for (unsigned mask = 0; mask < (1u << 11); mask += 7) {
			int skip[12];
			size_t ns = 0;
			struct bisect_next nx;

			for (int i = 1; i <= 11; i++)
				if (mask & (1u << (i - 1)))
					skip[ns++] = i;
			simulate(12, c, skip, ns, &nx);
			if (nx.what == BISECT_FOUND) {
				assert_int_equal(nx.high, c);
			} else {
				assert_int_equal(nx.what, BISECT_RANGE);
				assert_true(nx.low < c && c <= nx.high);
				for (int i = nx.low + 1; i < nx.high; i++) {
					int sk = 0;

					for (size_t k = 0; k < ns; k++)
						sk |= skip[k] == i;
					assert_true(sk);
				}
			}
		}
	}
}

static void test_skip_next_to_culprit(void **state)
{
	/* The point before the culprit cannot be decided: the culprit is
	 * one of the two. */
	int skip[] = { 2 };
	struct bisect_next nx;

	(void)state;
	simulate(5, 3, skip, 1, &nx);
	assert_int_equal(nx.what, BISECT_RANGE);
	assert_int_equal(nx.low, 1);
	assert_int_equal(nx.high, 3);
}

static void test_none_bad(void **state)
{
	(void)state;
	for (int n = 1; n <= 64; n++) {
		struct bisect_next nx;
		int steps = simulate(n, n + 1, NULL, 0, &nx);

		/* The bad end is measured first and is good: done. */
		assert_int_equal(nx.what, BISECT_NONE);
		assert_int_equal(steps, 1);
	}
	{
		/* A bad end that stays undecided is no culprit either. */
		enum bisect_mark m[3] = { BISECT_GOOD, BISECT_UNTESTED,
					  BISECT_SKIP };
		struct bisect_next nx;

		bisect_search(m, 2, &nx);
		assert_int_equal(nx.what, BISECT_NONE);
	}
}

static void test_only_the_last_is_bad(void **state)
{
	/* Every point before the end good: the last change is it. */
	struct bisect_next nx;
	int steps = simulate(9, 9, NULL, 0, &nx);

	(void)state;
	assert_int_equal(nx.what, BISECT_FOUND);
	assert_int_equal(nx.high, 9);
	assert_true(steps <= clog2(9));
}

static void test_classify(void **state)
{
	const enum cmp_verdict R = CMP_REGRESSION, I = CMP_IMPROVEMENT,
			       N = CMP_NO_CHANGE, U = CMP_INCONCLUSIVE,
			       X = CMP_INSUFFICIENT;

	(void)state;
	/* Like the bad end: it shows the change, or the end adds none. */
	assert_int_equal(bisect_classify(R, N, R), BISECT_BAD);
	assert_int_equal(bisect_classify(R, U, R), BISECT_BAD);
	assert_int_equal(bisect_classify(U, N, R), BISECT_BAD);
	/* Like the good end. */
	assert_int_equal(bisect_classify(N, R, R), BISECT_GOOD);
	assert_int_equal(bisect_classify(N, U, R), BISECT_GOOD);
	assert_int_equal(bisect_classify(U, R, R), BISECT_GOOD);
	/* Part of the change: bad (the first change is at or before it). */
	assert_int_equal(bisect_classify(R, R, R), BISECT_BAD);
	/* Not enough yet, or contradictory: undecided. */
	assert_int_equal(bisect_classify(U, U, R), BISECT_UNTESTED);
	assert_int_equal(bisect_classify(X, X, R), BISECT_UNTESTED);
	assert_int_equal(bisect_classify(N, N, R), BISECT_UNTESTED);
	/* The other direction is not the change looked for. */
	assert_int_equal(bisect_classify(I, U, R), BISECT_UNTESTED);
	/* Improvements are bisected the same way. */
	assert_int_equal(bisect_classify(I, N, I), BISECT_BAD);
	assert_int_equal(bisect_classify(N, I, I), BISECT_GOOD);
}

static void test_may_continue(void **state)
{
	(void)state;
	/* First look after 3 boots; 4 more per look; at most 4 looks. */
	assert_true(bisect_may_continue(1, 3, 20));
	assert_true(bisect_may_continue(3, 11, 20));
	assert_false(bisect_may_continue(4, 15, 20));
	/* Never past the cap. */
	assert_false(bisect_may_continue(1, 3, 6));
	assert_true(bisect_may_continue(1, 3, 7));
	for (int cap = 3; cap <= 40; cap++) {
		int looks = 1, boots = 3;

		while (bisect_may_continue(looks, boots, cap)) {
			boots += COMPARE_BLOCK;
			looks++;
		}
		assert_true(boots <= (cap > 3 ? cap : 3));
		assert_true(looks <= ADAPTIVE_MAX_LOOKS);
	}
}

/* A step's per-look levels: Pocock's for its looks, as a sequence's. */
static void test_levels(void **state)
{
	struct adaptive_design d;
	double alpha, nc;

	(void)state;
	/* One look: the fixed design's levels. */
	assert_int_equal(bisect_levels(3, 3, &alpha, &nc), 0);
	assert_true(alpha == COMPARE_ALPHA && nc == COMPARE_NOCHANGE_LEVEL);
	/* Looks at 6, 10, 14, 18 boots: those of an `until: decided`
	 * sequence with boots 6 and a cap of 20. */
	assert_int_equal(bisect_levels(6, 20, &alpha, &nc), 0);
	assert_int_equal(adaptive_design_make(6, 20, &d), 0);
	assert_int_equal(d.looks, 4);
	assert_true(fabs(alpha - d.alpha) < 1e-12);
	assert_true(fabs(nc - d.nc_level) < 1e-12);
	/* Four looks from 3 boots: stricter per look, wider no-change. */
	assert_int_equal(bisect_levels(3, 20, &alpha, &nc), 0);
	assert_true(alpha < COMPARE_ALPHA && alpha > COMPARE_ALPHA / 4);
	assert_true(nc > COMPARE_NOCHANGE_LEVEL && nc < 1);
	assert_int_equal(bisect_levels(0, 20, &alpha, &nc), -EINVAL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(bisect_mark_name(BISECT_GOOD), "good");
	assert_string_equal(bisect_mark_name(BISECT_BAD), "bad");
	assert_string_equal(bisect_mark_name(BISECT_SKIP), "skip");
	assert_string_equal(bisect_mark_name(BISECT_UNTESTED), "untested");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_culprit_anywhere),
		cmocka_unit_test(test_five),
		cmocka_unit_test(test_first_step_is_the_middle),
		cmocka_unit_test(test_inconclusive_steps),
		cmocka_unit_test(test_skip_next_to_culprit),
		cmocka_unit_test(test_none_bad),
		cmocka_unit_test(test_only_the_last_is_bad),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_may_continue),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
