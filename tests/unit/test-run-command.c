/*
 * test-run-command.c - run-command: argv without a shell, capture, exit
 * status, stdin, timeout and a missing program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run-command.h"

/* Write text to path (the test's own helper: no fs.c needed). */
static int write_file_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f) ? -1 : 0;
}

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

/* The tick: counts its calls; stops the child at the third. */
static int count_ticks(void *ctx)
{
	int *n = ctx;

	return ++*n >= 3 ? -1 : 0;
}

/*
 * A child that prints nothing for seconds still gets its tick about once
 * a second (a build step's lease renewal), whether its output is captured
 * or not, and a tick that says stop ends it as a failure that says so,
 * long before it would have ended by itself.
 */
static void test_tick(void **state)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;
	struct timespec a, b;
	int ticks = 0;

	(void)state;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sh", "-c", "sleep 1.5; echo done", NULL);
	cp.capture_out = 1;
	cp.tick = count_ticks;
	cp.tick_ctx = &ticks;
	assert_int_equal(run_command(&cp, &err), 0);
	assert_string_equal(cp.out.buf, "done\n");
	assert_int_equal(ticks, 1);
	child_process_clear(&cp);

	ticks = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sleep", "30", NULL);
	cp.quiet = 1; /* no pipes: the wait is on the child alone */
	cp.tick = count_ticks;
	cp.tick_ctx = &ticks;
	assert_int_equal(run_command(&cp, &err), -1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(ticks, 3);
	assert_true(cp.stopped);
	assert_false(cp.timed_out);
	assert_non_null(strstr(err.buf, "sleep was stopped"));
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

/*
 * A long-lived child writing to a file, its stdin held open: `cat` ends at
 * EOF on its input, so it runs until stopped -- the shape of `ipmitool sol
 * activate` (lab/sol.c) -- and what it wrote is in the file.
 */
static void test_out_file_hold_stdin_stop(void **state)
{
	char path[] = "/tmp/test-run-command.XXXXXX";
	struct child_process cp;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_file_text(path, "before\n"), 0);
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sh", "-c", "echo started; exec cat", NULL);
	cp.out_file = path;
	cp.hold_stdin = 1;
	assert_int_equal(start_command(&cp, &err), 0);
	for (int i = 0; i < 100; i++) {
		strbuf_reset(&text);
		assert_true(strbuf_read_file(&text, path, 4096) >= 0);
		if (strstr(text.buf, "started"))
			break;
		usleep(20000);
	}
	/* Appended, not truncated; still running on its open stdin. */
	assert_string_equal(text.buf, "before\nstarted\n");
	usleep(100000);
	assert_int_equal(command_running(&cp), 1);
	assert_int_equal(stop_command(&cp, 2000, &err), 0);
	assert_int_equal(command_running(&cp), 0);
	child_process_clear(&cp);

	/* A child that ended by itself: command_running() says so, and
	 * finish_command() still reports its status. */
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sh", "-c", "exit 4", NULL);
	cp.out_file = path;
	assert_int_equal(start_command(&cp, &err), 0);
	for (int i = 0; i < 200 && command_running(&cp); i++)
		usleep(10000);
	assert_int_equal(command_running(&cp), 0);
	assert_int_equal(finish_command(&cp, &err), -1);
	assert_int_equal(cp.exit_code, 4);
	child_process_clear(&cp);
	unlink(path);
	strbuf_release(&err);
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_status),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_tick),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_out_file_hold_stdin_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
