/*
 * build.h - turn a base kernel, a patch series and a config into a bootable
 * kernel, once.
 *
 * A build is identified by its cache key, the sha256 of (base identity,
 * series bytes, config text): the base is a release tarball (identified by
 * its sha256), a git repository at a ref (the commit id) or a plain source
 * directory (its path: the lab promises not to change it).  The result lives
 * in CACHE/builds/KEY/ (the tree, O= output, build.log, vmlinux, bzImage and
 * a `result` file); a second build of the same key finds `result` and does
 * nothing.  The series is applied in a fresh tree (a hard-linked copy of the
 * unpacked base, or a git worktree): `git am --reject` in a git tree, else
 * `patch -p1`; a patch that does not apply stops the build with the rejected
 * hunks in the log.  The config is the base config (tinyconfig, defconfig,
 * or a file) with fragments merged by the kernel's own merge_config.sh.
 * Every program runs through run-command.  Nothing here prints: progress
 * goes to a callback, failures to the err buffer and the log.
 */
#ifndef SCHEDFARM_BUILD_H
#define SCHEDFARM_BUILD_H

#include <stdint.h>

#include "store/db.h"
#include "store/kernels.h"
#include "strbuf.h"
#include "strvec.h"

struct build_view;

struct kernel_build_spec {
	const char *base; /* tarball, git repository or source directory */
	const char *ref; /* git ref when base is a repository (else NULL) */
	const char *config; /* "tinyconfig", "defconfig", or a .config file */
	struct strvec fragments; /* config fragments merged in order */
	struct strvec
		patches; /* patch files (plain diffs or mboxes) in order */
	const char *cache_dir; /* where bases and builds live (home.h) */
	int jobs; /* make -jN; 0 = number of CPUs */
	int timeout_s; /* the whole build; 0 = 4 hours */
	/* Called with each line of make's output, the number of compile
	 * steps done so far, and the step count of the last build of this
	 * configuration (0 when unknown); and with line NULL about once a
	 * second while a step of the build (tar, cp, patch, config, make)
	 * prints nothing, so that a job renews its lease through a silent
	 * minute.  With steps -1, line is the build's own news, to show as
	 * it is: "waiting for the tree of BASE (another build holds it:
	 * ...)" while another build holds what this one needs (the tree,
	 * or the same kernel), said again every few seconds.  May be NULL.
	 * A negative return stops the build (the step is killed, or the
	 * wait ends): a job that lost its lease. */
	int (*progress)(void *ctx, const char *line, int steps, int expected);
	void *progress_ctx;
	/* Who builds, for another build that waits on this one's locks
	 * ("kernel NAME / job N"); may be NULL (the pid still says). */
	const char *who;
	/* Set only by a build on a layer (build_layer.c, build-int.h): the
	 * folders its steps name are really others.  NULL otherwise. */
	const struct build_view *view;
};

void kernel_build_spec_init(struct kernel_build_spec *spec);
void kernel_build_spec_release(struct kernel_build_spec *spec);
void kernel_build_result_init(struct kernel_build_result *res);
void kernel_build_result_release(struct kernel_build_result *res);

/*
 * Work out the cache key of spec without building (reads the base's
 * identity, the patches and the config files).  Fills the identity fields
 * of res.  0, or -1 with err set.
 */
int kernel_build_key(const struct kernel_build_spec *spec,
		     struct kernel_build_result *res, struct strbuf *err);

/*
 * Build spec unless its key is in the cache.  On success (0) res describes
 * the kernel and res->cached says whether it was built now.  On failure
 * (-1) err says what failed in one sentence ("patch 2 of 3 does not apply
 * (0002-x.patch)") and res->log holds the full log, the rejected hunks
 * included.  Concurrent builds of the same key are serialised with a lock
 * file; the second finds the first's result.
 */
int kernel_build(const struct kernel_build_spec *spec,
		 struct kernel_build_result *res, struct strbuf *err);

