/*
 * pages.c - the statements of the static HTML report, one function per
 * statement, and the `report_pages` digests; see pages.h.  The statements
 * came here unchanged from the page files of controller/report/, in the
 * order the report runs them; the comment above each says which page it
 * serves.
 *
 * Three expressions recur in them, written out in each one (there are no
 * SQL functions for them in the schema):
 *
 *   to_char((ts) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
 *     a timestamp as the pages show it: UTC, to the second;
 *   coalesce((SELECT string_agg(e.key || '=' || e.value, ';' ORDER BY
 *   e.key) FROM jsonb_each_text(params) e), '')
 *     jsonb params as key=value;key=value, the import format;
 *   the same with numeric values left-padded to 24 digits
 *     a key that sorts params as numbers (threads=2 before threads=16),
 *     for the comparison tables.
 */
#include <stdint.h>
#include <stdlib.h>

#include "store/pages.h"
#include "banned.h"

/* ---- the report's snapshot and digests ----------------------------- */

int pages_begin_snapshot(struct db *db, struct strbuf *err)
{
	return db_cmd(db, err, "BEGIN ISOLATION LEVEL REPEATABLE READ");
}

int pages_check_since(struct db *db, const char *since, struct strbuf *err)
{
	return db_query(db, NULL, err, "SELECT $1::timestamptz", db_str(since),
			db_end());
}

int pages_digests_load(struct db *db, const char *out_dir,
		       struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT page, digest FROM report_pages "
			"WHERE out_dir = $1 ORDER BY page COLLATE \"C\"",
			db_str(out_dir), db_end());
}

int pages_digests_record(struct db *db, const char *out_dir, const char *pages,
			 const char *digests, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"INSERT INTO report_pages (out_dir, page, digest) "
			"SELECT $1, p, d FROM unnest($2::text[], $3::text[]) "
			"AS u(p, d) ON CONFLICT (out_dir, page) DO UPDATE "
			"SET digest = EXCLUDED.digest, written_at = now()",
			db_str(out_dir), db_str(pages), db_str(digests),
			db_end());
}

/* ---- hosts and plans, over the run listing (report/runlist.c) ------- */

/* Every run as the listings of host and plan pages show it. */
static const char runlist_sql[] =
	"SELECT r.id, r.host_id, r.plan_id, to_char((r.created_at) AT TIME "
	"ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), k.name,"
	" r.workload, coalesce((SELECT string_agg(e.key || '=' || e.value, ';' "
	"ORDER BY e.key) FROM jsonb_each_text(r.params) e), ''), r.status, "
	"r.job_id,"
	" j.patch_id, h.name, pl.name"
	" FROM runs r JOIN kernels k ON k.id = r.kernel_id"
	" JOIN hosts h ON h.id = r.host_id"
	" LEFT JOIN plans pl ON pl.id = r.plan_id"
	" LEFT JOIN jobs j ON j.id = r.job_id ORDER BY r.id";

int pages_runlist(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err, runlist_sql, db_end());
}

