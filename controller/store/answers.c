/*
 * answers.c - a submission's way to its answer, as rows; see answers.h.
 *
 * The ABBA order is computed, never stored: the jobs a submission has
 * (their kernel and boots, in id order) say how far it got, so a
 * controller that died between two jobs leaves nothing to repair and the
 * next one continues from the rows.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/answer_account.h"
#include "store/answers.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "banned.h"

/* P B B P P B B P ...: the side of single boot number i of the order. */
static enum answer_side abba_side(int i)
{
	return ((i + 1) / 2) % 2 == 0 ? ANSWER_PATCH : ANSWER_BASE;
}

int answer_next_unit(int n, int k, int done_patch, int done_base,
		     struct answer_unit *ret)
{
	int cp = 0, cb = 0, i;

	if (n < 0)
		n = 0;
	if (k < 0)
		k = 0;
	/* Walk the order; sides that have all their boots drop out. */
	for (i = 0; cp < n || cb < k; i++) {
		enum answer_side s = abba_side(i);

		if (s == ANSWER_PATCH && cp >= n)
			continue;
		if (s == ANSWER_BASE && cb >= k)
			continue;
		if (s == ANSWER_PATCH ? cp >= done_patch : cb >= done_base)
			break; /* the first boot not run yet */
		if (s == ANSWER_PATCH)
			cp++;
		else
			cb++;
	}
	if (cp >= n && cb >= k)
		return 0;
	ret->side = abba_side(i);
	ret->first_boot = ret->side == ANSWER_PATCH ? cp : cb;
	ret->boots = 0;
	/* Consecutive boots of the same kernel are one job. */
	for (;; i++) {
		enum answer_side s = abba_side(i);

		if (s == ANSWER_PATCH && cp >= n && ret->side == ANSWER_PATCH)
			break;
		if (s == ANSWER_BASE && cb >= k && ret->side == ANSWER_BASE)
			break;
		if ((s == ANSWER_PATCH && cp >= n) ||
		    (s == ANSWER_BASE && cb >= k))
			continue; /* the other side is finished: skip it */
		if (s != ret->side)
			break;
		ret->boots++;
		if (s == ANSWER_PATCH)
			cp++;
		else
			cb++;
	}
	return 1;
}

int answer_base_boots(int boots, int stored, int fresh_base)
{
	if (boots < 0)
		boots = 0;
	if (fresh_base || stored < 0)
		return boots;
	return boots > stored ? boots - stored : 0;
}

int answer_first_boots(int n, int host_boots, int k)
{
	struct answer_unit u;

	if (n < 1)
		return 1;
	if (host_boots == 0 || (host_boots > 0 && k == 0))
		return n;
	if (host_boots < 0)
		return 1; /* the base may need boots on the host it gets */
	return answer_next_unit(n, k, 0, 0, &u) ? u.boots : n;
}

void answer_sub_release(struct answer_sub *s)
{
	free(s->name);
	free(s->submitter);
	free(s->mail_to);
	free(s->state);
	free(s->base);
	free(s->base_name);
	free(s->kernel_name);
	free(s->plan_name);
	free(s->plan_sha);
	free(s->plan_body);
	free(s->host_name);
	free(s->host_kind);
	strvec_clear(&s->plan_set);
	free(s->note);
	for (size_t i = 0; i < s->nr_jobs; i++) {
		free(s->jobs[i].state);
		free(s->jobs[i].error_phase);
		free(s->jobs[i].error);
	}
	free(s->jobs);
	memset(s, 0, sizeof(*s));
}

int answers_open(struct db *db, int64_t **ret, size_t *ret_nr, size_t max,
		 struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	*ret = NULL;
	*ret_nr = 0;
	r = db_query(
		db, &res, err,
		"SELECT p.id FROM patches p WHERE (p.answer_state = 'pending' "
		"AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.patch_id = p.id "
		"AND j.bisect_step_id IS NULL AND j.state NOT IN ('done', "
		"'failed', 'cancelled'))) OR (p.answer_state = 'waiting' AND "
		"EXISTS (SELECT 1 FROM runs r LEFT JOIN jobs rj ON rj.id = "
		"r.job_id, LATERAL (SELECT j.plan_id, j.plan_set FROM jobs j "
		"WHERE j.patch_id = p.id ORDER BY j.id LIMIT 1) fj WHERE "
		"r.kernel_id = p.base_kernel_id AND r.host_id = "
		"p.answer_host_id AND r.status IN ('done', 'imported') AND "
		"r.plan_id = fj.plan_id AND coalesce(rj.plan_set, '{}') = "
		"fj.plan_set)) ORDER BY p.id LIMIT $1",
		db_i64((int64_t)max), db_end());
	if (r < 0)
		return -1;
	if (!db_nrows(res))
		return 0;
	*ret = xcalloc((size_t)db_nrows(res), sizeof(**ret));
	for (int i = 0; i < db_nrows(res); i++)
		if (db_get_i64(res, i, 0, 1, INT64_MAX, &(*ret)[(*ret_nr)]) ==
		    0)
			(*ret_nr)++;
	return 0;
}

