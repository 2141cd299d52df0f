/*
 * test-ingest.c - checking agent lines (controller/store/ingest.c), the patch
 * check of the queue and shell quoting for SSH commands.  Storing is
 * covered by the integration tests against a real PostgreSQL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "store/ingest.h"
#include "store/queue.h"
#include "lab/ssh.h"
#include "parse.h"
#include "strbuf.h"

static const struct ingest_expect ex = { .run_id = 7,
					 .iterations = 3,
					 .warmup = 1 };

/* Check line; return 0/-1 and leave the error in *err. */
static int check(const char *line, struct agent_line *l, struct strbuf *err)
{
	strbuf_reset(err);
	return ingest_check_line(line, strlen(line), &ex, l, err);
}

static void test_good_lines(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct agent_line l;

	(void)state;
	assert_int_equal(
		check("{\"type\":\"result\",\"run_id\":7,\"iteration\":0,"
		      "\"warmup\":true,\"metric\":\"ops\",\"value\":1.5e3,"
		      "\"unit\":\"1/s\",\"direction\":\"higher\"}",
		      &l, &err),
		0);
	assert_int_equal(l.type, AGENT_RESULT);
	assert_string_equal(l.metric, "ops");
	assert_true(l.value == 1500.0);
	assert_int_equal(l.warmup, 1);
	agent_line_release(&l);

	assert_int_equal(
		check("{\"type\":\"sample\",\"run_id\":7,\"iteration\":2,"
		      "\"series\":\"share./a\",\"t\":0.5,\"value\":0.71}",
		      &l, &err),
		0);
	assert_int_equal(l.type, AGENT_SAMPLE);
	agent_line_release(&l);

	assert_int_equal(
		check("{\"type\":\"counter\",\"run_id\":7,\"iteration\":1,"
		      "\"source\":\"schedstat\",\"scope\":\"cpu0\","
		      "\"name\":\"x\",\"available\":false,\"note\":\"no\"}",
		      &l, &err),
		0);
	assert_int_equal(l.available, 0);
	agent_line_release(&l);

	assert_int_equal(
		check("{\"type\":\"done\",\"run_id\":7,\"status\":\"ok\","
		      "\"elapsed_s\":3.2,\"agent_cpu_s\":0.01}",
		      &l, &err),
		0);
	assert_string_equal(l.status, "ok");
	agent_line_release(&l);
	strbuf_release(&err);
}

/* An error message is what sysbench said, line breaks and all; other
 * control characters are kept visible, never a reason to refuse it. */
static void test_error_messages(void **state)
{
	struct strbuf err = STRBUF_INIT, big = STRBUF_INIT;
	struct agent_line l;

	(void)state;
	assert_int_equal(
		check("{\"type\":\"error\",\"run_id\":7,\"message\":"
		      "\"sysbench failed:\\nFATAL: connection creation "
		      "failed\\n\\tat line 83\"}",
		      &l, &err),
		0);
	assert_string_equal(l.message, "sysbench failed:\nFATAL: connection "
				       "creation failed\n\tat line 83");
	agent_line_release(&l);
	assert_int_equal(check("{\"type\":\"error\",\"run_id\":7,"
			       "\"message\":\"\\u001b[31mred\\r\"}",
			       &l, &err),
			 0);
	assert_string_equal(l.message, "\\x1b[31mred\\x0d");
	agent_line_release(&l);
	/* Longer than the cap: cut, with the length said. */
	strbuf_addstr(&big, "{\"type\":\"error\",\"run_id\":7,\"message\":\"");
	for (int i = 0; i < 5000; i++)
		strbuf_addch(&big, 'x');
	strbuf_addstr(&big, "\"}");
	assert_int_equal(check(big.buf, &l, &err), 0);
	assert_non_null(strstr(l.message, "... (5000 bytes in all)"));
	agent_line_release(&l);
	/* A value that underflows is refused here, not by a COPY. */
	assert_int_equal(
		check("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		      "\"warmup\":false,\"metric\":\"m\",\"value\":1e-400,"
		      "\"unit\":\"\",\"direction\":\"none\"}",
		      &l, &err),
		-1);
	assert_non_null(strstr(err.buf, "1e-400 is out of range"));
	strbuf_release(&err);
	strbuf_release(&big);
}

static void expect_bad(const char *line, const char *why)
{
	struct strbuf err = STRBUF_INIT;
	struct agent_line l;

	assert_int_equal(check(line, &l, &err), -1);
	if (!strstr(err.buf, why))
		fail_msg("expected '%s' in: %s", why, err.buf);
	assert_non_null(strstr(err.buf, "bad agent line for run 7"));
	strbuf_release(&err);
}

