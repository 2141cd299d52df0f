/*
 * build_layer.c - the incremental tree shared by builds of different
 * submitters, and who may write it (issue 36).
 *
 * The tree of a base and config (build_tree.c: trees/TKEY) is written
 * only by the farm's own build of that base alone, a trusted input
 * (build_tree_base()).  The build of a submitted series never writes it:
 * it runs on a copy-on-write layer (lab/overlay.c) over the tree's src/
 * and out/, in CACHE/layers/TKEY/{src,out}/{upper,work,merged}; the
 * controller applies the series in the merged src (only the files it
 * changes get new dates, so make rebuilds what depends on them), make
 * runs in the sandbox with the merged src read-only and the merged out
 * writable, both seen at the tree's own paths (kbuild rebuilds every
 * object whose recorded command line names other folders), the images
 * are copied out, and the layer is thrown away
 * (build_in_layer()).  Whatever the series' recipes wrote, an object with
 * a date in the future included, is gone with it; a layer left by a
 * killed build or controller is unmounted and removed by the next build
 * on that tree, before anything else happens there, and by the start of
 * any incremental build when its tree is not locked (build_layers_sweep()).
 * Before any of it, a series is tried on copies of the files it touches
 * (build_series_check()), so that a stale patch fails in seconds, not
 * after the base's tree is built for it.
 *
 * The tree's folder is root's, 0700: the farm's user (which the local
 * agent's plan commands run as) reaches src/ and out/ only through a
 * sandbox's binds.  Its files stay as the base's build left them (out/
 * the farm user's), so a build in a layer may rewrite copied-up objects:
 * overlayfs keeps the lower file's owner on copy-up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/build-int.h"
#include "lab/overlay.h"
#include "fs.h"
#include "banned.h"

/* Written at the tree's creation: it was only ever written by builds of
 * its base (a tree from before the layers is made again). */
#define TRUSTED_STAMP "trusted"
/* The base_id of the base built last in the tree, written after its
 * make ended; absent while the tree is being written. */
#define BUILT_STAMP "base-built"

/* 1 when tree/name holds exactly text, else 0. */
static int stamp_is(const char *tree, const char *name, const char *text)
{
	struct strbuf p = STRBUF_INIT, body = STRBUF_INIT;
	int r;

	strbuf_addf(&p, "%s/%s", tree, name);
	r = strbuf_read_file(&body, p.buf, 4096) == 0 &&
	    !strcmp(body.buf, text);
	strbuf_release(&p);
	strbuf_release(&body);
	return r;
}

/* Write (text) or remove (NULL) the stamp tree/name.  0, or -1 with err. */
static int stamp_set(const char *tree, const char *name, const char *text,
		     struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = 0;

	strbuf_addf(&p, "%s/%s", tree, name);
	if (text)
		r = write_file_atomic(p.buf, text, strlen(text), 0600, FS_SYNC,
				      err);
	else if (unlink(p.buf) < 0 && errno != ENOENT) {
		strbuf_addf(err, "cannot remove %s: %s", p.buf,
			    strerror(errno));
		r = -1;
	}
	strbuf_release(&p);
	return r;
}

/*
 * Make tree hold spec's base alone (res->base_id, res's config), built:
 * nothing to do when its stamp says so; else the tree is laid in as
 * build_tree_prepare() does, with no patches, configured when it has no
 * .config yet, and made (a trusted build: sandbox_allow() is asked for a
 * base alone).  A tree without the trusted stamp (made before builds of
 * series went into layers) is removed and made again.  *ret_fresh: the
 * tree was new; *ret_steps: make's compile steps (0 when already built).
 * 0, or -1 with err (log has the commands).
 */
int build_tree_base(const struct kernel_build_spec *spec,
		    const struct kernel_build_result *res, const char *tree,
		    int *ret_fresh, int *ret_steps, struct strbuf *log,
		    struct strbuf *err)
{
	struct kernel_build_spec base = *spec;
	struct strbuf src = STRBUF_INIT, out = STRBUF_INIT, p = STRBUF_INIT;
	int r = -1;

	*ret_fresh = 0;
	*ret_steps = 0;
	base.patches = (struct strvec)STRVEC_INIT;
	strbuf_addf(&src, "%s/src", tree);
	strbuf_addf(&out, "%s/out", tree);
	strbuf_addf(&p, "%s/%s", tree, TRUSTED_STAMP);
	if (build_is_dir(src.buf) && !build_is_file(p.buf)) {
		strbuf_addstr(log, "the tree was written by builds of series "
				   "(before layers): making it again\n");
		if (remove_tree(tree, err) < 0)
			goto out;
	}
	if (stamp_is(tree, BUILT_STAMP, res->base_id)) {
		strbuf_addf(log, "the base's tree %s is built\n", tree);
		r = 0;
		goto out;
	}
	if (stamp_set(tree, BUILT_STAMP, NULL, err) < 0 ||
	    build_tree_prepare(&base, res, tree, ret_fresh, log, err) < 0)
		goto out;
	/* Only the sandbox's binds reach src/ and out/ for the farm user. */
	if (chmod(tree, 0700) < 0) {
		strbuf_addf(err, "cannot close %s to others: %s", tree,
			    strerror(errno));
		goto out;
	}
	if (!build_is_file(p.buf) &&
	    stamp_set(tree, TRUSTED_STAMP, "1\n", err) < 0)
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/.config", out.buf);
	if (access(p.buf, F_OK) < 0 &&
	    build_configure(&base, src.buf, out.buf, log, err) < 0)
		goto out;
	if (build_tree_mark(tree, 1, err) < 0 ||
	    build_run_make(&base, src.buf, out.buf, ret_steps, log, err) < 0 ||
	    build_tree_mark(tree, 0, err) < 0)
		goto out;
	r = stamp_set(tree, BUILT_STAMP, res->base_id, err);
	strbuf_addf(log, "the base's tree %s built (%d steps)\n", tree,
		    *ret_steps);
out:
	strbuf_release(&src);
	strbuf_release(&out);
	strbuf_release(&p);
	return r;
}