int answers_try_lock(struct db *db, int64_t patch_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "SELECT pg_try_advisory_lock(hashtext("
		     "'schedfarm.answer'), ($1::bigint % 2147483647)::int)",
		     db_i64(patch_id), db_end());
	if (r < 0)
		return -1;
	return !strcmp(db_get(res, 0, 0), "t");
}

void answers_unlock(struct db *db, int64_t patch_id)
{
	struct strbuf err = STRBUF_INIT;

	db_query(db, NULL, &err,
		 "SELECT pg_advisory_unlock(hashtext('schedfarm.answer'), "
		 "($1::bigint % 2147483647)::int)",
		 db_i64(patch_id), db_end());
	strbuf_release(&err);
}

int answers_load(struct db *db, int64_t patch_id, struct answer_sub *s,
		 struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *jobs = NULL;
	int r;

	memset(s, 0, sizeof(*s));
	strvec_init(&s->plan_set);
	s->patch_id = patch_id;
	s->host_boots = -1;
	r = db_query(
		db, &res, err,
		"SELECT p.name, p.submitter, p.mail_to, p.answer_state, "
		"p.base, "
		"coalesce(kb.id, 0), kb.name, coalesce(p.kernel_id, 0), "
		"kn.name, p.auto_bisect, p.n_patches, p.answer_note, "
		"coalesce(fj.plan_id, 0), pl.name, pl.sha256, pl.body, "
		"coalesce(fj.priority, 0), coalesce(h.id, 0), h.name, h.kind, "
		"p.fresh_base FROM patches p "
		"LEFT JOIN kernels kb ON kb.id = coalesce(p.base_kernel_id, "
		"(SELECT id FROM kernels WHERE name = p.base)) "
		"LEFT JOIN kernels kn ON kn.id = p.kernel_id "
		"LEFT JOIN LATERAL (SELECT * FROM jobs j WHERE j.patch_id = "
		"p.id AND j.bisect_step_id IS NULL ORDER BY j.id LIMIT 1) fj "
		"ON true LEFT JOIN plans pl ON pl.id = fj.plan_id "
		"LEFT JOIN hosts h ON h.id = coalesce(fj.host_id, (SELECT "
		"id FROM hosts WHERE name = fj.host_constraint), "
		"p.answer_host_id) WHERE p.id = $1",
		db_i64(patch_id), db_end());
	if (r < 0)
		goto out;
	r = -1;
	if (db_nrows(res) != 1) {
		r = 1;
		goto out;
	}
	s->name = xstrdup(db_get(res, 0, 0));
	s->submitter = xstrdup(db_get(res, 0, 1));
	s->mail_to = xstrdup_or_null(db_get(res, 0, 2));
	s->state = xstrdup(db_get(res, 0, 3));
	s->base = xstrdup(db_get(res, 0, 4));
	s->base_name = xstrdup_or_null(db_get(res, 0, 6));
	s->kernel_name = xstrdup_or_null(db_get(res, 0, 8));
	s->auto_bisect = !strcmp(db_get(res, 0, 9), "t");
	s->note = xstrdup_or_null(db_get(res, 0, 11));
	s->plan_name = xstrdup_or_null(db_get(res, 0, 13));
	s->plan_sha = xstrdup_or_null(db_get(res, 0, 14));
	s->plan_body = xstrdup_or_null(db_get(res, 0, 15));
	s->host_name = xstrdup_or_null(db_get(res, 0, 18));
	s->host_kind = xstrdup_or_null(db_get(res, 0, 19));
	s->fresh_base = !strcmp(db_get(res, 0, 20), "t");
	if (s->host_kind)
		s->host_boots = hosts_kind_boots(s->host_kind);
	if (db_get_i64(res, 0, 5, 0, INT64_MAX, &s->base_kernel_id) < 0 ||
	    db_get_i64(res, 0, 7, 0, INT64_MAX, &s->kernel_id) < 0 ||
	    parse_int(db_get(res, 0, 10), 1, INT_MAX, &s->n_patches, NULL) <
		    0 ||
	    db_get_i64(res, 0, 12, 0, INT64_MAX, &s->plan_id) < 0 ||
	    parse_int(db_get(res, 0, 16), -1000, 1000, &s->priority, NULL) <
		    0 ||
	    db_get_i64(res, 0, 17, 0, INT64_MAX, &s->host_id) < 0) {
		strbuf_addf(err, "PLM#%lld: an unreadable row",
			    (long long)patch_id);
		goto out;
	}
	if (db_query(db, &jobs, err,
		     "SELECT id, kernel_id, coalesce(host_id, 0), state, "
		     "error_phase, error, coalesce(boots, 0), block FROM "
		     "jobs "
		     "WHERE patch_id = $1 AND bisect_step_id IS NULL "
		     "ORDER BY id",
		     db_i64(patch_id), db_end()) < 0)
		goto out;
	s->nr_jobs = (size_t)db_nrows(jobs);
	s->jobs = xcalloc(s->nr_jobs ? s->nr_jobs : 1, sizeof(*s->jobs));
	for (size_t i = 0; i < s->nr_jobs; i++) {
		struct answer_job *j = &s->jobs[i];
		int row = (int)i;

		if (db_get_i64(jobs, row, 0, 1, INT64_MAX, &j->id) < 0 ||
		    db_get_i64(jobs, row, 1, 1, INT64_MAX, &j->kernel_id) < 0 ||
		    db_get_i64(jobs, row, 2, 0, INT64_MAX, &j->host_id) < 0 ||
		    parse_int(db_get(jobs, row, 6), 0, 1000, &j->boots, NULL) <
			    0 ||
		    parse_int(db_get(jobs, row, 7), 0, INT_MAX, &j->block,
			      NULL) < 0) {
			strbuf_addf(err, "PLM#%lld: an unreadable job row",
				    (long long)patch_id);
			goto out;
		}
		j->state = xstrdup(db_get(jobs, row, 3));
		j->error_phase = xstrdup_or_null(db_get(jobs, row, 4));
		j->error = xstrdup_or_null(db_get(jobs, row, 5));
		j->side = j->kernel_id == s->kernel_id ? ANSWER_PATCH
						       : ANSWER_BASE;
		if (strcmp(j->state, "done") && strcmp(j->state, "failed") &&
		    strcmp(j->state, "cancelled"))
			s->live = 1;
	}
	/* The first job's overrides (every unit copies them). */
	if (s->nr_jobs &&
	    jobs_load_plan_set(db, s->jobs[0].id, &s->plan_set, err) < 0)
		goto out;
	r = 0;
out:
	return r;
}

