/*
 * sequences.h - the rows of adaptive sequences (`until: decided`): the
 * jobs of a sequence as analysis/adaptive.c reads and guards them, and
 * `adaptive_steps`, one row per closed block.
 *
 * The rule (when to look, what to queue, why to stop) is
 * analysis/adaptive.c's; these are its statements, so that no SQL lives
 * outside store/.  New jobs go through store/jobs.c.  Nothing here
 * prints: each function returns 0 (or a count, where it says), or -1
 * with the server's message in err.
 */
#ifndef SCHEDFARM_SEQUENCES_H
#define SCHEDFARM_SEQUENCES_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/*
 * Job job_id as a step of a sequence: columns patch_id, kernel_id,
 * plan_id, block, the host's id and name (NULL when it has no host), the
 * plan's name, body and sha256, the patch's kernel id and name, its base
 * kernel's id and name (NULL where the job has no patch, or the patch
 * lacks them); no row when there is no such job.  Into *ret (the caller
 * frees it).
 */
int sequences_job(struct db *db, int64_t job_id, struct db_result **ret,
		  struct strbuf *err);

/*
 * The newest job other than job_id of patch_id, plan_id, kernel_id and
 * block that runs on host (by host_id, or named host as its
 * constraint): columns id, state; no row when there is none.  Into *ret.
 */
int sequences_pair_job(struct db *db, int64_t patch_id, int64_t plan_id,
		       int64_t kernel_id, int64_t block, int64_t job_id,
		       int64_t host_id, const char *host,
		       struct db_result **ret, struct strbuf *err);

/*
 * Inside the caller's transaction, lock job_id's row when it is still
 * live (neither queued nor ended) and its sequence has no job of
 * kernel_id and block on host (named host as its constraint, or host_id)
 * yet: one row (column 1) when locked, none otherwise.  Into *ret.  Two
 * controllers ending the two jobs of a block at once thus queue the next
 * block once.
 */
int sequences_lock_job(struct db *db, int64_t job_id, int64_t kernel_id,
		       const char *host, int64_t block, int64_t host_id,
		       struct db_result **ret, struct strbuf *err);

/* Set job_id's stop_reason to why, unless it was cancelled. */
int sequences_set_stop_reason(struct db *db, int64_t job_id, const char *why,
			      struct strbuf *err);

/*
 * Set a failed job_id's stop_reason to why when it has none yet (the
 * block failed: no more blocks are queued).
 */
int sequences_job_failed(struct db *db, int64_t job_id, const char *why,
			 struct strbuf *err);

/*
 * Claim the `adaptive_steps` row of (patch_id, plan_id, host_id, block)
 * for job_id at look (0: none) of looks, with the design's alpha,
 * nc_level and the boots so far: *ret holds one row (column id) when this
 * call made it, none when the block was claimed before.
 */
int sequences_step_claim(struct db *db, int64_t patch_id, int64_t plan_id,
			 int64_t host_id, int64_t block, int64_t job_id,
			 int64_t look, int64_t looks, double alpha,
			 double nc_level, int64_t boots, struct db_result **ret,
			 struct strbuf *err);

/*
 * The step of (patch_id, plan_id, host_id, block): column
 * coalesce(look, 0); no row when the block is not closed.  Into *ret.
 */
int sequences_step_look(struct db *db, int64_t patch_id, int64_t plan_id,
			int64_t host_id, int64_t block, struct db_result **ret,
			struct strbuf *err);

/*
 * Record how the step of (patch_id, plan_id, host_id, block) ended:
 * outcome ("continue" or "stop") and why.
 */
int sequences_step_record(struct db *db, int64_t patch_id, int64_t plan_id,
			  int64_t host_id, int64_t block, const char *outcome,
			  const char *why, struct strbuf *err);

#endif
