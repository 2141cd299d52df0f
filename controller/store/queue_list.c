/*
 * queue_list.c - what the verbs read of the queue: the `queue` listing,
 * the count of queued jobs, one job's state, whether a host is busy, and
 * a stored plan found by its text.  See queue_list.h.
 *
 * Read-only: the rows are written by queue.c (submit, claim, leases, the
 * job's end) and jobs.c; these statements only look.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/queue_list.h"
#include "banned.h"

int queue_count_queued(struct db *db, int64_t *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_exec(db, &res, err,
		    "SELECT count(*) FROM jobs WHERE state = 'queued'", 0,
		    NULL) < 0)
		return -1;
	return db_get_i64(res, 0, 0, 0, INT64_MAX, ret);
}

int queue_job_state(struct db *db, int64_t job_id, struct strbuf *ret_state,
		    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err, "SELECT state FROM jobs WHERE id = $1",
		     db_i64(job_id), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	strbuf_addstr(ret_state, db_get(res, 0, 0));
	return 0;
}

int queue_hosts_busy(struct db *db, int *ret_busy, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	*ret_busy = 0;
	if (db_exec(db, &res, err,
		    "SELECT count(*) FROM hosts WHERE state <> 'idle'", 0,
		    NULL) < 0)
		return -1;
	*ret_busy = strcmp(db_get(res, 0, 0), "0") != 0;
	return 0;
}

int queue_find_plan(struct db *db, const char *text, size_t len,
		    struct strbuf *ret_sha256, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	_cleanup_free_ char *body = xstrndup(text, len);
	int r;

	r = db_query(db, &res, err,
		     "SELECT sha256 FROM plans WHERE sha256 = "
		     "encode(sha256(convert_to($1, 'UTF8')), 'hex')",
		     db_str(body), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	strbuf_addstr(ret_sha256, db_get(res, 0, 0));
	return 0;
}

int queue_list(struct db *db, const char *state, int64_t limit,
	       struct db_result **ret, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, state);
	db_args_i64(&a, limit);
	r = db_exec_args(
		db, ret, err,
		"WITH q AS (SELECT j.id, j.state, j.priority, "
		"j.patch_id, k.name AS kernel, p.name AS plan, "
		"coalesce(h.name, j.host_constraint) AS host, "
		"j.attempts, j.created_at, j.error_phase, j.error, "
		"j.name, j.nr_runs FROM jobs j JOIN kernels k ON k.id "
		"= j.kernel_id JOIN plans p ON p.id = j.plan_id LEFT "
		"JOIN hosts h ON h.id = j.host_id WHERE CASE WHEN $1::text "
		"IS NULL THEN j.state NOT IN ('done', 'failed', "
		"'cancelled') WHEN $1::text = 'all' THEN true ELSE j.state "
		"= $1 END ORDER BY j.id DESC LIMIT $2) "
		"SELECT coalesce(jsonb_agg(jsonb_build_object('job', "
		"id, 'state', state, 'priority', priority, 'patch', "
		"patch_id, 'kernel', kernel, 'plan', plan, 'host', "
		"host, 'attempts', attempts, 'created_at', created_at, "
		"'error_phase', error_phase, 'error', error, 'name', "
		"name, 'runs', nr_runs) ORDER BY id DESC), '[]'), "
		"coalesce(string_agg(format('%-7s %-10s %5s %-7s "
		"%-20s %-16s %-14s %3s %s', id, state, priority, "
		"coalesce('PLM#' || patch_id, '-'), kernel, plan, "
		"coalesce(host, '(any)'), attempts, coalesce(error_phase "
		"|| ': ' || left(error, 80), '')), E'\\n' ORDER BY id "
		"DESC), '') FROM q",
		&a);
	db_args_clear(&a);
	return r;
}
