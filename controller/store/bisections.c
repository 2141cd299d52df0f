/*
 * bisections.c - the rows of bisections; see bisections.h.
 */
#include "cleanup.h"
#include "store/bisections.h"
#include "banned.h"

int bisections_row(struct db *db, int64_t id, struct db_result **ret,
		   struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT coalesce(b.patch_id, 0), b.host_id, h.name, "
			"b.plan_id, pl.sha256, pl.name, pl.body, b.workload, "
			"b.params::text, b.metric, b.direction, b.n_points, "
			"b.max_boots, b.priority, b.tree, b.state FROM "
			"bisections b JOIN hosts h ON h.id = b.host_id JOIN "
			"plans pl ON pl.id = b.plan_id WHERE b.id = $1",
			db_i64(id), db_end());
}

int bisections_points(struct db *db, int64_t id, struct db_result **ret,
		      struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT p.position, coalesce(p.kernel_id, 0), k.name, "
			"p.label, p.mark FROM bisection_points p LEFT JOIN "
			"kernels k ON k.id = p.kernel_id WHERE "
			"p.bisection_id = $1 ORDER BY p.position",
			db_i64(id), db_end());
}

int bisections_last_step(struct db *db, int64_t id, struct db_result **ret,
			 struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id, step, position, looks, boots, state, "
			"(SELECT max(step) FROM bisection_steps WHERE "
			"bisection_id = $1) FROM bisection_steps WHERE "
			"bisection_id = $1 ORDER BY step DESC LIMIT 1",
			db_i64(id), db_end());
}

int bisections_set_mark(struct db *db, int64_t id, int64_t pos,
			const char *mark, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE bisection_points SET mark = $3 WHERE "
			"bisection_id = $1 AND position = $2",
			db_i64(id), db_i64(pos), db_str(mark), db_end());
}

int bisections_open_step(struct db *db, int64_t id, int64_t step, int64_t pos,
			 int64_t kernel_id, int64_t boots,
			 struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"INSERT INTO bisection_steps (bisection_id, step, "
			"position, kernel_id, boots) VALUES ($1, $2, $3, $4, "
			"$5) RETURNING id",
			db_i64(id), db_i64(step), db_i64(pos),
			db_i64(kernel_id), db_i64(boots), db_end());
}

int bisections_step_looks(struct db *db, int64_t step_id, int64_t looks,
			  int64_t boots, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE bisection_steps SET looks = $2, boots = $3 "
			"WHERE id = $1",
			db_i64(step_id), db_i64(looks), db_i64(boots),
			db_end());
}

int bisections_fail(struct db *db, int64_t id, const char *why,
		    struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE bisections SET state = 'failed', error = $2, "
			"result = $2, finished_at = now() WHERE id = $1",
			db_i64(id), db_str(why), db_end());
}

int bisections_step_jobs(struct db *db, int64_t step_id, struct db_result **ret,
			 struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT count(*) FILTER (WHERE state NOT IN ('done', "
		"'failed', 'cancelled')), (SELECT 'STP#' || id || ' ' || state "
		"|| coalesce(' in ' || error_phase, '') || coalesce(': ' || "
		"error, '') FROM jobs WHERE bisect_step_id = $1 AND state IN "
		"('failed', 'cancelled') ORDER BY id DESC LIMIT 1) FROM jobs "
		"WHERE bisect_step_id = $1",
		db_i64(step_id), db_end());
}

int bisections_set_direction(struct db *db, int64_t id, const char *direction,
			     const char *workload, const char *params,
			     struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE bisections SET direction = $2, "
			"workload = $3, params = $4::jsonb WHERE id = "
			"$1",
			db_i64(id), db_str(direction), db_str(workload),
			db_str(params), db_end());
}

int bisections_first_step(struct db *db, int64_t id, struct db_result **ret,
			  struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id FROM bisection_steps WHERE "
			"bisection_id = $1 AND step = 0",
			db_i64(id), db_end());
}

int bisections_state(struct db *db, int64_t id, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT state FROM bisections WHERE id = $1",
			db_i64(id), db_end());
}

int bisections_try_lock(struct db *db, int64_t id, struct db_result **ret,
			struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT pg_try_advisory_lock(hashtext("
			"'schedfarm.bisect'), ($1::bigint % "
			"2147483647)::int)",
			db_i64(id), db_end());
}

int bisections_unlock(struct db *db, int64_t id, struct strbuf *err)
{
	return db_query(
		db, NULL, err,
		"SELECT pg_advisory_unlock(hashtext('schedfarm.bisect'), "
		"($1::bigint % 2147483647)::int)",
		db_i64(id), db_end());
}

int bisections_idle(struct db *db, int64_t limit, struct db_result **ret,
		    struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT b.id FROM bisections b WHERE b.state = 'running' AND "
		"NOT EXISTS (SELECT 1 FROM bisection_steps s JOIN jobs j ON "
		"j.bisect_step_id = s.id WHERE s.bisection_id = b.id AND "
		"j.state NOT IN ('done', 'failed', 'cancelled')) ORDER BY b.id "
		"LIMIT $1",
		db_i64(limit), db_end());
}