/*
 * Does spec's series apply to its base?  Asked before the base's tree is
 * built or waited for, so that a stale patch fails in seconds with its
 * rejects, not after a full build of the base (the layer applies it
 * again for real).  The files the series names are copied from the
 * pristine base (build_base_pristine(): never written) into
 * res->dir/check, the series is applied there with patch -p1 and the
 * copies removed.  A git base has no pristine folder here: its series is
 * checked when the layer applies it.  0, or -1 with err ("patch 1 of 2
 * does not apply (FILE): ...") and the rejected hunks in log.
 */
int build_series_check(const struct kernel_build_spec *spec,
		       const struct kernel_build_result *res,
		       struct strbuf *log, struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, check = STRBUF_INIT,
		      from = STRBUF_INIT, to = STRBUF_INIT, e2 = STRBUF_INIT;
	struct strvec files = STRVEC_INIT;
	int r = -1;

	if (!spec->patches.nr || starts_with(res->base_id, "git:"))
		return 0;
	for (size_t i = 0; i < spec->patches.nr; i++)
		if (build_patch_paths(spec->patches.v[i], &files, err) < 0)
			goto out;
	if (build_base_pristine(spec, res, &base, log, err) < 0)
		goto out;
	strbuf_addf(&check, "%s/check", res->dir);
	if (remove_tree(check.buf, err) < 0 ||
	    mkdir_p(check.buf, 0700, err) < 0)
		goto out;
	for (size_t i = 0; i < files.nr; i++) {
		strbuf_reset(&from);
		strbuf_reset(&to);
		strbuf_addf(&from, "%s/%s", base.buf, files.v[i]);
		strbuf_addf(&to, "%s/%s", check.buf, files.v[i]);
		if (!build_is_file(from.buf))
			continue; /* a file the series creates */
		/* The file's folder first (the path is checked: -p1, in the
		 * tree, no ".."). */
		strbuf_add(&e2, to.buf,
			   (size_t)(strrchr(to.buf, '/') - to.buf));
		r = mkdir_p(e2.buf, 0700, err);
		strbuf_reset(&e2);
		if (r < 0 ||
		    copy_file_atomic(from.buf, to.buf, 0600, 0, err) < 0) {
			r = -1;
			goto out;
		}
	}
	strbuf_addf(log,
		    "the series is tried on a copy of the %zu file(s) "
		    "it touches\n",
		    files.nr);
	r = build_apply_series(spec, check.buf, 0, log, err);
out:
	if (check.len && remove_tree(check.buf, &e2) < 0)
		strbuf_addf(log, "cannot remove %s: %s\n", check.buf, e2.buf);
	strvec_clear(&files);
	strbuf_release(&base);
	strbuf_release(&check);
	strbuf_release(&from);
	strbuf_release(&to);
	strbuf_release(&e2);
	return r;
}

/*
 * 1 when a patch of spec's series touches a file named Kconfig* (in any
 * folder), 0 when none does, -1 with err when a patch cannot be read.
 */
static int series_touches_kconfig(const struct kernel_build_spec *spec,
				  struct strbuf *err)
{
	struct strvec paths = STRVEC_INIT;
	int r = 0;

	for (size_t i = 0; i < spec->patches.nr && r == 0; i++)
		if (build_patch_paths(spec->patches.v[i], &paths, err) < 0)
			r = -1;
	for (size_t i = 0; i < paths.nr && r == 0; i++) {
		const char *slash = strrchr(paths.v[i], '/');

		r = starts_with(slash ? slash + 1 : paths.v[i], "Kconfig");
	}
	strvec_clear(&paths);
	return r;
}

/*
 * The layer's steps between its mounts and its discard.  The controller
 * applies the series in the merged src; every step of make sees the
 * merged folders at the tree's own paths (tree/src, tree/out: spec's
 * view, build_view), so the command lines kbuild recorded when the base
 * was built are the ones it finds now, and only what the series changed
 * is compiled again.  A series that changes a Kconfig file is configured
 * again, as its fresh build is (the base's .config with make's own
 * syncconfig would keep the base's answers and give a new visible option
 * its default, where the config spec, e.g. tinyconfig's allnoconfig,
 * says no): only the options whose value changed then rebuild what uses
 * them.
 */