int answers_observations(struct db *db, int64_t kernel_id, int64_t host_id,
			 int64_t plan_id, const struct strvec *plan_set,
			 int64_t exclude_patch, int *ret_n, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strvec none = STRVEC_INIT;
	int r;

	*ret_n = 0;
	/* An observation is a boot of a job (compare.c groups so), of the
	 * plan as changed by the same --set overrides. */
	r = db_query(
		db, &res, err,
		"SELECT count(DISTINCT CASE WHEN r.job_id IS NOT NULL THEN "
		"'j' || r.job_id || '.' || r.boot ELSE 'r' || r.id END) FROM "
		"runs r LEFT JOIN jobs j ON j.id = r.job_id WHERE r.kernel_id "
		"= $1 AND r.host_id = $2 AND r.plan_id = $3 AND r.status IN "
		"('done', 'imported') AND ($4 = 0 OR j.patch_id IS NULL OR "
		"j.patch_id <> $4 OR j.bisect_step_id IS NOT NULL) AND "
		"coalesce(j.plan_set, '{}') = $5::text[]",
		db_i64(kernel_id), db_i64(host_id), db_i64(plan_id),
		db_i64(exclude_patch),
		db_text_array(plan_set ? plan_set : &none), db_end());
	if (r < 0)
		return -1;
	return parse_int(db_get(res, 0, 0), 0, INT_MAX, ret_n, NULL) < 0 ? -1
									 : 0;
}

