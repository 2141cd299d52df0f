/*
 * history.c - each host's history and its change points as stored; see
 * history.h.
 */
#include "cleanup.h"
#include "store/history.h"
#include "banned.h"

/*
 * The observations of one host's history, a row per point, series after
 * series (workload, params, metric), each oldest first: what a series
 * is made of, in one place.  $1 the host, $2 a metric LIKE pattern or
 * NULL, $3 true to add the params as key=value text and the kernel's
 * name (for pages).  A point is a boot (or a run without a boot number)
 * of a kernel that is not a patch's: its mean and, for rates, its
 * harmonic mean (NULL when a value is too small to invert safely).  Each
 * row carries its series' fingerprint (points, results, first and last
 * result id: results are written once, so new ones change it).  Keys are
 * integers and texts compare bytewise ("C"), and the one sort serves the
 * window and the order: the statement reads a host's whole history.
 */
static const char points_sql[] =
	"SELECT workload, ptext, metric, unit, dir, at, run_id, kernel_id,"
	" mean, hmean,"
	" count(*) OVER w || '/' || sum(n) OVER w || '/' || min(mn) OVER w"
	"  || '/' || max(mx) OVER w,"
	" CASE WHEN $3 THEN coalesce((SELECT string_agg(e.key || '=' ||"
	"   e.value, ';' ORDER BY e.key) FROM"
	"   jsonb_each_text(ptext::jsonb) e), '') END,"
	" CASE WHEN $3 THEN (SELECT k.name FROM kernels k"
	"   WHERE k.id = kernel_id) END"
	" FROM (SELECT r.workload COLLATE \"C\" AS workload,"
	"  r.params::text COLLATE \"C\" AS ptext,"
	"  s.metric COLLATE \"C\" AS metric, min(s.unit) AS unit,"
	"  min(s.direction) AS dir,"
	"  min(coalesce(r.started_at, r.created_at)) AS at,"
	"  min(r.id) AS run_id, min(r.kernel_id) AS kernel_id,"
	"  avg(s.value) AS mean,"
	/* The guard goes inside the sum too: a CASE does not keep an
	 * aggregate in it from being computed, so a 0 would divide. */
	"  CASE WHEN min(s.value) > 1e-150"
	"       THEN count(*) / sum(CASE WHEN s.value > 1e-150"
	"                                THEN 1 / s.value END) END AS hmean,"
	"  count(*)::integer AS n, min(s.id) AS mn, max(s.id) AS mx"
	/* The host's runs, then each one's results by its index (OFFSET 0
	 * keeps the planner from flattening the lateral into a join that
	 * scans every host's results): a host costs its own rows, however
	 * large the farm. */
	" FROM runs r CROSS JOIN LATERAL (SELECT s.metric, s.unit,"
	"   s.direction, s.value, s.id FROM results s"
	"   WHERE s.run_id = r.id AND NOT s.warmup"
	"   AND ($2::text IS NULL OR s.metric LIKE $2) OFFSET 0) s"
	" WHERE r.host_id = $1 AND r.status IN ('done', 'imported')"
	"  AND r.kernel_id NOT IN (SELECT p.kernel_id FROM patches p"
	"                          WHERE p.kernel_id IS NOT NULL)"
	" GROUP BY 1, 2, 3,"
	"  CASE WHEN r.boot > 0 AND r.job_id IS NOT NULL"
	"       THEN -r.job_id ELSE r.id END,"
	"  CASE WHEN r.boot > 0 AND r.job_id IS NOT NULL"
	"       THEN r.boot ELSE 0 END) o"
	" WINDOW w AS (PARTITION BY workload, ptext, metric)"
	" ORDER BY workload, ptext, metric, at, run_id";

int history_points(struct db *db, int64_t host_id, int pages, const char *like,
		   struct db_result **ret, struct strbuf *err)
{
	int r;

	/* A host's whole history is sorted and grouped in memory, not in
	 * files on disk: for pages inside the report's transaction, else
	 * in one of its own, so the setting ends with it. */
	if (!pages && db_begin(db, err) < 0)
		return -1;
	if (db_cmd(db, err, "SET LOCAL work_mem = '256MB'") < 0 ||
	    db_cmd(db, err, "SET LOCAL max_parallel_workers_per_gather = 0") <
		    0) {
		if (!pages)
			db_rollback(db);
		return -1;
	}
	r = db_query(db, ret, err, points_sql, db_i64(host_id), db_str(like),
		     db_bool(pages), db_end());
	if (!pages) {
		if (r < 0)
			db_rollback(db);
		else if (db_commit(db, err) < 0)
			r = -1;
	}
	return r < 0 ? -1 : 0;
}