/* The host pages to look at (report/page_host.c). */
static const char host_sql[] =
	"SELECT h.id, h.name, h.kind, h.address, h.port,"
	" nullif(array_to_string(h.tags, ', '), ''), h.sockets, "
	"h.cores_per_socket,"
	" h.threads_per_core, h.numa_nodes, h.cpus, h.memory_mb,"
	" jsonb_pretty(h.agent_info), h.health, h.aborted_in_row, kg.name, "
	"to_char((h.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" md5(concat_ws('|', h.name, h.kind, h.address, h.port,"
	" h.tags::text, h.sockets, h.cores_per_socket, h.threads_per_core,"
	" h.numa_nodes, h.cpus, h.memory_mb, h.agent_info::text, h.health,"
	" h.aborted_in_row, kg.name, (SELECT count(*) || ',' ||"
	" coalesce(max(e.id), 0) FROM host_events e WHERE e.host_id = h.id),"
	" (SELECT count(*) || ',' || coalesce(max(hs.analysed_at)::text, '')"
	" FROM history_series hs WHERE hs.host_id = h.id)))"
	" FROM hosts h LEFT JOIN kernels kg ON kg.id = h.known_good_kernel_id"
	" WHERE $1::timestamptz IS NULL"
	"  OR EXISTS (SELECT 1 FROM runs r WHERE r.host_id = h.id"
	"             AND r.created_at >= $1::timestamptz)"
	"  OR EXISTS (SELECT 1 FROM host_events e WHERE e.host_id = h.id"
	"             AND e.at >= $1::timestamptz)"
	" ORDER BY h.id";

int pages_hosts(struct db *db, const char *since, struct db_result **ret,
		struct strbuf *err)
{
	return db_query(db, ret, err, host_sql, db_str(since), db_end());
}

int pages_host_events(struct db *db, int64_t host_id, struct db_result **ret,
		      struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT to_char((at) AT TIME ZONE 'UTC', 'YYYY-MM-DD "
		"HH24:MI:SS'), old_health, new_health, reason FROM "
		"host_events WHERE host_id = $1 ORDER BY at DESC, id DESC",
		db_i64(host_id), db_end());
}

/* The plan pages to look at (report/page_plan.c). */
static const char plan_sql[] =
	"SELECT pl.id, pl.name, pl.sha256, pl.body, to_char((pl.created_at) AT "
	"TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" md5(concat_ws('|', pl.name, pl.sha256, (SELECT count(*) || ',' ||"
	" string_agg(j.id || ':' || j.state, ',' ORDER BY j.id) FROM jobs j"
	" WHERE j.plan_id = pl.id)))"
	" FROM plans pl WHERE $1::timestamptz IS NULL"
	"  OR pl.created_at >= $1::timestamptz"
	"  OR EXISTS (SELECT 1 FROM runs r WHERE r.plan_id = pl.id"
	"             AND r.created_at >= $1::timestamptz)"
	" ORDER BY pl.id";

int pages_plans(struct db *db, const char *since, struct db_result **ret,
		struct strbuf *err)
{
	return db_query(db, ret, err, plan_sql, db_str(since), db_end());
}

/* ---- metric pages (report/page_metric.c) --------------------------- */

int pages_metrics(struct db *db, const char *since, struct db_result **ret,
		  struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT metric, md5(string_agg(host_id || ':' || workload || "
		"':' || params::text || ':' || fingerprint || ':' || "
		"analysed_at::text, ',' ORDER BY id)) FROM history_series "
		"GROUP BY metric HAVING $1::timestamptz IS NULL OR "
		"max(analysed_at) >= $1::timestamptz ORDER BY metric",
		db_str(since), db_end());
}

/* ---- patch pages (report/page_patch.c) ----------------------------- */

/* The patches to look at ($1: --since), their facts; column 11 the
 * fingerprint, 12 whether the patched kernel is only a label, 13-17 the
 * answer (state, verdict, headline, note, when), 18 mail_to, 19 the base
 * runs it reused (their sentence). */
static const char patch_fp_sql[] =
	"SELECT p.id, p.name, p.submitter, p.base, p.n_patches,"
	" p.series_sha256, to_char((p.created_at) AT TIME ZONE 'UTC', "
	"'YYYY-MM-DD HH24:MI:SS'), p.base_kernel_id,"
	" bk.name, p.kernel_id, nk.name,"
	" md5(concat_ws('|', p.name, p.submitter, p.base, p.n_patches,"
	" p.series_sha256, p.created_at, p.base_kernel_id, p.kernel_id,"
	" bk.name, nk.name,"
	" (SELECT string_agg(j.id || ':' || j.state || ':' ||"
	"  coalesce(j.host_id, 0) || ':' || j.attempts || ':' ||"
	"  coalesce(j.error, ''), ',' ORDER BY j.id) FROM jobs j"
	"  WHERE j.patch_id = p.id),"
	" (SELECT count(*) || ',' || coalesce(max(c.id), 0) FROM comparisons"
	"  c WHERE c.patch_id = p.id OR (c.base_kernel_id = p.base_kernel_id"
	"  AND c.new_kernel_id = p.kernel_id)),"
	/* Its own jobs' runs; base runs elsewhere show up on the page when
	 * a new compare stores verdicts, which changes the count above. */
	" (SELECT count(*) || ',' || coalesce(max(r.id), 0) || ',' ||"
	"  count(*) FILTER (WHERE r.status IN ('done', 'imported'))"
	"  FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.patch_id = p.id),"
	" nk.labelled,"
	/* The answer (schema 007), its mails and bisections. */
	" p.answer_state, p.answer_verdict, p.answer_headline, p.answer_note,"
	" p.answered_at, p.answer_base_reused,"
	" (SELECT string_agg(m.id || ':' || m.state, ',' ORDER BY m.id) FROM"
	"  mails m WHERE m.patch_id = p.id),"
	" (SELECT string_agg(b.id || ':' || b.state || ':' ||"
	"  coalesce(b.result, ''), ',' ORDER BY b.id) FROM bisections b WHERE"
	"  b.patch_id = p.id),"
	/* Where it came from, and the replies on its thread (schema 021). */
	" (SELECT string_agg(lr.message_id || ':' || lr.state, ',' ORDER BY"
	"  lr.id) FROM list_replies lr WHERE lr.patch_id = p.id),"
	/* Its series' other versions (the links on the page). */
	" (SELECT string_agg(ls.id || ':' || coalesce(ls.superseded_by::text,"
	"  '') || ':' || (SELECT count(*) FROM list_series o WHERE"
	"  o.superseded_by = ls.id), ',' ORDER BY ls.id) FROM list_series ls"
	"  WHERE ls.patch_id = p.id)"
	" )), coalesce(nk.labelled, false),"
	" p.answer_state, p.answer_verdict, p.answer_headline, p.answer_note,"
	" to_char((p.answered_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" p.mail_to, p.answer_base_reused->>'text'"
	" FROM patches p LEFT JOIN kernels bk ON bk.id = p.base_kernel_id"
	" LEFT JOIN kernels nk ON nk.id = p.kernel_id"
	" WHERE $1::timestamptz IS NULL OR p.created_at >= $1::timestamptz"
	"  OR EXISTS (SELECT 1 FROM jobs j WHERE j.patch_id = p.id AND"
	"   coalesce(j.finished_at, j.created_at) >= $1::timestamptz)"
	"  OR EXISTS (SELECT 1 FROM comparisons c WHERE (c.patch_id = p.id"
	"   OR (c.base_kernel_id = p.base_kernel_id AND c.new_kernel_id ="
	"   p.kernel_id)) AND c.computed_at >= $1::timestamptz)"
	"  OR p.answered_at >= $1::timestamptz"
	"  OR EXISTS (SELECT 1 FROM bisections b WHERE b.patch_id = p.id AND"
	"   coalesce(b.finished_at, b.created_at) >= $1::timestamptz)"
	"  OR EXISTS (SELECT 1 FROM list_replies lr WHERE lr.patch_id = p.id"
	"   AND coalesce(lr.sent_at, lr.created_at) >= $1::timestamptz)"
	" ORDER BY p.id";

int pages_patches(struct db *db, const char *since, struct db_result **ret,
		  struct strbuf *err)
{
	return db_query(db, ret, err, patch_fp_sql, db_str(since), db_end());
}

int pages_patch_jobs(struct db *db, int64_t patch_id, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT j.id, j.state, k.name, pl.name, j.plan_id,"
		" coalesce(h.name, j.host_constraint), j.host_id, j.attempts, "
		"to_char((j.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD "
		"HH24:MI:SS'), to_char((j.finished_at) AT TIME ZONE 'UTC', "
		"'YYYY-MM-DD HH24:MI:SS'),"
		" j.stop_reason, coalesce(j.error_phase || ': ', '') ||"
		" j.error FROM jobs j JOIN kernels k ON k.id = j.kernel_id"
		" JOIN plans pl ON pl.id = j.plan_id"
		" LEFT JOIN hosts h ON h.id = j.host_id"
		" WHERE j.patch_id = $1 ORDER BY j.id",
		db_i64(patch_id), db_end());
}

int pages_patch_bisections(struct db *db, int64_t patch_id,
			   struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT b.id, b.state, b.metric, h.name, b.result FROM "
			"bisections b JOIN hosts h ON h.id = b.host_id WHERE "
			"b.patch_id = $1 ORDER BY b.id",
			db_i64(patch_id), db_end());
}

/* ---- bisection pages (report/page_bisect.c) ------------------------ */

/* The bisections to look at ($1: --since); column 20 the fingerprint. */
static const char bisect_fp_sql[] =
	"SELECT b.id, b.patch_id, pa.name, b.tree, b.good_rev, b.bad_rev,"
	" b.host_id, h.name, b.plan_id, pl.name, b.metric, b.workload,"
	" coalesce((SELECT string_agg(e.key || '=' || e.value, ';' ORDER BY"
	"  e.key) FROM jsonb_each_text(b.params) e), ''),"
	" b.direction, b.state, b.result, b.culprit, b.n_points,"
	" to_char((b.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" to_char((b.finished_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" md5(concat_ws('|', b.id, b.state, b.result, b.culprit, b.pct_change,"
	"  b.ci_low, b.ci_high, b.p_value, b.direction, b.workload, b.params,"
	"  b.finished_at, pa.name, h.name, pl.name,"
	"  (SELECT string_agg(concat_ws(':', s.id, s.state, s.looks, s.boots,"
	"   s.n, s.mean, s.pct_vs_good, s.ci_low, s.ci_high, s.p_value,"
	"   s.verdict_good, s.verdict_bad, s.note, s.mean_good, s.mean_bad,"
	"   k.build_state, k.build_seconds), ',' ORDER BY s.step) FROM"
	"   bisection_steps s LEFT JOIN kernels k ON k.id = s.kernel_id WHERE"
	"   s.bisection_id = b.id),"
	"  (SELECT string_agg(p.position || ':' || p.mark || ':' || p.label,"
	"   ',' ORDER BY p.position) FROM bisection_points p WHERE"
	"   p.bisection_id = b.id))),"
	" b.pct_change, b.ci_low, b.ci_high, b.p_value, b.error"
	" FROM bisections b JOIN hosts h ON h.id = b.host_id"
	" JOIN plans pl ON pl.id = b.plan_id"
	" LEFT JOIN patches pa ON pa.id = b.patch_id"
	" WHERE $1::timestamptz IS NULL OR b.created_at >= $1::timestamptz"
	"  OR coalesce(b.finished_at, now()) >= $1::timestamptz"
	" ORDER BY b.id";

int pages_bisections(struct db *db, const char *since, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(db, ret, err, bisect_fp_sql, db_str(since), db_end());
}

int pages_bisection_steps(struct db *db, int64_t bisection_id,
			  struct db_result **ret, struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT s.step, s.position, k.name, s.state, s.boots, s.looks,"
		" s.n, s.mean, s.pct_vs_good, s.ci_low, s.ci_high, s.p_value,"
		" s.verdict_good, s.verdict_bad, k.build_seconds, s.note,"
		" s.mean_good, s.mean_bad FROM bisection_steps s LEFT JOIN"
		" kernels k ON k.id = s.kernel_id WHERE s.bisection_id = $1"
		" ORDER BY s.step",
		db_i64(bisection_id), db_end());
}

int pages_bisection_points(struct db *db, int64_t bisection_id,
			   struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT p.position, p.mark, k.name, p.label FROM"
			" bisection_points p LEFT JOIN kernels k ON k.id ="
			" p.kernel_id WHERE p.bisection_id = $1 ORDER BY"
			" p.position",
			db_i64(bisection_id), db_end());
}

/* ---- kernel pairs (report/page_pair.c, report/page_index.c) -------- */

/*
 * Kernel pairs compared without a patch (imports, `compare --base
 * --new`): the FROM and WHERE of both statements below.  A pair that a
 * patch covers is shown on the patch's page instead.
 */
static const char pair_where[] =
	" FROM comparisons c WHERE c.patch_id IS NULL AND NOT EXISTS"
	" (SELECT 1 FROM patches p WHERE p.base_kernel_id = c.base_kernel_id"
	"  AND p.kernel_id = c.new_kernel_id)";

int pages_pairs(struct db *db, const char *since, struct db_result **ret,
		struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	int rc;

	strbuf_addf(&sql,
		    "SELECT g.b, g.n, bk.name, nk.name, md5(g.fp || (SELECT"
		    " count(*) || ',' || coalesce(max(r.id), 0) || ',' ||"
		    " count(*) FILTER (WHERE r.status IN ('done', 'imported'))"
		    " FROM runs r WHERE r.kernel_id IN (g.b, g.n)) || bk.name"
		    " || nk.name) FROM (SELECT c.base_kernel_id AS b,"
		    " c.new_kernel_id AS n, string_agg(c.id::text, ','"
		    " ORDER BY c.id) AS fp, max(c.computed_at) AS at %s"
		    " GROUP BY 1, 2) g JOIN kernels bk ON bk.id = g.b"
		    " JOIN kernels nk ON nk.id = g.n"
		    " WHERE $1::timestamptz IS NULL OR g.at >= $1::timestamptz"
		    " ORDER BY g.b, g.n",
		    pair_where);
	rc = db_query(db, ret, err, sql.buf, db_str(since), db_end());
	strbuf_release(&sql);
	return rc;
}

/* ---- the index (report/page_index.c) ------------------------------- */

static const char patch_summary_sql[] =
	"WITH lc AS (SELECT DISTINCT ON (p.id, c.host_id, c.workload,"
	"  c.params, c.metric) p.id AS pid, c.verdict"
	"  FROM patches p JOIN comparisons c ON c.patch_id = p.id"
	"  OR (c.base_kernel_id = p.base_kernel_id"
	"      AND c.new_kernel_id = p.kernel_id)"
	"  ORDER BY p.id, c.host_id, c.workload, c.params, c.metric,"
	"  schedfarm_question_rank(c.planned, c.question),"
	"  c.computed_at DESC, c.id DESC),"
	" cnt AS (SELECT pid, count(*) FILTER (WHERE verdict = 'regression')"
	"  AS regr, count(*) FILTER (WHERE verdict = 'improvement') AS impr,"
	"  count(*) FILTER (WHERE verdict = 'changed') AS chg,"
	"  count(*) AS n FROM lc GROUP BY pid),"
	" st AS (SELECT patch_id, string_agg(state || ' ' || n, ', ' ORDER"
	"  BY state) AS state FROM (SELECT patch_id, state, count(*) AS n"
	"  FROM jobs WHERE patch_id IS NOT NULL GROUP BY 1, 2) s"
	"  GROUP BY patch_id)"
	" SELECT p.id, p.name, p.submitter, p.base,"
	" coalesce(st.state, 'no jobs'), coalesce(cnt.regr, 0),"
	" coalesce(cnt.impr, 0), coalesce(cnt.chg, 0), coalesce(cnt.n, 0),"
	" to_char((p.created_at) AT "
	"TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM patches p LEFT JOIN "
	"cnt ON cnt.pid = p.id"
	" LEFT JOIN st ON st.patch_id = p.id ORDER BY p.id";

static const char queue_sql[] =
	"SELECT j.id, j.patch_id, pa.name, k.name, pl.name, j.plan_id,"
	" coalesce(h.name, j.host_constraint, 'any'), j.host_id,"
	" j.state, j.priority, to_char((j.created_at) AT TIME ZONE "
	"'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM jobs j JOIN kernels k ON "
	"k.id = j.kernel_id"
	" JOIN plans pl ON pl.id = j.plan_id"
	" LEFT JOIN patches pa ON pa.id = j.patch_id"
	" LEFT JOIN hosts h ON h.id = j.host_id"
	" WHERE j.state NOT IN ('done', 'failed', 'cancelled')"
	" ORDER BY j.priority DESC, j.id LIMIT 200";
static const char queue_count_sql[] =
	"SELECT count(*) FROM jobs WHERE state NOT IN"
	" ('done', 'failed', 'cancelled')";
static const char hosts_sql[] =
	"SELECT h.id, h.name, h.kind, h.health, h.cpus,"
	" (SELECT count(*) FROM runs r WHERE r.host_id = h.id)"
	" FROM hosts h ORDER BY h.name";
static const char plans_sql[] =
	"SELECT pl.id, pl.name, left(pl.sha256, 12),"
	" (SELECT count(*) FROM runs r WHERE r.plan_id = pl.id),"
	" to_char((pl.created_at) AT TIME ZONE 'UTC', "
	"'YYYY-MM-DD HH24:MI:SS') FROM plans pl ORDER BY "
	"pl.name, pl.id";

static const char metrics_sql[] =
	"SELECT hs.metric, count(DISTINCT hs.host_id), count(*),"
	" (SELECT count(*) FROM history_changes c JOIN history_series s2"
	"  ON s2.id = c.series_id WHERE s2.metric = hs.metric),"
	" (SELECT to_char(max(c.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"
	" HH24:MI:SS') FROM history_changes c JOIN history_series s2"
	"  ON s2.id = c.series_id WHERE s2.metric = hs.metric)"
	" FROM history_series hs GROUP BY hs.metric ORDER BY hs.metric";

int pages_index_queue(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err, queue_sql, db_end());
}

int pages_index_queue_count(struct db *db, struct db_result **ret,
			    struct strbuf *err)
{
	return db_query(db, ret, err, queue_count_sql, db_end());
}

int pages_index_patches(struct db *db, struct db_result **ret,
			struct strbuf *err)
{
	return db_query(db, ret, err, patch_summary_sql, db_end());
}

int pages_index_pairs(struct db *db, struct db_result **ret, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	int rc;

	strbuf_addf(&sql,
		    "WITH lc AS (SELECT DISTINCT ON (c.base_kernel_id,"
		    " c.new_kernel_id, c.host_id, c.workload, c.params,"
		    " c.metric) c.base_kernel_id AS b,"
		    " c.new_kernel_id AS n, c.verdict, c.computed_at"
		    " %s ORDER BY c.base_kernel_id, c.new_kernel_id,"
		    " c.host_id, c.workload, c.params, c.metric,"
		    " c.computed_at DESC, c.id DESC)"
		    " SELECT lc.b, lc.n, nk.name, bk.name,"
		    " count(*) FILTER (WHERE verdict = 'regression'),"
		    " count(*) FILTER (WHERE verdict = 'improvement'),"
		    " count(*) FILTER (WHERE verdict = 'changed'),"
		    " count(*), to_char((max(lc.computed_at)) AT TIME "
		    "ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM lc JOIN "
		    "kernels bk ON bk.id = lc.b"
		    " JOIN kernels nk ON nk.id = lc.n"
		    " GROUP BY lc.b, lc.n, nk.name, bk.name"
		    " ORDER BY max(lc.computed_at) DESC, lc.b, lc.n"
		    " LIMIT 200",
		    pair_where);
	rc = db_query(db, ret, err, sql.buf, db_end());
	strbuf_release(&sql);
	return rc;
}

int pages_index_hosts(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err, hosts_sql, db_end());
}

int pages_index_plans(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err, plans_sql, db_end());
}

int pages_index_metrics(struct db *db, struct db_result **ret,
			struct strbuf *err)
{
	return db_query(db, ret, err, metrics_sql, db_end());
}

/* ---- run pages (report/page_run.c) --------------------------------- */

/* The runs whose pages to look at, with the fingerprint of each. */
static const char run_fp_sql[] =
	"SELECT r.id, md5(concat_ws('|', r.status, r.error, r.params::text,"
	" r.agent_info::text, r.boot, r.seq, r.job_id, r.plan_id, r.source,"
	" r.imported, r.created_at, r.started_at, r.finished_at,"
	" r.ingested_at, md5(coalesce(r.console_log, '')),"
	" md5(coalesce(r.raw_lines, '')), h.name, h.kind, h.sockets,"
	" h.cores_per_socket, h.threads_per_core, h.numa_nodes, h.cpus,"
	" h.memory_mb, k.name, k.base, k.release, k.build_state, k.labelled,"
	" k.vmlinux_text, k.vmlinux_data, k.vmlinux_bss, k.build_seconds,"
	" k.built_at, length(k.build_log), pl.name, j.patch_id, pa.name,"
	" (SELECT count(*) || ',' || coalesce(max(x.id), 0) || ',' ||"
	"  coalesce(sum(x.value), 0) FROM results x WHERE x.run_id = r.id),"
	" (SELECT count(*) || ',' || coalesce(sum(x.value), 0) FROM samples x"
	"  WHERE x.run_id = r.id),"
	" (SELECT count(*) || ',' || coalesce(sum(x.value), 0) FROM counters"
	"  x WHERE x.run_id = r.id)))"
	" FROM runs r JOIN hosts h ON h.id = r.host_id"
	" JOIN kernels k ON k.id = r.kernel_id"
	" LEFT JOIN plans pl ON pl.id = r.plan_id"
	" LEFT JOIN jobs j ON j.id = r.job_id"
	" LEFT JOIN patches pa ON pa.id = j.patch_id"
	" WHERE $1::timestamptz IS NULL OR r.created_at >= $1::timestamptz"
	" ORDER BY r.id";

int pages_runs(struct db *db, const char *since, struct db_result **ret,
	       struct strbuf *err)
{
	return db_query(db, ret, err, run_fp_sql, db_str(since), db_end());
}

/* What a run page shows of its run, host and kernel. */
static const char run_detail_sql[] =
	"SELECT r.id, r.status, r.workload, coalesce((SELECT string_agg(e.key "
	"|| '=' || e.value, ';' ORDER BY e.key) FROM jsonb_each_text(r.params) "
	"e), ''), "
	" r.boot, r.seq, r.job_id, j.patch_id, pa.name, r.plan_id, pl.name,"
	" r.host_id, h.name, h.kind, h.sockets, h.cores_per_socket,"
	" h.threads_per_core, h.numa_nodes, h.cpus, h.memory_mb,"
	" r.kernel_id, k.name, k.base, k.release, CASE WHEN k.labelled THEN"
	" 'labelled, not built: the name given to the kernel the host ran;"
	" nothing was built or booted' ELSE k.build_state END,"
	" k.vmlinux_text, k.vmlinux_data, k.vmlinux_bss, k.build_seconds,"
	" k.build_log IS NOT NULL, r.imported, r.source,"
	" jsonb_pretty(r.agent_info), r.console_log, r.raw_lines, r.error, "
	"to_char((r.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
	"to_char((r.started_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
	"to_char((r.finished_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
	"to_char((r.ingested_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') "
	"FROM runs r JOIN hosts h ON h.id = r.host_id"
	" JOIN kernels k ON k.id = r.kernel_id"
	" LEFT JOIN plans pl ON pl.id = r.plan_id"
	" LEFT JOIN jobs j ON j.id = r.job_id"
	" LEFT JOIN patches pa ON pa.id = j.patch_id"
	" WHERE r.id = ANY($1::bigint[]) ORDER BY r.id";

int pages_run_details(struct db *db, const char *ids, struct db_result **ret,
		      struct strbuf *err)
{
	return db_query(db, ret, err, run_detail_sql, db_str(ids), db_end());
}

int pages_run_results(struct db *db, const char *ids, struct db_result **ret,
		      struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT run_id, metric, iteration, warmup, value, unit,"
			" direction, n, stddev FROM results WHERE run_id = "
			"ANY($1::bigint[]) ORDER BY run_id, warmup DESC, "
			"metric, iteration",
			db_str(ids), db_end());
}