int bisections_host(struct db *db, const char *name, struct db_result **ret,
		    struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id, kind FROM hosts WHERE name = $1",
			db_str(name), db_end());
}

int bisections_running(struct db *db, int64_t patch_id, int64_t host_id,
		       const char *metric, struct db_result **ret,
		       struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT b.id, h.name FROM bisections b JOIN hosts h "
			"ON h.id = b.host_id WHERE b.patch_id = $1 AND "
			"b.host_id = $2 AND b.metric = $3 AND b.state = "
			"'running' ORDER BY b.id LIMIT 1",
			db_i64(patch_id), db_i64(host_id), db_str(metric),
			db_end());
}

int bisections_patch(struct db *db, int64_t patch_id, struct db_result **ret,
		     struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT p.n_patches, p.base, coalesce(kb.id, 0), kb.base, "
		"coalesce(p.kernel_id, 0), coalesce(fj.plan_id, 0), "
		"pl.sha256, coalesce(fj.priority, 0), ah.name, fh.name "
		"FROM patches p LEFT JOIN kernels kb ON kb.id = "
		"p.base_kernel_id LEFT JOIN LATERAL (SELECT * FROM jobs j "
		"WHERE j.patch_id = p.id AND j.bisect_step_id IS NULL "
		"ORDER BY j.id LIMIT 1) fj ON true LEFT JOIN plans pl ON "
		"pl.id = fj.plan_id LEFT JOIN hosts ah ON ah.id = "
		"p.answer_host_id LEFT JOIN hosts fh ON fh.id = "
		"fj.host_id WHERE p.id = $1",
		db_i64(patch_id), db_end());
}

int bisections_patch_files(struct db *db, int64_t patch_id,
			   struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT position, coalesce(nullif(subject, ''), "
			"name) FROM patch_files WHERE patch_id = $1 ORDER "
			"BY position",
			db_i64(patch_id), db_end());
}

int bisections_show_json(struct db *db, int64_t id, const char *page_url,
			 struct db_result **ret, struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"SELECT jsonb_build_object('bisection', b.id, 'patch', "
		"b.patch_id, 'patch_name', pa.name, 'tree', b.tree, 'good', "
		"b.good_rev, 'bad', b.bad_rev, 'host', h.name, 'plan', "
		"pl.name, 'workload', b.workload, 'params', b.params, "
		"'metric', b.metric, 'direction', b.direction, 'n', "
		"b.n_points, 'max_boots', b.max_boots, 'auto', b.auto, "
		"'state', b.state, 'culprit', b.culprit, 'culprit_label', "
		"(SELECT label FROM bisection_points WHERE bisection_id = b.id "
		"AND position = b.culprit), 'culprit_kernel', (SELECT k.name "
		"FROM bisection_points p JOIN kernels k ON k.id = p.kernel_id "
		"WHERE p.bisection_id = b.id AND p.position = b.culprit), "
		"'culprit_low', b.culprit_low, 'culprit_high', "
		"b.culprit_high, 'pct_change', b.pct_change, 'ci_low', "
		"b.ci_low, 'ci_high', b.ci_high, 'p_value', b.p_value, "
		"'result', b.result, 'error', b.error, 'created_at', "
		"b.created_at, 'finished_at', b.finished_at, 'page', "
		"$2::text, 'page_file', 'bisect-' || b.id || '.html', "
		"'points', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'position', p.position, 'kernel', k.name, 'rev', p.rev, "
		"'label', p.label, 'mark', p.mark) ORDER BY p.position), "
		"'[]') FROM bisection_points p LEFT JOIN kernels k ON k.id = "
		"p.kernel_id WHERE p.bisection_id = b.id), "
		"'steps', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'step', s.step, 'position', s.position, 'kernel', k.name, "
		"'state', s.state, 'looks', s.looks, 'boots', s.boots, 'n', "
		"s.n, 'mean', s.mean, 'mean_good', s.mean_good, 'mean_bad', "
		"s.mean_bad, 'pct_vs_good', s.pct_vs_good, 'ci_low', "
		"s.ci_low, 'ci_high', s.ci_high, 'p_value', s.p_value, "
		"'verdict_good', s.verdict_good, 'verdict_bad', "
		"s.verdict_bad, 'note', s.note, 'build_state', "
		"k.build_state, 'build_seconds', k.build_seconds, "
		"'started_at', s.started_at, 'finished_at', s.finished_at, "
		"'jobs', (SELECT coalesce(jsonb_agg(j.id ORDER BY j.id), "
		"'[]') FROM jobs j WHERE j.bisect_step_id = s.id)) ORDER BY "
		"s.step), '[]') FROM bisection_steps s LEFT JOIN kernels k ON "
		"k.id = s.kernel_id WHERE s.bisection_id = b.id)) "
		"FROM bisections b JOIN hosts h ON h.id = b.host_id JOIN "
		"plans pl ON pl.id = b.plan_id LEFT JOIN patches pa ON pa.id "
		"= b.patch_id WHERE b.id = $1",
		db_i64(id), db_str(page_url), db_end());
}

