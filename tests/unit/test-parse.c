/*
 * test-parse.c - the range-checked number parsers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "parse.h"
#include "strbuf.h"

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
	/* Decimals (issue 31: "0.5s" was refused by a 0.1s..60s range). */
	assert_int_equal(parse_duration_ms("0.5s", 100, 60000, &ms, NULL), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(parse_duration_ms("0.1s", 100, 60000, &ms, NULL), 0);
	assert_int_equal(ms, 100);
	assert_int_equal(parse_duration_ms("1.5m", 0, INT64_MAX, &ms, NULL), 0);
	assert_int_equal(ms, 90000);
	assert_int_equal(parse_duration_ms("2.5", 0, INT64_MAX, &ms, NULL), 0);
	assert_int_equal(ms, 2500);
	assert_int_equal(parse_duration_ms("0.25h", 0, INT64_MAX, &ms, NULL),
			 0);
	assert_int_equal(ms, 900000);
	assert_int_equal(
		parse_duration_ms("1.000000001s", 0, INT64_MAX, &ms, NULL),
		-EINVAL);
	assert_int_equal(parse_duration_ms("0.0005s", 0, INT64_MAX, &ms, NULL),
			 -EINVAL);
	assert_int_equal(parse_duration_ms("1.s", 0, INT64_MAX, &ms, NULL),
			 -EINVAL);
	assert_int_equal(parse_duration_ms(".5s", 0, INT64_MAX, &ms, NULL),
			 -EINVAL);
	assert_int_equal(parse_duration_ms("0.05s", 100, 60000, &ms, NULL),
			 -ERANGE);
	assert_int_equal(parse_duration_ms("99999999999999999999s", 0,
					   INT64_MAX, &ms, NULL),
			 -ERANGE);
	assert_int_equal(
		parse_duration_ms("9223372036854776s", 0, INT64_MAX, &ms, NULL),
		-ERANGE);
}

static void test_size(void **state)
{
	int64_t b = 0;

	(void)state;
	assert_int_equal(parse_size_bytes("4096", 0, INT64_MAX, &b, NULL), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(parse_size_bytes("500M", 0, INT64_MAX, &b, NULL), 0);
	assert_int_equal(b, 500ll << 20);
	assert_int_equal(parse_size_bytes("5G", 0, INT64_MAX, &b, NULL), 0);
	assert_int_equal(b, 5ll << 30);
	assert_int_equal(parse_size_bytes("1T", 0, INT64_MAX, &b, NULL), 0);
	assert_int_equal(b, 1ll << 40);
	assert_int_equal(parse_size_bytes("5g", 0, INT64_MAX, &b, NULL),
			 -EINVAL);
	assert_int_equal(parse_size_bytes("-1", 0, INT64_MAX, &b, NULL),
			 -EINVAL);
	assert_int_equal(parse_size_bytes("", 0, INT64_MAX, &b, NULL), -EINVAL);
	assert_int_equal(parse_size_bytes("9000000T", 0, INT64_MAX, &b, NULL),
			 -ERANGE);
	assert_int_equal(parse_size_bytes("1M", 2 << 20, INT64_MAX, &b, NULL),
			 -ERANGE);
}

/* Names print as themselves: no control characters, UTF-8 only. */
static void test_check_name(void **state)
{
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(check_name("a host name", "box-1.lab", 128, &err), 0);
	assert_int_equal(check_name("a host name", "h\xc3\xb6st", 128, &err),
			 0);
	assert_int_equal(check_name("a host name", "", 128, &err), -1);
	assert_non_null(strstr(err.buf, "a host name is empty"));
	strbuf_reset(&err);
	assert_int_equal(check_name("a kernel name", "abcd", 3, &err), -1);
	assert_non_null(strstr(err.buf, "at most 3 bytes (this one has 4)"));
	strbuf_reset(&err);
	assert_int_equal(check_name("a host name", "evil\x1b[2J", 128, &err),
			 -1);
	assert_non_null(
		strstr(err.buf, "holds a control character (0x1b at byte 5)"));
	assert_null(strchr(err.buf, 0x1b)); /* never echoed */
	strbuf_reset(&err);
	assert_int_equal(check_name("x", "a\nfake row", 128, &err), -1);
	strbuf_reset(&err);
	assert_int_equal(check_name("x", "bell\a", 128, &err), -1);
	strbuf_reset(&err);
	assert_int_equal(check_name("x", "del\x7f", 128, &err), -1);
	strbuf_reset(&err);
	/* C1 (U+009B is CSI to some terminals) and a bare 0x9b. */
	assert_int_equal(check_name("x", "a\xc2\x9b", 128, &err), -1);
	assert_non_null(strstr(err.buf, "control character (0x9b at byte 2)"));
	strbuf_reset(&err);
	assert_int_equal(check_name("x", "a\x9b", 128, &err), -1);
	assert_non_null(
		strstr(err.buf, "not UTF-8 text (byte 0x9b at byte 2)"));
	strbuf_reset(&err);
	/* Bidi overrides, isolates, marks and the BOM: invisible, they
	 * reorder what is shown after them ("kA<U+202E>txt.exe"). */
	assert_int_equal(
		check_name("a kernel name", "kA\xe2\x80\xaetxt", 128, &err),
		-1);
	assert_non_null(strstr(err.buf, "a kernel name holds an invisible "
					"control character (U+202E at byte "
					"3)"));
	assert_null(strstr(err.buf, "\xe2\x80\xae")); /* never echoed */
	static const char *const hidden[] = {
		"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad",
		"\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9",
		"\xe2\x80\x8e", "\xe2\x80\x8f", "\xd8\x9c",	"\xef\xbb\xbf",
	};
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		char name[16];

		snprintf(name, sizeof(name), "a%sb", hidden[i]);
		strbuf_reset(&err);
		assert_int_equal(check_name("x", name, 128, &err), -1);
	}
	/* Neighbours that are text: an en dash U+2013, a right single
	 * quote U+2019. */
	strbuf_reset(&err);
	assert_int_equal(check_name("x",
				    "a\xe2\x80\x93"
				    "b\xe2\x80\x99"
				    "c",
				    128, &err),
			 0);
	strbuf_release(&err);
}

/* What programs print, stored as text a UTF-8 database takes. */
static void test_utf8_safe(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_utf8_safe(&sb, "ok \xc3\xa9 \xff\xfe end", 12);
	assert_string_equal(sb.buf, "ok \xc3\xa9 \\xff\\xfe end");
	strbuf_reset(&sb);
	strbuf_add_utf8_safe(&sb, "a\0b\xe2\x82", 5);
	assert_string_equal(sb.buf, "a\\x00b\\xe2\\x82");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_check_name),
		cmocka_unit_test(test_utf8_safe),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
