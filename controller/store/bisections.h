/*
 * bisections.h - the rows of bisections: `bisections`, `bisection_points`
 * and `bisection_steps`, with what a bisection reads of its patch, host
 * and steps' jobs.
 *
 * The search and one step's rule are analysis/bisect.c's, starting one
 * analysis/bisect_start.c's; these are their statements (the steps' jobs
 * are queued through store/jobs.c, their kernels through
 * store/kernels.c).  Nothing here prints: each function returns 0, or -1
 * with the server's message in err; one that gives rows puts them in
 * *ret (the caller frees it).
 */
#ifndef SCHEDFARM_BISECTIONS_H
#define SCHEDFARM_BISECTIONS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/*
 * Bisection id with its host's name and plan: columns coalesce(patch_id, 0),
 * host_id, host name, plan_id, plan sha256, plan name, plan body, workload,
 * params::text, metric, direction, n_points, max_boots, priority, tree,
 * state; no row when there is none.
 */
int bisections_row(struct db *db, int64_t id, struct db_result **ret,
		   struct strbuf *err);

/*
 * Bisection id's points with their kernels: columns position,
 * coalesce(kernel_id, 0), kernel name, label, mark; by position.
 */
int bisections_points(struct db *db, int64_t id, struct db_result **ret,
		      struct strbuf *err);

/*
 * Bisection id's latest step: columns id, step, position, looks, boots,
 * state, the number of the latest step; no row when it has none.
 */
int bisections_last_step(struct db *db, int64_t id, struct db_result **ret,
			 struct strbuf *err);

/*
 * Mark point pos of bisection id ("good", "bad", ...).
 */
int bisections_set_mark(struct db *db, int64_t id, int64_t pos,
			const char *mark, struct strbuf *err);

/*
 * A new step of bisection id: step, on point pos (kernel_id), boots of
 * its first look; one row, column id.
 */
int bisections_open_step(struct db *db, int64_t id, int64_t step, int64_t pos,
			 int64_t kernel_id, int64_t boots,
			 struct db_result **ret, struct strbuf *err);

/*
 * Step step_id now has looks looks and boots boots.
 */
int bisections_step_looks(struct db *db, int64_t step_id, int64_t looks,
			  int64_t boots, struct strbuf *err);

/*
 * End bisection id as failed, why as its error and result.
 */
int bisections_fail(struct db *db, int64_t id, const char *why,
		    struct strbuf *err);

/*
 * The jobs of step step_id: one row: how many are live, and the last
 * failed or cancelled one as "STP#id state in phase: error" (NULL when
 * none).
 */
int bisections_step_jobs(struct db *db, int64_t step_id, struct db_result **ret,
			 struct strbuf *err);

/*
 * Bisection id follows direction on workload and params (JSON text).
 */
int bisections_set_direction(struct db *db, int64_t id, const char *direction,
			     const char *workload, const char *params,
			     struct strbuf *err);

/*
 * Step 0 of bisection id: column id; no row when there is none.
 */
int bisections_first_step(struct db *db, int64_t id, struct db_result **ret,
			  struct strbuf *err);

/*
 * Bisection id's state: column state; no row when there is none.
 */
int bisections_state(struct db *db, int64_t id, struct db_result **ret,
		     struct strbuf *err);

/*
 * Try the session lock of bisection id (one controller advances it at a
 * time): one row, 't' when taken.
 */
int bisections_try_lock(struct db *db, int64_t id, struct db_result **ret,
			struct strbuf *err);

/*
 * Let go of the session lock of bisection id.
 */
int bisections_unlock(struct db *db, int64_t id, struct strbuf *err);

/*
 * Running bisections none of whose steps' jobs is live, at most limit:
 * column id, by id.
 */
int bisections_idle(struct db *db, int64_t limit, struct db_result **ret,
		    struct strbuf *err);

/*
 * The host named name: columns id, kind; no row when none.
 */
int bisections_host(struct db *db, const char *name, struct db_result **ret,
		    struct strbuf *err);

