/*
 * unit-files.h - what the unit tests that work on files share: paths in
 * a scratch folder, files written there, git run there with no user
 * configuration, the folder removed.  Header only (static inline), since
 * each unit test is built from its one source file; include it after
 * cmocka.h.
 */
#ifndef SCHEDFARM_UNIT_FILES_H
#define SCHEDFARM_UNIT_FILES_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "run-command.h"

/*
 * Read FOLDER/NAME of the source tree (FOLDER relative to its top, e.g.
 * "tests/data/agent") into out: from the working folder, else from 3
 * folders above the test's binary (build/tests/unit/).  Fails the test
 * when neither can be read.
 */
static inline void unit_tree_data(const char *folder, const char *name,
				  struct strbuf *out)
{
	struct strbuf p = STRBUF_INIT;
	char exe[PATH_MAX];
	ssize_t n;

	strbuf_reset(out);
	strbuf_addf(&p, "%s/%s", folder, name);
	if (strbuf_read_file(out, p.buf, 1 << 20) >= 0) {
		strbuf_release(&p);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	for (int up = 0; up < 4; up++)
		*strrchr(exe, '/') = '\0';
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/%s/%s", exe, folder, name);
	if (strbuf_read_file(out, p.buf, 1 << 20) < 0)
		fail_msg("cannot read %s", p.buf);
	strbuf_release(&p);
}

/* dir/name in one of 8 rotating buffers (so a call can use a few). */
static inline char *unit_path(const char *dir, const char *name)
{
	static char buf[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* Write text to dir/name, making the folders on its way. */
static inline void unit_write(const char *dir, const char *name,
			      const char *text)
{
	char *p = unit_path(dir, name);
	char *slash = strrchr(p, '/');
	struct strbuf err = STRBUF_INIT;
	FILE *f;

	*slash = '\0';
	assert_int_equal(mkdir_p(p, 0755, &err), 0);
	*slash = '/';
	strbuf_release(&err);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * git ARGS in the folder in, with a fixed identity and neither global
 * nor system configuration; its output, trimmed, in out when given.  A
 * failure fails the test with git's stderr.
 */
static inline void unit_git(const char *in, const char *const *args,
			    struct strbuf *out)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-c", "user.name=t", "-c",
		     "user.email=t@t.invalid", NULL);
	strvec_pushv(&cp.args, args);
	cp.dir = in;
	cp.capture_out = cp.capture_err = 1;
	strvec_push(&cp.env, "GIT_CONFIG_GLOBAL=/dev/null");
	strvec_push(&cp.env, "GIT_CONFIG_NOSYSTEM=1");
	if (run_command(&cp, &err) < 0)
		fail_msg("git %s: %s: %s", args[0], err.buf, cp.err.buf);
	if (out) {
		strbuf_reset(out);
		strbuf_addbuf(out, &cp.out);
		strbuf_trim(out);
	}
	child_process_clear(&cp);
	strbuf_release(&err);
}

/* rm -rf dir (a group teardown): 0. */
static inline int unit_rm_rf(const char *dir)
{
	const char *argv[] = { "rm", "-rf", dir, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	run_capture(argv, 60000, &out, &err);
	strbuf_release(&out);
	strbuf_release(&err);
	return 0;
}

#endif
