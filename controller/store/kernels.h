/*
 * kernels.h - the one owner of `kernels` rows: a kernel under a name,
 * with where it comes from (base, ref, config, series) and where its
 * image is once built or registered.
 *
 * Rows come from `submit` (the base, and base+PLM# to build), `kernel
 * build` (a build by hand), `kernel add` (an image built elsewhere) and
 * `import` (a name for imported numbers).  Their build state moves
 * queued -> building -> built | failed here too; lab/build.c builds and
 * knows nothing of the database.
 */
#ifndef SCHEDFARM_KERNELS_H
#define SCHEDFARM_KERNELS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* kernels.name: at most this many bytes (schema 001), printable (006). */
#define KERNEL_NAME_MAX_LEN 200

/*
 * What a build made (lab/build.c fills it, kernels_build_done() records
 * it): defined here so that the store needs nothing of the lab.
 */
struct kernel_build_result {
	char *cache_key; /* 64 hex */
	char *base_id; /* "tarball:SHA", "git:COMMIT", "dir:PATH" */
	char *series_sha256; /* NULL without patches */
	char *config_sha256;
	char *dir; /* CACHE/builds/KEY */
	char *release; /* make kernelrelease */
	char *vmlinux; /* for direct boot */
	char *bzimage; /* for PXE / kexec / real hardware */
	char *log_path;
	int64_t text, data, bss;
	double seconds; /* of the build that made it */
	int cached; /* 1: found in the cache, nothing built now */
	/* 1: built in the incremental tree of its base (the base alone) or
	 * on a layer over it; 0: in a fresh tree (kernels.build_mode). */
	int incremental;
	struct strbuf log; /* this call's log (the full log on a build) */
};

/* What a caller knows of a kernel; NULL fields are not known (kept). */
struct kernel_fields {
	const char *name;
	const char
		*base; /* source folder, tarball, repository or kernel name */
	const char *base_ref;
	const char *config_spec;
	const char *series_sha256;
	const char *build_state; /* queued, building, external (new rows) */
	const char *image_path, *vmlinux_path, *initrd_path, *release;
	/* 1: the name labels the kernel a local or ssh host runs (submit
	 * and run --kernel): nothing is built or booted under it.  A row
	 * of that name that has no image becomes a label too; release, when
	 * given, is what the host said it runs (uname -r). */
	int labelled;
};

/*
 * How a row that exists under the name is treated: KERNEL_KEEP leaves it
 * as it is (find or create); KERNEL_SET_SOURCE overwrites base, ref and
 * config and makes it `building` unless it is built (a build by hand);
 * KERNEL_SET_IMAGE overwrites image, vmlinux, initrd and release (an
 * image registered again).
 */
enum kernel_upsert { KERNEL_KEEP, KERNEL_SET_SOURCE, KERNEL_SET_IMAGE };

/*
 * Insert kernel f->name (base defaults to the name, state to external),
 * or find or update the row of that name as `how` says; its id in
 * *ret_id.  0, or -1 with err.
 */
int kernels_upsert(struct db *db, const struct kernel_fields *f,
		   enum kernel_upsert how, int64_t *ret_id, struct strbuf *err);

/*
 * Kernel kernel_id is its base plus the first `count` files of patch
 * patch_id's series (schema 007), built in a fresh tree per build or, with
 * incremental, in the one tree of its base and config that bisection
 * steps share (lab/build.c).  Until the kernel is built, build_mode is
 * the mode asked for (a controller that is not root honours only
 * 'incremental'; a root one builds every job's kernel on the tree);
 * kernels_build_done() then records how it was built.  0 or -1 with err.
 */
int kernels_set_series(struct db *db, int64_t kernel_id, int64_t patch_id,
		       int count, int incremental, struct strbuf *err);

/* The build of kernel_id starts: state building.  0 or -1 with err. */
int kernels_build_started(struct db *db, int64_t kernel_id, struct strbuf *err);

/*
 * The build of kernel_id failed: state failed, with the error and the
 * last part of the log (bytes that are not UTF-8 written as \xNN, so
 * that what a compiler printed never costs the record).  0 or -1 with
 * err.
 */
int kernels_build_failed(struct db *db, int64_t kernel_id, const char *error,
			 const char *log, size_t log_len, struct strbuf *err);

/*
 * The build of kernel_id succeeded (or was found in the cache): record
 * what res says (release, image, size, time, log, cache key, and in
 * build_mode how it was built: 'incremental' or 'fresh').  0, or -1
 * with err; when the row refuses the record, the kernel is set failed
 * with that reason rather than left `building`.
 */
int kernels_build_done(struct db *db, int64_t kernel_id,
		       const struct kernel_build_result *res,
		       struct strbuf *err);

/*
 * What uses kernel_id, in words for a refusal: "job 5 (queued), job 6
 * (done) and 3 more jobs, patch PLM#2, 12 runs" (appended to out; empty
 * when nothing does).  0, or -1 with err.
 */
int kernels_users(struct db *db, int64_t kernel_id, struct strbuf *out,
		  struct strbuf *err);

/*
 * Remove kernel_id, and with it the jobs of it that were cancelled before
 * anything of theirs was measured (no boot, no run: a mistyped --kernel
 * label); a patch left with no job at all then no longer names it.  What
 * went is appended to ret_gone ("job 5, job 7; patch PLM#3 no longer
 * names it").  0; 1 when other jobs, patches or runs still use it
 * (nothing removed); -1 with err.
 */
int kernels_remove(struct db *db, int64_t kernel_id, struct strbuf *ret_gone,
		   struct strbuf *err);
/*
 * The kernels whose name is name_or_id, or whose id is (as text): one
 * column, id; the caller says what zero or two rows mean.  Into *ret
 * (the caller frees it).  0, or -1 with err.
 */
int kernels_lookup(struct db *db, const char *name_or_id,
		   struct db_result **ret, struct strbuf *err);

/*
 * Every kernel, by id, for `kernel list`: id, name, the state shown
 * (labelled; cancelled for a kernel still queued whose every job was
 * cancelled; else the build state), release ('' when unknown),
 * vmlinux_text, vmlinux_data, vmlinux_bss, build_seconds, cache_key (''),
 * labelled, build_state.  Into *ret.  0, or -1 with err.
 */
int kernels_list(struct db *db, struct db_result **ret, struct strbuf *err);

/*
 * Kernel id (as text) for `kernel show`: its columns name .. built_at
 * (0..18), build_log ('' when none, 19), labelled (20) and the row as one
 * JSON object (21), with build_log only when with_log.  Into *ret.  0, or
 * -1 with err.
 */
int kernels_show(struct db *db, const char *id, int with_log,
		 struct db_result **ret, struct strbuf *err);
/*
 * What building job_id's kernel needs (lab/build.c): no row when there is
 * no such job, else its kernel's id, build_state, base, base_ref,
 * config_spec, the job's patch series in hex (NULL when the kernel names
 * its own series), image_path, release, series_patch_id (0: none),
 * series_count (0), build_mode, name.  Into *ret (the caller frees it).
 * 0, or -1 with err.
 */
int kernels_job_build_row(struct db *db, int64_t job_id, struct db_result **ret,
			  struct strbuf *err);

/*
 * The kernel row named name other than not_id (the base a `submit --base
 * NAME` names): base, base_ref, config_spec; no row when there is none.
 * Into *ret.  0, or -1 with err.
 */
int kernels_base_source(struct db *db, const char *name, int64_t not_id,
			struct db_result **ret, struct strbuf *err);

#endif
