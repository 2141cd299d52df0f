/*
 * test-home.c - controller/home.c: where the state folder is (--home over
 * SCHEDFARM_HOME over the default), and the folders handed out in it:
 * mode 0700 whatever the umask, the kernel cache searchable, and a link,
 * a group- or world-writable folder or another user's folder refused with
 * the command that fixes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "home.h"
#include "run-command.h"

/* A scratch folder per test (the state folder goes below it). */
static int setup(void **state)
{
	const char *t = getenv("TMPDIR");
	char *dir = xstrfmt("%s/schedfarm-test.XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	unsetenv("SCHEDFARM_HOME");
	unsetenv("SCHEDFARM_KERNEL_CACHE");
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

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static void test_resolve_order(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *home = NULL, *cwd = getcwd(NULL, 0), *want;

	(void)state;
	setenv("SCHEDFARM_HOME", "/from/env//", 1);
	assert_int_equal(home_resolve("/from/cli/", &home, &err), 0);
	assert_string_equal(home, "/from/cli");
	free(home);
	assert_int_equal(home_resolve(NULL, &home, &err), 0);
	assert_string_equal(home, "/from/env");
	free(home);
	assert_int_equal(home_resolve("", &home, &err), 0);
	assert_string_equal(home, "/from/env");
	free(home);
	/* Relative: made absolute against the cwd, links not resolved. */
	assert_int_equal(home_resolve("rel/farm", &home, &err), 0);
	want = xstrfmt("%s/rel/farm", cwd);
	assert_string_equal(home, want);
	free(home);
	free(want);
	unsetenv("SCHEDFARM_HOME");
	assert_int_equal(home_resolve(NULL, &home, &err), 0);
	if (geteuid() == 0)
		assert_string_equal(home, "/var/lib/schedfarm");
	else
		assert_non_null(strstr(home, "/schedfarm"));
	free(home);
	free(cwd);
	strbuf_release(&err);
}

/* Made 0700 however wide or narrow the umask; the state folder too. */
static void test_subdir_modes(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *home = xstrfmt("%s/a/home", (char *)*state), *dir = NULL;
	char *parent = xstrfmt("%s/a", (char *)*state);

	umask(0);
	assert_int_equal(home_subdir(home, HOME_CONSOLE, &dir, &err), 0);
	assert_int_equal(mode_of(home), 0700);
	assert_int_equal(mode_of(dir), 0700);
	/* Folders above the state folder are passed through by others. */
	assert_int_equal(mode_of(parent), 0755);
	free(dir);
	umask(077);
	assert_int_equal(home_subdir(home, HOME_LOCKS, &dir, &err), 0);
	assert_int_equal(mode_of(dir), 0700);
	assert_non_null(strstr(dir, "/a/home/locks"));
	/* Asking again is fine and changes nothing. */
	free(dir);
	assert_int_equal(home_subdir(home, HOME_LOCKS, &dir, &err), 0);
	assert_int_equal(err.len, 0);
	free(dir);
	free(home);
	free(parent);
	strbuf_release(&err);
}

static void test_subdir_refuses_a_link(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *home = xstrfmt("%s/home", (char *)*state), *dir = NULL;
	char *elsewhere = xstrfmt("%s/elsewhere", (char *)*state);
	char *link = xstrfmt("%s/console", home);

	assert_int_equal(mkdir(home, 0700), 0);
	assert_int_equal(mkdir(elsewhere, 0700), 0);
	assert_int_equal(symlink(elsewhere, link), 0);
	assert_int_equal(home_subdir(home, HOME_CONSOLE, &dir, &err), -1);
	assert_null(dir);
	assert_non_null(strstr(err.buf, "is a symbolic link"));
	assert_non_null(strstr(err.buf, "fix: rm"));
	free(home);
	free(elsewhere);
	free(link);
	strbuf_release(&err);
}

static void test_refuses_writable_by_others(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *home = xstrfmt("%s/home", (char *)*state), *dir = NULL;
	char *run = xstrfmt("%s/run", home);

	assert_int_equal(mkdir(home, 0700), 0);
	assert_int_equal(mkdir(run, 0700), 0);
	assert_int_equal(chmod(run, 0770), 0);
	assert_int_equal(home_subdir(home, HOME_RUN, &dir, &err), -1);
	assert_non_null(strstr(err.buf, "can be written by its group"));
	assert_non_null(strstr(err.buf, "fix: chmod go-w"));
	strbuf_reset(&err);
	assert_int_equal(chmod(run, 0700), 0);
	assert_int_equal(chmod(home, 0757), 0);
	assert_int_equal(home_subdir(home, HOME_RUN, &dir, &err), -1);
	assert_non_null(strstr(err.buf, "can be written by anyone"));
	assert_int_equal(chmod(home, 0700), 0);
	strbuf_reset(&err);
	assert_int_equal(home_subdir(home, HOME_RUN, &dir, &err), 0);
	free(dir);
	free(home);
	free(run);
	strbuf_release(&err);
}

static void test_refuses_another_users_folder(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *home = xstrfmt("%s/home", (char *)*state), *dir = NULL;
	char *rep = xstrfmt("%s/report", home);
	struct passwd *nobody = getpwnam("nobody");

	if (geteuid() != 0 || !nobody) {
		skip();
		return;
	}
	assert_int_equal(mkdir(home, 0700), 0);
	assert_int_equal(mkdir(rep, 0700), 0);
	assert_int_equal(chown(rep, nobody->pw_uid, nobody->pw_gid), 0);
	assert_int_equal(home_subdir(home, HOME_REPORT, &dir, &err), -1);
	assert_non_null(strstr(err.buf, "belongs to nobody"));
	assert_non_null(strstr(err.buf, "fix: chown 0"));
	free(home);
	free(rep);
	strbuf_release(&err);
}

/* The kernel cache is searchable (a libvirt host's qemu reads from it),
 * and SCHEDFARM_KERNEL_CACHE puts it elsewhere. */
static void test_kernel_cache(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *home = xstrfmt("%s/home", (char *)*state), *dir = NULL;
	char *shared = xstrfmt("%s/shared-cache", (char *)*state);

	assert_int_equal(home_kernel_cache(home, NULL, &dir, &err), 0);
	assert_int_equal(mode_of(dir), 0711);
	assert_int_equal(mode_of(home), 0701);
	assert_non_null(strstr(dir, "/home/kernels"));
	free(dir);
	setenv("SCHEDFARM_KERNEL_CACHE", shared, 1);
	assert_int_equal(home_kernel_cache(home, NULL, &dir, &err), 0);
	assert_string_equal(dir, shared);
	assert_int_equal(mode_of(shared), 0711);
	unsetenv("SCHEDFARM_KERNEL_CACHE");
	free(dir);
	free(home);
	free(shared);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_resolve_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_subdir_modes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_subdir_refuses_a_link,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_writable_by_others,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_refuses_another_users_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_cache, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
