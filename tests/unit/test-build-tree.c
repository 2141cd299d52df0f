/*
 * test-build-tree.c - the incremental build tree of lab/build_tree.c, the
 * part of a bisection step that makes it cost minutes instead of a full
 * build: make's dependency tracking rebuilds only what changed, so the
 * tree must rewrite exactly the files whose bytes differ from the last
 * build there and leave every other file's mtime alone.
 *
 * A small source folder and a small git repository made here stand in
 * for a kernel tree (build_tree_prepare never runs make: it lays the
 * sources out; the real builds are bench/bisect-build and
 * tests/kernel/t7102).  Checked: a series' prefixes growing and shrinking
 * (a file the prefix no longer patches goes back to the base's bytes, a
 * file it created goes away), the pristine base never written through its
 * hard links, the objects of a killed build removed (its .config kept),
 * and a git base switched commit to commit by checkout, with what an
 * earlier step left cleaned away.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "lab/build-int.h"
#include "run-command.h"
#include "unit-files.h"

static char dir[] = "/tmp/test-build-tree.XXXXXX";

static char *path_in(const char *name)
{
	return unit_path(dir, name);
}

static void write_text(const char *name, const char *text)
{
	unit_write(dir, name, text);
}

/* The file's bytes, or "(none)" when it is not there. */
static const char *read_text(const char *name)
{
	static char buf[4][256];
	static int i;
	int fd = open(path_in(name), O_RDONLY);
	ssize_t n;

	i = (i + 1) % 4;
	if (fd < 0)
		return "(none)";
	n = read(fd, buf[i], sizeof(buf[i]) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[i][n] = '\0';
	return buf[i];
}

static struct stat stat_of(const char *name)
{
	struct stat st;

	assert_int_equal(stat(path_in(name), &st), 0);
	return st;
}

/* Set a file's mtime an hour back, so that a rewrite would show. */
static void age(const char *name)
{
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT },
				  { .tv_sec = time(NULL) - 3600 } };

	assert_int_equal(utimensat(AT_FDCWD, path_in(name), ts, 0), 0);
}

/* git in dir/repo; its output (trimmed) in out when given. */
static void git(const char *const *args, struct strbuf *out)
{
	unit_git(path_in("repo"), args, out);
}

