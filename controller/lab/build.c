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
 *   builds/KEY.lock       flock()ed while a build of KEY runs, with who
 *                         holds it written in (build_lock.c)
 *   trees/TKEY            the incremental tree of a base and config
 *                         (build_tree.c), written by the base's build only
 *   trees/TKEY.lock       flock()ed while a build uses the tree (the
 *                         base's and a layer's), saying who
 *   layers/TKEY           a build of a series on that tree: overlays of its
 *                         src/ and out/, discarded after (build_layer.c)
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
	int steps = 0, r = -1, c, fresh = 0, afresh = 0;

	/* Only a root controller mounts layers: elsewhere a series never
	 * touches the tree its base shares (build_layer.c). */
	if (spec->patches.nr && geteuid() != 0)
		return kernel_build(spec, res, err);
	c = build_cache_lookup(spec, res, &lock, err);
	if (c <= 0)
		return c;
	/* Layers a killed build or controller left on any idle tree. */
	build_layers_sweep(spec->cache_dir, &res->log);
	/* The key's folder is ours (its lock); a stale series fails before
	 * the base is built or waited for. */
	if (remove_tree(res->dir, err) < 0 ||
	    mkdir_p(res->dir, CACHE_DIR_MODE, err) < 0 ||
	    build_series_check(spec, res, &res->log, err) < 0 ||
	    tree_key(spec, res, &tree, err) < 0)
		goto out;
	/* One build at a time in a tree. */
	strbuf_addf(&p, "%s/trees", spec->cache_dir);
	if (mkdir_p(p.buf, CACHE_DIR_MODE, err) < 0)
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.lock", tree.buf);
	strbuf_addf(&src, "the tree of %s%s%s", spec->base,
		    spec->ref ? "@" : "", spec->ref ? spec->ref : "");
	tlock = build_lock(spec, p.buf, src.buf, &res->log, err);
	strbuf_reset(&src);
	if (tlock < 0)
		goto out;
	t0 = mono_ms();
	strbuf_addf(&res->log,
		    "incremental build of key %s in %s\nbase %s\nseries "
		    "%s\nconfig %s\n",
		    res->cache_key, tree.buf, res->base_id,
		    res->series_sha256 ? res->series_sha256 : "(none)",
		    res->config_sha256);
	/* The base's tree is written by the base's own build only. */
	if (build_tree_base(spec, res, tree.buf, &fresh, &steps, &res->log,
			    err) < 0)
		goto out;
	strbuf_addf(&src, "%s/src", tree.buf);
	strbuf_addf(&outdir, "%s/out", tree.buf);
	if (spec->patches.nr) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/layers", spec->cache_dir);
		if (mkdir_p(p.buf, 0700, err) < 0)
			goto out;
		strbuf_addf(&p, "/%s", strrchr(tree.buf, '/') + 1);
		c = build_in_layer(spec, res, tree.buf, p.buf, &steps,
				   &res->log, err);
		if (c > 0) {
			strbuf_addf(&res->log, "%s: a fresh build instead\n",
				    err->buf);
			strbuf_reset(err);
			afresh = 1;
		}
		if (c != 0)
			goto out;
	} else {
		if (build_read_release(spec, src.buf, outdir.buf, &res->release,
				       err) < 0)
			goto out;
		/* The tree moves on with the next build: keep the images. */
		if (build_keep_images(outdir.buf, res, err) < 0)
			goto out;
	}
	res->seconds = (double)(mono_ms() - t0) / 1000.0;
	res->incremental = 1;
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
	if (afresh) {
		/* kernel_build() takes the key's lock itself. */
		close(lock);
		lock = -1;
		close(tlock);
		tlock = -1;
		return kernel_build(spec, res, err);
	}
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
	struct strbuf series = STRBUF_INIT, path = STRBUF_INIT,
		      who = STRBUF_INIT;
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
	strbuf_addf(&who, "kernel %s / job %lld", db_get(res, 0, 11),
		    (long long)job_id);
	spec.who = who.buf;
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
	/* A root controller builds every kernel of a job in its base's
	 * tree: the base alone writes it, a series builds on a layer over
	 * it (build_layer.c), so a patch costs what it changes (issue 29).
	 * Elsewhere only a bisection's prefixes share the tree. */
	if (geteuid() == 0 || !strcmp(db_get(res, 0, 10), "incremental"))
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
	strbuf_release(&who);
	return r;
}