int answers_queue_unit(struct db *db, const struct answer_sub *s,
		       const struct answer_unit *u, int64_t *ret_id,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct job_row job;
	int64_t per_boot;
	int r = -1;

	*ret_id = 0;
	if (!s->nr_jobs || !s->host_name) {
		strbuf_addf(err, "PLM#%lld has no first job on a host",
			    (long long)s->patch_id);
		return -1;
	}
	job_row_init(&job);
	if (db_begin(db, err) < 0)
		return -1;
	/* The patch row is the lock: two controllers queue one unit. */
	if (db_query(db, &res, err,
		     "SELECT (SELECT count(*) FROM jobs j WHERE j.patch_id "
		     "= p.id AND j.bisect_step_id IS NULL AND j.state NOT "
		     "IN ('done', 'failed', 'cancelled')), (SELECT "
		     "count(*) FROM jobs j WHERE j.patch_id = p.id AND "
		     "j.bisect_step_id IS NULL) FROM patches p WHERE p.id "
		     "= $1 AND p.answer_state = 'pending' FOR UPDATE OF p",
		     db_i64(s->patch_id), db_end()) < 0)
		goto out;
	if (db_nrows(res) != 1 || strcmp(db_get(res, 0, 0), "0")) {
		r = 0; /* answered meanwhile, or a job is live */
		goto out;
	}
	{
		int64_t n;

		/* Another controller queued this unit already. */
		if (db_get_i64(res, 0, 1, 0, INT64_MAX, &n) < 0 ||
		    n != (int64_t)s->nr_jobs) {
			r = 0;
			goto out;
		}
	}
	if (jobs_load_row(db, s->jobs[0].id, &job, err) != 0)
		goto out;
	per_boot = job.nr_runs / (s->jobs[0].boots > 0 ? s->jobs[0].boots : 1);
	job.kernel_id =
		u->side == ANSWER_PATCH ? s->kernel_id : s->base_kernel_id;
	free(job.host_constraint);
	job.host_constraint = xstrdup(s->host_name);
	job.boots = u->boots;
	job.first_boot = u->first_boot;
	job.nr_runs = per_boot * u->boots;
	job.block = 0;
	job.rerun_of = 0;
	job.bisect_step_id = 0;
	if (jobs_insert(db, &job, ret_id, err) < 0)
		goto out;
	r = 1;
out:
	if (r < 0)
		db_rollback(db);
	else if (db_commit(db, err) < 0)
		r = -1;
	job_row_release(&job);
	return r;
}

int answers_record(struct db *db, int64_t patch_id, const char *state,
		   int64_t host_id, const char *verdict, const char *headline,
		   const char *note, const char *metrics_json,
		   struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE patches SET answer_state = $2, answer_host_id "
		     "= coalesce(nullif($3, 0), answer_host_id), "
		     "answer_verdict = $4, answer_headline = $5, "
		     "answer_note = $6, answer_metrics = $7::jsonb, "
		     "answered_at = CASE WHEN $2 IN ('answered', "
		     "'failed') THEN now() END WHERE id = $1",
		     db_i64(patch_id), db_str(state), db_i64(host_id),
		     db_str(verdict), db_str(headline), db_str(note),
		     db_str(metrics_json), db_end());
	return r;
}

/* The value of header `name` (e.g. "Subject: ") in the header block of a
 * patch, with continuation lines joined; -1 when absent. */
static int header_value(const char *data, size_t len, const char *name,
			struct strbuf *out)
{
	const char *p = data, *end = data + len;
	size_t nl_len = strlen(name);
	int found = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		/* The diff starts: no more headers. */
		if ((l >= 4 && !memcmp(p, "--- ", 4)) ||
		    (l >= 5 && !memcmp(p, "diff ", 5)) ||
		    (l == 3 && !memcmp(p, "---", 3)))
			break;
		if (found) {
			if (l && (p[0] == ' ' || p[0] == '\t')) {
				size_t ws = 0;

				while (ws < l &&
				       (p[ws] == ' ' || p[ws] == '\t'))
					ws++;

				strbuf_addch(out, ' ');
				strbuf_add(out, p + ws, l - ws);
				p += l + 1;
				continue;
			}
			break;
		}
		if (l >= nl_len && !memcmp(p, name, nl_len)) {
			strbuf_add(out, p + nl_len, l - nl_len);
			found = 1;
		}
		p += l + 1;
	}
	if (!found)
		return -1;
	for (size_t i = 0; i < out->len; i++)
		if (out->buf[i] == '\r' || out->buf[i] == '\t')
			out->buf[i] = ' ';
	strbuf_trim(out);
	return out->len ? 0 : -1;
}

