/*
 * test-svg.c - the report's plots: nice ticks, tick labels, escaping of
 * every string, axes and legend present, log2 sweeps, empty plots; and the
 * CSV quoting of report.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "strbuf.h"
#include "report/svg.h"

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_nice_ticks(void **state)
{
	double t[32], step;
	size_t n;

	(void)state;
	/* 0..10 in about 5 steps: 0 2 4 6 8 10. */
	n = svg_nice_ticks(0, 10, 5, t, 32, &step);
	assert_int_equal(n, 6);
	assert_true(step == 2);
	assert_true(t[0] == 0 && t[5] == 10);
	/* 841.9..3225.32 (seed 001's sweep) in about 6: steps of 500. */
	n = svg_nice_ticks(841.9, 3225.32, 6, t, 32, &step);
	assert_true(step == 500);
	assert_true(t[0] == 1000 && t[n - 1] == 3000);
	/* Small and negative ranges snap to the grid without -0. */
	n = svg_nice_ticks(-0.3, 0.3, 6, t, 32, &step);
	assert_true(fabs(step - 0.1) < 1e-12);
	for (size_t i = 0; i < n; i++)
		if (fabs(t[i]) < 1e-12)
			assert_false(signbit(t[i]));
	/* Refused input gives no ticks. */
	assert_int_equal(svg_nice_ticks(NAN, 1, 5, t, 32, &step), 0);
	assert_int_equal(svg_nice_ticks(2, 1, 5, t, 32, &step), 0);
}

static void test_format_tick(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	svg_format_tick(&sb, 2500, 500);
	assert_string_equal(sb.buf, "2500");
	strbuf_reset(&sb);
	svg_format_tick(&sb, 0.25, 0.05);
	assert_string_equal(sb.buf, "0.25");
	strbuf_reset(&sb);
	svg_format_tick(&sb, 1.5, 0.5);
	assert_string_equal(sb.buf, "1.5");
	strbuf_release(&sb);
}

static void test_plot_escapes_and_has_axes(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct svg_plot p;
	size_t a, b;
	int n;

	(void)state;
	svg_plot_init(&p, "<script>alert(1)</script>", "threads", "",
		      "tps \"q\"", "1/s & more");
	p.x_log2 = 1;
	a = svg_plot_add_series(&p, "\"><img src=x onerror=alert(1)>",
				SVG_LINE);
	b = svg_plot_add_series(&p, "new", SVG_LINE);
	for (int t = 1; t <= 256; t *= 2) {
		svg_series_add(&p, a, t, 1000 + t, 990 + t, 1010 + t);
		svg_series_add(&p, b, t, 1100 + t, NAN, NAN);
	}
	svg_series_add(&p, b, NAN, 1, NAN, NAN); /* skipped */
	n = svg_plot_write(&p, &out, &err);
	assert_int_equal(n, 18);
	assert_null(strstr(out.buf, "<script"));
	assert_null(strstr(out.buf, "<img"));
	assert_non_null(
		strstr(out.buf, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(out.buf, "&quot;&gt;&lt;img src=x"));
	assert_non_null(strstr(out.buf, "tps &quot;q&quot; (1/s &amp; more)"));
	assert_int_equal(count(out.buf, "class=\"axis x-axis\""), 1);
	assert_int_equal(count(out.buf, "class=\"axis y-axis\""), 1);
	assert_int_equal(count(out.buf, "class=\"axis-label\""), 2);
	assert_non_null(strstr(out.buf, "threads, log\xe2\x82\x82 scale"));
	/* One x tick per power of two from 1 to 256. */
	assert_int_equal(count(out.buf, "text-anchor=\"middle\" fill=\"#333\""),
			 9);
	assert_int_equal(count(out.buf, "class=\"legend-entry\""), 2);
	assert_int_equal(count(out.buf, "class=\"band\""), 1);
	assert_null(strstr(out.buf, "style="));
	assert_null(strstr(out.buf, "nan"));
	svg_plot_release(&p);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_plot_empty_and_linear_fallback(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct svg_plot p;
	size_t a;

	(void)state;
	svg_plot_init(&p, "t", "x", "s", "y", "%");
	assert_int_equal(svg_plot_write(&p, &out, &err), -1);
	assert_non_null(strstr(err.buf, "series"));
	a = svg_plot_add_series(&p, "s", SVG_DOTS);
	strbuf_reset(&out);
	assert_int_equal(svg_plot_write(&p, &out, &err), 0);
	assert_non_null(strstr(out.buf, "no data"));
	assert_int_equal(count(out.buf, "class=\"axis-label\""), 2);
	/* log2 asked for but x reaches 0: linear axis, no "log" in the label.
	 */
	p.x_log2 = 1;
	svg_series_add(&p, a, 0, 1, NAN, NAN);
	svg_series_add(&p, a, 4, 2, 0.5, 2.5);
	strbuf_reset(&out);
	assert_int_equal(svg_plot_write(&p, &out, &err), 2);
	assert_null(strstr(out.buf, "log\xe2\x82\x82"));
	assert_int_equal(count(out.buf, "class=\"errbar\""), 1);
	svg_plot_release(&p);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_csv_field(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	report_csv_field(&sb, "plain");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "\"><img src=x>");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "a,b");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "two\nlines");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, NULL);
	assert_string_equal(sb.buf, "plain|\"\"\"><img src=x>\"|\"a,b\"|"
				    "\"two\nlines\"|");
	/* Formulas (OWASP CSV injection) are shown, not run; numbers stay
	 * numbers. */
	strbuf_reset(&sb);
	report_csv_field(&sb, "=HYPERLINK(\"http://x\",\"y\")");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "+1+cmd|' /C calc'!A0");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "-2+3");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "@SUM(A1)");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "\tx");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "-37.5");
	strbuf_addch(&sb, '|');
	report_csv_field(&sb, "+2e-3");
	assert_string_equal(sb.buf,
			    "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"|"
			    "'+1+cmd|' /C calc'!A0|'-2+3|'@SUM(A1)|'\tx|-37.5|"
			    "+2e-3");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ticks),
		cmocka_unit_test(test_format_tick),
		cmocka_unit_test(test_plot_escapes_and_has_axes),
		cmocka_unit_test(test_plot_empty_and_linear_fallback),
		cmocka_unit_test(test_csv_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
