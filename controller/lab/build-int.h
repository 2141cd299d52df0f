/*
 * build-int.h - what the files of a kernel build share, private to
 * lab/build*.c.  build.c drives a build (build.h) through the steps the
 * others provide, and build_tree.c reuses them for the incremental tree;
 * none of them calls back up into build.c or build_tree.c:
 *
 *   build.c -> build_layer.c -> build_tree.c -> build_source.c, build_make.c
 *   build_layer.c -> build_make.c, build_cache.c, lab/overlay.c
 *   build.c -> build_cache.c -> build_source.c -> build_step.c
 *   build_make.c -> build_step.c -> build_ccache.c
 *   build.c, build_cache.c -> build_lock.c
 */
#ifndef SCHEDFARM_BUILD_INT_H
#define SCHEDFARM_BUILD_INT_H

#include "lab/build.h"
#include "run-command.h"
#include "strbuf.h"
#include "strvec.h"

/* Folders of the cache: readable by a libvirt host's qemu. */
#define BUILD_CACHE_DIR_MODE 0755

/* Folders inside the cache: the qemu of a libvirt host (another user)
 * must reach builds/KEY/out/vmlinux by its path, so others may pass
 * through (x) but neither list (r) nor write. */
#define CACHE_DIR_MODE 0711

/* Run cp, appending the command and what it printed to log; spec (may be
 * NULL) hears once a second that it still runs. */
int build_run_logged(const struct kernel_build_spec *spec,
		     struct child_process *cp, struct strbuf *log,
		     struct strbuf *err);

/*
 * make -C src O=outdir -jN vmlinux bzImage, its output appended to log
 * line by line; spec's progress hears each line (about once a second, the
 * lines printed since) or a NULL line in a silent second, and stops make
 * by returning a negative number ("the build was stopped").  spec's
 * timeout counts from make's start.  ret_steps: the compile steps seen
 * ("  CC      x.o").  0, or -1 with err.
 */
int build_run_make(const struct kernel_build_spec *spec, const char *src,
		   const char *outdir, int *ret_steps, struct strbuf *log,
		   struct strbuf *err);

/*
 * Apply spec's patches in order in the tree src (git am when git, else
 * patch -p1); a patch that does not apply fails with its rejects in log.
 */
int build_apply_series(const struct kernel_build_spec *spec, const char *src,
		       int git, struct strbuf *log, struct strbuf *err);

/*
 * The pristine tree of spec's base (res->base_id): a tarball unpacked
 * once into the cache, or the source folder itself.  Not for git bases.
 */
int build_base_pristine(const struct kernel_build_spec *spec,
			const struct kernel_build_result *res,
			struct strbuf *ret, struct strbuf *log,
			struct strbuf *err);

/*
 * The paths (relative, -p1) a patch file creates, changes, deletes or
 * renames, appended to files.  -1 with err for a path that is absolute
 * or climbs out of the tree ("..").
 */
int build_patch_paths(const char *patch_file, struct strvec *files,
		      struct strbuf *err);

/*
 * Make tree/src hold spec's base plus its series, rewriting only the
 * files whose bytes differ from the last build in that tree, so make's
 * own dependency tracking rebuilds exactly what changed (build_tree.c).
 * The tree is created (hard-linked from the pristine base, or a git
 * worktree) when missing; *ret_fresh says so.  Objects left by a build
 * that was killed are removed first.  0, or -1 with err (log has the
 * commands and rejects).
 */
int build_tree_prepare(const struct kernel_build_spec *spec,
		       const struct kernel_build_result *res, const char *tree,
		       int *ret_fresh, struct strbuf *log, struct strbuf *err);

/* The build in tree is starting (a marker for killed builds) or ended. */
int build_tree_mark(const char *tree, int building, struct strbuf *err);

/* ---- build_layer.c ---- */

/*
 * Make tree hold spec's base alone, built, unless its stamp says it is:
 * the only build that writes the tree (a trusted one, without spec's
 * patches).  A tree from before the layers is made again.  *ret_fresh:
 * the tree is new; *ret_steps: make's steps (0: already built).  0, or
 * -1 with err.
 */
