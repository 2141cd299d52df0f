/*
 * kcidb.h - what an export to KernelCI's common database (KCIDB) reads,
 * and the `kcidb_exports` rows that record what was sent (schema 018;
 * doc/KCIDB.md).
 *
 * The reads are the rows of one answered patch (PLM#) as report/kcidb.c
 * maps them to KCIDB objects: the patch and its two kernels, its files,
 * its boots and the means of each boot's metrics.  The verdicts are
 * pages_latest_comparisons()'s (store/pages.h), the rows the patch page
 * shows.  Times are RFC 3339 in UTC ("2026-12-05T04:16:40.123456Z").
 * The writes record each answer's export once: written to a file, tried,
 * submitted, processed or failed, with its tries and last error.  Nothing
 * here prints: each function returns 0, or -1 with the server's message
 * in err; a result handed out in *ret is the caller's to free.
 */
#ifndef SCHEDFARM_STORE_KCIDB_H
#define SCHEDFARM_STORE_KCIDB_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* Which answers kcidb_answers() picks besides its filters. */
enum kcidb_pick {
	KCIDB_PICK_ANY, /* every answered patch that matches */
	KCIDB_PICK_NEW, /* those with no kcidb_exports row yet */
	KCIDB_PICK_DUE, /* those never submitted, or whose retry is due
			 * (status written, pending or failed with
			 * next_try_at NULL or past); never processed or
			 * submitted ones */
};

/*
 * The answered patches to export (answer_state 'answered', or 'failed':
 * a series that did not apply, a job that failed, is an answer too), by
 * PLM#:
 * patch (0: any), kernel (NULL: any; else the base or patched kernel's
 * name), since (NULL: any; else answered at or after, a timestamptz
 * PostgreSQL reads), and pick.  Columns: 0 p.id, 1 p.name, 2 p.base,
 * 3 p.created_at, 4 p.answered_at (both RFC 3339), 5 the base kernel's
 * id, 6 its name, 7 the patched kernel's id, 8 its name, 9
 * answer_verdict, 10 answer_headline, 11 the answer host's name (NULL
 * when gone), 12 the base kernel's base_ref, 13 submitter, 14
 * answer_host_id, 15 n_patches, 16 the base kernel's base (what it was
 * made from), 17 the series' patchset_hash as KCIDB defines it (sha256
 * of each file's newline-terminated sha256 hex, in order; "" for none),
 * 18 answer_note, 19 answer_state.  The kernels' columns are NULL when
 * the patch has no such kernel.
 */
int kcidb_answers(struct db *db, int64_t patch, const char *kernel,
		  const char *since, enum kcidb_pick pick,
		  struct db_result **ret, struct strbuf *err);

/* The files of patch's series in order.  Columns: position, name,
 * subject, sha256 (the file's, 64 hex), the file's bytes in hex. */
int kcidb_patch_files(struct db *db, int64_t patch, struct db_result **ret,
		      struct strbuf *err);

/*
 * Kernels base_k and new_k, base first.  Columns: 0 id, 1 name, 2 base,
 * 3 base_ref, 4 config_spec, 5 build_state, 6 build_seconds, 7 the
 * build's start (built_at less build_seconds, RFC 3339; NULL when never
 * built), 8 build_error, 9 build_mode, 10 release, 11 series_count,
 * 12 the make commands its log shows ("$ make ..." lines joined by
 * " && "; NULL when none), 13 build_dir, 14 whether it has a build log.
 */
int kcidb_kernels(struct db *db, int64_t base_k, int64_t new_k,
		  struct db_result **ret, struct strbuf *err);

/*
 * The boots behind patch's answer: the runs of the patch's own jobs and
 * the base runs it reused (the base kernel's on the answer host under the
 * plans of its jobs), one row per (kernel, job, boot), and each job of
 * the patch that ended failed without a run as one row with boot -1.
 * Columns: 0 kernel_id, 1 job id (0 for imported runs), 2 boot, 3 host
 * name, 4 start (RFC 3339; NULL when none), 5 duration in seconds (NULL
 * when unknown), 6 runs, 7 runs done, 8 imported (t/f), 9 the job's
 * error_phase, 10 the job's error, 11 the outcome of the job's newest
 * `boots` row, 12 its blame, 13 the host's kind, 14 whether the
 * job's newest boot has a console log (t/f), 15 the first of its runs
 * with a console log (NULL when none).
 */
int kcidb_boots(struct db *db, int64_t patch, struct db_result **ret,
		struct strbuf *err);

/*
 * The mean of each metric per boot of kcidb_boots()'s runs (warm-up
 * iterations left out).  Columns: 0 kernel_id, 1 job id (0 when
 * imported), 2 boot, 3 workload, 4 params as "key=value" items joined by
 * the byte 0x1f, keys sorted, 5 metric, 6 unit, 7 mean, 8 observations,
 * 9 params::text, 10 host id, 11 a stable key of (workload, params,
 * metric): 16 hex of their md5, for the test's id.
 */
int kcidb_metrics(struct db *db, int64_t patch, struct db_result **ret,
		  struct strbuf *err);

/* ---- what was sent ------------------------------------------------ */

/*
 * Record that patch's answer was exported to a file under origin as
 * document: a new row with status 'written', or the document of a row
 * still 'written' replaced (a row past that keeps what was sent).
 */
int kcidb_export_written(struct db *db, int64_t patch, const char *origin,
			 const char *document, struct strbuf *err);

/*
 * Before a POST: the row of patch (made when missing) gets document,
 * origin, status 'pending' and one more try; *ret_tries says which try
 * this is.
 */
int kcidb_export_try(struct db *db, int64_t patch, const char *origin,
		     const char *document, int64_t *ret_tries,
		     struct strbuf *err);

/* The endpoint took patch's document as submission id: status
 * 'submitted', submitted_at now, last_error cleared. */
int kcidb_export_submitted(struct db *db, int64_t patch, const char *id,
			   struct strbuf *err);

/*
 * A try or a poll of patch failed (failed: the endpoint said processing
 * failed, else the request did): status 'failed' or 'pending', error as
 * last_error (cut to 8192 bytes), next_try_at now + retry_ms doubled per
 * try so far, at most an hour.
 */
int kcidb_export_failed(struct db *db, int64_t patch, int failed,
			const char *error, int64_t retry_ms,
			struct strbuf *err);

/* The endpoint says patch's submission is processed: status
 * 'processed', done_at now. */
int kcidb_export_processed(struct db *db, int64_t patch, struct strbuf *err);

/*
 * The submitter's lock, so that two controllers never send the same
 * answer at once: a session advisory lock.  *ret_got 1 when this
 * connection holds it now, 0 when another does.  kcidb_unlock() lets it
 * go.  0, or -1 with err.
 */
int kcidb_lock_try(struct db *db, int *ret_got, struct strbuf *err);
int kcidb_unlock(struct db *db, struct strbuf *err);

/*
 * The submissions to poll: rows with status 'submitted', by patch_id.
 * Columns: patch_id, submission_id, tries.
 */
int kcidb_exports_polling(struct db *db, struct db_result **ret,
			  struct strbuf *err);

/*
 * The row of patch, for `export kcidb --status` and the tests.  Columns:
 * status, submission_id, tries, last_error, exported_at, next_try_at
 * (RFC 3339).  No row when patch was never exported.
 */
int kcidb_export_row(struct db *db, int64_t patch, struct db_result **ret,
		     struct strbuf *err);

#endif