int bisections_cancel(struct db *db, int64_t id, struct db_result **ret,
		      struct strbuf *err)
{
	return db_query(
		db, ret, err,
		"WITH b AS (UPDATE bisections SET state = 'cancelled', result "
		"= 'cancelled by the user', finished_at = now() WHERE id = $1 "
		"AND state = 'running' RETURNING id) SELECT (SELECT count(*) "
		"FROM b), (SELECT count(*) FROM bisections WHERE id = $1)",
		db_i64(id), db_end());
}

int bisections_live_jobs(struct db *db, int64_t id, struct db_result **ret,
			 struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT j.id FROM jobs j JOIN bisection_steps s ON "
			"s.id = j.bisect_step_id WHERE s.bisection_id = $1 "
			"AND j.state NOT IN ('done', 'failed', 'cancelled')",
			db_i64(id), db_end());
}

int bisections_find_auto(struct db *db, int64_t patch_id,
			 struct db_result **ret, struct strbuf *err)
{
	return db_query(db, ret, err,
			"SELECT id FROM bisections WHERE patch_id = $1 AND "
			"auto ORDER BY id LIMIT 1",
			db_i64(patch_id), db_end());
}

int bisections_close_step(struct db *db, int64_t step_id,
			  const struct bisection_step_end *e,
			  struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE bisection_steps SET state = $2, looks = $3, "
			"n = $4, mean = $5, pct_vs_good = $6, ci_low = $7, "
			"ci_high = $8, p_value = $9, verdict_good = $10, "
			"verdict_bad = $11, note = $12, mean_good = $13, "
			"mean_bad = $14, finished_at = "
			"CASE WHEN $2 <> 'running' THEN now() END WHERE id = "
			"$1",
			db_i64(step_id), db_str(e->state), db_i64(e->looks),
			e->measured ? db_i64(e->n) : db_str(NULL),
			e->measured ? db_double(e->mean) : db_str(NULL),
			e->measured ? db_double(e->pct_vs_good) : db_str(NULL),
			e->measured ? db_double(e->ci_low) : db_str(NULL),
			e->measured ? db_double(e->ci_high) : db_str(NULL),
			e->measured ? db_double(e->p_value) : db_str(NULL),
			db_str(e->measured ? e->verdict_good : NULL),
			db_str(e->verdict_bad), db_str(e->note),
			db_double(e->mean_good), db_double(e->mean_bad),
			db_end());
}

int bisections_finish(struct db *db, int64_t id, int64_t culprit, int64_t low,
		      int64_t high, double pct_change, double ci_low,
		      double ci_high, double p_value, const char *result,
		      struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE bisections SET state = 'done', culprit = "
			"nullif($2, 0), culprit_low = nullif($3, 0), "
			"culprit_high = nullif($4, 0), pct_change = $5, "
			"ci_low = $6, ci_high = $7, p_value = $8, result = "
			"$9, finished_at = now() WHERE id = $1",
			db_i64(id), db_i64(culprit), db_i64(low), db_i64(high),
			db_double(pct_change), db_double(ci_low),
			db_double(ci_high), db_double(p_value), db_str(result),
			db_end());
}

int bisections_insert(struct db *db, int64_t patch_id, const char *tree,
		      const char *good, const char *bad, const char *config,
		      int64_t host_id, int64_t plan_id, const char *workload,
		      const char *params, const char *metric,
		      const char *direction, int n, int max_boots, int priority,
		      int is_auto, int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(
		db, &res, err,
		"INSERT INTO bisections (patch_id, tree, good_rev, bad_rev, "
		"config_spec, host_id, plan_id, workload, params, metric, "
		"direction, n_points, max_boots, priority, auto) VALUES "
		"(nullif($1, 0), $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, "
		"$11, $12, $13, $14, $15) RETURNING id",
		db_i64(patch_id), db_str(tree), db_str(good), db_str(bad),
		db_str(config), db_i64(host_id), db_i64(plan_id),
		db_str(workload), db_str(params), db_str(metric),
		db_str(direction), db_i64(n), db_i64(max_boots),
		db_i64(priority), db_bool(is_auto), db_end());
	if (r < 0 || db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0)
		return -1;
	return 0;
}

int bisections_insert_point(struct db *db, int64_t id, int pos,
			    int64_t kernel_id, const char *rev,
			    const char *label, const char *mark,
			    struct strbuf *err)
{
	return db_query(db, NULL, err,
			"INSERT INTO bisection_points (bisection_id, "
			"position, kernel_id, rev, label, mark) VALUES ($1, "
			"$2, $3, $4, $5, $6)",
			db_i64(id), db_i64(pos), db_i64(kernel_id), db_str(rev),
			db_str(label), db_str(mark), db_end());
}
