/*
 * kcidb.c - the statements of a KCIDB export: what an answer's export
 * reads, and the `kcidb_exports` rows; see kcidb.h.
 *
 * The runs of an answer are those its comparison read: the patch's own
 * jobs (both kernels, in ABBA order) and the base runs it reused, which
 * are the base kernel's runs on the answer host under the plans of the
 * patch's jobs.  One CTE (ANSWER_RUNS) names them for the boots and the
 * metrics alike, so both always describe the same runs.
 */
#include <string.h>

#include "store/kcidb.h"
#include "banned.h"

/* RFC 3339 in UTC, microseconds kept: what KCIDB's date-time wants.  Used
 * as "to_char(X AT TIME ZONE 'UTC', " RFC3339 ")". */
#define RFC3339 "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'"

/* The runs of answer $1: its own jobs' and the base runs it reused. */
#define ANSWER_RUNS                                                            \
	"WITH p AS (SELECT id, base_kernel_id, kernel_id, answer_host_id"      \
	" FROM patches WHERE id = $1),"                                        \
	" ar AS (SELECT r.* FROM runs r JOIN jobs j ON j.id = r.job_id"        \
	" WHERE j.patch_id = $1"                                               \
	" UNION SELECT r.* FROM runs r, p WHERE r.kernel_id = "                \
	"p.base_kernel_id"                                                     \
	" AND r.host_id = p.answer_host_id AND r.status IN ('done', "          \
	"'imported') AND r.plan_id IN (SELECT plan_id FROM jobs"               \
	" WHERE patch_id = $1))"

int kcidb_answers(struct db *db, int64_t patch, const char *kernel,
		  const char *since, enum kcidb_pick pick,
		  struct db_result **ret, struct strbuf *err)
{
	/* $1 patch or NULL, $2 kernel name or NULL, $3 since or NULL,
	 * $4 pick (0 any, 1 new, 2 due). */
	static const char sql[] =
		"SELECT p.id, p.name, p.base,"
		" to_char(p.created_at AT TIME ZONE 'UTC', " RFC3339 "),"
		" to_char(p.answered_at AT TIME ZONE 'UTC', " RFC3339 "),"
		" bk.id, bk.name, nk.id, nk.name, p.answer_verdict,"
		" p.answer_headline, h.name, bk.base_ref, p.submitter,"
		" p.answer_host_id, p.n_patches, bk.base,"
		" coalesce((SELECT encode(sha256(convert_to(string_agg("
		"f.sha256 || chr(10), '' ORDER BY f.position), 'UTF8')), 'hex')"
		" FROM patch_files f WHERE f.patch_id = p.id), ''),"
		" p.answer_note, p.answer_state"
		" FROM patches p"
		" LEFT JOIN kernels bk ON bk.id = p.base_kernel_id"
		" LEFT JOIN kernels nk ON nk.id = p.kernel_id"
		" LEFT JOIN hosts h ON h.id = p.answer_host_id"
		" LEFT JOIN kcidb_exports e ON e.patch_id = p.id"
		" WHERE p.answer_state IN ('answered', 'failed')"
		" AND ($1::bigint IS NULL OR p.id = $1)"
		" AND ($2::text IS NULL OR bk.name = $2 OR nk.name = $2)"
		" AND ($3::timestamptz IS NULL OR p.answered_at >= "
		"$3::timestamptz)"
		" AND ($4 = 0 OR ($4 = 1 AND e.patch_id IS NULL)"
		" OR ($4 = 2 AND (e.patch_id IS NULL OR"
		" (e.status IN ('written', 'pending', 'failed') AND"
		" (e.next_try_at IS NULL OR e.next_try_at <= now())))))"
		" ORDER BY p.id";

	return db_query(db, ret, err, sql, patch ? db_i64(patch) : db_str(NULL),
			db_str(kernel), db_str(since), db_i64((int64_t)pick),
			db_end());
}

int kcidb_patch_files(struct db *db, int64_t patch, struct db_result **ret,
		      struct strbuf *err)
{
	static const char sql[] =
		"SELECT position, name, subject, sha256, encode(data, 'hex')"
		" FROM patch_files"
		" WHERE patch_id = $1 ORDER BY position";

	return db_query(db, ret, err, sql, db_i64(patch), db_end());
}

