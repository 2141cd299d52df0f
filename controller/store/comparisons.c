/*
 * comparisons.c - reads of the `comparisons` rows for the verbs; see
 * comparisons.h.
 */
#include <string.h>

#include "cleanup.h"
#include "store/comparisons.h"
#include "banned.h"

int comparisons_regressions(struct db *db, const char *since, const char *host,
			    double min_change, int64_t limit,
			    struct db_result **ret, struct strbuf *err)
{
	/* $1 since, $2 host, $3 min |%change|, $4 limit; NULL = no filter. */
	static const char sql[] =
		"SELECT to_char(computed_at AT TIME ZONE 'UTC', "
		"         'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), patch_id, "
		"       base_kernel, new_kernel, host, workload, params::text, "
		"       metric, unit, pct_change, ci_low, ci_high, p_value "
		"  FROM regressions "
		" WHERE ($1::timestamptz IS NULL OR computed_at >= "
		"$1::timestamptz) "
		"   AND ($2::text IS NULL OR host = $2) "
		"   AND ($3::float8 IS NULL OR abs(pct_change) >= $3::float8) "
		" ORDER BY computed_at DESC, id DESC LIMIT $4";
	return db_query(db, ret, err, sql, db_str(since), db_str(host),
			db_double(min_change), db_i64(limit), db_end());
}

/* ---- what a comparison reads ---------------------------------------- */

int comparisons_patch_kernels(struct db *db, int64_t patch_id,
			      struct db_result **ret, struct strbuf *err)
{
	/* The base kernel is the patch's row, else the kernel named
	 * by its base. */
	return db_query(db, ret, err,
			"SELECT coalesce(p.base_kernel_id, kb.id), "
			"p.kernel_id FROM patches p LEFT JOIN kernels kb "
			"ON kb.name = p.base WHERE p.id = $1",
			db_i64(patch_id), db_end());
}

int comparisons_kernel_by_name(struct db *db, const char *name,
			       struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err, "SELECT id FROM kernels WHERE name = $1",
			db_str(name), db_end());
}

int comparisons_kernel_names(struct db *db, int64_t base_id, int64_t new_id,
			     struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT (SELECT name FROM kernels WHERE id = $1), "
			"(SELECT name FROM kernels WHERE id = $2)",
			db_i64(base_id), db_i64(new_id), db_end());
}

int comparisons_plan_by_name(struct db *db, const char *name,
			     struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id FROM plans WHERE name = $1 OR "
			"sha256 = $1 ORDER BY created_at DESC LIMIT 1",
			db_str(name), db_end());
}

int comparisons_patch_plans(struct db *db, int64_t patch_id,
			    struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT j.plan_id, p.name, p.sha256, min(j.id), "
			"pa.fresh_base FROM jobs j JOIN plans p ON p.id = "
			"j.plan_id JOIN patches pa ON pa.id = j.patch_id "
			"WHERE j.patch_id = $1 AND j.bisect_step_id IS NULL "
			"GROUP BY j.plan_id, p.name, p.sha256, pa.fresh_base "
			"ORDER BY min(j.id)",
			db_i64(patch_id), db_end());
}

int comparisons_plan_of_id(struct db *db, int64_t plan_id,
			   struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT name, body, id, sha256 FROM plans WHERE id = "
			"$1",
			db_i64(plan_id), db_end());
}

int comparisons_plan_of_patch(struct db *db, int64_t patch_id,
			      struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT p.name, p.body, p.id FROM plans p WHERE p.id = "
			"(SELECT min(plan_id) FROM jobs WHERE patch_id "
			"= $1 HAVING count(DISTINCT plan_id) = 1)",
			db_i64(patch_id), db_end());
}

/*
 * The runs a comparison reads, as comparisons_results() and
 * comparisons_base_sources() both filter them (one text, so the runs an
 * answer names are the runs it compared): $1/$2 the kernels, $3 host
 * name, $4 workload, $5 plan_id, $6/$7 a patch's own jobs of block <=
 * $7, $8/$9 the --set overrides when $9; NULL for no filter.  Aliases: r
 * runs, h hosts.
 */
