/*
 * test-json.c - the strict JSON reader: what it accepts, what it refuses
 * (and that the error names the place), the limits, and the typed getters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"

static struct json_value *ok(const char *text)
{
	struct json_value *v = NULL;
	struct strbuf err = STRBUF_INIT;

	if (json_parse(text, strlen(text), NULL, &v, &err) < 0)
		fail_msg("'%s' refused: %s", text, err.buf);
	strbuf_release(&err);
	return v;
}

/* Parse text expecting a refusal whose message contains want. */
static void bad_lim(const char *text, size_t len, const struct json_limits *lim,
		    const char *want)
{
	struct json_value *v = (struct json_value *)1;
	struct strbuf err = STRBUF_INIT;

	if (json_parse(text, len, lim, &v, &err) == 0)
		fail_msg("'%s' accepted", text);
	assert_null(v);
	if (!strstr(err.buf, want))
		fail_msg("'%s': error '%s' lacks '%s'", text, err.buf, want);
	strbuf_release(&err);
}

static void bad(const char *text, const char *want)
{
	bad_lim(text, strlen(text), NULL, want);
}

static void test_scalars(void **state)
{
	struct json_value *v;
	double d;
	int b;

	(void)state;
	v = ok(" 42 ");
	assert_int_equal(json_type_of(v), JSON_NUMBER);
	assert_int_equal(json_number(v, &d), 0);
	assert_true(d == 42);
	assert_string_equal(json_number_text(v), "42");
	json_free(v);
	v = ok("-1.5e3");
	assert_int_equal(json_number(v, &d), 0);
	assert_true(d == -1500);
	json_free(v);
	v = ok("true");
	assert_int_equal(json_bool(v, &b), 0);
	assert_int_equal(b, 1);
	assert_int_equal(json_number(v, &d), -1);
	json_free(v);
	v = ok("false");
	assert_int_equal(json_bool(v, &b), 0);
	assert_int_equal(b, 0);
	json_free(v);
	v = ok("null");
	assert_int_equal(json_type_of(v), JSON_NULL);
	assert_null(json_string(v));
	json_free(v);
	v = ok("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00\"");
	assert_string_equal(json_string(v),
			    "a\"b\\c/d\n\t\xc3\xa9\xf0\x9f\x98\x80");
	json_free(v);
	v = ok("\"h\xc3\xa9llo\"");
	assert_int_equal(json_string_len(v), 6);
	json_free(v);
}

static void test_containers(void **state)
{
	struct json_value *v;
	double d;

	(void)state;
	v = ok("{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\", \"e\": {}}");
	assert_int_equal(json_type_of(v), JSON_OBJECT);
	assert_int_equal(json_len(v), 3);
	assert_string_equal(json_key_at(v, 0), "a");
	assert_string_equal(json_key_at(v, 2), "e");
	assert_null(json_key_at(v, 3));
	assert_int_equal(json_len(json_get(v, "a")), 3);
	assert_int_equal(json_number(json_at(json_get(v, "a"), 1), &d), 0);
	assert_true(d == 2);
	assert_null(json_at(json_get(v, "a"), 3));
	assert_int_equal(
		json_type_of(json_get(json_at(json_get(v, "a"), 2), "b")),
		JSON_NULL);
	assert_non_null(json_get(json_at(json_get(v, "a"), 2), "b"));
	assert_string_equal(json_string(json_value_at(v, 1)), "x");
	assert_null(json_get(v, "zz"));
	assert_null(json_get(json_get(v, "a"), "a")); /* not an object */
	assert_int_equal(json_len(json_get(v, "e")), 0);
	json_free(v);
	v = ok("[]");
	assert_int_equal(json_len(v), 0);
	json_free(v);
}

static void test_refusals(void **state)
{
	(void)state;
	bad("", "unexpected end of input");
	bad("NaN", "unexpected character 'N'");
	bad("Infinity", "unexpected character 'I'");
	bad("-Infinity", "expected a digit");
	bad("[1, NaN]", "line 1 column 5");
	bad("1 2", "trailing characters");
	bad("{} x", "trailing characters");
	bad("[1,]", "trailing comma");
	bad("{\"a\":1,}", "trailing comma");
	bad("{a:1}", "expected a string key");
	bad("{\"a\" 1}", "expected ':'");
	bad("{\"a\":1,\"a\":2}", "duplicate key \"a\"");
	bad("01", "trailing characters");
	bad("1.", "digit after '.'");
	bad(".5", "unexpected character '.'");
	bad("1e", "digit in the exponent");
	bad("+1", "unexpected character '+'");
	bad("1e999", "out of range");
	/* Underflow to zero: PostgreSQL's float8 refuses it too. */
	bad("1e-400", "number 1e-400 is out of range");
	bad("-2.5e-999", "out of range");
	bad("\"abc", "unterminated string");
	bad("\"a\tb\"", "control character 0x09");
	bad("\"\\x\"", "invalid escape");
	bad("\"\\u12\"", "four hex digits");
	bad("\"\\ud800\"", "not followed by a low one");
	bad("\"\\ud800\\u0041\"", "not followed by a low one");
	bad("\"\\udc00\"", "lone low surrogate");
	bad("\"\\u0000\"", "\\u0000");
	bad("\"\xff\"", "invalid UTF-8");
	bad("\"\xc0\xaf\"", "invalid UTF-8"); /* overlong '/' */
	bad("\"\xed\xa0\x80\"", "invalid UTF-8"); /* encoded surrogate */
	bad("\"\xf4\x90\x80\x80\"", "invalid UTF-8"); /* past U+10FFFF */
	bad("\"\xe2\x82\"", "invalid UTF-8"); /* truncated */
	bad("tru", "unexpected character 't'");
	bad("[1\n,\n x]", "line 3 column 2");
	/* An embedded NUL byte in the range is not whitespace. */
	bad_lim("1\0", 2, NULL, "trailing characters");
}