/*
 * The running bisection of patch_id on host_id for metric: columns id,
 * host name; no row when none.
 */
int bisections_running(struct db *db, int64_t patch_id, int64_t host_id,
		       const char *metric, struct db_result **ret,
		       struct strbuf *err);

/*
 * Patch patch_id as a bisection of it starts: columns n_patches, base,
 * coalesce(base kernel id, 0), the base kernel's source, coalesce(kernel_id,
 * 0), its first job's coalesce(plan_id, 0), plan sha256,
 * coalesce(priority, 0), the answer host's name, the first job's host's
 * name; no row when there is no such patch.
 */
int bisections_patch(struct db *db, int64_t patch_id, struct db_result **ret,
		     struct strbuf *err);

/*
 * Patch patch_id's files: columns position, subject (else name); by
 * position.
 */
int bisections_patch_files(struct db *db, int64_t patch_id,
			   struct db_result **ret, struct strbuf *err);

/*
 * Bisection id for `bisect show`: one row, one column: a JSON object with
 * the row, its points and steps (each with its jobs), page_url as its
 * page; no row when there is none.
 */
int bisections_show_json(struct db *db, int64_t id, const char *page_url,
			 struct db_result **ret, struct strbuf *err);

/*
 * Cancel bisection id when it is running: one row: how many were
 * cancelled (0 or 1), how many bisections id there are (0 or 1).
 */
int bisections_cancel(struct db *db, int64_t id, struct db_result **ret,
		      struct strbuf *err);

/*
 * The live jobs of bisection id's steps: column id.
 */
int bisections_live_jobs(struct db *db, int64_t id, struct db_result **ret,
			 struct strbuf *err);

/*
 * The first automatic bisection of patch_id: column id; no row when
 * none.
 */
int bisections_find_auto(struct db *db, int64_t patch_id,
			 struct db_result **ret, struct strbuf *err);

/* How a step ends: bisections_close_step()'s numbers. */
struct bisection_step_end {
	const char *state; /* "running" keeps it open */
	int64_t looks;
	int measured; /* n .. verdict_good below hold numbers, else NULL */
	int64_t n;
	double mean, pct_vs_good, ci_low, ci_high, p_value;
	const char *verdict_good, *verdict_bad, *note; /* NULL: none */
	double mean_good, mean_bad; /* NaN: none */
};

/*
 * Close (or update) step step_id with e: state, looks, n, mean,
 * pct_vs_good, ci_low, ci_high, p_value, verdict_good, verdict_bad, note,
 * mean_good, mean_bad, and finished_at now unless it is still running.
 */
int bisections_close_step(struct db *db, int64_t step_id,
			  const struct bisection_step_end *e,
			  struct strbuf *err);

/*
 * End bisection id as done: culprit (0: none), the culprit range low..high
 * (0: none), pct_change, ci_low, ci_high, p_value of the culprit's step
 * (NaN: none), result (the sentence), finished now.
 */
int bisections_finish(struct db *db, int64_t id, int64_t culprit, int64_t low,
		      int64_t high, double pct_change, double ci_low,
		      double ci_high, double p_value, const char *result,
		      struct strbuf *err);

/*
 * A new `bisections` row (patch_id 0: none; tree, good, bad and config
 * NULL for a patch's; params JSON text; direction NULL when not known
 * yet; n points, max_boots, priority, is_auto); its id in *ret_id.  A
 * running twin makes it fail with SQLSTATE 23505 (schema 013).
 */
int bisections_insert(struct db *db, int64_t patch_id, const char *tree,
		      const char *good, const char *bad, const char *config,
		      int64_t host_id, int64_t plan_id, const char *workload,
		      const char *params, const char *metric,
		      const char *direction, int n, int max_boots, int priority,
		      int is_auto, int64_t *ret_id, struct strbuf *err);

/* Point pos of bisection id: kernel_id, rev, label and mark. */
int bisections_insert_point(struct db *db, int64_t id, int pos,
			    int64_t kernel_id, const char *rev,
			    const char *label, const char *mark,
			    struct strbuf *err);

#endif
