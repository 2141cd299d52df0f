/*
 * test-build-lock.c - the kernel cache's locks (lab/build_lock.c): whoever
 * takes one writes who it is into it; a build that finds it held says
 * whom it waits for through its progress (a line with steps -1) and its
 * log, hears each second between, takes the lock once it is free, and
 * gives up when its progress says stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/build-int.h"
#include "unit-files.h"

static char dir[] = "/tmp/test-build-lock.XXXXXX";

struct seen {
	int held_fd; /* the other build's lock: closed on the first report */
	int lines, ticks, stop_on_tick;
	char first[512];
};

static int on_progress(void *ctx, const char *line, int steps, int expected)
{
	struct seen *s = ctx;

	(void)expected;
	if (!line) {
		s->ticks++;
		return s->stop_on_tick ? -1 : 0;
	}
	assert_int_equal(steps, -1);
	if (!s->lines++)
		snprintf(s->first, sizeof(s->first), "%s", line);
	if (s->held_fd >= 0 && !s->stop_on_tick) {
		close(s->held_fd);
		s->held_fd = -1;
	}
	return 0;
}

static void test_free_lock_says_who(void **state)
{
	struct kernel_build_spec spec;
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT, body = STRBUF_INIT;
	char want[64];
	int fd;

	(void)state;
	kernel_build_spec_init(&spec);
	spec.who = "kernel a\nforged=1";
	fd = build_lock(&spec, unit_path(dir, "free.lock"), "the tree of X",
			&log, &err);
	assert_true(fd >= 0);
	assert_string_equal(log.buf, ""); /* no wait, nothing said */
	assert_int_equal(
		strbuf_read_file(&body, unit_path(dir, "free.lock"), 4096), 0);
	snprintf(want, sizeof(want), "pid=%ld\nwho=kernel a forged=1\n",
		 (long)getpid());
	assert_true(!strncmp(body.buf, want, strlen(want)));
	assert_non_null(strstr(body.buf, "\nsince="));
	close(fd);
	kernel_build_spec_release(&spec);
	strbuf_release(&log);
	strbuf_release(&err);
	strbuf_release(&body);
}

static void test_held_lock_waits_saying_for_whom(void **state)
{
	struct kernel_build_spec first, second;
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT, body = STRBUF_INIT;
	struct seen s = { -1, 0, 0, 0, "" };
	char want[256];
	int fd;

	(void)state;
	kernel_build_spec_init(&first);
	kernel_build_spec_init(&second);
	first.who = "kernel k1 / job 7";
	s.held_fd = build_lock(&first, unit_path(dir, "t.lock"),
			       "the tree of X", &log, &err);
	assert_true(s.held_fd >= 0);
	second.who = "kernel k2 / job 8";
	second.progress = on_progress;
	second.progress_ctx = &s;
	fd = build_lock(&second, unit_path(dir, "t.lock"), "the tree of X",
			&log, &err);
	assert_true(fd >= 0);
	assert_int_equal(s.held_fd, -1);
	assert_int_equal(s.lines, 1);
	snprintf(want, sizeof(want),
		 "waiting for the tree of X (another build holds it: kernel "
		 "k1 / job 7, pid %ld, for ",
		 (long)getpid());
	assert_true(!strncmp(s.first, want, strlen(want)));
	assert_true(!strncmp(log.buf, want, strlen(want)));
	assert_non_null(strstr(log.buf, "\nwaited "));
	assert_non_null(strstr(log.buf, " for the tree of X\n"));
	/* Now the second says who holds it. */
	assert_int_equal(
		strbuf_read_file(&body, unit_path(dir, "t.lock"), 4096), 0);
	assert_non_null(strstr(body.buf, "who=kernel k2 / job 8\n"));
	close(fd);
	kernel_build_spec_release(&first);
	kernel_build_spec_release(&second);
	strbuf_release(&log);
	strbuf_release(&err);
	strbuf_release(&body);
}

static void test_wait_stops_when_told(void **state)
{
	struct kernel_build_spec first, second;
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	struct seen s = { -1, 0, 0, 1, "" };

	(void)state;
	kernel_build_spec_init(&first);
	kernel_build_spec_init(&second);
	s.held_fd =
		build_lock(&first, unit_path(dir, "s.lock"), "K", &log, &err);
	assert_true(s.held_fd >= 0);
	second.progress = on_progress;
	second.progress_ctx = &s;
	assert_int_equal(build_lock(&second, unit_path(dir, "s.lock"),
				    "the same kernel", &log, &err),
			 -1);
	assert_string_equal(err.buf, "the build was stopped while waiting "
				     "for the same kernel");
	assert_int_equal(s.lines, 1);
	assert_int_equal(s.ticks, 1);
	close(s.held_fd);
	kernel_build_spec_release(&first);
	kernel_build_spec_release(&second);
	strbuf_release(&log);
	strbuf_release(&err);
}

static void test_symlink_refused(void **state)
{
	struct kernel_build_spec spec;
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	kernel_build_spec_init(&spec);
	assert_int_equal(symlink("/etc/passwd", unit_path(dir, "l.lock")), 0);
	assert_int_equal(
		build_lock(&spec, unit_path(dir, "l.lock"), "X", &log, &err),
		-1);
	assert_non_null(strstr(err.buf, "symbolic link"));
	kernel_build_spec_release(&spec);
	strbuf_release(&log);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_lock_says_who),
		cmocka_unit_test(test_held_lock_waits_saying_for_whom),
		cmocka_unit_test(test_wait_stops_when_told),
		cmocka_unit_test(test_symlink_refused),
	};
	int r;

	if (!mkdtemp(dir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	unit_rm_rf(dir);
	return r;
}
