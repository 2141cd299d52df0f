/*
 * build_step.c - one step of a kernel build: a command run with its output
 * logged, confined to the sandbox when it runs the tree's code, told
 * once a second to go on or stop; and the checks of the files the steps
 * work on (folders, git repositories, what the cache holds).  See
 * build-int.h.
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

#define STEP_TIMEOUT_MS (30 * 60 * 1000)

int build_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int build_is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int build_is_git_repo(const char *path)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int r;

	strbuf_addf(&p, "%s/.git", path);
	r = !stat(p.buf, &st);
	strbuf_release(&p);
	return r;
}

/* A second of a build step gone by without a line: spec's progress hears
 * of it (line NULL), so the job renews its lease, or stops the step. */
static int step_tick(void *ctx)
{
	const struct kernel_build_spec *spec = ctx;

	return spec->progress(spec->progress_ctx, NULL, 0, 0);
}

/*
 * Confine cp, a step that runs the tree's code (make and the scripts and
 * host tools it runs), to the sandbox (lab/sandbox.h): the tree src and
 * the base's git repository (a worktree's git data) and the spec's
 * fragments read-only, outdir writable and handed to the farm's user.
 * The compiler cache as build_ccache_confine() says (written by a base
 * alone).  Where the sandbox cannot be had, only the environment is
 * scrubbed, or a build of patches is refused (sandbox_allow()).  0, or
 * -1 with err.
 */
const char *build_host_path(const struct kernel_build_spec *spec,
			    const char *path)
{
	const struct build_view *v = spec ? spec->view : NULL;

	if (v && !strcmp(path, v->src_at))
		return v->src;
	if (v && !strcmp(path, v->out_at))
		return v->out;
	return path;
}

int build_confine(const struct kernel_build_spec *spec,
		  struct child_process *cp, const char *src, const char *outdir,
		  struct strbuf *err)
{
	struct sandbox_paths p = SANDBOX_PATHS_INIT;
	const char *hsrc = build_host_path(spec, src),
		   *hout = build_host_path(spec, outdir);
	int on = sandbox_allow(spec->patches.nr > 0, err), r = -1;

	if (on < 0)
		return -1;
	if (on && (sandbox_give_dir(hout, err) < 0 ||
		   sandbox_share_dir(hsrc, err) < 0))
		return -1;
	/* Unconfined, both are the controller's alone. */
	if (!on && ((mkdir(hout, 0700) < 0 && errno != EEXIST) ||
		    chmod(hout, 0700) < 0 || chmod(hsrc, 0700) < 0)) {
		strbuf_addf(err, "cannot close %s or %s to others: %s", hsrc,
			    hout, strerror(errno));
		return -1;
	}
	if (hsrc != src)
		strvec_pushl(&p.ro_at, hsrc, src, (char *)NULL);
	else
		strvec_push(&p.ro, src);
	if (spec->base && build_is_dir(spec->base) &&
	    build_is_git_repo(spec->base)) {
		_cleanup_free_ char *rp = realpath(spec->base, NULL);

		strvec_push(&p.ro, rp ? rp : spec->base);
		/* The repository is root's: git refuses another user's. */
		strvec_pushl(&cp->env, "GIT_CONFIG_COUNT=1",
			     "GIT_CONFIG_KEY_0=safe.directory",
			     "GIT_CONFIG_VALUE_0=*", (char *)NULL);
	}
	for (size_t i = 0; i < spec->fragments.nr; i++) {
		_cleanup_free_ char *rp = realpath(spec->fragments.v[i], NULL);

		if (!rp) {
			strbuf_addf(err, "cannot read the fragment %s: %s",
				    spec->fragments.v[i], strerror(errno));
			goto out;
		}
		strvec_push(&p.ro, rp);
	}
	if (hout != outdir)
		strvec_pushl(&p.rw_at, hout, outdir, (char *)NULL);
	else
		strvec_push(&p.rw, outdir);
	if (build_ccache_confine(spec, cp, &p, on, err) < 0)
		goto out;
	r = sandbox_wrap(cp, &p, on, err);
out:
	sandbox_paths_release(&p);
	return r;
}

/*
 * Run cp, appending what it printed to log; the contract of run_command.
 * With spec (may be NULL) and its progress callback, the callback is told
 * about once a second that the step still runs (line NULL), and stops it
 * by returning a negative number.  With src and outdir, the step runs the
 * tree's code and is confined (build_confine()); the log shows the command as
 * it was asked for.
 */
int build_run_logged_in(const struct kernel_build_spec *spec,
			struct child_process *cp, const char *src,
			const char *outdir, struct strbuf *log,
			struct strbuf *err)
{
	int r;

	if (spec && spec->progress) {
		cp->tick = step_tick;
		cp->tick_ctx = (void *)spec;
	}
	cp->capture_out = 1;
	cp->merge_err = 1;
	if (!cp->timeout_ms)
		cp->timeout_ms = STEP_TIMEOUT_MS;
	strbuf_addstr(log, "$");
	for (size_t i = 0; i < cp->args.nr; i++)
		strbuf_addf(log, " %s", cp->args.v[i]);
	strbuf_addch(log, '\n');
	if (src && build_confine(spec, cp, src, outdir, err) < 0)
		return -1;
	r = run_command(cp, err);
	strbuf_addbuf(log, &cp->out);
	if (cp->out.len && cp->out.buf[cp->out.len - 1] != '\n')
		strbuf_addch(log, '\n');
	return r;
}

int build_run_logged(const struct kernel_build_spec *spec,
		     struct child_process *cp, struct strbuf *log,
		     struct strbuf *err)
{
	return build_run_logged_in(spec, cp, NULL, NULL, log, err);
}

/* Is path, found in the cache, the farm's own (see the top)? */
int build_cache_owned(const char *path, int want_dir, struct strbuf *err)
{
	if (home_check_owned(path, 0, want_dir, err) == 0)
		return 0;
	strbuf_addstr(err, "; the kernel cache trusts only what the farm's "
			   "user wrote");
	return -1;
}

/* Files of the cache: whole or absent (a build's `result` is what
 * "built" means), readable by whoever boots the kernel. */
int build_write_file(const char *path, const char *data, size_t len,
		     struct strbuf *err)
{
	return write_file_atomic(path, data, len, 0644, FS_SYNC, err);
}
