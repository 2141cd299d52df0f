/*
 * runs.c - the `runs` and `boots` rows; see runs.h.
 */
#include "cleanup.h"
#include "parse.h"
#include "store/runs.h"
#include "banned.h"

/* ---- runs ---------------------------------------------------------- */

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
