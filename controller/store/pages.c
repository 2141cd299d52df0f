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