int kcidb_kernels(struct db *db, int64_t base_k, int64_t new_k,
		  struct db_result **ret, struct strbuf *err)
{
	static const char sql[] =
		"SELECT id, name, base, base_ref, config_spec, build_state,"
		" build_seconds, to_char((built_at - make_interval(secs =>"
		" coalesce(build_seconds, 0))) AT TIME ZONE 'UTC', " RFC3339
		"),"
		" build_error, build_mode, release, series_count,"
		" (SELECT string_agg(substr(l, 3), ' && ')"
		" FROM regexp_split_to_table(coalesce(build_log, ''), chr(10)) "
		"l"
		" WHERE l LIKE '$ make %'), build_dir, build_log IS NOT NULL"
		" FROM kernels WHERE id IN ($1, $2) ORDER BY id = $1 DESC, id";

	return db_query(db, ret, err, sql, db_i64(base_k), db_i64(new_k),
			db_end());
}

int kcidb_boots(struct db *db, int64_t patch, struct db_result **ret,
		struct strbuf *err)
{
	static const char sql[] = ANSWER_RUNS
		", g AS (SELECT ar.kernel_id, coalesce(ar.job_id, 0) AS job_id,"
		" ar.boot, min(ar.host_id) AS host_id,"
		" min(coalesce(ar.started_at, ar.created_at)) AS t0,"
		" max(ar.finished_at) AS t1, count(*) AS n,"
		" count(*) FILTER (WHERE ar.status IN ('done', 'imported')) AS "
		"ok,"
		" bool_or(ar.imported) AS imp,"
		" min(ar.id) FILTER (WHERE ar.console_log IS NOT NULL) AS log"
		" FROM ar GROUP BY 1, 2, 3"
		" UNION ALL SELECT j.kernel_id, j.id, -1, j.host_id,"
		" coalesce(j.started_at, j.created_at), j.finished_at,"
		" 0, 0, false, NULL::bigint FROM jobs j WHERE j.patch_id = $1"
		" AND j.state = 'failed' AND j.host_id IS NOT NULL"
		" AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id))"
		" SELECT g.kernel_id, g.job_id, g.boot, h.name,"
		" to_char(g.t0 AT TIME ZONE 'UTC', " RFC3339 "),"
		" extract(epoch FROM g.t1 - g.t0)::float8, g.n, g.ok,"
		" g.imp, j.error_phase, j.error, b.outcome, b.blame,"
		" h.kind, b.console_log IS NOT NULL, g.log"
		" FROM g JOIN hosts h ON h.id = g.host_id"
		" LEFT JOIN jobs j ON j.id = g.job_id"
		" LEFT JOIN LATERAL (SELECT outcome, blame, console_log"
		" FROM boots WHERE job_id = g.job_id ORDER BY id DESC"
		" LIMIT 1) b ON true"
		" ORDER BY g.kernel_id = (SELECT base_kernel_id FROM p) DESC,"
		" g.kernel_id, g.job_id, g.boot";

	return db_query(db, ret, err, sql, db_i64(patch), db_end());
}

int kcidb_metrics(struct db *db, int64_t patch, struct db_result **ret,
		  struct strbuf *err)
{
	static const char sql[] = ANSWER_RUNS
		" SELECT ar.kernel_id, coalesce(ar.job_id, 0), ar.boot,"
		" ar.workload, coalesce((SELECT string_agg(e.key || '=' ||"
		" e.value, chr(31) ORDER BY e.key) FROM jsonb_each_text("
		"ar.params) e), ''), x.metric, min(x.unit), avg(x.value),"
		" count(*), ar.params::text, min(ar.host_id), "
		"left(md5(ar.workload"
		" || chr(31) || ar.params::text || chr(31) || x.metric), 16)"
		" FROM ar JOIN results x ON x.run_id = ar.id AND NOT x.warmup"
		" GROUP BY 1, 2, 3, 4, 5, 6, 10"
		" ORDER BY 1, 2, 3, 4, 5, 6";

	return db_query(db, ret, err, sql, db_i64(patch), db_end());
}

/* r from db_query(), its result dropped: for statements that return no
 * row the caller reads. */
static int dropped(int r, struct db_result **res)
{
	db_result_free(*res);
	return r;
}

int kcidb_export_written(struct db *db, int64_t patch, const char *origin,
			 const char *document, struct strbuf *err)
{
	static const char sql[] =
		"INSERT INTO kcidb_exports AS e (patch_id, origin, document)"
		" VALUES ($1, $2, $3) ON CONFLICT (patch_id) DO UPDATE SET"
		" origin = $2, document = $3, exported_at = now()"
		" WHERE e.status = 'written'";
	struct db_result *res = NULL;

	return dropped(db_query(db, &res, err, sql, db_i64(patch),
				db_str(origin), db_str(document), db_end()),
		       &res);
}

