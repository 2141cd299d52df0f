/*
 * test-conninfo.c - connection strings: their words, and passwords kept
 * out of everything that is shown (common/conninfo.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "conninfo.h"

static void test_split(void **state)
{
	struct strvec k = STRVEC_INIT, v = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(conninfo_split("host=/run/pg port = 5432 "
					"password='a b\\'c' user=sb",
					&k, &v, &err),
			 0);
	assert_int_equal(k.nr, 4);
	assert_string_equal(k.v[1], "port");
	assert_string_equal(v.v[1], "5432");
	assert_string_equal(k.v[2], "password");
	assert_string_equal(v.v[2], "a b'c");
	strvec_clear(&k);
	strvec_clear(&v);
	assert_int_equal(conninfo_split("sslmode=require", &k, &v, &err), -1);
	assert_non_null(strstr(err.buf, "\"sslmode\" is not one of host"));
	strbuf_reset(&err);
	assert_int_equal(conninfo_split("password='open", &k, &v, &err), -1);
	assert_non_null(strstr(err.buf, "no closing quote"));
	assert_null(strstr(err.buf, "open"));
	strbuf_reset(&err);
	assert_int_equal(
		conninfo_split("postgresql://u:secret@h/db", &k, &v, &err), -1);
	assert_null(strstr(err.buf, "secret"));
	strvec_clear(&k);
	strvec_clear(&v);
	strbuf_release(&err);
}

static void masked(const char *ci, const char *want)
{
	struct strbuf out = STRBUF_INIT;

	conninfo_mask(ci, &out);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
}

static void test_mask(void **state)
{
	(void)state;
	masked("host=/tmp port=5432 user=sb password=s3cr3t dbname=sbdb",
	       "host=/tmp port=5432 user=sb password=*** dbname=sbdb");
	masked("password = 'a b' host='/x y'", "password=*** host='/x y'");
	masked("host=/tmp", "host=/tmp");
	masked("", "");
	/* Not a conninfo the agent takes: masked as text all the same. */
	masked("sslmode=x password=s3cr3t", "sslmode=x password=***");
	masked("postgresql://sb:s3cr3t@db/x", "postgresql://sb:***@db/x");
}

static void text_masked(const char *text, const char *want)
{
	struct strbuf out = STRBUF_INIT;

	text_mask_passwords(text, &out);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
}

static void test_text(void **state)
{
	(void)state;
	text_masked("    pg_conninfo: host=/tmp password=s3cr3t dbname=x\n"
		    "iterations: 3\n",
		    "    pg_conninfo: host=/tmp password=*** dbname=x\n"
		    "iterations: 3\n");
	/* A YAML double-quoted scalar keeps its closing quote. */
	text_masked("pg_conninfo: \"host=/tmp password=s3cr3t\"\n",
		    "pg_conninfo: \"host=/tmp password=***\"\n");
	/* ... but an escaped quote is part of the password. */
	text_masked("pg_conninfo: \"password=ab\\\"\"\n",
		    "pg_conninfo: \"password=***\"\n");
	text_masked("pg_conninfo: host=x PASSWORD='a b c' dbname=y",
		    "pg_conninfo: host=x PASSWORD=*** dbname=y");
	text_masked("url: postgres://u:pw@h:5432/db?x=1",
		    "url: postgres://u:***@h:5432/db?x=1");
	text_masked("bmc_password_file: /etc/bmc.pw",
		    "bmc_password_file: /etc/bmc.pw");
	text_masked("no secrets here", "no secrets here");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
