/*
 * runs.c - the `runs` and `boots` rows; see runs.h.
 */
#include <inttypes.h>

#include "store/runs.h"
#include "cleanup.h"
#include "parse.h"
#include "banned.h"

/* ---- runs ---------------------------------------------------------- */

/* ---- boots --------------------------------------------------------- */

int boots_host_row(struct db *db, const char *name, int64_t id,
		   struct db_result **ret, struct strbuf *err)
{
	if (name)
		return db_query(
			db, ret, err,
			"SELECT id, name, kind, address, port, ssh_user, "
			"key_file, known_hosts, sockets, "
			"cores_per_socket, "
			"threads_per_core, numa_nodes, memory_mb, "
			"libvirt_uri, bmc_address, bmc_port, bmc_user, "
			"bmc_password_file, boot_config::text, "
			"known_good_kernel_id, health, bmc_bootdev, "
			"(SELECT release FROM kernels WHERE id = "
			"known_good_kernel_id) FROM hosts "
			"WHERE name = $1",
			db_str(name), db_end());
	return db_query(db, ret, err,
			"SELECT id, name, kind, address, port, ssh_user, "
			"key_file, known_hosts, sockets, "
			"cores_per_socket, "
			"threads_per_core, numa_nodes, memory_mb, "
			"libvirt_uri, bmc_address, bmc_port, bmc_user, "
			"bmc_password_file, boot_config::text, "
			"known_good_kernel_id, health, bmc_bootdev, "
			"(SELECT release FROM kernels WHERE id = "
			"known_good_kernel_id) FROM hosts "
			"WHERE id = $1",
			db_i64(id), db_end());
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
