/*
 * build.c - kernel builds with a cache; see build.h.
 *
 * Layout under the cache folder:
 *   bases/SHA16/          a tarball unpacked once (read-only by convention)
 *   builds/KEY/src        the tree of this build (hard links or a worktree)
 *   builds/KEY/out        make O= output (.config, vmlinux, bzImage)
 *   builds/KEY/build.log  everything make and patch said
 *   builds/KEY/result     key=value lines, written last: its presence is
 *                         what "built" means
 *   builds/KEY.lock       flock()ed while a build of KEY runs
 *
 * What is found there is used only when the farm's user owns it and
 * nobody else can write it (home_check_owned): the cache folder itself,
 * bases/ and builds/, each base and build folder, a build's result and
 * the images it names, which must lie inside the build's folder.  A
 * cache entry another user could have planted is refused, never taken
 * for a built kernel.
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
#include "store/answers.h"
#include "store/kernels.h"
#include "cleanup.h"
#include "fs.h"
#include "parse.h"
#include "run-command.h"
#include "time-util.h"
#include "banned.h"

#define STEP_TIMEOUT_MS (30 * 60 * 1000)
/* Folders inside the cache: the qemu of a libvirt host (another user)
 * must reach builds/KEY/out/vmlinux by its path, so others may pass
 * through (x) but neither list (r) nor write. */
#define CACHE_DIR_MODE 0711

void kernel_build_spec_init(struct kernel_build_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	strvec_init(&spec->fragments);
	strvec_init(&spec->patches);
	spec->config = "tinyconfig";
}

void kernel_build_spec_release(struct kernel_build_spec *spec)
{
	strvec_clear(&spec->fragments);
	strvec_clear(&spec->patches);
}

void kernel_build_result_init(struct kernel_build_result *res)
{
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->log, 0);
	res->text = res->data = res->bss = -1;
}

void kernel_build_result_release(struct kernel_build_result *res)
{
	free(res->cache_key);
	free(res->base_id);
	free(res->series_sha256);
	free(res->config_sha256);
	free(res->dir);
	free(res->release);
	free(res->vmlinux);
	free(res->bzimage);
	free(res->log_path);
	strbuf_release(&res->log);
	memset(res, 0, sizeof(*res));
}

const char *kernel_fragments_dir(void)
{
	static char *dir;
	static const char *const rel[] = { "../kernels",
					   "../share/schedfarm/kernels",
					   "../../kernels" };
	const char *e = getenv("SCHEDFARM_KERNELS_DIR");
	_cleanup_free_ char *exe = NULL;

	if (e && *e)
		return e;
	if (dir)
		return dir;
	/* Beside the binary: the source tree, or the installed share/. */
	exe = realpath("/proc/self/exe", NULL);
	if (exe && strrchr(exe, '/')) {
		*strrchr(exe, '/') = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(rel) && !dir; i++) {
			struct strbuf p = STRBUF_INIT;

			strbuf_addf(&p, "%s/%s/farm-base.config", exe, rel[i]);
			if (!access(p.buf, R_OK)) {
				strbuf_setlen(
					&p,
					p.len - strlen("/farm-base.config"));
				dir = realpath(p.buf, NULL);
			}
			strbuf_release(&p);
		}
	}
	if (!dir && !access("kernels/farm-base.config", R_OK))
		dir = realpath("kernels", NULL);
	if (!dir)
		dir = xstrdup("kernels");
	return dir;
}

/* sha256 of data (via sha256sum) into ret (64 hex + NUL). */
static int build_sha256_mem(const char *data, size_t len, char ret[65],
			    struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_push(&cp.args, "sha256sum");
	cp.stdin_data = data;
	cp.stdin_len = len;
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 60000;
	r = run_command(&cp, err);
	if (!r && cp.out.len < 64) {
		strbuf_addstr(err, "sha256sum printed no digest");
		r = -1;
	}
	if (!r) {
		memcpy(ret, cp.out.buf, 64);
		ret[64] = '\0';
	}
	child_process_clear(&cp);
	return r;
}

static int sha256_file(const char *path, char ret[65], struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "sha256sum", "--", path, (char *)NULL);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 10 * 60000;
	r = run_command(&cp, err);
	if (!r && cp.out.len < 64) {
		strbuf_addf(err, "sha256sum printed no digest for %s", path);
		r = -1;
	}
	if (!r) {
		memcpy(ret, cp.out.buf, 64);
		ret[64] = '\0';
	} else if (cp.err.len) {
		strbuf_addf(err, ": %s", cp.err.buf);
		strbuf_rtrim(err);
	}
	child_process_clear(&cp);
	return r;
}

static int build_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int build_is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int build_is_git_repo(const char *path)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int r;

	strbuf_addf(&p, "%s/.git", path);
	r = !stat(p.buf, &st);
	strbuf_release(&p);
	return r;
}

/*
 * A bare repository (a mirror a lab keeps of a kernel tree: HEAD,
 * objects/ and refs/ at its top, no work tree) is a git base too: `git
 * worktree add` makes a build tree from it as from any repository.
 */
