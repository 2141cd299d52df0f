/*
 * sequences.c - the rows of adaptive sequences; see sequences.h.
 */
#include "store/sequences.h"
#include "banned.h"

int sequences_job(struct db *db, int64_t job_id, struct db_result **ret,
		  struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT j.patch_id, j.kernel_id, j.plan_id, j.block, h.id, "
		"h.name, pl.name, pl.body, pl.sha256, kn.id, kn.name, kb.id, "
		"kb.name FROM jobs j JOIN plans pl ON pl.id = j.plan_id "
		"LEFT JOIN hosts h ON h.id = j.host_id "
		"LEFT JOIN patches pa ON pa.id = j.patch_id "
		"LEFT JOIN kernels kn ON kn.id = pa.kernel_id "
		"LEFT JOIN kernels kb ON kb.id = coalesce(pa.base_kernel_id, "
		"(SELECT id FROM kernels WHERE name = pa.base)) "
		"WHERE j.id = $1",
		db_i64(job_id), db_end());
}

int sequences_pair_job(struct db *db, int64_t patch_id, int64_t plan_id,
		       int64_t kernel_id, int64_t block, int64_t job_id,
		       int64_t host_id, const char *host,
		       struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id, state FROM jobs WHERE patch_id = $1 AND "
			"plan_id = $2 AND kernel_id = $3 AND block = $4 AND "
			"id <> $5 AND (host_id = $6 OR host_constraint = $7) "
			"ORDER BY id DESC LIMIT 1",
			db_i64(patch_id), db_i64(plan_id), db_i64(kernel_id),
			db_i64(block), db_i64(job_id), db_i64(host_id),
			db_str(host), db_end());
}

int sequences_lock_job(struct db *db, int64_t job_id, int64_t kernel_id,
		       const char *host, int64_t block, int64_t host_id,
		       struct db_result **ret, struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT 1 FROM jobs j WHERE j.id = $1 AND j.state NOT IN "
		"('queued', 'done', 'failed', 'cancelled') AND NOT EXISTS "
		"(SELECT 1 FROM jobs o WHERE o.patch_id = j.patch_id AND "
		"o.plan_id = j.plan_id AND o.kernel_id = $2 AND o.block = "
		"$4 AND (o.host_constraint = $3 OR o.host_id = $5)) FOR "
		"UPDATE OF j",
		db_i64(job_id), db_i64(kernel_id), db_str(host), db_i64(block),
		db_i64(host_id), db_end());
}

int sequences_set_stop_reason(struct db *db, int64_t job_id, const char *why,
			      struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE jobs SET stop_reason = $2 WHERE id = $1 AND "
			"state <> 'cancelled'",
			db_i64(job_id), db_str(why), db_end());
}

int sequences_job_failed(struct db *db, int64_t job_id, const char *why,
			 struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE jobs SET stop_reason = $2 WHERE id = $1 AND "
			"state = 'failed' AND stop_reason IS NULL",
			db_i64(job_id), db_str(why), db_end());
}

int sequences_step_claim(struct db *db, int64_t patch_id, int64_t plan_id,
			 int64_t host_id, int64_t block, int64_t job_id,
			 int64_t look, int64_t looks, double alpha,
			 double nc_level, int64_t boots, struct db_result **ret,
			 struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"INSERT INTO adaptive_steps (patch_id, plan_id, host_id, "
		"block, job_id, look, looks, alpha, nc_level, boots) VALUES "
		"($1, $2, $3, $4, $5, nullif($6, 0), $7, $8, $9, $10) "
		"ON CONFLICT (patch_id, plan_id, host_id, block) DO NOTHING "
		"RETURNING id",
		db_i64(patch_id), db_i64(plan_id), db_i64(host_id),
		db_i64(block), db_i64(job_id), db_i64(look), db_i64(looks),
		db_double(alpha), db_double(nc_level), db_i64(boots), db_end());
}

int sequences_step_look(struct db *db, int64_t patch_id, int64_t plan_id,
			int64_t host_id, int64_t block, struct db_result **ret,
			struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT coalesce(look, 0) FROM adaptive_steps WHERE "
			"patch_id = $1 AND plan_id = $2 AND host_id = $3 AND "
			"block = $4",
			db_i64(patch_id), db_i64(plan_id), db_i64(host_id),
			db_i64(block), db_end());
}

int sequences_step_record(struct db *db, int64_t patch_id, int64_t plan_id,
			  int64_t host_id, int64_t block, const char *outcome,
			  const char *why, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE adaptive_steps SET outcome = $5, reason = $6 "
			"WHERE patch_id = $1 AND plan_id = $2 AND host_id = "
			"$3 AND block = $4",
			db_i64(patch_id), db_i64(plan_id), db_i64(host_id),
			db_i64(block), db_str(outcome), db_str(why), db_end());
}
