/*
 * unit-files.h - what the unit tests that work on files share: paths in
 * a scratch folder, files written there, git run there with no user
 * configuration, the folder removed.  Header only (static inline), since
 * each unit test is built from its one source file; include it after
 * cmocka.h.
 */
#ifndef SCHEDFARM_UNIT_FILES_H
#define SCHEDFARM_UNIT_FILES_H

#include <stdio.h>
#include <string.h>

#include "fs.h"
#include "run-command.h"

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
