/*
 * test-adaptive.c - the pure half of adaptive.c: which kernel opens each
 * block (ABBA), how many boots a block runs and how they are numbered,
 * what a sequence does after a job, and that a sequence that is never
 * decided stops within the cap and the looks for every plan the parser
 * accepts.  The database step is covered by
 * tests/integration/t5004-adaptive-repetitions.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "analysis/adaptive.h"
#include "analysis/compare.h"
#include "plan/plan.h"

static void test_abba_order(void **state)
{
	/* Block 0 opens with the submitted patch job; the pairs then read
	 * P B | B P | P B | B P: every consecutive four is ABBA or BAAB. */
	static const enum adaptive_side want[] = {
		ADAPTIVE_PATCH, ADAPTIVE_BASE, ADAPTIVE_BASE, ADAPTIVE_PATCH,
		ADAPTIVE_PATCH, ADAPTIVE_BASE, ADAPTIVE_BASE, ADAPTIVE_PATCH,
	};

	(void)state;
	for (int b = 0; b < 4; b++) {
		enum adaptive_side first = adaptive_first_side(b);

		assert_int_equal(first, want[2 * b]);
		assert_int_equal(first == ADAPTIVE_PATCH ? ADAPTIVE_BASE
							 : ADAPTIVE_PATCH,
				 want[2 * b + 1]);
	}
	assert_string_equal(adaptive_side_name(ADAPTIVE_PATCH), "patch");
	assert_string_equal(adaptive_side_name(ADAPTIVE_BASE), "base");
}

static void test_boots(void **state)
{
	(void)state;
	/* Block 0: the plan's boots; then blocks of 4. */
	assert_int_equal(adaptive_block_boots(3, 0), 3);
	assert_int_equal(adaptive_block_boots(3, 1), COMPARE_BLOCK);
	assert_int_equal(adaptive_block_boots(1, 3), 4);
	/* Numbered per kernel over the sequence: 0..2, 3..6, 7..10. */
	assert_int_equal(adaptive_first_boot(3, 0), 0);
	assert_int_equal(adaptive_first_boot(3, 1), 3);
	assert_int_equal(adaptive_first_boot(3, 2), 7);
	assert_int_equal(adaptive_first_boot(3, 3), 11);
	assert_int_equal(adaptive_first_boot(1000, 1 << 30), INT32_MAX);
}

static void test_after_job(void **state)
{
	(void)state;
	/* The job that opens a block queues its pair ... */
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_PATCH, 0, ADAPTIVE_PAIR_NONE, 0),
		ADAPTIVE_QUEUE_PAIR);
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_BASE, 1, ADAPTIVE_PAIR_NONE, 1),
		ADAPTIVE_QUEUE_PAIR);
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_PATCH, 2, ADAPTIVE_PAIR_NONE, 0),
		ADAPTIVE_QUEUE_PAIR);
	/* ... except in block 0 when the base was measured before. */
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_PATCH, 0, ADAPTIVE_PAIR_NONE, 1),
		ADAPTIVE_COMPARE);
	/* The job whose pair is done closes the block. */
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_BASE, 0, ADAPTIVE_PAIR_DONE, 0),
		ADAPTIVE_COMPARE);
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_PATCH, 1, ADAPTIVE_PAIR_DONE, 0),
		ADAPTIVE_COMPARE);
	/* A pair still to run closes it itself; a failed one ended it. */
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_PATCH, 0, ADAPTIVE_PAIR_PENDING, 0),
		ADAPTIVE_WAIT);
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_BASE, 1, ADAPTIVE_PAIR_ENDED, 0),
		ADAPTIVE_END);
	/* The second kernel of a block without its opener compares. */
	assert_int_equal(
		adaptive_after_job(ADAPTIVE_PATCH, 1, ADAPTIVE_PAIR_NONE, 0),
		ADAPTIVE_COMPARE);
}

static void test_may_continue(void **state)
{
	struct strbuf why = STRBUF_INIT;

	(void)state;
	/* boots 1, cap 9: 1 -> 5 -> 9, and 13 would pass the cap. */
	assert_int_equal(adaptive_may_continue(1, 9, 0, &why), 1);
	assert_int_equal(adaptive_may_continue(1, 9, 1, &why), 1);
	assert_int_equal(why.len, 0);
	assert_int_equal(adaptive_may_continue(1, 9, 2, &why), 0);
	assert_string_equal(why.buf,
			    "stopped at the cap (9 boots per side): another "
			    "block of 4 would make 13");
	/* Cap 20, boots 3: 3, 7, 11, 15 -- then the looks are used up. */
	strbuf_reset(&why);
	assert_int_equal(adaptive_may_continue(3, 20, 2, &why), 1);
	assert_int_equal(adaptive_may_continue(3, 20, 3, &why), 0);
	assert_non_null(strstr(why.buf, "last look (4 of 4)"));
	strbuf_release(&why);
}

