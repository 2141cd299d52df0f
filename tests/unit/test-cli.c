/*
 * test-cli.c - the verb table is sorted, unique, and every verb has help;
 * what the verbs print from outside is made printable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "strbuf.h"
#include "strvec.h"

static void test_table_sorted(void **state)
{
	(void)state;
	assert_true(commands_count > 0);
	for (unsigned i = 1; i < commands_count; i++)
		assert_true(strcmp(commands[i - 1].name, commands[i].name) < 0);
	for (unsigned i = 0; i < commands_count; i++) {
		assert_non_null(commands[i].fn);
		assert_true(strlen(commands[i].summary) > 0);
		assert_non_null(strstr(commands[i].usage, "usage: schedfarm"));
		assert_ptr_equal(command_find(commands[i].name), &commands[i]);
	}
	assert_null(command_find("no-such-verb"));
}

/* Every verb's usage has synopses that start with its own name, and
 * continuation lines join the synopsis they continue. */
static void test_synopses(void **state)
{
	static const char usage[] =
		"usage: schedfarm kernel list [--json]\n"
		"       schedfarm kernel build --base SRC [--ref REF]\n"
		"                              [--patch FILE]... [-j N]\n"
		"\n"
		"  list    kernels\n"
		"  --json  not a synopsis\n";
	struct strvec syn = STRVEC_INIT;

	(void)state;
	cli_synopses(usage, &syn);
	assert_int_equal(syn.nr, 2);
	assert_string_equal(syn.v[0], "schedfarm kernel list [--json]");
	assert_string_equal(syn.v[1], "schedfarm kernel build --base SRC "
				      "[--ref REF] [--patch FILE]... [-j N]");
	strvec_clear(&syn);
	for (unsigned i = 0; i < commands_count; i++) {
		struct strbuf want = STRBUF_INIT;

		cli_synopses(commands[i].usage, &syn);
		assert_true(syn.nr > 0);
		strbuf_addf(&want, "schedfarm %s", commands[i].name);
		for (size_t k = 0; k < syn.nr; k++)
			assert_true(strncmp(syn.v[k], want.buf, want.len) == 0);
		strvec_clear(&syn);
		strbuf_release(&want);
	}
}

/* --json is allowed exactly where the synopsis shows it. */
static void test_json_documented(void **state)
{
	int subs = -1;

	(void)state;
	assert_true(cli_json_documented(command_find("kernel"), "show", &subs));
	assert_int_equal(subs, 1);
	assert_true(cli_json_documented(command_find("kernel"), "list", NULL));
	assert_false(cli_json_documented(command_find("kernel"), "boot", NULL));
	assert_false(cli_json_documented(command_find("kernel"), NULL, NULL));
	assert_true(cli_json_documented(command_find("job"), "cancel", NULL));
	assert_false(cli_json_documented(command_find("job"), "ingest", NULL));
	assert_true(cli_json_documented(command_find("plan"), "check", NULL));
	assert_true(cli_json_documented(command_find("report"), NULL, &subs));
	assert_int_equal(subs, 0);
	assert_true(cli_json_documented(command_find("compare"), "42", NULL));
	assert_true(cli_json_documented(command_find("results"), "42", NULL));
	assert_false(cli_json_documented(command_find("run"), NULL, NULL));
	assert_false(cli_json_documented(command_find("import"), "x", NULL));
	assert_false(cli_json_documented(command_find("db"), "stop", NULL));
	assert_true(cli_json_documented(command_find("db"), "status", NULL));
}

/* The progress line never passes the width; the middle is cut first. */
static void test_fit_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	cli_fit_line(&sb, "STP#1 run 1/2 ", "memchunk a=1 on local",
		     " | 1s elapsed", 80);
	assert_string_equal(sb.buf,
			    "STP#1 run 1/2 memchunk a=1 on local | 1s elapsed");
	strbuf_reset(&sb);
	cli_fit_line(&sb, "HEAD ", "0123456789abcdef", " TAIL", 20);
	assert_string_equal(sb.buf, "HEAD 0123456... TAIL");
	assert_int_equal(sb.len, 20);
	strbuf_reset(&sb);
	cli_fit_line(&sb, "HEAD ", "middle", " TAIL", 9);
	assert_string_equal(sb.buf, "HEAD  TAI");
	strbuf_reset(&sb);
	/* A UTF-8 character is one column and is never cut in half. */
	cli_fit_line(&sb, "", "\xc2\xb1\xc2\xb1\xc2\xb1\xc2\xb1x", "", 4);
	assert_string_equal(sb.buf, "\xc2\xb1...");
	strbuf_release(&sb);
}

