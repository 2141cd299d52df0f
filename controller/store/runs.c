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
	const char *params[1] = { content };

	return db_exec(db, ret, err,
		       "SELECT i.id, i.file, i.imported_at::date FROM "
		       "imports i WHERE i.sha256 = encode(sha256("
		       "convert_to($1, 'UTF8')), 'hex')",
		       1, params);
}

int runs_import_insert(struct db *db, const char *path, const char *content,
		       const char *format, int64_t n_rows, int64_t *ret_id,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int rr;

	db_args_str(&a, path);
	db_args_str(&a, content);
	db_args_str(&a, format);
	db_args_i64(&a, n_rows);
	rr = db_exec_args(db, &res, err,
			  "INSERT INTO imports (file, sha256, format, "
			  "n_rows, n_runs) VALUES ($1, encode(sha256("
			  "convert_to($2, 'UTF8')), 'hex'), $3, $4, 0) "
			  "RETURNING id",
			  &a);
	db_args_clear(&a);
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
	struct db_args a = DB_ARGS_INIT;
	int rr;

	db_args_i64(&a, host_id);
	db_args_i64(&a, kernel_id);
	db_args_str(&a, workload);
	db_args_str(&a, params);
	db_args_i64(&a, boot);
	db_args_str(&a, source);
	db_args_i64(&a, import_id);
	rr = db_exec_args(db, &res, err,
			  "INSERT INTO runs (host_id, kernel_id, "
			  "workload, params, boot, status, imported, "
			  "source, import_id) VALUES ($1, $2, $3, "
			  "$4::jsonb, $5, 'imported', true, $6, $7) "
			  "RETURNING id",
			  &a);
	db_args_clear(&a);
	if (rr < 0 ||
	    parse_i64(db_get(res, 0, 0), 1, INT64_MAX, ret_id, NULL) < 0)
		return -1;
	return 0;
}

int runs_import_set_runs(struct db *db, int64_t import_id, int64_t n_runs,
			 struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int rr;

	db_args_i64(&a, n_runs);
	db_args_i64(&a, import_id);
	rr = db_exec_args(db, NULL, err,
			  "UPDATE imports SET n_runs = $1 WHERE id = $2", &a);
	db_args_clear(&a);
	return rr < 0 ? -1 : 0;
}
