/*
 * jobs.c - new rows in `jobs`; see jobs.h.
 *
 * The INSERT below is the only one of the tree: submit, rerun and the
 * adaptive sequences differ only in how they fill a struct job_row.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "plan/plan.h"
#include "store/jobs.h"
#include "banned.h"

void job_row_init(struct job_row *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->req_kinds);
	strvec_init(&r->req_tags);
	strvec_init(&r->plan_set);
}

void job_row_release(struct job_row *r)
{
	free(r->host_constraint);
	free(r->name);
	strvec_clear(&r->req_kinds);
	strvec_clear(&r->req_tags);
	strvec_clear(&r->plan_set);
	job_row_init(r);
}

void job_row_from_plan(struct job_row *r, const struct plan *p, int boots)
{
	strvec_clear(&r->req_kinds);
	strvec_clear(&r->req_tags);
	for (size_t i = 0; i < p->host.kinds.nr; i++)
		strvec_push(&r->req_kinds, p->host.kinds.v[i]);
	for (size_t i = 0; i < p->host.tags.nr; i++)
		strvec_push(&r->req_tags, p->host.tags.v[i]);
	r->req_min_sockets = p->host.min_sockets;
	r->req_min_cpus = p->host.min_cpus;
	r->req_min_memory_mb = p->host.min_memory_mb;
	r->nr_runs = (int64_t)p->nr_runs * boots;
}

/* Append the elements of job_id's text[] column `col` to sv. */
static int load_array(struct db *db, int64_t job_id, const char *col,
		      struct strvec *sv, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	/* col is one of three names fixed below, never input. */
	r = db_query(db, &res, err,
		     !strcmp(col, "req_kinds")
			     ? "SELECT e FROM jobs, unnest(req_kinds) WITH "
			       "ORDINALITY AS u(e, i) WHERE id = $1 ORDER "
			       "BY i"
		     : !strcmp(col, "plan_set")
			     ? "SELECT e FROM jobs, unnest(plan_set) WITH "
			       "ORDINALITY AS u(e, i) WHERE id = $1 ORDER "
			       "BY i"
			     : "SELECT e FROM jobs, unnest(req_tags) WITH "
			       "ORDINALITY AS u(e, i) WHERE id = $1 ORDER "
			       "BY i",
		     db_i64(job_id), db_end());
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(sv, db_get(res, i, 0));
	return 0;
}

