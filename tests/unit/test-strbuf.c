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

/* Controls and bidi characters become visible text on a page. */
static void test_html_escape_controls(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_html(&sb, "kA\"><svg onload=x>\x1b[2J\xe2\x80\xae!");
	assert_string_equal(sb.buf, "kA&quot;&gt;&lt;svg onload=x&gt;"
				    "\\x1b[2J\\u202e!");
	strbuf_reset(&sb);
	/* A log keeps its lines and tabs; CR, C1, BOM and bad bytes not. */
	strbuf_add_html(&sb, "a\tb\nc\r\xc2\x85\xef\xbb\xbf\xff\xc3\xa9");
	assert_string_equal(sb.buf, "a\tb\nc\\x0d\\u0085\\ufeff\\xff\xc3\xa9");
	strbuf_reset(&sb);
	strbuf_add_html(&sb, NULL);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

/* Text from outside, safe for a terminal: nothing a terminal acts on. */
static void test_printable(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	/* A git subject that clears the screen, a C1 CSI, DEL, bidi
	 * isolates and marks, the BOM, a stray byte, a cut character. */
	static const char in[] = "fix\x1b[2J\x1b]0;t\x07 \xc2\x9b"
				 "1m\x7f"
				 "\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f"
				 "\xef\xbb\xbf\x80 \xe2\x82";

	(void)state;
	strbuf_add_printable(&sb, in, 0);
	assert_string_equal(sb.buf, "fix\\x1b[2J\\x1b]0;t\\x07 \\u009b1m\\x7f"
				    "\\u2066x\\u2069\\u200f\\ufeff\\x80 "
				    "\\xe2\\x82");
	assert_int_equal(printable_is_clean(in, strlen(in), 0), 0);
	assert_int_equal(printable_is_clean(sb.buf, sb.len, 0), 1);
	/* Lines and tabs: kept with PRINTABLE_LINES, escaped without. */
	strbuf_reset(&sb);
	strbuf_add_printable(&sb, "a\tb\nc", 0);
	assert_string_equal(sb.buf, "a\\x09b\\x0ac");
	strbuf_reset(&sb);
	strbuf_add_printable(&sb, "a\tb\nc\rd", PRINTABLE_LINES);
	assert_string_equal(sb.buf, "a\tb\nc\\x0dd");
	assert_int_equal(printable_is_clean("a\tb\n", 4, PRINTABLE_LINES), 1);
	/* NUL inside a length is a byte like the others. */
	strbuf_reset(&sb);
	strbuf_add_printablen(&sb, "a\0b", 3, 0);
	assert_string_equal(sb.buf, "a\\x00b");
	/* Text is text: accents, CJK, emoji, <, ", quotes, a backslash. */
	strbuf_reset(&sb);
	strbuf_add_printable(
		&sb, "h\xc3\xb6st \xe6\xbc\xa2 \xf0\x9f\x98\x80 <a\"b'\\", 0);
	assert_string_equal(
		sb.buf, "h\xc3\xb6st \xe6\xbc\xa2 \xf0\x9f\x98\x80 <a\"b'\\");
	assert_int_equal(unicode_is_bidi_or_bom(0x202e), 1);
	assert_int_equal(unicode_is_bidi_or_bom(0x2013), 0);
	strbuf_release(&sb);
}

/* JSON: C1, bidi and BOM as \uNNNN (the same string to a reader). */
static void test_json_escape_bidi(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_json_str(&sb, "a\xe2\x80\xae"
				 "b\xc2\x9b\xef\xbb\xbf\xc3\xa9");
	assert_string_equal(sb.buf, "\"a\\u202eb\\u009b\\ufeff\xc3\xa9\"");
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

/* Hex both ways: every byte value round-trips; a non-digit stops. */
static void test_hex(void **state)
{
	struct strbuf h = STRBUF_INIT, back = STRBUF_INIT;
	char all[256];

	(void)state;
	for (int i = 0; i < 256; i++)
		all[i] = (char)i;
	strbuf_add_hex(&h, all, sizeof(all));
	assert_int_equal(h.len, 512);
	assert_memory_equal(h.buf, "000102", 6);
	assert_string_equal(h.buf + 506, "fdfeff");
	assert_int_equal(strbuf_add_unhex(&back, h.buf), 0);
	assert_int_equal(back.len, 256);
	assert_memory_equal(back.buf, all, 256);
	strbuf_reset(&back);
	assert_int_equal(strbuf_add_unhex(&back, "4A6bzz"), -1);
	assert_string_equal(back.buf, "Jk");
	assert_int_equal(hex_digit_value('F'), 15);
	assert_int_equal(hex_digit_value('g'), -1);
	strbuf_release(&h);
	strbuf_release(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_and_detach),
		cmocka_unit_test(test_addf_long),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_html_escape_controls),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_json_escape_bidi),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_read_fd_cap),
		cmocka_unit_test(test_strvec),
		cmocka_unit_test(test_hex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
