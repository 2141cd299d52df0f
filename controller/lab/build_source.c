/*
 * build_source.c - the source tree of a build: the base (a git repository,
 * a tarball unpacked once into the cache, a folder) made into the tree of
 * the build, and the series applied to it (git am or patch -p1, its
 * rejects logged); a git range for bisection.  See build-int.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "home.h"
#include "lab/build-int.h"
#include "lab/build.h"
#include "lab/sandbox.h"
#include "cleanup.h"
#include "fs.h"
#include "parse.h"
#include "run-command.h"
#include "time-util.h"
#include "banned.h"

/* The git commit of ref in repo. */
int build_git_commit(const char *repo, const char *ref, struct strbuf *ret,
		     struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-C", repo, "rev-parse", "--verify",
		     "--quiet", (char *)NULL);
	strvec_pushf(&cp.args, "%s^{commit}", ref ? ref : "HEAD");
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 60000;
	r = run_command(&cp, err);
	if (r < 0) {
		strbuf_reset(err);
		strbuf_addf(err, "%s is not a commit in %s", ref ? ref : "HEAD",
			    repo);
	} else {
		strbuf_trim(&cp.out);
		strbuf_addbuf(ret, &cp.out);
	}
	child_process_clear(&cp);
	return r;
}

/* The single top folder an unpacked tarball made under dir. */
static int single_subdir(const char *dir, struct strbuf *ret,
			 struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d) {
		strbuf_addf(err, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!n++)
			strbuf_addf(ret, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n != 1) {
		strbuf_addf(err,
			    "%s holds %d entries, expected one source tree",
			    dir, n);
		return -1;
	}
	return 0;
}

/* Unpack the tarball once into bases/SHA16 (atomically); ret = its tree. */
static int prepare_tarball_base(const struct kernel_build_spec *spec,
				const char *sha, struct strbuf *ret,
				struct strbuf *log, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT;
	struct child_process cp;
	int r = -1;

	strbuf_addf(&dir, "%s/bases", spec->cache_dir);
	if (mkdir_p(dir.buf, CACHE_DIR_MODE, err) < 0 ||
	    build_cache_owned(dir.buf, 1, err) < 0)
		goto out;
	strbuf_addf(&dir, "/%.16s", sha);
	if (build_is_dir(dir.buf)) {
		if (build_cache_owned(dir.buf, 1, err) == 0 &&
		    single_subdir(dir.buf, ret, err) == 0)
			r = build_cache_owned(ret->buf, 1, err);
		goto out;
	}
	strbuf_addf(&tmp, "%s.tmp.%ld", dir.buf, (long)getpid());
	if (mkdir_p(tmp.buf, CACHE_DIR_MODE, err) < 0)
		goto out;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "tar", "-xf", spec->base, "-C", tmp.buf,
		     (char *)NULL);
	r = build_run_logged(spec, &cp, log, err);
	child_process_clear(&cp);
	if (r < 0)
		goto out;
	if (rename(tmp.buf, dir.buf) < 0 && !build_is_dir(dir.buf)) {
		strbuf_addf(err, "cannot rename %s: %s", tmp.buf,
			    strerror(errno));
		r = -1;
		goto out;
	}
	r = single_subdir(dir.buf, ret, err);
out:
	strbuf_release(&dir);
	strbuf_release(&tmp);
	return r;
}

/* Make res->dir/src: a fresh tree of the base.  *ret_git: it is git. */
int build_prepare_tree(const struct kernel_build_spec *spec,
		       struct kernel_build_result *res, const char *src,
		       int *ret_git, struct strbuf *log, struct strbuf *err)
{
	struct strbuf pristine = STRBUF_INIT;
	struct child_process cp;
	int r = -1;

	*ret_git = 0;
	child_process_init(&cp);
	if (starts_with(res->base_id, "git:")) {
		strvec_pushl(&cp.args, "git", "-C", spec->base, "worktree",
			     "add", "--force", "--detach", src,
			     res->base_id + strlen("git:"), (char *)NULL);
		*ret_git = 1;
	} else {
		if (starts_with(res->base_id, "tarball:")) {
			if (prepare_tarball_base(
				    spec, res->base_id + strlen("tarball:"),
				    &pristine, log, err) < 0)
				goto out;
		} else {
			strbuf_addstr(&pristine, spec->base);
		}
		/* Hard links: patch replaces the files it changes by rename,
		 * and make writes only under O=, so the base stays pristine. */
		strvec_pushl(&cp.args, "cp", "-al", pristine.buf, src,
			     (char *)NULL);
	}
	r = build_run_logged(spec, &cp, log, err);
out:
	child_process_clear(&cp);
	strbuf_release(&pristine);
	return r;
}