#define RUNS_COMPARED                                                          \
	"r.kernel_id IN ($1, $2) "                                             \
	"  AND r.status IN ('done', 'imported') "                              \
	"  AND ($3::text IS NULL OR h.name = $3) "                             \
	"  AND ($4::text IS NULL OR r.workload = $4) "                         \
	"  AND ($5::bigint IS NULL OR r.plan_id = $5) "                        \
	"  AND ($6::bigint IS NULL OR EXISTS (SELECT 1 FROM jobs j "           \
	"       WHERE j.id = r.job_id AND j.patch_id = $6 "                    \
	"       AND j.block <= $7)) "                                          \
	"  AND (NOT $9::boolean OR coalesce((SELECT j.plan_set FROM jobs "     \
	"       j WHERE j.id = r.job_id), '{}') = $8::text[]) "

int comparisons_results(struct db *db, int64_t base_id, int64_t new_id,
			const char *host, const char *workload, int64_t plan_id,
			int64_t patch_id, int64_t max_block,
			const struct strvec *plan_set, struct db_result **ret,
			struct strbuf *err)
{
	static const char sql[] =
		"SELECT r.host_id, h.name, r.workload, r.params::text, "
		"  coalesce((SELECT string_agg(e.key || '=' || "
		"     coalesce(e.value #>> '{}', 'null'), ';' ORDER BY e.key) "
		"   FROM jsonb_each(r.params) e), ''), "
		"  s.metric, s.unit, s.direction, r.kernel_id, "
		"  CASE WHEN r.boot > 0 AND r.job_id IS NOT NULL "
		"       THEN 'j' || r.job_id || '.' || r.boot "
		"       ELSE 'r' || r.id END AS obs, "
		"  s.value, s.n, s.stddev "
		"FROM results s JOIN runs r ON r.id = s.run_id "
		"  JOIN hosts h ON h.id = r.host_id "
		"WHERE NOT s.warmup AND " RUNS_COMPARED
		/* r.params as jsonb, not text: a sweep's numbers then come
		 * in numeric order (1, 2, 16, 128), not as text sorts. */
		"ORDER BY h.name, r.host_id, r.workload, r.params, s.metric, "
		"  r.kernel_id, obs, s.iteration, s.id";
	struct strvec none = STRVEC_INIT;

	return db_query(db, ret, err, sql, db_i64(base_id), db_i64(new_id),
			db_str(host), db_str(workload),
			plan_id ? db_i64(plan_id) : db_str(NULL),
			patch_id > 0 ? db_i64(patch_id) : db_str(NULL),
			patch_id > 0 ? db_i64(max_block) : db_str(NULL),
			db_text_array(plan_set ? plan_set : &none),
			db_bool(plan_set != NULL), db_end());
}

int comparisons_base_sources(struct db *db, int64_t base_id, const char *host,
			     int64_t plan_id, const struct strvec *plan_set,
			     int64_t own_patch, struct db_result **ret,
			     struct strbuf *err)
{
	static const char sql[] =
		"SELECT r.job_id, count(*) FROM runs r "
		"  JOIN hosts h ON h.id = r.host_id "
		"WHERE " RUNS_COMPARED
		"  AND EXISTS (SELECT 1 FROM results s WHERE s.run_id = r.id "
		"       AND NOT s.warmup) "
		"  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.job_id "
		"       AND j.patch_id = $10 AND j.bisect_step_id IS NULL) "
		"GROUP BY r.job_id ORDER BY r.job_id NULLS LAST";
	struct strvec none = STRVEC_INIT;

	return db_query(db, ret, err, sql, db_i64(base_id), db_i64(base_id),
			db_str(host), db_str(NULL),
			plan_id ? db_i64(plan_id) : db_str(NULL), db_str(NULL),
			db_str(NULL),
			db_text_array(plan_set ? plan_set : &none),
			db_bool(plan_set != NULL), db_i64(own_patch), db_end());
}

