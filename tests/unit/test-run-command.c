/*
 * test-run-command.c - run-command: argv without a shell, capture, exit
 * status, stdin, timeout and a missing program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "run-command.h"

static void test_capture_and_status(void **state)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	child_process_init(&cp);
	/* The argument is one word with shell metacharacters: no shell. */
	strvec_pushl(&cp.args, "printf", "%s", "a b; echo $HOME", NULL);
	cp.capture_out = 1;
	assert_int_equal(run_command(&cp, &err), 0);
	assert_string_equal(cp.out.buf, "a b; echo $HOME");
	child_process_clear(&cp);

	child_process_init(&cp);
	strvec_pushl(&cp.args, "sh", "-c", "echo oops >&2; exit 3", NULL);
	cp.capture_err = 1;
	assert_int_equal(run_command(&cp, &err), -1);
	assert_int_equal(cp.exit_code, 3);
	assert_string_equal(cp.err.buf, "oops\n");
	assert_non_null(strstr(err.buf, "exited with status 3"));
	child_process_clear(&cp);
	strbuf_release(&err);
}

static void test_stdin(void **state)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;
	static char big[300000];

	(void)state;
	memset(big, 'x', sizeof(big));
	child_process_init(&cp);
	strvec_pushl(&cp.args, "wc", "-c", NULL);
	cp.stdin_data = big;
	cp.stdin_len = sizeof(big);
	cp.capture_out = 1;
	assert_int_equal(run_command(&cp, &err), 0);
	assert_non_null(strstr(cp.out.buf, "300000"));
	child_process_clear(&cp);
	strbuf_release(&err);
}

static void test_timeout(void **state)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;
	struct timespec a, b;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sleep", "30", NULL);
	cp.capture_out = 1;
	cp.timeout_ms = 200;
	assert_int_equal(run_command(&cp, &err), -1);
	assert_true(cp.timed_out);
	assert_non_null(strstr(err.buf, "timed out"));
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 10);
	child_process_clear(&cp);
	strbuf_release(&err);
}

static void test_missing_program(void **state)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	child_process_init(&cp);
	strvec_push(&cp.args, "/nonexistent/schedfarm-no-such-program");
	assert_int_equal(run_command(&cp, &err), -1);
	assert_non_null(strstr(err.buf, "No such file or directory"));
	child_process_clear(&cp);
	strbuf_release(&err);
	assert_false(program_exists("schedfarm-no-such-program"));
	assert_true(program_exists("sh"));
}

static void test_output_cap(void **state)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "head", "-c", "100000", "/dev/zero", NULL);
	cp.capture_out = 1;
	cp.max_output = 1000;
	assert_int_equal(run_command(&cp, &err), 0);
	assert_int_equal(cp.out.len, 1000);
	assert_true(cp.truncated);
	child_process_clear(&cp);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_status),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_output_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