/* Append every *.rej under src to log (the rejected hunks). */
static void log_rejects(const char *src, struct strbuf *log)
{
	struct child_process cp;
	struct strbuf err = STRBUF_INIT;
	struct strvec files = STRVEC_INIT;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "find", src, "-name", "*.rej", "-type", "f",
		     (char *)NULL);
	cp.capture_out = 1;
	cp.quiet = 1;
	cp.timeout_ms = 120000;
	if (run_command(&cp, &err) == 0) {
		strbuf_trim(&cp.out);
		if (cp.out.len)
			strvec_split(&files, cp.out.buf, '\n');
	}
	for (size_t i = 0; i < files.nr && i < 50; i++) {
		strbuf_addf(log, "--- rejected hunks: %s\n",
			    files.v[i] + strlen(src) + 1);
		strbuf_read_file(log, files.v[i], 1u << 20);
		if (log->len && log->buf[log->len - 1] != '\n')
			strbuf_addch(log, '\n');
	}
	strvec_clear(&files);
	strbuf_release(&err);
	child_process_clear(&cp);
}

int build_apply_series(const struct kernel_build_spec *spec, const char *src,
		       int git, struct strbuf *log, struct strbuf *err)
{
	for (size_t i = 0; i < spec->patches.nr; i++) {
		_cleanup_free_ char *abs = realpath(spec->patches.v[i], NULL);
		struct child_process cp;
		struct strbuf perr = STRBUF_INIT;
		int r;

		child_process_init(&cp);
		cp.dir = src;
		if (git)
			strvec_pushl(
				&cp.args, "git", "-c", "user.name=schedfarm",
				"-c", "user.email=schedfarm@localhost", "am",
				"--reject", "--",
				abs ? abs : spec->patches.v[i], (char *)NULL);
		else
			strvec_pushl(&cp.args, "patch", "-p1", "--forward",
				     "--batch", "-i",
				     abs ? abs : spec->patches.v[i],
				     (char *)NULL);
		r = build_run_logged(spec, &cp, log, &perr);
		child_process_clear(&cp);
		if (r < 0) {
			log_rejects(src, log);
			strbuf_addf(err,
				    "patch %zu of %zu does not apply (%s): %s",
				    i + 1, spec->patches.nr, spec->patches.v[i],
				    perr.buf);
			strbuf_release(&perr);
			return -1;
		}
		strbuf_release(&perr);
	}
	return 0;
}

int build_base_pristine(const struct kernel_build_spec *spec,
			const struct kernel_build_result *res,
			struct strbuf *ret, struct strbuf *log,
			struct strbuf *err)
{
	if (starts_with(res->base_id, "tarball:"))
		return prepare_tarball_base(
			spec, res->base_id + strlen("tarball:"), ret, log, err);
	if (starts_with(res->base_id, "dir:")) {
		strbuf_addstr(ret, spec->base);
		return 0;
	}
	strbuf_addf(err, "base %s has no pristine folder (a git base)",
		    res->base_id);
	return -1;
}

int kernel_git_range(const char *tree, const char *good, const char *bad,
		     struct strvec *ret_commits, struct strvec *ret_subjects,
		     struct strbuf *err)
{
	struct child_process cp;
	struct strbuf g = STRBUF_INIT, b = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	int r = -1;

	if (!build_is_dir(tree) || !build_is_git_repo(tree)) {
		strbuf_addf(err, "%s is not a git repository", tree);
		return -1;
	}
	if (build_git_commit(tree, good, &g, err) < 0 ||
	    build_git_commit(tree, bad, &b, err) < 0)
		goto out;
	strvec_push(ret_commits, g.buf);
	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-C", tree, "log", "--first-parent",
		     "--reverse", "--format=%H %s", (char *)NULL);
	strvec_pushf(&cp.args, "%s..%s", g.buf, b.buf);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 120000;
	r = run_command(&cp, err);
	if (r == 0) {
		strbuf_trim(&cp.out);
		if (cp.out.len)
			strvec_split(&lines, cp.out.buf, '\n');
	}
	child_process_clear(&cp);
	if (r < 0)
		goto out;
	r = -1;
	if (!lines.nr) {
		strbuf_addf(err,
			    "%s..%s holds no commit (is %s an ancestor of "
			    "%s?)",
			    good, bad, good, bad);
		goto out;
	}
	strvec_push(ret_subjects, "");
	for (size_t i = 0; i < lines.nr; i++) {
		char *sp = strchr(lines.v[i], ' ');

		if (sp)
			*sp++ = '\0';
		strvec_push(ret_commits, lines.v[i]);
		strvec_push(ret_subjects, sp ? sp : "");
	}
	if (strcmp(ret_commits->v[ret_commits->nr - 1], b.buf)) {
		strbuf_addf(err,
			    "%s is not on the first-parent line from %s: "
			    "bisect a linear range",
			    bad, good);
		goto out;
	}
	r = 0;
out:
	strvec_clear(&lines);
	strbuf_release(&g);
	strbuf_release(&b);
	return r;
}