/* v as text the database takes: bytes that are not UTF-8 as \xNN (a
 * latin-1 From: would otherwise stop the submission with PostgreSQL's
 * encoding error), at most 1000 bytes, never cutting a character. */
static void add_header_text(struct strbuf *out, const struct strbuf *v)
{
	size_t cut;

	strbuf_add_utf8_safe(out, v->buf, v->len);
	if (out->len <= 1000)
		return;
	cut = 1000;
	while (cut > 1 && ((unsigned char)out->buf[cut] & 0xc0) == 0x80)
		cut--;
	strbuf_setlen(out, cut);
}

int answers_patch_author(const char *data, size_t len, struct strbuf *out)
{
	struct strbuf v = STRBUF_INIT;

	if (header_value(data, len, "From: ", &v) < 0 || !strchr(v.buf, '@')) {
		strbuf_release(&v);
		return -1;
	}
	add_header_text(out, &v);
	strbuf_release(&v);
	return 0;
}

int answers_patch_subject(const char *data, size_t len, struct strbuf *out)
{
	struct strbuf v = STRBUF_INIT;
	const char *s;

	if (header_value(data, len, "Subject: ", &v) < 0) {
		strbuf_release(&v);
		return -1;
	}
	s = v.buf;
	/* "[PATCH v2 3/5] sched: x" -> "sched: x" */
	while (*s == '[') {
		const char *e = strchr(s, ']');

		if (!e)
			break;
		s = e + 1;
		while (*s == ' ')
			s++;
	}
	{
		struct strbuf t = STRBUF_INIT;

		strbuf_addstr(&t, *s ? s : v.buf);
		add_header_text(out, &t);
		strbuf_release(&t);
	}
	strbuf_release(&v);
	return 0;
}

int answers_store_files(struct db *db, int64_t patch_id,
			const struct queue_patch *files, size_t nr,
			struct strbuf *err)
{
	for (size_t i = 0; i < nr; i++) {
		struct strbuf hex = STRBUF_INIT, subject = STRBUF_INIT;
		const char *base = strrchr(files[i].name, '/');
		int r;

		answers_patch_subject(files[i].data, files[i].len, &subject);
		strbuf_add_hex(&hex, files[i].data, files[i].len);
		r = db_query(db, NULL, err,
			     "INSERT INTO patch_files (patch_id, position, "
			     "name, subject, sha256, data) VALUES ($1, $2, "
			     "left($3, 1000), $4, encode(sha256(decode($5, "
			     "'hex')), 'hex'), decode($5, 'hex'))",
			     db_i64(patch_id), db_i64((int64_t)i + 1),
			     db_str(base ? base + 1 : files[i].name),
			     db_str(subject.buf), db_str(hex.buf), db_end());
		strbuf_release(&hex);
		strbuf_release(&subject);
		if (r < 0)
			return -1;
	}
	return 0;
}

