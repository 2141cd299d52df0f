/*
 * test-build-make.c - the make step of a kernel build (lab/build.c
 * run_make): a job renews its lease from the build's progress callback, so
 * the callback must hear every line make prints and, in a second in which
 * make prints nothing (the link of vmlinux, minutes on a slow disk), a
 * NULL line; a callback that says stop (the lease is lost) must end make
 * within seconds, and the build's timeout counts from make's start.
 *
 * A Makefile made here stands in for a kernel tree: it prints kbuild-style
 * lines, is silent for a while, and prints again.  The real build is
 * tests/kernel (make check-kernel) and t9001's build part.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/build-int.h"
#include "time-util.h"
#include "unit-files.h"

static char dir[] = "/tmp/test-build-make.XXXXXX";

/* What the progress callback heard. */
struct heard {
	int lines, silent, last_steps;
	int stop_at_silent; /* > 0: stop on this silent second */
	struct strbuf text;
};

static int hear(void *ctx, const char *line, int steps, int expected)
{
	struct heard *h = ctx;

	(void)expected;
	h->last_steps = steps;
	if (!line) {
		h->silent++;
		return h->stop_at_silent && h->silent >= h->stop_at_silent ? -1
									   : 0;
	}
	h->lines++;
	strbuf_addf(&h->text, "%s|", line);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	/* Two compile steps, a silent 2.5 s link, one more step. */
	unit_write(dir, "ok/Makefile",
		   ".PHONY: vmlinux bzImage\n"
		   "vmlinux:\n"
		   "\t@echo '  CC      kernel/sched/core.o'\n"
		   "\t@echo '  CC      kernel/sched/fair.o'\n"
		   "\t@sleep 2.5\n"
		   "\t@echo '  LD      vmlinux'\n"
		   "bzImage: vmlinux\n"
		   "\t@echo 'Kernel: arch/x86/boot/bzImage is ready'\n");
	unit_write(dir, "hang/Makefile",
		   ".PHONY: vmlinux bzImage\n"
		   "vmlinux:\n"
		   "\t@echo '  CC      init/main.o'\n"
		   "\t@sleep 60\n"
		   "bzImage: vmlinux\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

/* Run make in dir/name with h as the progress callback's. */
static int make_in(const char *name, struct heard *h, int timeout_s, int *steps,
		   struct strbuf *log, struct strbuf *err)
{
	struct kernel_build_spec spec;
	int r;

	kernel_build_spec_init(&spec);
	spec.jobs = 1;
	spec.timeout_s = timeout_s;
	spec.cache_dir = dir; /* no last-steps there: expected 0 */
	spec.progress = hear;
	spec.progress_ctx = h;
	r = build_run_make(&spec, unit_path(dir, name), unit_path(dir, "out"),
			   steps, log, err);
	kernel_build_spec_release(&spec);
	return r;
}

static void test_lines_and_silent_seconds(void **state)
{
	struct heard h = { .text = STRBUF_INIT };
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int steps = -1;

	(void)state;
	assert_int_equal(make_in("ok", &h, 0, &steps, &log, &err), 0);
	/* make -C's "Entering/Leaving directory" lines, and ours. */
	assert_int_equal(h.lines, 6);
	assert_int_equal(steps, 3);
	assert_int_equal(h.last_steps, 3);
	assert_non_null(strstr(h.text.buf, "|  CC      kernel/sched/core.o|"
					   "  CC      kernel/sched/fair.o|"));
	assert_non_null(strstr(h.text.buf, "|  LD      vmlinux|"));
	assert_non_null(strstr(h.text.buf, "bzImage is ready|"));
	/* 2.5 s with nothing printed: at least one silent second heard. */
	assert_true(h.silent >= 1);
	assert_non_null(strstr(log.buf, "$ make -C "));
	assert_non_null(strstr(log.buf, "  LD      vmlinux\n"));
	assert_non_null(strstr(log.buf, "bzImage is ready\n"));
	strbuf_release(&h.text);
	strbuf_release(&log);
	strbuf_release(&err);
}

static void test_stopped_by_progress(void **state)
{
	struct heard h = { .text = STRBUF_INIT, .stop_at_silent = 2 };
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int64_t t0 = mono_ms();
	int steps = -1;

	(void)state;
	assert_int_equal(make_in("hang", &h, 0, &steps, &log, &err), -1);
	assert_string_equal(err.buf, "the build was stopped");
	/* Stopped on the second silent second, not after make's 60 s. */
	assert_true(mono_ms() - t0 < 15000);
	assert_int_equal(steps, 1);
	assert_non_null(strstr(log.buf, "  CC      init/main.o\n"));
	strbuf_release(&h.text);
	strbuf_release(&log);
	strbuf_release(&err);
}

static void test_timeout_from_start(void **state)
{
	struct heard h = { .text = STRBUF_INIT };
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int64_t t0 = mono_ms();
	int steps = -1;

	(void)state;
	/* 5 s: a silent second is heard even when a loaded machine takes
	 * seconds to start make (with 2 s it sometimes was not). */
	assert_int_equal(make_in("hang", &h, 5, &steps, &log, &err), -1);
	assert_string_equal(err.buf, "make timed out after 5 s");
	assert_true(mono_ms() - t0 < 15000);
	assert_true(h.silent >= 1);
	strbuf_release(&h.text);
	strbuf_release(&log);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_silent_seconds),
		cmocka_unit_test(test_stopped_by_progress),
		cmocka_unit_test(test_timeout_from_start),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