int kcidb_export_try(struct db *db, int64_t patch, const char *origin,
		     const char *document, int64_t *ret_tries,
		     struct strbuf *err)
{
	static const char sql[] =
		"INSERT INTO kcidb_exports AS e (patch_id, origin, document,"
		" status, tries) VALUES ($1, $2, $3, 'pending', 1)"
		" ON CONFLICT (patch_id) DO UPDATE SET origin = $2,"
		" document = $3, status = 'pending', tries = e.tries + 1,"
		" exported_at = now() RETURNING tries";
	struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err, sql, db_i64(patch), db_str(origin),
		     db_str(document), db_end());
	if (!r && db_get_i64(res, 0, 0, 1, INT32_MAX, ret_tries) < 0) {
		strbuf_addstr(err, "kcidb_exports: no try count came back");
		r = -1;
	}
	db_result_free(res);
	return r;
}

int kcidb_export_submitted(struct db *db, int64_t patch, const char *id,
			   struct strbuf *err)
{
	static const char sql[] =
		"UPDATE kcidb_exports SET status = 'submitted',"
		" submission_id = $2, submitted_at = now(), last_error = NULL,"
		" next_try_at = NULL WHERE patch_id = $1";
	struct db_result *res = NULL;

	return dropped(db_query(db, &res, err, sql, db_i64(patch), db_str(id),
				db_end()),
		       &res);
}

int kcidb_export_failed(struct db *db, int64_t patch, int failed,
			const char *error, int64_t retry_ms, struct strbuf *err)
{
	static const char sql_pending[] =
		"UPDATE kcidb_exports SET status = 'pending',"
		" last_error = left($2, 8192), next_try_at = now() +"
		" least(make_interval(secs => $3::float8 / 1000 *"
		" power(2, least(greatest(tries - 1, 0), 12))),"
		" interval '1 hour') WHERE patch_id = $1";
	static const char sql_failed[] =
		"UPDATE kcidb_exports SET status = 'failed',"
		" last_error = left($2, 8192), next_try_at = now() +"
		" least(make_interval(secs => $3::float8 / 1000 *"
		" power(2, least(greatest(tries - 1, 0), 12))),"
		" interval '1 hour') WHERE patch_id = $1";

	struct db_result *res = NULL;

	return dropped(db_query(db, &res, err,
				failed ? sql_failed : sql_pending,
				db_i64(patch), db_str(error),
				db_double((double)retry_ms), db_end()),
		       &res);
}

int kcidb_export_processed(struct db *db, int64_t patch, struct strbuf *err)
{
	static const char sql[] =
		"UPDATE kcidb_exports SET status = 'processed', done_at = "
		"now(),"
		" last_error = NULL, next_try_at = NULL WHERE patch_id = $1";
	struct db_result *res = NULL;

	return dropped(db_query(db, &res, err, sql, db_i64(patch), db_end()),
		       &res);
}

int kcidb_exports_polling(struct db *db, struct db_result **ret,
			  struct strbuf *err)
{
	static const char sql[] =
		"SELECT patch_id, submission_id, tries FROM kcidb_exports"
		" WHERE status = 'submitted' ORDER BY patch_id";

	return db_query(db, ret, err, sql, db_end());
}

int kcidb_export_row(struct db *db, int64_t patch, struct db_result **ret,
		     struct strbuf *err)
{
	static const char sql[] =
		"SELECT status, submission_id, tries, last_error,"
		" to_char(exported_at AT TIME ZONE 'UTC', " RFC3339 "),"
		" to_char(next_try_at AT TIME ZONE 'UTC', " RFC3339 ")"
		" FROM kcidb_exports WHERE patch_id = $1";

	return db_query(db, ret, err, sql, db_i64(patch), db_end());
}

int kcidb_lock_try(struct db *db, int *ret_got, struct strbuf *err)
{
	static const char sql[] =
		"SELECT "
		"pg_try_advisory_lock(hashtext('schedfarm_kcidb_submit'))";
	struct db_result *res = NULL;
	int r;

	*ret_got = 0;
	r = db_query(db, &res, err, sql, db_end());
	if (!r)
		*ret_got = db_get(res, 0, 0) && *db_get(res, 0, 0) == 't';
	db_result_free(res);
	return r;
}

int kcidb_unlock(struct db *db, struct strbuf *err)
{
	static const char sql[] =
		"SELECT pg_advisory_unlock(hashtext('schedfarm_kcidb_submit'))";
	struct db_result *res = NULL;

	return dropped(db_query(db, &res, err, sql, db_end()), &res);
}