/* Long lines wrap at a blank (or '-', '/', ','), indented; short ones stay. */
static void test_wrap(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	cli_wrap(&sb, "short line\n  two", 20);
	assert_string_equal(sb.buf, "short line\n  two");
	strbuf_reset(&sb);
	cli_wrap(&sb, "host abc  workload some-long-name here\n", 20);
	assert_string_equal(sb.buf,
			    "host abc  workload\n  some-long-name\n  here\n");
	strbuf_reset(&sb);
	/* No blank: broken after a '-', never mid-word. */
	cli_wrap(&sb, "0001-sched-fair-clamp-the-lag.patch", 20);
	assert_string_equal(sb.buf, "0001-sched-fair-\n"
				    "  clamp-the-\n"
				    "  lag.patch");
	strbuf_reset(&sb);
	/* One word longer than the line: cut, as nothing else can be done. */
	cli_wrap(&sb, "abcdefghijklmnopqrstuvwxyz", 20);
	assert_string_equal(sb.buf, "abcdefghijklmnopqrst\n  uvwxyz");
	strbuf_release(&sb);
}

/* A table is aligned on one line a row when it fits, else its label
 * columns move under each row. */
static void test_table(void **state)
{
	static const char *const head[] = { "ID", "N", "LABEL" };
	static const char *const r1[] = { "1", "22", "short" };
	static const char *const r2[] = { "333", NULL, "a-much-longer-label" };
	struct strbuf sb = STRBUF_INIT;
	struct cli_table t;

	(void)state;
	cli_table_init(&t, head, "lr", 3, 2);
	cli_table_row(&t, r1);
	cli_table_row(&t, r2);
	cli_table_print(&t, 80, &sb);
	assert_string_equal(sb.buf, "ID   N LABEL\n"
				    "1   22 short\n"
				    "333  - a-much-longer-label\n");
	strbuf_reset(&sb);
	cli_table_print(&t, 20, &sb);
	assert_string_equal(sb.buf, "ID   N\n"
				    "1   22\n"
				    "  LABEL short\n"
				    "333  -\n"
				    "  LABEL a-much-\n"
				    "    longer-label\n");
	strbuf_reset(&sb);
	/* Two moved columns: on one line when it fits, else a line each. */
	{
		static const char *const h2[] = { "ID", "KERNEL", "PLAN" };
		static const char *const c1[] = { "1", "k", "p" };
		static const char *const c2[] = { "2", "kernel-lbl",
						  "plan-long" };
		struct cli_table t2;

		cli_table_init(&t2, h2, NULL, 3, 1);
		cli_table_row(&t2, c1);
		cli_table_row(&t2, c2);
		cli_table_print(&t2, 19, &sb);
		assert_string_equal(sb.buf, "ID\n"
					    "1\n"
					    "  KERNEL k  PLAN p\n"
					    "2\n"
					    "  KERNEL kernel-lbl\n"
					    "  PLAN plan-long\n");
		cli_table_release(&t2);
	}
	cli_table_release(&t);
	strbuf_release(&sb);
}

/* host show's text has every non-null member of its JSON. */
static void test_json_as_text(void **state)
{
	static const char doc[] =
		"{\"name\":\"box\",\"port\":22,\"key\":null,\"ok\":true,"
		"\"tags\":[\"a\",\"b\"],\"cpus\":{\"online\":2},"
		"\"events\":[{\"new\":\"good\"}]}";
	struct json_value *v = NULL;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	assert_int_equal(json_parse(doc, strlen(doc), NULL, &v, &err), 0);
	cli_json_as_text(v, 0, &out);
	assert_string_equal(out.buf, "name   box\n"
				     "port   22\n"
				     "ok     yes\n"
				     "tags   a, b\n"
				     "cpus   \n"
				     "  online 2\n"
				     "events \n"
				     "  [1]\n"
				     "    new good\n");
	json_free(v);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* What a verb prints from outside: a git subject with ESC and U+202E
 * reaches the terminal as text, its lines and tabs kept. */
static void test_put_text(void **state)
{
	FILE *f = tmpfile();
	char buf[256];
	size_t n;

	(void)state;
	assert_non_null(f);
	cli_put_text(f, "fix\x1b[2J\tx\n\xe2\x80\xae"
			"gpj.exe\n");
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	assert_string_equal(buf, "fix\\x1b[2J\tx\n\\u202egpj.exe\n");
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted),
		cmocka_unit_test(test_synopses),
		cmocka_unit_test(test_json_documented),
		cmocka_unit_test(test_fit_line),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json_as_text),
		cmocka_unit_test(test_put_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