int pages_run_counters(struct db *db, const char *ids, struct db_result **ret,
		       struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT run_id, iteration, source, scope, name, value,"
			" available, note FROM counters WHERE run_id = "
			"ANY($1::bigint[]) ORDER BY run_id, iteration, source,"
			" scope COLLATE \"C\", name",
			db_str(ids), db_end());
}

int pages_run_samples(struct db *db, const char *ids, struct db_result **ret,
		      struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT run_id, iteration, series, t, value FROM "
			"samples WHERE run_id = ANY($1::bigint[]) ORDER BY "
			"run_id, iteration, series, t",
			db_str(ids), db_end());
}

int pages_kernel_build_log(struct db *db, int64_t kernel_id,
			   struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT build_log FROM kernels WHERE id = $1",
			db_i64(kernel_id), db_end());
}

/* ---- comparisons on patch and kernel-pair pages (report/comparison.c) */

/*
 * The shown verdict per (host, workload, params, metric) for a kernel
 * pair, and for a patch also those stored under its PLM#: the patch's
 * own planned question first, then the plain one, then any other, the
 * newest of each (schema 017's schedfarm_question_rank()).  $1 base kernel,
 * $2 new kernel, $3 patch (may be NULL).  Sorted by host name, workload,
 * params in numeric order (nkey) and metric, so the rows of a group are
 * adjacent (same_group()).
 */
