/*
 * test-agent-hist.c - the agent's HDR-style histogram (agent/hist.c):
 * percentiles of known value sets against the exact nearest-rank ones
 * (within 1%), a merge of per-thread histograms against one histogram of
 * all the values, the bucket bounds, and the edges 0 and UINT64_MAX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static const double pcts[] = { 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted v[0..n). */
static uint64_t exact_pct(const uint64_t *v, size_t n, double pct)
{
	size_t rank = (size_t)ceil(pct / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

/* xorshift64*: the same values on every run. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static void check_within_1pct(const struct hist *h, uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		double want = (double)exact_pct(v, n, pcts[i]);
		double got = (double)hist_percentile(h, pcts[i]);

		if (fabs(got - want) > 0.01 * want)
			fail_msg("p%g: %.0f, exact %.0f (%.3f%% off)", pcts[i],
				 got, want, 100 * fabs(got - want) / want);
	}
}

/* Log-uniform values over 1 ns .. 1 s, like latencies: every scale. */
static void test_percentiles_log_uniform(void **state)
{
	size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v)), s = 42;
	struct hist *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(v);
	assert_non_null(h);
	hist_init(h);
	for (size_t i = 0; i < n; i++) {
		double e = (double)(next_rand(&s) >> 11) / 9007199254740992.0;

		v[i] = (uint64_t)pow(10, 9 * e);
		hist_add(h, v[i]);
	}
	assert_int_equal(h->total, n);
	check_within_1pct(h, v, n);
	free(v);
	free(h);
}

/* A known small set: 1..1000 us in ns, each once: p50 is 500 us. */
static void test_percentiles_known_set(void **state)
{
	uint64_t v[1000];
	struct hist *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	hist_init(h);
	for (size_t i = 0; i < 1000; i++) {
		v[999 - i] = (uint64_t)(i + 1) * 1000;
		hist_add(h, v[999 - i]);
	}
	check_within_1pct(h, v, 1000);
	assert_true(llabs((long long)hist_percentile(h, 50) - 500000) <= 5000);
	assert_true(llabs((long long)hist_percentile(h, 99) - 990000) <= 9900);
	assert_int_equal(hist_percentile(h, 100), 1000000);
	assert_int_equal(hist_percentile(h, 0.01), 1000);
	free(h);
}

/* Small values are exact: each has a bucket of its own. */
static void test_small_values_exact(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	assert_int_equal(hist_percentile(&h, 50), 0); /* empty */
	for (uint64_t i = 0; i < 100; i++)
		hist_add(&h, i);
	assert_int_equal(hist_percentile(&h, 1), 0);
	assert_int_equal(hist_percentile(&h, 50), 49);
	assert_int_equal(hist_percentile(&h, 100), 99);
}

/* Per-thread histograms merged equal one histogram of all values. */
static void test_merge_equals_one(void **state)
{
	struct hist *part = calloc(4, sizeof(*part)),
		    *all = malloc(sizeof(*all)), *merged = malloc(sizeof(*all));
	uint64_t s = 7;

	(void)state;
	assert_non_null(part);
	assert_non_null(all);
	assert_non_null(merged);
	hist_init(all);
	hist_init(merged);
	for (int t = 0; t < 4; t++)
		hist_init(&part[t]);
	for (int i = 0; i < 100000; i++) {
		/* each "thread" has a range of its own */
		int t = i % 4;
		uint64_t x = (next_rand(&s) % 1000000) << (4 * t);

		hist_add(&part[t], x);
		hist_add(all, x);
	}
	for (int t = 0; t < 4; t++)
		hist_merge(merged, &part[t]);
	assert_int_equal(merged->total, all->total);
	assert_int_equal(merged->min, all->min);
	assert_int_equal(merged->max, all->max);
	assert_memory_equal(merged->count, all->count, sizeof(all->count));
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		assert_int_equal(hist_percentile(merged, pcts[i]),
				 hist_percentile(all, pcts[i]));
	/* merging an empty one changes nothing */
	hist_init(&part[0]);
	hist_merge(merged, &part[0]);
	assert_int_equal(merged->min, all->min);
	assert_int_equal(merged->total, all->total);
	free(part);
	free(all);
	free(merged);
}

/* 0 and UINT64_MAX are counted, in the first and the last bucket. */
static void test_edges(void **state)
{
	struct hist h;

	(void)state;
	assert_int_equal(hist_bucket(0), 0);
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
	assert_true(hist_bucket_high(HIST_BUCKETS - 1) == UINT64_MAX);
	hist_init(&h);
	hist_add(&h, 0);
	hist_add(&h, UINT64_MAX);
	hist_add(&h, UINT64_MAX - 1);
	assert_int_equal(h.total, 3);
	assert_true(hist_percentile(&h, 100) == UINT64_MAX);
	assert_int_equal(hist_percentile(&h, 33), 0);
	assert_true((double)hist_percentile(&h, 50) >=
		    0.99 * (double)UINT64_MAX);
	/* only huge values: the clamps keep the answer exact */
	hist_init(&h);
	hist_add(&h, (uint64_t)1 << 63);
	assert_true(hist_percentile(&h, 50) == (uint64_t)1 << 63);
}

/* Buckets tile 0..UINT64_MAX and are at most 1/64 of their start wide. */
static void test_bucket_bounds(void **state)
{
	(void)state;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);

		assert_int_equal(hist_bucket(lo), i);
		assert_int_equal(hist_bucket(hi), i);
		if (i + 1 < HIST_BUCKETS)
			assert_true(hist_bucket_low(i + 1) == hi + 1);
		if (i >= HIST_EXACT)
			assert_true(hi - lo < lo / 64 + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles_log_uniform),
		cmocka_unit_test(test_percentiles_known_set),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_merge_equals_one),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_bucket_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
