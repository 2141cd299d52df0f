/*
 * comparisons.h - the `comparisons` rows and what a comparison reads.
 *
 * The statements of a comparison (analysis/compare_db.c holds its
 * method's use of them): the kernels, plan and `results` rows of a pair
 * of kernels (reads of `results` for comparing live here, by the family
 * of what reads them), the `comparisons` rows stored and deleted, and the
 * `regressions` view as the verbs read it.  Nothing here prints: each
 * function returns 0, or -1 with the server's message in err.
 */
#ifndef SCHEDFARM_COMPARISONS_H
#define SCHEDFARM_COMPARISONS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/*
 * The `regressions` view for `regressions`, newest first, at most limit
 * rows, filtered by since (an ISO time), host (a name) and min_change (the
 * least |%change|); a NULL string or a NaN min_change filters nothing.
 * Columns: computed_at (ISO, UTC), patch_id, base_kernel, new_kernel,
 * host, workload, params, metric, unit, pct_change, ci_low, ci_high,
 * p_value.  Into *ret (the caller frees it).  0, or -1 with err.
 */
int comparisons_regressions(struct db *db, const char *since, const char *host,
			    double min_change, int64_t limit,
			    struct db_result **ret, struct strbuf *err);

/* ---- what a comparison reads ---------------------------------------- */

/*
 * Patch patch_id's two kernels: columns coalesce(base_kernel_id, the id of
 * the kernel named by its base), kernel_id (either NULL when not there
 * yet); no row when there is no such patch.  Into *ret (the caller frees
 * it).  0, or -1 with err.
 */
int comparisons_patch_kernels(struct db *db, int64_t patch_id,
			      struct db_result **ret, struct strbuf *err);

/* The kernel named name: column id, no row when none.  0, or -1. */
int comparisons_kernel_by_name(struct db *db, const char *name,
			       struct db_result **ret, struct strbuf *err);

/* The names of kernels base_id and new_id: one row, two columns (NULL for
 * an id that is no kernel).  0, or -1. */
int comparisons_kernel_names(struct db *db, int64_t base_id, int64_t new_id,
			     struct db_result **ret, struct strbuf *err);

/* The newest plan named name or with sha256 name: column id, no row when
 * none.  0, or -1. */
int comparisons_plan_by_name(struct db *db, const char *name,
			     struct db_result **ret, struct strbuf *err);

/*
 * The plans patch_id's own jobs ran (not its bisection steps), in the
 * order it first ran them: columns plan_id, name, sha256, the first job
 * of it (whose --set overrides are the submission's), the patch's
 * fresh_base ('t' or 'f').  0, or -1.
 */
int comparisons_patch_plans(struct db *db, int64_t patch_id,
			    struct db_result **ret, struct strbuf *err);

/* Plan plan_id: columns name, body, id, sha256; no row when none.  0, or
 * -1. */
int comparisons_plan_of_id(struct db *db, int64_t plan_id,
			   struct db_result **ret, struct strbuf *err);

/*
 * The one plan that every job of patch patch_id ran: columns name, body,
 * id; no row when they ran several (or there is no job).  0, or -1.
 */
int comparisons_plan_of_patch(struct db *db, int64_t patch_id,
			      struct db_result **ret, struct strbuf *err);

/*
 * The results a comparison of kernels base_id and new_id reads: those of
 * finished (done or imported) runs, no warmup, filtered by host (a name),
 * workload, plan_id (0: any), for a look of an adaptive sequence or an
 * answer with a fresh base (patch_id > 0) the runs of the patch's jobs
 * of block <= max_block, and with plan_set (NULL: any) the runs of jobs
 * queued with exactly those --set overrides (imported runs: none).
 * Columns: host_id, host, workload, params::text (jsonb's text), the
 * parameters as "k=v;k=v", metric, unit, direction, kernel_id, the
 * observation key (one per boot of a job, else per run), value, n,
 * stddev; by host, workload, params (numbers in numeric order), metric,
 * kernel, observation, iteration.  Into *ret.  0, or -1 with err.
 */
int comparisons_results(struct db *db, int64_t base_id, int64_t new_id,
			const char *host, const char *workload, int64_t plan_id,
			int64_t patch_id, int64_t max_block,
			const struct strvec *plan_set, struct db_result **ret,
			struct strbuf *err);

/*
 * Whose runs of kernel base_id a comparison with these filters (as
 * comparisons_results() applies them, no patch filter) reads, less those
 * of patch own_patch's own jobs (its bisection steps are others'): one
 * row per job, columns runs.job_id (NULL for imported runs) and the
 * number of its runs, by job id, the imported last.  0, or -1 with err.
 */
int comparisons_base_sources(struct db *db, int64_t base_id, const char *host,
			     int64_t plan_id, const struct strvec *plan_set,
			     int64_t own_patch, struct db_result **ret,
			     struct strbuf *err);

/*
 * Why a comparison of base_id and new_id with these filters found
 * nothing: one row: the finished runs of the two kernels, of them those
 * on host (a name), of workload, of plan_id (0: none given), and the
 * number of hosts named host (all hosts when host is NULL).  0, or -1.
 */
int comparisons_runs_counts(struct db *db, int64_t base_id, int64_t new_id,
			    const char *host, const char *workload,
			    int64_t plan_id, struct db_result **ret,
			    struct strbuf *err);

/*
 * The distinct values of col among the finished runs of kernels base_id
 * and new_id, as "a, b, c" appended to out (nothing on an error or none):
 * col is one of "h.name" (hosts), "r.workload", "p.name" (plans); any
 * other appends nothing.
 */
void comparisons_runs_values(struct db *db, int64_t base_id, int64_t new_id,
			     const char *col, struct strbuf *out);

/* ---- the comparisons rows ------------------------------------------- */

/*
 * Take the lock that makes one storer of comparisons at a time, for the
 * rest of the caller's transaction (two concurrent compares of one key
 * would both retire the old row and collide on the one-latest-per-key
 * index).  0, or -1 with err.
 */
int comparisons_lock(struct db *db, struct strbuf *err);

/*
 * Insert one `comparisons` row; a holds its 44 parameters in this order:
 * base_kernel_id, new_kernel_id, patch_id (NULL: none), host_id,
 * workload, params (JSON text), metric, unit, better, n_base, n_new,
 * mean_base, mean_new, stddev_base, stddev_new, pct_change, ci_low,
 * ci_high, p_value, tau, verdict, method_version, ci90_low, ci90_high,
 * ci_method, p_method, note, scale, diff, diff_low, diff_high,
 * diff90_low, diff90_high, tau_ref, ci_unbounded, nc_level, alpha,
 * p_adjusted, family, look (0: none), looks (0: none), plan_id (0:
 * none), question, planned (schema 017).  0, or -1.
 */
int comparisons_insert(struct db *db, const struct db_args *a,
		       struct strbuf *err);

/*
 * Delete every `comparisons` row (not only the latest) of kernels
 * base_id and new_id, of host (a name) and workload when not NULL; how
 * many in *ret_rows.  0, or -1 with err.
 */
int comparisons_delete(struct db *db, int64_t base_id, int64_t new_id,
		       const char *host, const char *workload,
		       int64_t *ret_rows, struct strbuf *err);

#endif