/*
 * As kernel_build(), with the same key, cache entry and result, but built
 * in the one incremental tree of spec's base and config
 * (CACHE/trees/TKEY, build_tree.c) instead of a fresh tree: only the
 * files whose bytes differ from the tree's last build are rewritten, so
 * make rebuilds what they touch and a step of a bisection costs minutes,
 * not a full build.  The images are copied into CACHE/builds/KEY/, since
 * the tree moves on.  Builds in one tree are serialised by a lock.  The
 * tree itself is written only by the build of the base alone (made first
 * when the tree is missing or holds another base); a build with patches
 * runs on a copy-on-write layer over it (CACHE/layers/, build_layer.c)
 * that is thrown away after, so no submitter's build is another's input.
 * A controller that is not root (no overlay mount) builds patches afresh
 * (kernel_build()).
 */
int kernel_build_incremental(const struct kernel_build_spec *spec,
			     struct kernel_build_result *res,
			     struct strbuf *err);

/*
 * The commits of a linear range of git repository tree: ret_commits gets
 * good's commit, then each commit of good..bad on the first-parent line
 * (oldest first, bad's last); ret_subjects the matching subjects ("" for
 * good).  0, or -1 with err (not a repository, an unknown revision, an
 * empty range, bad not reached from good along first parents).
 */
int kernel_git_range(const char *tree, const char *good, const char *bad,
		     struct strvec *ret_commits, struct strvec *ret_subjects,
		     struct strbuf *err);

/*
 * The job path's build phase: build the kernel row of job job_id (its
 * base, its config spec, and the job's patch series from the patches row),
 * or find it built already.  The base is a source (tarball, repository,
 * folder) or, as `submit --base NAME` records it, the name of a kernel row
 * whose base, ref and config spec are used.  Updates the kernels row
 * (build_state, release, image, sizes, time, log, or build_error) and hands the
 * row back through ret_kernel_id.  A kernel that is already built (or
 * 'external') is not rebuilt and its log says "cache hit".  0 / -1 with err
 * set.
 */
int build_kernel_for_job(struct db *db, int64_t job_id, const char *cache_dir,
			 int jobs,
			 int (*progress)(void *ctx, const char *line, int steps,
					 int expected),
			 void *progress_ctx, int64_t *ret_kernel_id,
			 struct strbuf *log, struct strbuf *err);

/* ---- the compiler cache (build_ccache.c) ---- */

/* ccache's cap when no setting names one ([kernel] ccache_size). */
#define KERNEL_CCACHE_DEFAULT_MAX (5ll << 30)

/* The cap (bytes; 0 or less: the default) that the builds writing the
 * cache hand to ccache as its max_size: the settings' [kernel]
 * ccache_size, set once by the command.  Process-wide. */
void kernel_ccache_set_max(int64_t bytes);

/* The compiler cache's folder in the kernel cache cache_dir
 * (CACHE/ccache/store), appended to ret. */
void kernel_ccache_dir(const char *cache_dir, struct strbuf *ret);

/* What ccache --print-stats says of the cache. */
struct kernel_ccache_stats {
	int64_t direct_hits, preprocessed_hits, misses;
	int64_t files, size_kib;
};

/*
 * Parse the output of `ccache --print-stats` (KEY<tab>VALUE lines) into
 * ret: the hits (direct, preprocessed), misses, files and size; unknown
 * keys are skipped, each kept one must be there and lie in 0..2^53.  0,
 * or -1 with err.
 */
int kernel_ccache_parse_stats(const char *text, struct kernel_ccache_stats *ret,
			      struct strbuf *err);

/*
 * The statistics of the compiler cache of cache_dir, read by running
 * ccache --print-stats on its folder (read-only).  0 (all 0 when no build
 * made the folder yet); 1 when ccache is not installed; -1 with err.
 */
int kernel_ccache_stats(const char *cache_dir, struct kernel_ccache_stats *ret,
			struct strbuf *err);

/* The directory the farm's fragments live in ($SCHEDFARM_KERNELS_DIR, else
 * the kernels/ folder installed or beside the binary's source tree). */
const char *kernel_fragments_dir(void);

#endif