static void test_limits(void **state)
{
	struct json_limits lim = { .max_depth = 3,
				   .max_string = 4,
				   .max_items = 5 };
	struct json_value *v;
	struct strbuf deep = STRBUF_INIT;

	(void)state;
	v = ok("[[[1]]]");
	json_free(v);
	bad_lim("[[[[1]]]]", 9, &lim, "nesting deeper than 3");
	bad_lim("\"abcde\"", 7, &lim, "longer than 4 bytes");
	bad_lim("{\"abcde\":1}", 11, &lim, "longer than 4 bytes");
	bad_lim("[1,2,3,4,5]", 11, &lim, "more than 5 values");
	/* The default depth is 32. */
	for (int i = 0; i < 33; i++)
		strbuf_addch(&deep, '[');
	for (int i = 0; i < 33; i++)
		strbuf_addch(&deep, ']');
	bad_lim(deep.buf, deep.len, NULL, "nesting deeper than 32");
	strbuf_setlen(&deep, 0);
	for (int i = 0; i < 32; i++)
		strbuf_addch(&deep, '[');
	for (int i = 0; i < 32; i++)
		strbuf_addch(&deep, ']');
	v = ok(deep.buf);
	json_free(v);
	strbuf_release(&deep);
}

static void test_getters(void **state)
{
	struct json_value *v = ok("{\"n\": 7, \"f\": 2.5, \"s\": \"hi\", "
				  "\"b\": true, \"big\": 1e3, \"neg\": -3}");
	struct strbuf err = STRBUF_INIT;
	int64_t i;
	double d;
	const char *s;
	int b;

	(void)state;
	assert_int_equal(json_get_i64(v, "n", 1, 10, &i, &err), 0);
	assert_int_equal(i, 7);
	assert_int_equal(json_get_i64(v, "missing", 1, 10, &i, &err), -ENOENT);
	assert_int_equal(err.len, 0);
	assert_int_equal(json_get_i64(v, "n", 8, 10, &i, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "\"n\": expected an integer in 8..10, got 7");
	strbuf_reset(&err);
	assert_int_equal(json_get_i64(v, "f", 0, 10, &i, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "\"f\": expected an integer in 0..10, got 2.5");
	strbuf_reset(&err);
	/* 1e3 is a number but not written as an integer. */
	assert_int_equal(json_get_i64(v, "big", 0, 10000, &i, &err), -EINVAL);
	strbuf_reset(&err);
	assert_int_equal(json_get_i64(v, "s", 0, 10, &i, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "\"s\": expected an integer in 0..10, got \"hi\"");
	strbuf_reset(&err);
	assert_int_equal(json_get_double(v, "f", 0, 3, &d, &err), 0);
	assert_true(d == 2.5);
	assert_int_equal(json_get_double(v, "neg", 0, 3, &d, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "\"neg\": expected a number in 0..3, got -3");
	strbuf_reset(&err);
	assert_int_equal(json_get_string(v, "s", 0, &s, &err), 0);
	assert_string_equal(s, "hi");
	assert_int_equal(json_get_string(v, "s", 1, &s, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "at most 1 bytes"));
	strbuf_reset(&err);
	assert_int_equal(json_get_string(v, "n", 0, &s, &err), -EINVAL);
	assert_string_equal(err.buf, "\"n\": expected a string, got 7");
	strbuf_reset(&err);
	assert_int_equal(json_get_bool(v, "b", &b, &err), 0);
	assert_int_equal(b, 1);
	assert_int_equal(json_get_bool(v, "s", &b, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "\"s\": expected true or false, got \"hi\"");
	strbuf_release(&err);
	json_free(v);
	/* NULL and wrong types are safe everywhere. */
	assert_null(json_get(NULL, "x"));
	assert_int_equal(json_len(NULL), 0);
	assert_null(json_number_text(NULL));
	json_free(NULL);
}

/* What strbuf writes, json reads back unchanged. */
static void test_round_trip(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *nasty = "tab\there \"q\" back\\slash \x01 \xc3\xa9";
	double vals[] = { 0.1, 1e-300, 123456789.125, -2.5e17, 42 };
	struct json_value *v;
	double d;

	(void)state;
	strbuf_addch(&sb, '[');
	strbuf_add_json_str(&sb, nasty);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		strbuf_addch(&sb, ',');
		strbuf_add_json_double(&sb, vals[i]);
	}
	strbuf_addch(&sb, ']');
	v = ok(sb.buf);
	assert_string_equal(json_string(json_at(v, 0)), nasty);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_int_equal(json_number(json_at(v, i + 1), &d), 0);
		assert_true(d == vals[i]);
	}
	json_free(v);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
