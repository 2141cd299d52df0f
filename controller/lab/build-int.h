/*
 * build-int.h - what build.c and build_tree.c share: the steps of a build
 * that the incremental tree reuses.  Private to lab/build*.c.
 */
#ifndef SCHEDFARM_BUILD_INT_H
#define SCHEDFARM_BUILD_INT_H

#include "lab/build.h"
#include "run-command.h"
#include "strbuf.h"
#include "strvec.h"

/* Folders of the cache: readable by a libvirt host's qemu. */
#define BUILD_CACHE_DIR_MODE 0755

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

#endif
