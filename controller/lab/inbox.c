/*
 * inbox.c - a public-inbox archive mirrored with git; see inbox.h.
 *
 * A v2 archive is a set of epochs, git/0.git, git/1.git, ...: one commit
 * per message, the message in the file `m` of that commit's tree.  Each
 * is mirrored with `git clone --mirror` and then `git fetch`, so an
 * http(s) archive (lore.kernel.org) and a local folder are read the same
 * way.  A new epoch is noticed by trying to clone the one after the
 * newest: an archive without it makes the clone fail, which is not an
 * error here.
 */
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "lab/inbox.h"
#include "run-command.h"
#include "banned.h"

/* Generous: a first clone of a large epoch is a few GiB. */
#define GIT_TIMEOUT_MS (60 * 60 * 1000)

static void epoch_dir(struct strbuf *sb, const char *dir, int epoch)
{
	strbuf_addf(sb, "%s/git/%d.git", dir, epoch);
}

static int run_git(struct strvec *args, struct strbuf *out, struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_push(&cp.args, "git");
	strvec_pushv(&cp.args, (const char *const *)args->v);
	/* Never ask anyone anything, and read no user's settings. */
	strvec_push(&cp.env, "GIT_TERMINAL_PROMPT=0");
	strvec_push(&cp.env, "GIT_CONFIG_NOSYSTEM=1");
	cp.capture_out = 1;
	cp.capture_err = 1;
	cp.timeout_ms = GIT_TIMEOUT_MS;
	r = run_command(&cp, err);
	if (r < 0 && cp.err.len) {
		strbuf_rtrim(&cp.err);
		strbuf_addf(err, ": %s", cp.err.buf);
	}
	if (r == 0 && out)
		strbuf_addbuf(out, &cp.out);
	child_process_clear(&cp);
	return r;
}

int inbox_sync_epoch(const char *dir, const char *inbox, int epoch,
		     struct strbuf *ret_why, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, url = STRBUF_INIT, why = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	struct stat st;
	int r;

	epoch_dir(&path, dir, epoch);
	if (stat(path.buf, &st) == 0) {
		strvec_pushl(&args, "--git-dir", path.buf, "fetch", "--quiet",
			     "--prune", "origin", (char *)NULL);
		r = run_git(&args, NULL, err) < 0 ? -1 : 1;
		if (r < 0)
			strbuf_addf(err, " (fetching %s)", path.buf);
		goto out;
	}
	strbuf_addstr(&url, inbox);
	while (url.len > 1 && url.buf[url.len - 1] == '/')
		strbuf_setlen(&url, url.len - 1);
	strbuf_addf(&url, "/git/%d.git", epoch);
	strbuf_addf(&why, "%s/git", dir);
	if (mkdir_p(why.buf, 0755, err) < 0) {
		r = -1;
		goto out;
	}
	strbuf_reset(&why);
	strvec_pushl(&args, "clone", "--quiet", "--mirror", url.buf, path.buf,
		     (char *)NULL);
	r = run_git(&args, NULL, &why) < 0 ? 0 : 1;
	if (!r) {
		/* Why, for a caller to whom this epoch had to be there. */
		if (ret_why)
			strbuf_addbuf(ret_why, &why);
		strbuf_reset(&why);
		remove_tree(path.buf, &why);
	}
out:
	strbuf_release(&path);
	strbuf_release(&url);
	strbuf_release(&why);
	strvec_clear(&args);
	return r;
}

int inbox_commits_after(const char *dir, int epoch, const char *after,
			struct strvec *ret, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, range = STRBUF_INIT,
		      out = STRBUF_INIT;
	struct strvec args = STRVEC_INIT, lines = STRVEC_INIT;
	int r;

	epoch_dir(&path, dir, epoch);
	if (after && *after)
		strbuf_addf(&range, "%s..HEAD", after);
	else
		strbuf_addstr(&range, "HEAD");
	strvec_pushl(&args, "--git-dir", path.buf, "rev-list", "--reverse",
		     "--first-parent", range.buf, (char *)NULL);
	r = run_git(&args, &out, err);
	if (r == 0) {
		strvec_split(&lines, out.buf, '\n');
		for (size_t i = 0; i < lines.nr; i++)
			if (*lines.v[i])
				strvec_push(ret, lines.v[i]);
	}
	strbuf_release(&path);
	strbuf_release(&range);
	strbuf_release(&out);
	strvec_clear(&args);
	strvec_clear(&lines);
	return r;
}

int inbox_head(const char *dir, int epoch, struct strbuf *ret,
	       struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	int r;

	strbuf_reset(ret);
	epoch_dir(&path, dir, epoch);
	strvec_pushl(&args, "--git-dir", path.buf, "rev-parse", "--verify",
		     "HEAD^{commit}", (char *)NULL);
	r = run_git(&args, ret, err);
	strbuf_rtrim(ret);
	strbuf_release(&path);
	strvec_clear(&args);
	return r;
}

int inbox_read_message(const char *dir, int epoch, const char *commit,
		       struct strbuf *ret, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, obj = STRBUF_INIT, why = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	int r;

	strbuf_reset(ret);
	epoch_dir(&path, dir, epoch);
	strbuf_addf(&obj, "%s:m", commit);
	strvec_pushl(&args, "--git-dir", path.buf, "cat-file", "blob", obj.buf,
		     (char *)NULL);
	r = run_git(&args, ret, &why);
	if (r < 0) {
		/* Whether the commit is there at all tells a deletion (no
		 * `m`) from a broken mirror. */
		struct strbuf ignored = STRBUF_INIT;

		strvec_clear(&args);
		strvec_pushl(&args, "--git-dir", path.buf, "cat-file", "-e",
			     commit, (char *)NULL);
		r = run_git(&args, NULL, &ignored);
		strbuf_release(&ignored);
		if (r == 0) {
			r = 0;
		} else {
			strbuf_addbuf(err, &why);
			r = -1;
		}
	} else {
		r = 1;
	}
	strbuf_release(&path);
	strbuf_release(&obj);
	strbuf_release(&why);
	strvec_clear(&args);
	return r;
}
