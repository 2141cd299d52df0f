/*
 * test-import-time.c - the time column of import.c (issue 28): ISO 8601
 * with and without a zone, unix seconds, and the range checks, through
 * import_parse() itself.  The database step (started_at, the history's
 * order, back-filling) is tests/integration/t2040-import-time.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "analysis/import.h"
#include "strbuf.h"

/*
 * Parse one observation row whose time field is t; the row's time into
 * *ret (-1: none).  Returns import_parse()'s result; errors in *errors.
 */
static int parse_one(const char *t, int64_t *ret, struct strbuf *errors)
{
	struct import_file f;
	struct strbuf csv = STRBUF_INIT;
	int r;

	import_file_init(&f, "t.csv");
	strbuf_addf(&csv,
		    "kernel,host,workload,params,metric,unit,better,value,"
		    "time\nv1,h,w,,m,s,lower,1,%s\n",
		    t);
	r = import_parse(&f, &csv);
	*ret = r == 0 && f.nr == 1 ? f.rows[0].time : -2;
	strbuf_addbuf(errors, &f.errors);
	import_file_release(&f);
	strbuf_release(&csv);
	return r;
}

static void test_good_times(void **state)
{
	static const struct {
		const char *in;
		int64_t want;
	} good[] = {
		{ "", -1 },
		{ "0", 0 },
		{ "1767225600", 1767225600 },
		{ "1970-01-01", 0 },
		{ "2026-01-01", 1767225600 },
		{ "2026-01-01T00:00Z", 1767225600 },
		{ "2026-01-01 01:00:00", 1767229200 },
		{ "2026-01-01T02:00:00+02:00", 1767225600 },
		{ "2025-12-31T19:30:00.999-0430", 1767225600 },
		{ "2024-02-29T12:00:00Z", 1709208000 },
		{ "2000-02-29", 951782400 },
		{ "9999-12-31T23:59:59Z", 253402300799 },
	};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int64_t t;

		assert_int_equal(parse_one(good[i].in, &t, &err), 0);
		if (t != good[i].want)
			fail_msg("%s: %lld, not %lld", good[i].in, (long long)t,
				 (long long)good[i].want);
	}
	strbuf_release(&err);
}

static void test_bad_times(void **state)
{
	static const char *const bad[] = {
		"2026-13-01",
		"2026-00-10",
		"2026-04-31",
		"2023-02-29",
		"2100-02-29",
		"2026-01-01T24:00",
		"2026-01-01T10:60",
		"2026-01-01T10:00:60",
		"1969-12-31",
		"2026-01-01T10:00+14:01",
		"253402300800",
		"-5",
		"1.5",
		"2026-1-01",
		"2026-01-01T10",
		"2026-01-01T10:00Zx",
		"2026-01-01T10:00:00.",
		"yesterday",
		"10000-01-01",
		"1970-01-01T00:00+01:00",
	};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t t;

		strbuf_reset(&err);
		if (parse_one(bad[i], &t, &err) == 0)
			fail_msg("%s taken as %lld", bad[i], (long long)t);
		/* Named with its line, the field quoted. */
		assert_non_null(strstr(err.buf, "t.csv:2: time '"));
	}
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_times),
		cmocka_unit_test(test_bad_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
