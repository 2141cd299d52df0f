/*
 * test-fs.c - common/fs: mkdir_p and its modes, whole-file writes that
 * never follow a planted link (neither at the target nor at the fixed
 * temporary name the farm used to write through), write-if-changed,
 * copies, and lock files that refuse a link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "run-command.h"

/* A scratch folder per test, removed after it. */
static int setup(void **state)
{
	const char *t = getenv("TMPDIR");
	char *dir = xstrfmt("%s/schedfarm-test.XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	umask(022);
	return 0;
}

static int teardown(void **state)
{
	const char *argv[] = { "rm", "-rf", "--", *state, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	run_capture(argv, 10000, &out, &err);
	strbuf_release(&out);
	strbuf_release(&err);
	free(*state);
	return 0;
}

static char *path_in(void **state, const char *name)
{
	return xstrfmt("%s/%s", (const char *)*state, name);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static void assert_file_holds(const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(strbuf_read_file(&sb, path, 1 << 20), 0);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_mkdir_p_modes(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *a = path_in(state, "a"), *abc = path_in(state, "a/b/c/");
	char *ab = path_in(state, "a/b");

	assert_int_equal(mkdir_p(abc, 0700, &err), 0);
	assert_int_equal(mode_of(a), 0700);
	assert_int_equal(mode_of(ab), 0700);
	/* The umask applies, as for mkdir(2). */
	free(abc);
	abc = path_in(state, "x/y");
	assert_int_equal(mkdir_p(abc, 0777, &err), 0);
	assert_int_equal(mode_of(abc), 0755);
	/* A folder that exists keeps its mode; that is not an error. */
	assert_int_equal(chmod(a, 0711), 0);
	assert_int_equal(mkdir_p(ab, 0700, &err), 0);
	assert_int_equal(mode_of(a), 0711);
	assert_int_equal(err.len, 0);
	free(a);
	free(ab);
	free(abc);
	strbuf_release(&err);
}

static void test_mkdir_p_file_in_the_way(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *f = path_in(state, "f"), *below = path_in(state, "f/g");

	assert_int_equal(write_file_atomic(f, "x", 1, 0600, 0, &err), 0);
	assert_int_equal(mkdir_p(f, 0700, &err), -1);
	assert_non_null(strstr(err.buf, "a file is in the way"));
	strbuf_reset(&err);
	assert_int_equal(mkdir_p(below, 0700, &err), -1);
	assert_non_null(strstr(err.buf, "cannot create"));
	strbuf_reset(&err);
	assert_int_equal(mkdir_p("", 0700, &err), -1);
	free(f);
	free(below);
	strbuf_release(&err);
}

static void test_write_atomic(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *p = path_in(state, "result");

	assert_int_equal(write_file_atomic(p, "one\n", 4, 0640, FS_SYNC, &err),
			 0);
	assert_file_holds(p, "one\n");
	assert_int_equal(mode_of(p), 0640);
	/* Replaced whole, with the mode asked for (not the old one). */
	assert_int_equal(write_file_atomic(p, "two", 3, 0600, 0, &err), 0);
	assert_file_holds(p, "two");
	assert_int_equal(mode_of(p), 0600);
	/* No temporary file is left behind. */
	assert_int_equal(entries(*state), 1);
	free(p);
	strbuf_release(&err);
}

/*
 * The old writers opened PATH.tmp with O_CREAT|O_TRUNC: a link planted
 * there made them write through it.  Now neither a link at that name nor
 * a link at the target itself is followed: the victim stays untouched and
 * the target becomes a regular file.
 */
static void test_write_refuses_planted_links(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *victim = path_in(state, "victim"), *p = path_in(state, "cfg");
	char *tmp = path_in(state, "cfg.tmp");
	struct stat st;

	assert_int_equal(
		write_file_atomic(victim, "precious", 8, 0600, 0, &err), 0);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(write_file_atomic(p, "new", 3, 0644, 0, &err), 0);
	assert_file_holds(victim, "precious");
	assert_file_holds(p, "new");
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink(victim, p), 0);
	assert_int_equal(write_file_atomic(p, "newer", 5, 0644, 0, &err), 0);
	assert_file_holds(victim, "precious");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_file_holds(p, "newer");
	free(victim);
	free(p);
	free(tmp);
	strbuf_release(&err);
}

static void test_write_into_missing_folder(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *p = path_in(state, "no/such/file");

	assert_int_equal(write_file_atomic(p, "x", 1, 0600, 0, &err), -1);
	assert_non_null(strstr(err.buf, "cannot create a temporary file"));
	free(p);
	strbuf_release(&err);
}

static void test_write_if_changed(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *p = path_in(state, "page.html"), *l = path_in(state, "l.html");
	struct stat a, b;

	assert_int_equal(write_file_if_changed(p, "<p>", 3, 0644, 0, &err), 1);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(write_file_if_changed(p, "<p>", 3, 0644, 0, &err), 0);
	assert_int_equal(stat(p, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_int_equal(write_file_if_changed(p, "<q>", 3, 0644, 0, &err), 1);
	assert_file_holds(p, "<q>");
	/* A link holding the same bytes is not "unchanged": it is replaced. */
	assert_int_equal(symlink(p, l), 0);
	assert_int_equal(write_file_if_changed(l, "<q>", 3, 0644, 0, &err), 1);
	assert_int_equal(lstat(l, &a), 0);
	assert_true(S_ISREG(a.st_mode));
	free(p);
	free(l);
	strbuf_release(&err);
}

static void test_copy_atomic(void **state)
{
	struct strbuf err = STRBUF_INIT, big = STRBUF_INIT, got = STRBUF_INIT;
	char *src = path_in(state, "src"), *dst = path_in(state, "dst");

	for (int i = 0; i < 20000; i++)
		strbuf_addf(&big, "line %d\n", i);
	assert_int_equal(
		write_file_atomic(src, big.buf, big.len, 0600, 0, &err), 0);
	assert_int_equal(copy_file_atomic(src, dst, 0644, FS_SYNC, &err), 0);
	assert_int_equal(strbuf_read_file(&got, dst, 1 << 24), 0);
	assert_int_equal(got.len, big.len);
	assert_memory_equal(got.buf, big.buf, big.len);
	assert_int_equal(mode_of(dst), 0644);
	free(src);
	src = path_in(state, "missing");
	assert_int_equal(copy_file_atomic(src, dst, 0644, 0, &err), -1);
	assert_non_null(strstr(err.buf, "cannot open"));
	free(src);
	free(dst);
	strbuf_release(&err);
	strbuf_release(&big);
	strbuf_release(&got);
}

static void test_lock_file(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *p = path_in(state, "bmc.lock"), *l = path_in(state, "link.lock");
	char *victim = path_in(state, "victim");
	int fd, fd2;

	fd = lock_file(p, &err);
	assert_true(fd >= 0);
	assert_int_equal(mode_of(p), 0600);
	/* Held: another open file description cannot take it. */
	fd2 = open(p, O_RDWR | O_CLOEXEC);
	assert_true(fd2 >= 0);
	assert_int_equal(flock(fd2, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	close(fd);
	assert_int_equal(flock(fd2, LOCK_EX | LOCK_NB), 0);
	close(fd2);

	assert_int_equal(symlink(victim, l), 0);
	assert_int_equal(lock_file(l, &err), -1);
	assert_non_null(strstr(err.buf, "symbolic link"));
	assert_int_equal(access(victim, F_OK), -1);
	free(p);
	free(l);
	free(victim);
	strbuf_release(&err);
}

/* remove_tree: a nested tree goes, a link in it is removed but what it
 * points at is kept, nothing there is success, and a file is removed. */
static void test_remove_tree(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *top = path_in(state, "tree"),
	     *deep = path_in(state, "tree/a/b/c");
	char *keep = path_in(state, "keep"), *kept = path_in(state, "keep/f");
	char *f = path_in(state, "tree/a/b/c/file");
	char *l = path_in(state, "tree/a/link"), *lone = path_in(state, "lone");

	assert_int_equal(mkdir_p(deep, 0755, &err), 0);
	assert_int_equal(mkdir_p(keep, 0755, &err), 0);
	assert_int_equal(write_file_atomic(f, "x", 1, 0600, 0, &err), 0);
	assert_int_equal(write_file_atomic(kept, "y", 1, 0600, 0, &err), 0);
	assert_int_equal(symlink(keep, l), 0);
	assert_int_equal(remove_tree(top, &err), 0);
	assert_int_equal(access(top, F_OK), -1);
	assert_int_equal(access(kept, F_OK), 0);
	assert_int_equal(remove_tree(top, &err), 0);
	assert_int_equal(write_file_atomic(lone, "z", 1, 0600, 0, &err), 0);
	assert_int_equal(remove_tree(lone, &err), 0);
	assert_int_equal(access(lone, F_OK), -1);
	assert_int_equal(err.len, 0);
	free(top);
	free(deep);
	free(keep);
	free(kept);
	free(f);
	free(l);
	free(lone);
	strbuf_release(&err);
}

/* write_all: every byte reaches a pipe; a closed pipe is -1. */
static void test_write_all(void **state)
{
	char buf[8] = { 0 };
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write_all(p[1], "abcdef", 6), 0);
	assert_int_equal(read(p[0], buf, sizeof(buf)), 6);
	assert_string_equal(buf, "abcdef");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(write_all(p[1], "x", 1), -1);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_p_modes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_p_file_in_the_way,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_write_refuses_planted_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_into_missing_folder,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_if_changed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copy_atomic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_remove_tree, setup,
						teardown),
		cmocka_unit_test(test_write_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