static void test_bad_lines(void **state)
{
	(void)state;
	expect_bad("not json", "unexpected");
	expect_bad("[1,2]", "expected a JSON object");
	expect_bad("{\"run_id\":7}", "\"type\" is missing");
	expect_bad("{\"type\":\"shout\",\"run_id\":7}", "unknown \"type\"");
	expect_bad("{\"type\":\"done\",\"run_id\":8,\"status\":\"ok\","
		   "\"elapsed_s\":1}",
		   "not this run's 7");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		   "\"warmup\":false,"
		   "\"metric\":\"m\",\"value\":NaN,\"unit\":\"\",\"direction\":"
		   "\"none\"}",
		   "unexpected character");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		   "\"warmup\":false,"
		   "\"metric\":\"m\",\"value\":\"1\",\"unit\":\"\","
		   "\"direction\":\"none\"}",
		   "expected a number, got a string");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		   "\"warmup\":false,"
		   "\"metric\":\"m\",\"value\":1e999,\"unit\":\"\","
		   "\"direction\":\"none\"}",
		   "");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":4,"
		   "\"warmup\":false,"
		   "\"metric\":\"m\",\"value\":1,\"unit\":\"\",\"direction\":"
		   "\"none\"}",
		   "\"iteration\": expected an integer in 0..3");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		   "\"warmup\":true,"
		   "\"metric\":\"m\",\"value\":1,\"unit\":\"\",\"direction\":"
		   "\"none\"}",
		   "is not a warm-up iteration");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		   "\"warmup\":false,"
		   "\"metric\":\"a\\u0001b\",\"value\":1,\"unit\":\"\","
		   "\"direction\":\"none\"}",
		   "control character");
	expect_bad("{\"type\":\"result\",\"run_id\":7,\"iteration\":1,"
		   "\"warmup\":false,"
		   "\"metric\":\"m\",\"value\":1,\"unit\":\"\",\"direction\":"
		   "\"up\"}",
		   "expected higher, lower or none");
	expect_bad("{\"type\":\"sample\",\"run_id\":7,\"iteration\":1,"
		   "\"series\":\"s\","
		   "\"t\":-1,\"value\":1}",
		   "\"t\": -1 is out of range");
	expect_bad("{\"type\":\"counter\",\"run_id\":7,\"iteration\":1,"
		   "\"source\":\"x\","
		   "\"name\":\"n\",\"value\":1}",
		   "\"source\": expected");
	expect_bad("{\"type\":\"done\",\"run_id\":7,\"status\":\"great\","
		   "\"elapsed_s\":1}",
		   "\"status\": expected");
}

static void test_oversized(void **state)
{
	struct strbuf line = STRBUF_INIT, err = STRBUF_INIT;
	struct agent_line l;

	(void)state;
	strbuf_addstr(&line, "{\"type\":\"error\",\"run_id\":7,\"message\":\"");
	for (int i = 0; i < 70000; i++)
		strbuf_addch(&line, 'x');
	strbuf_addstr(&line, "\"}");
	assert_int_equal(ingest_check_line(line.buf, line.len, &ex, &l, &err),
			 -1);
	assert_non_null(strstr(err.buf, "over the 65536-byte limit"));
	/* The quote is cut: the error stays short. */
	assert_true(err.len < 600);
	strbuf_release(&line);
	strbuf_release(&err);
}

static void test_quote_binary(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	ingest_quote_line(&sb, "a\"\xff\n", 4, 200);
	assert_string_equal(sb.buf, "\"a\\\"\\xff\\x0a\"");
	strbuf_release(&sb);
}

static void test_check_all(void **state)
{
	static const char text[] =
		"{\"type\":\"hello\",\"run_id\":7,\"agent_version\":\"0.2\","
		"\"info\":{\"cpus\":{\"online\":2}}}\n"
		"{\"type\":\"result\",\"run_id\":7,\"iteration\":0,\"warmup\":"
		"true,\"metric\":\"m\",\"value\":1,\"unit\":\"\",\"direction\":"
		"\"none\"}\n"
		"\n"
		"{\"type\":\"error\",\"run_id\":7,\"message\":\"oops\"}\n"
		"{\"type\":\"done\",\"run_id\":7,\"status\":\"failed\","
		"\"elapsed_s\":1}";
	struct strbuf err = STRBUF_INIT, more = STRBUF_INIT;
	struct ingest_summary sum;

	(void)state;
	assert_int_equal(ingest_check_all(text, strlen(text), &ex, &sum, &err),
			 0);
	assert_int_equal(sum.lines, 4);
	assert_int_equal(sum.results, 1);
	assert_int_equal(sum.done, 1);
	assert_string_equal(sum.status, "failed");
	assert_string_equal(sum.first_error, "oops");
	ingest_summary_release(&sum);

	/* Nothing may follow done. */
	strbuf_addstr(&more, text);
	strbuf_addstr(
		&more,
		"\n{\"type\":\"error\",\"run_id\":7,\"message\":\"late\"}\n");
	assert_int_equal(ingest_check_all(more.buf, more.len, &ex, &sum, &err),
			 -1);
	assert_non_null(strstr(err.buf, "a line after \"done\""));
	ingest_summary_release(&sum);
	strbuf_release(&err);
	strbuf_release(&more);
}