static const char latest_cmp_sql[] =
	"SELECT * FROM (SELECT DISTINCT ON (c.host_id, c.workload, c.params,"
	" c.metric) c.host_id, h.name, c.workload, coalesce((SELECT "
	"string_agg(e.key || '=' || e.value, ';' ORDER BY e.key) FROM "
	"jsonb_each_text(c.params) e), '') AS ptxt, c.params::text, c.metric, "
	"c.unit, c.better, c.n_base,"
	" c.n_new, c.mean_base, c.mean_new, c.stddev_base, c.stddev_new,"
	" c.pct_change, c.ci_low, c.ci_high, c.p_value, c.tau, c.verdict,"
	" c.method_version, c.base_kernel_id, c.new_kernel_id, bk.name,"
	" nk.name"
	", coalesce((SELECT string_agg(e.key || '=' || CASE WHEN e.value ~ "
	"'^[0-9]+([.][0-9]*)?$' THEN lpad(split_part(e.value, '.', 1), 24, "
	"'0') || '.' || split_part(e.value, '.', 2) ELSE e.value END, ';' "
	"ORDER BY e.key) FROM jsonb_each_text(c.params) e), '') AS nkey,"
	" c.scale, c.diff, c.diff_low, c.diff_high, c.ci_unbounded, c.note,"
	" c.family, c.alpha"
	" FROM comparisons c JOIN hosts h ON h.id = c.host_id"
	" JOIN kernels bk ON bk.id = c.base_kernel_id"
	" JOIN kernels nk ON nk.id = c.new_kernel_id"
	" WHERE (c.base_kernel_id = $1 AND c.new_kernel_id = $2)"
	"    OR ($3::bigint IS NOT NULL AND c.patch_id = $3)"
	" ORDER BY c.host_id, c.workload, c.params, c.metric,"
	" schedfarm_question_rank(c.planned, c.question),"
	" c.computed_at DESC, c.id DESC) x"
	" ORDER BY 2, 3, nkey COLLATE \"C\", 6";

