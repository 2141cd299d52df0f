/*
 * test-build-ccache.c - the compiler cache's statistics (lab/build_ccache.c
 * kernel_ccache_parse_stats()): `ccache --print-stats` prints KEY<tab>VALUE
 * lines; `kernel list --cache` shows hits, misses, files and size from
 * them, so each kept counter must be there and be a count in range, and a
 * line of another shape is refused rather than misread.  And the make
 * arguments a build gets: CC="ccache gcc" when ccache is installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lab/build-int.h"
#include "lab/build.h"

/* What ccache 4.7 prints, trimmed to a few of its keys. */
static const char stats_47[] = "autoconf_test\t0\n"
			       "cache_miss\t12\n"
			       "cache_size_kibibyte\t2048\n"
			       "direct_cache_hit\t30\n"
			       "direct_cache_miss\t14\n"
			       "files_in_cache\t48\n"
			       "preprocessed_cache_hit\t2\n"
			       "stats_updated_timestamp\t1733350000\n";

static void test_parse(void **state)
{
	struct kernel_ccache_stats st;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(kernel_ccache_parse_stats(stats_47, &st, &err), 0);
	assert_int_equal(st.direct_hits, 30);
	assert_int_equal(st.preprocessed_hits, 2);
	assert_int_equal(st.misses, 12);
	assert_int_equal(st.files, 48);
	assert_int_equal(st.size_kib, 2048);
	strbuf_release(&err);
}

static void expect_refused(const char *text, const char *why)
{
	struct kernel_ccache_stats st;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(kernel_ccache_parse_stats(text, &st, &err), -1);
	assert_non_null(strstr(err.buf, why));
	strbuf_release(&err);
}

static void test_refused(void **state)
{
	(void)state;
	/* A counter missing (an older ccache, or not its output at all). */
	expect_refused("cache_miss\t1\ndirect_cache_hit\t1\n",
		       "a counter is missing");
	expect_refused("", "a counter is missing");
	/* Not a count: negative, junk, beyond 2^53. */
	expect_refused("cache_miss\t-1\n", "cache_miss is out of range");
	expect_refused("files_in_cache\t12x\n",
		       "files_in_cache is not an integer");
	expect_refused("cache_size_kibibyte\t99999999999999999\n",
		       "cache_size_kibibyte is out of range");
	expect_refused("cache_miss\t\n", "cache_miss is not an integer");
	/* Not KEY<tab>VALUE. */
	expect_refused("Cache directory:    /tmp/x\n", "line 1 is not");
}

static void test_make_args(void **state)
{
	struct strvec args = STRVEC_INIT;

	(void)state;
	/* Named by the test hook: a program that is not there. */
	setenv("SCHEDFARM_CCACHE", "/nonexistent/ccache", 1);
	build_ccache_make_args(&args);
	assert_int_equal(args.nr, 0);
	strvec_clear(&args);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_make_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
