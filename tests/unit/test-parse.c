/*
 * test-parse.c - the range-checked number parsers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "parse.h"

static void test_i64(void **state)
{
	int64_t v;
	const char *why;

	(void)state;
	assert_int_equal(parse_i64("42", 0, 100, &v, &why), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_i64("-5", -10, 10, &v, &why), 0);
	assert_int_equal(v, -5);
	assert_int_equal(parse_i64("101", 0, 100, &v, &why), -ERANGE);
	assert_string_equal(why, "is out of range");
	assert_int_equal(parse_i64("", 0, 100, &v, &why), -EINVAL);
	assert_int_equal(parse_i64("12abc", 0, 100, &v, &why), -EINVAL);
	assert_int_equal(parse_i64(" 1", 0, 100, &v, &why), -EINVAL);
	assert_int_equal(parse_i64("99999999999999999999", INT64_MIN, INT64_MAX,
				   &v, &why),
			 -ERANGE);
}

static void test_int(void **state)
{
	int v;

	(void)state;
	assert_int_equal(parse_int("65535", 1, 65535, &v, NULL), 0);
	assert_int_equal(v, 65535);
	assert_int_equal(parse_int("0", 1, 65535, &v, NULL), -ERANGE);
}

static void test_double(void **state)
{
	double v;
	const char *why;

	(void)state;
	assert_int_equal(parse_double("841.90", 0, 1e9, &v, &why), 0);
	assert_true(v == 841.90);
	assert_int_equal(parse_double("1e3", 0, 1e9, &v, &why), 0);
	assert_true(v == 1000);
	assert_int_equal(parse_double("nan", -1e300, 1e300, &v, &why), -EINVAL);
	assert_int_equal(parse_double("inf", -1e300, 1e300, &v, &why), -EINVAL);
	assert_int_equal(parse_double("0x10", 0, 1e9, &v, &why), -EINVAL);
	assert_int_equal(parse_double("1e999", -1e300, 1e300, &v, &why),
			 -ERANGE);
	assert_int_equal(parse_double("-1", 0, 1, &v, &why), -ERANGE);
	assert_int_equal(parse_double("1.5x", 0, 10, &v, &why), -EINVAL);
}

static void test_duration(void **state)
{
	int64_t ms;

	(void)state;
	assert_int_equal(parse_duration_ms("30", 0, INT64_MAX, &ms, NULL), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(parse_duration_ms("500ms", 0, INT64_MAX, &ms, NULL),
			 0);
	assert_int_equal(ms, 500);
	assert_int_equal(parse_duration_ms("2m", 0, INT64_MAX, &ms, NULL), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(parse_duration_ms("1h", 0, INT64_MAX, &ms, NULL), 0);
	assert_int_equal(ms, 3600000);
	assert_int_equal(parse_duration_ms("5x", 0, INT64_MAX, &ms, NULL),
			 -EINVAL);
	assert_int_equal(parse_duration_ms("10s", 0, 5000, &ms, NULL), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