/*
 * Observations behind the rows of latest_cmp_sql (same parameters), in
 * run order: every non-warm-up result of the patch's own jobs, and per
 * compared (host, workload, params) and kernel the newest PAGES_OBS_RUNS runs.
 * Bounded so a page costs the same however many runs a shared base
 * kernel gathers.
 */
static const char obs_sql[] =
	"WITH c AS (SELECT DISTINCT host_id, workload, params,"
	" base_kernel_id, new_kernel_id FROM comparisons"
	" WHERE (base_kernel_id = $1 AND new_kernel_id = $2)"
	" OR ($3::bigint IS NOT NULL AND patch_id = $3)),"
	" rs AS (SELECT r.id FROM c CROSS JOIN LATERAL (VALUES"
	" (c.base_kernel_id), (c.new_kernel_id)) AS k(id)"
	" CROSS JOIN LATERAL (SELECT r.id FROM runs r"
	" WHERE r.kernel_id = k.id AND r.host_id = c.host_id"
	" AND r.workload = c.workload AND r.params = c.params"
	" ORDER BY r.id DESC LIMIT " PAGES_OBS_RUNS ") r"
	" UNION SELECT r.id FROM runs r JOIN jobs j ON j.id = r.job_id"
	" WHERE $3::bigint IS NOT NULL AND j.patch_id = $3)"
	" SELECT r.host_id, r.kernel_id, r.id, r.job_id, r.workload,"
	" r.params::text, x.metric, x.iteration, x.value"
	" FROM rs JOIN runs r ON r.id = rs.id"
	" JOIN results x ON x.run_id = r.id AND NOT x.warmup"
	" ORDER BY r.id, x.metric, x.iteration";

int pages_latest_comparisons(struct db *db, int64_t base_k, int64_t new_k,
			     int64_t patch, struct db_result **ret,
			     struct strbuf *err)
{
	return db_query(db, ret, err, latest_cmp_sql, db_i64(base_k),
			db_i64(new_k), patch ? db_i64(patch) : db_str(NULL),
			db_end());
}

int pages_comparison_observations(struct db *db, int64_t base_k, int64_t new_k,
				  int64_t patch, struct db_result **ret,
				  struct strbuf *err)
{
	return db_query(db, ret, err, obs_sql, db_i64(base_k), db_i64(new_k),
			patch ? db_i64(patch) : db_str(NULL), db_end());
}
