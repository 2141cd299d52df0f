/*
 * test-strbuf.c - strbuf and strvec: growth, formatting, escaping, reading.
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
#include <unistd.h>

#include "strbuf.h"
#include "strvec.h"

static void test_grow_and_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t len;

	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, 'a' + i % 26);
	assert_int_equal(sb.len, 10000);
	assert_int_equal(sb.buf[10000], '\0');
	strbuf_addf(&sb, "%d-%s", 42, "x");
	assert_string_equal(sb.buf + 10000, "42-x");
	s = strbuf_detach(&sb, &len);
	assert_int_equal(len, 10004);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	free(s);
}

static void test_addf_long(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char big[5000];

	(void)state;
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addstr(&sb, "<");
	strbuf_addf(&sb, "%s>", big);
	assert_int_equal(sb.len, 5000 + 1);
	assert_int_equal(sb.buf[sb.len - 1], '>');
	strbuf_release(&sb);
}

static void test_json_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_json_str(&sb, "a\"b\\c\nd\x01");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
	strbuf_reset(&sb);
	strbuf_add_json_str(&sb, NULL);
	assert_string_equal(sb.buf, "null");
	strbuf_reset(&sb);
	strbuf_add_json_double(&sb, 0.1);
	assert_string_equal(sb.buf, "0.1");
	strbuf_reset(&sb);
	strbuf_add_json_double(&sb, 4993368);
	assert_string_equal(sb.buf, "4993368");
	strbuf_reset(&sb);
	strbuf_add_json_double(&sb, NAN);
	assert_string_equal(sb.buf, "null");
	strbuf_reset(&sb);
	strbuf_add_json_double(&sb, 1.0 / 3.0);
	assert_true(strtod(sb.buf, NULL) == 1.0 / 3.0);
	/* past long long's range (the import fuzzer's value): printed as a
	 * double, without the undefined conversion to long long */
	strbuf_reset(&sb);
	strbuf_add_json_double(&sb, 2.6666666666666666e27);
	assert_true(strtod(sb.buf, NULL) == 2.6666666666666666e27);
	strbuf_reset(&sb);
	strbuf_add_json_double(&sb, -1e300);
	assert_string_equal(sb.buf, "-1e+300");
	strbuf_release(&sb);
}

static void test_html_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_html(&sb, "<script>alert(1)</script>\"'&");
	assert_string_equal(sb.buf, "&lt;script&gt;alert(1)&lt;/script&gt;"
				    "&quot;&#39;&amp;");
	strbuf_release(&sb);
}

static void test_trim(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&sb, " \t hello \n");
	strbuf_trim(&sb);
	assert_string_equal(sb.buf, "hello");
	strbuf_release(&sb);
}

static void test_read_fd_cap(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	int fds[2];
	char buf[1000];

	(void)state;
	memset(buf, 'q', sizeof(buf));
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fds[1]);
	assert_int_equal(strbuf_read_fd(&sb, fds[0], 100), -EFBIG);
	assert_int_equal(sb.len, 0);
	close(fds[0]);
	strbuf_release(&sb);
}

static void test_strvec(void **state)
{
	struct strvec sv = STRVEC_INIT;
	char *j;

	(void)state;
	assert_null(sv.v[0]);
	strvec_pushl(&sv, "make", "-j", NULL);
	strvec_pushf(&sv, "%d", 4);
	assert_int_equal(sv.nr, 3);
	assert_null(sv.v[3]);
	j = strvec_join(&sv, " ");
	assert_string_equal(j, "make -j 4");
	free(j);
	strvec_pop(&sv);
	assert_int_equal(sv.nr, 2);
	strvec_clear(&sv);
	strvec_split(&sv, "a;;b", ';');
	assert_int_equal(sv.nr, 3);
	assert_string_equal(sv.v[1], "");
	assert_string_equal(sv.v[2], "b");
	strvec_clear(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_and_detach),
		cmocka_unit_test(test_addf_long),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_read_fd_cap),
		cmocka_unit_test(test_strvec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