int comparisons_runs_counts(struct db *db, int64_t base_id, int64_t new_id,
			    const char *host, const char *workload,
			    int64_t plan_id, struct db_result **ret,
			    struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT count(*), count(*) FILTER (WHERE h.name = $3), "
		"count(*) FILTER (WHERE r.workload = $4), count(*) FILTER "
		"(WHERE r.plan_id = $5), (SELECT count(*) FROM hosts WHERE "
		"$3::text IS NULL OR name = $3) FROM runs r JOIN hosts h ON "
		"h.id = r.host_id WHERE r.kernel_id IN ($1, $2) AND r.status "
		"IN ('done', 'imported')",
		db_i64(base_id), db_i64(new_id), db_str(host), db_str(workload),
		plan_id ? db_i64(plan_id) : db_str(NULL), db_end());
}

void comparisons_runs_values(struct db *db, int64_t base_id, int64_t new_id,
			     const char *col, struct strbuf *out)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf sql = STRBUF_INIT, err = STRBUF_INIT;

	/* col goes into the text: only the three names below. */
	if (strcmp(col, "h.name") && strcmp(col, "r.workload") &&
	    strcmp(col, "p.name"))
		return;
	strbuf_addf(&sql,
		    "SELECT string_agg(DISTINCT %s, ', ') FROM runs r JOIN "
		    "hosts h ON h.id = r.host_id LEFT JOIN plans p ON p.id = "
		    "r.plan_id WHERE r.kernel_id IN ($1, $2) AND r.status IN "
		    "('done', 'imported')",
		    col);
	if (db_query(db, &res, &err, sql.buf, db_i64(base_id), db_i64(new_id),
		     db_end()) == 0 &&
	    db_get(res, 0, 0))
		strbuf_addstr(out, db_get(res, 0, 0));
	strbuf_release(&sql);
	strbuf_release(&err);
}

/* ---- the comparisons rows ------------------------------------------- */

int comparisons_lock(struct db *db, struct strbuf *err)
{
	return db_cmd(db, err,
		      "SELECT "
		      "pg_advisory_xact_lock(hashtext('schedfarm.compare'))");
}

int comparisons_insert(struct db *db, const struct db_args *a,
		       struct strbuf *err)
{
	static const char sql[] =
		"INSERT INTO comparisons (base_kernel_id, new_kernel_id, "
		"  patch_id, host_id, workload, params, metric, unit, better, "
		"  n_base, n_new, mean_base, mean_new, stddev_base, "
		"stddev_new, "
		"  pct_change, ci_low, ci_high, p_value, tau, verdict, "
		"  method_version, ci90_low, ci90_high, ci_method, p_method, "
		"  note, scale, diff, diff_low, diff_high, diff90_low, "
		"  diff90_high, tau_ref, ci_unbounded, nc_level, alpha, "
		"  p_adjusted, family, look, looks, plan_id, question, "
		"  planned) "
		"VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, "
		"  $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, "
		"  $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, "
		"  $36, $37, $38, $39, nullif($40, 0), nullif($41, 0), "
		"  nullif($42, 0), $43, $44)";

	return db_exec_args(db, NULL, err, sql, a);
}

int comparisons_delete(struct db *db, int64_t base_id, int64_t new_id,
		       const char *host, const char *workload,
		       int64_t *ret_rows, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	*ret_rows = 0;

	r = db_query(db, &res, err,
		     "DELETE FROM comparisons c WHERE c.base_kernel_id = $1 "
		     "AND c.new_kernel_id = $2 AND ($3::text IS NULL OR "
		     "c.host_id IN (SELECT id FROM hosts WHERE name = $3)) "
		     "AND ($4::text IS NULL OR c.workload = $4)",
		     db_i64(base_id), db_i64(new_id), db_str(host),
		     db_str(workload), db_end());
	if (r < 0)
		return -1;
	*ret_rows = db_cmd_tuples(res);
	return 0;
}