int jobs_load_row(struct db *db, int64_t job_id, struct job_row *r,
		  struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rc;

	rc = db_query(db, &res, err,
		      "SELECT coalesce(patch_id, 0), kernel_id, plan_id, "
		      "host_constraint, priority, name, req_min_sockets, "
		      "req_min_cpus, req_min_memory_mb, nr_runs, "
		      "coalesce(rerun_of, 0), block FROM jobs WHERE id = "
		      "$1",
		      db_i64(job_id), db_end());
	if (rc < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	if (db_get_i64(res, 0, 0, 0, INT64_MAX, &r->patch_id) < 0 ||
	    db_get_i64(res, 0, 1, 1, INT64_MAX, &r->kernel_id) < 0 ||
	    db_get_i64(res, 0, 2, 1, INT64_MAX, &r->plan_id) < 0 ||
	    db_get_i64(res, 0, 4, -1000, 1000, &r->priority) < 0 ||
	    db_get_i64(res, 0, 6, 0, INT64_MAX, &r->req_min_sockets) < 0 ||
	    db_get_i64(res, 0, 7, 0, INT64_MAX, &r->req_min_cpus) < 0 ||
	    db_get_i64(res, 0, 8, 0, INT64_MAX, &r->req_min_memory_mb) < 0 ||
	    db_get_i64(res, 0, 9, 0, INT64_MAX, &r->nr_runs) < 0 ||
	    db_get_i64(res, 0, 10, 0, INT64_MAX, &r->rerun_of) < 0 ||
	    db_get_i64(res, 0, 11, 0, INT64_MAX, &r->block) < 0) {
		strbuf_addf(err, "job %lld: a column out of range",
			    (long long)job_id);
		return -1;
	}
	free(r->host_constraint);
	free(r->name);
	r->host_constraint =
		db_get(res, 0, 3) ? xstrdup(db_get(res, 0, 3)) : NULL;
	r->name = db_get(res, 0, 5) ? xstrdup(db_get(res, 0, 5)) : NULL;
	strvec_clear(&r->req_kinds);
	strvec_clear(&r->req_tags);
	strvec_clear(&r->plan_set);
	if (load_array(db, job_id, "req_kinds", &r->req_kinds, err) < 0 ||
	    load_array(db, job_id, "req_tags", &r->req_tags, err) < 0 ||
	    load_array(db, job_id, "plan_set", &r->plan_set, err) < 0)
		return -1;
	return 0;
}

int jobs_load_plan_set(struct db *db, int64_t job_id, struct strvec *sets,
		       struct strbuf *err)
{
	return load_array(db, job_id, "plan_set", sets, err);
}

int jobs_load_plan_set_of_plan(struct db *db, int64_t plan_id, int64_t patch_id,
			       struct strvec *sets, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t job = 0;
	int r;

	r = db_query(db, &res, err,
		     "SELECT max(id) FROM jobs WHERE plan_id = $1 AND "
		     "($2 <= 0 OR patch_id = $2)",
		     db_i64(plan_id), db_i64(patch_id), db_end());
	if (r < 0)
		return -1;
	if (!db_get(res, 0, 0) || db_get_i64(res, 0, 0, 1, INT64_MAX, &job) < 0)
		return 0;
	return load_array(db, job, "plan_set", sets, err);
}

/*
 * Parse the stored plan (name, body) with sets into *ret: 0, or -2 with
 * the parser's messages in err.
 */
static int parse_stored_plan(const char *name, const char *body,
			     const struct strvec *sets, struct plan **ret,
			     struct strbuf *err)
{
	if (plan_parse_set(name, body, strlen(body), sets, ret, err) < 0)
		return -2;
	return 0;
}

int jobs_load_plan(struct db *db, int64_t job_id, struct plan **ret,
		   struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strvec sets = STRVEC_INIT;
	int r;

	*ret = NULL;
	if (db_query(db, &res, err,
		     "SELECT pl.name, pl.body FROM jobs j JOIN plans pl ON "
		     "pl.id = j.plan_id WHERE j.id = $1",
		     db_i64(job_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no job %lld", (long long)job_id);
		return -1;
	}
	if (load_array(db, job_id, "plan_set", &sets, err) < 0) {
		strvec_clear(&sets);
		return -1;
	}
	r = parse_stored_plan(db_get(res, 0, 0), db_get(res, 0, 1), &sets, ret,
			      err);
	strvec_clear(&sets);
	return r;
}

int jobs_load_plan_of_plan(struct db *db, int64_t plan_id, int64_t patch_id,
			   struct strvec *ret_sets, struct plan **ret,
			   struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strvec sets = STRVEC_INIT;
	int r;

	*ret = NULL;
	if (db_query(db, &res, err,
		     "SELECT name, body FROM plans WHERE id = $1",
		     db_i64(plan_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	if (patch_id >= 0 &&
	    jobs_load_plan_set_of_plan(db, plan_id, patch_id, &sets, err) < 0) {
		strvec_clear(&sets);
		return -1;
	}
	r = parse_stored_plan(db_get(res, 0, 0), db_get(res, 0, 1), &sets, ret,
			      err);
	if (ret_sets)
		strvec_pushv(ret_sets, (const char *const *)sets.v);
	strvec_clear(&sets);
	return r;
}

int jobs_insert(struct db *db, const struct job_row *r, int64_t *ret_id,
		struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rc;

	rc = db_query(
		db, &res, err,
		"INSERT INTO jobs (patch_id, kernel_id, plan_id, "
		"host_constraint, priority, name, req_kinds, "
		"req_min_sockets, req_min_cpus, req_min_memory_mb, "
		"req_tags, nr_runs, rerun_of, block, plan_set, boots, "
		"first_boot, bisect_step_id) VALUES "
		"(nullif($1, 0), $2, $3, $4, $5, $6, $7, $8, $9, "
		"$10, $11, $12, nullif($13, 0), $14, $15, nullif($16, "
		"0), $17, nullif($18, 0)) RETURNING id",
		db_i64(r->patch_id), db_i64(r->kernel_id), db_i64(r->plan_id),
		db_str(r->host_constraint), db_i64(r->priority),
		db_str(r->name), db_text_array(&r->req_kinds),
		db_i64(r->req_min_sockets), db_i64(r->req_min_cpus),
		db_i64(r->req_min_memory_mb), db_text_array(&r->req_tags),
		db_i64(r->nr_runs), db_i64(r->rerun_of), db_i64(r->block),
		db_text_array(&r->plan_set), db_i64(r->boots),
		db_i64(r->first_boot), db_i64(r->bisect_step_id), db_end());
	if (rc < 0)
		return -1;
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0) {
		strbuf_addstr(err, "the job insert returned no id");
		return -1;
	}
	return 0;
}

void job_about_release(struct job_about *a)
{
	free(a->host);
	free(a->plan_name);
	free(a->kernel);
	memset(a, 0, sizeof(*a));
}

int jobs_about(struct db *db, int64_t job_id, struct job_about *ret,
	       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int rc;

	memset(ret, 0, sizeof(*ret));
	rc = db_query(db, &res, err,
		      "SELECT coalesce(h.name, j.host_constraint), p.name, "
		      "k.name, k.series_sha256 IS NOT NULL FROM jobs j "
		      "JOIN plans p ON p.id = j.plan_id JOIN kernels k ON "
		      "k.id = j.kernel_id LEFT JOIN hosts h ON h.id = "
		      "j.host_id WHERE j.id = $1",
		      db_i64(job_id), db_end());
	if (rc < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	ret->host = db_get(res, 0, 0) ? xstrdup(db_get(res, 0, 0)) : NULL;
	ret->plan_name = xstrdup(db_get(res, 0, 1));
	ret->kernel = xstrdup(db_get(res, 0, 2));
	ret->kernel_has_series = !strcmp(db_get(res, 0, 3), "t");
	return 0;
}

int jobs_latest_with_plan(struct db *db, const char *text, size_t len,
			  int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	_cleanup_free_ char *body = xstrndup(text, len);
	int rc;

	rc = db_query(db, &res, err,
		      "SELECT max(j.id) FROM jobs j JOIN plans p ON p.id = "
		      "j.plan_id WHERE p.sha256 = "
		      "encode(sha256(convert_to($1, 'UTF8')), 'hex')",
		      db_str(body), db_end());
	if (rc < 0)
		return -1;
	if (!db_get(res, 0, 0))
		return 1;
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0 ? -1 : 0;
}

int jobs_show_json(struct db *db, int64_t job_id, struct db_result **ret,
		   struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, job_id);
	r = db_exec_args(
		db, ret, err,
		"SELECT jsonb_build_object('job', j.id, 'name', j.name, "
		"'state', j.state, 'priority', j.priority, 'patch', "
		"j.patch_id, 'kernel', k.name, 'kernel_labelled', "
		"k.labelled, 'plan', p.name, 'set', "
		"to_jsonb(coalesce(j.plan_set, '{}')), "
		"'plan_sha256', p.sha256, 'host', h.name, "
		"'host_constraint', j.host_constraint, 'attempts', "
		"j.attempts, 'max_attempts', j.max_attempts, "
		"'lease_owner', j.lease_owner, 'lease_expires', "
		"j.lease_expires, 'created_at', j.created_at, "
		"'claimed_at', j.claimed_at, 'started_at', "
		"j.started_at, 'finished_at', j.finished_at, "
		"'error_phase', j.error_phase, 'error', j.error, "
		"'block', j.block, 'stop_reason', j.stop_reason, "
		"'log', j.log, "
		"'phases', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'phase', f.phase, 'attempt', f.attempt, 'status', "
		"f.status, 'started_at', f.started_at, 'finished_at', "
		"f.finished_at, 'seconds', round(extract(epoch FROM "
		"f.finished_at - f.started_at)::numeric, 3), 'log', "
		"f.log) ORDER BY f.id), '[]') FROM job_phases f WHERE "
		"f.job_id = j.id), "
		"'runs', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'run', r.id, 'attempt', r.attempt, 'boot', r.boot, "
		"'seq', r.seq, 'workload', r.workload, 'params', "
		"r.params, 'status', r.status, 'error', r.error, "
		"'results', (SELECT count(*) FROM results x WHERE "
		"x.run_id = r.id)) ORDER BY r.id), '[]') FROM runs r "
		"WHERE r.job_id = j.id)) "
		"FROM jobs j JOIN kernels k ON k.id = j.kernel_id JOIN "
		"plans p ON p.id = j.plan_id LEFT JOIN hosts h ON h.id "
		"= j.host_id WHERE j.id = $1",
		&a);
	db_args_clear(&a);
	return r;
}

int jobs_show_text(struct db *db, const char *job_json, struct db_result **ret,
		   struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, job_json);
	r = db_exec_args(db, ret, err,
			 "WITH o AS (SELECT $1::jsonb AS o) SELECT "
			 "format(E'job STP#%s: %s%s\\n  kernel %s%s, "
			 "plan %s%s, host %s, attempt %s of %s\\n  "
			 "created %s, finished %s\\n  block %s%s"
			 "\\n%s', o->>'job', "
			 "o->>'state', coalesce(' (' || (o->>"
			 "'error_phase') || ': ' || (o->>'error') || "
			 "')', ''), o->>'kernel', CASE WHEN "
			 "(o->>'kernel_labelled')::boolean THEN ' (a "
			 "label for what the host ran: nothing was "
			 "built or booted, no series applied)' ELSE '' "
			 "END, o->>'plan', coalesce((SELECT ' (' || "
			 "string_agg('--set ' || e, ' ') || ')' FROM "
			 "jsonb_array_elements_text(o->'set') e), ''), "
			 "coalesce(o->>'host', '-'), o->>'attempts', "
			 "o->>'max_attempts', o->>'created_at', "
			 "coalesce(o->>'finished_at', '-'), "
			 "o->>'block', coalesce(E'\\n  stop reason: ' "
			 "|| (o->>'stop_reason'), ''), coalesce("
			 "(SELECT string_agg(format(E'  phase %-8s "
			 "%-8s %ss%s', f->>'phase', f->>'status', "
			 "coalesce(f->>'seconds', '-'), coalesce(E'\\n"
			 "    ' || nullif(replace(rtrim(f->>'log', "
			 "E'\\n'), E'\\n', E'\\n    '), ''), '')), "
			 "E'\\n') FROM jsonb_array_elements(o->"
			 "'phases') f) || E'\\n', '') || coalesce("
			 "(SELECT string_agg(format('  run %s %-14s "
			 "%-8s %s results%s', r->>'run', r->>"
			 "'workload', r->>'status', r->>'results', "
			 "coalesce(': ' || (r->>'error'), '')), "
			 "E'\\n') FROM jsonb_array_elements(o->'runs') "
			 "r) || E'\\n', '') || 'log:' || E'\\n' || "
			 "(o->>'log')) FROM o",
			 &a);
	db_args_clear(&a);
	return r;
}