int history_series_upsert(struct db *db, int64_t host_id,
			  int64_t method_version, const struct strvec *w,
			  const struct strvec *p, const struct strvec *m,
			  const struct strvec *u, const struct strvec *b,
			  const struct strvec *n, const struct strvec *f,
			  struct db_result **ret, struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"INSERT INTO history_series (host_id, workload, params, "
		"metric, unit, better, n_points, fingerprint, "
		"method_version) SELECT $1, t.w, t.p::jsonb, t.m, t.u, "
		"t.b, t.n::integer, t.f, $2 FROM unnest($3::text[], "
		"$4::text[], $5::text[], $6::text[], $7::text[], "
		"$8::text[], $9::text[]) WITH ORDINALITY AS t(w, p, m, u, "
		"b, n, f, o) ORDER BY t.o ON CONFLICT (host_id, workload, "
		"params, metric) DO UPDATE SET unit = EXCLUDED.unit, "
		"better = EXCLUDED.better, n_points = EXCLUDED.n_points, "
		"fingerprint = EXCLUDED.fingerprint, method_version = "
		"EXCLUDED.method_version, analysed_at = now() RETURNING "
		"id, workload, params::text, metric",
		db_i64(host_id), db_i64(method_version), db_text_array(w),
		db_text_array(p), db_text_array(m), db_text_array(u),
		db_text_array(b), db_text_array(n), db_text_array(f), db_end());
}

int history_changes_delete(struct db *db, const struct strvec *series_ids,
			   struct strbuf *err)
{
	return db_query(db, NULL, err,
			"DELETE FROM history_changes WHERE series_id = "
			"ANY($1::text[]::bigint[])",
			db_text_array(series_ids), db_end());
}

int history_changes_insert(struct db *db, int64_t method_version,
			   const struct strvec *cols, struct strbuf *err)
{
	const struct strvec *c = cols;

	return db_query(db, NULL, err,
			"INSERT INTO history_changes (series_id, idx, "
			"run_id, at, kernel_before_id, kernel_after_id, "
			"n_before, n_after, mean_before, mean_after, "
			"shift, pct_shift, p_value, qhat, method_version) "
			"SELECT a::bigint, b::integer, c::bigint, "
			"d::timestamptz, e::bigint, f::bigint, g::integer, "
			"h::integer, i::float8, j::float8, k::float8, "
			"nullif(l, '')::float8, m::float8, "
			"nullif(n, '')::float8, $1 FROM unnest($2::text[], "
			"$3::text[], $4::text[], $5::text[], $6::text[], "
			"$7::text[], $8::text[], $9::text[], $10::text[], "
			"$11::text[], $12::text[], $13::text[], "
			"$14::text[], $15::text[]) AS t(a, b, c, d, e, f, "
			"g, h, i, j, k, l, m, n)",
			db_i64(method_version), db_text_array(&c[0]),
			db_text_array(&c[1]), db_text_array(&c[2]),
			db_text_array(&c[3]), db_text_array(&c[4]),
			db_text_array(&c[5]), db_text_array(&c[6]),
			db_text_array(&c[7]), db_text_array(&c[8]),
			db_text_array(&c[9]), db_text_array(&c[10]),
			db_text_array(&c[11]), db_text_array(&c[12]),
			db_text_array(&c[13]), db_end());
}

int history_series_fingerprints(struct db *db, int64_t host_id,
				int64_t method_version, struct db_result **ret,
				struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT workload, params::text, metric, fingerprint "
			"FROM history_series WHERE host_id = $1 AND "
			"method_version = $2 ORDER BY workload COLLATE \"C\", "
			"params::text COLLATE \"C\", metric COLLATE \"C\"",
			db_i64(host_id), db_i64(method_version), db_end());
}

int history_hosts_with_runs(struct db *db, const char *host,
			    struct db_result **ret, struct strbuf *err)
{
	int r;

