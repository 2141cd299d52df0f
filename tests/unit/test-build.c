/*
 * test-build.c - the kernel build cache key of lab/build.c for git bases:
 * a build is cached by (revision, series, config), so two names of one
 * commit, a worktree of the repository at it and a bare mirror of it give
 * the same key, and another commit, another series or another config a
 * different one.  A small repository made here with git stands in for a
 * kernel tree: the key never reads the tree, only the commit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/build.h"
#include "run-command.h"
#include "unit-files.h"

static char dir[] = "/tmp/test-build.XXXXXX";

static void git(const char *const *args)
{
	unit_git(dir, args, NULL);
}

static void write_text(const char *name, const char *text)
{
	unit_write(dir, name, text);
}

/* The cache key of (base, ref, patch, fragment); NULL when it fails. */
static char *key_of(const char *base, const char *ref, const char *patch,
		    const char *fragment)
{
	struct kernel_build_spec spec;
	struct kernel_build_result res;
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	char *key = NULL;

	kernel_build_spec_init(&spec);
	spec.base = base;
	spec.ref = ref;
	if (patch) {
		strbuf_addf(&path, "%s/%s", dir, patch);
		strvec_push(&spec.patches, path.buf);
	}
	if (fragment) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, fragment);
		strvec_push(&spec.fragments, path.buf);
	}
	kernel_build_result_init(&res);
	if (kernel_build_key(&spec, &res, &err) == 0)
		key = strdup(res.cache_key);
	kernel_build_result_release(&res);
	kernel_build_spec_release(&spec);
	strbuf_release(&err);
	strbuf_release(&path);
	return key;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	{
		const char *a[] = { "init", "-q", "repo", NULL };
		git(a);
	}
	write_text("repo/Makefile", "# a tree\n");
	{
		const char *a[] = { "-C", "repo", "add", "-A", NULL };
		const char *b[] = { "-C", "repo", "commit", "-q",
				    "-m", "one",  NULL };
		const char *c[] = { "-C", "repo", "tag", "v1", NULL };
		git(a);
		git(b);
		git(c);
	}
	write_text("repo/kernel.c", "int x;\n");
	{
		const char *a[] = { "-C", "repo", "add", "-A", NULL };
		const char *b[] = { "-C", "repo", "commit", "-q",
				    "-m", "two",  NULL };
		const char *c[] = { "-C",    "repo", "worktree",
				    "add",   "-q",   "--detach",
				    "../wt", "v1",   NULL };
		const char *d[] = { "clone", "-q",	 "--bare",
				    "repo",  "bare.git", NULL };
		git(a);
		git(b);
		git(c);
		git(d);
	}
	write_text("fix.patch", "--- a/kernel.c\n+++ b/kernel.c\n@@ -1 +1 @@\n"
				"-int x;\n+int y;\n");
	write_text("frag.config", "CONFIG_SCHEDSTATS=y\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

static char *path_in(const char *name)
{
	return unit_path(dir, name);
}

static void test_revision_names_and_trees(void **state)
{
	char *tag, *sha, *head, *wt, *bare;
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-C", path_in("repo"), "rev-parse",
		     "v1^{commit}", NULL);
	cp.capture_out = 1;
	assert_int_equal(run_command(&cp, &err), 0);
	strbuf_trim(&cp.out);

	tag = key_of(path_in("repo"), "v1", NULL, NULL);
	sha = key_of(path_in("repo"), cp.out.buf, NULL, NULL);
	head = key_of(path_in("repo"), NULL, NULL, NULL);
	wt = key_of(path_in("wt"), NULL, NULL, NULL);
	bare = key_of(path_in("bare.git"), "v1", NULL, NULL);
	assert_non_null(tag);
	assert_non_null(head);
	/* One revision, however it is named or reached: one build. */
	assert_string_equal(tag, sha);
	assert_string_equal(tag, wt);
	assert_string_equal(tag, bare);
	/* Another revision: another build. */
	assert_string_not_equal(tag, head);
	free(tag);
	free(sha);
	free(head);
	free(wt);
	free(bare);
	child_process_clear(&cp);
	strbuf_release(&err);
}

static void test_series_and_config(void **state)
{
	char *plain = key_of(path_in("repo"), "v1", NULL, NULL);
	char *patched = key_of(path_in("repo"), "v1", "fix.patch", NULL);
	char *configured = key_of(path_in("repo"), "v1", NULL, "frag.config");

	(void)state;
	assert_non_null(plain);
	assert_non_null(patched);
	assert_non_null(configured);
	assert_string_not_equal(plain, patched);
	assert_string_not_equal(plain, configured);
	assert_string_not_equal(patched, configured);
	free(plain);
	free(patched);
	free(configured);
}

static void test_bad_refs(void **state)
{
	(void)state;
	/* Not a commit of the repository; a ref on a plain folder. */
	assert_null(key_of(path_in("repo"), "no-such-tag", NULL, NULL));
	write_text("plain.txt", "x\n");
	assert_null(key_of(dir, "v1", NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_revision_names_and_trees),
		cmocka_unit_test(test_series_and_config),
		cmocka_unit_test(test_bad_refs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
