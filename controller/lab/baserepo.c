/*
 * baserepo.c - a list's base repository; see baserepo.h.
 *
 * A series applies to a base when `git apply --cached` takes each of its
 * patches in turn onto an index read from the base's tree: the index is
 * a scratch file (GIT_INDEX_FILE), so a bare repository will do and the
 * repository is never written.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "lab/baserepo.h"
#include "run-command.h"
#include "banned.h"

#define GIT_TIMEOUT_MS (5 * 60 * 1000)

/* git -C repo ARGS with index as its index (NULL: the default); the
 * stdin text in (NULL: none).  0, or -1 with git's words in why. */
static int git_in(const char *repo, const char *index, const char *const *args,
		  const char *in, struct strbuf *why)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-C", repo, (char *)NULL);
	strvec_pushv(&cp.args, args);
	strvec_push(&cp.env, "GIT_TERMINAL_PROMPT=0");
	strvec_push(&cp.env, "GIT_CONFIG_NOSYSTEM=1");
	if (index)
		strvec_pushf(&cp.env, "GIT_INDEX_FILE=%s", index);
	if (in) {
		cp.stdin_data = in;
		cp.stdin_len = strlen(in);
	}
	cp.capture_out = 1;
	cp.capture_err = 1;
	cp.timeout_ms = GIT_TIMEOUT_MS;
	r = run_command(&cp, why);
	if (r < 0 && cp.err.len) {
		strbuf_rtrim(&cp.err);
		strbuf_addf(why, ": %s", cp.err.buf);
	}
	child_process_clear(&cp);
	return r;
}

int baserepo_has(const char *repo, const char *rev)
{
	struct strbuf why = STRBUF_INIT, obj = STRBUF_INIT;
	const char *args[] = { "cat-file", "-e", NULL, NULL };
	int r;

	strbuf_addf(&obj, "%s^{commit}", rev);
	args[2] = obj.buf;
	r = git_in(repo, NULL, args, NULL, &why);
	strbuf_release(&why);
	strbuf_release(&obj);
	return r == 0;
}

int baserepo_applies(const char *repo, const char *rev,
		     const struct strvec *patches, struct strbuf *why,
		     struct strbuf *err)
{
	char tmpl[] = "/tmp/schedfarm-index.XXXXXX";
	struct strbuf index = STRBUF_INIT;
	const char *read_tree[] = { "read-tree", rev, NULL };
	const char *apply[] = { "apply", "--cached", "-", NULL };
	int r = 1;

	if (!mkdtemp(tmpl)) {
		strbuf_addstr(err, "cannot make a scratch folder in /tmp");
		return -1;
	}
	strbuf_addf(&index, "%s/index", tmpl);
	if (git_in(repo, index.buf, read_tree, NULL, why) < 0)
		r = 0;
	for (size_t i = 0; r == 1 && i < patches->nr; i++) {
		if (git_in(repo, index.buf, apply, patches->v[i], why) < 0) {
			strbuf_addf(why, " (patch %zu of %zu)", i + 1,
				    patches->nr);
			r = 0;
		}
	}
	remove_tree(tmpl, err);
	strbuf_reset(err);
	strbuf_release(&index);
	return r;
}
