/*
 * runs.c - the `runs` and `boots` rows; see runs.h.
 */
#include <inttypes.h>

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

/* The host row a boot reads, its WHERE to follow (boots_host_row()). */
#define BOOT_HOST_ROW                                                          \
	"SELECT id, name, kind, address, port, ssh_user, "                     \
	"key_file, known_hosts, sockets, "                                     \
	"cores_per_socket, "                                                   \
	"threads_per_core, numa_nodes, memory_mb, "                            \
	"libvirt_uri, bmc_address, bmc_port, bmc_user, "                       \
	"bmc_password_file, boot_config::text, "                               \
	"known_good_kernel_id, health, bmc_bootdev, "                          \
	"(SELECT release FROM kernels WHERE id = "                             \
	"known_good_kernel_id) FROM hosts "

int boots_host_row(struct db *db, const char *name, int64_t id,
		   struct db_result **ret, struct strbuf *err)
{
	if (name)
		return db_query(db, ret, err, BOOT_HOST_ROW "WHERE name = $1",
				db_str(name), db_end());
	return db_query(db, ret, err, BOOT_HOST_ROW "WHERE id = $1", db_i64(id),
			db_end());
}

int boots_kernel_row(struct db *db, int64_t kernel_id, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT name, image_path, vmlinux_path, initrd_path, "
			"release, build_state FROM kernels WHERE id = $1",
			db_i64(kernel_id), db_end());
}

int boots_insert(struct db *db, int64_t job_id, int64_t host_id,
		 int64_t kernel_id, const char *method,
		 const char *controller_id, int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *r = NULL;
	int rc;

	rc = db_query(db, &r, err,
		      "INSERT INTO boots (job_id, host_id, kernel_id, "
		      "method, controller_id) VALUES ($1, $2, $3, $4, $5) "
		      "RETURNING id",
		      job_id ? db_i64(job_id) : db_str(NULL), db_i64(host_id),
		      db_i64(kernel_id), db_str(method), db_str(controller_id),
		      db_end());
	if (!rc)
		parse_i64(db_get(r, 0, 0), 1, INT64_MAX, ret_id, NULL);
	return rc;
}

int boots_set_blame(struct db *db, int64_t boot_id, const char *blame,
		    struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE boots SET blame = $2 WHERE id = $1",
			db_i64(boot_id), db_str(blame), db_end());
}

static struct db_arg ms_arg(int64_t v)
{
	return v >= 0 ? db_i64(v) : db_str(NULL);
}

int boots_finish(struct db *db, const struct boots_end *e, struct strbuf *err)
{
	return db_query(
		db, NULL, err,
		"UPDATE boots SET linux_ms = $2, beacon_ms = $3, ssh_ms = $4, "
		"ready_ms = $5, outcome = $6, blame = $7, reason = $8, "
		"release = $9, console_events = $10, console_log = $11, "
		"method = $12, fallback = $13, "
		"finished_at = CASE WHEN $6 = 'ready' THEN NULL ELSE now() END "
		"WHERE id = $1",
		db_i64(e->boot_id), ms_arg(e->linux_ms), ms_arg(e->beacon_ms),
		ms_arg(e->ssh_ms), ms_arg(e->ready_ms), db_str(e->outcome),
		db_str(e->blame), db_str(e->reason), db_str(e->release),
		db_str(e->console_events), db_str(e->console_log),
		db_str(e->method), db_str(e->fallback), db_end());
}

int boots_powered_off(struct db *db, int64_t boot_id, const char *console,
		      struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE boots SET finished_at = coalesce(finished_at, "
			"now()), console_log = coalesce($2, console_log) "
			"WHERE id = $1",
			db_i64(boot_id), db_str(console), db_end());
}

int boots_run_fatal(struct db *db, int64_t boot_id, const char *outcome,
		    const char *blame, const char *reason, const char *expected,
		    const char *events, struct strbuf *err)
{
	return db_query(
		db, NULL, err,
		"UPDATE boots SET outcome = $2, blame = $3, reason = $4, "
		"expected = $5, console_events = coalesce("
		"console_events, '') || $6 WHERE id = $1",
		db_i64(boot_id), db_str(outcome), db_str(blame), db_str(reason),
		db_str(expected), db_str(events), db_end());
}

int boots_attach_console(struct db *db, int64_t boot_id, int64_t job_id,
			 int64_t run_boot, int64_t attempt, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE runs r SET console_log = b.console_log "
			"FROM boots b WHERE b.id = $1 AND r.job_id = $2 "
			"AND r.boot = $3 AND r.attempt = $4",
			db_i64(boot_id), db_i64(job_id), db_i64(run_boot),
			db_i64(attempt), db_end());
}

int boots_farm_id(struct db *db, struct strbuf *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *r = NULL;

	if (db_exec(db, &r, err, "SELECT id FROM farm_identity LIMIT 1", 0,
		    NULL) < 0)
		return -1;
	if (db_nrows(r) != 1) {
		strbuf_addstr(err, "the database has no farm identity");
		return -1;
	}
	strbuf_addstr(ret, db_get(r, 0, 0));
	return 0;
}

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
			   int64_t boot, int64_t started_at, const char *source,
			   int64_t import_id, int64_t *ret_id,
			   struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	char at[24];
	int rr;

	snprintf(at, sizeof(at), "%lld", (long long)started_at);
	rr = db_query(db, &res, err,
		      "INSERT INTO runs (host_id, kernel_id, "
		      "workload, params, boot, status, imported, "
		      "source, import_id, started_at) VALUES ($1, $2, $3, "
		      "$4::jsonb, $5, 'imported', true, $6, $7, "
		      "to_timestamp($8::bigint)) RETURNING id",
		      db_i64(host_id), db_i64(kernel_id), db_str(workload),
		      db_str(params), db_i64(boot), db_str(source),
		      db_i64(import_id), db_str(started_at >= 0 ? at : NULL),
		      db_end());
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