	r = db_query(db, ret, err,
		     "SELECT h.id FROM hosts h WHERE ($1::text IS NULL OR "
		     "h.name = $1) AND EXISTS (SELECT 1 FROM runs r WHERE "
		     "r.host_id = h.id) ORDER BY h.id",
		     db_str(host), db_end());
	return r < 0 ? -1 : 0;
}

size_t history_series_count(struct db *db, int64_t host_id)
{
	_cleanup_db_result_ struct db_result *c = NULL;
	struct strbuf err = STRBUF_INIT;
	int64_t k = 0;

	if (db_query(db, &c, &err,
		     "SELECT count(*) FROM history_series WHERE host_id "
		     "= $1",
		     db_i64(host_id), db_end()) == 0)
		db_get_i64(c, 0, 0, 0, INT64_MAX, &k);
	strbuf_release(&err);
	return (size_t)k;
}

int history_host_fingerprint(struct db *db, int64_t host_id,
			     int64_t method_version, struct db_result **ret,
			     struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT f, f = (SELECT fingerprint FROM history_hosts WHERE "
		"host_id = $1 AND method_version = $2) FROM (SELECT "
		"count(*)::text || '/' || coalesce(max(id), 0)::text || '/' "
		"|| coalesce(sum(id), 0)::text AS f FROM runs WHERE host_id = "
		"$1 AND status IN ('done', 'imported')) x",
		db_i64(host_id), db_i64(method_version), db_end());
}

int history_host_mark(struct db *db, int64_t host_id, const char *fp,
		      int64_t method_version, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "INSERT INTO history_hosts (host_id, fingerprint, "
		     "method_version) VALUES ($1, $2, $3) ON CONFLICT "
		     "(host_id) DO UPDATE SET fingerprint = $2, "
		     "method_version = $3, analysed_at = now()",
		     db_i64(host_id), db_str(fp), db_i64(method_version),
		     db_end());
	return r < 0 ? -1 : 0;
}

int history_changes_list(struct db *db, const char *host, const char *like,
			 const char *since, int64_t limit,
			 struct db_result **ret, struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT h.name, hs.workload, coalesce((SELECT string_agg(e.key "
		"|| '=' || e.value, ';' ORDER BY e.key) FROM "
		"jsonb_each_text(hs.params) e), ''), hs.metric, hs.unit, "
		"hs.better, to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD "
		"HH24:MI:SS'), kb.name, ka.name, c.idx, hs.n_points, "
		"c.n_before, c.n_after, c.mean_before, c.mean_after, c.shift, "
		"c.pct_shift, c.p_value FROM history_changes c JOIN "
		"history_series hs ON hs.id = c.series_id JOIN hosts h ON h.id "
		"= hs.host_id LEFT JOIN kernels kb ON kb.id = "
		"c.kernel_before_id LEFT JOIN kernels ka ON ka.id = "
		"c.kernel_after_id WHERE ($1::text IS NULL OR h.name = $1) AND "
		"($2::text IS NULL OR hs.metric LIKE $2) AND ($3::timestamptz "
		"IS NULL OR c.at >= $3::timestamptz) ORDER BY c.at DESC, "
		"h.name, hs.workload, hs.params::text, hs.metric LIMIT $4",
		db_str(host), db_str(like), db_str(since),
		limit > 0 ? db_i64(limit) : db_str(NULL), db_end());
}

int history_change_points(struct db *db, int64_t host_id, const char *workload,
			  const char *params, const char *metric,
			  struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT c.idx FROM history_changes c JOIN "
			"history_series hs ON hs.id = c.series_id WHERE "
			"hs.host_id = $1 AND hs.workload = $2 AND hs.params "
			"= $3::jsonb AND hs.metric = $4 ORDER BY c.idx",
			db_i64(host_id), db_str(workload), db_str(params),
			db_str(metric), db_end());
}

int history_host_of_id(struct db *db, int64_t host_id, struct db_result **ret,
		       struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id, name FROM hosts WHERE id = $1",
			db_i64(host_id), db_end());
}

int history_hosts_of_metric(struct db *db, const char *metric,
			    struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT DISTINCT h.id, h.name FROM "
			"history_series hs JOIN hosts h ON h.id = "
			"hs.host_id WHERE hs.metric = $1 ORDER BY "
			"h.name",
			db_str(metric), db_end());
}