static void commit_all(const char *msg, struct strbuf *sha)
{
	const char *add[] = { "add", "-A", NULL };
	const char *ci[] = { "commit", "-q", "-m", msg, NULL };
	const char *rev[] = { "rev-parse", "HEAD", NULL };

	git(add, NULL);
	git(ci, NULL);
	git(rev, sha);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	/* The base: three files, as a source folder. */
	write_text("base/kernel/sched/fair.c", "int fair;\n");
	write_text("base/kernel/sched/core.c", "int core;\n");
	write_text("base/Makefile", "# the tree\n");
	/* A series of three: change fair.c, change core.c, add new.c. */
	write_text("p1.patch", "--- a/kernel/sched/fair.c\n"
			       "+++ b/kernel/sched/fair.c\n"
			       "@@ -1 +1 @@\n-int fair;\n+int fair = 1;\n");
	write_text("p2.patch", "--- a/kernel/sched/core.c\n"
			       "+++ b/kernel/sched/core.c\n"
			       "@@ -1 +1 @@\n-int core;\n+int core = 2;\n");
	write_text("p3.patch", "--- /dev/null\n"
			       "+++ b/kernel/sched/new.c\n"
			       "@@ -0,0 +1 @@\n+int added;\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

/*
 * build_tree_prepare of base (a folder, or a repository at rev) with
 * the patches named (NULL-terminated) into dir/TREE; the log in log.
 */
static int prepare(const char *base, const char *rev, const char *tree,
		   int *fresh, struct strbuf *log, ...)
{
	struct kernel_build_spec spec;
	struct kernel_build_result res;
	struct strbuf err = STRBUF_INIT;
	const char *p;
	va_list ap;
	int r;

	kernel_build_spec_init(&spec);
	spec.base = path_in(base);
	spec.ref = rev;
	spec.cache_dir = path_in("cache");
	va_start(ap, log);
	while ((p = va_arg(ap, const char *)))
		strvec_push(&spec.patches, path_in(p));
	va_end(ap);
	kernel_build_result_init(&res);
	strbuf_reset(log);
	r = kernel_build_key(&spec, &res, &err);
	if (r == 0)
		r = build_tree_prepare(&spec, &res, path_in(tree), fresh, log,
				       &err);
	if (r < 0)
		print_error("prepare: %s\n%s", err.buf, log->buf);
	kernel_build_result_release(&res);
	kernel_build_spec_release(&spec);
	strbuf_release(&err);
	return r;
}

static void test_prefixes_grow_and_shrink(void **state)
{
	struct strbuf log = STRBUF_INIT;
	struct stat base_core, st;
	time_t old;
	int fresh = -1;

	(void)state;
	base_core = stat_of("base/kernel/sched/core.c");

	/* Prefix 1: a new tree, hard links but for the patched file. */
	assert_int_equal(
		prepare("base", NULL, "t", &fresh, &log, "p1.patch", NULL), 0);
	assert_int_equal(fresh, 1);
	assert_string_equal(read_text("t/src/kernel/sched/fair.c"),
			    "int fair = 1;\n");
	assert_string_equal(read_text("base/kernel/sched/fair.c"),
			    "int fair;\n");
	st = stat_of("t/src/kernel/sched/core.c");
	assert_int_equal(st.st_ino, base_core.st_ino);
	assert_non_null(strstr(log.buf, "changed: kernel/sched/fair.c"));
	age("t/src/kernel/sched/fair.c");
	old = stat_of("t/src/kernel/sched/fair.c").st_mtime;

	/* Prefix 2: only core.c is written; fair.c keeps its mtime (make
	 * would otherwise rebuild its object for nothing). */
	assert_int_equal(prepare("base", NULL, "t", &fresh, &log, "p1.patch",
				 "p2.patch", NULL),
			 0);
	assert_int_equal(fresh, 0);
	assert_string_equal(read_text("t/src/kernel/sched/core.c"),
			    "int core = 2;\n");
	assert_string_equal(read_text("base/kernel/sched/core.c"),
			    "int core;\n");
	assert_int_equal(stat_of("base/kernel/sched/core.c").st_ino,
			 base_core.st_ino);
	assert_int_equal(stat_of("t/src/kernel/sched/fair.c").st_mtime, old);
	assert_non_null(strstr(log.buf, "changed: kernel/sched/core.c"));
	assert_null(strstr(log.buf, "changed: kernel/sched/fair.c"));
	assert_non_null(strstr(log.buf, "2 file(s) touched by the series, "
					"1 rewritten, 0 removed"));

	/* Prefix 3 adds a file; back to prefix 1 removes it and restores
	 * core.c to the base's bytes, fair.c still untouched. */
	assert_int_equal(prepare("base", NULL, "t", &fresh, &log, "p1.patch",
				 "p2.patch", "p3.patch", NULL),
			 0);
	assert_string_equal(read_text("t/src/kernel/sched/new.c"),
			    "int added;\n");
	assert_int_equal(
		prepare("base", NULL, "t", &fresh, &log, "p1.patch", NULL), 0);
	assert_string_equal(read_text("t/src/kernel/sched/new.c"), "(none)");
	assert_string_equal(read_text("t/src/kernel/sched/core.c"),
			    "int core;\n");
	assert_string_equal(read_text("t/src/kernel/sched/fair.c"),
			    "int fair = 1;\n");
	assert_int_equal(stat_of("t/src/kernel/sched/fair.c").st_mtime, old);
	assert_non_null(strstr(log.buf, "1 removed"));

	/* The base alone: every file the base's again. */
	assert_int_equal(prepare("base", NULL, "t", &fresh, &log, NULL), 0);
	assert_string_equal(read_text("t/src/kernel/sched/fair.c"),
			    "int fair;\n");
	assert_string_equal(read_text("base/kernel/sched/fair.c"),
			    "int fair;\n");
	strbuf_release(&log);
}

static void test_killed_build(void **state)
{
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	struct timespec past[2] = { { .tv_nsec = UTIME_OMIT },
				    { .tv_sec = 0 } };
	int fresh;

	(void)state;
	assert_int_equal(
		prepare("base", NULL, "k", &fresh, &log, "p1.patch", NULL), 0);
	write_text("k/out/kernel/sched/core.o", "old object\n");
	age("k/out/kernel/sched/core.o");
	/* make starts (the marker), writes .config and half an object, and
	 * is killed. */
	assert_int_equal(build_tree_mark(path_in("k"), 1, &err), 0);
	past[1].tv_sec = time(NULL) - 60;
	assert_int_equal(utimensat(AT_FDCWD,
				   path_in("k/out/.schedfarm-building"), past,
				   0),
			 0);
	write_text("k/out/.config", "CONFIG_X=y\n");
	write_text("k/out/kernel/sched/fair.o", "half written\n");

	assert_int_equal(
		prepare("base", NULL, "k", &fresh, &log, "p1.patch", NULL), 0);
	assert_non_null(strstr(log.buf, "the last build in this tree was "
					"killed"));
	assert_string_equal(read_text("k/out/kernel/sched/fair.o"), "(none)");
	assert_string_equal(read_text("k/out/.config"), "CONFIG_X=y\n");
	assert_string_equal(read_text("k/out/kernel/sched/core.o"),
			    "old object\n");

	/* A build that ended leaves nothing for the next one to clean. */
	assert_int_equal(build_tree_mark(path_in("k"), 0, &err), 0);
	write_text("k/out/kernel/sched/fair.o", "whole\n");
	assert_int_equal(
		prepare("base", NULL, "k", &fresh, &log, "p1.patch", NULL), 0);
	assert_null(strstr(log.buf, "killed"));
	assert_string_equal(read_text("k/out/kernel/sched/fair.o"), "whole\n");
	strbuf_release(&log);
	strbuf_release(&err);
}

static void test_git_commits(void **state)
{
	struct strbuf c1 = STRBUF_INIT, c2 = STRBUF_INIT, c3 = STRBUF_INIT,
		      log = STRBUF_INIT;
	const char *init[] = { "init", "-q", ".", NULL };
	struct stat fair, st;
	int fresh = -1;

	(void)state;
	write_text("repo/kernel/sched/fair.c", "int fair;\n");
	write_text("repo/kernel/sched/core.c", "int core;\n");
	git(init, NULL);
	commit_all("one", &c1);
	write_text("repo/kernel/sched/core.c", "int core = 2;\n");
	commit_all("two", &c2);
	write_text("repo/kernel/sched/new.c", "int added;\n");
	commit_all("three", &c3);

	/* The first commit: a worktree of the repository. */
	assert_int_equal(prepare("repo", c1.buf, "g", &fresh, &log, NULL), 0);
	assert_int_equal(fresh, 1);
	assert_string_equal(read_text("g/src/kernel/sched/core.c"),
			    "int core;\n");
	assert_string_equal(read_text("g/src/kernel/sched/new.c"), "(none)");
	/* git's index knows fair.c's stat: not aged, but compared by inode
	 * and nanosecond mtime after a pause a rewrite could not hide in. */
	fair = stat_of("g/src/kernel/sched/fair.c");
	{
		struct timespec pause = { .tv_nsec = 50 * 1000 * 1000 };

		nanosleep(&pause, NULL);
	}
	/* Something a step's patch or build left in the sources. */
	write_text("g/src/stray.c", "x\n");

	/* The third commit: checkout writes what differs, clean drops the
	 * stray file, fair.c keeps its mtime. */
	assert_int_equal(prepare("repo", c3.buf, "g", &fresh, &log, NULL), 0);
	assert_int_equal(fresh, 0);
	assert_string_equal(read_text("g/src/kernel/sched/core.c"),
			    "int core = 2;\n");
	assert_string_equal(read_text("g/src/kernel/sched/new.c"),
			    "int added;\n");
	assert_string_equal(read_text("g/src/stray.c"), "(none)");
	st = stat_of("g/src/kernel/sched/fair.c");
	assert_int_equal(st.st_ino, fair.st_ino);
	assert_int_equal(st.st_mtim.tv_sec, fair.st_mtim.tv_sec);
	assert_int_equal(st.st_mtim.tv_nsec, fair.st_mtim.tv_nsec);

	/* The middle one, with a patch on top: applied in the worktree,
	 * and gone again at the next step. */
	assert_int_equal(
		prepare("repo", c2.buf, "g", &fresh, &log, "p1.patch", NULL),
		0);
	assert_string_equal(read_text("g/src/kernel/sched/new.c"), "(none)");
	assert_string_equal(read_text("g/src/kernel/sched/fair.c"),
			    "int fair = 1;\n");
	assert_int_equal(prepare("repo", c2.buf, "g", &fresh, &log, NULL), 0);
	assert_string_equal(read_text("g/src/kernel/sched/fair.c"),
			    "int fair;\n");
	/* The repository's own checkout is never touched. */
	assert_string_equal(read_text("repo/kernel/sched/new.c"),
			    "int added;\n");
	strbuf_release(&c1);
	strbuf_release(&c2);
	strbuf_release(&c3);
	strbuf_release(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefixes_grow_and_shrink),
		cmocka_unit_test(test_killed_build),
		cmocka_unit_test(test_git_commits),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
