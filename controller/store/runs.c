/*
 * runs.c - the `runs` and `boots` rows; see runs.h.
 */
#include "cleanup.h"
#include "parse.h"
#include "store/runs.h"
#include "cleanup.h"
#include "parse.h"
#include "banned.h"

/* ---- runs ---------------------------------------------------------- */

int runs_job_setup(struct db *db, int64_t job_id, int64_t host_id,
		   struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT p.id, p.name, p.body, k.id, k.name, "
			"coalesce(j.patch_id, 0), h.name, h.kind, h.address, "
			"h.port, h.ssh_user, h.key_file, h.known_hosts, "
			"j.block, k.series_sha256 IS NOT NULL, j.boots, "
			"j.first_boot "
			"FROM jobs j JOIN plans p ON p.id = j.plan_id "
			"JOIN kernels k ON k.id = j.kernel_id, hosts h "
			"WHERE j.id = $1 AND h.id = $2",
			db_i64(job_id), db_i64(host_id), db_end());
}

int runs_done_of_job(struct db *db, int64_t job_id, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id, boot, seq FROM runs WHERE job_id = $1 "
			"AND status = 'done'",
			db_i64(job_id), db_end());
}

int runs_insert(struct db *db, const struct runs_new *r, int64_t *ret_id,
		struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "INSERT INTO runs (job_id, host_id, kernel_id, "
		     "plan_id, workload, params, boot, seq, attempt, "
		     "iterations, warmup) VALUES ($1, $2, $3, $4, $5, "
		     "$6::jsonb, $7, $8, $9, $10, $11) RETURNING id",
		     db_i64(r->job_id), db_i64(r->host_id),
		     db_i64(r->kernel_id), db_i64(r->plan_id),
		     db_str(r->workload), db_str(r->params), db_i64(r->boot),
		     db_i64(r->seq), db_i64(r->attempt), db_i64(r->iterations),
		     db_i64(r->warmup), db_end()) < 0)
		return -1;
	if (parse_i64(db_get(res, 0, 0), 1, INT64_MAX, ret_id, NULL) < 0)
		return -1;
	return 0;
}

int runs_mark_running(struct db *db, int64_t run_id, const char *results_file,
		      struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE runs SET status = 'running', started_at = "
			"now(), results_file = $2 WHERE id = $1",
			db_i64(run_id), db_str(results_file), db_end());
}

int runs_abort_unfinished(struct db *db, int64_t job_id, int64_t attempt,
			  const char *state, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE runs SET status = 'aborted', finished_at = "
			"coalesce(finished_at, now()), error = coalesce(error, "
			"CASE $3 WHEN 'cancelled' THEN 'the job was cancelled "
			"before this run finished' WHEN 'queued' THEN 'the "
			"controller stopped before this run finished: the next "
			"attempt runs it' ELSE 'the job ended before this run "
			"finished' END) WHERE "
			"job_id = $1 AND attempt = $2 AND status IN "
			"('pending', 'running')",
			db_i64(job_id), db_i64(attempt), db_str(state),
			db_end());
}

int runs_abort_sent_elsewhere(struct db *db, int64_t job_id, int64_t attempt,
			      struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE runs SET status = 'aborted', finished_at = "
			"coalesce(finished_at, now()), error = coalesce(error, "
			"'the host failed its boot check; the job went to "
			"another host') WHERE job_id = $1 AND attempt = $2 AND "
			"status IN ('pending', 'running')",
			db_i64(job_id), db_i64(attempt), db_end());
}

/* ---- boots --------------------------------------------------------- */

/* ---- imported runs ------------------------------------------------- */

int runs_import_find(struct db *db, const char *content, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT i.id, i.file, i.imported_at::date FROM "
			"imports i WHERE i.sha256 = encode(sha256("
			"convert_to($1, 'UTF8')), 'hex')",
			db_str(content), db_end());
}

int runs_import_insert(struct db *db, const char *path, const char *content,
		       const char *format, int64_t n_rows, int64_t *ret_id,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rr;

	rr = db_query(db, &res, err,
		      "INSERT INTO imports (file, sha256, format, "
		      "n_rows, n_runs) VALUES ($1, encode(sha256("
		      "convert_to($2, 'UTF8')), 'hex'), $3, $4, 0) "
		      "RETURNING id",
		      db_str(path), db_str(content), db_str(format),
		      db_i64(n_rows), db_end());
	if (rr < 0 ||
	    parse_i64(db_get(res, 0, 0), 1, INT64_MAX, ret_id, NULL) < 0)
		return -1;
	return 0;
}

int runs_import_insert_run(struct db *db, int64_t host_id, int64_t kernel_id,
			   const char *workload, const char *params,
			   int64_t boot, const char *source, int64_t import_id,
			   int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rr;

	rr = db_query(db, &res, err,
		      "INSERT INTO runs (host_id, kernel_id, "
		      "workload, params, boot, status, imported, "
		      "source, import_id) VALUES ($1, $2, $3, "
		      "$4::jsonb, $5, 'imported', true, $6, $7) "
		      "RETURNING id",
		      db_i64(host_id), db_i64(kernel_id), db_str(workload),
		      db_str(params), db_i64(boot), db_str(source),
		      db_i64(import_id), db_end());
	if (rr < 0 ||
	    parse_i64(db_get(res, 0, 0), 1, INT64_MAX, ret_id, NULL) < 0)
		return -1;
	return 0;
}

int runs_import_set_runs(struct db *db, int64_t import_id, int64_t n_runs,
			 struct strbuf *err)
{
	int rr;

	rr = db_query(db, NULL, err,
		      "UPDATE imports SET n_runs = $1 WHERE id = $2",
		      db_i64(n_runs), db_i64(import_id), db_end());
	return rr < 0 ? -1 : 0;
}
