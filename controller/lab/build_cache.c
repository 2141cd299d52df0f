/*
 * build_cache.c - the kernel cache: a build's key (what makes two builds the
 * same kernel), its lock, the cache asked for it and its result read back,
 * the images kept (the layout and the trust rules: build.c's top).  See
 * build.h and build-int.h.
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

/* sha256 of data (via sha256sum) into ret (64 hex + NUL). */
int build_sha256_mem(const char *data, size_t len, char ret[65],
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
		else if (!strcmp(l, "tree")) /* kernel_build_incremental() */
			res->incremental = 1;
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

/*
 * The key's lock, builds/KEY.lock: another build of the same kernel
 * holds it while it builds (build_lock() waits, saying so in res's log).
 * The fd, or -1 with err.
 */
static int lock_key(const struct kernel_build_spec *spec,
		    struct kernel_build_result *res, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, what = STRBUF_INIT;
	int fd;

	strbuf_addf(&p, "%s/builds", spec->cache_dir);
	if (mkdir_p(p.buf, CACHE_DIR_MODE, err) < 0 ||
	    build_cache_owned(p.buf, 1, err) < 0) {
		strbuf_release(&p);
		return -1;
	}
	strbuf_addf(&p, "/%s.lock", res->cache_key);
	strbuf_addf(&what, "the same kernel (key %.16s)", res->cache_key);
	fd = build_lock(spec, p.buf, what.buf, &res->log, err);
	strbuf_release(&p);
	strbuf_release(&what);
	return fd;
}

/*
 * The start of a build: the key (unless known), the key's lock held in
 * *ret_lock (the caller closes it), and the cache asked.  0 on a hit
 * (res says where; the log says so), 1 when it must be built, -1 with err.
 */
int build_cache_lookup(const struct kernel_build_spec *spec,
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
int build_keep_images(const char *outdir, struct kernel_build_result *res,
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