/*
 * A sequence that is never decided, job by job, as the queue runs it:
 * the order must be ABBA, the boots numbered without a gap or a repeat,
 * and neither the cap nor the looks passed.
 */
static void simulate(int plan_boots, int max_boots)
{
	int boots[2] = { 0, 0 }, block = 0, jobs = 0;
	enum adaptive_side side = ADAPTIVE_PATCH, order[16];
	enum adaptive_pair pair = ADAPTIVE_PAIR_NONE;
	struct strbuf why = STRBUF_INIT;

	for (;;) {
		enum adaptive_action act;

		assert_true(jobs < 16);
		order[jobs++] = side;
		assert_int_equal(adaptive_first_boot(plan_boots, block),
				 boots[side]);
		boots[side] += adaptive_block_boots(plan_boots, block);
		assert_true(boots[side] <= max_boots);
		act = adaptive_after_job(side, block, pair, 0);
		if (act == ADAPTIVE_QUEUE_PAIR) {
			side = side == ADAPTIVE_PATCH ? ADAPTIVE_BASE
						      : ADAPTIVE_PATCH;
			pair = ADAPTIVE_PAIR_DONE;
			continue;
		}
		assert_int_equal(act, ADAPTIVE_COMPARE);
		assert_true(block + 1 <= COMPARE_POCOCK_LOOKS);
		strbuf_reset(&why);
		if (!adaptive_may_continue(plan_boots, max_boots, block, &why))
			break;
		block++;
		side = adaptive_first_side(block);
		pair = ADAPTIVE_PAIR_NONE;
	}
	assert_int_equal(boots[0], boots[1]);
	assert_int_equal(jobs, 2 * (block + 1));
	for (int i = 0; i + 3 < jobs; i += 2) {
		assert_int_equal(order[i], order[i + 3]);
		assert_int_equal(order[i + 1], order[i + 2]);
		assert_int_not_equal(order[i], order[i + 1]);
	}
	/* It stopped because another block would pass the cap, or at the
	 * last look -- not earlier. */
	assert_true(boots[0] + COMPARE_BLOCK > max_boots ||
		    block + 1 == COMPARE_POCOCK_LOOKS);
	strbuf_release(&why);
}

static void test_never_past_cap(void **state)
{
	(void)state;
	for (int b = 1; b <= 25; b++)
		for (int cap = b; cap <= 40; cap++)
			simulate(b, cap);
}

static void test_job_boots(void **state)
{
	static const char text[] = "workload: pipe-pingpong\n"
				   "boots: 2\n"
				   "until: decided\n"
				   "max_boots: 10\n";
	static const char fixed[] = "workload: pipe-pingpong\nboots: 2\n";
	struct strbuf err = STRBUF_INIT;
	struct plan *p = NULL, *f = NULL;
	int boots, first;

	(void)state;
	assert_int_equal(plan_parse("a.yaml", text, strlen(text), &p, &err), 0);
	assert_int_equal(plan_parse("f.yaml", fixed, strlen(fixed), &f, &err),
			 0);
	/* A patch job of an adaptive plan, by block. */
	assert_true(adaptive_job_is_adaptive(p, 7));
	adaptive_job_boots(p, 7, 0, &boots, &first);
	assert_int_equal(boots, 2);
	assert_int_equal(first, 0);
	adaptive_job_boots(p, 7, 2, &boots, &first);
	assert_int_equal(boots, 4);
	assert_int_equal(first, 6);
	/* No patch (a plan on a kernel), or a fixed plan: the plan's boots. */
	assert_false(adaptive_job_is_adaptive(p, 0));
	adaptive_job_boots(p, 0, 0, &boots, &first);
	assert_int_equal(boots, 2);
	assert_int_equal(first, 0);
	assert_false(adaptive_job_is_adaptive(f, 7));
	assert_false(adaptive_job_is_adaptive(NULL, 7));
	plan_free(p);
	plan_free(f);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abba_order),
		cmocka_unit_test(test_boots),
		cmocka_unit_test(test_after_job),
		cmocka_unit_test(test_may_continue),
		cmocka_unit_test(test_never_past_cap),
		cmocka_unit_test(test_job_boots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