static int is_bare_git_repo(const char *path)
{
	static const char *const parts[] = { "HEAD", "objects", "refs" };
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int r = 1;

	for (size_t i = 0; i < 3 && r; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", path, parts[i]);
		r = !stat(p.buf, &st);
	}
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
 * Where the sandbox cannot be had, only the environment is scrubbed, or
 * a build of patches is refused (sandbox_allow()).  0, or -1 with err.
 */
static int build_confine(const struct kernel_build_spec *spec,
			 struct child_process *cp, const char *src,
			 const char *outdir, struct strbuf *err)
{
	struct sandbox_paths p = SANDBOX_PATHS_INIT;
	int on = sandbox_allow(spec->patches.nr > 0, err), r = -1;

	if (on < 0)
		return -1;
	if (on && (sandbox_give_dir(outdir, err) < 0 ||
		   sandbox_share_dir(src, err) < 0))
		return -1;
	/* Unconfined, both are the controller's alone. */
	if (!on && ((mkdir(outdir, 0700) < 0 && errno != EEXIST) ||
		    chmod(outdir, 0700) < 0 || chmod(src, 0700) < 0)) {
		strbuf_addf(err, "cannot close %s or %s to others: %s", src,
			    outdir, strerror(errno));
		return -1;
	}
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
	strvec_push(&p.rw, outdir);
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
static int build_run_logged_in(const struct kernel_build_spec *spec,
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

/* The git commit of ref in repo. */
static int build_git_commit(const char *repo, const char *ref,
			    struct strbuf *ret, struct strbuf *err)
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

/* What the config is: its text, hashed (base config + fragments). */
static int config_text(const struct kernel_build_spec *spec, struct strbuf *out,
		       struct strbuf *err)
{
	strbuf_addf(out, "base-config %s\n", spec->config);
	if (strcmp(spec->config, "tinyconfig") &&
	    strcmp(spec->config, "defconfig")) {
		if (strbuf_read_file(out, spec->config, 16u << 20) < 0) {
			strbuf_addf(err, "cannot read config %s: %s",
				    spec->config, strerror(errno));
			return -1;
		}
	}
	for (size_t i = 0; i < spec->fragments.nr; i++) {
		int r;

		strbuf_addf(out, "\nfragment %zu\n", i);
		r = strbuf_read_file(out, spec->fragments.v[i], 1u << 20);
		if (r < 0) {
			strbuf_addf(err, "cannot read config fragment %s: %s",
				    spec->fragments.v[i], strerror(-r));
			return -1;
		}
	}
	return 0;
}

int kernel_build_key(const struct kernel_build_spec *spec,
		     struct kernel_build_result *res, struct strbuf *err)
{
	struct strbuf id = STRBUF_INIT, series = STRBUF_INIT, cfg = STRBUF_INIT,
		      all = STRBUF_INIT;
	char hex[65];
	int r = -1;

	if (!spec->base || !*spec->base) {
		strbuf_addstr(err, "no base kernel given");
		return -1;
	}
	if (build_is_file(spec->base)) {
		if (sha256_file(spec->base, hex, err) < 0)
			goto out;
		strbuf_addf(&id, "tarball:%s", hex);
	} else if (build_is_dir(spec->base) && (build_is_git_repo(spec->base) ||
						is_bare_git_repo(spec->base))) {
		strbuf_addstr(&id, "git:");
		if (build_git_commit(spec->base, spec->ref, &id, err) < 0)
			goto out;
	} else if (build_is_dir(spec->base)) {
		_cleanup_free_ char *rp = realpath(spec->base, NULL);

		strbuf_addf(&id, "dir:%s", rp ? rp : spec->base);
	} else {
		strbuf_addf(err,
			    "base %s is not a tarball, a git repository or a "
			    "source directory",
			    spec->base);
		goto out;
	}
	if (spec->ref && !starts_with(id.buf, "git:")) {
		strbuf_addf(err, "a ref (%s) needs a git repository as base",
			    spec->ref);
		goto out;
	}
	for (size_t i = 0; i < spec->patches.nr; i++) {
		size_t before = series.len;
		int rr = strbuf_read_file(&series, spec->patches.v[i],
					  64u << 20);

		if (rr < 0) {
			strbuf_addf(err, "cannot read patch %s: %s",
				    spec->patches.v[i], strerror(-rr));
			goto out;
		}
		if (series.len == before) {
			strbuf_addf(err, "patch %s is empty",
				    spec->patches.v[i]);
			goto out;
		}
	}
	if (config_text(spec, &cfg, err) < 0)
		goto out;
	res->base_id = xstrdup(id.buf);
	if (spec->patches.nr) {
		if (build_sha256_mem(series.buf, series.len, hex, err) < 0)
			goto out;
		res->series_sha256 = xstrdup(hex);
	}
	if (build_sha256_mem(cfg.buf, cfg.len, hex, err) < 0)
		goto out;
	res->config_sha256 = xstrdup(hex);
	strbuf_addf(
		&all, "schedfarm-kernel-v1\nbase=%s\nseries=%s\nconfig=%s\n",
		res->base_id, res->series_sha256 ? res->series_sha256 : "none",
		res->config_sha256);
	if (build_sha256_mem(all.buf, all.len, hex, err) < 0)
		goto out;
	res->cache_key = xstrdup(hex);
	res->dir = xstrfmt("%s/builds/%s", spec->cache_dir, hex);
	res->log_path = xstrfmt("%s/build.log", res->dir);
	r = 0;
out:
	strbuf_release(&id);
	strbuf_release(&series);
	strbuf_release(&cfg);
	strbuf_release(&all);
	return r;
}

/* Is path, found in the cache, the farm's own (see the top)? */
static int build_cache_owned(const char *path, int want_dir, struct strbuf *err)
{
	if (home_check_owned(path, 0, want_dir, err) == 0)
		return 0;
	strbuf_addstr(err, "; the kernel cache trusts only what the farm's "
			   "user wrote");
	return -1;
}

/* An image a result names: a file of ours inside the build's folder. */
static int cache_image(const struct kernel_build_result *res, const char *path,
		       struct strbuf *err)
{
	size_t n = strlen(res->dir);

	if (strncmp(path, res->dir, n) || path[n] != '/' ||
	    strstr(path, "/../")) {
		strbuf_addf(err,
			    "cache entry %s names an image outside it (%s): "
			    "refused",
			    res->dir, path);
		return -1;
	}
	return build_cache_owned(path, 0, err);
}

/* Read CACHE/builds/KEY/result into res; 1 if there, 0 if not, -1 bad. */
static int read_result(struct kernel_build_result *res, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, body = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	struct stat st;
	int r = 0;

	if (lstat(res->dir, &st) < 0 && errno == ENOENT)
		return 0;
	if (build_cache_owned(res->dir, 1, err) < 0)
		return -1;
	strbuf_addf(&path, "%s/result", res->dir);
	if (lstat(path.buf, &st) < 0 && errno == ENOENT)
		goto out;
	if (build_cache_owned(path.buf, 0, err) < 0) {
		r = -1;
		goto out;
	}
	if (strbuf_read_file(&body, path.buf, 1u << 16) < 0)
		goto out;
	strvec_split(&lines, body.buf, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		char *l = lines.v[i], *eq = strchr(l, '=');
		const char *e;
		double d;

		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(l, "release"))
			res->release = xstrdup(eq);
		else if (!strcmp(l, "vmlinux"))
			res->vmlinux = xstrdup(eq);
		else if (!strcmp(l, "bzimage"))
			res->bzimage = xstrdup(eq);
		else if (!strcmp(l, "text") &&
			 parse_i64(eq, 0, INT64_MAX, &res->text, &e) < 0)
			goto bad;
		else if (!strcmp(l, "data") &&
			 parse_i64(eq, 0, INT64_MAX, &res->data, &e) < 0)
			goto bad;
		else if (!strcmp(l, "bss") &&
			 parse_i64(eq, 0, INT64_MAX, &res->bss, &e) < 0)
			goto bad;
		else if (!strcmp(l, "seconds")) {
			if (parse_double(eq, 0, 1e7, &d, &e) < 0)
				goto bad;
			res->seconds = d;
		}
	}
	if (!res->release || !res->vmlinux || !build_is_file(res->vmlinux)) {
		strbuf_addf(err, "cache entry %s is incomplete", res->dir);
		r = -1;
		goto out;
	}
	if (cache_image(res, res->vmlinux, err) < 0 ||
	    (res->bzimage && cache_image(res, res->bzimage, err) < 0)) {
		r = -1;
		goto out;
	}
	r = 1;
	goto out;
bad:
	strbuf_addf(err, "cache entry %s has a bad number", path.buf);
	r = -1;
out:
	strvec_clear(&lines);
	strbuf_release(&path);
	strbuf_release(&body);
	return r;
}

/* Files of the cache: whole or absent (a build's `result` is what
 * "built" means), readable by whoever boots the kernel. */
static int build_write_file(const char *path, const char *data, size_t len,
			    struct strbuf *err)
{
	return write_file_atomic(path, data, len, 0644, FS_SYNC, err);
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
static int build_prepare_tree(const struct kernel_build_spec *spec,
			      struct kernel_build_result *res, const char *src,
			      int *ret_git, struct strbuf *log,
			      struct strbuf *err)
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

static int build_configure(const struct kernel_build_spec *spec,
			   const char *src, const char *outdir,
			   struct strbuf *log, struct strbuf *err)
{
	struct child_process cp;
	struct strbuf dot = STRBUF_INIT;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	if (!strcmp(spec->config, "tinyconfig") ||
	    !strcmp(spec->config, "defconfig")) {
		strvec_push(&cp.args, spec->config);
	} else {
		struct strbuf body = STRBUF_INIT;

		strbuf_addf(&dot, "%s/.config", outdir);
		r = strbuf_read_file(&body, spec->config, 16u << 20);
		if (r < 0 ||
		    build_write_file(dot.buf, body.buf, body.len, err) < 0) {
			if (r < 0)
				strbuf_addf(err, "cannot read %s",
					    spec->config);
			strbuf_release(&body);
			child_process_clear(&cp);
			strbuf_release(&dot);
			return -1;
		}
		strbuf_release(&body);
		strvec_push(&cp.args, "olddefconfig");
	}
	r = build_run_logged_in(spec, &cp, src, outdir, log, err);
	child_process_clear(&cp);
	if (r < 0 || !spec->fragments.nr)
		goto out;
	child_process_init(&cp);
	strbuf_reset(&dot);
	strbuf_addf(&dot, "%s/.config", outdir);
	strvec_pushf(&cp.args, "%s/scripts/kconfig/merge_config.sh", src);
	strvec_pushl(&cp.args, "-m", "-O", outdir, dot.buf, (char *)NULL);
	for (size_t i = 0; i < spec->fragments.nr; i++) {
		_cleanup_free_ char *abs = realpath(spec->fragments.v[i], NULL);

		strvec_push(&cp.args, abs ? abs : spec->fragments.v[i]);
	}
	/* It makes its temporary file in its folder: the output one (the
	 * tree is read-only to the build). */
	cp.dir = outdir;
	r = build_run_logged_in(spec, &cp, src, outdir, log, err);
	child_process_clear(&cp);
	if (r < 0)
		goto out;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	strvec_push(&cp.args, "olddefconfig");
	r = build_run_logged_in(spec, &cp, src, outdir, log, err);
	child_process_clear(&cp);
out:
	strbuf_release(&dot);
	return r;
}

/* The number of compile steps of the last build, from the cache's memo. */
static int expected_steps(const struct kernel_build_spec *spec)
{
	struct strbuf p = STRBUF_INIT, b = STRBUF_INIT;
	int n = 0;

	strbuf_addf(&p, "%s/last-steps", spec->cache_dir);
	if (strbuf_read_file(&b, p.buf, 64) == 0) {
		strbuf_trim(&b);
		if (parse_int(b.buf, 0, 10000000, &n, NULL) < 0)
			n = 0;
	}
	strbuf_release(&p);
	strbuf_release(&b);
	return n;
}

/* One line of make's output: logged, counted, told to spec's progress
 * (line NULL: a second went by without one).  Negative: stop the build. */
static int make_line(const struct kernel_build_spec *spec, const char *line,
		     size_t len, int *steps, int expected, struct strbuf *log)
{
	if (line) {
		strbuf_add(log, line, len);
		strbuf_addch(log, '\n');
		/* Each "  CC      kernel/sched/core.o" is a step. */
		if (len > 2 && line[0] == ' ' && line[1] == ' ' &&
		    line[2] != ' ')
			(*steps)++;
	}
	return spec->progress ? spec->progress(spec->progress_ctx, line, *steps,
					       expected)
			      : 0;
}

/* run_make's tick: make's output captured so far (cp->out), and how much
 * of it the progress callback has heard. */
struct make_progress {
	const struct kernel_build_spec *spec;
	struct child_process *cp;
	struct strbuf *log;
	size_t told;
	int steps, expected;
};

/*
 * Hand the lines make printed since the last call to make_line(), or a
 * NULL line when it printed none.  final: make has ended; its last line
 * may lack a newline, and no NULL line is sent.  Negative: stop the
 * build.
 */
static int make_tell(struct make_progress *mp, int final)
{
	struct strbuf *out = &mp->cp->out;
	int lines = 0, r = 0;
	char *nl;

	while (r >= 0 &&
	       (nl = memchr(out->buf + mp->told, '\n', out->len - mp->told))) {
		size_t len = (size_t)(nl - (out->buf + mp->told));

		*nl = '\0'; /* the callback reads a C string */
		r = make_line(mp->spec, out->buf + mp->told, len, &mp->steps,
			      mp->expected, mp->log);
		*nl = '\n';
		mp->told += len + 1;
		lines++;
	}
	if (r >= 0 && final && mp->told < out->len) {
		r = make_line(mp->spec, out->buf + mp->told,
			      out->len - mp->told, &mp->steps, mp->expected,
			      mp->log);
		mp->told = out->len;
	} else if (r >= 0 && !final && !lines) {
		r = make_line(mp->spec, NULL, 0, &mp->steps, mp->expected,
			      mp->log);
	}
	return r;
}

static int make_tick(void *ctx)
{
	return make_tell(ctx, 0);
}

/*
 * make -jN vmlinux bzImage.  Its output is captured, and about once a
 * second the lines printed since (or, in a silent second such as the link
 * of vmlinux, a NULL line) go to spec's progress, so that a job renews its
 * lease all through the build and can stop it.  The build's timeout
 * counts from make's start.
 */
int build_run_make(const struct kernel_build_spec *spec, const char *src,
		   const char *outdir, int *ret_steps, struct strbuf *log,
		   struct strbuf *err)
{
	struct child_process cp;
	struct make_progress mp = { .spec = spec,
				    .cp = &cp,
				    .log = log,
				    .expected = expected_steps(spec) };
	int jobs = spec->jobs > 0 ? spec->jobs
				  : (int)sysconf(_SC_NPROCESSORS_ONLN);
	int timeout_s = spec->timeout_s > 0 ? spec->timeout_s : 4 * 3600;
	int r;

	if (timeout_s > INT_MAX / 1000)
		timeout_s = INT_MAX / 1000;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	strvec_pushf(&cp.args, "-j%d", jobs > 0 ? jobs : 1);
	strvec_pushl(&cp.args, "vmlinux", "bzImage", (char *)NULL);
	cp.capture_out = 1;
	cp.merge_err = 1;
	cp.timeout_ms = timeout_s * 1000;
	cp.tick = make_tick;
	cp.tick_ctx = &mp;
	strbuf_addstr(log, "$");
	for (size_t i = 0; i < cp.args.nr; i++)
		strbuf_addf(log, " %s", cp.args.v[i]);
	strbuf_addch(log, '\n');
	r = build_confine(spec, &cp, src, outdir, err);
	if (!r)
		r = run_command(&cp, err);
	/* Its last lines; a stop asked for now is too late to matter. */
	(void)make_tell(&mp, 1);
	if (cp.truncated)
		strbuf_addstr(log, "(make printed more than the log keeps: "
				   "the rest was dropped)\n");
	if (cp.stopped) {
		strbuf_reset(err);
		strbuf_addstr(err, "the build was stopped");
	}
	child_process_clear(&cp);
	*ret_steps = mp.steps;
	return r;
}

static int build_read_release(const struct kernel_build_spec *spec,
			      const char *src, const char *outdir, char **ret,
			      struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-s", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	strvec_push(&cp.args, "kernelrelease");
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 120000;
	r = build_confine(spec, &cp, src, outdir, err);
	if (!r)
		r = run_command(&cp, err);
	if (!r) {
		/* make -C prints "make[1]: Entering..." with -s off only;
		 * the release is the last line. */
		char *nl;

		strbuf_trim(&cp.out);
		nl = strrchr(cp.out.buf, '\n');
		*ret = xstrdup(nl ? nl + 1 : cp.out.buf);
	}
	child_process_clear(&cp);
	return r;
}

/* size(1) of vmlinux: "   text    data     bss     dec     hex filename". */
static int build_read_size(const char *vmlinux, struct kernel_build_result *res,
			   struct strbuf *err)
{
	struct child_process cp;
	struct strvec words = STRVEC_INIT;
	char *nl;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "size", "--", vmlinux, (char *)NULL);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 60000;
	r = run_command(&cp, err);
	if (r < 0)
		goto out;
	nl = strchr(cp.out.buf, '\n');
	r = -1;
	if (!nl)
		goto bad;
	for (char *s = nl + 1; *s;) {
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, " \t\n");
		if (!n)
			break;
		strvec_push(&words, "");
		free(words.v[words.nr - 1]);
		words.v[words.nr - 1] = xstrndup(s, n);
		s += n;
	}
	if (words.nr < 3 ||
	    parse_i64(words.v[0], 0, INT64_MAX, &res->text, NULL) < 0 ||
	    parse_i64(words.v[1], 0, INT64_MAX, &res->data, NULL) < 0 ||
	    parse_i64(words.v[2], 0, INT64_MAX, &res->bss, NULL) < 0)
		goto bad;
	r = 0;
	goto out;
bad:
	strbuf_addf(err, "cannot read the output of size %s", vmlinux);
out:
	strvec_clear(&words);
	child_process_clear(&cp);
	return r;
}

static int lock_key(const struct kernel_build_spec *spec,
		    const struct kernel_build_result *res, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int fd;

	strbuf_addf(&p, "%s/builds", spec->cache_dir);
	if (mkdir_p(p.buf, CACHE_DIR_MODE, err) < 0 ||
	    build_cache_owned(p.buf, 1, err) < 0) {
		strbuf_release(&p);
		return -1;
	}
	strbuf_addf(&p, "/%s.lock", res->cache_key);
	fd = lock_file(p.buf, err);
	strbuf_release(&p);
	return fd;
}

/*
 * The start of a build: the key (unless known), the key's lock held in
 * *ret_lock (the caller closes it), and the cache asked.  0 on a hit
 * (res says where; the log says so), 1 when it must be built, -1 with err.
 */
static int build_cache_lookup(const struct kernel_build_spec *spec,
			      struct kernel_build_result *res, int *ret_lock,
			      struct strbuf *err)
{
	int c;

	if (!res->cache_key && kernel_build_key(spec, res, err) < 0)
		return -1;
	*ret_lock = lock_key(spec, res, err);
	if (*ret_lock < 0)
		return -1;
	c = read_result(res, err);
	if (c < 0)
		return -1;
	if (c > 0) {
		res->cached = 1;
		strbuf_addf(
			&res->log,
			"cache hit: kernel %s already built in %s (key %s); "
			"not rebuilding\n",
			res->release, res->dir, res->cache_key);
		return 0;
	}
	return 1;
}

/*
 * Copy an image the build wrote (outdir/rel) to dst, a file of the
 * controller's own in the build's folder: the output folder is the build
 * user's, so the image must be a plain file there (a symbolic link the
 * build left, to /etc/shadow say, is refused, never copied).  Nothing of
 * the build runs any more (its sandbox's processes ended with it).
 * 1 copied, 0 no such file, -1 with err.
 */
static int keep_image(const char *outdir, const char *rel, const char *dst,
		      struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int r = 0;

	strbuf_addf(&p, "%s/%s", outdir, rel);
	if (lstat(p.buf, &st) < 0) {
		if (errno != ENOENT) {
			strbuf_addf(err, "cannot read %s: %s", p.buf,
				    strerror(errno));
			r = -1;
		}
	} else if (!S_ISREG(st.st_mode)) {
		strbuf_addf(err,
			    "the build left %s as something other than a "
			    "plain file: refused",
			    p.buf);
		r = -1;
	} else {
		r = copy_file_atomic(p.buf, dst, 0644, FS_SYNC, err) < 0 ? -1
									 : 1;
	}
	strbuf_release(&p);
	return r;
}

/*
 * The build's images into res->dir as the controller's files: vmlinux
 * (which a build must make) and bzImage (when made; else res->bzimage
 * stays NULL).  0, or -1 with err.
 */
static int build_keep_images(const char *outdir,
			     struct kernel_build_result *res,
			     struct strbuf *err)
{
	int c;

	res->vmlinux = xstrfmt("%s/vmlinux", res->dir);
	c = keep_image(outdir, "vmlinux", res->vmlinux, err);
	if (c == 0)
		strbuf_addf(err, "the build made no %s/vmlinux", outdir);
	if (c <= 0)
		return -1;
	res->bzimage = xstrfmt("%s/bzImage", res->dir);
	c = keep_image(outdir, "arch/x86/boot/bzImage", res->bzimage, err);
	if (c == 0) {
		free(res->bzimage);
		res->bzimage = NULL;
	}
	return c < 0 ? -1 : 0;
}

int kernel_build(const struct kernel_build_spec *spec,
		 struct kernel_build_result *res, struct strbuf *err)
{
	struct strbuf src = STRBUF_INIT, outdir = STRBUF_INIT,
		      result = STRBUF_INIT, p = STRBUF_INIT;
	_cleanup_close_ int lock = -1;
	int64_t t0;
	int git, steps = 0, r = -1, c;

	c = build_cache_lookup(spec, res, &lock, err);
	if (c <= 0)
		return c;
	t0 = mono_ms();
	strbuf_addf(&res->log,
		    "build of key %s\nbase %s\nseries %s\nconfig %s\n",
		    res->cache_key, res->base_id,
		    res->series_sha256 ? res->series_sha256 : "(none)",
		    res->config_sha256);
	if (starts_with(res->base_id, "git:")) {
		/* A stale worktree registration would refuse the path. */
		struct child_process cp;
		struct strbuf e2 = STRBUF_INIT;

		child_process_init(&cp);
		strvec_pushl(&cp.args, "git", "-C", spec->base, "worktree",
			     "prune", (char *)NULL);
		cp.quiet = 1;
		run_command(&cp, &e2);
		child_process_clear(&cp);
		strbuf_release(&e2);
	}
	if (remove_tree(res->dir, err) < 0 ||
	    mkdir_p(res->dir, CACHE_DIR_MODE, err) < 0)
		goto out;
	strbuf_addf(&src, "%s/src", res->dir);
	strbuf_addf(&outdir, "%s/out", res->dir);
	if (build_prepare_tree(spec, res, src.buf, &git, &res->log, err) < 0)
		goto out;
	if (build_apply_series(spec, src.buf, git, &res->log, err) < 0)
		goto out;
	if (mkdir_p(outdir.buf, CACHE_DIR_MODE, err) < 0 ||
	    build_configure(spec, src.buf, outdir.buf, &res->log, err) < 0)
		goto out;
	if (build_run_make(spec, src.buf, outdir.buf, &steps, &res->log, err) <
	    0)
		goto out;
	res->seconds = (double)(mono_ms() - t0) / 1000.0;
	/* The images as the controller's files (out/ is the build user's). */
	if (build_keep_images(outdir.buf, res, err) < 0)
		goto out;
	if (build_read_release(spec, src.buf, outdir.buf, &res->release, err) <
		    0 ||
	    build_read_size(res->vmlinux, res, err) < 0)
		goto out;
	strbuf_addf(
		&res->log,
		"built %s in %.1f s: text %lld data %lld bss %lld (%d steps)\n",
		res->release, res->seconds, (long long)res->text,
		(long long)res->data, (long long)res->bss, steps);
	strbuf_addf(&result,
		    "release=%s\nvmlinux=%s\nbzimage=%s\ntext=%lld\ndata=%lld\n"
		    "bss=%lld\nseconds=%.3f\nsteps=%d\n",
		    res->release, res->vmlinux,
		    res->bzimage ? res->bzimage : "", (long long)res->text,
		    (long long)res->data, (long long)res->bss, res->seconds,
		    steps);
	strbuf_addf(&p, "%s/last-steps", spec->cache_dir);
	{
		struct strbuf n = STRBUF_INIT, e2 = STRBUF_INIT;

		strbuf_addf(&n, "%d\n", steps);
		build_write_file(p.buf, n.buf, n.len, &e2); /* a hint only */
		strbuf_release(&n);
		strbuf_release(&e2);
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/result", res->dir);
	r = build_write_file(p.buf, result.buf, result.len, err);
out:
	if (res->dir && build_is_dir(res->dir)) {
		struct strbuf e2 = STRBUF_INIT;

		build_write_file(res->log_path, res->log.buf, res->log.len,
				 &e2);
		strbuf_release(&e2);
	}
	strbuf_release(&src);
	strbuf_release(&outdir);
	strbuf_release(&result);
	strbuf_release(&p);
	return r;
}

/*
 * The identity of the incremental tree of res's base and config: a git
 * base by its repository (every commit shares the tree), others by the
 * base itself.
 */
static int tree_key(const struct kernel_build_spec *spec,
		    const struct kernel_build_result *res, struct strbuf *ret,
		    struct strbuf *err)
{
	struct strbuf id = STRBUF_INIT;
	char hex[65];
	int r;

	if (starts_with(res->base_id, "git:")) {
		_cleanup_free_ char *rp = realpath(spec->base, NULL);

		strbuf_addf(&id, "schedfarm-tree-v1\nbase=gitrepo:%s\n",
			    rp ? rp : spec->base);
	} else {
		strbuf_addf(&id, "schedfarm-tree-v1\nbase=%s\n", res->base_id);
	}
	strbuf_addf(&id, "config=%s\n", res->config_sha256);
	r = build_sha256_mem(id.buf, id.len, hex, err);
	if (!r)
		strbuf_addf(ret, "%s/trees/%.32s", spec->cache_dir, hex);
	strbuf_release(&id);
	return r;
}

int kernel_build_incremental(const struct kernel_build_spec *spec,
			     struct kernel_build_result *res,
			     struct strbuf *err)
{
	struct strbuf tree = STRBUF_INIT, src = STRBUF_INIT,
		      outdir = STRBUF_INIT, result = STRBUF_INIT,
		      p = STRBUF_INIT;
	_cleanup_close_ int lock = -1, tlock = -1;
	int64_t t0;
	int steps = 0, r = -1, c, fresh = 0;

	c = build_cache_lookup(spec, res, &lock, err);
	if (c <= 0)
		return c;
	if (tree_key(spec, res, &tree, err) < 0)
		goto out;
	/* One build at a time in a tree. */
	strbuf_addf(&p, "%s/trees", spec->cache_dir);
	if (mkdir_p(p.buf, CACHE_DIR_MODE, err) < 0)
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.lock", tree.buf);
	tlock = lock_file(p.buf, err);
	if (tlock < 0)
		goto out;
	t0 = mono_ms();
	strbuf_addf(&res->log,
		    "incremental build of key %s in %s\nbase %s\nseries "
		    "%s\nconfig %s\n",
		    res->cache_key, tree.buf, res->base_id,
		    res->series_sha256 ? res->series_sha256 : "(none)",
		    res->config_sha256);
	if (remove_tree(res->dir, err) < 0 ||
	    mkdir_p(res->dir, CACHE_DIR_MODE, err) < 0)
		goto out;
	if (build_tree_prepare(spec, res, tree.buf, &fresh, &res->log, err) < 0)
		goto out;
	strbuf_addf(&src, "%s/src", tree.buf);
	strbuf_addf(&outdir, "%s/out", tree.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/.config", outdir.buf);
	if (access(p.buf, F_OK) < 0 &&
	    build_configure(spec, src.buf, outdir.buf, &res->log, err) < 0)
		goto out;
	if (build_tree_mark(tree.buf, 1, err) < 0 ||
	    build_run_make(spec, src.buf, outdir.buf, &steps, &res->log, err) <
		    0)
		goto out;
	if (build_tree_mark(tree.buf, 0, err) < 0)
		goto out;
	res->seconds = (double)(mono_ms() - t0) / 1000.0;
	if (build_read_release(spec, src.buf, outdir.buf, &res->release, err) <
	    0)
		goto out;
	/* The tree moves on with the next build: keep this one's images. */
	if (build_keep_images(outdir.buf, res, err) < 0)
		goto out;
	if (build_read_size(res->vmlinux, res, err) < 0)
		goto out;
	strbuf_addf(&res->log,
		    "built %s in %.1f s (%s tree, %d steps): text %lld data "
		    "%lld bss %lld\n",
		    res->release, res->seconds, fresh ? "a new" : "a reused",
		    steps, (long long)res->text, (long long)res->data,
		    (long long)res->bss);
	strbuf_addf(&result,
		    "release=%s\nvmlinux=%s\nbzimage=%s\ntext=%lld\ndata=%lld\n"
		    "bss=%lld\nseconds=%.3f\nsteps=%d\ntree=%s\n",
		    res->release, res->vmlinux,
		    res->bzimage ? res->bzimage : "", (long long)res->text,
		    (long long)res->data, (long long)res->bss, res->seconds,
		    steps, tree.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/result", res->dir);
	r = build_write_file(p.buf, result.buf, result.len, err);
out:
	if (res->dir && build_is_dir(res->dir)) {
		struct strbuf e2 = STRBUF_INIT;

		build_write_file(res->log_path, res->log.buf, res->log.len,
				 &e2);
		strbuf_release(&e2);
	}
	strbuf_release(&tree);
	strbuf_release(&src);
	strbuf_release(&outdir);
	strbuf_release(&result);
	strbuf_release(&p);
	return r;
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

/* Split a config spec "tinyconfig+a.config+b.config" into spec. */
static void config_spec_apply(struct kernel_build_spec *spec, const char *cs,
			      struct strvec *keep)
{
	struct strvec parts = STRVEC_INIT;

	strvec_split(&parts,
		     cs && *cs ? cs
			       : "tinyconfig+farm-base.config+farm-vm.config",
		     '+');
	for (size_t i = 0; i < parts.nr; i++) {
		const char *w = parts.v[i];
		const char *path;

		if (i == 0 &&
		    (!strcmp(w, "tinyconfig") || !strcmp(w, "defconfig"))) {
			spec->config = strvec_push(keep, w);
			continue;
		}
		path = w[0] == '/' ? w
				   : strvec_pushf(keep, "%s/%s",
						  kernel_fragments_dir(), w);
		if (i == 0)
			spec->config = strvec_push(keep, path);
		else
			strvec_push(&spec->fragments, path);
	}
	strvec_clear(&parts);
}

/*
 * A kernel that is a prefix of a series (kernels.series_patch_id, row 0
 * of res): write its first series_count files one by one into
 * CACHE/series/ (named by their hash: written once) and add them to
 * spec->patches in order.  0 (nothing to do for other kernels) or -1.
 */
static int series_files(struct db *db, const struct db_result *res,
			const char *cache_dir, struct kernel_build_spec *spec,
			struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *files = NULL;
	struct strbuf path = STRBUF_INIT, data = STRBUF_INIT;
	int64_t pid = 0, count = 0;
	int r = -1;

	if (db_get_i64(res, 0, 8, 0, INT64_MAX, &pid) < 0 || !pid)
		return 0;
	if (db_get_i64(res, 0, 9, 0, INT32_MAX, &count) < 0)
		return -1;
	if (answers_patch_files(db, pid, count, &files, err) < 0)
		goto out;
	if (db_nrows(files) != count) {
		strbuf_addf(err,
			    "PLM#%lld has %d stored patch files, the kernel "
			    "needs %lld",
			    (long long)pid, db_nrows(files), (long long)count);
		goto out;
	}
	strbuf_addf(&path, "%s/series", cache_dir);
	if (mkdir_p(path.buf, CACHE_DIR_MODE, err) < 0)
		goto out;
	for (int i = 0; i < db_nrows(files); i++) {
		const char *hex = db_get(files, i, 2);

		strbuf_reset(&path);
		strbuf_addf(&path, "%s/series/%.16s.patch", cache_dir,
			    db_get(files, i, 1));
		if (!build_is_file(path.buf)) {
			strbuf_reset(&data);
			/* PostgreSQL's encode(.., 'hex'): always digits. */
			(void)strbuf_add_unhex(&data, hex);
			if (build_write_file(path.buf, data.buf, data.len,
					     err) < 0)
				goto out;
		}
		strvec_push(&spec->patches, path.buf);
	}
	r = 0;
out:
	strbuf_release(&path);
	strbuf_release(&data);
	return r;
}

int build_kernel_for_job(struct db *db, int64_t job_id, const char *cache_dir,
			 int jobs,
			 int (*progress)(void *ctx, const char *line, int steps,
					 int expected),
			 void *progress_ctx, int64_t *ret_kernel_id,
			 struct strbuf *log, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *base_row = NULL;
	struct kernel_build_spec spec;
	const char *cspec;
	struct kernel_build_result out;
	struct strvec keep = STRVEC_INIT;
	struct strbuf series = STRBUF_INIT, path = STRBUF_INIT;
	const char *state, *hex;
	int64_t kid;
	int r = -1;

	kernel_build_spec_init(&spec);
	kernel_build_result_init(&out);
	if (kernels_job_build_row(db, job_id, &res, err) < 0)
		goto out;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no job %lld", (long long)job_id);
		goto out;
	}
	if (parse_i64(db_get(res, 0, 0), 1, INT64_MAX, &kid, NULL) < 0) {
		strbuf_addstr(err, "bad kernel id");
		goto out;
	}
	*ret_kernel_id = kid;
	state = db_get(res, 0, 1);
	if (!strcmp(state, "built") || !strcmp(state, "external")) {
		strbuf_addf(
			log,
			"cache hit: kernel %lld (%s) is %s; not rebuilding\n",
			(long long)kid,
			db_get(res, 0, 7) ? db_get(res, 0, 7) : "?", state);
		r = 0;
		goto out;
	}
	spec.base = db_get(res, 0, 2);
	spec.ref = db_get(res, 0, 3);
	cspec = db_get(res, 0, 4);
	/* `submit --base NAME` names a kernel row: build from its source,
	 * its ref and (unless the job's kernel has its own) its config. */
	if (kernels_base_source(db, spec.base, kid, &base_row, err) < 0)
		goto out;
	if (db_nrows(base_row) == 1) {
		spec.base = db_get(base_row, 0, 0);
		spec.ref = db_get(base_row, 0, 1);
		if (!cspec)
			cspec = db_get(base_row, 0, 2);
		if (!build_is_file(spec.base) && !build_is_dir(spec.base)) {
			strbuf_addf(
				err,
				"base kernel %s has no source to build from "
				"(register one with 'schedfarm kernel build "
				"--name %s --base SRC')",
				db_get(res, 0, 2), db_get(res, 0, 2));
			goto out;
		}
	}
	spec.cache_dir = cache_dir;
	spec.jobs = jobs;
	spec.progress = progress;
	spec.progress_ctx = progress_ctx;
	config_spec_apply(&spec, cspec, &keep);
	hex = db_get(res, 0, 5);
	if (hex && *hex) {
		(void)strbuf_add_unhex(&series, hex);
		strbuf_addf(&path, "%s/series", cache_dir);
		if (mkdir_p(path.buf, CACHE_DIR_MODE, err) < 0)
			goto out;
		strbuf_addf(&path, "/job-%lld.patch", (long long)job_id);
		if (build_write_file(path.buf, series.buf, series.len, err) < 0)
			goto out;
		strvec_push(&spec.patches, path.buf);
	}
	if (series_files(db, res, cache_dir, &spec, err) < 0)
		goto out;
	kernels_build_started(db, kid, err);
	strbuf_reset(err);
	if (!strcmp(db_get(res, 0, 10), "incremental"))
		r = kernel_build_incremental(&spec, &out, err);
	else
		r = kernel_build(&spec, &out, err);
	strbuf_addbuf(log, &out.log);
	if (r == 0) {
		r = kernels_build_done(db, kid, &out, err);
	} else {
		struct strbuf e2 = STRBUF_INIT;

		kernels_build_failed(db, kid, err->buf, out.log.buf,
				     out.log.len, &e2);
		strbuf_release(&e2);
	}
out:
	kernel_build_spec_release(&spec);
	kernel_build_result_release(&out);
	strvec_clear(&keep);
	strbuf_release(&series);
	strbuf_release(&path);
	return r;
}