/* An error line may blame the host (the agent found no program, no cgroup
 * controller): the summary says so when it is the first error. */
static void test_check_host_blame(void **state)
{
	static const char text[] =
		"{\"type\":\"error\",\"run_id\":7,\"message\":\"mounting a "
		"cgroup hierarchy needs root\",\"field\":\"cgroups\","
		"\"blame\":\"host\"}\n"
		"{\"type\":\"error\",\"run_id\":7,\"message\":\"then\"}\n"
		"{\"type\":\"done\",\"run_id\":7,\"status\":\"failed\","
		"\"elapsed_s\":0}";
	static const char bad[] =
		"{\"type\":\"error\",\"run_id\":7,\"message\":\"x\","
		"\"blame\":\"kernel\"}";
	static const char later[] =
		"{\"type\":\"error\",\"run_id\":7,\"message\":\"first\"}\n"
		"{\"type\":\"error\",\"run_id\":7,\"message\":\"x\","
		"\"blame\":\"host\"}";
	struct strbuf err = STRBUF_INIT;
	struct ingest_summary sum;

	(void)state;
	assert_int_equal(ingest_check_all(text, strlen(text), &ex, &sum, &err),
			 0);
	assert_int_equal(sum.host_fault, 1);
	assert_string_equal(sum.first_error,
			    "mounting a cgroup hierarchy needs root");
	ingest_summary_release(&sum);
	/* Only the first error decides. */
	assert_int_equal(
		ingest_check_all(later, strlen(later), &ex, &sum, &err), 0);
	assert_int_equal(sum.host_fault, 0);
	ingest_summary_release(&sum);
	assert_int_equal(ingest_check_all(bad, strlen(bad), &ex, &sum, &err),
			 -1);
	assert_non_null(strstr(err.buf, "\"blame\": expected host"));
	ingest_summary_release(&sum);
	strbuf_release(&err);
}

static void test_patch_check(void **state)
{
	static const char good[] =
		"From x\n---\n a | 2 +-\n\ndiff --git a/a b/a\n"
		"--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n";
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(queue_check_patch("g", good, strlen(good), &err), 0);
	assert_int_equal(queue_check_patch("t", "hello\n", 6, &err), -1);
	assert_non_null(strstr(err.buf, "t is not a patch"));
	strbuf_reset(&err);
	assert_int_equal(
		queue_check_patch("n", "--- a\n+++ b\n@@ \0", 16, &err), -1);
	assert_non_null(strstr(err.buf, "NUL"));
	strbuf_release(&err);
}

static void test_ssh_quote(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	ssh_quote(&sb, "it's $(here)");
	assert_string_equal(sb.buf, "'it'\\''s $(here)'");
	strbuf_release(&sb);
}

/* A user name is never read as an option or a second word (the review's
 * `user@addr` before `--`; SSH is libssh now, the rule stays). */
static void test_ssh_user_names(void **state)
{
	(void)state;
	assert_true(ssh_user_name_ok("farm"));
	assert_true(ssh_user_name_ok("build_1.x-y"));
	assert_false(ssh_user_name_ok("-oProxyCommand=id"));
	assert_false(ssh_user_name_ok(".hidden"));
	assert_false(ssh_user_name_ok("a b"));
	assert_false(ssh_user_name_ok("a@b"));
	assert_false(ssh_user_name_ok(""));
	assert_false(ssh_user_name_ok("x23456789012345678901234567890123"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lines),
		cmocka_unit_test(test_error_messages),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_quote_binary),
		cmocka_unit_test(test_check_all),
		cmocka_unit_test(test_check_host_blame),
		cmocka_unit_test(test_patch_check),
		cmocka_unit_test(test_ssh_quote),
		cmocka_unit_test(test_ssh_user_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