int answers_show_json(struct db *db, int64_t patch_id, const char *page_url,
		      struct strbuf *out, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct answer_phases ph;
	const char *obj;
	int r;

	r = db_query(
		db, &res, err,
		"SELECT jsonb_build_object('patch', p.id, 'name', p.name, "
		"'submitter', p.submitter, 'mail_to', p.mail_to, 'base', "
		"p.base, 'base_kernel', kb.name, 'kernel', kn.name, "
		"'n_patches', p.n_patches, 'auto_bisect', p.auto_bisect, "
		"'fresh_base', p.fresh_base, 'submitted_at', p.created_at, "
		"'files', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'position', f.position, 'name', f.name, 'subject', "
		"f.subject, 'sha256', f.sha256) ORDER BY f.position), '[]') "
		"FROM patch_files f WHERE f.patch_id = p.id), "
		"'answer', jsonb_build_object('state', p.answer_state, "
		"'verdict', p.answer_verdict, 'headline', p.answer_headline, "
		"'note', p.answer_note, 'host', ah.name, 'answered_at', "
		"p.answered_at, 'metrics', coalesce(p.answer_metrics, "
		"'[]'), 'base_reused', p.answer_base_reused), "
		"'page', $2::text, 'page_file', 'patch-' || p.id || '.html', "
		"'jobs', (SELECT coalesce(jsonb_agg(jsonb_build_object('job', "
		"j.id, 'state', j.state, 'kernel', k.name, 'side', CASE WHEN "
		"j.kernel_id = p.kernel_id THEN 'patch' ELSE 'base' END, "
		"'host', coalesce(h.name, j.host_constraint), 'boots', "
		"j.boots, 'block', j.block, 'error', j.error, 'stop_reason', "
		"j.stop_reason) ORDER BY j.id), '[]') FROM jobs j JOIN "
		"kernels k ON k.id = j.kernel_id LEFT JOIN hosts h ON h.id = "
		"j.host_id WHERE j.patch_id = p.id AND j.bisect_step_id IS "
		"NULL), "
		"'verdicts', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'host', c.host, 'workload', c.workload, 'params', c.params, "
		"'metric', c.metric, 'unit', c.unit, 'better', c.better, "
		"'n_base', c.n_base, 'n_new', c.n_new, 'mean_base', "
		"c.mean_base, 'mean_new', c.mean_new, 'pct_change', "
		"c.pct_change, 'ci_low', c.ci_low, 'ci_high', c.ci_high, "
		"'p_value', c.p_value, 'tau', c.tau, 'verdict', c.verdict) "
		"ORDER BY c.host, c.workload, c.params::text, c.metric), "
		"'[]') FROM latest_comparisons c WHERE c.base_kernel_id = "
		"p.base_kernel_id AND c.new_kernel_id = p.kernel_id), "
		"'mails', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', "
		"m.id, 'kind', m.kind, 'state', m.state, 'recipients', "
		"m.recipients, 'subject', m.subject, 'attempts', m.attempts, "
		"'last_error', m.last_error, 'next_attempt_at', "
		"m.next_attempt_at, 'sent_at', m.sent_at, 'refused', "
		"m.refused) ORDER BY m.id), "
		"'[]') FROM mails m WHERE m.patch_id = p.id OR "
		"m.bisection_id IN (SELECT b.id FROM bisections b WHERE "
		"b.patch_id = p.id)), "
		"'bisections', (SELECT coalesce(jsonb_agg(jsonb_build_object("
		"'id', b.id, 'state', b.state, 'metric', b.metric, 'host', "
		"bh.name, 'culprit', b.culprit, 'result', b.result, 'page', "
		"'bisect-' || b.id || '.html') ORDER BY b.id), '[]') FROM "
		"bisections b JOIN hosts bh ON bh.id = b.host_id WHERE "
		"b.patch_id = p.id)) "
		"FROM patches p LEFT JOIN kernels kb ON kb.id = "
		"p.base_kernel_id LEFT JOIN kernels kn ON kn.id = p.kernel_id "
		"LEFT JOIN hosts ah ON ah.id = p.answer_host_id WHERE p.id = "
		"$1",
		db_i64(patch_id), db_str(page_url), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	/* Where the time went, computed here (answer_account.c): the
	 * object's closing brace gives way to one more key. */
	if (answers_phases(db, patch_id, &ph, err) < 0)
		return -1;
	obj = db_get(res, 0, 0);
	strbuf_add(out, obj, strlen(obj) - 1);
	strbuf_addstr(out, ", \"phases\": ");
	answer_phases_json(&ph, out);
	strbuf_addch(out, '}');
	return 0;
}

int answers_list_json(struct db *db, struct strbuf *out, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_exec(db, &res, err,
		    "SELECT coalesce(jsonb_agg(jsonb_build_object('patch', "
		    "id, 'name', name, 'n_patches', n_patches, 'base', base, "
		    "'state', answer_state, 'verdict', answer_verdict, "
		    "'headline', answer_headline, 'submitted_at', created_at, "
		    "'answered_at', answered_at) ORDER BY id DESC), '[]') "
		    "FROM (SELECT * FROM patches ORDER BY id DESC LIMIT 500) p",
		    0, NULL) < 0)
		return -1;
	strbuf_addstr(out, db_get(res, 0, 0));
	return 0;
}

int answers_patch_files(struct db *db, int64_t patch_id, int64_t count,
			struct db_result **ret, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, patch_id);
	db_args_i64(&a, count);
	r = db_exec_args(db, ret, err,
			 "SELECT position, sha256, encode(data, 'hex') FROM "
			 "patch_files WHERE patch_id = $1 AND position <= $2 "
			 "ORDER BY position",
			 &a);
	db_args_clear(&a);
	return r;
}

int answers_bisection_mail_to(struct db *db, int64_t bisection_id,
			      struct db_result **ret, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, bisection_id);
	r = db_exec_args(db, ret, err,
			 "SELECT p.mail_to FROM bisections b LEFT JOIN "
			 "patches p ON p.id = b.patch_id WHERE b.id = "
			 "$1",
			 &a);
	db_args_clear(&a);
	return r;
}