static int build_merged(const struct kernel_build_spec *spec,
			struct kernel_build_result *res, const char *tree,
			const char *src, const char *out, int *ret_steps,
			struct strbuf *log, struct strbuf *err)
{
	struct kernel_build_spec seen = *spec;
	struct strbuf src_at = STRBUF_INIT, out_at = STRBUF_INIT;
	struct build_view view;
	int kconfig = series_touches_kconfig(spec, err), r = -1;

	if (kconfig < 0)
		return -1;
	strbuf_addf(&src_at, "%s/src", tree);
	strbuf_addf(&out_at, "%s/out", tree);
	view = (struct build_view){ .src = src,
				    .src_at = src_at.buf,
				    .out = out,
				    .out_at = out_at.buf };
	seen.view = &view;
	/* patch -p1, as in the tree (build_tree.c's sync_git too). */
	if (build_apply_series(spec, src, 0, log, err) < 0)
		goto out;
	if (kconfig) {
		strbuf_addstr(log,
			      "the series changes a Kconfig file: "
			      "configuring again, as a fresh build does\n");
		if (build_configure(&seen, src_at.buf, out_at.buf, log, err) <
		    0)
			goto out;
	}
	if (build_run_make(&seen, src_at.buf, out_at.buf, ret_steps, log, err) <
		    0 ||
	    build_read_release(&seen, src_at.buf, out_at.buf, &res->release,
			       err) < 0)
		goto out;
	/* The layer goes: keep the images (as the controller's files). */
	r = build_keep_images(out, res, err);
out:
	strbuf_release(&src_at);
	strbuf_release(&out_at);
	return r;
}

/*
 * Build spec's series on a layer over tree (built by build_tree_base())
 * in the folder layer: mount the layers of src/ and out/, apply, make,
 * read the release and keep the images into res->dir, then discard the
 * layer whatever happened (a layer left there by a killed build is
 * discarded first).  *ret_steps: make's compile steps.  0; 1 when no
 * layer can be mounted here (the caller builds afresh; err says why);
 * -1 with err.
 */
int build_in_layer(const struct kernel_build_spec *spec,
		   struct kernel_build_result *res, const char *tree,
		   const char *layer, int *ret_steps, struct strbuf *log,
		   struct strbuf *err)
{
	struct strbuf lower = STRBUF_INIT, l = STRBUF_INIT, src = STRBUF_INIT,
		      out = STRBUF_INIT, e2 = STRBUF_INIT;
	int r = -1;

	*ret_steps = 0;
	if (overlay_discard(layer, err) < 0)
		goto out;
	strbuf_addf(&lower, "%s/src", tree);
	strbuf_addf(&l, "%s/src", layer);
	if (overlay_mount(lower.buf, l.buf, &src, err) < 0) {
		r = 1;
		goto out;
	}
	strbuf_reset(&lower);
	strbuf_reset(&l);
	strbuf_addf(&lower, "%s/out", tree);
	strbuf_addf(&l, "%s/out", layer);
	if (overlay_mount(lower.buf, l.buf, &out, err) < 0) {
		r = 1;
		goto out;
	}
	strbuf_addf(log,
		    "the series builds on a layer over the base's tree: %s\n",
		    layer);
	r = build_merged(spec, res, tree, src.buf, out.buf, ret_steps, log,
			 err);
out:
	if (overlay_discard(layer, &e2) < 0) {
		strbuf_addf(log, "cannot discard the layer: %s\n", e2.buf);
		if (r == 0) {
			strbuf_addbuf(err, &e2);
			r = -1;
		}
	}
	strbuf_release(&lower);
	strbuf_release(&l);
	strbuf_release(&src);
	strbuf_release(&out);
	strbuf_release(&e2);
	return r;
}

/*
 * Every layer under cache_dir/layers/ whose tree nobody builds in now
 * (its lock, trees/NAME.lock, free) was left by a build or controller
 * that was killed: unmount and remove it.  A layer whose tree is locked
 * belongs to a live build and is left alone.  Best effort: what cannot be
 * swept is said in log, and the next build on its tree sweeps it again.
 */
void build_layers_sweep(const char *cache_dir, struct strbuf *log)
{
	struct strbuf dir = STRBUF_INIT, p = STRBUF_INIT, e = STRBUF_INIT;
	DIR *d;
	struct dirent *de;

	strbuf_addf(&dir, "%s/layers", cache_dir);
	d = opendir(dir.buf);
	while (d && (de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/trees/%s.lock", cache_dir, de->d_name);
		fd = open(p.buf, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue; /* a live build's */
		}
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir.buf, de->d_name);
		strbuf_reset(&e);
		if (overlay_discard(p.buf, &e) < 0)
			strbuf_addf(log, "cannot sweep the layer %s: %s\n",
				    p.buf, e.buf);
		else
			strbuf_addf(log,
				    "swept the layer %s, left by a "
				    "killed build\n",
				    p.buf);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	strbuf_release(&dir);
	strbuf_release(&p);
	strbuf_release(&e);
}