int build_tree_base(const struct kernel_build_spec *spec,
		    const struct kernel_build_result *res, const char *tree,
		    int *ret_fresh, int *ret_steps, struct strbuf *log,
		    struct strbuf *err);

/*
 * Build spec's series on a copy-on-write layer (lab/overlay.c) over the
 * built tree, in the folder layer, and keep the images into res->dir;
 * the layer is discarded at the end whatever happened, and first when a
 * killed build left one.  0; 1 when no layer can be mounted here (err
 * says why: build afresh); -1 with err.
 */
int build_in_layer(const struct kernel_build_spec *spec,
		   struct kernel_build_result *res, const char *tree,
		   const char *layer, int *ret_steps, struct strbuf *log,
		   struct strbuf *err);

/*
 * Does spec's series apply to its base (a tarball or folder; a git base
 * is not checked here)?  Tried with patch -p1 on copies of the files it
 * touches, in res->dir/check, removed after: a stale patch fails before
 * the base's tree is built or waited for.  0, or -1 with err and the
 * rejected hunks in log.
 */
int build_series_check(const struct kernel_build_spec *spec,
		       const struct kernel_build_result *res,
		       struct strbuf *log, struct strbuf *err);

/*
 * Unmount and remove the layers under cache_dir/layers/ whose tree is not
 * locked (left by a killed build or controller); what fails is said in
 * log, nothing else.
 */
void build_layers_sweep(const char *cache_dir, struct strbuf *log);

/* ---- build_step.c ---- */

/* 1 when path is a folder (links followed), else 0. */
int build_is_dir(const char *path);

/* 1 when path is a regular file (links followed), else 0. */
int build_is_file(const char *path);

/* 1 when path has a .git (a repository with a work tree, or a
 * worktree), else 0. */
int build_is_git_repo(const char *path);

/* Files of the cache: whole or absent (a build's `result` is what
 * "built" means), readable by whoever boots the kernel. */
int build_write_file(const char *path, const char *data, size_t len,
		     struct strbuf *err);

/*
 * A build on a layer (build_layer.c) names the tree's own folders in
 * every command (make -C src_at O=out_at): kbuild records each object's
 * command line and rebuilds an object whose line changed, so a layer's
 * paths would rebuild the whole kernel.  Its steps see the layer's
 * merged folders src and out at those paths (build_confine()); what the
 * controller itself reads or writes there goes to src and out
 * (build_host_path()).
 */
struct build_view {
	const char *src, *src_at;
	const char *out, *out_at;
};

/* Where the controller finds path, a folder spec's steps name: its
 * view's merged folder for src_at or out_at, else path itself. */
const char *build_host_path(const struct kernel_build_spec *spec,
			    const char *path);

/*
 * Confine cp, a step that runs the tree's code (make and the scripts and
 * host tools it runs), to the sandbox (lab/sandbox.h): the tree src and
 * the base's git repository (a worktree's git data) and the spec's
 * fragments read-only, outdir writable and handed to the farm's user;
 * src and outdir are bound from spec's view (build_view) when it has one.
 * Where the sandbox cannot be had, only the environment is scrubbed, or
 * a build of patches is refused (sandbox_allow()).  0, or -1 with err.
 */
int build_confine(const struct kernel_build_spec *spec,
		  struct child_process *cp, const char *src, const char *outdir,
		  struct strbuf *err);

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
			struct strbuf *err);

/* Is path, found in the cache, the farm's own (see build.c's top)?  0,
 * or -1 with err. */
int build_cache_owned(const char *path, int want_dir, struct strbuf *err);

/* ---- build_ccache.c ---- */

struct sandbox_paths;

/* Append make's CC="ccache gcc" to args when ccache is installed (every
 * make of a build, so that .config is the same whoever built it). */
void build_ccache_make_args(struct strvec *args);

/*
 * The compiler cache for cp, a step of spec's build that runs the tree's
 * code, confined (paths: what its sandbox binds) or not: a base alone
 * (no patches) reads and writes it, capped, and makes its folders
 * (build_ccache.c's top); a series reads it, bound read-only, confined,
 * or has it off (CCACHE_DISABLE) unconfined or before any base's build
 * made it.  Nothing without ccache.  0, or -1 with err.
 */
int build_ccache_confine(const struct kernel_build_spec *spec,
			 struct child_process *cp, struct sandbox_paths *paths,
			 int confined, struct strbuf *err);

/* One line for the build's log: which cache spec's build uses and how,
 * or that it builds without one. */
void build_ccache_describe(const struct kernel_build_spec *spec,
			   struct strbuf *log);

/* ---- build_source.c ---- */

/* The git commit of ref (NULL: HEAD) in repo, appended to ret; 0, or -1
 * with err. */
int build_git_commit(const char *repo, const char *ref, struct strbuf *ret,
		     struct strbuf *err);

/* Make res->dir/src: a fresh tree of the base.  *ret_git: it is git. */
int build_prepare_tree(const struct kernel_build_spec *spec,
		       struct kernel_build_result *res, const char *src,
		       int *ret_git, struct strbuf *log, struct strbuf *err);

/* ---- build_make.c ---- */

/*
 * The build's .config in outdir: make tinyconfig or defconfig, or the
 * spec's config file with olddefconfig; then its fragments merged
 * (merge_config.sh) and olddefconfig again.  Each step confined, logged
 * to log.  0, or -1 with err.
 */
int build_configure(const struct kernel_build_spec *spec, const char *src,
		    const char *outdir, struct strbuf *log, struct strbuf *err);

/* make kernelrelease in the tree: the release into *ret (the caller
 * frees it).  0, or -1 with err. */
int build_read_release(const struct kernel_build_spec *spec, const char *src,
		       const char *outdir, char **ret, struct strbuf *err);

/* size(1) of vmlinux: "   text    data     bss     dec     hex filename",
 * its figures into res.  0, or -1 with err. */
int build_read_size(const char *vmlinux, struct kernel_build_result *res,
		    struct strbuf *err);

/* ---- build_lock.c ---- */

/*
 * Take the lock file path (created 0600 when missing; a symbolic link is
 * refused) for spec's build, waiting while another build holds it: the
 * wait is said through spec's progress (a line of the build's own, steps
 * -1: "waiting for WHAT (another build holds it: WHO, pid P, for
 * 1m20s)", what naming the thing locked, e.g. "the tree of BASE"), again
 * every 5 seconds, and spec's progress hears each second between (line
 * NULL; a negative return stops the wait); log gets the first report and
 * "waited 42s for WHAT" at the end.  Once taken, who holds
 * it (pid, spec->who, the time) is written into the file for the next
 * one.  The fd that holds the lock (the caller closes it to let go), or
 * -1 with err.
 */
int build_lock(const struct kernel_build_spec *spec, const char *path,
	       const char *what, struct strbuf *log, struct strbuf *err);

/* ---- build_cache.c ---- */

/* sha256 of data (via sha256sum) into ret (64 hex + NUL).  0, or -1
 * with err. */
int build_sha256_mem(const char *data, size_t len, char ret[65],
		     struct strbuf *err);

/*
 * The start of a build: the key (unless known), the key's lock held in
 * *ret_lock (the caller closes it), and the cache asked.  0 on a hit
 * (res says where; the log says so), 1 when it must be built, -1 with err.
 */
int build_cache_lookup(const struct kernel_build_spec *spec,
		       struct kernel_build_result *res, int *ret_lock,
		       struct strbuf *err);

/*
 * The build's images into res->dir as the controller's files: vmlinux
 * (which a build must make) and bzImage (when made; else res->bzimage
 * stays NULL).  0, or -1 with err.
 */
int build_keep_images(const char *outdir, struct kernel_build_result *res,
		      struct strbuf *err);

#endif
